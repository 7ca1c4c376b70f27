// Generated from the Rust types (src-tauri/src/bindings.rs): do not edit; run `UPDATE_BINDINGS=1 cargo test -p agent-sessions bindings` to regenerate.

export type ActionSettings = { allow_delete: boolean, allow_permanent_delete: boolean, };
/**
 * An error as the UI receives it.
 */
export type AppError = { 
/**
 * One of `not_found`, `invalid_input`, `ambiguous_id`, `resume_other_copy`, `io`, `cache`,
 * `internal`;
 * translation, trash and bundles keep core's own codes ([`ErrorCode`]).
 */
code: ErrorCode, message: string, 
/**
 * A command the user can run instead (the resume command when its agent was not found).
 */
copy?: string, };
/**
 * What a window shows of a blob.
 */
export type BlobView = { "kind": "image", mime: string, base64: string, bytes: number, } | { "kind": "toolarge", mime: string, bytes: number, } | { "kind": "text", text: string, truncated: boolean, bytes: number, };
export type BundleFile = { path: string, kind: BundleFileKind, 
/**
 * The session a native file belongs to.
 */
session: string | null, size: number, 
/**
 * Lowercase hex.
 */
sha256: string, };
/**
 * What a file of the archive is.
 */
export type BundleFileKind = "transcript" | "markdown" | "native";
/**
 * The bundle's manifest.
 */
export type BundleManifest = { format: string, format_version: number, 
/**
 * The agent-sessions version that wrote it.
 */
app_version: string, created_at: string, mode: BundleMode, source: BundleSource, 
/**
 * The session the bundle was made of.
 */
session: BundleSession, 
/**
 * Its subagent sessions (all descendants), whose records come along.
 */
subagents: Array<BundleSession>, 
/**
 * Every file of the archive but this manifest.
 */
files: Array<BundleFile>, 
/**
 * Share-safe bundles: what the redaction replaced, per rule.
 */
redaction: RedactionCounts | null, 
/**
 * What a reader should know (records that could not be included, and why).
 */
notes: Array<string>, };
/**
 * Complete (private, restorable) or share-safe (redacted, for handoff only).
 */
export type BundleMode = "complete" | "share_safe";
export type BundleOpened = { 
/**
 * Names the chosen file in the calls that follow.
 */
handle: string, file_name: string, bytes: number, 
/**
 * What its entries unpack to in all (within the reader's limits; shown beside `bytes`).
 */
unpacked: number, manifest: BundleManifest, 
/**
 * The directories the bundle's agent already has sessions in, to restore into.
 */
dirs: Array<string>, };
/**
 * What a restore would do, for the user to confirm; `token` allows exactly this. (Read back
 * by a remote client: the preview comes from the server that restores.)
 */
export type BundlePreview = { provider: ProviderKind, bundle_sha256: string, root: string, dir: string, as_copy: boolean, 
/**
 * The directory the session was recorded in.
 */
from_dir: string | null, 
/**
 * The restored session's id (new when restored as a copy).
 */
session_id: string, 
/**
 * Every session restored: (id in the bundle, id it gets).
 */
sessions: Array<[string, string]>, method: RestoreMethod, 
/**
 * Codex: the state database that gets a `threads` row per restored rollout, so that
 * Codex lists them (none when Codex has not made one yet: it lists the rollouts when it
 * does).
 */
state_db: string | null, notes: Array<string>, token: string, expires_at: string, };
export type BundleRestored = { restored: Restored, 
/**
 * The restored session as the refreshed list has it (the UI opens it).
 */
session: SessionMeta | null, };
export type BundleSaved = { path: string, bytes: number, redaction: RedactionCounts | null, };
/**
 * A session's metadata, as the bundle carries it (no local file paths).
 */
export type BundleSession = { id: string, parent_id: string | null, title: string | null, cwd: string | null, git_branch: string | null, model: string | null, agent: string | null, created_at: string | null, updated_at: string | null, counts: Counts, tokens: Tokens | null, };
/**
 * Where the session comes from.
 */
