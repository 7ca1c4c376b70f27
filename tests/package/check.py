#!/usr/bin/env python3
"""The package check: installs a built .deb with apt-get, checks what it put on the machine
(binary, desktop entry, icons, the demo store of every agent, its declared dependencies),
starts the installed binary from its installed path under Xvfb through WebDriver, opens the
demo store from the empty state and checks sessions of every agent are listed, then removes
the package and checks its files are gone. Given the .rpm of the same build too, installs it
with rpm into a scratch root (Debian's rpm database knows no libraries, so without dependency
resolution), verifies every installed file against the package's digests, checks the same
contents, that each library it requires is one the binary links, and that its binary is the one
just run from the .deb; then erases it. Needs root or sudo (and `rpm` for the .rpm).

    python3 tests/package/check.py path/to/agent-sessions_X_amd64.deb [path/to/agent-sessions-X.x86_64.rpm]
"""

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The WebDriver client and helpers of the end-to-end tests.
_spec = importlib.util.spec_from_file_location("e2e_run", ROOT / "tests/e2e/run.py")
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

PACKAGE = "agent-sessions"
BINARY = Path("/usr/bin/agent-sessions")
DEMO = Path("/usr/lib/agent-sessions/demo")
SHOTS = ROOT / "target/package-check"


def sudo():
    return [] if os.geteuid() == 0 else ["sudo"]


def apt(*args):
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo() + ["apt-get", "-y", "-qq", *args], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def installed_files():
    out = subprocess.run(["dpkg", "-L", PACKAGE], check=True, capture_output=True, text=True).stdout
    return set(out.splitlines())


def check_files(root, files):
    """What either package puts under `root` ("/" for the installed .deb): `files` is its file
    list (absolute paths)."""
    for path in [str(BINARY), "/usr/share/applications/agent-sessions.desktop",
                 "/usr/share/icons/hicolor/32x32/apps/agent-sessions.png",
                 "/usr/share/icons/hicolor/128x128/apps/agent-sessions.png"]:
        assert path in files, f"{path} not installed"
    assert os.access(root / BINARY.relative_to("/"), os.X_OK), "the binary is not executable"
    desktop = (root / "usr/share/applications/agent-sessions.desktop").read_text()
    for line in ["Exec=agent-sessions", "Icon=agent-sessions", "Type=Application"]:
        assert line in desktop.splitlines(), f"desktop entry lacks {line}: {desktop}"
    # The demo store: every agent's stores, as the app's demo_roots looks for them.
    demo = root / DEMO.relative_to("/")
    for agent, store in [("claude", "dot-claude"), ("codex", "dot-codex"), ("opencode", "local-share-opencode")]:
        stores = list((demo / agent).glob(f"*/{store}"))
        assert stores, f"no {agent} store under {demo / agent}"


def check_contents():
    check_files(Path("/"), installed_files())
    depends = subprocess.run(["dpkg-query", "-W", "-f", "${Depends}", PACKAGE], check=True,
                             capture_output=True, text=True).stdout
    for dep in ["libwebkit2gtk-4.1-0", "libgtk-3-0"]:
        assert dep in depends, f"Depends lacks {dep}: {depends}"


