#!/usr/bin/env python3
"""End-to-end tests: drive the real app window through WebDriver (tauri-driver + WebKitWebDriver)
under Xvfb. Starts and stops everything itself; saves a screenshot of each main view to
target/e2e/. Standard library only; the native save dialog is driven with xdotool, and an HTML
export is opened in WebKitGTK's MiniBrowser (the app's own web engine) through WebKitWebDriver.

    python3 tests/e2e/run.py [path/to/agent-sessions]
"""

import base64
import datetime
import difflib
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target/debug/agent-sessions"
SHOTS = ROOT / "target/e2e"
TESTDATA = ROOT / "testdata"
FAILURES = []
CLAUDE_ROOT = None
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    """Waits (up to 10 s) until something listens on `port`."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def free_display():
    for n in range(99, 199):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display")


# A 1×1 pixel in the bottom right corner whose alpha flips between 0 and 1/255 every 10 ms while
# it is in the document: the page has a frame to draw at any moment (see Driver.shot).
KEEP_DRAWING = """
if (!document.getElementById('e2e-keep-drawing')) {
  const px = document.createElement('div');
  px.id = 'e2e-keep-drawing';
  px.style.cssText = 'position: fixed; right: 0; bottom: 0; width: 1px; height: 1px; pointer-events: none; z-index: 2147483647';
  document.documentElement.appendChild(px);
  let on = false;
  const flip = setInterval(() => {
    if (!px.isConnected) return clearInterval(flip);
    on = !on;
    px.style.background = on ? 'rgba(0, 0, 0, 0.004)' : 'transparent';
  }, 10);
}
"""


class Driver:
    """A minimal W3C WebDriver client on one keep-alive connection."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.sid = None

    def call(self, method, path, body=None):
        data = json.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
        except TimeoutError:
            # The connection still waits for that answer: every later call on it would fail as
            # "Request-sent", hiding which call hung. A new connection lets the next checks run.
            self.conn.close()
            raise TimeoutError(f"{method} {path}: no answer from WebDriver in {self.conn.timeout} s") from None
        payload = json.loads(resp.read() or b"{}")
        value = payload.get("value")
        if resp.status >= 400:
            raise RuntimeError(f"{method} {path}: {value}")
        return value

    def start(self, app):
        caps = {"capabilities": {"alwaysMatch": {"tauri:options": {"application": str(app)}}}}
        for attempt in range(5):
            try:
                self.sid = self.call("POST", "/session", caps)["sessionId"]
                return
            except (ConnectionError, http.client.HTTPException, OSError):
                # The driver can drop the first connection while it starts the native driver.
                time.sleep(1 + attempt)
                self.conn.close()
        raise RuntimeError("could not start a WebDriver session")

    def s(self, path):
        return f"/session/{self.sid}{path}"

    def quit(self):
        if self.sid:
            try:
                self.call("DELETE", self.s(""))
            except Exception:
                pass
            self.sid = None

    def find_all(self, css):
        return [next(iter(e.values())) for e in self.call("POST", self.s("/elements"), {"using": "css selector", "value": css})]

    def wait_all(self, css, count=1, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = self.find_all(css)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {count}× {css}")

    def click(self, el):
        # Scrolled into view by the page first: WebKitWebDriver's own scrolling leaves an element
        # that lies wholly just below the fold of a scrolling pane (the session list's last row)
        # where it was, and the click fails as "element not interactable".
        self.call("POST", self.s("/execute/sync"), {"script": "arguments[0].scrollIntoView({block: 'nearest'})",
                                                    "args": [{ELEMENT: el}]})
        self.call("POST", self.s(f"/element/{el}/click"), {})

    def text(self, el):
        return self.call("GET", self.s(f"/element/{el}/text"))

    def attr(self, el, name):
        return self.call("GET", self.s(f"/element/{el}/attribute/{name}"))

    def type(self, el, text):
        self.call("POST", self.s(f"/element/{el}/value"), {"text": text})

    def url(self):
        return self.call("GET", self.s("/url"))

    def js(self, script, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def until(self, script, timeout=20, *args):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.js(script, *args)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for: {script}")

    def shot(self, name):
        time.sleep(0.4)  # the previous frame can still be on screen right after a DOM change
        SHOTS.mkdir(parents=True, exist_ok=True)
        # WebKitGTK takes a WebDriver screenshot once the page has drawn its next frame. Without
        # compositing (the app's default on Linux, src-tauri/src/webkit.rs) a page with nothing
        # changing draws none, and the screenshot waited forever: the window then answered no
        # other command. So the page changes one pixel, invisibly, until the screenshot is taken.
        self.js(KEEP_DRAWING)
        try:
            png = base64.b64decode(self.call("GET", self.s("/screenshot")))
        finally:
            self.js("document.getElementById('e2e-keep-drawing')?.remove()")
        (SHOTS / f"{name}.png").write_bytes(png)


# E2E_ONLY=word runs only the checks whose name holds it, or (E2E_ONLY=remote, =same-id) every
# check of that window; the others are skipped, said so.
ONLY = os.environ.get("E2E_ONLY", "")
SUITE = "main"


def check(name, fn):
    if ONLY and ONLY not in name and ONLY != SUITE:
        print(f"skip {name}")
        return
    try:
        fn()
        print(f"ok   {name}")
    except Exception as e:  # report every failure, not just the first
        FAILURES.append(name)
        print(f"FAIL {name}: {e}")


XSS_SESSION = "00000000-0000-4000-8000-00000000bad1"
LINK_SESSION = "00000000-0000-4000-8000-00000000bad2"
BIG_SESSION = "00000000-0000-4000-8000-0000000000b1"
BIG_PAIRS = 2500
# A session whose directory exists here (the fixtures' directories do not), with a name that
# would break any launch built as a shell string.
TERM_SESSION = "00000000-0000-4000-8000-0000000000c1"
TERM_DIR_NAME = "proj it's $(touch pwned) `id` ü -x"


class Trap:
    """A local HTTP server that no transcript link may ever reach: it records every request."""

    def __init__(self):
        self.requests = []
        trap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                trap.requests.append(self.path)
                body = b"<html><body><h1 id=trapped>TRAPPED</h1></body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


TRAP = None
OPENED = None  # the file the fake browser launcher writes its argv to
TMP = None
BIN = None  # first on the app's PATH: the fake launcher, terminal and agent
LAUNCHED = None  # the file the fake terminal writes {argv, cwd} to
CONFIG = None  # the app's config.toml (AGENT_SESSIONS_CONFIG)
DISPLAY = None
CONFIG_TEXT = """# my agent-sessions settings: this comment must survive the app's edits
[ui]
theme = "light"   # the screenshots are light until Settings says otherwise
group_by = "sideways"
"""


def fake_launcher(bindir, log):
    """`xdg-open` (what the app's `open` crate runs first on Linux) that only records its
    arguments, so "Open in browser" can be checked without a browser and without a request."""
    bindir.mkdir()
    script = bindir / "xdg-open"
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    script.chmod(0o755)


def fake_terminal(bindir, log):
    """`xterm`, first on PATH (and named by $TERMINAL, so Automatic picks it): records the argv
    and directory it was started with, and exits at once, as a terminal handing over would."""
    script = bindir / "xterm"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      f"open({str(log)!r}, 'a').write(json.dumps({{'argv': sys.argv, 'cwd': os.getcwd()}}) + '\\n')\n")
    script.chmod(0o755)


def fake_agent(bindir):
    """`claude` on PATH, so "Resume in terminal" finds the agent (the fake terminal never runs it)."""
    script = bindir / "claude"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    return script


def launches():
    return [json.loads(l) for l in LAUNCHED.read_text().splitlines()] if LAUNCHED.exists() else []


def wait_launches(count, timeout=10):
    deadline = time.time() + timeout
    while len(launches()) < count and time.time() < deadline:
        time.sleep(0.1)
    return launches()


def link_lines(base):
    """A session whose text holds every kind of link, all pointing at the trap server."""
    text = (
        f"LINK probe [markdown link]({base}/markdown) and <{base}/autolink> and a bare URL {base}/bare "
        f"and raw <a href=\"{base}/raw-anchor\">raw anchor</a> and [protocol relative](//{base.split('//')[1]}/protocol-relative) "
        f"and [relative](/relative) and [script](javascript:window.__nav=1) "
        f"and <a href=\"javascript:window.__nav=2\">raw script</a> and [file](file:///etc/passwd) "
        f"and [tauri](tauri://localhost/index.html) and [mail](mailto:eve@example.com)"
    )
    return [
        {"type": "user", "uuid": "l1", "sessionId": LINK_SESSION, "cwd": "/home/eve/links", "timestamp": "2026-11-29T11:00:00Z",
         "message": {"role": "user", "content": text}},
        {"type": "assistant", "uuid": "l2", "parentUuid": "l1", "sessionId": LINK_SESSION, "timestamp": "2026-11-29T11:00:01Z",
         "message": {"id": "ml", "model": "claude-x", "role": "assistant", "content": [{"type": "text", "text": "Links: " + text}]}},
    ]


def xss_store(root, trap_base):
    """A Claude store with one session whose text carries script payloads and one whose text
    carries links of every kind."""
    project = root / "projects" / "-home-eve-xss"
    project.mkdir(parents=True)
    # Any script that ran would set a flag, change the title and call the trap server; any
    # resource that loaded would reach the trap too (in the app and in the HTML export).
    payload = (
        f"XSS probe <script>window.__xss = 1; document.title = 'XSS-RAN'; new Image().src = '{trap_base}/script'</script> "
        f"<img src=x onerror=\"window.__xss = 2; new Image().src = '{trap_base}/onerror'\"> "
        "[click](javascript:window.__xss=3) <a href=\"javascript:window.__xss=4\">a</a> "
        f"<svg onload=\"window.__xss = 5; fetch('{trap_base}/svg')\"></svg> <iframe src=\"{trap_base}/iframe\"></iframe> "
        f"<img src=\"{trap_base}/img\"> ![md image]({trap_base}/md-image) <link rel=stylesheet href=\"{trap_base}/css\"> "
        f"<style>body {{ background: url({trap_base}/style) }}</style> <!-- <script>window.__xss = 6</script> -->"
    )
    lines = [
        {"type": "user", "uuid": "x1", "sessionId": XSS_SESSION, "cwd": "/home/eve/xss", "timestamp": "2026-11-29T10:00:00Z",
         "message": {"role": "user", "content": payload}},
        {"type": "assistant", "uuid": "x2", "parentUuid": "x1", "sessionId": XSS_SESSION, "timestamp": "2026-11-29T10:00:01Z",
         "message": {"id": "m1", "model": "claude-x", "role": "assistant", "content": [{"type": "text", "text": "Echo: " + payload}]}},
    ]
    (project / f"{XSS_SESSION}.jsonl").write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    links = root / "projects" / "-home-eve-links"
    links.mkdir(parents=True)
    (links / f"{LINK_SESSION}.jsonl").write_text("\n".join(json.dumps(l) for l in link_lines(trap_base)) + "\n")
    # A long session: 2,500 prompts and answers, for the windowed transcript.
    big = root / "projects" / "-home-eve-big"
    big.mkdir(parents=True)
    rows = []
    for i in range(BIG_PAIRS):
        rows.append({"type": "user", "uuid": f"u{i}", "sessionId": BIG_SESSION, "cwd": "/home/eve/big",
                     "timestamp": "2026-11-28T10:00:00Z", "message": {"role": "user", "content": f"question number {i}"}})
        rows.append({"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": BIG_SESSION,
                     "timestamp": "2026-11-28T10:00:01Z",
                     "message": {"id": f"m{i}", "model": "claude-x", "role": "assistant",
                                 "content": [{"type": "text", "text": f"answer number {i}\n\n```python\nprint({i})\n```"}]}})
    (big / f"{BIG_SESSION}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def term_store(root, workdir):
    """A Claude session in `workdir`, a directory that exists, for the terminal buttons."""
    project = root / "projects" / "-tmp-term"
    project.mkdir(parents=True)
    lines = [
        {"type": "user", "uuid": "t1", "sessionId": TERM_SESSION, "cwd": str(workdir), "timestamp": "2026-11-27T09:00:00Z",
         "message": {"role": "user", "content": "TERM probe: open me in a terminal"}},
        {"type": "assistant", "uuid": "t2", "parentUuid": "t1", "sessionId": TERM_SESSION, "timestamp": "2026-11-27T09:00:01Z",
         "message": {"id": "mt", "model": "claude-x", "role": "assistant", "content": [{"type": "text", "text": "Ready."}]}},
    ]
    (project / f"{TERM_SESSION}.jsonl").write_text("\n".join(json.dumps(l) for l in lines) + "\n")


def main():
    if not APP.exists():
        sys.exit(f"build the app first: {APP} is missing")
    tmp = Path(tempfile.mkdtemp(prefix="agent-sessions-e2e-"))
    (tmp / "home").mkdir()
    global CLAUDE_ROOT
    claude = CLAUDE_ROOT = tmp / "claude"
    shutil.copytree(TESTDATA / "claude/2.1.332/dot-claude", claude)
    global TRAP, OPENED, TMP, BIN, LAUNCHED, CONFIG, DISPLAY, SUITE
    TRAP = Trap()
    TMP = tmp
    OPENED = tmp / "opened.jsonl"
    BIN = tmp / "bin"
    LAUNCHED = tmp / "launched.jsonl"
    fake_launcher(BIN, OPENED)
    fake_terminal(BIN, LAUNCHED)
    xss_store(claude, TRAP.base)
    workdir = tmp / TERM_DIR_NAME
    workdir.mkdir()
    term_store(claude, workdir)
    CONFIG = tmp / "config" / "config.toml"
    CONFIG.parent.mkdir()
    CONFIG.write_text(CONFIG_TEXT)
    display = DISPLAY = free_display()
    # Room for the layout check's largest window (the app opens at 1280×800).
    xvfb = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [xvfb]
    try:
        time.sleep(1)

        def driver_for(env_roots, name):
            port = free_port()
            env = dict(os.environ, DISPLAY=f":{display}", AGENT_SESSIONS_CACHE_DIR=str(tmp / f"cache-{name}"),
                       AGENT_SESSIONS_DEMO_DIR=str(TESTDATA), HOME=str(tmp / "home"),
                       PATH=f"{tmp / 'bin'}:{os.environ.get('PATH', '')}", BROWSER="",
                       AGENT_SESSIONS_CONFIG=str(tmp / f"config-{name}.toml" if name != "main" else CONFIG),
                       TERMINAL="xterm", XDG_CURRENT_DESKTOP="", GTK_USE_PORTAL="0", **env_roots)
            d = subprocess.Popen(["tauri-driver", "--port", str(port), "--native-port", str(free_port()),
                                  "--native-driver", shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"],
                                 env=env, stdout=open(tmp / f"driver-{name}.log", "w"), stderr=subprocess.STDOUT)
            procs.append(d)
            wait_port(port)
            drv = Driver(port)
            drv.start(APP)
            return drv

        roots = {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(TESTDATA / "codex/0.171.0/dot-codex"),
                 "XDG_DATA_HOME": str(tmp / "data")}
        (tmp / "data").mkdir()
        shutil.copytree(TESTDATA / "opencode/1.18.33/local-share-opencode", tmp / "data/opencode")
        drv = driver_for(roots, "main")
        try:
            run_main_suite(drv)
        finally:
            drv.quit()
        empty = {"CLAUDE_CONFIG_DIR": str(tmp / "none/claude"), "CODEX_HOME": str(tmp / "none/codex"),
                 "XDG_DATA_HOME": str(tmp / "none/data"),
                 "GEMINI_CLI_HOME": str(tmp / "none/gemini"), "QWEN_HOME": str(tmp / "none/qwen"),
                 "COPILOT_HOME": str(tmp / "none/copilot"), "CLINE_DIR": str(tmp / "none/cline")}
        # (With E2E_ONLY the other windows start only for a check of theirs that runs; the
        # remote host's for E2E_ONLY=remote.)
        if not ONLY or ONLY in "an empty machine offers the demo store, which opens":
            drv = driver_for(empty, "empty")
            try:
                check("an empty machine offers the demo store, which opens", lambda: empty_state(drv))
            finally:
                drv.quit()
        if ONLY and ONLY not in ("same-id", "remote") and ONLY not in "a Claude and a Codex session sharing an id, one Claude session in two files, resuming the copy":
            return
        SUITE = "same-id"
        shutil.copytree(TESTDATA / "claude/2.1.332/dot-claude", tmp / "same-id-claude")
        same_id_store(tmp / "same-id-codex")
        copies = same_file_store(tmp / "same-id-claude")
        drv = driver_for(dict(empty, CLAUDE_CONFIG_DIR=str(tmp / "same-id-claude"), CODEX_HOME=str(tmp / "same-id-codex")),
                         "same-id")
        try:
            check("a Claude and a Codex session sharing an id each open their own transcript, one row marked",
                  lambda: same_id_sessions(drv))
            check("one Claude session in two files (a project folder copied beside itself) lists two rows, "
                  "each opening its own file's transcript (from its row or a search hit), one row marked",
                  lambda: same_file_sessions(drv, *copies))
            check("resuming the copy of a Claude session is refused, naming the original that "
                  "claude --resume would open; the original's row copies its command",
                  lambda: same_file_resume(drv, *copies))
        finally:
            drv.quit()
        if ONLY and ONLY != "remote":
            return
        SUITE = "scale"
        many_sessions(tmp / "many", 4000, 2000)
        drv = driver_for(dict(empty, CLAUDE_CONFIG_DIR=str(tmp / "many")), "scale")
        try:
            check("with 2,000 directories the tree and the list hold only the rows near the viewport, "
                  "and the keyboard reaches every row", lambda: at_scale(drv))
        finally:
            drv.quit()
        # Another machine over a real ssh: a throwaway sshd on 127.0.0.1 whose home holds copies of
        # the fixture stores; this computer shows nothing of its own.
        SUITE = "remote"
        remote_home = tmp / "remote-home"
        remote_store(remote_home, tmp / TERM_DIR_NAME)
        # Trash offered here (the app's setting) and allowed there (the host's own config.toml).
        (tmp / "config-remote.toml").write_text(TRASH_ON)
        sshd, ssh_config = start_loopback(remote_home)
        try:
            remote_env = dict(empty, AGENT_SESSIONS_SSH_CONFIG=str(ssh_config),
                              AGENT_SESSIONS_SERVER_BINARY=str(server_cli()))
            drv = driver_for(remote_env, "remote")
            try:
                remote_suite(drv, ssh_config)
            finally:
                drv.quit()
            remote_restart(lambda: driver_for(remote_env, "remote"))
        finally:
            sshd.stdin.close()  # it stops sshd and its sessions when its input closes
            sshd.wait(timeout=30)
    finally:
        TRAP.stop()
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in tmp.glob("driver-*.log"):
            SHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(log, SHOTS / log.name)
            if FAILURES:
                # CI keeps only what is printed: the app's own output (its stderr reaches the
                # driver's log) says why a window went away.
                tail = log.read_text(errors="replace").splitlines()[-40:]
                print(f"--- last lines of {log.name}:", *tail, sep="\n", file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


def report():
    if FAILURES:
        sys.exit(f"{len(FAILURES)} end-to-end checks failed: {', '.join(FAILURES)}")
    print(f"all end-to-end checks passed; screenshots in {SHOTS}")


def run_main_suite(d):
    # Claude: 7 top level + 1 subagent + the XSS, link, long and terminal sessions; Codex: 5 + 1 child;
    # OpenCode: 6 + 1 child.
    def list_fills():
        rows = d.wait_all('[data-testid="session-row"]', count=22, timeout=60)
        assert len(rows) == 22, f"{len(rows)} top-level rows"
        labels = [d.attr(n, "data-key") for n in d.find_all('[data-testid="tree-node"]')]
        for dir_ in ["/home/bob/projects/demo", "/home/alice/projects/demo", "/home/carol/projects/demo", "/home/eve/xss"]:
            assert f"dir:{dir_}" in labels, f"{dir_} not in tree: {labels}"
        counts = d.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"agent-count\"]')]"
                      ".map(e => [e.dataset.provider, Number(e.dataset.count)]))")
        assert counts == {"claude": 12, "codex": 6, "opencode": 7}, counts
        d.shot("01-session-list")
    check("the tree shows each directory and the list fills", list_fills)

    def overview_and_keys():
        """With nothing open, the right half is Home, an overview to start from (sessions per
        agent, the most recent ones, a click away); ? lists every key, Escape closes it."""
        overview = d.wait_all('[data-testid="overview"]')[0]
        text = d.text(overview)
        assert "25 sessions" in text, text
        per_agent = d.until("const rows = [...document.querySelectorAll('[data-testid=\"home-agents-row\"]')];"
                            "return rows.length && Object.fromEntries(rows.map(r => [r.dataset.key, Number(r.dataset.sessions)]))", 20)
        assert per_agent == {"claude": 12, "codex": 6, "opencode": 7}, per_agent
        labels = d.js("return [...document.querySelectorAll('[data-testid=\"home-agents-row\"] th')].map(e => e.textContent.trim())")
        assert sorted(labels) == ["Claude Code", "Codex CLI", "OpenCode"], labels
        recent = d.find_all('[data-testid="overview-recent"] button')
        assert len(recent) == 6, len(recent)
        d.shot("01b-overview")
        key(d, "?")
        keys = d.js("return [...document.querySelectorAll('[data-testid=\"shortcut\"] kbd')].map(k => k.textContent)")
        assert all(k in keys for k in ["Ctrl-K", "/", "n", "N", "j", "k", "r", "t", "e", ",", "?"]), keys
        d.shot("01c-shortcuts")
        press(d, "\ue00c")
        d.until("return !document.querySelector('[data-testid=\"shortcuts\"]')", 5)
        d.click(recent[0])
        d.until("return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total > 0", 20)
    check("the empty right half is an overview to start from; ? lists every key", overview_and_keys)
    check("Home shows the CLI's figures per agent, model, project and day, a year's heatmap and formatted charts, "
          "each a click away from its sessions", lambda: home(d))

    def quiet():
        """No noise: agents by one name (the registry's), short message times with the full one
        in a tooltip, no Translate before it is set up, empty date filters that look empty."""
        open_session(d, TOOLS_SESSION)
        names = d.js("return [...document.querySelectorAll('[data-testid=\"agent-count\"] .badge')].map(b => b.textContent)")
        assert names == ["Claude Code", "Codex CLI", "OpenCode"], names
        times = d.js("return [...document.querySelectorAll('[data-testid=\"message-time\"]')].map(t => [t.textContent, t.title])")
        assert times and all(short and full and len(short) < len(full) for short, full in times), times
        assert not d.find_all('[data-testid="translate"]'), "Translate offered before translation is set up"
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])
        days = d.js("return ['filter-since', 'filter-until'].map(t => { const e = document.querySelector(`[data-testid=\"${t}\"]`);"
                    " return [e.type, e.value, e.placeholder]; })")
        assert all(kind != "date" and value == "" and "YYYY-MM-DD" in hint for kind, value, hint in days), days
        set_control(d, "filter-since", "2026-02-30")
        error = d.wait_all('[data-testid="filter-day-error"]', timeout=5)[0]
        assert "YYYY-MM-DD" in d.text(error) and not chips(d), (d.text(error), chips(d))
        set_control(d, "filter-since", "")
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])
    check("no noise: one name per agent, short message times, no Translate before set up, empty date filters", quiet)

    def two_line_rows():
        """A row: the title, then the project (named apart from the other demos), agent, count and
        date (the full time in its tooltip); the tree names the three demo directories apart."""
        row = d.wait_all(f'[data-testid="session-row"][data-id="{TOOLS_SESSION}"]')[0]
        got = d.js("const r = arguments[0], q = (t) => r.querySelector(`[data-testid=\"${t}\"]`);"
                   "return {project: q('row-project').textContent, count: q('row-count').textContent,"
                   " date: q('row-date').textContent, when: q('row-date').title, agent: r.querySelector('.badge')?.textContent,"
                   " lines: [...r.querySelectorAll('.line1, .line2')].map(l => Math.round(l.getBoundingClientRect().top))}",
                   {ELEMENT: row})
        assert got["project"] == "bob/projects/demo", got
        assert got["count"] == "8 msg" and got["agent"] == "Claude Code", got
        assert re.fullmatch(r"(\d+[mhd] ago|just now|[A-Z][a-z]{2} \d{1,2}(, \d{4})?)", got["date"]), got
        assert got["when"] and got["when"] != "unknown time", got
        assert len(got["lines"]) == 2 and got["lines"][1] > got["lines"][0], got
        labels = d.js("return [...document.querySelectorAll('[data-testid=\"tree-node\"]')]"
                      ".filter(n => n.dataset.key.endsWith('/projects/demo')).map(n => [n.querySelector('.label').textContent, n.title.split('\\n')[0]])")
        assert sorted(labels) == [[f"{u}/projects/demo", f"/home/{u}/projects/demo"] for u in ["alice", "bob", "carol"]], labels
    check("session rows show title, then project, agent, count and date; directories are named apart", two_line_rows)

    def transcript_counts():
        row = d.wait_all('[data-testid="session-row"][data-id="9d22e384-6685-4b75-ac35-088162e4c4a9"]')[0]
        d.click(row)
        d.until('return document.querySelector(\'[data-testid="transcript"]\')?.dataset.total > 0')
        header = d.text(d.find_all('[data-testid="header-counts"]')[0])
        assert header.startswith("8 msgs"), header
        counted = d.js('return document.querySelectorAll(\'[data-testid="message"][data-counted="true"]\').length')
        assert counted == 8, f"{counted} counted messages rendered"
        assert d.find_all('[data-testid="compaction"]'), "no compaction marker"
        d.shot("02-transcript")
    check("a transcript renders with the right message count", transcript_counts)

    def resume():
        d.click(d.find_all('[data-testid="copy-resume"]')[0])
        text = d.text(d.wait_all('[data-testid="resume-text"]')[0])
        # (`cd --` once the resume hardening of issue 16 lands.)
        assert text in ["cd /home/bob/projects/demo && claude --resume 9d22e384-6685-4b75-ac35-088162e4c4a9",
                        "cd -- /home/bob/projects/demo && claude --resume 9d22e384-6685-4b75-ac35-088162e4c4a9"], text
        # And it is on the clipboard: pasted (Ctrl+V, as a user would) into a scratch field.
        assert paste_clipboard(d) == text
    check("copy resume shows the exact command and copies it", resume)

    def search():
        box = d.find_all('[data-testid="search-input"]')[0]
        deadline = time.time() + 60
        while True:  # text indexing runs in the background after the list is ready
            d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {"element-6066-11e4-a52e-4f735466cecf": box})
            d.type(box, "continue after big context\ue007")
            time.sleep(0.5)
            hits = d.find_all('[data-testid="search-hit"]')
            if hits or time.time() > deadline:
                break
        assert hits, "no search hits"
        d.shot("03-search")
        open_bigctx_hit(d, hits, flash_timeout=5)
    check("a search opens the hit at its message", search)

    def hit_in_tool_output():
        """A word only a tool's output holds: its hit opens the message with that tool call
        unfolded, the word on screen."""
        box = d.find_all('[data-testid="search-input"]')[0]
        d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {ELEMENT: box})
        d.type(box, "drwxr\ue007")
        # The previous search's hits stay until this one answers: wait for its count.
        d.until("return document.querySelector('[data-testid=\"search-count\"]')?.textContent.endsWith('“drwxr”')", 20)
        hits = d.wait_all('[data-testid="search-hit"]')
        d.click(hits[0])
        d.until("return [...document.querySelectorAll('details[data-testid=\"tool\"]')]"
                ".some(t => t.open && t.textContent.includes('drwxr'))", 10)
        d.shot("03b-hit-in-tool-output")
    check("a hit in a tool's output opens its message with that tool call unfolded", hit_in_tool_output)

    check("a search says it is searching; its count names the query it answers, not what the box holds "
          "since; an older search's answer coming last is dropped", lambda: search_state(d))
    check("search palette: Ctrl-K, one group per session with its hits, relevance or recency, open beside the "
          "transcript while n / N step through hits, a subagent hit revealed under its parent, Escape empties it",
          lambda: search_palette(d))

    def group_modes():
        sel = {"element-6066-11e4-a52e-4f735466cecf": d.find_all('[data-testid="group-mode"]')[0]}
        d.js("arguments[0].value = 'agent-dir'; arguments[0].dispatchEvent(new Event('change'))", sel)
        d.until("return document.querySelector('[data-testid=\"tree-node\"]')?.dataset.key?.startsWith('agent:')")
        keys = [d.attr(n, "data-key") for n in d.find_all('[data-testid="tree-node"]')]
        top = [k for k in keys if "/" not in k.split(":", 1)[0] and k.count("dir:") == 0]
        # Every agent of the registry (the CLI's `agents`) that has sessions here, in its order.
        present = {s["provider"] for s in cli("scan")["sessions"]}
        agents = [f"agent:{a['name']}" for a in cli("agents")["agents"] if a["name"] in present]
        assert top == agents or sorted(top) == sorted(agents), (keys, agents)
        d.shot("04-group-agent")
        d.js("arguments[0].value = 'flat'; arguments[0].dispatchEvent(new Event('change'))", sel)
        d.until("return !document.querySelector('[data-testid=\"tree\"]')")
        assert len(d.find_all('[data-testid="session-row"]')) == 22
        d.js("arguments[0].value = 'dir-agent'; arguments[0].dispatchEvent(new Event('change'))", sel)
    check("group modes switch", group_modes)
    check("each filter shows a chip, narrows the list to core's answer (the CLI's scan flags) and its removal "
          "restores it; filters combine and are remembered in config.toml", lambda: list_filters(d))
    check("each sort order lists the sessions in the CLI's scan --sort order", lambda: sort_orders(d))
    check("Fold by repository puts subdirectories, a git worktree and an agent worktree under the main "
          "repository; a trailing slash and a symlink are one directory; sessions come and go without a relist",
          lambda: repo_folding(d))
    check("Fold by repository puts directories OpenCode recorded as a project's worktrees (gone from disk, so "
          "git cannot place them) under the project, whichever agent ran there", lambda: opencode_worktree_folding(d))
    # The filters, sort and folding are back to their defaults; the file goes back to what the
    # Settings and config checks start from (the app reads it again on its next save).
    CONFIG.write_text(CONFIG_TEXT)

    def xss():
        row = d.wait_all(f'[data-testid="session-row"][data-id="{XSS_SESSION}"]')[0]
        d.click(row)
        d.until('return document.querySelectorAll(\'[data-testid="markdown"]\').length >= 2')
        time.sleep(0.5)
        assert d.js("return window.__xss === undefined"), "a payload ran"
        dangerous = d.js("""return document.querySelectorAll(
            '[data-testid="transcript"] script, [data-testid="transcript"] [onerror], [data-testid="transcript"] [onload],'
            + '[data-testid="transcript"] a[href^="javascript"], [data-testid="transcript"] iframe, [data-testid="transcript"] img').length""")
        assert dangerous == 0, f"{dangerous} dangerous elements in the DOM"
        text = d.text(d.find_all('[data-testid="transcript"]')[0])
        assert "XSS probe" in text, text
        assert not TRAP.requests, f"the transcript loaded {TRAP.requests}"
        d.shot("05-xss-inert")
    check("script payloads in a transcript stay inert", xss)

    def links():
        d.click(d.wait_all(f'[data-testid="session-row"][data-id="{LINK_SESSION}"]')[0])
        d.until("return [...document.querySelectorAll('[data-testid=\"markdown\"]')].filter(m => m.textContent.includes('LINK probe')).length >= 2")
        home = d.url()
        assert home.startswith("tauri://localhost"), home

        def still_home(what):
            time.sleep(0.6)  # time for a navigation or a request to happen, if one would
            assert d.url() == home, f"{what}: the window navigated to {d.url()}"
            assert d.find_all('[data-testid="session-list"]'), f"{what}: the app is gone"
            assert not TRAP.requests, f"{what}: the trap server got {TRAP.requests}"

        def prompt_url():
            found = d.find_all('[data-testid="link-url"]')
            return d.text(found[0]) if found else None

        anchors = d.find_all('[data-testid="transcript"] [data-testid="markdown"] a')
        hrefs = sorted(d.attr(a, "href") or "" for a in anchors)
        http = [f"{TRAP.base}/autolink", f"{TRAP.base}/markdown"]
        # Two messages; per message two http links and five links without a target
        # (//host, relative, javascript:, file:, tauri:, mailto: lose their href).
        assert hrefs == [""] * 12 + sorted(http * 2), hrefs
        for a in anchors:
            href = d.attr(a, "href")
            d.click(a)
            still_home(f"click on {href!r}")
            if href:
                assert d.until("return document.querySelector('[data-testid=\"link-url\"]')?.textContent", 5) == href
                d.click(d.find_all('[data-testid="link-cancel"]')[0])
                d.until("return !document.querySelector('[data-testid=\"link-prompt\"]')", 5)
            else:
                assert prompt_url() is None, f"a prompt for a link without a target: {prompt_url()}"
        text = d.text(d.find_all('[data-testid="transcript"]')[0])
        # The bare URL and the raw <a> are text: nothing to click.
        assert f"{TRAP.base}/bare" in text and f'<a href="{TRAP.base}/raw-anchor">' in text, text
        assert d.js("return window.__nav === undefined"), "a javascript: link ran"
        # What the UI cannot stop, the shell does: script-driven navigation, a click on a link
        # outside the document, and window.open all stay in the app.
        d.js(f"window.location.href = '{TRAP.base}/location'")
        still_home("location.href")
        d.js(f"const a = document.createElement('a'); a.href = '{TRAP.base}/detached'; a.click()")
        still_home("a detached link")
        d.js(f"window.open('{TRAP.base}/window-open')")
        still_home("window.open")
        handles = d.call("GET", d.s("/window/handles"))
        assert len(handles) == 1, f"{len(handles)} windows"
        # The explicit action: the browser launcher gets exactly the URL, as one argument.
        md = [a for a in d.find_all('[data-testid="transcript"] [data-testid="markdown"] a') if d.attr(a, "href") == http[1]][0]
        d.click(md)
        d.until("return !!document.querySelector('[data-testid=\"link-prompt\"]')", 5)
        d.shot("05b-link-prompt")
        d.click(d.find_all('[data-testid="link-open"]')[0])
        d.until("return !document.querySelector('[data-testid=\"link-prompt\"]')", 5)
        deadline = time.time() + 10
        while not (OPENED.exists() and OPENED.read_text().strip()) and time.time() < deadline:
            time.sleep(0.1)
        opened = [json.loads(l) for l in OPENED.read_text().splitlines()] if OPENED.exists() else []
        assert opened == [[http[1]]], opened
        still_home("open in browser")
    def links_then_close():
        try:
            links()
        finally:  # a failure here must not leave the prompt over the next test's clicks
            for b in d.find_all('[data-testid="link-cancel"]'):
                d.click(b)
    check("links in a transcript never navigate the window; http(s) opens in the browser only from the prompt", links_then_close)

    def long_transcript():
        d.click(d.wait_all(f'[data-testid="session-row"][data-id="{BIG_SESSION}"]')[0])
        d.until(f"return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total == {2 * BIG_PAIRS}", 30)
        rendered = int(d.until("return document.querySelector('[data-testid=\"transcript\"]').dataset.rendered"))
        assert 0 < rendered < 100, f"{rendered} messages in the DOM"
        d.shot("06-long-transcript-top")
        deadline = time.time() + 60
        while time.time() < deadline:  # scroll to the end; pages load as it gets there
            loaded = d.js("const s = document.querySelector('[data-testid=\"transcript\"]');"
                          "s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); return Number(s.dataset.loaded)")
            if loaded >= 2 * BIG_PAIRS and d.js("return !!document.querySelector('[data-id=\"m2499\"]')"):
                break
            time.sleep(0.2)
        assert d.js("return !!document.querySelector('[data-id=\"m2499\"]')"), "the last message never rendered"
        in_dom = d.js("return document.querySelectorAll('[data-testid=\"message\"]').length")
        assert in_dom < 100, f"{in_dom} messages in the DOM at the end"
        d.shot("07-long-transcript-end")
    check("a 5,000-message transcript keeps only what is on screen in the DOM", long_transcript)

    def long_live_transcript():
        """A long session read from its top grows: only its count does (its pages before the end
        stay unloaded), and "latest" loads to the end, new message included."""
        other = [r for r in d.wait_all('[data-testid="session-row"]') if d.attr(r, "data-id") != BIG_SESSION]
        d.click(other[0])  # opened again from its top
        d.click(d.wait_all(f'[data-testid="session-row"][data-id="{BIG_SESSION}"]')[0])
        d.until(f"return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total == {2 * BIG_PAIRS}", 30)
        d.js("const s = document.querySelector('[data-testid=\"transcript\"]'); s.scrollTop = 0; s.dispatchEvent(new Event('scroll'))")
        loaded = int(d.js("return document.querySelector('[data-testid=\"transcript\"]').dataset.loaded"))
        assert loaded < 2 * BIG_PAIRS, f"{loaded} loaded before the append"
        path = CLAUDE_ROOT / "projects" / "-home-eve-big" / f"{BIG_SESSION}.jsonl"
        now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        with path.open("a") as f:
            f.write(json.dumps({"type": "user", "uuid": "big-live-1", "sessionId": BIG_SESSION, "cwd": "/home/eve/big",
                                "timestamp": now, "message": {"role": "user", "content": "LIVE BIG question"}}) + "\n")
        d.until(f"return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total == {2 * BIG_PAIRS + 1}", 30)
        after = int(d.js("return document.querySelector('[data-testid=\"transcript\"]').dataset.loaded"))
        assert after == loaded, f"{loaded} loaded before the append, {after} after"
        d.click(d.wait_all('[data-testid="jump-latest-top"]')[0])
        d.until("return [...document.querySelectorAll('[data-testid=\"message\"]')].some(m => m.textContent.includes('LIVE BIG question'))", 30)
        end = int(d.js("return document.querySelector('[data-testid=\"transcript\"]').dataset.loaded"))
        assert end == 2 * BIG_PAIRS + 1, end
        in_dom = d.js("return document.querySelectorAll('[data-testid=\"message\"]').length")
        assert in_dom < 100, f"{in_dom} messages in the DOM at the end"
        d.shot("07b-long-live-transcript-latest")
    check("a long session read from its top grows by its count alone, and \"latest\" loads to its new end", long_live_transcript)

    def growing_session():
        sid = "ceefe47d-84be-4483-8ce5-5f829cfd22c9"
        d.click(d.wait_all(f'[data-testid="session-row"][data-id="{sid}"]')[0])
        d.until("return document.querySelector('[data-testid=\"transcript-title\"]')?.textContent.includes('my-demo-session')")
        # Claim the session for this (running) test process, as Claude Code's pid file does.
        stat = Path("/proc/self/stat").read_text()
        ticks = stat[stat.rfind(")") + 1:].split()[19]
        pidfile = CLAUDE_ROOT / "sessions/4242.json"
        pidfile.write_text(json.dumps({"pid": os.getpid(), "sessionId": sid, "procStart": ticks, "status": "busy"}))
        transcript = CLAUDE_ROOT / "projects/-home-bob-projects-demo" / f"{sid}.jsonl"
        # What the window asks after each append: the pages from its last message on, not the
        # transcript again. Each `load_transcript` call's offset is recorded from the IPC request
        # (a fetch of ipc://localhost/<command> with the arguments as JSON: Tauri's invoke
        # cannot be replaced).
        loaded = int(d.js("return document.querySelector('[data-testid=\"transcript\"]').dataset.loaded"))
        d.js("const f = window.fetch; window.__pages = [];"
             "window.fetch = function (url, o) { if (String(url).includes('load_transcript'))"
             " { try { window.__pages.push(JSON.parse(o.body).offset) } catch (e) { window.__pages.push(String(e)) } }"
             " return f.apply(this, arguments); }")
        now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        with transcript.open("a") as f:
            f.write(json.dumps({"type": "user", "uuid": "live-1", "sessionId": sid, "timestamp": now,
                                "message": {"role": "user", "content": "LIVE one more thing please"}}) + "\n")
        d.until("return [...document.querySelectorAll('[data-testid=\"message\"]')].some(m => m.textContent.includes('LIVE one more thing'))", 20)
        assert d.until("return document.querySelector('[data-testid=\"turn-state\"]')?.textContent === 'working'", 20)
        assert d.find_all(f'[data-testid="session-row"][data-id="{sid}"] [data-testid="live-dot"]'), "no live dot"
        with transcript.open("a") as f:
            f.write(json.dumps({"type": "assistant", "uuid": "live-2", "parentUuid": "live-1", "sessionId": sid, "timestamp": now,
                                "message": {"id": "msg_live2", "model": "claude-x", "role": "assistant",
                                            "content": [{"type": "text", "text": "LIVE answer arrived"}]}}) + "\n")
        d.until("return [...document.querySelectorAll('[data-testid=\"message\"]')].some(m => m.textContent.includes('LIVE answer arrived'))", 20)
        pages = d.js("return window.__pages")
        assert pages and all(isinstance(p, int) and p >= loaded - 1 for p in pages), \
            f"{loaded} messages loaded before the appends; pages asked from {pages}"
        assert d.until("return document.querySelector('[data-testid=\"turn-state\"]')?.textContent === 'waiting'", 20)
        # The header's counts come from the list's change feed, the messages from the
        # transcript's own refresh: the two may land a moment apart.
        d.until("return document.querySelector('[data-testid=\"header-counts\"]')?.textContent.startsWith('8 msgs')", 20)
        header = d.text(d.find_all('[data-testid="header-counts"]')[0])
        assert header.startswith("8 msgs"), header
        d.shot("08-live-session")
        pidfile.unlink()
        d.until(f"return !document.querySelector('[data-testid=\"session-row\"][data-id=\"{sid}\"] [data-testid=\"live-dot\"]')", 20)
    check("a session that grows while shown appends and shows its turn state", growing_session)
    check("a broken config.toml is a warning naming file, line and key", lambda: config_warning(d))
    check("Open terminal and Resume in terminal launch the terminal with the exact argv and directory", lambda: terminals(d))
    check("Continue in… launches the target agent with the handoff as its prompt in the session's directory",
          lambda: handoff(d))
    check("export goes through the native save dialog; the HTML export runs nothing in WebKit", lambda: export(d))
    check("Settings saves (keeping the file's comments) and the app applies it without a restart", lambda: settings(d))
    check("Translate sends one message's text to the configured endpoint and shows the answer under it", lambda: translation(d))
    check("Stats shows the totals `stats --json` gives for the same store, per grouping, with charts", lambda: stats_view(d))
    check("Diagnostics shows a broken line's file and line, tool versions, watching and the cache", lambda: diagnostics_panel(d))
    check("a spilled tool output and an image load on demand", lambda: blobs(d))
    check("tool input and output are highlighted in the language of their file or command", lambda: highlighted_tools(d))
    check("OpenCode patch parts show +N −M as show --json counts them", lambda: opencode_patch_counts(d))
    check("the raw JSON toggle shows the agent's own lines behind each message", lambda: raw_records(d))
    check("the Timeline tab lists the session's events as log prints them", lambda: timeline_tab(d))
    check("tree and list move with the arrow keys, open with Enter and say what is selected", lambda: keyboard(d))
    check("the Export, Continue in… and context menus and Settings take the focus when opened and close on Escape",
          lambda: menus_keyboard(d))
    check("axe-core finds no serious or critical violations in the main view and the dialogs", lambda: accessibility(d))
    check("layout: every page, menu, popover and dialog lies inside the window, overlaps nothing, cuts no text and "
          "passes axe, at 1000×700, 1280×800 and 1920×1080 in both themes", lambda: layout(d))
    check("trash off is shown greyed out saying where to turn it on; on, a session goes to the trash through the dialog and leaves the list", lambda: trash(d))
    check("a complete bundle exported through the save dialog restores through the import dialogs into another directory",
          lambda: bundle_round_trip(d))


