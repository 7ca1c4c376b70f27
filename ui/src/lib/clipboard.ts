/**
 * Copying text the backend has still to produce. WebKit lets a page write the clipboard only
 * while it handles the user's click or key: a `writeText` after awaiting a command is refused
 * (silently, with the usual `.catch`). A `ClipboardItem` whose data is a promise starts the write
 * inside the gesture and fills it when the text arrives.
 */
export function copyWhenReady(text: Promise<string>): Promise<void> {
  const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
  return navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
}
