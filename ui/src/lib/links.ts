// Links inside transcripts never navigate the window. A click on one asks first; only an
// absolute http(s) URL with a host can be offered for the browser. Everything else (relative
// and protocol-relative `//host` links, javascript:, file:, mailto:, tauri: …) does nothing.

/** The URL a transcript link may open in the browser, or null. `href` is the attribute as
 * written (not resolved against the page, which would turn `/x` and `//host` into app URLs). */
export function browserUrl(href: string | null | undefined): string | null {
  if (!href) return null;
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return null; // relative: no base on purpose
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (!url.hostname || url.username || url.password) return null;
  return url.href;
}

/** The link an event happened on, if any. */
export function linkOf(target: EventTarget | null): HTMLAnchorElement | null {
  const el = target instanceof Element ? target : target instanceof Node ? target.parentElement : null;
  return el?.closest("a") ?? null;
}