AXE = ROOT / "ui/node_modules/axe-core/axe.min.js"
TOOLS_SESSION = "9d22e384-6685-4b75-ac35-088162e4c4a9"
OC_PATCH_SESSION = "ses_dd433d553ffe5pmWtU62NvF48P"


def open_bigctx_hit(d, hits, flash_timeout):
    """Clicks the search hit of the BIGCTX session (hits are grouped under their session's
    title): its transcript opens, flashing the matched message."""
    groups = d.find_all('[data-testid="search-group"]')
    text = lambda g: d.js("return arguments[0].textContent", {ELEMENT: g})  # noqa: E731
    big = [g for g in groups if "BIGCTX" in text(g)]
    assert big, [text(g) for g in groups]
    d.click(d.call("POST", d.s(f"/element/{big[0]}/elements"), {"using": "css selector", "value": '[data-testid="search-hit"]'})[0][ELEMENT])
    title = d.until("return document.querySelector('[data-testid=\"transcript-title\"]')?.textContent.includes('BIGCTX')"
                    " && document.querySelector('[data-testid=\"transcript-title\"]').textContent")
    assert "BIGCTX" in title, title
    flashed = d.until("return document.querySelector('.flash')?.textContent", flash_timeout)
    assert "continue after big context" in flashed, flashed


def press(d, *keys):
    """Presses keys on whatever has focus (unlike key(), which blurs first)."""
    actions = []
    for k in keys:
        actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
    d.call("POST", d.s("/actions"), {"actions": [{"type": "key", "id": "kbd", "actions": actions}]})


ARROW_DOWN, ARROW_RIGHT, ENTER = "\ue015", "\ue014", "\ue007"
ARROW_LEFT, HOME, END = "\ue012", "\ue011", "\ue010"