export type BundleSource = { provider: ProviderKind, 
/**
 * The agent's own version that wrote the session.
 */
tool_version: string | null, 
/**
 * The machine the bundle was made on.
 */
host: string | null, };
export type CacheInfo = { 
/**
 * The cache directory (none: no cache).
 */
dir: string | null, 
/**
 * The cache file of these roots.
 */
path: string | null, 
/**
 * Its size with its shards' files and SQLite's `-wal` and `-shm` files.
 */
bytes: number, };
/**
 * What a session changed in its working tree.
 */
export type ChangeSummary = { additions: number, deletions: number, files: number, };
/**
 * Something wrong in the config file; the setting it is about keeps its default.
 */
export type ConfigProblem = { path: string, 
/**
 * 1-based line, when the problem has a place in the file.
 */
line: number | null, 
/**
 * The dotted key (`ui.theme`), when the problem is about one.
 */
key: string | null, message: string, };
export type Continued = { terminal: string, cwd: string, target: ProviderKind, 
/**
 * The handoff's length in characters.
 */
chars: number, };
/**
 * Where a session's cost figure comes from.
 */
export type CostBasis = "none" | "recorded" | "estimated" | "unpriced";
/**
 * Message counts as SPEC §6 defines them.
 */
export type Counts = { 
/**
 * Human prompts: no meta/injected records, tool results, command wrappers or summaries.
 */
user: number, 
/**
 * Assistant messages, one per model response (split records merged by message id).
 */
assistant: number, 
/**
 * Tool calls made by the counted assistant messages.
 */
tool_calls: number, };
/**
 * One problem met while reading a store: never fatal, always counted.
 */
export type Diagnostic = { provider: ProviderKind, 
/**
 * In JSON, lossy where the name is not UTF-8 (see [`path`]).
 */
path: string, 
/**
 * 1-based line number, for line-oriented files.
 */
line: number | null, reason: string, };
/**
 * Problems met during a scan or load. `items` is capped; `parse_errors` counts them all.
 */
export type Diagnostics = { parse_errors: number, items: Array<Diagnostic>, };
export type ErrorCode = "not_found" | "invalid_input" | "io" | "cache" | "internal" | "ambiguous_id" | "resume_other_copy" | "translate_not_configured" | "translate_bad_url" | "translate_bad_key" | "message_not_found" | "translate_no_text" | "translate_too_long" | "translate_unreachable" | "translate_timeout" | "translate_unauthorized" | "translate_http" | "translate_bad_reply" | "delete_disabled" | "permanent_delete_disabled" | "session_live" | "session_recent" | "unsupported" | "subagents_undecided" | "subagents_go_along" | "agent_missing" | "invalid_session_id" | "unsafe_path" | "stale_plan" | "trash_failed" | "bundle_invalid" | "bundle_unsafe" | "bundle_too_large" | "bundle_checksum" | "bundle_manifest" | "bundle_version" | "bundle_not_restorable" | "bad_target" | "restore_token" | "session_exists" | "restore_failed" | "ssh_auth" | "ssh_host_key" | "ssh_unreachable" | "bad_host" | "spawn" | "connection_closed" | "protocol" | "version_mismatch" | "server_missing" | "bootstrap" | "remote_unsupported";
export type EventType = "session_start" | "prompt" | "tool_start" | "tool_end" | "notification" | "ask" | "stop" | "session_end";
export type ExportFormat = "markdown" | "json" | "html";
/**
 * What an export includes. Recorded in the JSON export, so a reader knows what was left out.
 */
export type ExportOptions = { 
/**
 * Reasoning parts (off by default: they are long and rarely meant for the reader).
 */
reasoning: boolean, tool_output: ToolOutput, 
/**
 * Meta records (injected context, bookkeeping), hidden in the app unless asked for.
 */
meta: boolean, };
export type Exported = { path: string, bytes: number, };
/**
 * The summed figures of some sessions.
 */
