// The only module that talks to the backend: components import these functions, never Tauri.
// Sessions go to the backend as (provider, id) only: the backend finds their files itself.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type {
  AppError, BlobView, BundleOpened, BundlePreview, BundleRestored, BundleSaved, Continued, ErrorCode, ExportFormat, Exported, ExportOptions, Found, HandoffText, Health, HostsView, McpSetup, Opened, Provider, RawRecords, ResumeView,
  ScanProgress, SessionChanges, SessionList, SessionRef, SettingChange, SettingsView, Stats, StatsBy, Status, Terminals, Timeline, TranscriptPage, Translation,
  TrashDone, TrashPlan,
} from "./types";

/** A failed command, as the backend reports it: a stable code and a sentence to show. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  /** A command to run instead, when the backend offers one. */
  readonly copy?: string;
  constructor(e: AppError) {
    super(e.message);
    this.name = "ApiError";
    this.code = e.code;
    this.copy = e.copy;
  }
}

/** Whatever a command rejected with, as an ApiError. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const o = e as Partial<AppError> | null;
  if (o && typeof o === "object" && typeof o.code === "string" && typeof o.message === "string") {
    return new ApiError({ code: o.code, message: o.message, copy: typeof o.copy === "string" ? o.copy : undefined });
  }
  return new ApiError({ code: "internal", message: String(e) });
}

/** The sentence to show for an error. */
export const errorText = (e: unknown): string => toApiError(e).message;

function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  return invoke<T>(cmd, args).catch((e: unknown) => {
    throw toApiError(e);
  });
}

/** Only the name of a session crosses, whatever object the caller holds: what a command is sent to name a session: its agent, id and (as the list gave it) its file,
 * which tells apart two files holding one session. */
export const sessionRef = (s: SessionRef): SessionRef =>
  s.source_path == null ? { provider: s.provider, id: s.id } : { provider: s.provider, id: s.id, source_path: s.source_path };

export const listSessions = () => call<SessionList>("list_sessions");
/** The sessions changed or removed after `seq` (from a list or the last call); `reset`: list again. */
export const sessionChanges = (seq: number) => call<SessionChanges>("session_changes", { seq });
export const status = () => call<Status>("status");
export const openDemo = () => call<void>("open_demo");
export const loadTranscript = (session: SessionRef, offset: number, limit: number) =>
  call<TranscriptPage>("load_transcript", { session: sessionRef(session), offset, limit });
export const findMessage = (session: SessionRef, messageId: string) =>
  call<number | null>("find_message", { session: sessionRef(session), messageId });
/** The agent's own records behind one message (its lines, or its rows), bounded by the backend. */
export const messageRaw = (session: SessionRef, messageId: string) =>
  call<RawRecords>("message_raw", { session: sessionRef(session), messageId });
/** The session's normalized events, as `agent-sessions-cli log` prints them. */
export const sessionEvents = (session: SessionRef) => call<Timeline>("session_events", { session: sessionRef(session) });
export const search = (query: string, providers: Provider[] = [], limit = 50) =>
  call<Found>("search", { query, providers, limit });
export const resumeCommand = (session: SessionRef) => call<ResumeView>("resume_command", { session: sessionRef(session) });
export const reveal = (session: SessionRef) => call<void>("reveal", { session: sessionRef(session) });
/** One message's text translated by the configured endpoint (the request is made by the backend). */
export const translateMessage = (session: SessionRef, messageId: string) =>
  call<Translation>("translate_message", { session: sessionRef(session), messageId });
/** Opens an http(s) URL in the system browser (the backend checks the URL again). */
export const openLink = (url: string) => call<void>("open_link", { url });

export const getSettings = () => call<SettingsView>("get_settings");
/** Saves only these keys (the backend checks each; one refused value saves nothing). */
export const saveSettings = (changes: SettingChange[]) => call<SettingsView>("save_settings", { changes });
export const terminals = () => call<Terminals>("terminals");
/** How each agent is told about our MCP server (`agent-sessions-cli mcp --print-config`). */
export const mcpSetup = () => call<McpSetup[]>("mcp_setup");
/** A shell in the session's directory, or (`resume`) its resume command there. */
export const openTerminal = (session: SessionRef, resume: boolean) =>
  call<Opened>("open_terminal", { session: sessionRef(session), resume });