def reveal_in_transcript(d, predicate, timeout=20):
    """Scrolls the (windowed) transcript down until `predicate` (JS, returning an element or
    null) finds its element; scrolls it into view and marks it `data-e2e`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if d.js(f"const e = ({predicate})(); if (!e) return false; e.scrollIntoView({{block: 'center'}});"
                " e.setAttribute('data-e2e', '1'); return true"):
            return
        d.js("const s = document.querySelector('[data-testid=\"transcript\"]');"
             " s.scrollTop += s.clientHeight / 2; s.dispatchEvent(new Event('scroll'))")
        time.sleep(0.2)
    raise AssertionError(f"never rendered: {predicate}")


def show_json(sid):
    return cli("show", sid)["messages"]


def highlighted_tools(d):
    """A Read tool's output is highlighted in its file's language, a Bash tool's as shell, the
    input as JSON; the highlighted text is the tool's output exactly (nothing added or lost)."""
    open_session(d, TOOLS_SESSION)
    outputs = [(p["name"], p["output"]) for m in show_json(TOOLS_SESSION) for p in m["parts"] if p["kind"] == "tool"]
    for name, language in [("Read", "python"), ("Bash", "shell")]:
        d.js("document.querySelectorAll('[data-e2e]').forEach(e => e.removeAttribute('data-e2e'))")
        reveal_in_transcript(d, "() => [...document.querySelectorAll('[data-testid=\"tool\"]')]"
                                f".find(t => t.querySelector('summary b')?.textContent === '{name}')")
        d.click(d.find_all('[data-e2e] > summary')[0])
        got = d.until("const t = document.querySelector('[data-e2e]'); const c = t.querySelectorAll('[data-testid=\"code\"]');"
                      " return c.length === 2 && [...c].map(p => [p.dataset.language ?? null, p.querySelectorAll('[class^=\"hljs-\"]').length,"
                      " p.textContent])", 10)
        (in_lang, in_spans, _), (out_lang, out_spans, out_text) = got
        assert in_lang == "json" and in_spans > 0, f"{name} input: {in_lang}, {in_spans} spans"
        assert out_lang == language, f"{name} output in {out_lang}"
        assert (name, out_text) in outputs, f"{name} output text differs"
        if name == "Read":
            assert out_spans > 0, "no highlighted tokens in the Python output"
            d.shot("30-highlighted-tool")


def opencode_patch_counts(d):
    """OpenCode patch parts show +N −M: the same figures `show --json` gives."""
    open_session(d, OC_PATCH_SESSION)
    want = []
    for m in show_json(OC_PATCH_SESSION):
        for p in m["parts"]:
            if p["kind"] == "patch":
                files = p["files"]
                a, r = sum(f["additions"] for f in files), sum(f["deletions"] for f in files)
                want.append(f"· {len(files)} file{'s' if len(files) > 1 else ''} +{a} −{r}")
    assert want and any(w != "· 1 file +0 −0" for w in want), want
    got = d.until("const c = [...document.querySelectorAll('[data-testid=\"patch\"] [data-testid=\"change-counts\"]')];"
                  f" return c.length === {len(want)} && c.map(e => e.textContent.replace(/\\s+/g, ' ').trim())", 10)
    assert got == want, f"{got} != {want}"
    d.click(d.find_all('[data-testid="patch"] > summary')[-1])
    d.js("document.querySelectorAll('[data-testid=\"patch\"]')[arguments[0]].scrollIntoView({block: 'center'})", len(want) - 1)
    d.shot("31-opencode-patch")


def raw_records(d):
    """The raw JSON toggle shows the agent's own lines behind each message, equal to the file's."""
    open_session(d, TOOLS_SESSION)
    lines = (CLAUDE_ROOT / "projects/-home-bob-projects-demo" / f"{TOOLS_SESSION}.jsonl").read_text().splitlines()
    toggle = "[...document.querySelectorAll('label')].find(l => l.textContent.trim() === 'raw JSON').querySelector('input')"
    d.js(f"{toggle}.click()")
    try:
        records_equal_lines(d, lines, 15)
        first = d.js("const m = document.querySelector('[data-testid=\"message\"]');"
                     " return [m.dataset.id, m.querySelector('[data-testid=\"raw-record\"]').textContent]")
        assert first[0] in first[1], "the first message's record is not its own"
        d.shot("32-raw-records")
    finally:
        d.js(f"{toggle}.checked && {toggle}.click()")


def records_equal_lines(d, lines, timeout):
    """The raw records shown (at least 3) each equal their line of the session file."""
    records = d.until("const r = [...document.querySelectorAll('[data-testid=\"raw-record\"]')];"
                      " return r.length >= 3 && r.map(e => [Number(e.dataset.line), e.textContent])", timeout)
    for line, text in records:
        assert json.loads(text) == json.loads(lines[line - 1]), f"line {line} differs"


def timeline_tab(d):
    """The Timeline tab lists the session's normalized events, as `log` prints them."""
    open_session(d, TOOLS_SESSION)
    d.click(d.find_all('[data-testid="tab-timeline"]')[0])
    try:
        want = [e["type"] for e in cli("log", TOOLS_SESSION)["events"]]
        got = d.until("const t = document.querySelector('[data-testid=\"timeline\"]');"
                      " return t && Number(t.dataset.count) > 0 && [...t.querySelectorAll('[data-testid=\"event\"]')].map(e => e.dataset.type)", 15)
        assert got == want, f"{got} != {want}"
        assert "prompt" in got and "tool_start" in got, got
        assert d.js("return document.querySelector('[data-testid=\"tab-timeline\"]').getAttribute('aria-selected')") == "true"
        d.shot("33-timeline")
        violations = axe(d)
        assert not violations, f"axe on the timeline: {violations}"
    finally:
        d.click(d.find_all('[data-testid="tab-transcript"]')[0])


def keyboard(d):
    """Tree and list move with the arrow keys and act on Enter; they say what is selected."""
    d.js("document.querySelector('[data-testid=\"tree\"] [role=\"treeitem\"]').focus()")
    press(d, ARROW_DOWN)
    key_ = d.js("return document.activeElement.dataset.key")
    assert key_ and key_.startswith("dir:"), f"focus went to {key_}"
    press(d, ENTER)
    d.until(f"return document.querySelector('[data-key=\"{key_}\"]').getAttribute('aria-selected') === 'true'", 5)
    try:
        rows = d.find_all('[data-testid="session-row"]')
        assert len(rows) >= 2, f"{len(rows)} rows in {key_}"
        d.js("document.querySelector('[data-testid=\"session-list\"] [role=\"treeitem\"][tabindex=\"0\"]').focus()")
        before = d.js("return document.activeElement.dataset.id")
        press(d, ARROW_DOWN)
        target = d.js("return document.activeElement.dataset.id")
        assert target and target != before, f"focus stayed on {before}"
        press(d, ENTER)
        d.until(f"const r = document.querySelector('[data-testid=\"session-row\"][data-id=\"{target}\"]');"
                " return r.classList.contains('open') && r.getAttribute('aria-selected') === 'true'", 10)
        d.until(f"return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total > 0")
        d.shot("34-keyboard")
    finally:
        d.click(d.find_all('[data-testid="tree"] [role="treeitem"]')[0])
    # A session with subagents opens them with Right.
    parent = d.js("return [...document.querySelectorAll('[data-testid=\"session-row\"][aria-expanded=\"false\"]')][0]?.dataset.id")
    assert parent, "no session with subagents in the list"
    d.js(f"document.querySelector('[data-testid=\"session-row\"][data-id=\"{parent}\"]').focus()")
    press(d, ARROW_RIGHT)
    d.until(f"return document.querySelector('[data-testid=\"session-row\"][data-id=\"{parent}\"]').getAttribute('aria-expanded') === 'true'", 5)


def focus_in(d, testid):
    return d.js(f"return !!document.querySelector('[data-testid=\"{testid}\"]')?.contains(document.activeElement)")


def menus_keyboard(d):
    """`e` and `,` open what they name with the focus inside (it stayed on the page: the first
    Tab went to the machine picker at the top); Escape closes a menu (it did nothing) and the
    focus goes back to the button that opened it."""
    open_session(d, TOOLS_SESSION)
    key(d, "e")
    d.wait_all('[data-testid="export-menu"]')
    assert focus_in(d, "export-menu"), d.js("return document.activeElement.outerHTML.slice(0, 120)")
    assert d.js("return document.activeElement.dataset.testid") == "export-format-markdown"
    press(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"export-menu\"]')", 5)
    toggle = d.find_all('[data-testid="handoff-toggle"]')[0]
    d.click(toggle)
    d.wait_all('[data-testid="handoff-menu"]')
    assert focus_in(d, "handoff-menu"), d.js("return document.activeElement.outerHTML.slice(0, 120)")
    press(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"handoff-menu\"]')", 5)
    assert d.js("return document.activeElement.dataset.testid") == "handoff-toggle"
    # The row's context menu from the keyboard (Shift+F10): it opened only on a right click.
    d.js(f"document.querySelector('[data-testid=\"session-row\"][data-id=\"{TOOLS_SESSION}\"]').focus()")
    d.call("POST", d.s("/actions"), {"actions": [{"type": "key", "id": "kbd", "actions": [
        {"type": "keyDown", "value": "\ue008"}, {"type": "keyDown", "value": "\ue03a"},
        {"type": "keyUp", "value": "\ue03a"}, {"type": "keyUp", "value": "\ue008"}]}]})
    d.wait_all('[data-testid="session-menu"]', timeout=5)
    assert d.js("return document.activeElement.dataset.testid") == "menu-resume-terminal"
    press(d, ARROW_DOWN)
    assert d.js("return document.activeElement.dataset.testid") == "menu-open-terminal"
    press(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"session-menu\"]')", 5)
    assert d.js("return document.activeElement.dataset.id") == TOOLS_SESSION
    key(d, ",")
    d.wait_all('[data-testid="settings"]')
    assert focus_in(d, "settings"), d.js("return document.activeElement.outerHTML.slice(0, 120)")
    press(d, "\ue004")  # Tab: still inside the pane
    assert focus_in(d, "settings"), d.js("return document.activeElement.outerHTML.slice(0, 120)")
    press(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"settings\"]')", 5)


# What the layout check finds wrong in the element `arguments[0]` selects and below it: a
# visible part of an element outside the window (clipped by its scrolling panes first: a row
# scrolled out of its pane is not outside), and text cut off (wider than its box, the box not
# scrolling, without an ellipsis and a tooltip that says it whole). The innermost box is named.
LAYOUT_JS = """
const root = document.querySelector(arguments[0]);
if (!root) return ['nothing matches ' + arguments[0]];
const W = innerWidth, H = innerHeight, bad = [];
const name = (e) => `${e.tagName.toLowerCase()}${e.dataset.testid ? '[' + e.dataset.testid + ']' : ''}`
  + `${typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/)[0] : ''} "${(e.textContent || '').trim().slice(0, 40)}"`;
// The part of `e` its panes let show. A pane that scrolls hides the rest until scrolled to; one
// that does not (overflow hidden or clip) cuts it off for good: that is said.
const clipped = (v) => v === 'hidden' || v === 'clip';
function visiblePart(e) {
  let { left, top, right, bottom } = e.getBoundingClientRect();
  for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const cs = getComputedStyle(a), r = a.getBoundingClientRect();
    // What its inner scrolling panes let show, measured against this pane.
    const cutX = clipped(cs.overflowX) && (left < r.left - 1 || right > r.right + 1);
    const cutY = clipped(cs.overflowY) && (top < r.top - 1 || bottom > r.bottom + 1);
    if ((cutX || cutY) && left < right && top < bottom) bad.push(`cut off by ${name(a)}: ${name(e)}`);
    if (cs.overflowX !== 'visible') { left = Math.max(left, r.left); right = Math.min(right, r.right); }
    if (cs.overflowY !== 'visible') { top = Math.max(top, r.top); bottom = Math.min(bottom, r.bottom); }
    if (cs.position === 'fixed') break;
  }
  return { left, top, right, bottom };
}
const shown = (e) => {
  for (let a = e; a; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.display === 'none' || cs.visibility === 'hidden' || cs.clipPath !== 'none' || a.hidden) return false;
  }
  return true;
};
const cut = [];
for (const e of [root, ...root.querySelectorAll('*')]) {
  if (e.closest('svg, option, canvas') && e.tagName !== 'CANVAS') continue;
  if (!shown(e)) continue;
  const c = visiblePart(e);
  if (c.right - c.left <= 0.5 || c.bottom - c.top <= 0.5) continue;
  if (c.left < -0.5 || c.top < -0.5 || c.right > W + 0.5 || c.bottom > H + 0.5)
    bad.push(`outside the ${W}×${H} window: ${name(e)} at ${Math.round(c.left)},${Math.round(c.top)}–${Math.round(c.right)},${Math.round(c.bottom)}`);
  const cs = getComputedStyle(e);
  if (['INPUT', 'SELECT', 'TEXTAREA'].includes(e.tagName) || ['auto', 'scroll'].includes(cs.overflowX)) continue;
  if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && (e.textContent || '').trim()
      && !(cs.textOverflow === 'ellipsis' && e.closest('[title]'))) cut.push(e);
}
for (const e of cut) if (!cut.some((o) => o !== e && e.contains(o)))
  bad.push(`text cut: ${name(e)} (${e.scrollWidth} px in ${e.clientWidth})`);
// Overlaps: two siblings that hold text or can be clicked must not cover each other. An inline
// element is the boxes of its lines (a wrapped span's bounding box covers its neighbours'); what
// is placed over the rest on purpose (fixed, sticky: bars and menus) is not compared.
const INTERACTIVE = 'a[href], button, input, select, textarea, summary, label, [role="button"], [role="treeitem"], [tabindex]:not([tabindex="-1"])';
const ownText = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
const holds = (e) => e.matches(INTERACTIVE) || ownText(e) || !!e.querySelector(INTERACTIVE) || !!(e.textContent || '').trim();
function boxes(e) {
  const c = visiblePart(e);
  const rects = getComputedStyle(e).display === 'inline' ? [...e.getClientRects()] : [e.getBoundingClientRect()];
  return rects.map((r) => ({ left: Math.max(r.left, c.left), top: Math.max(r.top, c.top), right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) }))
    .filter((r) => r.right - r.left > 0.5 && r.bottom - r.top > 0.5);
}
const over = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1.5;
for (const parent of [root, ...root.querySelectorAll('*')]) {
  if (parent.closest('svg, canvas, select')) continue;
  const kids = [...parent.children].filter((k) => shown(k) && !['fixed', 'sticky'].includes(getComputedStyle(k).position) && holds(k))
    .map((k) => ({ k, b: boxes(k) })).filter((x) => x.b.length);
  for (let i = 0; i < kids.length; i++)
    for (let j = i + 1; j < kids.length; j++)
      if (kids[i].b.some((a) => kids[j].b.some((b) => over(a, b))))
        bad.push(`overlap: ${name(kids[i].k)} and ${name(kids[j].k)}`);
}
return bad;
"""


def layout_faults(d, css):
    return d.js(LAYOUT_JS, css)


def set_window(d, width, height):
    """Resizes the window to `width`×`height` (its page, there being no window manager's frame)."""
    d.call("POST", d.s("/window/rect"), {"width": width, "height": height})
    d.until(f"return innerWidth === {width} && innerHeight === {height}", 10)


def set_theme(d, theme):
    d.js("document.documentElement.dataset.theme = arguments[0]", theme)


# What the layout check opens: a name, how to open it (JS run in the page, or a function of the
# driver), what to check, and how to close it.
def layout_views(d):
    def menu(opener, pane, setup=None):
        def show():
            d.click(d.find_all(f'[data-testid="{opener}"]')[0])
            d.wait_all(f'[data-testid="{pane}"]', timeout=5)
            if setup:
                for testid in setup:
                    d.click(d.find_all(f'[data-testid="{testid}"]')[0])
            time.sleep(0.2)  # placed on the next frame
        return show

    def close_with(testid, pane):
        def close():
            if d.find_all(f'[data-testid="{pane}"]'):
                d.click(d.find_all(f'[data-testid="{testid}"]')[0])
            d.until(f"return !document.querySelector('[data-testid=\"{pane}\"]')", 5)
        return close

    def corner_menu():
        # A right click at the window's bottom right corner: the menu must open up and to the left.
        row = d.wait_all(f'[data-testid="session-row"][data-id="{TOOLS_SESSION}"]')[0]
        d.js("arguments[0].dispatchEvent(new MouseEvent('contextmenu', {bubbles: true, cancelable: true,"
             " clientX: innerWidth - 3, clientY: innerHeight - 3}))", {ELEMENT: row})
        d.wait_all('[data-testid="session-menu"]', timeout=5)
        time.sleep(0.2)

    def close_corner():
        d.js("document.body.click()")
        d.until("return !document.querySelector('[data-testid=\"session-menu\"]')", 5)

    def filters():
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])
        d.wait_all('[data-testid="filter-panel"]', timeout=5)

    def close_filters():
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])
        d.until("return !document.querySelector('[data-testid=\"filter-panel\"]')", 5)

    def palette():
        search_hits(d, "main.py")
        d.click(d.find_all('[data-testid="search-hit"][data-message]:not([data-message=""])')[0])
        d.wait_all('[data-testid="transcript"] .slot[data-hit="true"]', timeout=20)

    def home_page():
        d.click(d.find_all('[data-testid="open-home"]')[0])
        d.wait_all('[data-testid="home-projects-row"]', timeout=20)
        d.until("return document.querySelector('[data-testid=\"home-chart-days\"]')?.dataset.yTicks", 20)

    def stats_page():
        d.click(d.find_all('[data-testid="open-stats"]')[0])
        d.wait_all('[data-testid="stats-table"]', timeout=20)
        d.until("return document.querySelector('[data-testid=\"stats-chart-cost\"]')?.dataset.yTicks", 20)

    return [
        ("home", home_page, [".app"], lambda: open_session(d, TOOLS_SESSION)),
        ("transcript", lambda: None, [".app"], lambda: None),
        ("search", palette, [".app"], lambda: close_search(d)),
        ("shortcuts", lambda: (key(d, "?"), d.wait_all('[data-testid="shortcuts"]', timeout=5)), ['[data-testid="shortcuts"]'],
         close_with("shortcuts-close", "shortcuts")),
        ("filters", filters, ['[data-testid="filter-panel"]', ".app"], close_filters),
        ("export", menu("export-toggle", "export-menu"), ['[data-testid="export-menu"]'], close_with("export-toggle", "export-menu")),
        ("export-bundle", menu("export-toggle", "export-menu", ["export-format-bundle", "export-bundle-complete"]),
         ['[data-testid="export-menu"]'], close_with("export-toggle", "export-menu")),
        ("export-share-safe", menu("export-toggle", "export-menu", ["export-format-bundle", "export-bundle-share-safe"]),
         ['[data-testid="export-menu"]'], close_with("export-toggle", "export-menu")),
        ("handoff", menu("handoff-toggle", "handoff-menu"), ['[data-testid="handoff-menu"]'], close_with("handoff-toggle", "handoff-menu")),
        ("session-menu", corner_menu, ['[data-testid="session-menu"]'], close_corner),
        ("settings", menu("open-settings", "settings"), ['[data-testid="settings"]'], close_with("settings-close", "settings")),
        ("stats", stats_page, [".app"], close_with("stats-close", "stats")),
        ("diagnostics", menu("open-diagnostics", "diagnostics"), ['[data-testid="diagnostics"]'],
         close_with("diagnostics-close", "diagnostics")),
    ]


def layout(d):
    """At 1000×700, 1280×800 and 1920×1080, light and dark, each page (Home, a transcript, Stats,
    Settings, the search palette) and each menu, popover and dialog: nothing visible outside the
    window, no two sibling texts or controls over each other, no text cut without an ellipsis and
    a tooltip, and no serious or critical axe violation. Screenshots of each in
    target/e2e/layout-*.png; the faults in target/e2e/layout-faults.txt."""
    open_session(d, TOOLS_SESSION)
    layout_check_can_fail(d)
    faults = []
    try:
        for width, height in [(1000, 700), (1280, 800), (1920, 1080)]:
            set_window(d, width, height)
            for theme in ["light", "dark"]:
                set_theme(d, theme)
                for name, show, where, close in layout_views(d):
                    show()
                    for css in where:
                        faults += [f"{width}×{height} {theme} {name}: {f}" for f in layout_faults(d, css)]
                    faults += [f"{width}×{height} {theme} {name}: axe {v}" for v in axe(d)]
                    d.shot(f"layout-{width}x{height}-{theme}-{name}")
                    close()
    finally:
        set_theme(d, "light")
        set_window(d, 1280, 800)
    (SHOTS / "layout-faults.txt").write_text("\n".join(faults) + "\n")
    assert not faults, "\n".join(faults[:60]) + (f"\n… {len(faults) - 60} more (all in target/e2e/layout-faults.txt)" if len(faults) > 60 else "")


def layout_check_can_fail(d):
    """The check sees what it is for: two buttons drawn over each other, a text cut without an
    ellipsis and a box past the window's edge, put in the page for the moment, are each found."""
    d.js("const t = document.createElement('div'); t.id = 'layout-self-test';"
         "t.style.cssText = 'position: absolute; left: 20px; top: 20px; width: 300px; background: var(--bg)';"
         "t.innerHTML = '<div><button>first one</button><button style=\"margin-left: -40px\">second</button></div>'"
         " + '<p style=\"width: 40px; overflow: hidden; white-space: nowrap\">a text far wider than its box</p>'"
         " + '<p style=\"width: 100px; margin-left: 5000px\">beyond</p>';"
         "document.body.append(t)")
    try:
        found = "\n".join(layout_faults(d, "#layout-self-test"))
    finally:
        d.js("document.getElementById('layout-self-test').remove()")
    for want in ["overlap: button", "text cut: p", "outside the"]:
        assert want in found, f"the layout check missed {want!r}: {found}"


