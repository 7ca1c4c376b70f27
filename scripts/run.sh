#!/usr/bin/env bash
# Builds (optimised) and starts the desktop app on this machine's agent sessions. When there are none, the
# app offers the bundled demo store. Without a display, lists the sessions with the CLI instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
(cd ui && npm run --silent build)
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display: listing sessions with the CLI (agent-sessions-cli scan)." >&2
  cargo build --release -q -p agent-sessions-cli
  exec target/release/agent-sessions-cli scan "$@"
fi
# Optimised (the release profile; the first build takes 10-15 minutes on 2 cores).
cargo build --release -q -p agent-sessions --features agent-sessions/custom-protocol
exec target/release/agent-sessions "$@"
