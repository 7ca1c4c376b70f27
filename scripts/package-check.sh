#!/usr/bin/env bash
# Builds the packages (scripts/package.sh, release profile; `--debug`: only the .deb, from the
# debug profile), installs the .deb with apt-get, starts the installed binary under Xvfb and
# checks its window shows the bundled demo store of every agent, then removes it; installs
# the .rpm with rpm into a scratch root and checks its files and binary (tests/package/check.py).
# Needs root or sudo; removes an installed agent-sessions package.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
if [ "${1:-}" = "--debug" ]; then profile=debug; fi
scripts/package.sh "$@"
packages=(target/"$profile"/bundle/deb/agent-sessions_*.deb)
packages=("${packages[-1]}")
if [ "$profile" = release ]; then
  rpms=(target/release/bundle/rpm/agent-sessions-*.rpm)
  packages+=("${rpms[-1]}")
fi
python3 tests/package/check.py "${packages[@]}"
