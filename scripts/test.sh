#!/usr/bin/env bash
# Runs every test: formatting, lints, unit, golden, property and CLI tests.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
