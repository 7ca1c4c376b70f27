#!/usr/bin/env bash
# Type-checks the macOS build of the library crates and the CLI from Linux (`cargo check`,
# nothing linked or run): every `cfg(target_os = "macos")` branch goes through the compiler.
# The C that dependencies bundle (SQLite, ring) would need Apple's SDK headers, which no Linux
# registry offers; a check needs none of their objects, so a stand-in compiler writes an empty
# object for each C file. Needs clang (apt-get install clang) and the rustup target. Extra
# arguments go to cargo (`--all-targets` checks the tests too). docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-apple-darwin
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
command -v clang >/dev/null || { echo "needs clang (apt-get install clang)" >&2; exit 1; }
# Kept at one path: a compiler that moves would make cargo rerun the C builds each time.
shim=target/check-macos
mkdir -p "$shim"
cat > "$shim/cc" <<'CC'
#!/bin/sh
# A compile (-c … -o OUT) writes an empty Mach-O object; anything else (cc-rs asking which
# compiler this is) goes to clang.
out=; compile=; prev=
for a in "$@"; do
  case "$prev" in -o) out="$a" ;; esac
  case "$a" in -c) compile=1 ;; esac
  prev="$a"
done
if [ -n "$compile" ] && [ -n "$out" ]; then
  exec clang --target=x86_64-apple-darwin -c -x c /dev/null -o "$out"
fi
exec clang --target=x86_64-apple-darwin "$@"
CC
chmod +x "$shim/cc"
CC_x86_64_apple_darwin="$PWD/$shim/cc" AR_x86_64_apple_darwin="$(command -v llvm-ar || command -v ar)" \
  cargo check --locked --target "$target" -p agent-sessions-model -p agent-sessions-providers \
  -p agent-sessions-core -p agent-sessions-cli "$@"
