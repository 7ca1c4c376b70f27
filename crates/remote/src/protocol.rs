//! The wire protocol (docs/remote.md): one JSON object per line, in both directions.
//!
//! - The server speaks first: `{"hello": {"protocol", "server", "os", "arch"}}`.
//! - The client sends requests `{"id", "method", "params"}`; each is answered by exactly one
//!   `{"id", "result"}` or `{"id", "error": {"code", "message"}}`.
//! - A streaming request (`follow`) also gets `{"id", "event"}` lines before its answer.
//!
//! The parameter and result types here are shared by the server and the client, so the two
//! cannot disagree about a field's name. Where the server writes one of core's own types that
//! cannot be read back (`SearchResults`, `Handoff`, `Delta`, a resume command), the answer's
//! type here is how every client reads it: declared once, next to the method.

use std::path::PathBuf;

use agent_sessions_core::actions::resume::ResumeCommand;
use agent_sessions_core::actions::trash::{Done, Plan};
use agent_sessions_core::health::CacheInfo;
use agent_sessions_core::index::{Hit, SearchResults};
use agent_sessions_core::live::events::Event;
use agent_sessions_core::model::{Diagnostic, Diagnostics, Message, ProviderKind, SessionMeta};
use agent_sessions_core::provider::SessionKey;
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
    pub const HANDOFF_PREPARE: &str = "handoff_prepare";
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
    pub const WATCH: &str = "watch";
    pub const BUNDLE_EXPORT: &str = "bundle_export";
    pub const UPLOAD_START: &str = "upload_start";
    pub const UPLOAD_CHUNK: &str = "upload_chunk";
    pub const BUNDLE_IMPORT: &str = "bundle_import";
    pub const TRASH: &str = "trash";
    pub const HANDOFF: &str = "handoff";
    pub const RAW: &str = "raw";
}

/// Every method a server of this build answers, for the `unknown_method` message.
pub const METHODS: &[&str] = &[
    method::ROOTS,
    method::HANDOFF_PREPARE,
    method::LIST,
    method::CHANGES,
    method::SHOW,
    method::SEARCH,
    method::LOG,
    method::FOLLOW,
    method::CANCEL,
    method::BLOB,
    method::STATS,
    method::DIAGNOSTICS,
    method::RESUME,
    method::WATCH,
    method::BUNDLE_EXPORT,
    method::UPLOAD_START,
    method::UPLOAD_CHUNK,
    method::BUNDLE_IMPORT,
    method::TRASH,
    method::HANDOFF,
    method::RAW,
];

/// A connection runs at most this many streams (`follow`, `watch`) at once: each is a thread of
/// the server, and a client holds one at a time per connection (the app's second connection
/// is its watch's).
pub const MAX_STREAMS: usize = 16;

/// A `bundle_export` event carries at most this many bundle bytes (base64 in its line).
pub const DOWNLOAD_CHUNK: usize = 4 << 20;

/// An `upload_chunk` carries at most this many bytes: its base64 (4/3 as many) and the rest
/// of the request fit a request line.
pub const UPLOAD_CHUNK: usize = 512 << 10;

/// The largest upload a server takes (the bundle reader's own limit for an archive).
pub const MAX_UPLOAD: u64 = 4 << 30;

/// Uploads a connection may hold at once (each a file in the server's temporary folder until
/// the connection ends).
pub const MAX_UPLOADS: usize = 4;

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

/// A session named by id (or an unambiguous prefix, or the path of its file), optionally of
/// one agent and, when two files hold one session (a store copied beside itself), the file it
/// was listed from: `source_path` only picks among listed sessions, it is never read as given.
/// Left out (a client before it, a user's typed id), an id two files hold is `ambiguous_id`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionRef {
    pub id: String,
    #[serde(default)]
    pub provider: Option<ProviderKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<PathBuf>,
}

