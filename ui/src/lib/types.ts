// The backend's data. Everything the Rust side sends or takes is generated from its types into
// generated.ts (src-tauri/src/bindings.rs; `UPDATE_BINDINGS=1 cargo test -p agent-sessions
// bindings` rewrites it, and `cargo test` fails when it is stale): re-exported here, some under
// the names the UI has always used. Only types the UI makes itself are written by hand, below.

import type { Filter, ProviderKind, SortKey, TranslationView } from "./generated";

export type {
  ActionSettings, AppError, BlobView, BundleManifest, BundleMode, BundleOpened, BundlePreview, BundleRestored, BundleSaved,
  BundleSession, BundleSource, EventType, CacheInfo, ChangeSummary, ConfigProblem, Continued, Counts, Diagnostic, Diagnostics,
  ErrorCode, Exported, ExportFormat, ExportOptions, FileChange, Figures, Found, GroupBy, HandoffText, Health, Hit, HostsView,
  InstalledTerminal, JsonValue, McpSetup, MessageView, Opened, Part, ProviderKind, ProviderRoots, ProviderSettings,
  RawRecord, RawRecords, RedactionCounts, ResumeView, Role, RootHealth, ScanProgress, SessionChanges, SessionList, SessionMeta, SessionRef, SettingChange,
  Settings, SettingsView, Source, Stats, StatsBy, StatsGroup, Status, Terminals, Theme, Tokens, ToolOutput, ToolPart,
  Timeline, TimelineEvent, ToolStatus, TranscriptPage, TrashDone, TrashItem, TrashMode, TrashMove, TrashPlan, TrashStep, TrashTarget,
  TurnState, UiSettings, WatcherState,
} from "./generated";

/** Which agent wrote a session (core `ProviderKind`). */
export type Provider = ProviderKind;
/** A translated message with its text rendered and sanitized by core, like a message's. */
export type Translation = TranslationView;
/** How a list is ordered (core filter `SortKey`). */
export type SortBy = SortKey;
/** The list's filters (core filter `Filter`). */
export type ListFilter = Filter;

