#!/usr/bin/env bash
# Builds the .deb (scripts/package.sh; `--debug` for the debug profile, as the test suite does),
# installs it with apt-get, starts the installed binary under Xvfb and checks its window shows
# the bundled demo store of all three agents, then removes it (tests/package/check.py). Needs
# root or sudo; removes an installed agent-sessions package.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
if [ "${1:-}" = "--debug" ]; then profile=debug; fi
scripts/package.sh "$@"
debs=(target/"$profile"/bundle/deb/agent-sessions_*.deb)
python3 tests/package/check.py "${debs[-1]}"