def axe(d):
    """Runs axe-core (ui/node_modules, pinned) in the window: its serious and critical violations."""
    if not d.js("return !!window.axe"):
        d.js(AXE.read_text() + "\nreturn true;")
    result = d.call("POST", d.s("/execute/async"), {"args": [], "script":
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`)))"
        ".catch(e => done(['axe failed: ' + e]))"})
    return result


def accessibility(d):
    """No serious or critical axe violations on the main view (a tool open, raw JSON on), the
    Export and Continue in… menus, the session menu, Settings, Stats and Diagnostics."""
    open_session(d, TOOLS_SESSION)
    d.js("document.querySelector('[data-testid=\"tool\"]').open = true")
    toggle = "[...document.querySelectorAll('label')].find(l => l.textContent.trim() === 'raw JSON').querySelector('input')"
    d.js(f"{toggle}.click()")
    d.wait_all('[data-testid="raw-record"]')
    found = {"main": axe(d)}
    d.js(f"{toggle}.click()")
    for opener, pane, close in [("export-toggle", "export-menu", "export-toggle"), ("handoff-toggle", "handoff-menu", "handoff-toggle"),
                                ("open-settings", "settings", "settings-close"), ("open-stats", "stats", "stats-close"),
                                ("open-diagnostics", "diagnostics", "diagnostics-close")]:
        d.click(d.find_all(f'[data-testid="{opener}"]')[0])
        d.wait_all(f'[data-testid="{pane}"]')
        time.sleep(1)
        found[pane] = axe(d)
        d.click(d.find_all(f'[data-testid="{close}"]')[0])
        d.until(f"return !document.querySelector('[data-testid=\"{pane}\"]')", 5)
    context_menu(d, TOOLS_SESSION)
    found["session-menu"] = axe(d)
    d.js("document.body.click()")
    bad = {k: v for k, v in found.items() if v}
    assert not bad, json.dumps(bad, indent=1)


def top_rows(d):
    return d.js("return [...document.querySelectorAll('[data-testid=\"session-row\"]:not(.child)')].map(r => r.dataset.id)")


def wait_rows(d, want, ordered=False, timeout=20):
    """Waits until the list's top-level rows are `want` (as a set, or in order); returns them."""
    deadline = time.time() + timeout
    while True:
        got = top_rows(d)
        if (got == want) if ordered else (sorted(got) == sorted(want)):
            return got
        if time.time() > deadline:
            raise AssertionError(f"rows {got} != expected {want}")
        time.sleep(0.2)


def cli_rows(*flags):
    """The top-level sessions the CLI's `scan` lists with these flags, in its order: what the app
    must show for the same filters (a session whose parent is listed shows under it)."""
    sessions = cli("scan", *flags)["sessions"]
    ids = {(s["provider"], s["id"]) for s in sessions}
    return [s["id"] for s in sessions if not s["parent_id"] or (s["provider"], s["parent_id"]) not in ids]


def chips(d):
    return d.js("return [...document.querySelectorAll('[data-testid=\"filter-chip\"]')].map(c => [c.dataset.key, c.textContent.replace('×', '').trim()])")


def set_control(d, testid, value):
    el = {ELEMENT: d.wait_all(f'[data-testid="{testid}"]')[0]}
    if isinstance(value, bool):
        d.js("if (arguments[0].checked !== arguments[1]) arguments[0].click()", el, value)
    else:
        # Bubbling, as a user's change does (Svelte listens for it at the root).
        d.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", el, value)


def remove_chip(d, key):
    d.click(d.wait_all(f'[data-testid="filter-chip"][data-key="{key}"] [data-testid="chip-remove"]')[0])


def wait_config(text, timeout=10):
    deadline = time.time() + timeout
    while text not in CONFIG.read_text():
        if time.time() > deadline:
            raise AssertionError(f"{text!r} not in config.toml:\n{CONFIG.read_text()}")
        time.sleep(0.2)


def list_filters(d):
    try:
        filters_narrow(d)
    finally:  # a failure must not leave a filter hiding sessions from the next checks
        while d.find_all('[data-testid="chip-remove"]'):
            d.click(d.find_all('[data-testid="chip-remove"]')[0])
        if d.find_all('[data-testid="filter-panel"]'):
            d.click(d.find_all('[data-testid="filters-toggle"]')[0])


def filters_narrow(d):
    everything = cli_rows()
    wait_rows(d, everything)
    if not d.find_all('[data-testid="filter-panel"]'):
        d.click(d.wait_all('[data-testid="filters-toggle"]')[0])
    sessions = cli("scan")["sessions"]
    models = [s["model"] for s in sessions if s["model"]]
    model = max(set(models), key=models.count)
    assert models.count(model) < len(sessions), "every session has one model: the filter would show nothing"
    days = sorted({s["updated_at"][:10] for s in sessions})
    assert len(days) >= 3, f"the store's sessions were updated on {days}: no day range narrows from both sides"
    day = days[len(days) // 2]
    cases = [  # (control, value, chip key, chip label, CLI flags)
        ("filter-agent", "codex", "agent", "Agent: Codex CLI", ["--agent", "codex"]),
        ("filter-model", model, "model", f"Model: {model}", ["--model", model]),
        ("filter-since", day, "since", f"From {day}", ["--since", day]),
        ("filter-until", day, "until", f"Until {day}", ["--until", day]),
        ("filter-has_subagents", True, "has_subagents", "Has subagents", ["--has-subagents"]),
        ("filter-archived", True, "archived", "Archived", ["--archived"]),
        ("filter-live", True, "live", "Live", ["--live"]),
    ]
    for control, value, key, label, flags in cases:
        set_control(d, control, value)
        d.until(f"return document.querySelector('[data-testid=\"filter-chip\"][data-key=\"{key}\"]')")
        assert chips(d) == [[key, label]], chips(d)
        want = cli_rows(*flags)
        assert want != everything, f"{flags} narrows nothing on this store"
        wait_rows(d, want)
        if key == "agent":
            d.shot("40-filter-agent")
            wait_config('agent = "codex"')
        remove_chip(d, key)
        d.until(f"return !document.querySelector('[data-testid=\"filter-chip\"]')")
        wait_rows(d, everything)
    wait_config('agent = ""')
    # Combined: AND, one chip each, and search only finds what the filters let through.
    set_control(d, "filter-agent", "claude")
    set_control(d, "filter-has_subagents", True)
    wait_rows(d, cli_rows("--agent", "claude", "--has-subagents"))
    assert [k for k, _ in chips(d)] == ["agent", "has_subagents"], chips(d)
    d.shot("41-filters-combined")
    remove_chip(d, "agent")
    remove_chip(d, "has_subagents")
    wait_rows(d, everything)


def sort_orders(d):
    for key in ["created", "messages", "tokens", "cost", "updated"]:
        set_control(d, "sort", key)
        wait_rows(d, cli_rows("--sort", key), ordered=True)
        if key == "tokens":
            d.shot("42-sorted-by-tokens")
        wait_config(f'sort_by = "{key}"')


REPO_SESSIONS = {  # id → directory under the e2e's workspace (as an agent wrote it)
    "00000000-0000-4000-8000-0000000000f1": "app",
    "00000000-0000-4000-8000-0000000000f2": "app/src",
    "00000000-0000-4000-8000-0000000000f3": "app-wt",
    "00000000-0000-4000-8000-0000000000f4": "app/.claude/worktrees/x",
    "00000000-0000-4000-8000-0000000000f5": "app/",
    "00000000-0000-4000-8000-0000000000f6": "app-link",
}


def many_sessions(root, count, dirs=50):
    """A Claude store of `count` small sessions over `dirs` directories (/work/p<n>)."""
    for i in range(count):
        project = root / "projects" / f"-work-p{i % dirs}"
        project.mkdir(parents=True, exist_ok=True)
        sid = f"00000000-0000-4000-8000-{i:012d}"
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_760_000_000 + i * 600))
        lines = [
            {"type": "user", "uuid": f"u{i}", "sessionId": sid, "cwd": f"/work/p{i % dirs}", "timestamp": when,
             "message": {"role": "user", "content": f"session {i}: please look at the build"}},
            {"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": sid, "timestamp": when,
             "message": {"id": f"m{i}", "model": ["claude-x", "claude-y"][i % 2], "role": "assistant",
                         "content": [{"type": "text", "text": "Looked."}]}},
        ]
        (project / f"{sid}.jsonl").write_text("\n".join(json.dumps(l) for l in lines) + "\n")


def at_scale(d):
    """2,000 directories (4,001 tree rows with their agents) and 4,000 sessions: the tree and the
    list keep only the rows near the viewport in the DOM, and the keyboard still reaches every
    row (End goes to the last directory's agent, Home back to All sessions)."""
    d.until("return Number(document.querySelector('[data-testid=\"session-list\"]')?.dataset.total) === 4000", 120)
    d.until("return Number(document.querySelector('[data-testid=\"tree\"]')?.dataset.rows) === 4001", 30)
    tree_dom = len(d.find_all('[data-testid="tree"] [role="treeitem"]'))
    list_dom = len(d.find_all('[data-testid="session-row"]'))
    assert 20 <= tree_dom <= 120, f"{tree_dom} tree rows in the DOM"
    assert 10 <= list_dom <= 80, f"{list_dom} session rows in the DOM"
    d.shot("47-scale-tree-and-list")
    d.js("document.querySelector('[data-testid=\"tree\"] [role=\"treeitem\"]').focus()")
    press(d, END)
    last = d.until("const a = document.activeElement; return a?.dataset.flat === '4000' && a.getAttribute('aria-level') === '2'"
                   " && a.getAttribute('aria-posinset') === a.getAttribute('aria-setsize') && a.dataset.key", 10)
    assert last.endswith("/agent:claude"), last
    press(d, ARROW_LEFT)
    parent = d.until("return document.activeElement?.dataset.flat === '3999' && document.activeElement.dataset.key", 10)
    assert f"{parent}/agent:claude" == last, (parent, last)
    press(d, ARROW_LEFT)
    d.until(f"return document.querySelector('[data-key=\"{parent}\"]')?.getAttribute('aria-expanded') === 'false'", 10)
    assert int(d.js("return document.querySelector('[data-testid=\"tree\"]').dataset.rows")) == 4000
    assert len(d.find_all('[data-testid="tree"] [role="treeitem"]')) <= 120
    press(d, ENTER)
    d.until(f"return document.querySelector('[data-key=\"{parent}\"]')?.getAttribute('aria-selected') === 'true'", 10)
    d.until("return document.querySelectorAll('[data-testid=\"session-row\"]').length === 2", 10)
    d.shot("48-scale-tree-end")
    press(d, HOME)
    d.until("return document.activeElement?.dataset.flat === '0' && document.activeElement.textContent.includes('All sessions')", 10)
    assert len(d.find_all('[data-testid="tree"] [role="treeitem"]')) <= 120


def claude_session(project_name, n, sid, cwd):
    """A Claude session (a prompt and an answer) in `cwd`, written into the e2e's Claude store
    under projects/<project_name>; returns its project folder."""
    project = CLAUDE_ROOT / "projects" / project_name
    project.mkdir(parents=True)
    lines = [
        {"type": "user", "uuid": f"r{n}", "sessionId": sid, "cwd": cwd, "timestamp": f"2026-11-30T0{n}:00:00Z",
         "message": {"role": "user", "content": f"REPO session {n} in {cwd}"}},
        {"type": "assistant", "uuid": f"ra{n}", "parentUuid": f"r{n}", "sessionId": sid, "timestamp": f"2026-11-30T0{n}:00:01Z",
         "message": {"id": f"rm{n}", "model": "claude-x", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}},
    ]
    (project / f"{sid}.jsonl").write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    return project


def tree_counts(d):
    """The tree's nodes in the DOM: key → count."""
    return dict(d.js("return [...document.querySelectorAll('[data-testid=\"tree-node\"]')]"
                     ".map(n => [n.dataset.key, Number(n.querySelector('.count').textContent)])"))


def repo_folding(d):
    tree = lambda: tree_counts(d)  # noqa: E731
    ws = Path(os.path.realpath(TMP)) / "ws"
    app = ws / "app"
    (app / "src").mkdir(parents=True)
    git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=app, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "first"], cwd=app, check=True)
    subprocess.run([*git, "worktree", "add", "-q", "../app-wt", "-b", "feature"], cwd=app, check=True)
    subprocess.run([*git, "worktree", "add", "-q", ".claude/worktrees/x", "-b", "agent-x"], cwd=app, check=True)
    (ws / "app-link").symlink_to(app)
    everything = top_rows(d)
    files = [claude_session(f"-ws-repo-{n}", n, sid, str(ws / rel) + ("/" if rel.endswith("/") else ""))
             for n, (sid, rel) in enumerate(REPO_SESSIONS.items())]
    wait_rows(d, everything + list(REPO_SESSIONS), timeout=30)
    # Unfolded: the repository, its subdirectory and the two worktrees apart; `app/` and the
    # symlink to it are the one directory `app`.
    want = {f"dir:{app}": 3, f"dir:{app}/src": 1, f"dir:{ws}/app-wt": 1, f"dir:{app}/.claude/worktrees/x": 1}
    nodes = tree()
    assert {k: nodes.get(k) for k in want} == want, nodes
    assert not [k for k in nodes if "app-link" in k or k.endswith("app/")], nodes
    d.shot("43-tree-unfolded")
    fold = d.wait_all('[data-testid="fold-repos"]')[0]
    d.click(fold)
    d.until(f"return document.querySelector('[data-testid=\"tree-node\"][data-key=\"dir:{app}\"] .count')?.textContent === '6'")
    nodes = tree()
    # Folded: no worktree or subdirectory at the top; under the repository, its directories
    # (the root, `src`, both worktrees), each with its agents.
    tops = [k for k in nodes if "/agent:" not in k and "/in:" not in k]
    assert not {f"dir:{app}/src", f"dir:{ws}/app-wt", f"dir:{app}/.claude/worktrees/x"} & set(tops), tops
    inside = {f"dir:{app}/in:{app}": 3, f"dir:{app}/in:{app}/src": 1, f"dir:{app}/in:{ws}/app-wt": 1,
              f"dir:{app}/in:{app}/.claude/worktrees/x": 1}
    assert {k: nodes.get(k) for k in inside} == inside, nodes
    assert nodes.get(f"dir:{app}/in:{ws}/app-wt/agent:claude") == 1, nodes
    wait_config("fold_repos = true")
    d.click(d.find_all(f'[data-testid="tree-node"][data-key="dir:{app}"]')[0])
    wait_rows(d, list(REPO_SESSIONS))
    d.shot("44-tree-folded")
    # A directory under the repository selects its own sessions: the git worktree's one.
    d.click(d.find_all(f'[data-testid="tree-node"][data-key="dir:{app}/in:{ws}/app-wt"]')[0])
    wait_rows(d, ["00000000-0000-4000-8000-0000000000f3"])
    d.shot("45-tree-folded-worktree")
    d.click(d.find_all('[data-testid="tree"] .node')[0])  # All sessions
    d.click(fold)
    d.until(f"return !!document.querySelector('[data-testid=\"tree-node\"][data-key=\"dir:{ws}/app-wt\"]')")
    wait_config("fold_repos = false")
    # Gone from the store: gone from the list (the change, not a relist, carries it).
    for project in files:
        shutil.rmtree(project)
    wait_rows(d, everything, timeout=30)


# OpenCode's records of the fixture project's worktrees (opencode.db), none of them on disk here:
# git cannot place them, so only the records fold them under the project's main worktree.
OC_MAIN = "/home/carol/projects/demo"
OC_WORKSPACE = "/home/carol/.local/share/opencode/worktree/d4f8/brave-otter"
OC_SANDBOX = "/home/carol/projects/demo-sandbox"
OC_MOVED = "ses_dd4337372ffe960cW17OpQIBvm"  # an OpenCode session moved into the workspace for the check
OC_WORKTREE_SESSIONS = {  # Claude sessions in the recorded worktrees
    "00000000-0000-4000-8000-0000000000f7": OC_WORKSPACE,
    "00000000-0000-4000-8000-0000000000f8": OC_SANDBOX + "/src/",
}


def opencode_worktree_folding(d):
    db = TMP / "data/opencode/opencode.db"
    everything = top_rows(d)
    with sqlite3.connect(db) as conn:
        project, = conn.execute("SELECT id FROM project").fetchone()
        updated, = conn.execute("SELECT time_updated FROM session WHERE id = ?", (OC_MOVED,)).fetchone()
        conn.execute("UPDATE project SET sandboxes = ?", (json.dumps([OC_SANDBOX]),))
        conn.execute("INSERT INTO workspace (id, type, name, branch, directory, project_id, time_used)"
                     " VALUES ('wrk_e2e', 'worktree', 'brave-otter', 'opencode/brave-otter', ?, ?, 1)", (OC_WORKSPACE, project))
        conn.execute("UPDATE session SET directory = ?, time_updated = ? WHERE id = ?", (OC_WORKSPACE, updated + 1, OC_MOVED))
    files = [claude_session(f"-oc-wt-{n}", n, sid, cwd) for n, (sid, cwd) in enumerate(OC_WORKTREE_SESSIONS.items(), 7)]
    try:
        wait_rows(d, everything + list(OC_WORKTREE_SESSIONS), timeout=30)
        workspace, sandbox = f"dir:{OC_WORKSPACE}", f"dir:{OC_SANDBOX}/src"
        # Unfolded: each recorded worktree is a directory of its own, the moved OpenCode session in the workspace's.
        d.until(f"return document.querySelector('[data-testid=\"tree-node\"][data-key=\"{workspace}\"] .count')?.textContent === '2'")
        nodes = tree_counts(d)
        assert nodes.get(sandbox) == 1 and nodes.get(f"{workspace}/agent:opencode") == 1, nodes
        fold = d.wait_all('[data-testid="fold-repos"]')[0]
        d.click(fold)
        # Folded: both under the project's main worktree, each with its agents; none at the top.
        main = f"dir:{OC_MAIN}"
        d.until(f"return !!document.querySelector('[data-testid=\"tree-node\"][data-key=\"{main}/in:{OC_WORKSPACE}\"]')")
        nodes = tree_counts(d)
        assert workspace not in nodes and sandbox not in nodes, nodes
        inside = {f"{main}/in:{OC_WORKSPACE}": 2, f"{main}/in:{OC_SANDBOX}/src": 1,
                  f"{main}/in:{OC_WORKSPACE}/agent:claude": 1, f"{main}/in:{OC_WORKSPACE}/agent:opencode": 1}
        assert {k: nodes.get(k) for k in inside} == inside, nodes
        d.click(d.find_all(f'[data-testid="tree-node"][data-key="{main}/in:{OC_WORKSPACE}"]')[0])
        wait_rows(d, ["00000000-0000-4000-8000-0000000000f7", OC_MOVED])
        d.shot("46-tree-folded-opencode-worktree")
        d.click(d.find_all('[data-testid="tree"] .node')[0])  # All sessions
        d.click(fold)
        d.until(f"return !!document.querySelector('[data-testid=\"tree-node\"][data-key=\"{workspace}\"]')")
        wait_config("fold_repos = false")
    finally:
        for project in files:
            shutil.rmtree(project)
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE project SET sandboxes = '[]'")
            conn.execute("DELETE FROM workspace WHERE id = 'wrk_e2e'")
            conn.execute("UPDATE session SET directory = ?, time_updated = ? WHERE id = ?", (OC_MAIN, updated, OC_MOVED))
        wait_rows(d, everything, timeout=30)


def notice(d, timeout=15):
    """The notice at the bottom of the window: (kind, text, command to copy or None)."""
    d.until("return !!document.querySelector('[data-testid=\"notice\"]')", timeout)
    return d.js("const n = document.querySelector('[data-testid=\"notice\"]');"
                "return [n.dataset.kind, n.querySelector('[data-testid=\"notice-text\"]').textContent,"
                " n.querySelector('[data-testid=\"notice-copy\"]')?.textContent ?? null]")


def close_notice(d):
    for b in d.find_all('[data-testid="notice-close"]'):
        d.click(b)
    d.until("return !document.querySelector('[data-testid=\"notice\"]')", 5)


def key_(d, k):
    """key(), for where a local `key` hides it."""
    key(d, k)


def key(d, k):
    """Presses `k` with nothing focused (the shortcuts are off while typing)."""
    d.js("document.activeElement?.blur()")
    d.call("POST", d.s("/actions"), {"actions": [{"type": "key", "id": "kbd", "actions": [
        {"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]}]})


def open_session(d, sid):
    d.click(d.wait_all(f'[data-testid="session-row"][data-id="{sid}"]')[0])
    d.until(f"return document.querySelector('[data-testid=\"transcript\"]')?.dataset.total > 0"
            f" && document.querySelector('[data-testid=\"session-row\"].open')?.dataset.id === '{sid}'")


def config_warning(d):
    warnings = d.until("return [...document.querySelectorAll('[data-testid=\"warning\"]')]"
                       ".map(w => w.textContent).filter(t => t.includes('config.toml')).join('\\n')")
    assert f"{CONFIG}:4: ui.group_by: expected one of" in warnings, warnings
    # The broken key kept its default (Directory → Agent), the valid one was used (light).
    assert d.js("return document.querySelector('[data-testid=\"group-mode\"]').value") == "dir-agent"
    assert d.js("return document.documentElement.dataset.theme") == "light"


def terminals(d):
    workdir = str(TMP / TERM_DIR_NAME)
    xterm, claude = str(BIN / "xterm"), str(fake_agent(BIN))
    open_session(d, TERM_SESSION)
    d.click(d.find_all('[data-testid="open-terminal"]')[0])
    kind, text, _ = notice(d)
    assert kind == "ok" and text == f"Opened xterm in {workdir}", (kind, text)
    got = wait_launches(1)
    # xterm has no directory option: it is started in the directory, with no shell string anywhere.
    assert got == [{"argv": [xterm], "cwd": workdir}], got
    d.shot("11-open-terminal")
    close_notice(d)
    d.click(d.find_all('[data-testid="resume-terminal"]')[0])
    kind, text, _ = notice(d)
    assert kind == "ok" and text == f"Resuming in xterm in {workdir}", (kind, text)
    got = wait_launches(2)
    # The agent runs under a constant `sh -c` script that keeps a failure on screen; the
    # session's words are its arguments, never inside its text.
    argv = got[1]["argv"]
    assert got[1]["cwd"] == workdir, got
    assert argv[:4] == [xterm, "-e", "/bin/sh", "-c"], got
    assert argv[5:] == ["agent-sessions", claude, "--resume", TERM_SESSION], got
    assert TERM_SESSION not in argv[4] and workdir not in argv[4], got
    close_notice(d)
    # The keyboard: r resumes the open session.
    key(d, "r")
    assert notice(d)[0] == "ok"
    got = wait_launches(3)
    assert got[2] == got[1], got
    close_notice(d)
    # The list's context menu, on a row.
    row = d.wait_all(f'[data-testid="session-row"][data-id="{TERM_SESSION}"]')[0]
    d.js("const r = arguments[0].getBoundingClientRect();"
         "arguments[0].dispatchEvent(new MouseEvent('contextmenu', {bubbles: true, cancelable: true, clientX: r.x + 20, clientY: r.y + 5}))",
         {ELEMENT: row})
    d.wait_all('[data-testid="session-menu"]')
    d.shot("12-context-menu")
    d.click(d.find_all('[data-testid="menu-open-terminal"]')[0])
    assert notice(d)[0] == "ok"
    got = wait_launches(4)
    assert got[3] == got[0], got
    close_notice(d)
    # No agent on PATH: nothing is launched, and the command to copy is shown instead.
    (BIN / "claude").unlink()
    d.click(d.find_all('[data-testid="resume-terminal"]')[0])
    kind, text, copy = notice(d)
    assert kind == "error" and "claude was not found on PATH" in text, (kind, text)
    assert copy and copy.startswith("cd -- ") and copy.endswith(f"&& claude --resume {TERM_SESSION}"), copy
    d.shot("13-agent-not-found")
    close_notice(d)
    # A session whose directory is gone: refused, never opened somewhere else.
    open_session(d, "9d22e384-6685-4b75-ac35-088162e4c4a9")
    d.click(d.find_all('[data-testid="open-terminal"]')[0])
    kind, text, _ = notice(d)
    assert kind == "error" and "/home/bob/projects/demo no longer exists" in text, (kind, text)
    close_notice(d)
    time.sleep(0.5)
    assert len(launches()) == 4, launches()
    assert not (TMP / TERM_DIR_NAME / "pwned").exists()


def handoff_status(d):
    """The Continue in… menu's status line: (ok, text, command to copy or None)."""
    d.until("return !!document.querySelector('[data-testid=\"handoff-status\"]')", 15)
    return d.js("const s = document.querySelector('[data-testid=\"handoff-status\"]');"
                "return [s.dataset.ok === 'true', s.textContent,"
                " document.querySelector('[data-testid=\"handoff-copy\"]')?.textContent ?? null]")


def handoff(d):
    workdir = str(TMP / TERM_DIR_NAME)
    xterm = str(BIN / "xterm")
    # A codex that records the arguments and directory it is started with.
    record = TMP / "codex-record.json"
    codex = BIN / "codex"
    codex.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                     f"open({str(record)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}))\n")
    codex.chmod(0o755)
    before = len(launches())
    open_session(d, TERM_SESSION)
    d.click(d.find_all('[data-testid="handoff-toggle"]')[0])
    d.wait_all('[data-testid="handoff-menu"]')
    d.shot("13b-handoff-menu")
    d.click(d.find_all('[data-testid="handoff-codex"]')[0])
    ok, text, _ = handoff_status(d)
    assert ok and text == f"Codex CLI continues in xterm ({workdir})", (ok, text)
    got = wait_launches(before + 1)[before]
    # The terminal runs a constant script that hands the prompt file to codex as one argument,
    # held (as Resume in terminal) by the constant script that keeps a failure on screen.
    argv, prompt_file = got["argv"], got["argv"][10]
    assert got["cwd"] == workdir, got
    assert argv[:4] == [xterm, "-e", "/bin/sh", "-c"] and argv[5] == "agent-sessions", argv
    assert "exit status" in argv[4] and workdir not in argv[4], argv
    assert argv[6:10] == ["/bin/sh", "-c", 'p=$(cat -- "$1") && rm -f -- "$1" && shift && exec "$@" "$p"',
                          "agent-sessions-handoff"], argv
    assert argv[11:] == [str(codex)], argv
    prompt = Path(prompt_file).read_text()
    assert oct(Path(prompt_file).stat().st_mode & 0o777) == "0o600", prompt_file
    assert prompt.startswith("This is a handoff. The work below was started in a Claude Code session; you (Codex CLI)"), prompt[:200]
    assert "TERM probe: open me in a terminal" in prompt and "Ready." in prompt, prompt
    # What the terminal would run, run here: codex gets the handoff in the session's directory.
    subprocess.run(argv[2:], cwd=workdir, check=True, timeout=30)
    ran = json.loads(record.read_text())
    assert ran == {"argv": [prompt.rstrip("\n")], "cwd": workdir}, ran
    assert not Path(prompt_file).exists(), "the prompt file was left"
    # Copy: the same handoff, to paste; nothing is started.
    d.click(d.find_all('[data-testid="handoff-toggle"]')[0])
    d.click(d.wait_all('[data-testid="handoff-copy-codex"]')[0])
    d.until("const s = document.querySelector('[data-testid=\"handoff-status\"]');"
            "return s && !s.textContent.includes('continues in')", 15)
    ok, text, _ = handoff_status(d)
    assert ok and text == f"Copied the handoff for Codex CLI ({len(prompt)} characters)", (ok, text)
    # What was copied is that handoff: pasted (Ctrl+V, as a user would) into a scratch field.
    pasted = paste_clipboard(d)
    assert pasted == prompt, (len(pasted), len(prompt))
    # No claude on PATH: nothing is launched, and the command to run by hand is shown.
    (BIN / "claude").unlink(missing_ok=True)
    d.click(d.find_all('[data-testid="handoff-toggle"]')[0])
    d.click(d.wait_all('[data-testid="handoff-claude"]')[0])
    d.until("return document.querySelector('[data-testid=\"handoff-status\"]')?.dataset.ok === 'false'", 15)
    ok, text, copy = handoff_status(d)
    assert not ok and "claude was not found on PATH" in text, (ok, text)
    assert copy and copy.startswith("cd -- ") and copy.endswith("&& claude"), copy
    d.shot("13c-handoff-not-found")
    time.sleep(0.5)
    assert len(launches()) == before + 1, launches()
    assert not (TMP / TERM_DIR_NAME / "pwned").exists()


def paste_clipboard(d):
    """What the clipboard holds, pasted with Ctrl+V (as a user would) into a scratch field."""
    d.js("const t = document.createElement('textarea'); t.id = 'paste-probe'; document.body.append(t); t.focus()")
    xdotool("windowfocus", xdotool("search", "--onlyvisible", "--name", "^agent-sessions$").split()[0])
    try:
        xdotool("key", "--clearmodifiers", "ctrl+v")
        return d.until("return document.getElementById('paste-probe').value", 10)
    finally:
        d.js("document.getElementById('paste-probe').remove()")


def xdotool(*args, timeout=30):
    return subprocess.run(["xdotool", *args], env=dict(os.environ, DISPLAY=f":{DISPLAY}"), capture_output=True,
                          text=True, timeout=timeout, check=True).stdout


def save_dialog(title, path=None):
    """Waits for the native (GTK) save dialog titled `title`; types `path` in it and saves, or
    (no path) cancels it."""
    window = xdotool("search", "--sync", "--onlyvisible", "--name", f"^{title}$").split()[0]
    # (No window manager: --sync would wait for one to confirm the focus.)
    xdotool("windowfocus", window)
    time.sleep(0.5)  # the name field takes focus once the dialog is shown
    if path is None:
        xdotool("key", "Escape")
        return
    xdotool("key", "ctrl+a")
    xdotool("type", "--delay", "10", str(path))
    xdotool("key", "Return")


def run_export(d, fmt, path=None, **opts):
    d.click(d.find_all('[data-testid="export-toggle"]')[0])
    d.click(d.wait_all(f'[data-testid="export-format-{fmt}"]')[0])
    for name, value in opts.items():
        box = d.find_all(f'[data-testid="export-{name}"]')[0]
        if d.js("return arguments[0].checked", {ELEMENT: box}) != value:
            d.click(box)
    d.click(d.find_all('[data-testid="export-save"]')[0])
    save_dialog(f"Export session as { {'markdown': 'Markdown', 'json': 'JSON', 'html': 'HTML'}[fmt]}", path)


def export(d):
    out = TMP / "exports"
    out.mkdir()
    close_notice(d)
    # The window cannot open a dialog (or pick a path) itself: it has none of the plugin's commands.
    refused = d.call("POST", d.s("/execute/async"), {"script": (
        "const done = arguments[arguments.length - 1];"
        "window.__TAURI_INTERNALS__.invoke('plugin:dialog|save', {options: {}}).then(() => done('opened'), (e) => done(String(e)))"),
        "args": []})
    assert "not allowed" in refused, refused
    open_session(d, XSS_SESSION)
    # Cancelled: nothing written, nothing said.
    run_export(d, "markdown")
    d.until("return !document.querySelector('[data-testid=\"export-save\"]')?.disabled", 10)
    assert not list(out.iterdir()) and not d.find_all('[data-testid="notice"]'), "a cancelled export did something"
    d.click(d.find_all('[data-testid="export-toggle"]')[0])  # close the menu
    # HTML, through the dialog, into a folder with a space in its name.
    target = out / "xss export.html"
    run_export(d, "html", target, reasoning=True)
    kind, text, _ = notice(d, 30)
    assert kind == "ok" and text.endswith(f"bytes to {target}"), (kind, text)
    html = target.read_text()
    assert target.stat().st_mode & 0o777 == 0o600, oct(target.stat().st_mode)
    assert html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html, html[:300]
    assert "XSS probe" in html and "<script" not in html.lower() and "<iframe" not in html.lower(), html
    d.shot("14-exported")
    close_notice(d)
    # Markdown too, chosen with the keyboard (e opens the menu).
    key(d, "e")
    d.wait_all('[data-testid="export-menu"]')
    d.click(d.find_all('[data-testid="export-toggle"]')[0])
    run_export(d, "markdown", out / "xss.md")
    kind, text, _ = notice(d, 30)
    assert kind == "ok" and (out / "xss.md").read_text().startswith("# "), (kind, text)
    close_notice(d)
    open_in_webkit(target)


def open_in_webkit(page):
    """Opens `page` in MiniBrowser (WebKitGTK, the engine of the app's window) under
    WebKitWebDriver and checks that nothing in it ran or loaded."""
    browser = Path("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
    assert browser.exists(), f"{browser} is missing (libwebkit2gtk-4.1-0)"
    before = list(TRAP.requests)
    port = free_port()
    env = dict(os.environ, DISPLAY=f":{DISPLAY}", HOME=str(TMP / "home"))
    wd = subprocess.Popen([shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver", f"--port={port}"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    drv = Driver(port)
    try:
        wait_port(port)
        caps = {"capabilities": {"alwaysMatch": {"webkitgtk:browserOptions": {
            "binary": str(browser), "args": ["--automation"]}}}}
        drv.sid = drv.call("POST", "/session", caps)["sessionId"]
        drv.call("POST", drv.s("/url"), {"url": page.as_uri()})
        drv.until("return document.readyState === 'complete'")
        time.sleep(1.5)  # time for a script, an image or a style to do what it would
        assert drv.call("GET", drv.s("/title")) != "XSS-RAN", "a script changed the title"
        assert drv.js("return window.__xss === undefined"), "a payload ran"
        assert "XSS probe" in drv.js("return document.body.textContent")
        assert drv.js("return document.querySelectorAll('script, iframe, img[src^=\"http\"], link[rel=stylesheet], [onerror], [onload]').length") == 0
        drv.shot("15-html-export-in-webkit")
        assert TRAP.requests == before, f"the export loaded {TRAP.requests[len(before):]}"
    finally:
        drv.quit()
        wd.terminate()
        try:
            wd.wait(timeout=5)
        except subprocess.TimeoutExpired:
            wd.kill()


def set_field(d, testid, value):
    """Sets an input, textarea or select of the Settings pane as typing would."""
    el = d.find_all(f'[data-testid="settings"] [data-testid="{testid}"]')[0]
    d.js("const e = arguments[0]; e.value = arguments[1];"
         "e.dispatchEvent(new Event(e.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}))", {ELEMENT: el}, value)


def save_settings(d):
    d.click(d.find_all('[data-testid="settings-save"]')[0])
    d.until("return document.querySelector('[data-testid=\"settings-saved\"]') || document.querySelector('[data-testid=\"settings-error\"]')", 10)
    errors = d.find_all('[data-testid="settings-error"]')
    return d.text(errors[0]) if errors else None


def settings(d):
    rows = lambda: {d.attr(r, "data-id") for r in d.find_all('[data-testid="session-row"]')}
    count = lambda p: d.js(f"return Number(document.querySelector('[data-testid=\"agent-count\"][data-provider=\"{p}\"]').dataset.count)")
    assert BIG_SESSION in rows() and count("opencode") == 7
    d.click(d.find_all('[data-testid="open-settings"]')[0])
    d.wait_all('[data-testid="settings"]')
    problems = d.text(d.find_all('[data-testid="settings-problems"]')[0])
    assert "line 4 · ui.group_by" in problems, problems
    options = d.js("return [...document.querySelectorAll('[data-testid=\"settings-terminal\"] option')].map(o => o.textContent.trim())")
    assert options[0] == "Automatic (xterm)" and "xterm" in options, options
    assert d.text(d.find_all('[data-testid="api-key-state"]')[0]) == "not set"
    # Aider keeps its history in each project: Settings says where it looked, the directories
    # the other agents' sessions ran in (the CLI's scan names the same ones).
    want = sorted({s["cwd"] for s in cli("scan")["sessions"] if s.get("cwd") and s["provider"] != "aider"})
    looked = d.js("const e = document.querySelector('[data-testid=\"settings-looked-near\"]');"
                  "return [Number(e.dataset.count), [...e.querySelectorAll('li')].map(l => l.textContent)]")
    assert want and looked == [len(want), want], (looked, want)
    # A refused value is named and nothing is written.
    set_field(d, "settings-hidden", "relative/dir")
    error = save_settings(d)
    assert error and "ui.hidden_dirs" in error and "absolute" in error, error
    assert CONFIG.read_text() == CONFIG_TEXT
    # Dark theme, a hidden directory, OpenCode off, an API key: applied at once, no restart.
    set_field(d, "settings-hidden", "/home/eve/big\n")
    set_field(d, "settings-theme", "dark")
    opencode = d.find_all('[data-testid="settings-provider"][data-provider="opencode"] [data-testid="provider-enabled"]')[0]
    d.click(opencode)
    d.click(d.find_all('[data-testid="api-key-replace"]')[0])
    key = d.wait_all('[data-testid="settings-api-key"]')[0]
    d.type(key, "sk-e2e-SECRET")
    d.shot("16-settings")
    assert save_settings(d) is None
    text = CONFIG.read_text()
    assert text.startswith("# my agent-sessions settings: this comment must survive the app's edits\n[ui]\n"
                           "theme = \"dark\"   # the screenshots are light"), text
    assert 'group_by = "sideways"' in text and 'hidden_dirs = ["/home/eve/big"]' in text, text
    assert "[providers.opencode]\nenabled = false" in text and 'api_key = "sk-e2e-SECRET"' in text, text
    assert CONFIG.stat().st_mode & 0o777 == 0o600, oct(CONFIG.stat().st_mode)
    # The key is never shown again.
    assert d.js("return document.body.innerHTML.includes('SECRET')") is False
    assert d.text(d.find_all('[data-testid="api-key-state"]')[0]) == "set"
    d.click(d.find_all('[data-testid="settings-close"]')[0])
    assert d.js("return document.documentElement.dataset.theme") == "dark"
    assert d.js("return getComputedStyle(document.body).backgroundColor") == "rgb(27, 29, 33)"
    d.until(f"return !document.querySelector('[data-testid=\"session-row\"][data-id=\"{BIG_SESSION}\"]')", 10)
    assert "dir:/home/eve/big" not in [d.attr(n, "data-key") for n in d.find_all('[data-testid="tree-node"]')]
    # An agent with no sessions listed (here: turned off) has no count in the sidebar.
    d.until("return !document.querySelector('[data-testid=\"agent-count\"][data-provider=\"opencode\"]')", 20)
    d.shot("17-settings-applied-dark")
    # And back: light, nothing hidden, OpenCode read again, the key cleared.
    d.click(d.find_all('[data-testid="open-settings"]')[0])
    d.wait_all('[data-testid="settings"]')
    set_field(d, "settings-hidden", "")
    set_field(d, "settings-theme", "light")
    d.click(d.find_all('[data-testid="settings-provider"][data-provider="opencode"] [data-testid="provider-enabled"]')[0])
    d.click(d.find_all('[data-testid="api-key-clear"]')[0])
    assert save_settings(d) is None
    d.click(d.find_all('[data-testid="settings-close"]')[0])
    text = CONFIG.read_text()
    assert "SECRET" not in text and text.startswith("# my agent-sessions settings"), text
    d.until(f"return !!document.querySelector('[data-testid=\"session-row\"][data-id=\"{BIG_SESSION}\"]')", 10)
    d.until("return document.querySelector('[data-testid=\"agent-count\"][data-provider=\"opencode\"]')?.dataset.count === '7'", 30)
    assert d.js("return document.documentElement.dataset.theme") == "light"
    # Edited in an editor while the app runs: Settings shows the file as it is now (it showed
    # what was read at start), and saving keeps the hand edit.
    before = CONFIG.read_text()
    edit = 'model = "typed-in-an-editor"  # by hand\n'
    CONFIG.write_text(before.replace("[translate]\n", "[translate]\n" + edit, 1) if "[translate]\n" in before
                      else before + "\n[translate]\n" + edit)
    d.js("document.activeElement?.blur()")
    press(d, ",")  # (`key` is the API key field here)
    d.wait_all('[data-testid="settings"]')
    model = d.find_all('[data-testid="settings"] [data-testid="settings-model"]')[0]
    assert d.js("return arguments[0].value", {ELEMENT: model}) == "typed-in-an-editor"
    set_field(d, "settings-language", "French")
    assert save_settings(d) is None
    d.click(d.find_all('[data-testid="settings-close"]')[0])
    text = CONFIG.read_text()
    assert 'model = "typed-in-an-editor"  # by hand' in text and 'language = "French"' in text, text
    CONFIG.write_text(before)  # as the next checks expect it (no [translate] yet)


def context_menu(d, sid):
    row = d.wait_all(f'[data-testid="session-row"][data-id="{sid}"]')[0]
    d.js("const r = arguments[0].getBoundingClientRect();"
         "arguments[0].dispatchEvent(new MouseEvent('contextmenu', {bubbles: true, cancelable: true, clientX: r.x + 20, clientY: r.y + 5}))",
         {ELEMENT: row})
    d.wait_all('[data-testid="session-menu"]')
    return [d.attr(b, "data-testid") for b in d.find_all('[data-testid="session-menu"] button')]


def cli(*args):
    """agent-sessions-cli (the newer of the one beside the app and the debug build: the suite
    drives the release app, and its `cargo test` builds the debug CLI, while a release CLI
    beside it may be left from an older build) on the app's stores and config, with a cache of
    its own; its JSON envelope's data."""
    builds = [p for p in [APP.parent / "agent-sessions-cli", ROOT / "target/debug/agent-sessions-cli"] if p.exists()]
    assert builds, "no agent-sessions-cli built beside the app or in target/debug"
    exe = max(builds, key=lambda p: p.stat().st_mtime)
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(CLAUDE_ROOT), CODEX_HOME=str(TESTDATA / "codex/0.171.0/dot-codex"),
               XDG_DATA_HOME=str(TMP / "data"), HOME=str(TMP / "home"), AGENT_SESSIONS_CONFIG=str(CONFIG),
               AGENT_SESSIONS_CACHE_DIR=str(TMP / "cache-cli"))
    out = subprocess.run([str(exe), *args, "--json"], env=env, capture_output=True, timeout=120)
    envelope = json.loads(out.stdout)
    assert envelope["ok"], envelope
    return envelope["data"]


STATS_FIELDS = {"sessions": "sessions", "messages": "messages", "input": "input", "output": "output",
                "cacheRead": "cache_read", "cacheWrite": "cache_write"}


def home_rows(d, table):
    return d.js("return Object.fromEntries([...document.querySelectorAll(`[data-testid=\"${arguments[0]}-row\"]`)]"
                ".map(r => [r.dataset.key, {sessions: Number(r.dataset.sessions), tokens: Number(r.dataset.tokens), cost: Number(r.dataset.cost)}]))",
                table)


def cli_groups(by):
    return {g["key"]: {"sessions": g["sessions"], "tokens": sum(g["tokens"][k] for k in ("input", "output", "cache_read", "cache_write")),
                       "cost": g["cost_usd"]} for g in cli("stats", "--by", by)["groups"]}


def list_chips(d):
    return d.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"filter-chip\"]')].map(c => [c.dataset.key, c.textContent.trim()]))")


def remove_chips(d):
    while d.find_all('[data-testid="filter-chip"] [data-testid="chip-remove"]'):
        d.click(d.find_all('[data-testid="filter-chip"] [data-testid="chip-remove"]')[0])
        time.sleep(0.2)


def home(d):
    """Home (the Home button closes the transcript): its per-agent, per-model and per-project
    rows and its totals are `stats --json`'s; the heatmap has a year of days, each day's count the
    CLI's by-day figure and the number of sessions the list filtered to that day holds; the per-day chart is drawn with short axes (k/M, $); and a click on an
    agent, a model, a day or a project narrows the list to exactly the sessions behind it."""
    d.click(d.wait_all('[data-testid="open-home"]')[0])
    d.wait_all('[data-testid="home-projects-row"]', timeout=20)
    total = cli("stats", "--by", "agent")["total"]
    shown = d.js("const t = document.querySelector('[data-testid=\"home-totals\"]'); return [Number(t.dataset.sessions), Number(t.dataset.cost)]")
    assert shown[0] == total["sessions"] and abs(shown[1] - total["cost_usd"]) < 1e-6, (shown, total)
    for table, by in [("home-agents", "agent"), ("home-models", "model")]:
        want, got = cli_groups(by), home_rows(d, table)
        assert got and all(k in want and want[k]["sessions"] == v["sessions"] and want[k]["tokens"] == v["tokens"]
                           and abs(want[k]["cost"] - v["cost"]) < 1e-6 for k, v in got.items()), (table, got, want)
    projects, dirs = home_rows(d, "home-projects"), cli_groups("dir")
    busiest = max(v["sessions"] for v in dirs.values())
    assert projects and all(dirs[k]["sessions"] == v["sessions"] for k, v in projects.items()), (projects, dirs)
    assert max(v["sessions"] for v in projects.values()) == busiest, (projects, busiest)
    # A year of days; every day with sessions is the CLI's figure, the days between are there at 0.
    days = d.js("return [...document.querySelectorAll('[data-testid=\"heat-day\"]')].map(c => [c.dataset.day, Number(c.dataset.sessions)])")
    assert 358 <= len(days) <= 371 and days == sorted(days), len(days)
    by_day = {g["key"]: g["sessions"] for g in cli("stats", "--by", "day")["groups"]}
    heat = dict(days)
    assert all(by_day.get(k, 0) == n for k, n in heat.items()), [(k, n, by_day.get(k)) for k, n in heat.items() if by_day.get(k, 0) != n]
    assert sum(heat.values()) == sum(n for k, n in by_day.items() if k in heat) > 0
    # The chart is drawn, its axes short: no number of five digits or more, money with "$".
    ticks = d.until("const c = document.querySelector('[data-testid=\"home-chart-days\"]'); return c?.dataset.yTicks && [c.dataset.yTicks, c.dataset.y1Ticks]", 20)
    assert not re.search(r"\d{5}", ticks[0]) and all(t.startswith("$") for t in ticks[1].split("|")), ticks
    d.shot("01d-home")
    # A click on an agent: the list holds its sessions only (the chip says so), as many as Home counts.
    d.click(d.find_all('[data-testid="home-agents-row"][data-key="codex"] button')[0])
    assert d.until("return document.querySelector('[data-testid=\"filter-chip\"][data-key=\"agent\"]')", 5)
    d.until("const rows = [...document.querySelectorAll('[data-testid=\"session-row\"]')];"
            "return rows.length > 0 && rows.every(r => r.dataset.provider === 'codex')", 10)
    assert d.until("return Number(document.querySelector('[data-testid=\"home-totals\"]')?.dataset.sessions) === 6", 20)
    remove_chips(d)
    # A model: the chip names it.
    model = next(k for k in home_rows(d, "home-models") if k != "(none)")
    d.click(d.find_all(f'[data-testid="home-models-row"][data-key="{model}"] button')[0])
    d.until("return document.querySelector('[data-testid=\"filter-chip\"][data-key=\"model\"]')", 5)
    assert model in list_chips(d)["model"], list_chips(d)
    remove_chips(d)
    # A day: from and until that day.
    busy = max(heat, key=lambda k: heat[k])
    d.click(d.find_all(f'[data-testid="heat-day"][data-day="{busy}"]')[0])
    d.until("return document.querySelector('[data-testid=\"filter-chip\"][data-key=\"until\"]')", 5)
    chips = list_chips(d)
    assert busy in chips["since"] and busy in chips["until"], chips
    # The list filtered to that day holds the sessions the day counted (one definition of a
    # session's day: its last activity).
    assert d.until(f"return Number(document.querySelector('[data-testid=\"home-totals\"]')?.dataset.sessions) === {heat[busy]}", 20)
    remove_chips(d)
    # A project: selected in the tree, the list holds its sessions.
    top = max(projects, key=lambda k: projects[k]["sessions"])
    d.click(d.find_all(f'[data-testid="home-projects-row"][data-key="{top}"] button')[0])
    d.until(f"return document.querySelector('[data-testid=\"tree-node\"][data-key=\"dir:{top}\"]')?.getAttribute('aria-selected') === 'true'", 5)
    d.until("return document.querySelectorAll('[data-testid=\"session-row\"]:not(.child)').length > 0", 5)
    d.js("[...document.querySelectorAll('[data-testid=\"tree\"] button.node')].find(b => b.textContent.includes('All sessions')).click()")
    # All stats: the Stats page in its place, and back.
    d.click(d.find_all('[data-testid="home-stats"]')[0])
    d.wait_all('[data-testid="stats-total"]')
    d.click(d.find_all('[data-testid="stats-close"]')[0])
    d.wait_all('[data-testid="overview"]')


def stats_view(d):
    """The Stats view over the whole list: its totals are the CLI's for every grouping (the app
    refreshes on its own, so the two are compared until they agree or time runs out), the table
    adds up to them, and both charts are drawn."""
    d.click(d.wait_all('[data-testid="open-stats"]')[0])
    d.wait_all('[data-testid="stats-total"]')
    for by in ["dir", "agent", "model", "day"]:
        d.js("const s = document.querySelector('[data-testid=\"stats-by\"]'); s.value = arguments[0];"
             "s.dispatchEvent(new Event('change'))", by)
        want = cli("stats", "--by", by)
        expected = {k: (want["total"][f] if f in ("sessions", "messages") else want["total"]["tokens"][f])
                    for k, f in STATS_FIELDS.items()}
        deadline = time.time() + 20
        while True:
            shown = d.js("const t = document.querySelector('[data-testid=\"stats-total\"]');"
                         "const rows = [...document.querySelectorAll('[data-testid=\"stats-row\"]')].map(r => r.dataset.key);"
                         "return t && {...Object.fromEntries(Object.entries(t.dataset).map(([k, v]) => [k, Number(v)])), rows}")
            got = {k: shown.get(k) for k in STATS_FIELDS} if shown else None
            rows = shown.get("rows") if shown else None
            # The table lists days newest first; the CLI oldest first.
            want_rows = [g["key"] for g in want["groups"]][::-1 if by == "day" else 1]
            if got == expected and rows == want_rows:
                break
            if time.time() > deadline:
                raise AssertionError(f"by {by}: the view shows {got} {rows}, the CLI {expected} {want_rows}")
            time.sleep(0.3)
        assert abs(shown["cost"] - want["total"]["cost_usd"]) < 1e-6, (shown["cost"], want["total"])
        assert expected["sessions"] >= 20 and expected["input"] > 0, expected
        if by == "agent":
            assert rows == [g["key"] for g in want["groups"]] and sorted(rows) == ["claude", "codex", "opencode"], rows
            d.shot("24-stats-by-agent")
        if by == "day":
            # Every day from the first to the last, the table newest first, the charts drawn in
            # time order with every day in them and short axes (k/M, "$").
            dated = [k for k in rows if k != "(none)"]
            first, last = min(dated), max(dated)
            span = (datetime.date.fromisoformat(last) - datetime.date.fromisoformat(first)).days + 1
            assert dated == sorted(dated, reverse=True) and len(dated) == span, (span, dated)
            ticks = d.until("const c = document.querySelector('[data-testid=\"stats-chart-tokens\"]'),"
                            " m = document.querySelector('[data-testid=\"stats-chart-cost\"]');"
                            "return c?.dataset.yTicks && m?.dataset.yTicks && [c.dataset.yTicks, m.dataset.yTicks]", 20)
            assert not re.search(r"\d{5}", ticks[0]) and all(t.startswith("$") for t in ticks[1].split("|")), ticks
    # Both charts drew bars: the canvas is not blank.
    for chart in ["stats-chart-tokens", "stats-chart-cost"]:
        painted = d.js("const c = document.querySelector(`[data-testid=\"${arguments[0]}\"]`);"
                       "const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                       "let n = 0; for (let i = 3; i < px.length; i += 4) if (px[i]) n++; return n", chart)
        assert painted > 500, f"{chart}: {painted} painted pixels"
    # Keyboard: the grouping is focused on opening, Escape closes.
    focused = d.js("return document.activeElement?.outerHTML.slice(0, 120)")
    assert d.js("return document.activeElement?.dataset.testid") == "stats-by", focused
    d.shot("25-stats-by-day")
    key(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"stats\"]')", 5)
    # The list's filters narrow the stats too: Codex only, as `stats --provider codex`.
    if not d.find_all('[data-testid="filter-panel"]'):
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])
    d.js("const s = document.querySelector('[data-testid=\"filter-agent\"]'); s.value = 'codex';"
         "s.dispatchEvent(new Event('change', {bubbles: true}))")
    d.wait_all('[data-testid="filter-chip"][data-key="agent"]')
    d.click(d.find_all('[data-testid="open-stats"]')[0])
    want = cli("stats", "--by", "model", "--provider", "codex")["total"]
    d.js("const s = document.querySelector('[data-testid=\"stats-by\"]'); s.value = 'model'; s.dispatchEvent(new Event('change'))")
    d.until("const t = document.querySelector('[data-testid=\"stats-total\"]');"
            "return t && Number(t.dataset.sessions) === arguments[0] && Number(t.dataset.input) === arguments[1]",
            20, want["sessions"], want["tokens"]["input"])
    # Codex records no cost: its sessions are priced from their tokens, and the figure says so.
    cost = d.js("return [...document.querySelectorAll('[data-testid=\"stats-total\"] dd')].pop()?.textContent")
    assert want["estimated"] > 0 and cost == f"≈ ${want['cost_usd']:.2f}", (cost, want)
    key(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"stats\"]')", 5)
    d.click(d.find_all('[data-testid="filter-chip"][data-key="agent"] [data-testid="chip-remove"]')[0])
    d.until("return !document.querySelector('[data-testid=\"filter-chip\"]')", 5)
    if d.find_all('[data-testid="filter-panel"]'):
        d.click(d.find_all('[data-testid="filters-toggle"]')[0])


