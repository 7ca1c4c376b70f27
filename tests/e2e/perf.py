#!/usr/bin/env python3
"""Figures for issue 12 (docs/performance.md), measured through the real window under Xvfb:
warm start to the first painted list on the generated 300 MB store (crates/bench's corpus), a
filter change to the repaint, and scrolling a 5,000-session list. Printed, never asserted (speed
is not a pass/fail test here). Uses run.py's driver; needs the corpus:

    cargo run --release -p agent-sessions-bench -- --size-mb 300 --suite index   # once
    python3 tests/e2e/perf.py [path/to/agent-sessions]
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as e2e  # noqa: E402  (the driver and its helpers)

CORPUS = e2e.ROOT / "target/bench-corpus/g2-all-300MB-big40"
ROWS = '[data-testid="session-row"]'
# The list is windowed (only rows near the viewport are in the DOM): how many sessions it lists.
TOTAL = "Number(document.querySelector('[data-testid=\"session-list\"]')?.dataset.total ?? 0)"


def launch(display, tmp, roots, name):
    """The app on `roots` with the cache in tmp/cache-<name>: (driver, tauri-driver process)."""
    port = e2e.free_port()
    env = dict(os.environ, DISPLAY=f":{display}", AGENT_SESSIONS_CACHE_DIR=str(tmp / f"cache-{name}"),
               HOME=str(tmp / "home"), AGENT_SESSIONS_CONFIG=str(tmp / f"config-{name}.toml"), **roots)
    proc = subprocess.Popen(["tauri-driver", "--port", str(port), "--native-port", str(e2e.free_port()),
                             "--native-driver", shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    e2e.wait_port(port)
    return e2e.Driver(port), proc


def stop(drv, proc):
    drv.quit()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()


def first_paint(display, tmp, roots, name, timeout):
    """Seconds from asking for the window to the first session row in it, and the page's own
    time (ms since it started loading) at that moment."""
    drv, proc = launch(display, tmp, roots, name)
    try:
        t0 = time.perf_counter()
        drv.start(e2e.APP)
        while True:
            page = drv.js(f"return document.querySelector('{ROWS}') ? performance.now() : 0")
            if page:
                return time.perf_counter() - t0, page, drv, proc
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError("no row painted")
            time.sleep(0.01)
    except Exception:
        stop(drv, proc)
        raise


def start_parts(drv, painted):
    """Where the page's time to its first row went (ms), from the navigation timing and the
    marks the app sets (ui/src/main.ts, App.svelte's reload): the HTML and bundle loaded, the
    bundle run, the list asked for, answered (IPC and the backend's listing), and painted."""
    t = drv.js("const n = performance.getEntriesByType('navigation')[0] || {};"
               "const m = Object.fromEntries(performance.getEntriesByType('mark').map(e => [e.name, e.startTime]));"
               "return {response: n.responseEnd || 0, dom: n.domContentLoadedEventStart || 0, script: m['script-start'] || 0,"
               " asked: m['list-asked'] || 0, got: m['list-got'] || 0}")
    return {"navigation start → page loaded": t["response"], "→ bundle run": t["script"] - t["response"],
            "→ list asked for": t["asked"] - t["script"], "→ list answered (IPC + backend)": t["got"] - t["asked"],
            "→ row painted (render)": painted - t["got"]}


def settle(drv, quiet=3, timeout=300):
    """The number of top-level rows once it has not changed for `quiet` seconds (every agent's
    sessions listed)."""
    deadline = time.time() + timeout
    last, since = -1, time.time()
    while time.time() < deadline:
        n = drv.js(f"return {TOTAL}")
        if n != last:
            last, since = n, time.time()
        elif time.time() - since >= quiet:
            return n
        time.sleep(0.2)
    return last


def after_paint(drv, action):
    """Milliseconds from running `action` (JS) to the second animation frame after it: the
    change is rendered and painted."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[arguments.length - 1]; const t0 = performance.now();"
        f"{action};"
        "requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)));")})


def scroll_figures(drv):
    """Scrolls the list from top to bottom 600 px a frame: frame intervals (ms), the sessions
    listed and the most rows in the DOM at once."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[arguments.length - 1];"
        "const el = document.querySelector('main.middle'); el.scrollTop = 0; const gaps = []; let last = performance.now();"
        f"let most = 0; const rows = () => document.querySelectorAll('{ROWS}').length;"
        "const start = last;"
        "function step(now) { gaps.push(now - last); last = now; most = Math.max(most, rows());"
        "  if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) {"
        f"   done({{gaps: gaps.slice(1), total: now - start, rows: {TOTAL}, dom: most}}); return; }}"
        "  el.scrollTop += 600; requestAnimationFrame(step); }"
        "requestAnimationFrame(step);")})