impl SessionRef {
    /// As a user names it: an id or a prefix of one, of any agent (the CLI's `<id>`).
    pub fn named(id: impl Into<String>) -> Self {
        SessionRef {
            id: id.into(),
            provider: None,
            source_path: None,
        }
    }

    /// Exactly: its agent and full id (as the app names a listed session).
    pub fn exact(provider: ProviderKind, id: impl Into<String>) -> Self {
        SessionRef {
            id: id.into(),
            provider: Some(provider),
            source_path: None,
        }
    }

    /// Exactly, down to its file: as the app names a listed session.
    pub fn listed(session: &SessionMeta) -> Self {
        SessionRef {
            source_path: Some(session.source_path.clone()),
            ..SessionRef::exact(session.provider, session.id.clone())
        }
    }
}

/// `raw`: the agent's own records behind one message of a session (the app's raw-JSON view);
/// the answer is core's `raw::RawRecords`, at most [`PAGE_BYTES`] of records (at least one),
/// the rest counted in `omitted`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RawParams {
    #[serde(flatten)]
    pub session: SessionRef,
    /// The message's id, as a transcript page names it.
    pub message: String,
}

/// The longest message id a `raw` request may name (ids are uuids or short keys).
pub const MAX_MESSAGE_ID: usize = 256;

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
    /// As `show --json` prints it: `{argv, cwd, shell}` or `{error: {code, message}}` (on the
    /// first page only; read it with [`ShowResult::resume`]).
    pub resume_command: Value,
}

impl ShowResult {
    /// The session's resume command as the server built it, or why there is none.
    pub fn resume(&self) -> Result<ResumeCommand, WireError> {
        // A page without one (null) reads as an empty answer: "none sent".
        serde_json::from_value::<ResumeResult>(self.resume_command.clone())
            .unwrap_or_default()
            .command()
    }
}

/// `resume`: the session's resume command. With `open`, for a terminal about to open in the
/// session's directory there, checked first as a local Open terminal / Resume in terminal is
/// (core's `plan_session`), so nothing opens when it would only fail: the directory must be
/// there (`directory_missing`) and, to resume, the agent installed (`agent_not_found`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ResumeParams {
    #[serde(flatten)]
    pub session: SessionRef,
    /// Left out (Copy resume command, a client before it): the command, unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Open>,
}

/// What a terminal opened in a session's directory on the host runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Open {
    /// Resume in terminal: the answer is the resume command, its program as the host runs it
    /// (on its `PATH`, or the path where its installer put it).
    Resume,
    /// Open terminal: the answer is `{"cwd"}` only (the client starts a login shell there).
    Shell,
}

/// What `resume` answers, and what the first `show` page carries as `resume_command`: the
/// command as `show --json` prints it (`{argv, cwd, shell}`), or `{error: {code, message}}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ResumeResult {
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    pub error: Option<WireError>,
}

impl ResumeResult {
    /// The command, its invariants checked again here (the remote's words are not trusted:
    /// control characters are refused by `ResumeCommand::new`), or the server's refusal.
    pub fn command(&self) -> Result<ResumeCommand, WireError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let argv: Vec<&str> = self.argv.iter().map(String::as_str).collect();
        let Some((program, args)) = argv.split_first() else {
            return Err(WireError::new(
                "protocol",
                "the remote sent an empty resume command",
            ));
        };
        ResumeCommand::new(program, args, self.cwd.as_deref())
            .map_err(|e| WireError::new("invalid_input", e.to_string()))
    }
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