def png(width, height):
    """A PNG of a blue-to-orange gradient, made here (zlib and CRCs from the standard library)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"".join(bytes((47 + 200 * x // width, 111, 214 - 180 * x // width)) for x in range(width))
                    for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PIXEL_PNG = png(160, 48)


def diagnostics_panel(d):
    """A line that is not JSON, appended to a session the app lists, shows in the panel under
    its root with its file and line; the root's files read equal the CLI's sessions there."""
    target = CLAUDE_ROOT / "projects/-home-eve-links" / f"{LINK_SESSION}.jsonl"
    image = {"type": "user", "uuid": "l3", "parentUuid": "l2", "sessionId": LINK_SESSION, "timestamp": "2026-11-29T11:00:02Z",
             "message": {"role": "user", "content": [{"type": "text", "text": "IMAGE probe"},
                         {"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml",
                                                      "data": base64.b64encode(PIXEL_PNG).decode()}}]}}
    with target.open("a") as f:
        f.write(json.dumps(image) + "\n{this line is not JSON\n")
    broken_line = len(target.read_text().splitlines())
    d.click(d.wait_all('[data-testid="open-diagnostics"]')[0])
    row = f'[data-testid="diagnostics-skipped"][data-path="{target}"]'
    deadline = time.time() + 20
    while not d.find_all(row):
        assert time.time() < deadline, "the broken line never showed"
        d.click(d.find_all('[data-testid="diagnostics-refresh"]')[0])
        time.sleep(0.5)
    el = d.find_all(row)[0]
    assert d.attr(el, "data-line") == str(broken_line), (d.attr(el, "data-line"), broken_line)
    assert f"-home-eve-links/{LINK_SESSION}.jsonl" in d.text(el) and str(broken_line) in d.text(el), d.text(el)
    claude = f'[data-testid="diagnostics-root"][data-provider="claude"]'
    assert d.attr(d.find_all(claude)[0], "data-root") == str(CLAUDE_ROOT)
    versions = [d.attr(v, "data-version") for v in d.find_all(f'{claude} [data-testid="diagnostics-version"]')]
    assert "2.1.332" in versions, versions
    files = int(d.attr(d.find_all(f'{claude} [data-testid="diagnostics-files"]')[0], "data-count"))
    sessions = [s for s in cli("scan")["sessions"] if s["provider"] == "claude"]
    assert files == len({s["source_path"] for s in sessions}), (files, len(sessions))
    assert d.attr(d.find_all('[data-testid="diagnostics-watcher"]')[0], "data-state") == "watching"
    cache = d.find_all('[data-testid="diagnostics-cache"]')[0]
    assert str(TMP / "cache-main") in d.text(cache) and int(d.attr(cache, "data-bytes")) > 0, d.text(cache)
    d.shot("26-diagnostics")
    # Clear cache asks first; cancelling clears nothing.
    d.click(d.find_all('[data-testid="clear-cache"]')[0])
    d.wait_all('[data-testid="clear-cache-confirm"]')
    d.shot("27-clear-cache-confirm")
    d.click(d.find_all('[data-testid="clear-cache-no"]')[0])
    assert not d.find_all('[data-testid="clear-cache-confirm"]')
    before = sorted(p.name for p in CLAUDE_ROOT.rglob("*"))
    d.click(d.find_all('[data-testid="clear-cache"]')[0])
    d.click(d.wait_all('[data-testid="clear-cache-yes"]')[0])
    d.wait_all('[data-testid="clear-cache-done"]')
    assert sorted(p.name for p in CLAUDE_ROOT.rglob("*")) == before
    d.click(d.find_all('[data-testid="diagnostics-close"]')[0])
    # The list comes back from the stores.
    d.wait_all('[data-testid="session-row"]', count=22, timeout=60)
    settled(d, f'[data-testid="session-row"][data-id="{LINK_SESSION}"]')


def settled(d, css, timeout=15):
    """Waits until the element `css` names stays the same node for a second (a transcript can
    render its messages again just after opening) and returns it."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if d.js("const e = document.querySelector(arguments[0]); if (e) e.__e2e = 1; return !!e", css):
            time.sleep(1)
            if d.js("return document.querySelector(arguments[0])?.__e2e === 1", css):
                return d.find_all(css)[0]
        else:
            time.sleep(0.2)
    raise AssertionError(f"{css} never settled")