def many_sessions(root, count):
    """A Claude store of `count` small sessions over 50 directories."""
    for i in range(count):
        project = root / "projects" / f"-work-p{i % 50}"
        project.mkdir(parents=True, exist_ok=True)
        sid = f"00000000-0000-4000-8000-{i:012d}"
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_760_000_000 + i * 600))
        lines = [
            {"type": "user", "uuid": f"u{i}", "sessionId": sid, "cwd": f"/work/p{i % 50}", "timestamp": when,
             "message": {"role": "user", "content": f"session {i}: please look at the build"}},
            {"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": sid, "timestamp": when,
             "message": {"id": f"m{i}", "model": ["claude-x", "claude-y"][i % 2], "role": "assistant",
                         "content": [{"type": "text", "text": "Looked."}]}},
        ]
        (project / f"{sid}.jsonl").write_text("\n".join(json.dumps(l) for l in lines) + "\n")


def shift_figures(drv, steps=200):
    """Milliseconds for the list to follow a 600 px scroll without painting it: the scroll, the
    window's update of its rows and the layout, `steps` times down the list."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[arguments.length - 1]; const el = document.querySelector('main.middle'); const out = [];"
        f"(async () => {{ for (let i = 1; i <= {steps}; i++) {{ const t0 = performance.now(); el.scrollTop = i * 600;"
        " el.dispatchEvent(new Event('scroll')); await new Promise(r => setTimeout(r, 0)); void el.scrollHeight;"
        f" document.querySelector('{ROWS}').getBoundingClientRect(); out.push(performance.now() - t0); }}"
        " done(out); })();")})


def ms(values):
    return f"median {statistics.median(values):.0f} ms (runs: {', '.join(f'{v:.0f}' for v in values)})"


def main():
    if not (CORPUS / "opencode/opencode.db").exists():
        sys.exit(f"no corpus at {CORPUS}: cargo run --release -p agent-sessions-bench -- --size-mb 300 --suite index")
    tmp = Path(tempfile.mkdtemp(prefix="agent-sessions-perf-"))
    (tmp / "home").mkdir()
    display = e2e.free_display()
    xvfb = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    try:
        roots = {"CLAUDE_CONFIG_DIR": str(CORPUS / "claude"), "CODEX_HOME": str(CORPUS / "codex"),
                 "XDG_DATA_HOME": str(tmp / "data")}
        (tmp / "data").mkdir()
        # OpenCode's root is <XDG_DATA_HOME>/opencode; the corpus is read, never written.
        (tmp / "data/opencode").symlink_to(CORPUS / "opencode")
        size = sum(f.stat().st_size for f in CORPUS.rglob("*") if f.is_file() and "cache" not in f.parts)
        print(f"store: {CORPUS} ({size / 1e6:.0f} MB), app: {e2e.APP}")
        # Cold: the first start fills the cache (and text-indexes after); then warm starts.
        cold, _, drv, proc = first_paint(display, tmp, roots, "big", 900)
        rows = drv.js(f"return {TOTAL}")
        print(f"cold start to first painted list: {cold * 1000:.0f} ms ({rows} rows then)")
        # Every agent's sessions in the cache, then their text indexed (or four minutes of it),
        # so the warm starts below do not share the machine with the first fill.
        t0 = time.perf_counter()
        drv.until("return [...document.querySelectorAll('[data-testid=\"agent-count\"]')].every(e => e.dataset.count > 0)"
                  " && !document.querySelector('[data-testid=\"scan-progress\"]')", 900)
        print(f"  every agent listed after a further {(time.perf_counter() - t0) * 1000:.0f} ms: {settle(drv)} rows")
        deadline = time.time() + 240
        while time.time() < deadline and drv.js("return document.body.textContent.includes('Indexing text')"):
            time.sleep(2)
        stop(drv, proc)
        warm, page, parts = [], [], []
        for _ in range(3):
            t, p, drv, proc = first_paint(display, tmp, roots, "big", 120)
            warm.append(t * 1000)
            page.append(p)
            parts.append(start_parts(drv, p))
            if len(warm) < 3:
                stop(drv, proc)
        print(f"warm start to first painted list (window asked for → row on screen): {ms(warm)}")
        print(f"  of which in the page (navigation start → row): {ms(page)}")
        for name in parts[0]:
            print(f"    {name}: {ms([p[name] for p in parts])}")
        rows = settle(drv)
        drv.js("document.querySelector('[data-testid=\"filters-toggle\"]').click()")
        drv.until("return !!document.querySelector('[data-testid=\"filter-agent\"]')")
        set_agent = ("const s = document.querySelector('[data-testid=\"filter-agent\"]'); s.value = '{}';"
                     "s.dispatchEvent(new Event('change', {{bubbles: true}}))")
        on, off = [], []
        for _ in range(5):
            on.append(after_paint(drv, set_agent.format("codex")))
            on_rows = drv.js(f"return {TOTAL}")
            off.append(after_paint(drv, "document.querySelector('[data-testid=\"chip-remove\"]').click()"))
        print(f"filter change to repaint ({rows} → {on_rows} rows): {ms(on)}; chip removed ({on_rows} → {rows}): {ms(off)}")
        stop(drv, proc)

        many = tmp / "many"
        many_sessions(many, 5000)
        roots = {"CLAUDE_CONFIG_DIR": str(many), "CODEX_HOME": str(tmp / "none"), "XDG_DATA_HOME": str(tmp / "none")}
        _, _, drv, proc = first_paint(display, tmp, roots, "many", 300)
        drv.until(f"return {TOTAL} >= 5000", 300)
        drv.js("const s = document.querySelector('[data-testid=\"group-mode\"]'); s.value = 'flat';"
               "s.dispatchEvent(new Event('change', {bubbles: true}))")
        time.sleep(1)
        drv.call("POST", drv.s("/timeouts"), {"script": 600_000})
        shifts = sorted(shift_figures(drv))
        print(f"the list following a 600 px scroll (window update and layout, no paint): median "
              f"{statistics.median(shifts):.1f} ms, p95 {shifts[int(len(shifts) * 0.95)]:.1f} ms")
        runs = [scroll_figures(drv) for _ in range(3)]
        gaps = sorted(g for r in runs for g in r["gaps"])
        p95 = gaps[int(len(gaps) * 0.95)]
        print(f"scrolling a {runs[0]['rows']}-session list top to bottom, 600 px a frame "
              f"(at most {max(r['dom'] for r in runs)} rows in the DOM): "
              f"{ms([r['total'] for r in runs])} for {len(runs[0]['gaps'])} frames; frame interval "
              f"median {statistics.median(gaps):.1f} ms, p95 {p95:.1f} ms, max {gaps[-1]:.1f} ms")
        stop(drv, proc)
    finally:
        xvfb.send_signal(signal.SIGTERM)
        xvfb.wait(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