export type Figures = { sessions: number, 
/**
 * Conversation messages as the list counts them (user prompts + assistant messages).
 */
messages: number, tokens: Tokens, 
/**
 * Recorded costs plus estimates (`pricing`) where the agent recorded none.
 */
cost_usd: number, 
/**
 * Sessions with a cost, recorded or estimated (the others add nothing to `cost_usd`).
 */
with_cost: number, 
/**
 * Of `with_cost`, the sessions whose cost is an estimate.
 */
estimated: number, 
/**
 * Sessions with tokens but no price for their model: left out of `cost_usd`.
 */
unpriced: number, };
export type FileChange = { path: string, 
/**
 * `add`, `update` or `delete`.
 */
change: string, diff: string | null, additions: number, deletions: number, };
export type Filter = { agent: ProviderKind | null, since: string | null, until: string | null, model: string | null, has_subagents: boolean, archived: boolean, live: boolean, };
/**
 * What a search found, and how complete that is.
 */
export type Found = { hits: Array<Hit>, 
/**
 * Sessions whose text was not indexed yet, searched by reading them: their hits are all
 * there, ranked by how recent they are until the index has them.
 */
read_directly: number, 
/**
 * Matches may be missing: some sessions could not be read, or the first list of sessions
 * was not done yet (`listing`).
 */
partial: boolean, 
/**
 * The first list of sessions was still being made: sessions not listed yet were not
 * searched.
 */
listing: boolean, };
/**
 * How the session tree is grouped by default (the app's group modes).
 */
export type GroupBy = "dir-agent" | "agent-dir" | "flat";
export type HandoffText = { markdown: string, chars: number, };
export type Health = { roots: Array<RootHealth>, 
/**
 * Records skipped in all (each root lists at most [`crate::model::Diagnostics::MAX_ITEMS`]
 * in all of them; this counts every one).
 */
parse_errors: number, 
/**
 * Skipped records counted but not listed (past the list's cap).
 */
unlisted: number, watcher: WatcherState, cache: CacheInfo, };
/**
 * One search result: a message (or the title, with an empty `message_id`). Read back from a
 * remote's answer too.
 */
export type Hit = { session_id: string, provider: ProviderKind, message_id: string, title: string | null, snippet: string, 
/**
 * Higher is better (negated BM25).
 */
score: number, 
/**
 * The session's file: one session id can be in two files (a project folder copied beside
 * itself), and a hit opens its own. Empty from a remote server that predates it. In
 * JSON, lossy where the name is not UTF-8 (`model::path`).
 */
source_path: string, };
export type HostsView = { 
/**
 * The aliases, in the config's order.
 */
hosts: Array<string>, 
/**
 * The one shown (none: this computer).
 */
current: string | null, 
/**
 * The ssh config read.
 */
config: string | null, 
/**
 * Includes that could not be read.
 */
problems: Array<string>, 
/**
 * The host shown last time (`ui.host`), when it is still listed: the window starts on it.
 */
remembered: string | null, 
/**
 * Why the window starts on this computer although another machine was remembered.
 */
forgotten: string | null, };
/**
 * A terminal found on this machine.
 */
export type InstalledTerminal = { id: string, name: string, 
/**
 * The executable (on macOS, the app bundle) found.
 */
program: string, 
/**
 * For `x-terminal-emulator`: the known terminal it points to, if it is one.
 */
target: string | null, };
export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;
/**
 * One agent's setup: where it goes and what to put there.
 */
export type McpSetup = { agent: string, 
/**
 * Where the snippet goes, or that it is a command to run.
 */
place: string, snippet: string, };
/**
 * A message with the HTML of its text parts (`html[i]` belongs to `parts[i]`; `None` for
 * parts the UI shows as plain, escaped text).
 */
export type MessageView = { html: Array<string | null>, 
/**
 * Stable within the session: the record uuid, or the assistant message id.
 */
id: string, role: Role, 
/**
 * The message this one answers or follows in the conversation tree (Claude's
 * `parentUuid` threading); `None` at a root or where the provider has no tree.
 */
parent_id: string | null, timestamp: string | null, model: string | null, 
/**
 * Counted by SPEC §6 (shown by default). Meta, injected and sidechain records are not.
 */
counted: boolean, 
/**
 * Injected or bookkeeping content, hidden unless the user asks for meta records.
 */
meta: boolean, 
/**
 * Belongs to an inline subagent conversation (Claude 1.0.x sidechains).
 */
sidechain: boolean, parts: Array<Part>, 
/**
 * 1-based line numbers of the source records, for the raw-JSON view.
 */
source_lines: Array<number>, };
export type Opened = { terminal: string, cwd: string, };
/**
 * The content of a message. Large outputs and images are referenced by blob key, never inlined.
 */
