#!/usr/bin/env python3
"""Figures for issues 12 and 15 (docs/performance.md), measured through the real window under
Xvfb: warm start to the first painted list on the generated 300 MB store (crates/bench's
corpus), a filter change to the repaint, a click on a session to its transcript's first screen
painted (the corpus's 40 MB transcript and a median one) and scrolling that 40 MB transcript to
its end, and scrolling a 5,000-session list. Printed, never asserted (speed is not a pass/fail
test here). Uses run.py's driver; needs the corpus:

    cargo run --release -p agent-sessions-bench -- --size-mb 300 --suite index   # once
    python3 tests/e2e/perf.py [path/to/agent-sessions]
    python3 tests/e2e/perf.py --warm-only --runs 5 APP_BEFORE APP_AFTER   # warm starts, alternated
    python3 tests/e2e/perf.py --transcript-only --runs 5   # only the transcripts' first screens

A start is timed from the app process's start (its start time in /proc, 10 ms ticks) to the
page's `list-painted` mark (SessionList.svelte: two animation frames after the first rows are in
the DOM, so the frame that holds them has been drawn), and, as before, from WebDriver's "new
session" to the moment WebDriver first finds a row.
"""

import argparse

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


def first_paint(display, tmp, roots, name, timeout, app=None):
    """Seconds from asking for the window to the first session row in it, and the page's own
    time (ms since it started loading) at that moment."""
    drv, proc = launch(display, tmp, roots, name)
    try:
        t0 = time.perf_counter()
        drv.start(app or e2e.APP)
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


def process_start(cache_dir):
    """The start of the app process whose cache is `cache_dir` (ms since the epoch), from
    /proc: its start time after boot, in clock ticks (10 ms), against the boot clock now (the
    boot time /proc/stat gives is whole seconds: up to 1 s off)."""
    tick = os.sysconf("SC_CLK_TCK")
    boot = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
    want = f"AGENT_SESSIONS_CACHE_DIR={cache_dir}".encode()
    starts = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and want in (d / "environ").read_bytes().split(b"\0") \
                    and os.path.basename(os.readlink(d / "exe")).startswith("agent-sessions"):
                starts.append(int((d / "stat").read_text().rsplit(")", 1)[1].split()[19]))
        except OSError:
            continue
    # The newest: an earlier start on the same cache may not have exited yet.
    return (boot + max(starts) / tick) * 1000 if starts else None


def wait_painted(drv, timeout=30):
    """Waits for the page's `list-painted` mark (two frames after the first rows); a build
    without the mark (before issue 12's start work) does not set it."""
    if drv.js("return performance.getEntriesByName('mounted').length > 0"):
        drv.until("return performance.getEntriesByName('list-painted').length > 0", timeout)


def start_parts(drv, tmp, name, found):
    """Where a start's time went (ms), from the app process's start, the navigation timing and
    the marks the app sets (ui/src/main.ts, App.svelte's reload, SessionList.svelte), each
    mark's first time: the process up to the page's navigation (Tauri, GTK, WebKit's web
    process), the HTML and bundle loaded, the bundle run, the list asked for, the app mounted,
    the list answered (IPC and the backend's listing), its rows in the DOM, and painted."""
    wait_painted(drv)
    t = drv.js("const n = performance.getEntriesByType('navigation')[0] || {}; const m = {};"
               "for (const e of performance.getEntriesByType('mark')) if (!(e.name in m)) m[e.name] = e.startTime;"
               "return {origin: performance.timeOrigin, response: n.responseEnd || 0, m}")
    m = t["m"]
    started = process_start(tmp / f"cache-{name}")
    parts = {}
    if started is not None:
        parts["process start → navigation start"] = t["origin"] - started
    parts["navigation start → page loaded"] = t["response"]
    parts["→ bundle run"] = m.get("script-start", 0) - t["response"]
    if "mounted" in m:
        # main.ts asks for the list before mounting (so the two overlap).
        parts["→ list asked for"] = m["list-asked"] - m["script-start"]
        parts["→ app mounted"] = m["mounted"] - m["list-asked"]
        parts["list asked → answered (IPC + backend, during the mount)"] = m["list-got"] - m["list-asked"]
        parts["later of the two → rows in the DOM"] = m["list-rendered"] - max(m["list-got"], m["mounted"])
        parts["→ painted"] = m["list-painted"] - m["list-rendered"]
    else:
        parts["→ list asked for (after the mount)"] = m.get("list-asked", 0) - m.get("script-start", 0)
        parts["→ list answered (IPC + backend)"] = m.get("list-got", 0) - m.get("list-asked", 0)
    if "list-painted" in m:
        parts["navigation start → list painted"] = m["list-painted"]
        if started is not None:
            parts["PROCESS START → LIST PAINTED"] = t["origin"] + m["list-painted"] - started
    if started is not None:
        parts["process start → a row found by WebDriver's polling"] = t["origin"] + found - started
    return parts


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