def blobs(d):
    """A spilled tool output loads in full; an image shows as the PNG it is, whatever type the
    transcript claimed (here SVG), from a data: URL."""
    sid = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc"
    spilled = CLAUDE_ROOT / "projects/-home-bob-projects-demo" / sid / "tool-results/bd1gkvvug.txt"
    open_session(d, sid)
    button = f'[data-testid="blob"][data-key="tool-results/bd1gkvvug.txt"] [data-testid="blob-load"]'
    # Open the tool as a user does (its summary), then the button, once the list has re-measured.
    summary = '[data-testid="tool"]:has([data-key="tool-results/bd1gkvvug.txt"]) > summary'
    d.click(settled(d, summary))
    d.until("return document.querySelector(arguments[0]).closest('details').open", 5, button)
    d.click(settled(d, button))
    shown = '[data-testid="blob-text"]'
    d.wait_all(shown)
    assert d.js("return document.querySelector(arguments[0]).textContent", shown) == spilled.read_text(), "the spilled output differs"
    d.js("document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", shown)
    d.shot("28-blob-output")
    open_session(d, LINK_SESSION)
    d.click(settled(d, '[data-testid="blob"] [data-testid="blob-load"]'))
    img = d.wait_all('[data-testid="blob-image"]')[0]
    assert d.attr(img, "data-mime") == "image/png"
    assert d.attr(img, "src") == "data:image/png;base64," + base64.b64encode(PIXEL_PNG).decode()
    d.until("const i = document.querySelector('[data-testid=\"blob-image\"]'); return i.naturalWidth === 160 && i.naturalHeight === 48")
    d.shot("29-blob-image")


def allow_delete(d):
    d.click(d.find_all('[data-testid="open-settings"]')[0])
    d.wait_all('[data-testid="settings"]')
    d.click(d.find_all('[data-testid="settings-allow-delete"]')[0])
    assert save_settings(d) is None
    d.click(d.find_all('[data-testid="settings-close"]')[0])


TRASH_OFF = ("Moving sessions to the trash is off. Turn it on in Settings ▸ Destructive actions (the , key), "
             "or set allow_delete = true under [actions] in config.toml.")


def trash_is_off(d, sid):
    """Off, Move to trash… is still shown (a new user could not find it), greyed out, saying
    where to turn it on, and neither a click nor the keyboard opens anything."""
    button = d.find_all('[data-testid="trash-open"]')[0]
    assert (d.attr(button, "aria-disabled"), d.attr(button, "title")) == ("true", TRASH_OFF)
    d.click(button)
    # A click says where to turn it on (it did nothing visible).
    kind, text, _ = notice(d)
    assert (kind, text) == ("error", TRASH_OFF), (kind, text)
    close_notice(d)
    assert context_menu(d, sid)[-1] == "menu-trash"
    item = d.find_all('[data-testid="menu-trash"]')[0]
    words = d.js("return [...arguments[0].querySelectorAll('span')].map(s => s.textContent)", {ELEMENT: item})
    assert (d.attr(item, "aria-disabled"), d.attr(item, "title"), words) == ("true", TRASH_OFF, ["Move to trash…", "off"]), words
    d.click(item)
    # The keyboard reaches it (Up from the first item wraps to it), and Enter does nothing.
    d.js("document.querySelector('[data-testid=\"menu-resume-terminal\"]').focus()")
    press(d, "\ue013")
    assert d.js("return document.activeElement.dataset.testid") == "menu-trash"
    press(d, ENTER)
    time.sleep(1)
    assert d.find_all('[data-testid="session-menu"]'), "the menu closed as if an action were chosen"
    assert not d.find_all('[data-testid="trash-dialog"]'), "a trash that is off opened its dialog"
    d.shot("19b-trash-off")
    key(d, "\ue00c")  # Escape closes the menu
    d.until("return !document.querySelector('[data-testid=\"session-menu\"]')", 5)


def trash(d):
    """Off, Move to trash… is greyed out saying where to turn it on; on (Settings), the header
    and the list offer it, the dialog lists exactly the files, and confirming moves them to
    $XDG_DATA_HOME/Trash (freedesktop) and drops the row at once; a session written just now is
    refused in the dialog."""
    sid = "7938f0db-aeb3-409b-ab80-42085a5431da"
    transcript = CLAUDE_ROOT / "projects/-home-bob-projects-demo" / f"{sid}.jsonl"
    open_session(d, sid)
    trash_is_off(d, sid)
    allow_delete(d)
    assert "allow_delete = true" in CONFIG.read_text()
    assert "menu-trash" in context_menu(d, sid)
    item = d.find_all('[data-testid="menu-trash"]')[0]
    words = d.js("return [...arguments[0].querySelectorAll('span')].map(s => s.textContent)", {ELEMENT: item})
    assert d.attr(item, "aria-disabled") is None and words == ["Move to trash…"], words
    key(d, "\ue00c")  # Escape closes the menu
    assert d.attr(d.find_all('[data-testid="trash-open"]')[0], "aria-disabled") is None
    d.click(d.wait_all('[data-testid="trash-open"]')[0])
    steps = [d.text(e) for e in d.wait_all('[data-testid="trash-step"]')]
    assert steps == [f"To the trash {transcript} ({transcript.stat().st_size / 1024:.1f} KiB)"], steps
    d.shot("20-trash-dialog")
    d.click(d.find_all('[data-testid="trash-confirm"]')[0])
    d.until("return !document.querySelector('[data-testid=\"trash-dialog\"]')", 20)
    d.until(f"return !document.querySelector('[data-testid=\"session-row\"][data-id=\"{sid}\"]')", 5)
    kind, text, _ = notice(d)
    # It names the session and where it can be had back.
    assert kind == "ok" and text == ("Moved to the trash: “EDIT create and edit hello.txt”; it can be restored "
                                      "from your desktop's Trash"), text
    close_notice(d)
    trash_dir = TMP / "data/Trash"
    assert not transcript.exists()
    assert (trash_dir / "files" / f"{sid}.jsonl").is_file()
    info = (trash_dir / "info" / f"{sid}.jsonl.trashinfo").read_text()
    assert f"Path={transcript}" in info, info
    # The worker's rescan does not bring it back.
    time.sleep(3)
    assert not d.find_all(f'[data-testid="session-row"][data-id="{sid}"]')
    # Written just now: refused in the dialog, nothing to confirm (opened from the list's menu).
    recent = "00000000-0000-4000-8000-0000000000d1"
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = {"type": "user", "uuid": "r1", "sessionId": recent, "cwd": "/home/bob/projects/demo", "timestamp": now,
            "message": {"role": "user", "content": "RECENT written a moment ago"}}
    (CLAUDE_ROOT / "projects/-home-bob-projects-demo" / f"{recent}.jsonl").write_text(json.dumps(line) + "\n")
    d.wait_all(f'[data-testid="session-row"][data-id="{recent}"]', timeout=30)
    context_menu(d, recent)
    d.click(d.find_all('[data-testid="menu-trash"]')[0])
    error = d.text(d.wait_all('[data-testid="trash-error"]')[0])
    assert "10 minutes" in error, error
    assert d.js("return document.querySelector('[data-testid=\"trash-confirm\"]').disabled") is True
    d.shot("21-trash-refused")
    d.click(d.find_all('[data-testid="trash-cancel"]')[0])
    assert (CLAUDE_ROOT / "projects/-home-bob-projects-demo" / f"{recent}.jsonl").exists()


def location_dialog(title, path):
    """Waits for the native (GTK) open or folder dialog titled `title` and chooses `path` by
    typing it in its location field."""
    window = xdotool("search", "--sync", "--onlyvisible", "--name", f"^{title}$").split()[0]
    xdotool("windowfocus", window)
    time.sleep(0.5)
    xdotool("key", "ctrl+l")
    time.sleep(0.3)
    xdotool("type", "--delay", "10", str(path))
    time.sleep(0.3)
    xdotool("key", "Return")


def bundle_round_trip(d):
    """Export a Claude session as a complete bundle (save dialog), import it (open dialog), pick a
    new directory (folder dialog), continue it in Codex there (nothing restored), preview, restore as a copy (its id is in the store already):
    the restored session is listed at once with the same message count, in the new directory."""
    sid = "9d22e384-6685-4b75-ac35-088162e4c4a9"
    out = TMP / "bundles"
    out.mkdir()
    close_notice(d)
    open_session(d, sid)
    d.click(d.find_all('[data-testid="export-toggle"]')[0])
    d.click(d.wait_all('[data-testid="export-format-bundle"]')[0])
    assert d.find_all('[data-testid="export-bundle-warning"]'), "no warning that a complete bundle can hold secrets"
    # Share-safe shows what it would redact before saving (the fixture's home paths).
    d.click(d.find_all('[data-testid="export-bundle-share-safe"]')[0])
    d.until("return document.querySelector('[data-testid=\"export-bundle-redaction\"]')?.textContent.includes('home path')", 20)
    d.click(d.find_all('[data-testid="export-bundle-complete"]')[0])
    d.click(d.find_all('[data-testid="export-save"]')[0])
    target = out / "demo.agent-session.zip"
    save_dialog("Export session as a bundle", target)
    kind, text, _ = notice(d, 30)
    assert kind == "ok" and text.endswith(f"bytes to {target}"), (kind, text)
    assert target.stat().st_mode & 0o777 == 0o600, oct(target.stat().st_mode)
    close_notice(d)
    newdir = TMP / "restored project"
    newdir.mkdir()
    d.click(d.find_all('[data-testid="import-open"]')[0])
    location_dialog("Import a session bundle", target)
    summary = d.text(d.wait_all('[data-testid="import-summary"]', timeout=20)[0])
    assert "complete bundle" in summary and "/home/bob/projects/demo" in summary, summary
    # What it unpacks to, beside its size (issue 29 finding 6).
    assert re.search(r"of [\d,]+ bytes, unpacking to [\d,]+ bytes", summary), summary
    d.click(d.find_all('[data-testid="import-browse"]')[0])
    location_dialog("Restore the session into", newdir)
    d.until(f"return document.querySelector('[data-testid=\"import-dir\"]').value === {json.dumps(str(newdir))}", 20)
    # Continue in… starts the agent there with a handoff from the bundle's transcript; nothing
    # is restored and nothing written in the directory (the codex on PATH is the fake's).
    before = len(launches())
    d.click(d.find_all('[data-testid="import-continue-codex"]')[0])
    status = d.text(d.wait_all('[data-testid="import-continued"]', timeout=20)[0])
    assert status == f"Codex CLI continues in xterm ({newdir})", status
    got = wait_launches(before + 1)[before]
    assert got["cwd"] == str(newdir) and got["argv"][-1].endswith("codex"), got
    # The prompt file follows the handoff script's name (the launch is held: see handoff()).
    argv = got["argv"]
    prompt = Path(argv[argv.index("agent-sessions-handoff") + 1]).read_text()
    assert prompt.startswith("This is a handoff. The work below was started in a Claude Code session; you (Codex CLI)"), prompt[:200]
    assert not any(newdir.iterdir()), list(newdir.iterdir())
    d.shot("22a-import-continue")
    # The id is in this store already: the preview refuses, a copy is allowed.
    d.click(d.find_all('[data-testid="import-preview-button"]')[0])
    error = d.text(d.wait_all('[data-testid="import-error"]', timeout=20)[0])
    assert sid in error, error
    d.click(d.find_all('[data-testid="import-as-copy"]')[0])
    d.click(d.find_all('[data-testid="import-preview-button"]')[0])
    shown = d.text(d.wait_all('[data-testid="import-preview"]', timeout=20)[0])
    assert str(newdir) in shown and "as a copy" in shown, shown
    assert "Into the Claude Code store" in shown, shown  # the agent's name, not its key ("claude")
    d.shot("22-import-preview")
    d.click(d.find_all('[data-testid="import-restore"]')[0])
    d.until("return !document.querySelector('[data-testid=\"import-dialog\"]')", 30)
    kind, text, _ = notice(d, 30)
    assert kind == "ok" and text.startswith("Restored the claude session ") and str(newdir) in text, (kind, text)
    new_id = text.split()[4]
    assert new_id != sid, text
    d.until(f"return document.querySelector('[data-testid=\"session-row\"].open')?.dataset.id === '{new_id}'", 20)
    header = d.text(d.find_all('[data-testid="header-counts"]')[0])
    assert header.startswith("8 msgs"), header
    labels = [d.attr(n, "data-key") for n in d.find_all('[data-testid="tree-node"]')]
    assert f"dir:{newdir}" in labels, labels
    d.shot("23-imported")
    close_notice(d)