export type Part = { "kind": "text", text: string, } | { "kind": "reasoning", text: string, 
/**
 * The provider stored the reasoning encrypted or redacted; `text` may be empty.
 */
encrypted: boolean, } | { "kind": "tool" } & ToolPart | { "kind": "patch", files: Array<FileChange>, } | { "kind": "file", path: string | null, mime: string | null, blob: string | null, } | { "kind": "compaction", trigger: string | null, pre_tokens: number | null, summary: string | null, } | { "kind": "notice", 
/**
 * What produced it: `command`, `attachment:<type>`, `interrupt`, … (a string in JSON).
 */
source: string, text: string, };
/**
 * Which agent wrote a session.
 */
export type ProviderKind = "claude" | "codex" | "opencode" | "gemini" | "qwen" | "cline" | "copilot" | "aider";
/**
 * One provider's roots after flags, environment, config and defaults, and where they came from.
 */
export type ProviderRoots = { provider: ProviderKind, enabled: boolean, enabled_from: Source, roots: Array<string>, roots_from: Source, 
/**
 * The variable the roots came from, when `roots_from` is `Env`.
 */
env_var: string | null, };
export type ProviderSettings = { enabled: boolean, 
/**
 * Empty: the agent's environment variable or its per-OS default.
 */
roots: Array<string>, };
/**
 * One record as the agent wrote it, pretty-printed when it is whole JSON.
 */
export type RawRecord = { 
/**
 * Where it is: `line 12`, or the row or file it came from (`part prt_…`).
 */
place: string, 
/**
 * 1-based line in the session file, when the store has lines.
 */
line: number | null, 
/**
 * Pretty-printed JSON; the bytes as read (lossy UTF-8) when cut short or not JSON.
 */
text: string, 
/**
 * The record was longer than [`MAX_RECORD_BYTES`]; `text` is its start.
 */
truncated: boolean, };
/**
 * The records behind a message, and how many more there were than were sent.
 */
export type RawRecords = { records: Array<RawRecord>, omitted: number, };
/**
 * How many replacements each rule made.
 */
export type RedactionCounts = { private_key: number, jwt: number, token: number, assignment: number, home_path: number, };
/**
 * How the records get into the store.
 */
export type RestoreMethod = { "kind": "files", files: Array<string>, } | { "kind": "import", program: string, } | { "kind": "rows", db: string, } | { "kind": "append", file: string, from_len: number, bytes: number, };
/**
 * What a restore did.
 */
export type Restored = { provider: ProviderKind, session_id: string, sessions: Array<[string, string]>, dir: string, method: RestoreMethod, 
/**
 * What the agent's own command said, trimmed.
 */
output: Array<string>, };
/**
 * A resume command in the forms the UI offers.
 */
export type ResumeView = { posix: string, powershell: string, 
/**
 * The form for this platform.
 */
shell: string, };
export type Role = "user" | "assistant" | "system";
export type RootHealth = { provider: ProviderKind, root: string, exists: boolean, sessions: number, 
/**
 * Distinct files (or databases) the sessions were read from.
 */
files_read: number, 
/**
 * Skipped records under this root: file, line, reason.
 */
skipped: Array<Diagnostic>, 
/**
 * The writing tool's versions and how many sessions each wrote (`unknown`: not recorded).
 */
format_versions: Array<[string, number]>, };
export type ScanProgress = { files_done: number, files_total: number, bytes_done: number, };
/**
 * What changed after a cursor (core's `Service::delta`), with which of the changed sessions'
 * directories do not exist here.
 */
