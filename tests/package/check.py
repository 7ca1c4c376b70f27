#!/usr/bin/env python3
"""The package check: installs a built .deb with apt-get, checks what it put on the machine
(binary, desktop entry, icons, the demo store of all three agents, its declared dependencies),
starts the installed binary from its installed path under Xvfb through WebDriver, opens the
demo store from the empty state and checks sessions of every agent are listed, then removes
the package and checks its files are gone. Needs root or sudo.

    python3 tests/package/check.py path/to/agent-sessions_X_amd64.deb
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


def check_contents():
    files = installed_files()
    for path in [str(BINARY), "/usr/share/applications/agent-sessions.desktop",
                 "/usr/share/icons/hicolor/32x32/apps/agent-sessions.png",
                 "/usr/share/icons/hicolor/128x128/apps/agent-sessions.png"]:
        assert path in files, f"{path} not installed"
    assert os.access(BINARY, os.X_OK), "the binary is not executable"
    desktop = Path("/usr/share/applications/agent-sessions.desktop").read_text()
    for line in ["Exec=agent-sessions", "Icon=agent-sessions", "Type=Application"]:
        assert line in desktop.splitlines(), f"desktop entry lacks {line}: {desktop}"
    # The demo store: every agent's stores, as the app's demo_roots looks for them.
    for agent, store in [("claude", "dot-claude"), ("codex", "dot-codex"), ("opencode", "local-share-opencode")]:
        stores = list((DEMO / agent).glob(f"*/{store}"))
        assert stores, f"no {agent} store under {DEMO / agent}"
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
            agents = d.until(
                "const seen = new Set([...document.querySelectorAll('[data-testid=\"session-row\"] .badge')]"
                ".flatMap(b => [...b.classList])); "
                "return ['claude', 'codex', 'opencode'].every(a => seen.has(a)) && [...seen];", 30)
            assert {"claude", "codex", "opencode"} <= set(agents), agents
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


def main():
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_file():
        sys.exit("usage: check.py path/to/agent-sessions.deb")
    deb = Path(sys.argv[1]).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="agent-sessions-package-"))
    apt("install", "--no-install-recommends", str(deb))
    try:
        check_contents()
        print("ok   the package installs its binary, desktop entry, icons, demo store and dependencies")
        check_window(tmp)
        print("ok   the installed binary shows the demo store of all three agents")
    finally:
        apt("remove", PACKAGE)
        shutil.rmtree(tmp, ignore_errors=True)
    assert not BINARY.exists(), f"{BINARY} is still there after apt-get remove"
    assert not DEMO.exists(), f"{DEMO} is still there after apt-get remove"
    print("ok   apt-get remove takes it away")


if __name__ == "__main__":
    main()
