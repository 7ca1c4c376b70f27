// The backend's data, as core serializes it (crates/model/src/lib.rs; core view.rs, index).

export type Provider = "claude" | "codex" | "opencode";

/** How the UI names a session to the backend; it never sends paths. */
export interface SessionRef { provider: Provider; id: string }

/** A failed command (src-tauri/src/commands/mod.rs `CmdError`). */
export type ErrorCode = "not_found" | "invalid_input" | "io" | "cache" | "internal" | TranslateErrorCode | TrashErrorCode;
/** Trash keeps core's own codes (docs/trash.md). */
export type TrashErrorCode =
  | "delete_disabled" | "permanent_delete_disabled" | "session_live" | "session_recent" | "unsupported"
  | "subagents_undecided" | "subagents_go_along" | "agent_missing" | "stale_plan" | "trash_failed";
/** Translation keeps core's own codes (docs/translation.md). */
export type TranslateErrorCode =
  | "translate_not_configured" | "translate_bad_url" | "translate_bad_key" | "message_not_found" | "translate_no_text"
  | "translate_too_long" | "translate_unreachable" | "translate_timeout" | "translate_unauthorized" | "translate_http"
  | "translate_bad_reply";
/** `copy`: a command the user can run instead (a resume command whose agent was not found). */
export interface AppError { code: ErrorCode; message: string; copy?: string }

export interface Counts { user: number; assistant: number; tool_calls: number }
export interface Tokens { input: number; output: number; cache_read: number; cache_write: number }

export interface SessionMeta {
  provider: Provider;
  id: string;
  parent_id: string | null;
  forked_from: string | null;
  cwd: string | null;
  repo_root: string | null;
  git_branch: string | null;
  title: string | null;
  model: string | null;
  agent: string | null;
  created_at: string | null;
  updated_at: string | null;
  counts: Counts;
  tokens: Tokens | null;
  cost_usd: number | null;
  archived: boolean;
  live: boolean;
  turn: "starting" | "working" | "waiting" | "needs_input" | "unknown" | null;
  source_path: string;
  format_version: string | null;
}

export interface Diagnostics { parse_errors: number; items: { provider: Provider; path: string; line: number | null; reason: string }[] }
export interface SessionList { sessions: SessionMeta[]; diagnostics: Diagnostics; missing_dirs: string[] }

export interface FileChange { path: string; change: string; diff: string | null; additions: number; deletions: number }
export interface ToolPart {
  call_id: string; name: string; input: unknown; status: "pending" | "ok" | "error";
  output: string | null; output_truncated: boolean; output_blob: string | null;
  changes: FileChange[]; subagent_id: string | null;
}
export type Part =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string; encrypted: boolean }
  | ({ kind: "tool" } & ToolPart)
  | { kind: "patch"; files: FileChange[] }
  | { kind: "file"; path: string | null; mime: string | null; blob: string | null }
  | { kind: "compaction"; trigger: string | null; pre_tokens: number | null; summary: string | null }
  | { kind: "notice"; source: string; text: string };

export interface MessageView {
  id: string; role: "user" | "assistant" | "system"; parent_id: string | null;
  timestamp: string | null; model: string | null; counted: boolean; meta: boolean; sidechain: boolean;
  parts: Part[]; source_lines: number[]; html: (string | null)[];
}
export interface TranscriptPage { session: SessionMeta; messages: MessageView[]; offset: number; total: number }
export interface Hit { session_id: string; provider: Provider; message_id: string; title: string | null; snippet: string; score: number }
export interface ResumeView { posix: string; powershell: string; shell: string }
/** A translated message (core actions/translate `Translation` + view `TranslationView`): `html` is
 * the text rendered and sanitized by core, like a message's. */
export interface Translation { message_id: string; language: string; model: string; text: string; truncated: boolean; html: string }
export interface Status { demo: boolean; demo_available: boolean; warnings: string[]; pending_text: number }
export interface ScanProgress { files_done: number; files_total: number; bytes_done: number }

// Settings (src-tauri/src/commands/settings.rs; core config::Settings).
export type Theme = "system" | "light" | "dark";
export type GroupBy = "dir-agent" | "agent-dir" | "flat";
export interface ProviderSettings { enabled: boolean; roots: string[] }
export interface Settings {
  claude: ProviderSettings; codex: ProviderSettings; opencode: ProviderSettings;
  ui: { group_by: GroupBy; hidden_dirs: string[]; theme: Theme };
  terminal: { app: string };
  /** The API key itself never reaches the UI: only whether one is saved. */
  translate: { base_url: string; api_key_set: boolean; model: string; language: string };
  actions: { allow_delete: boolean; allow_permanent_delete: boolean };
}
export type Source = "flag" | "env" | "config" | "default";
export interface ProviderRoots {
  provider: Provider; enabled: boolean; enabled_from: Source; roots: string[]; roots_from: Source; env_var: string | null;
}
export interface ConfigProblem { path: string; line: number | null; key: string | null; message: string }
export interface SettingsView {
  path: string | null; exists: boolean; settings: Settings; problems: ConfigProblem[]; providers: ProviderRoots[];
}
/** One change to save: `value` null puts the key back to its default. */
export interface SettingChange { key: string; value: unknown }