/// What `search` answers: core's `SearchResults` and the server library's warnings.
#[derive(Debug, Clone, Deserialize)]
pub struct SearchResult {
    pub results: SearchHits,
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// Core's `SearchResults` as the server writes it (core's type is written, never read back).
#[derive(Debug, Clone, Deserialize)]
pub struct SearchHits {
    pub hits: Vec<Hit>,
    pub read_directly: usize,
    pub unreadable: usize,
    pub partial: bool,
}

impl From<SearchHits> for SearchResults {
    fn from(r: SearchHits) -> Self {
        SearchResults {
            hits: r.hits,
            read_directly: r.read_directly,
            unreadable: r.unreadable,
            partial: r.partial,
        }
    }
}

/// `log`: a session's events so far; `follow` then streams the rest from `cursor`.
/// `truncated`: older events are not among them (beyond the follower's window), as in a
/// `follow` event; a server that predates it sends none (read as false).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogResult {
    pub session: SessionMeta,
    pub events: Vec<Event>,
    pub cursor: u64,
    #[serde(default)]
    pub truncated: bool,
    pub ended: bool,
}

/// `follow`: stream a session's new events after `cursor` until it ends or is cancelled.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FollowParams {
    pub provider: ProviderKind,
    pub id: String,
    pub cursor: u64,
    /// The file the session was listed from, when two hold it (see [`SessionRef`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<PathBuf>,
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

/// `watch`: push the change feed from `cursor` (a `list`'s `seq`, or the last event's) as
/// event lines until cancelled.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WatchParams {
    pub cursor: u64,
}

/// One `watch` event: what `changes` answers for the last cursor. `reset`: the cursor is not
/// this connection's feed (another connection's, or from before the roots changed): list
/// again; `changed`: the sessions as listed now; `removed`: the sessions gone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchEvent {
    pub seq: u64,
    pub reset: bool,
    pub changed: Vec<SessionMeta>,
    pub removed: Vec<SessionKey>,
}

/// What `changes` answers (core's `Delta` as the server writes it): the same as a `watch`
/// event.
pub type ChangesResult = WatchEvent;

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

/// What `diagnostics` answers: `diagnostics --json`'s fields and the server's places.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticsResult {
    pub parse_errors: u64,
    pub items: Vec<Diagnostic>,
    pub format_versions: Vec<FormatVersion>,
    #[serde(flatten)]
    pub places: DiagnosticsPlaces,
}

/// How many sessions of an agent were written in one of its format versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatVersion {
    pub provider: ProviderKind,
    pub format_version: String,
    pub sessions: u64,
}

/// What `diagnostics` answers besides `diagnostics --json`'s fields, for a Diagnostics panel:
/// the roots the server reads and its cache. Added after version 1 shipped, so a client reads
/// both as optional (an older server leaves them out) and an older client ignores them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticsPlaces {
    /// Each root of the providers asked (all when none), in the server's order.
    #[serde(default)]
    pub roots: Vec<RootPlace>,
    /// None from an older server.
    #[serde(default)]
    pub cache: Option<CachePlace>,
}

/// A root the server reads, and whether it exists there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootPlace {
    pub provider: ProviderKind,
    pub root: PathBuf,
    pub exists: bool,
}

/// The server's cache, as core's `health::CacheInfo`: the directory (none: the server reads
/// the stores directly), the cache file of its roots and its size with `-wal` and `-shm`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachePlace {
    pub dir: Option<PathBuf>,
    pub path: Option<PathBuf>,
    pub bytes: u64,
}

impl From<CacheInfo> for CachePlace {
    fn from(c: CacheInfo) -> Self {
        CachePlace {
            dir: c.dir,
            path: c.path,
            bytes: c.bytes,
        }
    }
}

impl From<CachePlace> for CacheInfo {
    fn from(c: CachePlace) -> Self {
        CacheInfo {
            dir: c.dir,
            path: c.path,
            bytes: c.bytes,
        }
    }
}

/// `bundle_export`: a session as a bundle, made on the server and sent as event lines
/// ([`Chunk`]s, in order), then answered with [`BundleExported`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BundleExportParams {
    #[serde(flatten)]
    pub session: SessionRef,
    /// Redacted and without the agent's own records (cannot be restored).
    #[serde(default)]
    pub share_safe: bool,
}

/// Bytes of a transfer from `offset` (standard base64).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub offset: u64,
    pub base64: String,
}

