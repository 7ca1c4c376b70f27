#!/usr/bin/env bash
# Runs every test: set-up of what is missing, formatting and lints, UI checks and unit tests,
# Rust unit/golden/property/CLI tests (on Linux, then as Windows programs under Wine), then the end-to-end tests that drive the real app window
# through WebDriver under Xvfb (screenshots in target/e2e/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

(cd ui && npm run --silent check && npm run --silent test && npm run --silent build)

cargo fmt --all -- --check
# The app's tests with the UI embedded, as it ships.
features=(--features agent-sessions/custom-protocol)
cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings
cargo test --workspace --locked "${features[@]}"
# The same crates' tests (all but the app's) as Windows programs, under Wine
# (docs/packaging.md "Windows under Wine"); AGENT_SESSIONS_WINDOWS_SUITE=0 leaves them out.
if [ "${AGENT_SESSIONS_WINDOWS_SUITE:-1}" != 0 ]; then
  scripts/test-windows.sh
else
  echo "Windows suite not run: AGENT_SESSIONS_WINDOWS_SUITE=0 is set" >&2
fi
# The app is built once, in the release profile, by the Tauri bundler (scripts/package.sh): the
# .deb is installed with apt-get, started from /usr/bin under Xvfb and removed, the .rpm checked
# (scripts/package-check.sh); the end-to-end tests then drive that same release binary.
scripts/package-check.sh
python3 tests/e2e/run.py target/release/agent-sessions