// Terminals and export (commands/terminal.rs, export.rs).
export interface InstalledTerminal { id: string; name: string; program: string; target: string | null }
export interface Terminals {
  installed: InstalledTerminal[]; automatic: string | null; configured: string | null; chosen: string | null; problem: string | null;
}
export interface Opened { terminal: string; cwd: string }
/** A "Continue in…" launch (commands/handoff.rs): the target agent in a terminal there. */
export interface Continued { terminal: string; cwd: string; target: Provider; chars: number }
export interface HandoffText { markdown: string; chars: number }
export type ExportFormat = "markdown" | "json" | "html";
export interface ExportOptions { reasoning: boolean; tool_output: "full" | "trim" | "none"; meta: boolean }
export interface Exported { path: string; bytes: number }

// Bundles (commands/bundle.rs; core bundle, docs/bundle-format.md).
export interface BundleSession {
  id: string; parent_id: string | null; title: string | null; cwd: string | null; git_branch: string | null;
  model: string | null; created_at: string | null; updated_at: string | null;
  counts: { user: number; assistant: number; tool_calls: number };
}
export interface BundleManifest {
  app_version: string; created_at: string; mode: "complete" | "share_safe";
  source: { provider: Provider; tool_version: string | null; host: string | null };
  session: BundleSession; subagents: BundleSession[]; notes: string[];
}
export interface BundleSaved { path: string; bytes: number; redaction: Record<string, number> | null }
/** A bundle chosen in the open dialog: the backend keeps its path, the UI names it by `handle`. */
export interface BundleOpened { handle: string; file_name: string; bytes: number; manifest: BundleManifest; dirs: string[] }
export interface BundlePreview {
  provider: Provider; root: string; dir: string; as_copy: boolean; from_dir: string | null; session_id: string;
  sessions: [string, string][]; notes: string[]; expires_at: string;
}
export interface BundleRestored { restored: { provider: Provider; session_id: string; dir: string }; session: SessionMeta | null }

// Trash and delete (commands/trash.rs; core actions::trash).
export interface TrashTarget { provider: Provider; id: string; title: string | null; source_path: string; updated_at: string | null }
export interface TrashItem { path: string; dir: boolean; bytes: number; files: number }
export type TrashStep =
  | { kind: "os_trash"; items: TrashItem[] }
  | { kind: "agent"; argv: string[]; env: [string, string][]; effect: string; removes: string[] }
  | { kind: "archive"; moves: { id: string; from: string; to: string }[]; db: string | null }
  | { kind: "delete_rows"; db: string; ids: string[]; rows: [string, number][] };
export interface TrashPlan {
  mode: "trash" | "permanent"; session: TrashTarget; subagents: TrashTarget[]; include_subagents: boolean | null;
  steps: TrashStep[]; notes: string[];
}
export interface TrashDone { mode: "trash" | "permanent"; removed: TrashTarget[]; output: string[] }

// Stats (core stats.rs; src-tauri commands/stats.rs).
export type StatsBy = "dir" | "repo" | "agent" | "model" | "day" | "week";
export interface Figures { sessions: number; messages: number; tokens: Tokens; cost_usd: number; with_cost: number }
export interface StatsGroup extends Figures { key: string }
export interface Stats { by: StatsBy; total: Figures; groups: StatsGroup[] }

// The Diagnostics panel (core health.rs, service WatcherState; commands/diagnostics.rs).
export type Diagnostic = Diagnostics["items"][number];
export interface RootHealth {
  provider: Provider; root: string; exists: boolean; sessions: number; files_read: number;
  skipped: Diagnostic[]; format_versions: [string, number][];
}
export type WatcherState =
  | { state: "not_started" } | { state: "stopped" }
  | { state: "watching"; paths: [string, boolean][] }
  | { state: "polling"; every_ms: number; reason: string };
export interface Health {
  roots: RootHealth[]; parse_errors: number; unlisted: number; watcher: WatcherState;
  cache: { dir: string | null; path: string | null; bytes: number };
}

/** A blob as the window may show it (core blob.rs `BlobView`): an image only of a sniffed type. */
export type BlobView =
  | { kind: "image"; mime: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; base64: string; bytes: number }
  | { kind: "toolarge"; mime: string; bytes: number }
  | { kind: "text"; text: string; truncated: boolean; bytes: number };