def shift_figures(drv, steps=200):
    """Milliseconds for the list to follow a 600 px scroll without painting it: the scroll, the
    window's update of its rows and the layout, `steps` times down the list."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[arguments.length - 1]; const el = document.querySelector('main.middle'); const out = [];"
        f"(async () => {{ for (let i = 1; i <= {steps}; i++) {{ const t0 = performance.now(); el.scrollTop = i * 600;"
        " el.dispatchEvent(new Event('scroll')); await new Promise(r => setTimeout(r, 0)); void el.scrollHeight;"
        f" document.querySelector('{ROWS}').getBoundingClientRect(); out.push(performance.now() - t0); }}"
        " done(out); })();")})


def tree_figures(drv):
    """The directory tree of 2,000 directories: its rows, how many are in the DOM, and the time
    to follow a scroll of its pane to the end; screenshots of it at the top and the end."""
    e2e.SHOTS.mkdir(parents=True, exist_ok=True)
    drv.until("return Number(document.querySelector('[data-testid=\"tree\"]')?.dataset.rows) > 4000", 60)
    drv.shot("perf-tree-2000-dirs")
    took = after_paint(drv, "const el = document.querySelector('aside.left'); el.scrollTop = el.scrollHeight")
    rows, dom = drv.js("const t = document.querySelector('[data-testid=\"tree\"]');"
                       "return [Number(t.dataset.rows), t.querySelectorAll('[role=\"treeitem\"]').length]")
    drv.shot("perf-tree-2000-dirs-end")
    print(f"directory tree of 2,000 directories ({rows} rows with their agents): {dom} rows in the DOM at the end; "
          f"scrolled to the end and painted in {took:.0f} ms")
    drv.js("document.querySelector('aside.left').scrollTop = 0")


# Transcript.svelte's marks for a session opened: its first page asked for, answered, its first
# messages in the DOM, and painted (two animation frames later).
OPEN_MARKS = ["transcript-asked", "transcript-got", "transcript-rendered", "transcript-painted"]


def claude_pair():
    """The corpus's largest Claude session (its 40 MB transcript) and one of median size, as
    (id, bytes): a Claude session's id is its file's name."""
    files = sorted(CORPUS.glob("claude/projects/*/*.jsonl"), key=lambda f: f.stat().st_size)
    return [(f.stem, f.stat().st_size) for f in (files[-1], files[len(files) // 2])]


# The row of a Claude session `sid` (arguments[0]): the generated corpus gives a Codex session the
# same id as the 40 MB Claude one, so the row's agent badge decides.
CLAUDE_ROW = ("[...document.querySelectorAll(`[data-testid=\"session-row\"][data-id=\"${arguments[0]}\"]`)]"
              ".find(r => r.querySelector('.badge.claude'))")


def reveal_row(drv, sid, timeout=60):
    """Scrolls the windowed session list until the row of Claude session `sid` is in the DOM and
    in view (from the top again once at the bottom)."""
    drv.until(f"const el = document.querySelector('main.middle'); const r = {CLAUDE_ROW};"
              "if (r) { r.scrollIntoView({block: 'nearest'}); return true; }"
              "el.scrollTop = el.scrollTop + el.clientHeight >= el.scrollHeight - 1 ? 0 : el.scrollTop + el.clientHeight;"
              "return false", timeout, sid)


def open_figures(drv, sid):
    """Clicks Claude session `sid`'s row and returns the milliseconds from the click to each of
    OPEN_MARKS (the page's own clock), the messages loaded, in the transcript and in the DOM
    once painted, and the titles of the row and of the transcript then shown."""
    reveal_row(drv, sid)
    return drv.call("POST", drv.s("/execute/async"), {"args": [sid, OPEN_MARKS], "script": (
        # Two frames first: the list's window follows the scroll that revealed the row before the
        # click, not inside the time measured.
        "const [, marks, done] = arguments; marks.forEach(m => performance.clearMarks(m));"
        f"requestAnimationFrame(() => requestAnimationFrame(() => {{ const row = {CLAUDE_ROW};"
        " const t0 = performance.now(); row.click();"
        "(function poll() {"
        "  if (!performance.getEntriesByName('transcript-painted').length) return setTimeout(poll, 5);"
        "  const s = document.querySelector('[data-testid=\"transcript\"]');"
        "  done({at: Object.fromEntries(marks.map(m => [m, performance.getEntriesByName(m)[0].startTime - t0])),"
        "        loaded: Number(s.dataset.loaded), total: Number(s.dataset.total),"
        "        dom: s.querySelectorAll('[data-testid=\"message\"]').length,"
        "        row: row.querySelector('.title').textContent,"
        "        shown: document.querySelector('[data-testid=\"transcript-title\"]').textContent});"
        "})(); }));")})


def to_end(drv):
    """Milliseconds from the open transcript's top to its end in view with every message loaded:
    the pane is scrolled to its bottom every frame (near the bottom the view asks for the next
    page of 200) until all are loaded and the bottom has held for two frames. Also the frames'
    intervals, the messages loaded and the most messages in the DOM at once."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[0]; const s = document.querySelector('[data-testid=\"transcript\"]');"
        "const t0 = performance.now(); let still = 0, last = t0, most = 0; const gaps = [];"
        "function step(now) { gaps.push(now - last); last = now;"
        "  most = Math.max(most, s.querySelectorAll('[data-testid=\"message\"]').length);"
        "  const end = s.dataset.loaded === s.dataset.total && s.scrollTop + s.clientHeight >= s.scrollHeight - 1;"
        "  still = end ? still + 1 : 0;"
        "  if (still >= 2) return done({ms: now - t0, gaps, loaded: Number(s.dataset.loaded), dom: most});"
        "  s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); requestAnimationFrame(step); }"
        "requestAnimationFrame(step);")})