export type SessionChanges = { 
/**
 * The cursor to ask with next.
 */
seq: number, 
/**
 * The cursor is from other roots: list again (nothing else is filled).
 */
reset: boolean, changed: Array<SessionMeta>, removed: Array<SessionRef>, missing_dirs: Array<string>, };
export type SessionList = { missing_dirs: Array<string>, 
/**
 * The change sequence the list is as of: `session_changes` from it.
 */
seq: number, sessions: Array<SessionMeta>, diagnostics: Diagnostics, };
/**
 * Everything known about a session without loading its transcript.
 */
export type SessionMeta = { provider: ProviderKind, 
/**
 * The agent's own id for the session (never invented).
 */
id: string, 
/**
 * The parent session for subagents / child sessions.
 */
parent_id: string | null, 
/**
 * The session this one was forked from (a separate session, not a child).
 */
forked_from: string | null, cwd: string | null, 
/**
 * `cwd` normalised (`.`/`..` and trailing separators cleaned, symlinks resolved where it
 * exists): what lists group by, so one directory never shows twice. `cwd` stays as the
 * agent wrote it (resume, bundles rewrite it). Filled by the catalog (`null` before that: a
 * provider's own output does not have it). Always serialized: providers keep SessionMeta
 * in their postcard state, which cannot skip a field (a skipped one failed every decode,
 * so every scan was a full one).
 */
dir: string | null, 
/**
 * The repository of `cwd` when it exists on this machine: its git toplevel, a worktree's
 * main repository (SPEC §5 "Fold by repository").
 */
repo_root: string | null, git_branch: string | null, title: string | null, model: string | null, 
/**
 * The agent profile the session ran with, where the provider has them (OpenCode `build`).
 */
agent: string | null, created_at: string | null, updated_at: string | null, counts: Counts, 
/**
 * Lines and files the session changed, where the provider records it (OpenCode).
 */
changes: ChangeSummary | null, tokens: Tokens | null, 
/**
 * What the agent itself recorded the session cost (OpenCode, Claude's cost records).
 */
cost_usd: number | null, 
/**
 * The cost estimated from `tokens` and `model` with the price table (core `pricing`),
 * where the agent recorded none. Filled by the catalog, like `dir`.
 */
cost_estimate_usd: number | null, 
/**
 * Where the session's cost comes from, or why it has none.
 */
cost_basis: CostBasis, archived: boolean, live: boolean, 
/**
 * What a live session is doing (`None` when it is not live).
 */
turn: TurnState | null, 
/**
 * The file (or database) the session was read from. In JSON, lossy where the name is not
 * UTF-8 (see [`path`]).
 */
source_path: string, 
/**
 * The writing tool's own version string, to diagnose format drift.
 */
format_version: string | null, };
/**
 * How the webview names a session: its agent and id and, as the list hands it out, the file
 * it was listed from. Ids are unique per agent only in theory: a project folder copied beside
 * itself holds the same session in two files, and the file is what tells the two rows apart.
 * It only picks among the listed sessions of that agent and id (a path the list did not give
 * names nothing; it is never opened as given). Without it an id two files hold is refused as
 * `ambiguous_id`, never resolved to one of them.
 */
export type SessionRef = { provider: ProviderKind, id: string, source_path?: string, };
/**
 * One change: `value` null puts the key back to its default (removes it from the file).
 */
export type SettingChange = { key: string, value: JsonValue | null, };
/**
 * Every setting, typed: what the app and the CLI use.
 */
export type Settings = { 
/**
 * Each agent's `[providers.<agent>]`, for every agent of the registry (so adding an agent
 * adds no field here). Read it with [`Settings::provider`].
 */
providers: { [key in ProviderKind]?: ProviderSettings }, ui: UiSettings, 
/**
 * The list's filters as last set.
 */
filter: Filter, terminal: TerminalSettings, translate: TranslateSettings, actions: ActionSettings, };
/**
 * What the pane shows.
 */
