// Which machine the window shows: this computer (null) or a Host alias of the ssh config. The
// backend holds the connection and answers every session command from that host; components
// read this only to disable what does not work over ssh yet (docs/remote.md, "In the app").

export const host = $state<{ current: string | null }>({ current: null });

/** Why an action is disabled on a remote host's session (its tooltip). */
export function remoteOnly(what: string, alias: string): string {
  return `${what} works on this computer's sessions only for now, not over ssh on ${alias}`;
}
