//! Blob keys: how a transcript names the bytes behind a part (a long tool output, an image)
//! that are read only when asked for. Keys are strings in the model (the CLI and the app hand
//! them back as they got them); this is their one grammar, written and read in one place.

use std::fmt;

use agent_sessions_model::SessionMeta;

use crate::error::Error;
use crate::files::plain_name;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobKey {
    /// A file the agent spilled beside the transcript: Claude's `tool-results/<name>`.
    SpilledFile(String),
    /// The result of tool call `call` in the record at byte `offset`:
    /// `line:<offset>:tool:<call>` (Claude).
    ToolResult { offset: u64, call: String },
    /// The output in the record at byte `offset`: `line:<offset>:output` (Codex).
    Output { offset: u64 },
    /// The `index`-th image of the record at byte `offset`: `line:<offset>:image:<index>`.
    Image { offset: u64, index: usize },
    /// A stored part by its id: `part:<id>` (OpenCode).
    Part(String),
}

impl BlobKey {
    /// Reads a key, or says what is wrong with it.
    pub fn parse(key: &str) -> Result<BlobKey, &'static str> {
        // A name, never a path: the key comes from outside and picks a file to read (a part's
        // id is a file name in OpenCode's JSON storage).
        if let Some(name) = key.strip_prefix("tool-results/") {
            return Ok(BlobKey::SpilledFile(plain_name(name)?.to_owned()));
        }
        if let Some(id) = key.strip_prefix("part:") {
            return Ok(BlobKey::Part(plain_name(id)?.to_owned()));
        }
        let mut fields = key.splitn(4, ':');
        let (Some("line"), Some(offset), Some(kind)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err("unknown key form");
        };
        let offset: u64 = offset.parse().map_err(|_| "bad offset")?;
        let rest = fields.next();
        match kind {
            "output" => Ok(BlobKey::Output { offset }),
            "tool" => rest
                .map(|call| BlobKey::ToolResult {
                    offset,
                    call: call.to_owned(),
                })
                .ok_or("unknown key form"),
            "image" => rest
                .and_then(|n| n.parse().ok())
                .map(|index| BlobKey::Image { offset, index })
                .ok_or("bad image index"),
            _ => Err("unknown blob kind"),
        }
    }

    /// The key as a transcript holds it.
    pub fn key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for BlobKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlobKey::SpilledFile(name) => write!(f, "tool-results/{name}"),
            BlobKey::ToolResult { offset, call } => write!(f, "line:{offset}:tool:{call}"),
            BlobKey::Output { offset } => write!(f, "line:{offset}:output"),
            BlobKey::Image { offset, index } => write!(f, "line:{offset}:image:{index}"),
            BlobKey::Part(id) => write!(f, "part:{id}"),
        }
    }
}

/// The error for a key that names nothing in `session`, with why.
pub(crate) fn not_found(session: &SessionMeta, key: &str, reason: &str) -> Error {
    Error::BlobNotFound {
        session: session.id.clone(),
        key: key.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The key `key` of `session` read, or the error saying why it names nothing.
pub(crate) fn parse(session: &SessionMeta, key: &str) -> Result<BlobKey, Error> {
    BlobKey::parse(key).map_err(|reason| not_found(session, key, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_as_written() {
        for key in [
            BlobKey::SpilledFile("x1.txt".into()),
            BlobKey::ToolResult {
                offset: 12,
                call: "toolu_01:odd".into(),
            },
            BlobKey::Output { offset: 0 },
            BlobKey::Image {
                offset: 7,
                index: 2,
            },
            BlobKey::Part("prt_1".into()),
        ] {
            assert_eq!(BlobKey::parse(&key.key()), Ok(key));
        }
    }

    #[test]
    fn bad_keys_say_why() {
        for (key, why) in [
            ("tool-results/../../x", "not a file name"),
            ("tool-results/", "not a file name"),
            ("tool-results/.hidden", "not a file name"),
            ("part:../../../../etc/x", "not a file name"),
            ("part:..", "not a file name"),
            ("part:", "not a file name"),
            ("part:a\\b", "not a file name"),
            ("bogus", "unknown key form"),
            ("line:5", "unknown key form"),
            ("line:5:tool", "unknown key form"),
            ("line:x:output", "bad offset"),
            ("line:5:image:y", "bad image index"),
            ("line:5:video:1", "unknown blob kind"),
        ] {
            assert_eq!(BlobKey::parse(key), Err(why), "{key}");
        }
    }
}
