//! Paths of store files in serde, whatever bytes their names hold.
//!
//! A store's file or folder name need not be UTF-8 (Linux allows any bytes but `/` and NUL),
//! and serde's own `Path` impl refuses such a path, so one `bad\xff.jsonl` used to fail every
//! serialization it took part in: the scan state (a panic), the cache row (a "damaged" cache),
//! the CLI's JSON (a panic). Here a path is written two ways:
//!
//! - in a human-readable format (JSON: the CLI contract, the app, the remote protocol) as a
//!   string, lossily for a name that is not UTF-8 (`U+FFFD` for each bad byte): for display
//!   only; the CLI and the app name such a session by its id or by the file itself;
//! - in a binary format (postcard: the providers' scan states) as the OS's own string,
//!   losslessly, so a scan's state names exactly the files it read.
//!
//! What must round-trip through a human-readable form keeps the path beside it (the cache keeps
//! it as a column of bytes: `agent_sessions_core::index`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whether `given` names the stored path `stored`: the same path, or, for a stored name that
/// is not UTF-8, the lossy text the JSON shows for it (what the app and a remote client send
/// back, and what a person copies from `scan --json`).
pub fn names(stored: &Path, given: &Path) -> bool {
    stored == given
        || (stored.to_str().is_none() && given.to_str() == Some(&stored.to_string_lossy()))
}

/// Whether `dir` is absolute on some system: `/…`, `C:\…` (or `C:/…`) or `\\server\…`. A
/// recorded directory is read wherever the app runs: a session recorded on Linux (a bundle,
/// a remote machine, WSL) names `/home/…`, which Windows' own `Path::is_absolute` refuses.
pub fn absolute_on_any_os(dir: &str) -> bool {
    let b = dir.as_bytes();
    let drive = b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    dir.starts_with('/') || dir.starts_with("\\\\") || (drive && matches!(b[2], b'\\' | b'/'))
}

/// `#[serde(with = "agent_sessions_model::path::os")]` on a `PathBuf` field.
pub mod os {
    use super::*;

    pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&path.to_string_lossy())
        } else {
            path.as_os_str().serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        if d.is_human_readable() {
            String::deserialize(d).map(PathBuf::from)
        } else {
            OsString::deserialize(d).map(PathBuf::from)
        }
    }
}

/// A path written as [`os`] writes it: a key or an element of the helpers below.
struct Written<'a>(&'a Path);

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        os::serialize(self.0, s)
    }
}

/// A path read as [`os`] reads it.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Read(PathBuf);

impl<'de> Deserialize<'de> for Read {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        os::deserialize(d).map(Read)
    }
}

/// `#[serde(with = "agent_sessions_model::path::os_keys")]` on a `BTreeMap<PathBuf, T>` field
/// (a scan state's files by path): each key as [`os`] writes a path.
pub mod os_keys {
    use super::*;

    pub fn serialize<S: Serializer, T: Serialize>(
        map: &BTreeMap<PathBuf, T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(map.iter().map(|(k, v)| (Written(k), v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<BTreeMap<PathBuf, T>, D::Error> {
        let map = BTreeMap::<Read, T>::deserialize(d)?;
        Ok(map.into_iter().map(|(k, v)| (k.0, v)).collect())
    }
}

/// `#[serde(with = "agent_sessions_model::path::os_vec")]` on a `Vec<PathBuf>` field: each
/// path as [`os`] writes it.
pub mod os_vec {
    use super::*;

    pub fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(paths.iter().map(|p| Written(p)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        let paths = Vec::<Read>::deserialize(d)?;
        Ok(paths.into_iter().map(|p| p.0).collect())
    }
}

/// `#[serde(with = "agent_sessions_model::path::os_option")]` on an `Option<PathBuf>` field:
/// the path, when there is one, as [`os`] writes it.
pub mod os_option {
    use super::*;

    pub fn serialize<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        path.as_deref().map(Written).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        Ok(Option::<Read>::deserialize(d)?.map(|p| p.0))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::{Diagnostic, ProviderKind, SessionMeta};
    use std::os::unix::ffi::OsStringExt;

    fn bad_name() -> PathBuf {
        PathBuf::from(OsString::from_vec(b"/s/bad\xff.jsonl".to_vec()))
    }

    /// serde's own `Path` impl fails here ("path contains invalid UTF-8 characters"), which
    /// made `json!` panic in the CLI and the cache store an empty row.
    #[test]
    fn a_name_that_is_not_utf8_is_written_to_json_lossily() {
        let meta = SessionMeta::new(ProviderKind::Claude, "bad".into(), bad_name());
        let json = serde_json::to_value(&meta).unwrap();
        assert_eq!(json["source_path"], "/s/bad\u{fffd}.jsonl");
        let diagnostic = Diagnostic {
            provider: ProviderKind::Claude,
            path: bad_name(),
            line: None,
            reason: "r".into(),
        };
        let json = serde_json::to_value(&diagnostic).unwrap();
        assert_eq!(json["path"], "/s/bad\u{fffd}.jsonl");
        // A UTF-8 path reads back as it was: the contract's strings are unchanged.
        let meta = SessionMeta::new(ProviderKind::Claude, "a".into(), "/s/é.jsonl".into());
        let back: SessionMeta =
            serde_json::from_str(&serde_json::to_string(&meta).unwrap()).unwrap();
        assert_eq!(back.source_path, meta.source_path);
    }

    /// A list of paths and a path that may be absent (a trash plan's), written the same way.
    #[test]
    fn lists_and_options_of_paths_are_written_as_paths_are() {
        #[derive(Serialize, Deserialize)]
        struct Paths {
            #[serde(with = "os_vec")]
            all: Vec<PathBuf>,
            #[serde(with = "os_option")]
            one: Option<PathBuf>,
            #[serde(with = "os_option")]
            none: Option<PathBuf>,
        }
        let paths = Paths {
            all: vec![bad_name(), "/s/é".into()],
            one: Some(bad_name()),
            none: None,
        };
        let json = serde_json::to_value(&paths).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "all": ["/s/bad\u{fffd}.jsonl", "/s/é"],
                "one": "/s/bad\u{fffd}.jsonl",
                "none": null,
            })
        );
        let back: Paths = serde_json::from_value(json).unwrap();
        assert_eq!(back.all[1], PathBuf::from("/s/é"));
        assert_eq!(back.none, None);
    }
}

#[cfg(test)]
mod any_os {
    use super::absolute_on_any_os;

    #[test]
    fn a_directory_of_any_system_is_absolute_on_every_system() {
        for dir in [
            "/home/ann/p",
            "C:\\Users\\Ann",
            "c:/users/ann",
            "\\\\server\\share",
        ] {
            assert!(absolute_on_any_os(dir), "{dir}");
        }
        for dir in ["home/ann", "C:", "C:relative", "~/p", "\\single", ""] {
            assert!(!absolute_on_any_os(dir), "{dir}");
        }
    }
}
