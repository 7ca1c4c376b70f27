//! The wire protocol (docs/remote.md): one JSON object per line, in both directions.
//!
//! - The server speaks first: `{"hello": {"protocol", "server", "os", "arch"}}`.
//! - The client sends requests `{"id", "method", "params"}`; each is answered by exactly one
//!   `{"id", "result"}` or `{"id", "error": {"code", "message"}}`.
//! - A streaming request (`follow`) also gets `{"id", "event"}` lines before its answer.
//!
//! The parameter and result types here are shared by the server and the client, so the two
//! cannot disagree about a field's name.

use std::path::PathBuf;

use agent_sessions_core::live::events::Event;
use agent_sessions_core::model::{Diagnostics, Message, ProviderKind, SessionMeta};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped when a message changes incompatibly; a client refuses any other.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest request line a server reads (requests are small: a query, an id, a cursor).
pub const MAX_REQUEST_LINE: usize = 1 << 20;

/// The longest line a client reads: a page of messages or a blob (base64) fits.
pub const MAX_REPLY_LINE: usize = 64 << 20;

/// A blob larger than this is refused rather than sent (its base64 must fit one line).
pub const MAX_BLOB: usize = 32 << 20;

/// A transcript page holds at most this many messages, and stops growing past this many bytes.
pub const PAGE_MESSAGES: usize = 200;
pub const PAGE_BYTES: usize = 8 << 20;

/// The server's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub protocol: u32,
    /// The server's version (`agent-sessions-cli --version`).
    pub server: String,
    /// `std::env::consts::OS` and `ARCH` of the server.
    pub os: String,
    pub arch: String,
}

impl Hello {
    /// This build's hello.
    pub fn ours() -> Self {
        Hello {
            protocol: PROTOCOL_VERSION,
            server: env!("CARGO_PKG_VERSION").to_owned(),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

/// A request as it arrives; `params` is read by the method's own type.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

/// A coded error, as the CLI's `--json` envelope carries them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireError {
    pub code: String,
    pub message: String,
}

impl WireError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        WireError {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// Any line the server writes: a hello, a result, an error or a stream event.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ServerLine {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello: Option<Hello>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Value>,
}

/// The methods, by name. Their parameters are the structs below.
pub mod method {
    pub const ROOTS: &str = "roots";
    pub const LIST: &str = "list";
    pub const CHANGES: &str = "changes";
    pub const SHOW: &str = "show";
    pub const SEARCH: &str = "search";
    pub const LOG: &str = "log";
    pub const FOLLOW: &str = "follow";
    pub const CANCEL: &str = "cancel";
    pub const BLOB: &str = "blob";
    pub const STATS: &str = "stats";
    pub const DIAGNOSTICS: &str = "diagnostics";
    pub const RESUME: &str = "resume";
}

/// `roots`: read these roots from now on instead of the server's own (the CLI's `--root`
/// flags given with `--host`). Each must exist on the server.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RootsParams {
    pub roots: Vec<(ProviderKind, PathBuf)>,
}

/// `list`: every session (refreshed first, as `scan` does), newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ListParams {
    /// Only these agents (none: all).
    #[serde(default)]
    pub providers: Vec<ProviderKind>,
    /// Read the stores directly instead of through the cache.
    #[serde(default)]
    pub no_cache: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ListResult {
    pub sessions: Vec<SessionMeta>,
    pub diagnostics: Diagnostics,
    /// The change sequence before this listing: ask `changes` with it.
    pub seq: u64,
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// `changes`: the sessions changed or removed after a cursor (`seq` of a list or of the last
/// answer); `reset` means list again. The server's refresh loop starts with the first call.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChangesParams {
    pub cursor: u64,
}

/// A session named by id (or an unambiguous prefix), optionally of one agent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionRef {
    pub id: String,
    #[serde(default)]
    pub provider: Option<ProviderKind>,
}

/// `show`: one page of a transcript, from message `offset`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ShowParams {
    #[serde(flatten)]
    pub session: SessionRef,
    #[serde(default)]
    pub offset: usize,
    /// At most this many messages (capped at [`PAGE_MESSAGES`]; 0 means the cap).
    #[serde(default)]
    pub limit: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShowResult {
    pub session: SessionMeta,
    pub messages: Vec<Message>,
    /// The offset of the next page; none after the last.
    pub next: Option<usize>,
    pub total: usize,
    pub diagnostics: Diagnostics,
    /// As `show --json` prints it: `{argv, cwd, shell}` or `{error: {code, message}}`.
    pub resume_command: Value,
}

/// `search`: as the CLI's `search` flags.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SearchParams {
    pub query: String,
    pub limit: usize,
    #[serde(default)]
    pub providers: Vec<ProviderKind>,
    #[serde(default)]
    pub dir: Option<String>,
    #[serde(default)]
    pub since_ms: Option<i64>,
    #[serde(default)]
    pub until_ms: Option<i64>,
}

/// `log`: a session's events so far; `follow` then streams the rest from `cursor`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogResult {
    pub session: SessionMeta,
    pub events: Vec<Event>,
    pub cursor: u64,
    pub ended: bool,
}

/// `follow`: stream a session's new events after `cursor` until it ends or is cancelled.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FollowParams {
    pub provider: ProviderKind,
    pub id: String,
    pub cursor: u64,
}

/// One `follow` event line: what is new since the last one. `truncated`: the cursor fell out of
/// the server's window (or events after it were dropped); some events were missed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowEvent {
    pub events: Vec<Event>,
    pub cursor: u64,
    pub truncated: bool,
    pub ended: bool,
}

/// `cancel`: stop the stream of request `id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CancelParams {
    pub id: u64,
}

/// `blob`: the bytes behind a blob key of a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BlobParams {
    #[serde(flatten)]
    pub session: SessionRef,
    pub key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BlobResult {
    /// Standard base64.
    pub base64: String,
    pub bytes: usize,
}

/// `stats`: as the CLI's `stats` flags (`by`: dir, repo, agent, model, day, week).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StatsParams {
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default)]
    pub providers: Vec<ProviderKind>,
}

/// `diagnostics`: unreadable records and the format versions seen.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DiagnosticsParams {
    #[serde(default)]
    pub providers: Vec<ProviderKind>,
}
