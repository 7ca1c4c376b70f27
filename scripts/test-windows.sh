#!/usr/bin/env bash
# Runs the Rust tests of the crates below the app (model, providers, core, remote, cli) as
# Windows programs: cross-compiled for x86_64-pc-windows-gnu (rustup's target, mingw-w64 gcc for
# the bundled SQLite) and run under Wine (Debian's wine64) as cargo's runner for that target.
# What runs, what is skipped under Wine and why: docs/packaging.md "Windows under Wine".
#
# Exits 0 without running anything only when rustup cannot add the Windows target (CI without
# access to rustup's server), and then says so loudly; every other failure fails.
#
# Arguments after the script's name go to the test binaries (a filter, `--exact`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=x86_64-pc-windows-gnu
crates=(agent-sessions-model agent-sessions-providers agent-sessions-core agent-sessions-remote agent-sessions-cli)

fail() {
  echo "test-windows: $*" >&2
  exit 1
}

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  if ! rustup target add "$target" >&2; then
    echo "=================================================================" >&2
    echo "Windows suite SKIPPED: rustup could not add the $target target" >&2
    echo "(no access to rustup's server?); nothing ran as a Windows program." >&2
    echo "=================================================================" >&2
    exit 0
  fi
fi

# Debian puts wine64 outside PATH (/usr/lib/wine); the `wine` package's wrapper is not needed.
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
[ -x "$wine" ] || fail "no wine64 ($wine): run scripts/setup.sh (Debian's wine64)"
command -v x86_64-w64-mingw32-gcc >/dev/null ||
  fail "no x86_64-w64-mingw32-gcc: run scripts/setup.sh (Debian's gcc-mingw-w64-x86-64)"

# A Wine prefix of our own under target/ (never the user's ~/.wine), quiet, and without the
# Mono and Gecko installers a new prefix would offer (no window can answer them).
export WINEPREFIX="$root/target/wine"
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
# The Wine server of this prefix only, stopped however the script ends.
trap '"$wineserver" -k >/dev/null 2>&1 || true' EXIT
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "test-windows: making the Wine prefix $WINEPREFIX" >&2
  # Wine makes the prefix's folder, not its parents (target/ is not there yet in a new clone
  # whose builds go to another CARGO_TARGET_DIR).
  mkdir -p "$(dirname "$WINEPREFIX")"
  "$wine" wineboot --init >/dev/null 2>&1 || fail "wineboot could not make $WINEPREFIX"
  "$wineserver" -w
fi

# Rust's standard library imports ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks: a
# program without it exits before main (c0000135). The shim is built from its source here,
# into the prefix's system32, where every program of the prefix finds it (test binaries, the
# CLI they start, and anything those start).
shim_src=scripts/windows/bcryptprimitives.c
shim="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$shim" ] || [ "$shim_src" -nt "$shim" ]; then
  x86_64-w64-mingw32-gcc -O2 -Wall -Werror -shared -Wl,--kill-at -o "$shim" "$shim_src" -ladvapi32 ||
    fail "could not build $shim_src"
fi

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"
# The property tests that take their count from the environment (the providers' resume and
# streaming properties: hundreds of sessions, each cut and read at every point) run 16 cases
# each here: under Wine every file call goes through its server, and those reads are the same
# code on every system, checked with the full count on Linux.
export PROPTEST_CASES="${PROPTEST_CASES:-16}"
# Build time, for CI's 2 cores: linking ~60 test executables with mingw's ld took most of a
# 16-minute cold build. LLVM's lld (Debian's `lld`, by scripts/setup.sh) links them, and they
# carry no debug information (the tests' messages do not need it). Both are flags of this
# target's own: cargo gives them to the Windows units only, never to the build scripts and
# proc-macros built for Linux beside them, so the Linux build's artifacts stay valid (a
# profile setting such as CARGO_PROFILE_DEV_DEBUG would apply to those too).
command -v ld.lld >/dev/null || fail "no ld.lld: run scripts/setup.sh (Debian's lld)"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="-C link-arg=-fuse-ld=lld -C debuginfo=0"
# Unit and integration tests and the binaries they run; not the examples (benchmarks and the
# throwaway sshd, POSIX tools) nor the doc tests (plain data, the same on every system).
package_args=(--lib --bins --tests)
for c in "${crates[@]}"; do package_args+=(-p "$c"); done

log="$root/target/wine/test.log"
artifacts="$root/target/wine/artifacts.json"
start=$(date +%s)
echo "test-windows: building the tests for $target" >&2
cargo test --locked --no-run --target "$target" "${package_args[@]}" \
  --message-format=json-render-diagnostics >"$artifacts"
built=$(date +%s)
# cargo would run the binaries one after another; under Wine each leaves a core mostly idle
# (its file and process calls go through the Wine server), so they run
# AGENT_SESSIONS_WINDOWS_JOBS (2) at a time, each in its package's folder as cargo runs them.
echo "test-windows: built in $((built - start)) s; running them under $("$wine" --version)" >&2
set +e
python3 scripts/windows/run_tests.py --wine "$wine" --jobs "${AGENT_SESSIONS_WINDOWS_JOBS:-2}" \
  --log "$log" "$artifacts" -- "$@"
status=$?
set -e

# Never silent: every test that did not run as a Windows program, with its reason. Those that
# are not even built for Windows (they need what Windows or Wine has not: `#[cfg(unix)]`):
not_built=(
  "crates/cli/tests/remote.rs: starts a real OpenSSH server (sshd) and ssh"
  "crates/cli/tests/names.rs: names that are not UTF-8 (bytes a Windows name cannot hold)"
  "crates/cli/tests/bundle_agents.rs: runs the real agents, installed from npm as Linux builds"
  "crates/core/tests/resume.rs: runs the resume commands in bash, dash, zsh and fish"
  "crates/core/tests/handoff_launch.rs: runs the Linux/macOS launch script and a fake terminal (sh)"
  "crates/remote/tests/handoff.rs: a shell-script agent and Unix file modes"
  "crates/remote/src/wsl.rs the_launch_script_skips_the_windows_copy: runs the script in sh"
  "crates/remote/src/ssh.rs the_remote_scripts_run_in_sh: runs the remote scripts in sh"
  "crates/cli/tests/serve.rs: the private modes (0600) of uploads"
  "crates/core/tests/robustness.rs (5 tests): symbolic links, named pipes, /dev/zero, chmod 000"
  "tests of Unix file modes (0600/0700), non-UTF-8 names and stand-in agents written as sh"
  "  scripts: their #[cfg(unix)] parts in bundle, bundle_restore, config, export, index, serve"
)
echo "test-windows: not built for Windows:"
printf '  %s\n' "${not_built[@]}"
# Those that are built but ignored there (`#[cfg_attr(windows, ignore = "reason")]`), and the
# few ignored everywhere, as the test binaries said:
echo "test-windows: ignored (with the reason the test gives):"
grep -E '^test .* \.\.\. ignored' "$log" | sed 's/^test /  /' || echo "  (none)"
echo "test-windows: $(( $(date +%s) - start )) s; log in $log"
exit "$status"
