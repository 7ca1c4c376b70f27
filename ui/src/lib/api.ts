// The only module that talks to the backend: components import these functions, never Tauri.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Hit, Provider, ResumeView, ScanProgress, SessionList, SessionMeta, Status, TranscriptPage } from "./types";

export const listSessions = () => invoke<SessionList>("list_sessions");
export const status = () => invoke<Status>("status");
export const openDemo = () => invoke<void>("open_demo");
export const loadTranscript = (session: SessionMeta, offset: number, limit: number) =>
  invoke<TranscriptPage>("load_transcript", { session, offset, limit });
export const findMessage = (session: SessionMeta, messageId: string) =>
  invoke<number | null>("find_message", { session, messageId });
export const search = (query: string, providers: Provider[] = [], limit = 50) =>
  invoke<Hit[]>("search", { query, providers, limit });
export const resumeCommand = (session: SessionMeta) => invoke<ResumeView>("resume_command", { session });
export const reveal = (session: SessionMeta) => invoke<void>("reveal", { session });

export const onSessionsChanged = (f: (refreshDone: boolean) => void): Promise<UnlistenFn> =>
  listen<{ done: boolean }>("sessions-changed", (e) => f(e.payload.done));
export const onScanProgress = (f: (p: ScanProgress) => void): Promise<UnlistenFn> =>
  listen<ScanProgress>("scan-progress", (e) => f(e.payload));
export const onWarning = (f: (message: string) => void): Promise<UnlistenFn> =>
  listen<string>("warning", (e) => f(e.payload));
export const onIndexProgress = (f: (pending: number) => void): Promise<UnlistenFn> =>
  listen<number>("index-progress", (e) => f(e.payload));
