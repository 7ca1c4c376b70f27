#!/usr/bin/env bash
# Runs every test: set-up of what is missing, formatting and lints, UI checks and unit tests,
# Rust unit/golden/property/CLI tests, then the end-to-end tests that drive the real app window
# through WebDriver under Xvfb (screenshots in target/e2e/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

(cd ui && npm run --silent check && npm run --silent test && npm run --silent build)

cargo fmt --all -- --check
# One feature set for tests and the app binary, so both share one build.
features=(--features agent-sessions/custom-protocol)
cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings
cargo test --workspace --locked "${features[@]}"
cargo build -p agent-sessions --locked "${features[@]}"
python3 tests/e2e/run.py target/debug/agent-sessions
# The .deb from the bundler (debug profile: the release build is scripts/package-check.sh alone).
scripts/package-check.sh --debug
