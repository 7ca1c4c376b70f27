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

/// `#[serde(with = "agent_sessions_model::path::os_keys")]` on a `BTreeMap<PathBuf, T>` field
/// (a scan state's files by path): each key as [`os`] writes a path.
pub mod os_keys {
    use super::*;

    /// A key written as [`os`](super::os) writes it.
    struct Key<'a>(&'a Path);

    impl Serialize for Key<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            super::os::serialize(self.0, s)
        }
    }

    /// A key read as [`os`](super::os) reads it.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Owned(PathBuf);

    impl<'de> Deserialize<'de> for Owned {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            super::os::deserialize(d).map(Owned)
        }
    }

    pub fn serialize<S: Serializer, T: Serialize>(
        map: &BTreeMap<PathBuf, T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(map.iter().map(|(k, v)| (Key(k), v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<BTreeMap<PathBuf, T>, D::Error> {
        let map = BTreeMap::<Owned, T>::deserialize(d)?;
        Ok(map.into_iter().map(|(k, v)| (k.0, v)).collect())
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
}