def transcript_steps(drv, steps=30):
    """A loaded transcript scrolled down 600 px at a time from its top, `steps` times: for each,
    the milliseconds for the view to follow (the scroll, the window's update of its messages,
    in the DOM once the timer after it runs), then the layout, then the two frames to paint."""
    return drv.call("POST", drv.s("/execute/async"), {"args": [], "script": (
        "const done = arguments[0]; const s = document.querySelector('[data-testid=\"transcript\"]'); const out = [];"
        "const frame = () => new Promise(r => requestAnimationFrame(r)); s.scrollTop = 0;"
        f"(async () => {{ await frame(); await frame(); for (let i = 1; i <= {steps}; i++) {{ const t0 = performance.now();"
        " s.scrollTop = i * 600; s.dispatchEvent(new Event('scroll')); await new Promise(r => setTimeout(r, 0));"
        " const t1 = performance.now(); void s.scrollHeight; s.querySelector('[data-testid=\"message\"]')?.getBoundingClientRect();"
        " const t2 = performance.now(); await frame(); await frame(); out.push([t1 - t0, t2 - t1, performance.now() - t2]); }"
        " done(out); })();")})


def transcript_figures(drv, runs):
    """Time to the first screen of the corpus's 40 MB Claude transcript and of a median-sized
    one, opened alternately in one window (the backend keeps only the last transcript read, so
    each open reads its file again, from the OS's page cache), `runs` times each after one
    open not counted; then, for the big one, the time to scroll to its end and the cost of a
    600 px scroll once it is loaded. Printed as a table."""
    drv.call("POST", drv.s("/timeouts"), {"script": 600_000})
    (big, big_bytes), (small, small_bytes) = claude_pair()
    open_figures(drv, small)  # not counted: the first open loads the code-colouring chunk
    opens = {big: [], small: []}
    ends, steps, load = [], [], []
    for _ in range(runs):
        for sid in (big, small):
            got = open_figures(drv, sid)
            assert got["shown"] == got["row"] and got["dom"] > 0, got
            opens[sid].append(got)
            load.append(os.getloadavg()[0])
            if sid == big:
                ends.append(to_end(drv))
                steps.extend(transcript_steps(drv))
    print(f"opening a transcript, from the click on its row (Transcript.svelte's marks; medians of {runs}, "
          f"load average {min(load):.1f}–{max(load):.1f}):")
    print("| session | click → first page asked | → answered (IPC + the backend's load) | → first messages in the DOM"
          " | → painted | **click → first screen painted** |")
    print("| --- | --- | --- | --- | --- | --- |")
    for sid, size in ((big, big_bytes), (small, small_bytes)):
        got = opens[sid]
        parts = [[g["at"][m] - (g["at"][OPEN_MARKS[i - 1]] if i else 0) for g in got] for i, m in enumerate(OPEN_MARKS)]
        cells = [f"{statistics.median(p):.0f} ms" for p in parts[:-1]]
        painted = [g["at"]["transcript-painted"] for g in got]
        cells.append(f"{statistics.median(parts[-1]):.0f} ms")
        cells.append(f"**{statistics.median(painted):.0f} ms** ({', '.join(f'{v:.0f}' for v in painted)})")
        print(f"| {size / 1e6:.1f} MB ({got[0]['total']} messages; {got[0]['loaded']} loaded, {got[0]['dom']} in the DOM) | "
              + " | ".join(cells) + " |")
    print(f"the 40 MB transcript scrolled from its first screen to its end ({ends[0]['loaded']} messages loaded a page of "
          f"200 at a time, at most {max(e['dom'] for e in ends)} in the DOM): {ms([e['ms'] for e in ends])}; "
          f"{statistics.median([len(e['gaps']) for e in ends]):.0f} frames, frame interval median "
          f"{statistics.median([g for e in ends for g in e['gaps']]):.0f} ms")
    parts = [statistics.median(p) for p in zip(*steps)]
    print(f"the loaded 40 MB transcript scrolled 600 px ({len(steps)} steps down from its top): the view follows "
          f"(messages in the DOM) in a median {parts[0]:.0f} ms, layout {parts[1]:.0f} ms, two frames to paint "
          f"{parts[2]:.0f} ms; all three {statistics.median([sum(p) for p in steps]):.0f} ms")