/// The end of a `bundle_export`: what the chunks add up to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleExported {
    /// `<title>.agent-session.zip`, the name the bundle would have been saved as there.
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `upload_start`: a file of `bytes` bytes (at most [`MAX_UPLOAD`]) whose SHA-256 is
/// `sha256` is about to be sent; answered with its `upload` number.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UploadStartParams {
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UploadStarted {
    pub upload: u64,
}

/// `upload_chunk`: the next bytes of an upload (`offset` must be what was received so far;
/// at most [`UPLOAD_CHUNK`] bytes). Answered with the bytes received; the last chunk checks
/// the whole file's size and SHA-256.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UploadChunkParams {
    pub upload: u64,
    #[serde(flatten)]
    pub chunk: Chunk,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UploadReceived {
    pub received: u64,
    pub complete: bool,
}

/// `bundle_import`: restore an uploaded bundle into the server's store of its agent, so that
/// the agent resumes it in `dir` (a folder on the server). Without `token`: the preview only
/// (nothing written), whose `token` allows exactly that restore on this connection for five
/// minutes; with it: the restore, every check made again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundleImportParams {
    pub upload: u64,
    pub dir: PathBuf,
    #[serde(default)]
    pub as_copy: bool,
    #[serde(default)]
    pub token: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundleImportResult {
    pub manifest: agent_sessions_core::bundle::Manifest,
    pub preview: agent_sessions_core::bundle::Preview,
    /// What the restore did (none for a preview).
    pub restored: Option<agent_sessions_core::bundle::Restored>,
    /// The restored session as the server lists it now.
    pub session: Option<SessionMeta>,
    /// As `show --json` prints it (none for a preview).
    pub resume_command: Value,
}

/// `trash`: a session to the trash (or, `permanent`, deleted), as the CLI's `trash` and
/// `delete --permanent`. Without `plan`: `{"plan", "done": null}`, nothing done. With the plan
/// the user confirmed: run when planning again gives exactly it (else `stale_plan`);
/// `{"plan", "done", "warnings"}`. The server's own `[actions]` opt-ins apply.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrashParams {
    #[serde(flatten)]
    pub session: SessionRef,
    #[serde(default)]
    pub permanent: bool,
    /// Whether the subagent sessions go too (none: undecided; a plan with any cannot run).
    #[serde(default)]
    pub subagents: Option<bool>,
    #[serde(default)]
    pub plan: Option<agent_sessions_core::actions::trash::Plan>,
}

/// What `trash` answers: the plan, and once it ran (a `plan` was sent) what was done and the
/// warnings of the server's cache.
#[derive(Debug, Clone, Deserialize)]
pub struct TrashResult {
    pub plan: Plan,
    pub done: Option<Done>,
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// `handoff_prepare` (params as [`HandoffParams`]): the host writes the handoff's prompt file in
/// its cache and answers where and what to run there (core's `handoff::Prepared`: `{cwd,
/// prompt_file, argv}`); the app runs it over `ssh -t`. `agent_not_found` when the target is
/// not installed there.
pub type HandoffPrepared = agent_sessions_core::actions::handoff::Prepared;

/// `handoff`: the handoff document of a session for agent `to`, built on the server (as
/// `handoff --print --json` gives it: `{source, target, session_id, budget, chars, shown,
/// markdown}`); `budget` in characters, 5,000 to 32,000 (default 24,000).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HandoffParams {
    #[serde(flatten)]
    pub session: SessionRef,
    pub to: ProviderKind,
    #[serde(default)]
    pub budget: Option<usize>,
}

/// What `handoff` answers: core's `Handoff` as `handoff --print --json` prints it. The fields
/// a client reads are named; the others (`source`, `target`, `shown`, …) are kept as they came,
/// so the CLI prints the host's document whole.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HandoffDoc {
    pub markdown: String,
    pub chars: usize,
    #[serde(flatten)]
    pub rest: serde_json::Map<String, Value>,
}