/** Starts `target` in a terminal in the session's directory with a handoff as its first prompt. */
export const continueIn = (session: SessionRef, target: Provider) =>
  call<Continued>("continue_in", { session: sessionRef(session), target });
/** The handoff alone, to paste into an agent the user starts. */
export const handoffText = (session: SessionRef, target: Provider) =>
  call<HandoffText>("handoff_text", { session: sessionRef(session), target });
/** Asks where to save (a native dialog the backend opens) and writes there; null: cancelled. */
export const exportSession = (session: SessionRef, format: ExportFormat, options: ExportOptions) =>
  call<Exported | null>("export_session", { session: sessionRef(session), format, options });

/** Asks where to save a bundle (native dialog in the backend) and writes it, 0600; null: cancelled. */
export const exportBundle = (session: SessionRef, shareSafe: boolean) =>
  call<BundleSaved | null>("export_bundle", { session: sessionRef(session), shareSafe });
/** What a share-safe bundle of the session would redact, per rule (nothing is written). */
export const bundleRedaction = (session: SessionRef) =>
  call<Record<string, number>>("bundle_redaction", { session: sessionRef(session) });
/** The open dialog for a bundle, then its checked summary; null: cancelled. */
export const importBundleOpen = () => call<BundleOpened | null>("import_bundle_open");
/** The folder dialog for the directory to restore into; null: cancelled. */
export const importBundlePickDir = () => call<string | null>("import_bundle_pick_dir");
/** What restoring would write (nothing is written); the only restore that can run next. */
export const importBundlePreview = (handle: string, dir: string, asCopy: boolean) =>
  call<BundlePreview>("import_bundle_preview", { handle, dir, asCopy });
/** Restores exactly the preview last shown for `handle`. */
export const importBundleRestore = (handle: string) => call<BundleRestored>("import_bundle_restore", { handle });
/** Starts `target` in a terminal in `dir` with a handoff of the bundle's session: nothing restored. */
export const importBundleContinue = (handle: string, dir: string, target: Provider) =>
  call<Continued>("import_bundle_continue", { handle, dir, target });
export const importBundleClose = (handle: string) => call<void>("import_bundle_close", { handle });

/** What trashing (`permanent`: deleting) a session would remove; `subagents` null: undecided. */
export const trashPlan = (session: SessionRef, permanent: boolean, subagents: boolean | null) =>
  call<TrashPlan>("trash_plan", { session: sessionRef(session), permanent, subagents });
/** Runs the plan last shown for this same request (the backend refuses anything else). */
export const trashExecute = (session: SessionRef, permanent: boolean, subagents: boolean | null) =>
  call<TrashDone>("trash_execute", { session: sessionRef(session), permanent, subagents });

/** Figures grouped `by`, over these sessions (the list as filtered), or over every session. */
export const sessionStats = (by: StatsBy, sessions?: SessionRef[]) =>
  call<Stats>("session_stats", { by, sessions: sessions?.map(sessionRef) ?? null });
export const diagnostics = () => call<Health>("diagnostics");
/** Empties our cache (never an agent's store) and rescans; the window asks first. */
export const clearCache = () => call<void>("clear_cache");
/** The bytes behind a blob key of the session's transcript, as the window may show them. */
export const loadBlob = (session: SessionRef, key: string) => call<BlobView>("load_blob", { session: sessionRef(session), key });

/** The Host aliases of the ssh config (Include followed) and the one shown (null: this computer). */
export const hosts = () => call<HostsView>("hosts");
/** Shows `alias`'s sessions (null: this computer's); connecting fails at once with what to set up. */
export const selectHost = (alias: string | null) => call<HostsView>("select_host", { alias });

export const onSessionsChanged = (f: (refreshDone: boolean) => void): Promise<UnlistenFn> =>
  listen<{ done: boolean }>("sessions-changed", (e) => f(e.payload.done));
export const onScanProgress = (f: (p: ScanProgress) => void): Promise<UnlistenFn> =>
  listen<ScanProgress>("scan-progress", (e) => f(e.payload));
export const onWarning = (f: (message: string) => void): Promise<UnlistenFn> =>
  listen<string>("warning", (e) => f(e.payload));
export const onIndexProgress = (f: (pending: number) => void): Promise<UnlistenFn> =>
  listen<number>("index-progress", (e) => f(e.payload));