def ms(values):
    return f"median {statistics.median(values):.0f} ms (runs: {', '.join(f'{v:.0f}' for v in values)})"


def warm_starts(display, tmp, roots, apps, runs):
    """`runs` warm starts of each (app, cache name), alternated app by app so that the
    machine's load falls on each alike; prints and returns (warm, page, parts) per app."""
    out = [([], [], []) for _ in apps]
    for _ in range(runs):
        for (app, name), (warm, page, parts) in zip(apps, out):
            t, p, drv, proc = first_paint(display, tmp, roots, name, 120, app)
            try:
                warm.append(t * 1000)
                page.append(p)
                parts.append(start_parts(drv, tmp, name, p))
            finally:
                stop(drv, proc)
    for (app, _), (warm, page, parts) in zip(apps, out):
        print(f"{app}: warm start to first painted list (window asked for → row found): {ms(warm)}")
        print(f"  of which in the page (navigation start → row found): {ms(page)}")
        for key in parts[0]:
            print(f"    {key}: {ms([p[key] for p in parts if key in p])}")
    return out


def fill_cache(display, tmp, roots, name, app):
    """A first (cold) start that fills the cache `name`, then waits for every agent listed and
    their text indexed (or four minutes of it), so later warm starts do not share the machine
    with the first fill. Returns the cold start's seconds and rows."""
    cold, _, drv, proc = first_paint(display, tmp, roots, name, 900, app)
    try:
        rows = drv.js(f"return {TOTAL}")
        drv.until("return [...document.querySelectorAll('[data-testid=\"agent-count\"]')].every(e => e.dataset.count > 0)"
                  " && !document.querySelector('[data-testid=\"scan-progress\"]')", 900)
        settle(drv)
        deadline = time.time() + 240
        while time.time() < deadline and drv.js("return document.body.textContent.includes('Indexing text')"):
            time.sleep(2)
    finally:
        stop(drv, proc)
    return cold, rows


