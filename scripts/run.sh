#!/usr/bin/env bash
# Builds the CLI and lists every session on this machine (or the bundled demo stores when there
# are none). Extra arguments go to `agent-sessions-cli scan`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p agent-sessions-cli
cli=target/release/agent-sessions-cli
count=$("$cli" scan --json | grep -c '"id":' || true)
if [ "$count" -gt 0 ]; then
  exec "$cli" scan "$@"
fi
echo "No agent sessions found on this machine; showing the bundled demo stores." >&2
roots=()
for d in testdata/claude/*/dot-claude; do roots+=(--claude-root "$d"); done
for d in testdata/codex/*/dot-codex; do roots+=(--codex-root "$d"); done
for d in testdata/opencode/*/local-share-opencode; do roots+=(--opencode-root "$d"); done
exec "$cli" scan "${roots[@]}" "$@"
