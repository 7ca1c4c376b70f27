#!/usr/bin/env bash
# Builds the Linux packages this machine can build (.deb and .rpm) with the Tauri bundler (its
# CLI from the npm registry, pinned in ui/package.json) into target/release/bundle/, in the
# release profile. `--debug` builds the .deb from the debug profile into target/debug/bundle/ (what
# the test suite installs: the same bundler, files and install paths, without the release
# build's minutes). AppImage needs tools the bundler downloads from GitHub at bundle time, so it
# is not built here (docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
args=()
bundles=deb,rpm
if [ "${1:-}" = "--debug" ]; then
  # Only the .deb: the rpm crate takes over 10 minutes to compress a 300 MB debug binary.
  profile=debug
  args=(--debug)
  bundles=deb
fi
scripts/setup.sh
# The bundler runs `beforeBuildCommand` (the UI build) in the frontend folder it is told of.
TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui \
  ui/node_modules/.bin/tauri build "${args[@]}" --bundles "$bundles" --ci -- --locked
for f in target/"$profile"/bundle/deb/*.deb target/"$profile"/bundle/rpm/*.rpm; do
  if [ -e "$f" ]; then echo "$(du -h "$f" | cut -f1)	$f"; fi
done