def main():
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("apps", nargs="*", type=Path, default=[e2e.ROOT / "target/release/agent-sessions"])
    args.add_argument("--warm-only", action="store_true", help="only warm starts, alternated between the apps given")
    args.add_argument("--transcript-only", action="store_true",
                      help="only the time to a transcript's first screen (the 40 MB one and a median one)")
    args.add_argument("--runs", type=int, default=3)
    opts = args.parse_args()
    app = opts.apps[0]
    runs = opts.runs
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
        print(f"store: {CORPUS} ({size / 1e6:.0f} MB), apps: {', '.join(map(str, opts.apps))}")
        apps = [(a, f"big{i}") for i, a in enumerate(opts.apps)]
        for a, name in apps:
            cold, rows = fill_cache(display, tmp, roots, name, a)
            print(f"{a}: cold start to first painted list: {cold * 1000:.0f} ms ({rows} rows then)")
        if opts.transcript_only:
            drv, proc = first_paint(display, tmp, roots, "big0", 120, app)[2:]
            settle(drv)
            transcript_figures(drv, max(runs, 5))
            stop(drv, proc)
            return
        warm_starts(display, tmp, roots, apps, runs)
        if opts.warm_only:
            return
        drv, proc = first_paint(display, tmp, roots, "big0", 120, app)[2:]
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
        transcript_figures(drv, max(runs, 5))
        stop(drv, proc)

        many = tmp / "many"
        e2e.many_sessions(many, 5000, 2000)
        roots = {"CLAUDE_CONFIG_DIR": str(many), "CODEX_HOME": str(tmp / "none"), "XDG_DATA_HOME": str(tmp / "none")}
        _, _, drv, proc = first_paint(display, tmp, roots, "many", 300, app)
        drv.until(f"return {TOTAL} >= 5000", 300)
        tree_figures(drv)
        drv.js("const s = document.querySelector('[data-testid=\"group-mode\"]'); s.value = 'flat';"
               "s.dispatchEvent(new Event('change', {bubbles: true}))")
        time.sleep(1)
        drv.call("POST", drv.s("/timeouts"), {"script": 600_000})
        shifts = sorted(shift_figures(drv))
        print(f"the list following a 600 px scroll (window update and layout, no paint): median "
              f"{statistics.median(shifts):.1f} ms, p95 {shifts[int(len(shifts) * 0.95)]:.1f} ms")
        scrolls = [scroll_figures(drv) for _ in range(3)]
        gaps = sorted(g for r in scrolls for g in r["gaps"])
        p95 = gaps[int(len(gaps) * 0.95)]
        print(f"scrolling a {scrolls[0]['rows']}-session list top to bottom, 600 px a frame "
              f"(at most {max(r['dom'] for r in scrolls)} rows in the DOM; Xvfb's software painting): "
              f"{ms([r['total'] for r in scrolls])} for {len(scrolls[0]['gaps'])} frames; frame interval "
              f"median {statistics.median(gaps):.1f} ms, p95 {p95:.1f} ms, max {gaps[-1]:.1f} ms")
        stop(drv, proc)
    finally:
        xvfb.send_signal(signal.SIGTERM)
        xvfb.wait(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
