#!/usr/bin/env bash
# Installs what building and testing the app needs, skipping whatever is already there:
# Debian/Ubuntu packages (WebKitGTK, Xvfb, the WebKit WebDriver, rpm for checking the .rpm; Wine,
# mingw-w64, lld and rustup's Windows target for the Windows suite, unless
# AGENT_SESSIONS_WINDOWS_SUITE=0),
# tauri-driver, and the UI's npm packages. Needs root (or sudo) only when packages are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential pkg-config libssl-dev file
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev
  libsoup-3.0-dev libjavascriptcoregtk-4.1-dev libxdo-dev
  webkit2gtk-driver xvfb xauth x11-utils xdotool at-spi2-core dbus-x11 imagemagick fonts-dejavu-core
  rpm
  python3-venv
  dash zsh fish
  openssh-server
  xterm gnome-terminal kitty tilix)
# The Windows suite (scripts/test-windows.sh), unless AGENT_SESSIONS_WINDOWS_SUITE=0.
if [ "${AGENT_SESSIONS_WINDOWS_SUITE:-1}" != 0 ]; then
  # lld links the Windows test executables (mingw's ld took most of the build's time).
  packages+=(wine64 gcc-mingw-w64-x86-64 lld)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Windows target for scripts/test-windows.sh. Where rustup's server cannot be reached (CI
# with only package registries) this warns, and test-windows.sh says the suite was skipped.
if [ "${AGENT_SESSIONS_WINDOWS_SUITE:-1}" != 0 ] &&
  ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
  rustup target add x86_64-pc-windows-gnu >&2 ||
    echo "setup: could not add the x86_64-pc-windows-gnu target: the Windows suite will be skipped" >&2
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "installing tauri-driver" >&2
  cargo install tauri-driver --version 2.1.0 --locked -q || cargo install tauri-driver --locked -q
fi

# Aider (PyPI, pinned) for the tests that run the real Aider, in a venv where
# crates/cli/tests/agents/mod.rs looks (and installs it the same way when it is missing).
aider_version=0.86.2
aider_dir=target/agents/aider-$aider_version
if [ ! -e "$aider_dir/.installed" ]; then
  { python3 -m venv "$aider_dir" && "$aider_dir/bin/pip" install -q "aider-chat==$aider_version" &&
    echo "$aider_version" >"$aider_dir/.installed"; } ||
    echo "setup: could not install aider-chat==$aider_version from PyPI: the tests that run Aider are skipped" >&2
fi

if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
