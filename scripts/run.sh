#!/usr/bin/env bash
# Builds (optimised) and starts the desktop app on this machine's agent sessions. When there are none, the
# app offers the bundled demo store. Without a display, lists the sessions with the CLI instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display: listing sessions with the CLI (agent-sessions-cli scan)." >&2
  cargo build --release -q -p agent-sessions-cli
  exec target/release/agent-sessions-cli scan "$@"
fi
# The UI only when a source is newer than the last build: the app embeds ui/dist, and a fresh
# dist (new mtimes) makes cargo rebuild the app crate, minutes in the release profile.
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui -path ui/node_modules -prune -o -path ui/dist -prune \
  -o -type f -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run --silent build)
fi
# Optimised (the release profile; the first build takes 10-15 minutes on 2 cores).
cargo build --release -q -p agent-sessions --features agent-sessions/custom-protocol
exec target/release/agent-sessions "$@"