class FakeTranslator:
    """An OpenAI-compatible /chat/completions on 127.0.0.1 that records what it is sent and
    answers with `reply` (or HTTP `status`, echoing the key it got, as a careless server might)."""

    def __init__(self):
        self.requests = []
        self.reply = "Xin chào: đây là bản dịch."
        self.status = 200
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                      "body": json.loads(body)})
                if fake.status == 200:
                    answer = {"model": "e2e-model-1", "choices": [{"message": {"role": "assistant", "content": fake.reply},
                                                                   "finish_reason": "stop"}]}
                else:
                    answer = {"error": {"message": f"Incorrect API key provided: {self.headers.get('Authorization')}"}}
                data = json.dumps(answer).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def translation(d):
    """Translate on one message: not set up, it says so and sends nothing; set up in config.toml
    (read again by the app for each translation), exactly that message's text goes to the local
    endpoint and the answer shows under the original; a refused key never reaches the window."""
    server = FakeTranslator()
    try:
        open_session(d, TERM_SESSION)
        user = '[data-testid="message"][data-id="t1"]'
        # Not set up: no Translate button at all (a click only said it was not set up).
        d.wait_all(f'{user} [data-testid="markdown"]')
        assert not d.find_all('[data-testid="translate"]'), "Translate offered before translation is set up"
        assert server.requests == [], server.requests
        # Set up in the file, as an editor would: no restart.
        key = "sk-e2e-translate-SECRET"
        lines = f'base_url = "{server.base}"\napi_key = "{key}"\nmodel = "e2e-model"\n'
        text = CONFIG.read_text()
        text = text.replace("[translate]\n", "[translate]\n" + lines, 1) if "[translate]\n" in text else text + "\n[translate]\n" + lines
        CONFIG.write_text(text)
        # The window reads the file again when Settings opens (as after an editor's change).
        key_(d, ",")
        d.wait_all('[data-testid="settings"]')
        d.click(d.find_all('[data-testid="settings-close"]')[0])
        d.click(d.wait_all(f'{user} [data-testid="translate"]')[0])
        shown = d.wait_all(f'{user} [data-testid="translation-text"]', timeout=30)[0]
        assert d.text(shown) == server.reply, d.text(shown)
        # Under the original: after the message's own text, inside the same message.
        assert d.js("const m = document.querySelector(arguments[0]); const md = m.querySelector('[data-testid=\"markdown\"]');"
                    "const t = m.querySelector('[data-testid=\"translation\"]');"
                    "return !!(md.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)", user)
        assert len(server.requests) == 1, server.requests
        got = server.requests[0]
        assert got["path"] == "/v1/chat/completions" and got["authorization"] == f"Bearer {key}", got
        assert got["body"]["model"] == "e2e-model", got
        messages = got["body"]["messages"]
        assert [m["role"] for m in messages] == ["system", "user"] and "into Vietnamese" in messages[0]["content"], messages
        assert messages[1]["content"] == "TERM probe: open me in a terminal", messages
        assert "Ready." not in json.dumps(got["body"]) and TERM_SESSION not in json.dumps(got["body"]), got
        d.shot("18-translation")
        # The endpoint refuses the key (and echoes it): a clear error, the key nowhere in the window.
        server.status = 401
        answer = '[data-testid="message"][data-role="assistant"]'
        d.click(d.find_all(f'{answer} [data-testid="translate"]')[0])
        error = d.wait_all(f'{answer} [data-testid="translation-error"]', timeout=30)[0]
        assert d.attr(error, "data-code") == "translate_unauthorized", d.text(error)
        assert "refused the API key (HTTP 401)" in d.text(error), d.text(error)
        assert server.requests[1]["body"]["messages"][1]["content"] == "Ready.", server.requests[1]
        assert d.js("return document.body.innerHTML.includes('SECRET')") is False
        d.shot("19-translation-refused")
    finally:
        server.stop()


def empty_state(d):
    d.wait_all('[data-testid="empty-state"]', timeout=30)
    # It says where it looked, and where to go when the sessions are elsewhere.
    looked = d.text(d.wait_all('[data-testid="empty-roots"]')[0])
    assert all(str(TMP / "none" / p) in looked for p in ["claude", "codex", "data/opencode"]), looked
    assert "Settings" in looked and "Import bundle" in looked, looked
    # No ssh config here: the picker says where other machines come from.
    none = d.text(d.wait_all('[data-testid="host-none"]')[0])
    assert "Host entries of" in none and ".ssh/config" in none, none
    placeholder = d.js("return document.querySelector('[data-testid=\"placeholder\"]').textContent")
    assert "right click" not in placeholder and "Choose a session" not in placeholder, placeholder
    d.shot("09-empty-state")
    d.click(d.wait_all('[data-testid="open-demo"]')[0])
    rows = d.wait_all('[data-testid="session-row"]', count=10, timeout=60)
    assert len(rows) >= 10, len(rows)
    # Every session of every fixture version of the agents added after the first three
    # (testdata/<agent>/*/EXPECTED.json, children included): Gemini CLI 5 + 6 + 6 + 6 (0.28.2,
    # 0.38.2, 0.39.1, 0.61.0), Qwen Code 5 + 5 + 6 (0.1.4, 0.5.2, 0.24.4), Cline 2.18.0 and 3.0.65,
    # GitHub Copilot CLI's three generations, Aider's runs in the two recorded repositories.
    want = {name: sum(len(json.loads(f.read_text())["sessions"])
                      for f in (TESTDATA / name).glob("*/EXPECTED.json"))
            for name in ["gemini", "qwen", "cline", "copilot", "aider"]}
    assert want == {"gemini": 23, "qwen": 16, "cline": 10, "copilot": 8, "aider": 6}, want
    counts = ("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"agent-count\"]')]"
              ".map(e => [e.dataset.provider, Number(e.dataset.count)]))")
    try:
        d.until(f"const c = ({counts.removeprefix('return ')}); "
                f"return {' && '.join(f'c.{k} === {v}' for k, v in want.items())}", 60)
    except AssertionError:
        raise AssertionError(f"demo store counts: {d.js(counts)}, want {want}")
    # Home's tables fit their pane with eight agents and the fixtures' long titles: nothing
    # scrolls sideways, and each table's last column ends inside the pane.
    d.wait_all('[data-testid="home-agents-row"]', count=8, timeout=30)
    fit = d.js("const h = document.querySelector('.home'), r = h.getBoundingClientRect();"
               "return {scroll: h.scrollWidth, client: h.clientWidth, "
               "out: [...h.querySelectorAll('table td:last-child')].filter(td => td.getBoundingClientRect().right > r.right + 1).length}")
    assert fit["scroll"] <= fit["client"] + 1 and fit["out"] == 0, fit
    d.shot("10-demo-store")


# Ids are unique only per agent: a Codex session may carry a Claude one's id (the bench corpus
# does; a copied store can). The Codex fixture's rollout below is given this Claude session's id.
SAME_ID = "9d22e384-6685-4b75-ac35-088162e4c4a9"
SAME_ID_CODEX = "01a22bc4-d63a-7983-80d0-f3d6ee14c936"
SAME_ID_ROLLOUT = f"codex/0.171.0/dot-codex/sessions/2026/11/30/rollout-2026-11-30T09-24-09-{SAME_ID_CODEX}.jsonl"


def same_id_store(codex_home):
    """A Codex store holding one fixture rollout renamed, inside and out, to SAME_ID."""
    day = codex_home / "sessions/2026/11/30"
    day.mkdir(parents=True)
    text = (TESTDATA / SAME_ID_ROLLOUT).read_text().replace(SAME_ID_CODEX, SAME_ID)
    (day / f"rollout-2026-11-30T09-24-09-{SAME_ID}.jsonl").write_text(text)


def same_id_row(d, provider):
    return d.wait_all(f'[data-testid="session-row"][data-id="{SAME_ID}"][data-provider="{provider}"]')[0]


def marked_open(d):
    """(provider, id) of every row marked open, by its class and by aria-selected."""
    return d.js("return [...document.querySelectorAll('[data-testid=\"session-row\"]')]"
                ".filter(r => r.classList.contains('open') || r.getAttribute('aria-selected') === 'true')"
                ".map(r => [r.dataset.provider, r.dataset.id])")


def shows_own_transcript(d, provider, own, other):
    """The transcript shown is `provider`'s: its own text, not the other session's, and only its
    row is marked open."""
    d.until("const t = document.querySelector('[data-testid=\"transcript\"]');"
            " return t?.dataset.total > 0 && t.innerText.includes(arguments[0])", 20, own)
    text = d.js("return document.querySelector('[data-testid=\"transcript\"]').innerText")
    assert other not in text, f"the {provider} row shows the other session's text"
    assert marked_open(d) == [[provider, SAME_ID]], marked_open(d)


def same_id_sessions(d):
    """A Claude and a Codex session with one id: each row opens its own transcript and only it is
    marked open, by click, by the keyboard and from a search hit."""
    claude_text, codex_text = "CHAT and after compaction?", "The helper agent finished; main.py has 1 line."
    d.until(f"return document.querySelectorAll('[data-testid=\"session-row\"][data-id=\"{SAME_ID}\"]').length === 2", 60)
    d.click(same_id_row(d, "codex"))
    shows_own_transcript(d, "codex", codex_text, claude_text)
    d.shot("60-same-id-codex")
    d.click(same_id_row(d, "claude"))
    shows_own_transcript(d, "claude", claude_text, codex_text)
    # The cursor follows the row opened: Enter opens the Claude row again, not the Codex one.
    key(d, ENTER)
    shows_own_transcript(d, "claude", claude_text, codex_text)
    # A search hit in the Codex session opens the Codex session.
    d.click(search_hits(d, "helper agent finished", '[data-provider="codex"]')[0])
    d.until("return document.querySelector('[data-testid=\"transcript\"]')?.innerText.includes(arguments[0])", 20, codex_text)
    d.shot("61-same-id-search")
    close_search(d)  # the rows are under the results
    shows_own_transcript(d, "codex", codex_text, claude_text)


def close_search(d):
    """Closes the search results (they stay open beside the transcript while hits are opened)."""
    d.click(d.find_all('[data-testid="search-close"]')[0])
    d.until("return !document.querySelector('[data-testid=\"search-results\"]')", 5)


def search_palette(d):
    """Ctrl-K opens the search; results come one group per session with its hit count, agent,
    project and date, by relevance or recency; opening a hit keeps them open beside the
    transcript, its message marked; n / N step through the hits; a hit in a subagent reveals it
    under its parent in the list; Escape closes the results and empties the box."""
    d.js("document.activeElement?.blur()")
    d.call("POST", d.s("/actions"), {"actions": [{"type": "key", "id": "kbd", "actions": [
        {"type": "keyDown", "value": "\ue009"}, {"type": "keyDown", "value": "k"},
        {"type": "keyUp", "value": "k"}, {"type": "keyUp", "value": "\ue009"}]}]})
    assert d.js("return document.activeElement?.dataset.testid") == "search-input"
    search_hits(d, "main.py")
    groups = d.js("return [...document.querySelectorAll('[data-testid=\"search-group\"]')].map(g => ({id: g.dataset.provider + ':' + g.dataset.id,"
                  " hits: g.querySelectorAll('[data-testid=\"search-hit\"]').length, count: g.querySelector('[data-testid=\"search-group-count\"]').textContent,"
                  " updated: g.dataset.updated, meta: ['badge', 'project', 'when'].filter(c => g.querySelector('.group-meta .' + c)?.textContent.trim())}))")
    ids = [g["id"] for g in groups]
    assert len(ids) == len(set(ids)) > 1, ids
    assert any(g["hits"] > 1 for g in groups), groups
    for g in groups:
        assert g["count"] == f"{g['hits']} hit{'' if g['hits'] == 1 else 's'}", g
        assert g["meta"] == ["badge", "project", "when"], g  # agent, project and date
    d.click(d.find_all('[data-testid="search-order-recency"]')[0])
    recent = d.js("return [...document.querySelectorAll('[data-testid=\"search-group\"]')].map(g => g.dataset.updated || '')")
    assert recent == sorted(recent, reverse=True) and sorted(recent) == sorted(g["updated"] or "" for g in groups), recent
    d.click(d.find_all('[data-testid="search-order-relevance"]')[0])
    # Each hit in the order shown: its message (none for a hit in the title).
    messages = d.js("return [...document.querySelectorAll('[data-testid=\"search-hit\"]')].map(h => h.dataset.message)")
    at = next(i for i, m in enumerate(messages) if m and i + 1 < len(messages))
    current = ("return [...document.querySelectorAll('[data-testid=\"search-hit\"]')]"
               ".findIndex(h => h.getAttribute('aria-current') === 'true')")
    marked = ("return document.querySelector('[data-testid=\"transcript\"] .slot[data-hit=\"true\"] [data-testid=\"message\"]')"
              "?.dataset.id === arguments[0]")

    def shows(i):
        d.until(f"{current[:6]} ({current[7:]}) === {i}", 10)
        assert d.find_all('[data-testid="search-results"]'), "the results closed when a hit was opened"
        if messages[i]:  # its message is scrolled to and marked
            d.until(marked, 20, messages[i])

    d.click(d.find_all('[data-testid="search-hit"]')[at])
    shows(at)
    key(d, "n")
    shows(at + 1)
    key(d, "N")
    shows(at)
    d.shot("03d-search-palette")
    # A hit in a subagent: its transcript opens; closed, the list shows it under its parent.
    hits = search_hits(d, "report the number", '[data-id^="agent-"]')
    d.click(hits[0])
    d.until("return document.querySelector('[data-testid=\"transcript\"]')?.textContent.includes('Count the lines in main.py and report the number')", 20)
    d.click(d.find_all('[data-testid="search-input"]')[0])
    press(d, "\ue00c")
    d.until("return !document.querySelector('[data-testid=\"search-results\"]')", 5)
    assert d.js("return document.querySelector('[data-testid=\"search-input\"]').value") == "", "the closed search kept its text"
    d.until("const o = document.querySelector('[data-testid=\"session-row\"].open'); return o && o.dataset.id.startsWith('agent-')"
            " && o.getAttribute('aria-level') === '2'", 10)
    d.shot("03e-subagent-revealed")
    # The subagent links back to its parent.
    d.click(d.wait_all('[data-testid="parent-link"]')[0])
    d.until("return document.querySelector('[data-testid=\"session-row\"].open')?.dataset.id === '3783a6bc-cd8d-4c58-9da5-ce5411d3487a'", 10)
    # Folded again: the checks after this one count the list's rows.
    d.js("document.querySelector('[data-testid=\"session-row\"][data-id=\"3783a6bc-cd8d-4c58-9da5-ce5411d3487a\"]')"
         ".parentElement.querySelector('.subs').click()")
    d.until("return !document.querySelector('[data-testid=\"session-row\"][aria-level=\"2\"]')", 5)


def search_state(d):
    """A first search on a big history takes a while (a minute on 300 MB in a debug build, every
    session read directly) and the window said nothing meanwhile; the count said "results for"
    whatever the box held since; two searches in a row showed the answer that came last."""
    box = d.find_all('[data-testid="search-input"]')[0]
    d.js("""window.__searching = [];
        new MutationObserver(() => { const e = document.querySelector('[data-testid="search-searching"]');
          if (e) window.__searching.push(e.textContent); })
          .observe(document.body, {childList: true, subtree: true, characterData: true});""")
    d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {ELEMENT: box})
    d.type(box, "drwxr\ue007")
    d.until("return document.querySelector('[data-testid=\"search-count\"]')?.textContent.endsWith('“drwxr”')"
            " && !document.querySelector('[data-testid=\"search-searching\"]')")
    seen = d.js("return window.__searching")
    assert any(t.startswith("Searching for “drwxr”…") for t in seen), seen
    d.type(box, " more")  # typed, not searched
    count = d.text(d.find_all('[data-testid="search-count"]')[0])
    assert count.endswith("results for “drwxr”"), count
    # Two searches in a row, the first answered last (held 1.5 s on its way back): the second's
    # answer stays.
    d.js("""const inner = window.__TAURI_INTERNALS__, invoke = inner.invoke.bind(inner);
        window.__realInvoke = invoke;
        inner.invoke = (cmd, args, opts) => cmd === 'search' && args.query === 'drwxr'
          ? invoke(cmd, args, opts).then((r) => new Promise((ok) => setTimeout(() => ok(r), 1500)))
          : invoke(cmd, args, opts);""")
    try:
        d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {ELEMENT: box})
        d.type(box, "drwxr\ue007")
        d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {ELEMENT: box})
        d.type(box, "zzqx\ue007")
        d.until("return document.querySelector('[data-testid=\"search-count\"]')?.textContent === '0 results for “zzqx”'")
        time.sleep(2.5)
        count = d.text(d.find_all('[data-testid="search-count"]')[0])
        assert count == "0 results for “zzqx”" and not d.find_all('[data-testid="search-hit"]'), count
    finally:
        d.js("window.__TAURI_INTERNALS__.invoke = window.__realInvoke")
    d.shot("03c-search-state")
    d.click(d.find_all('[data-testid="search-results"] .toolbar button')[0])
    d.until("return !document.querySelector('[data-testid=\"search-results\"]')")


def search_hits(d, query, which=""):
    """Searches for `query` (again, until the hits come: the index may still be filling) and
    returns the hits of the sessions whose result group matches the selector suffix `which`;
    fails after a minute without any."""
    box = d.find_all('[data-testid="search-input"]')[0]
    deadline = time.time() + 60
    while True:
        d.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", {ELEMENT: box})
        d.type(box, query + "\ue007")
        time.sleep(0.5)
        hits = d.find_all(f'[data-testid="search-group"]{which} [data-testid="search-hit"]')
        if hits or time.time() > deadline:
            break
    assert hits, f"no search hit for {query!r} {which}"
    return hits


# Ids are unique per agent only in theory: a Claude project folder copied beside itself lists one
# session from two files. This fixture session is copied under a second project folder, its prompt
# edited, so the two rows read differently.
SAME_FILE_ID = "67e40764-2970-47cf-8c8e-1638ddecc58d"
SAME_FILE_TEXT, SAME_FILE_COPY_TEXT = "TODO plan the work", "COPIED plan the work of the copy"


def same_file_store(claude_home):
    """Copies SAME_FILE_ID's transcript under a second project folder with its prompt edited:
    (the original's path, the copy's)."""
    original = claude_home / f"projects/-home-bob-projects-demo/{SAME_FILE_ID}.jsonl"
    copy = claude_home / f"projects/-home-bob-projects-demo-copy/{SAME_FILE_ID}.jsonl"
    copy.parent.mkdir(parents=True)
    text = original.read_text()
    assert SAME_FILE_TEXT in text, "the fixture changed"
    copy.write_text(text.replace(SAME_FILE_TEXT, SAME_FILE_COPY_TEXT))
    return original, copy


def same_file_sessions(d, original, copy):
    """Both files of one Claude session are rows; clicking either shows its own file's text (not
    the other's) and marks only that row open (the rows carry their file as data-path)."""
    rows = f'[data-testid="session-row"][data-id="{SAME_FILE_ID}"]'
    d.until(f"return document.querySelectorAll('{rows}').length === 2", 60)
    marked = ("return [...document.querySelectorAll('[data-testid=\"session-row\"]')]"
              ".filter(r => r.classList.contains('open') || r.getAttribute('aria-selected') === 'true')"
              ".map(r => r.dataset.path)")
    for path, own, other in [(copy, SAME_FILE_COPY_TEXT, SAME_FILE_TEXT), (original, SAME_FILE_TEXT, SAME_FILE_COPY_TEXT),
                             (copy, SAME_FILE_COPY_TEXT, SAME_FILE_TEXT)]:
        d.click(d.wait_all(f'{rows}[data-path="{path}"]')[0])
        d.until("const t = document.querySelector('[data-testid=\"transcript\"]');"
                " return t?.dataset.total > 0 && t.innerText.includes(arguments[0])", 20, own)
        text = d.js("return document.querySelector('[data-testid=\"transcript\"]').innerText")
        assert other not in text, f"the row of {path} shows the other file's text"
        assert d.js(marked) == [str(path)], d.js(marked)
    d.shot("61-same-file")
    # A search hit names its file: a hit found only in one copy opens that copy.
    for query, own, other in [(f'"{SAME_FILE_TEXT}"', SAME_FILE_TEXT, SAME_FILE_COPY_TEXT),
                              ("COPIED", SAME_FILE_COPY_TEXT, SAME_FILE_TEXT)]:
        d.click(search_hits(d, query)[0])
        d.until("const t = document.querySelector('[data-testid=\"transcript\"]');"
                " return t?.innerText.includes(arguments[0])", 20, own)
        text = d.js("return document.querySelector('[data-testid=\"transcript\"]').innerText")
        assert other not in text, f"the hit for {query} opened the other file"
    d.shot("62-same-file-search")
    close_search(d)


def same_file_resume(d, original, copy):
    """`claude --resume <id>` names no file: Claude Code opens the one in its directory's own
    project folder, the original. The copy's "Copy resume command" shows the refusal naming the
    original (and copies nothing); the original's shows the command."""
    rows = f'[data-testid="session-row"][data-id="{SAME_FILE_ID}"]'
    error = "const e = document.querySelector('[data-testid=\"action-error\"]'); return e?.innerText || ''"
    d.click(d.wait_all(f'{rows}[data-path="{copy}"]')[0])
    d.until("const t = document.querySelector('[data-testid=\"transcript\"]');"
            " return t?.innerText.includes(arguments[0])", 20, SAME_FILE_COPY_TEXT)
    d.click(d.find_all('[data-testid="copy-resume"]')[0])
    d.until(error + ".includes(arguments[0])", 20, f"it would open {original}, not {copy}")
    assert not d.find_all('[data-testid="resume-text"]'), "a command was shown for the copy"
    d.shot("63-same-file-resume-refused")
    d.click(d.wait_all(f'{rows}[data-path="{original}"]')[0])
    d.until("const t = document.querySelector('[data-testid=\"transcript\"]');"
            " return t?.innerText.includes(arguments[0])", 20, SAME_FILE_TEXT)
    d.click(d.find_all('[data-testid="copy-resume"]')[0])
    text = d.text(d.wait_all('[data-testid="resume-text"]')[0])
    assert text.endswith(f"&& claude --resume {SAME_FILE_ID}"), text
    assert d.js(error) == "", d.js(error)


