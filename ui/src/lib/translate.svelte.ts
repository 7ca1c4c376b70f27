// Translations of messages, kept per (session, message) outside the message components: the
// transcript is a windowed list, so a message scrolled out and back is a new component, and its
// translation must still be there. The request itself is made by the backend (api.ts).

import { toApiError, translateMessage } from "./api";
import type { ErrorCode, MessageView, SessionRef, Translation } from "./types";

export type TranslationState =
  | { state: "loading" }
  | { state: "done"; translation: Translation }
  | { state: "error"; code: ErrorCode; message: string };

const entries = $state<Record<string, TranslationState>>({});

const key = (session: SessionRef, messageId: string) => `${session.provider}\u0000${session.id}\u0000${session.source_path ?? ""}\u0000${messageId}`;

/** Whether a message has text to translate: what the backend sends (core `text_of`). */
export function hasText(message: Pick<MessageView, "parts">): boolean {
  return message.parts.some((p) => p.kind === "text" && p.text.trim() !== "");
}

export function translationOf(session: SessionRef, messageId: string): TranslationState | undefined {
  return entries[key(session, messageId)];
}

/** Translates a message once at a time; the result (or error) stays until dismissed. */
export async function translate(
  session: SessionRef,
  messageId: string,
  call: (s: SessionRef, id: string) => Promise<Translation> = translateMessage,
): Promise<void> {
  const k = key(session, messageId);
  if (entries[k]?.state === "loading") return;
  entries[k] = { state: "loading" };
  try {
    entries[k] = { state: "done", translation: await call(session, messageId) };
  } catch (e) {
    const err = toApiError(e);
    entries[k] = { state: "error", code: err.code, message: err.message };
  }
}

export function dismiss(session: SessionRef, messageId: string): void {
  delete entries[key(session, messageId)];
}

/** The error to show: a translation that is not set up points to Settings. */
export function errorMessage(s: TranslationState & { state: "error" }): string {
  return s.code === "translate_not_configured"
    ? "Translation is not set up: add an endpoint (base URL) and a model under Settings → Translation. Nothing was sent."
    : s.message;
}