export type SettingsView = { 
/**
 * Where the file is (None: no config directory on this system).
 */
path: string | null, exists: boolean, 
/**
 * File values over defaults; the API key is never in it (`api_key_set` says if one is).
 */
settings: Settings, 
/**
 * What is wrong in the file (file, line, key, message): those keys have their defaults.
 */
problems: Array<ConfigProblem>, 
/**
 * The roots in effect per provider and where they came from (an agent's variable wins
 * over the config's roots).
 */
providers: Array<ProviderRoots>, 
/**
 * The roots in effect that are not folders here (a mistyped store in the pane read
 * nothing, saying nothing: its agent's sessions just left the list).
 */
missing_roots: Array<string>, };
/**
 * How a list is ordered; every order is largest (newest) first, ties by provider and id.
 */
export type SortKey = "updated" | "created" | "messages" | "tokens" | "cost";
/**
 * Where a setting in effect came from, strongest first.
 */
export type Source = "flag" | "env" | "config" | "default";
/**
 * Figures per group, and in all.
 */
export type Stats = { by: StatsBy, total: Figures, groups: Array<StatsGroup>, };
/**
 * What the sessions are grouped by.
 */
export type StatsBy = "dir" | "repo" | "agent" | "model" | "day" | "week";
export type StatsGroup = { key: string, sessions: number, 
/**
 * Conversation messages as the list counts them (user prompts + assistant messages).
 */
messages: number, tokens: Tokens, 
/**
 * Recorded costs plus estimates (`pricing`) where the agent recorded none.
 */
cost_usd: number, 
/**
 * Sessions with a cost, recorded or estimated (the others add nothing to `cost_usd`).
 */
with_cost: number, 
/**
 * Of `with_cost`, the sessions whose cost is an estimate.
 */
estimated: number, 
/**
 * Sessions with tokens but no price for their model: left out of `cost_usd`.
 */
unpriced: number, };
export type Status = { demo: boolean, demo_available: boolean, warnings: Array<string>, pending_text: number, 
/**
 * The first refresh on these roots is done. The window also hears it as a
 * `sessions-changed` event, but one sent before its listeners were set up is lost, and
 * an idle service sends no other.
 */
listed: boolean, };
export type TerminalSettings = { 
/**
 * An id from [`TERMINALS`]; empty means Automatic.
 */
app: string, };
export type Terminals = { 
/**
 * The known terminals found on this machine.
 */
installed: Array<InstalledTerminal>, 
/**
 * The one Automatic picks here.
 */
automatic: string | null, 
/**
 * `[terminal] app` (None: Automatic).
 */
configured: string | null, 
/**
 * The one the buttons open…
 */
chosen: string | null, 
/**
 * …or why none can be opened (the configured one is not installed, none is).
 */
problem: string | null, };
export type Theme = "system" | "light" | "dark";
/**
 * What one poll found.
 */
export type Timeline = { events: Array<TimelineEvent>, cursor: number, truncated: boolean, 
/**
 * The session is over (its agent stopped); nothing more will come.
 */
ended: boolean, };
export type TimelineEvent = { 
/**
 * 1-based position in the session's timeline; stable as the session grows.
 */
seq: number, ts: string | null, type: EventType, data: JsonValue, };
/**
 * Token totals over a session's model responses.
 */
export type Tokens = { input: number, output: number, cache_read: number, cache_write: number, };
/**
 * How much of each tool's output (and each diff) an export carries.
 */
export type ToolOutput = "full" | "trim" | "none";
/**
 * A tool call merged with its result.
 */
export type ToolPart = { call_id: string, name: string, input: JsonValue, status: ToolStatus, 
/**
 * The result text, cut to a preview when large (then `output_blob` holds the rest).
 */
output: string | null, output_truncated: boolean, output_blob: string | null, 
/**
 * Files a tool changed (edits, writes, patches), with unified diffs where known.
 */
changes: Array<FileChange>, 
/**
 * The child session this call started (subagents).
 */
subagent_id: string | null, };
export type ToolStatus = "pending" | "ok" | "error";
/**
 * One page of a transcript, so a 40 MB session shows its first screen at once.
 */
export type TranscriptPage = { session: SessionMeta, messages: Array<MessageView>, 
/**
 * Index of the first message of this page.
 */
offset: number, 
/**
 * Messages in the whole transcript.
 */
total: number, };
/**
 * The translation endpoint. Serialising it never includes the key: it is for Rust only.
 */