REMOTE_COUNTS = {"claude": 9, "codex": 6, "opencode": 7}
TRASH_ON = "[actions]\nallow_delete = true\n"


def remote_store(home, workdir):
    """The remote's home: the Claude (with the terminal session, whose directory exists here, which
    is the remote too), Codex and OpenCode fixture stores where each agent keeps its own."""
    shutil.copytree(TESTDATA / "claude/2.1.332/dot-claude", home / ".claude")
    term_store(home / ".claude", workdir)
    shutil.copytree(TESTDATA / "codex/0.171.0/dot-codex", home / ".codex")
    shutil.copytree(TESTDATA / "opencode/1.18.33/local-share-opencode", home / ".local/share/opencode")
    (home / ".config/agent-sessions").mkdir(parents=True)
    (home / ".config/agent-sessions/config.toml").write_text(TRASH_ON)


def built(path, *cargo):
    """`path` under target/, built with `cargo build *cargo` when it is not there yet."""
    if not path.exists():
        subprocess.run(["cargo", "build", *cargo], cwd=ROOT, check=True)
    return path


def server_cli():
    """The CLI the app installs on the remote (bootstrap): the one beside the app, else a build."""
    found = [c for c in [APP.parent / "agent-sessions-cli", ROOT / "target/debug/agent-sessions-cli"] if c.exists()]
    if found:  # the newest: one left from an older build would be what the remote runs
        return max(found, key=lambda c: c.stat().st_mtime)
    return built(ROOT / "target/debug/agent-sessions-cli", "-p", "agent-sessions-cli")


def start_loopback(home):
    """crates/remote's throwaway sshd (example `loopback`): its process and its ssh config, which
    names `testbox` (our key) and `stranger` (a key the server does not know)."""
    exe = built(ROOT / "target/debug/examples/loopback", "-p", "agent-sessions-remote", "--example", "loopback")
    proc = subprocess.Popen([str(exe), str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError("the loopback sshd did not start (is openssh-server installed? scripts/setup.sh)")
    return proc, Path(json.loads(line)["config"])


def agent_counts(d):
    return d.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"agent-count\"]')]"
                ".map(e => [e.dataset.provider, Number(e.dataset.count)]))")


def remote_suite(d, ssh_config):
    picker = '[data-testid="host-picker"]'

    def lists_hosts():
        d.wait_all(picker)
        options = d.until("const o = [...document.querySelectorAll('[data-testid=\"host-picker\"] option')].map(o => o.value);"
                          "return o.length > 1 && o")
        assert options == ["", "testbox", "stranger"], options
        # Nothing listed yet (the sidebar counts only the agents that have sessions).
        assert agent_counts(d) == {}, agent_counts(d)
    check("the host picker lists this computer and the ssh config's hosts", lists_hosts)

    def refused_key():
        started = time.time()
        set_control(d, "host-picker", "stranger")
        error = d.wait_all('[data-testid="host-error"]', timeout=30)[0]
        took = time.time() - started
        assert d.attr(error, "data-code") == "ssh_auth", d.text(error)
        assert "ssh-add" in d.text(error) and f"ssh -F {ssh_config} stranger true" in d.text(error), d.text(error)
        # The config in use (AGENT_SESSIONS_SSH_CONFIG, i.e. ssh -F) is the one named.
        assert f"in {ssh_config}," in d.text(error) and "~/.ssh/config" not in d.text(error), d.text(error)
        # BatchMode: no prompt waited for; the window stays on this computer.
        assert took < 20, took
        assert d.js(f"return document.querySelector('{picker}').value") == ""
        d.shot("60-remote-auth-error")
    check("a host whose key is refused fails at once, saying what to set up", refused_key)

    def browse():
        set_control(d, "host-picker", "testbox")
        # The first connection installs this build's CLI there (bootstrap), then lists.
        d.until("return document.querySelectorAll('[data-testid=\"session-row\"]').length >= 19"
                " || !!document.querySelector('[data-testid=\"host-error\"]')", 120)
        errors = [d.text(e) for e in d.find_all('[data-testid="host-error"]')]
        assert not errors, errors
        rows = d.find_all('[data-testid="session-row"]')
        assert len(rows) == 19, f"{len(rows)} top-level rows"
        assert agent_counts(d) == REMOTE_COUNTS, agent_counts(d)
        labels = [d.attr(n, "data-key") for n in d.find_all('[data-testid="tree-node"]')]
        assert "dir:/home/bob/projects/demo" in labels, labels
        # Remembered for the next start.
        assert 'host = "testbox"' in (TMP / "config-remote.toml").read_text()
        d.shot("61-remote-list")
        open_session(d, "9d22e384-6685-4b75-ac35-088162e4c4a9")
        header = d.text(d.find_all('[data-testid="header-counts"]')[0])
        assert header.startswith("8 msgs"), header
        assert d.find_all('[data-testid="compaction"]'), "no compaction marker"
        # What works on this computer's stores only is disabled, saying why.
        local_only = d.find_all('[data-testid="local-only"]')[0]
        assert d.js("return arguments[0].disabled", {ELEMENT: local_only}) is True
        assert "not over ssh on testbox" in d.attr(local_only, "title"), d.attr(local_only, "title")
        d.shot("62-remote-transcript")
        # Raw JSON is read there (`raw`): each record equals its line of the host's file.
        remote_file = next((TMP / "remote-home" / ".claude" / "projects").glob("*/9d22e384-6685-4b75-ac35-088162e4c4a9.jsonl"))
        lines = remote_file.read_text().splitlines()
        toggle = "document.querySelector('[data-testid=\"raw-toggle\"]')"
        assert d.js(f"return {toggle}.disabled") is False
        d.js(f"{toggle}.click()")
        try:
            records_equal_lines(d, lines, 30)
            d.shot("62-remote-raw")
        finally:
            d.js(f"{toggle}.checked && {toggle}.click()")
    check("picking a host shows its sessions in the tree and opens a transcript from there", browse)

    def panels():
        d.click(d.find_all('[data-testid="open-stats"]')[0])
        total = d.wait_all('[data-testid="stats-total"]', timeout=30)[0]
        assert d.attr(total, "data-sessions") == str(sum(REMOTE_COUNTS.values())), d.attr(total, "data-sessions")
        d.click(d.find_all('[data-testid="stats-close"]')[0])
        d.click(d.find_all('[data-testid="open-diagnostics"]')[0])
        d.wait_all('[data-testid="diagnostics-root"]', count=3, timeout=30)
        roots = d.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=\"diagnostics-root\"]')]"
                     ".map(e => [e.dataset.provider, e.dataset.root]))")
        home = str(TMP / "remote-home")
        # Every agent with a store under the home (Aider has none: it is found where sessions ran).
        agents = {a["name"] for a in cli("agents")["agents"]} - {"aider"}
        assert set(roots) == agents and all(r.startswith(home) for r in roots.values()), roots
        # The host's own roots (not the folder its sessions lie under) and its cache there.
        assert roots["claude"] == str(TMP / "remote-home" / ".claude"), roots
        cache = d.find_all('[data-testid="diagnostics-cache"]')[0]
        assert int(d.attr(cache, "data-bytes")) > 0 and home in d.text(cache), d.text(cache)
        watcher = d.find_all('[data-testid="diagnostics-watcher"]')[0]
        # The host pushes its changes (`watch` on a second connection), nothing is polled.
        assert d.attr(watcher, "data-state") == "watching", d.attr(watcher, "data-state")
        # The host's cache is shown, not cleared from here.
        assert not d.find_all('[data-testid="clear-cache"]')
        d.shot("64-remote-diagnostics")
        d.click(d.find_all('[data-testid="diagnostics-close"]')[0])
    check("Stats and Diagnostics show the host's figures and stores", panels)

    def resume():
        d.click(d.find_all('[data-testid="copy-resume"]')[0])
        text = d.text(d.wait_all('[data-testid="resume-text"]')[0])
        want = (f"ssh -F {ssh_config} -t -- testbox "
                "'cd -- /home/bob/projects/demo && claude --resume 9d22e384-6685-4b75-ac35-088162e4c4a9'")
        assert text == want, text
    check("copy resume of a remote session is the ssh command that resumes it there", resume)

    def bundle():
        sid = "9d22e384-6685-4b75-ac35-088162e4c4a9"
        open_session(d, sid)
        d.click(d.find_all('[data-testid="export-toggle"]')[0])
        d.wait_all('[data-testid="export-menu"]')
        d.click(d.find_all('[data-testid="export-format-bundle"]')[0])
        d.click(d.find_all('[data-testid="export-save"]')[0])
        target = TMP / "from testbox.agent-session.zip"
        save_dialog("Export testbox's session as a bundle", target)
        kind, text, _ = notice(d, 60)
        assert kind == "ok" and text.endswith(f"bytes to {target}"), (kind, text)
        assert target.stat().st_mode & 0o777 == 0o600, oct(target.stat().st_mode)
        close_notice(d)
        # A whole, checked bundle of that session (the CLI's reader here).
        out = subprocess.run([str(server_cli()), "bundle", "inspect", str(target), "--json"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and json.loads(out.stdout)["ok"] and sid in out.stdout, (out.stdout, out.stderr)
    check("export of a remote session saves the bundle the host made, checked, here", bundle)

    def markdown_there():
        # Written here from the host's pages: the same document the CLI's `--host export` writes.
        sid = "9d22e384-6685-4b75-ac35-088162e4c4a9"
        open_session(d, sid)
        target = TMP / "from testbox.md"
        run_export(d, "markdown", target, reasoning=True)
        kind, text, _ = notice(d, 60)
        assert kind == "ok" and text.endswith(f"bytes to {target}"), (kind, text)
        assert target.stat().st_mode & 0o777 == 0o600, oct(target.stat().st_mode)
        close_notice(d)
        env = dict(os.environ, AGENT_SESSIONS_SSH_CONFIG=str(ssh_config))
        cli = subprocess.run([str(server_cli()), "--host", "testbox", "export", sid, "--format", "md", "--reasoning"],
                             capture_output=True, text=True, timeout=120, env=env)
        assert cli.returncode == 0, cli.stderr

        def unstamped(md):  # the export's time is the only part that differs
            return re.sub(r"^.*? · (agent-sessions \S+ · reasoning)", r"\1", md, count=1, flags=re.M)
        got, want = unstamped(target.read_text()), unstamped(cli.stdout)
        assert got == want, "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "cli", "app"))[:2000]
        assert "# " in got and "List the files here and show main.py" in got, got[:400]
    check("Markdown export of a remote session is written here from its pages, as the CLI's --host export", markdown_there)

    def translate_there():
        # The message is read from the host; this computer's endpoint (its config.toml) is asked.
        server = FakeTranslator()
        config = TMP / "config-remote.toml"
        before = config.read_text()
        try:
            config.write_text(before + f'\n[translate]\nbase_url = "{server.base}"\napi_key = "sk-e2e"\nmodel = "e2e-model"\n')
            # Translate shows once the window has read the file again (Settings opened).
            key(d, ",")
            d.wait_all('[data-testid="settings"]')
            d.click(d.find_all('[data-testid="settings-close"]')[0])
            open_session(d, TERM_SESSION)
            user = '[data-testid="message"][data-id="t1"]'
            d.click(d.wait_all(f'{user} [data-testid="translate"]')[0])
            shown = d.wait_all(f'{user} [data-testid="translation-text"]', timeout=30)[0]
            assert d.text(shown) == server.reply, d.text(shown)
            assert len(server.requests) == 1, server.requests
            assert server.requests[0]["body"]["messages"][1]["content"] == "TERM probe: open me in a terminal", server.requests
        finally:
            config.write_text(before)
            server.stop()
    check("Translate on a remote session sends that message's text, read from the host, to this computer's endpoint", translate_there)

    def bundle_back():
        # That bundle restored on the host again, as a copy (the session itself is there).
        target = TMP / "from testbox.agent-session.zip"
        newdir = TMP / "restored on testbox"
        newdir.mkdir()
        d.click(d.find_all('[data-testid="import-open"]')[0])
        location_dialog("Import a session bundle", target)
        d.wait_all('[data-testid="import-host"]', timeout=20)
        assert d.js("return document.querySelector('[data-testid=\"import-browse\"]').disabled") is True
        d.type(d.find_all('[data-testid="import-dir"]')[0], str(newdir))
        d.click(d.find_all('[data-testid="import-as-copy"]')[0])
        d.click(d.find_all('[data-testid="import-preview-button"]')[0])
        steps = d.text(d.wait_all('[data-testid="import-preview"]', timeout=60)[0])
        assert str(TMP / "remote-home/.claude") in steps and "as a copy" in steps, steps
        d.shot("66-remote-import-preview")
        d.click(d.find_all('[data-testid="import-restore"]')[0])
        kind, text, _ = notice(d, 60)
        assert kind == "ok" and text.startswith("Restored the claude session") and text.endswith(f"into {newdir}"), (kind, text)
        close_notice(d)
        # Written there (the host's store), and listed by the host: one more Claude session.
        d.until("return document.querySelector('[data-testid=\"agent-count\"][data-provider=\"claude\"]')?.dataset.count === '10'", 30)
        found = list((TMP / "remote-home/.claude/projects").rglob("*.jsonl"))
        assert any(str(newdir) in p.read_text() for p in found), "no restored session file on the host"
    check("a bundle imported while a host is shown is restored there, previewed first", bundle_back)

    def trash_there():
        sid = "7938f0db-aeb3-409b-ab80-42085a5431da"
        transcript = TMP / "remote-home/.claude/projects/-home-bob-projects-demo" / f"{sid}.jsonl"
        open_session(d, sid)
        d.click(d.wait_all('[data-testid="trash-open"]')[0])
        # The host's plan: its own file, by its own means.
        steps = [d.text(e) for e in d.wait_all('[data-testid="trash-step"]', timeout=30)]
        assert steps == [f"To the trash {transcript} ({transcript.stat().st_size / 1024:.1f} KiB)"], steps
        d.shot("67-remote-trash-dialog")
        d.click(d.find_all('[data-testid="trash-confirm"]')[0])
        d.until("return !document.querySelector('[data-testid=\"trash-dialog\"]')", 30)
        kind, text, _ = notice(d)
        assert kind == "ok" and text == ("Moved to the trash: “EDIT create and edit hello.txt”; it can be restored "
                                          "from the Trash on testbox"), text
        close_notice(d)
        assert not transcript.exists()
        assert (TMP / "remote-home/.local/share/Trash/files" / f"{sid}.jsonl").is_file()
        # The host's next answers do not bring it back.
        time.sleep(5)
        assert not d.find_all(f'[data-testid="session-row"][data-id="{sid}"]')
    check("trash on a remote session shows the host's plan and runs it there", trash_there)

    def handoff_there():
        open_session(d, "9d22e384-6685-4b75-ac35-088162e4c4a9")
        d.click(d.find_all('[data-testid="handoff-toggle"]')[0])
        d.wait_all('[data-testid="handoff-menu"]')
        # Starting an agent on the host (handoff_prepare there, ssh -t here) is offered, and the
        # handoff written there copies here.
        assert d.js("return document.querySelector('[data-testid=\"handoff-codex\"]').disabled") is False
        d.click(d.find_all('[data-testid="handoff-copy-codex"]')[0])
        ok, text, _ = handoff_status(d)
        assert ok and text.startswith("Copied the handoff for Codex CLI"), text
        pasted = paste_clipboard(d)
        assert "List the files here and show main.py" in pasted, pasted[:400]
    check("the handoff of a remote session is written there and copied here", handoff_there)

    def search():
        box = d.find_all('[data-testid="search-input"]')[0]
        d.type(box, "continue after big context\ue007")
        hits = d.wait_all('[data-testid="search-hit"]', timeout=60)
        d.shot("63-remote-search")
        open_bigctx_hit(d, hits, flash_timeout=10)
        close_search(d)
    check("a search on the host opens the hit at its message", search)

    def terminal():
        workdir = str(TMP / TERM_DIR_NAME)
        before = len(launches())
        open_session(d, TERM_SESSION)
        d.click(d.find_all('[data-testid="open-terminal"]')[0])
        kind, text, _ = notice(d)
        assert kind == "ok" and text == f"Opened xterm in testbox:{workdir}", (kind, text)
        got = wait_launches(before + 1)[before]
        argv = got["argv"]
        assert argv[:2] == [str(BIN / "xterm"), "-e"] and Path(argv[2]).name == "ssh", argv
        assert argv[3:8] == ["-F", str(ssh_config), "-t", "--", "testbox"], argv
        assert len(argv) == 9, argv
        close_notice(d)
        # What that terminal would run, run for real: ssh reaches the host and its login shell
        # lands in the session's directory (a name full of shell syntax), nothing else runs.
        ran = subprocess.run(argv[2:], input="pwd\n", capture_output=True, text=True, timeout=60)
        assert ran.stdout.strip().splitlines()[-1:] == [workdir], (ran.stdout, ran.stderr)
        assert not (TMP / TERM_DIR_NAME / "pwned").exists()
    check("open terminal on a remote session runs ssh -t into its directory there", terminal)

    def resume_gone_there():
        # The fixture's directory does not exist there: the host refuses before anything opens,
        # as a local Resume in terminal is refused (a terminal opened, only to fail there).
        before = len(launches())
        open_session(d, "9d22e384-6685-4b75-ac35-088162e4c4a9")
        d.click(d.find_all('[data-testid="resume-terminal"]')[0])
        kind, text, _ = notice(d)
        assert kind == "error" and text.startswith(
            "On testbox: the session's directory /home/bob/projects/demo no longer exists; nothing was opened"), (kind, text)
        close_notice(d)
        # Its directory is there but claude is not installed there: refused, with the ssh command
        # that resumes it by hand to copy.
        open_session(d, TERM_SESSION)
        d.click(d.find_all('[data-testid="resume-terminal"]')[0])
        kind, text, copy = notice(d)
        assert kind == "error" and text.startswith("On testbox: claude was not found"), (kind, text)
        assert copy and copy.startswith(f"ssh -F {ssh_config} -t -- testbox ") and TERM_SESSION in copy, copy
        close_notice(d)
        time.sleep(1)
        assert len(launches()) == before, launches()[before:]
    check("resume of a remote session whose directory or agent is missing there is refused, opening nothing",
          resume_gone_there)

    def live():
        claude = TMP / "remote-home/.claude"
        open_session(d, TERM_SESSION)
        # Claimed by this process, as Claude Code claims a session it runs (sessions/<pid>.json
        # with the process's start time): the remote (this machine) sees it live.
        ticks = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]
        claim = claude / "sessions/99999.json"
        claim.parent.mkdir(exist_ok=True)
        claim.write_text(json.dumps({"pid": os.getpid(), "sessionId": TERM_SESSION, "procStart": ticks, "status": "busy"}))
        try:
            d.wait_all(f'[data-testid="session-row"][data-id="{TERM_SESSION}"] [data-testid="live-dot"]', timeout=30)
            line = {"type": "user", "uuid": "t3", "parentUuid": "t2", "sessionId": TERM_SESSION,
                    "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "message": {"role": "user", "content": "LIVE appended over ssh"}}
            with open(claude / "projects/-tmp-term" / f"{TERM_SESSION}.jsonl", "a") as f:
                f.write(json.dumps(line) + "\n")
            # The app asks the host what changed; the open transcript reads the new message.
            d.until("return document.querySelector('[data-testid=\"header-counts\"]')?.textContent.startsWith('3 msgs')", 30)
            d.until("return [...document.querySelectorAll('[data-testid=\"message\"]')]"
                    ".some(m => m.textContent.includes('LIVE appended over ssh'))", 15)
            d.shot("65-remote-live")
        finally:
            claim.unlink()
    check("a live session there gets its dot, and what it appends shows in its open transcript", live)

    def back_home():
        # Something said about testbox (as when it can no longer be reached) is not about this computer.
        d.js("window.__TAURI_INTERNALS__.invoke('plugin:event|emit', {event: 'warning', payload: 'cannot reach testbox (e2e)'})")
        d.until("return [...document.querySelectorAll('[data-testid=\"warning\"]')].some(w => w.textContent.includes('cannot reach testbox'))", 10)
        set_control(d, "host-picker", "")
        d.until("return document.querySelectorAll('[data-testid=\"session-row\"]').length === 0", 30)
        # Nothing listed yet (the sidebar counts only the agents that have sessions).
        assert agent_counts(d) == {}, agent_counts(d)
        assert "host =" not in (TMP / "config-remote.toml").read_text()
        assert not d.js("return [...document.querySelectorAll('[data-testid=\"warning\"], [data-testid=\"host-error\"]')]"
                        ".filter(w => w.textContent.includes('testbox')).length"), "testbox's warning stayed on this computer"
    check("this computer again shows its own sessions (none here), and is what the next start shows", back_home)


def remote_restart(start):
    """The machine remembered in config.toml (`ui.host`, as the picker writes it) is shown again
    at start; one no longer in the ssh config is not tried: this computer, and the picker says why."""
    config = TMP / "config-remote.toml"
    before = config.read_text()

    def remembered():
        config.write_text(TRASH_ON + '[ui]\nhost = "testbox"\n')
        d = start()
        try:
            d.until("return document.querySelectorAll('[data-testid=\"session-row\"]').length > 0"
                    " || !!document.querySelector('[data-testid=\"host-error\"]')", 120)
            assert not d.find_all('[data-testid="host-error"]'), [d.text(e) for e in d.find_all('[data-testid="host-error"]')]
            assert d.js("return document.querySelector('[data-testid=\"host-picker\"]').value") == "testbox"
            d.until("return document.querySelector('[data-testid=\"agent-count\"][data-provider=\"codex\"]')?.dataset.count === '6'", 30)
            d.shot("68-remote-remembered")
        finally:
            d.quit()
            config.write_text(before)
    check("the machine chosen last time is connected to again at start", remembered)

    def forgotten():
        config.write_text(TRASH_ON + '[ui]\nhost = "gone"\n')
        d = start()
        try:
            notice = d.text(d.wait_all('[data-testid="host-forgotten"]', timeout=30)[0])
            assert notice.startswith("gone, the machine shown last time, is no longer a Host in"), notice
            assert d.js("return document.querySelector('[data-testid=\"host-picker\"]').value") == ""
            assert not d.find_all('[data-testid="host-connecting"]') and not d.find_all('[data-testid="session-row"]')
        finally:
            d.quit()
            config.write_text(before)
    check("a remembered machine no longer in the ssh config falls back to this computer, saying so", forgotten)


if __name__ == "__main__":
    main()
    report()