def check_window(tmp):
    """The installed binary, started from /usr/bin with nothing on the machine, offers the demo
    store; opening it lists sessions of all three agents from the installed resources."""
    display = e2e.free_display()
    procs = [subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    env = {k: v for k, v in os.environ.items() if k != "AGENT_SESSIONS_DEMO_DIR"}
    env.update(DISPLAY=f":{display}", HOME=str(tmp / "home"), XDG_CONFIG_HOME=str(tmp / "config"),
               XDG_CACHE_HOME=str(tmp / "cache"), XDG_DATA_HOME=str(tmp / "data"),
               CLAUDE_CONFIG_DIR=str(tmp / "none/claude"), CODEX_HOME=str(tmp / "none/codex"))
    (tmp / "home").mkdir()
    try:
        time.sleep(1)
        port = e2e.free_port()
        procs.append(subprocess.Popen(
            ["tauri-driver", "--port", str(port), "--native-port", str(e2e.free_port()),
             "--native-driver", shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"],
            env=env, stdout=open(tmp / "driver.log", "w"), stderr=subprocess.STDOUT))
        e2e.wait_port(port)
        d = e2e.Driver(port)
        d.start(BINARY)
        try:
            d.wait_all('[data-testid="empty-state"]', timeout=30)
            d.click(d.wait_all('[data-testid="open-demo"]')[0])
            d.wait_all('[data-testid="session-row"]', count=10, timeout=60)
            # Every agent's demo store is in the package: each has sessions in the sidebar's
            # per-agent counts (the list itself shows the newest first, not every agent).
            names = ["claude", "codex", "opencode", "gemini", "qwen", "cline", "copilot", "aider"]
            counts = ("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"agent-count\"]')]"
                      ".map(e => [e.dataset.provider, Number(e.dataset.count)]))")
            try:
                d.until(f"const c = ({counts.removeprefix('return ')}); "
                        f"return {' && '.join(f'c.{n} > 0' for n in names)}", 30)
            except AssertionError:
                raise AssertionError(f"the installed demo store's counts: {d.js(counts)}")
            SHOTS.mkdir(parents=True, exist_ok=True)
            e2e.SHOTS = SHOTS
            d.shot("installed-demo-store")
        finally:
            d.quit()
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        if (tmp / "driver.log").exists():
            SHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(tmp / "driver.log", SHOTS / "driver.log")


def rpm(root, *args):
    # Debian's rpm warns on every call that it is not the system's package manager.
    done = subprocess.run(sudo() + ["rpm", "--root", str(root), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"rpm {' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


def without_bundle_type(binary):
    """The bundler writes the package format into each copy of the binary (a marker
    `__TAURI_BUNDLE_TYPE_VAR_` + DEB/RPM/UNK, read by Tauri's updater); all else is the build."""
    data = binary.read_bytes()
    marker = b"__TAURI_BUNDLE_TYPE_VAR_"
    at = data.find(marker)
    assert at >= 0, f"no bundle type marker in {binary}"
    return data[:at + len(marker)] + data[at + len(marker) + 3:], data[at + len(marker):at + len(marker) + 3]


def check_rpm(rpm_file, deb_binary, tmp):
    """The .rpm, installed by rpm into a scratch root: its files are intact, complete, need only
    libraries the binary links, and carry the binary the .deb check just ran."""
    root = tmp / "rpm-root"
    root.mkdir()
    rpm(root, "--initdb")
    rpm(root, "-i", "--nodeps", str(rpm_file))
    # Every installed file against the package's own digests, sizes and modes.
    rpm(root, "-V", "--nodeps", PACKAGE)
    check_files(root, set(rpm(root, "-ql", PACKAGE).splitlines()))
    binary = root / BINARY.relative_to("/")
    requires = {r.strip() for r in rpm(root, "-qR", PACKAGE).splitlines()}
    for lib in ["libwebkit2gtk-4.1.so.0()(64bit)", "libgtk-3.so.0()(64bit)"]:
        assert lib in requires, f"the rpm does not require {lib}: {requires}"
    needed = subprocess.run(["readelf", "-d", str(binary)], check=True, capture_output=True,
                            text=True).stdout
    for lib in requires:
        if lib.endswith("()(64bit)"):
            assert f"[{lib.removesuffix('()(64bit)')}]" in needed, f"requires {lib}, not linked"
    rpm_build, rpm_kind = without_bundle_type(binary)
    deb_build, deb_kind = without_bundle_type(deb_binary)
    assert (rpm_kind, deb_kind) == (b"RPM", b"DEB"), (rpm_kind, deb_kind)
    assert rpm_build == deb_build, "the rpm's binary is not the build the .deb carries"
    rpm(root, "-e", "--nodeps", PACKAGE)
    # Every file goes. (The bundler's rpm owns /usr/lib/agent-sessions but not the folders of
    # the demo store below it, so rpm leaves those, empty: docs/packaging.md.)
    left = [p for p in (root / "usr").rglob("*") if not p.is_dir()]
    assert not left, f"rpm -e left {left[:5]}"


def check_deb(deb, tmp):
    apt("install", "--no-install-recommends", str(deb))
    try:
        check_contents()
        print("ok   the package installs its binary, desktop entry, icons, demo store and dependencies")
        check_window(tmp)
        print("ok   the installed binary shows the demo store of every agent")
        # Kept to compare the .rpm's binary with, once the .deb is gone.
        shutil.copy(BINARY, tmp / "deb-binary")
    finally:
        apt("remove", PACKAGE)
    assert not BINARY.exists(), f"{BINARY} is still there after apt-get remove"
    assert not DEMO.exists(), f"{DEMO} is still there after apt-get remove"
    print("ok   apt-get remove takes it away")


def main():
    args = [Path(a).resolve() for a in sys.argv[1:]]
    if len(args) not in (1, 2) or not all(a.is_file() for a in args):
        sys.exit("usage: check.py path/to/agent-sessions.deb [path/to/agent-sessions.rpm]")
    tmp = Path(tempfile.mkdtemp(prefix="agent-sessions-package-"))
    try:
        check_deb(args[0], tmp)
        if len(args) == 2:
            check_rpm(args[1], tmp / "deb-binary", tmp)
            print("ok   the .rpm installs intact files, the same contents and binary, requires only "
                  "linked libraries, and erases")
    finally:
        # The scratch rpm root holds root-owned files when run through sudo.
        subprocess.run(sudo() + ["rm", "-rf", "--", str(tmp)], check=False)


if __name__ == "__main__":
    main()