export type TranslateSettings = { base_url: string, api_key_set: boolean, model: string, language: string, };
/**
 * A translated message with its text rendered like a message's (sanitized HTML): the
 * endpoint's answer is as untrusted as the transcript.
 */
export type TranslationView = { html: string, message_id: string, language: string, 
/**
 * The model that answered, as the endpoint names it (else the configured one).
 */
model: string, text: string, 
/**
 * The endpoint stopped at its length limit (`finish_reason: "length"`): the text is cut.
 */
truncated: boolean, };
/**
 * A [`Step::Cut`]: the bytes `start..end` of `file`, which runs only while the file is exactly
 * as planned (its length and hash, and the range's hash).
 */
export type TrashCut = { file: string, start: number, end: number, 
/**
 * The file as planned: its length and SHA-256 (hex), and the cut range's SHA-256.
 */
file_bytes: number, file_sha256: string, range_sha256: string, 
/**
 * The file the cut bytes are written to, beside `file`, then moved to the OS trash; None
 * when they are deleted for good.
 */
keep_as: string | null, };
/**
 * What [`execute`] did.
 */
export type TrashDone = { mode: TrashMode, 
/**
 * The sessions that left the store.
 */
removed: Array<TrashTarget>, 
/**
 * What each agent command printed (trimmed), for the record.
 */
output: Array<string>, };
/**
 * A file or folder the plan moves.
 */
export type TrashItem = { path: string, dir: boolean, 
/**
 * Bytes (a folder: everything in it).
 */
bytes: number, 
/**
 * Files in it (1 for a file).
 */
files: number, };
/**
 * How a session goes away.
 */
export type TrashMode = "trash" | "permanent";
/**
 * A session's file renamed inside its store.
 */
export type TrashMove = { id: string, from: string, to: string, };
/**
 * Exactly what will happen to a session, for the user to confirm (read back by a remote
 * client, which sends the plan it showed to have it run).
 */
export type TrashPlan = { mode: TrashMode, session: TrashTarget, 
/**
 * The session's subagent sessions (all descendants).
 */
subagents: Array<TrashTarget>, 
/**
 * Whether they go too; `None` while undecided (then the plan cannot run).
 */
include_subagents: boolean | null, steps: Array<TrashStep>, 
/**
 * Said to the user beside the steps (how to get the session back, what stays).
 */
notes: Array<string>, };
/**
 * One thing the plan does, in order.
 */
export type TrashStep = { "kind": "os_trash", items: Array<TrashItem>, } | { "kind": "agent", argv: Array<string>, 
/**
 * Variables set for it: the store it works on.
 */
env: Array<[string, string]>, 
/**
 * What it does, in words.
 */
effect: string, 
/**
 * Files that must be gone from where they are once it succeeded.
 */
removes: Array<string>, } | { "kind": "archive", moves: Array<TrashMove>, db: string | null, } | { "kind": "delete_rows", db: string, ids: Array<string>, rows: Array<[string, number]>, } | { "kind": "cut" } & TrashCut;
/**
 * A session the plan acts on.
 */
export type TrashTarget = { provider: ProviderKind, id: string, title: string | null, source_path: string, updated_at: string | null, };
/**
 * What a live session is doing, from what its transcript states.
 */
export type TurnState = "starting" | "working" | "waiting" | "needs_input" | "unknown";
export type UiSettings = { group_by: GroupBy, hidden_dirs: Array<string>, theme: Theme, sort_by: SortKey, 
/**
 * Fold directories under their repository (worktrees under the main one) in the tree.
 */
fold_repos: boolean, 
/**
 * The machine shown at start: a Host alias of the ssh config; empty is this computer.
 */
host: string, };
/**
 * How the loop learns of changes, for a diagnostics panel.
 */
export type WatcherState = { "state": "not_started" } | { "state": "watching", paths: Array<[string, boolean]>, } | { "state": "polling", every_ms: number, reason: string, } | { "state": "stopped" };
