#!/usr/bin/env python3
"""The window's memory and idle CPU (issue 36, docs/performance.md "The window's memory"): starts
the release app as a user would (no WebDriver) under Xvfb on the bench's 300 MB store with an
empty cache, waits until the list and the full-text index are complete and the app has gone
quiet, then reads each process's proportional set size (PSS, /proc/<pid>/smaps_rollup: the
main process, WebKitWebProcess, WebKitNetworkProcess) and the CPU each used over `--idle`
seconds (/proc/<pid>/stat, utime + stime). Printed, never asserted. Standard library only.

    cargo run --release -p agent-sessions-bench -- --size-mb 300 --suite index   # the corpus, once
    python3 tests/perf/window_memory.py [--idle 120] [--runs 1] [--breakdown] [--corpus DIR] APP [APP ...]

An APP may carry environment variables for its run, `KEY=VALUE,KEY2=VALUE2@path/to/app`, so a
setting read from the environment is measured against the same binary without it.

Several apps (a build before and after a change) are measured in turn, `--runs` times each,
alternated. PSS divides a library's pages among every process that maps them, and "private"
counts a page only this process maps: both move with whatever else runs WebKit on the machine
(other windows, tests); the anonymous memory does not. `--breakdown` also prints the largest mappings of each process by PSS (what holds
the memory: the heap, anonymous maps such as JavaScriptCore's, or libraries).
"""

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "target/bench-corpus/g2-all-300MB-big40"
TICK = os.sysconf("SC_CLK_TCK")
# The app's processes, by the name in /proc/<pid>/comm (15 characters at most).
NAMES = {"WebKitWebProces": "web", "WebKitNetworkPr": "network"}


def xvfb():
    """An X server on a display it picks itself (`-displayfd`: no race with other runs)."""
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        display = f.readline().strip()
    return proc, display


def processes(main):
    """{role: pid} of the app's processes: the main one and WebKit's children (any depth)."""
    found = {"main": main}
    parents = {main}
    for _ in range(3):
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                stat = (d / "stat").read_text()
                comm = (d / "comm").read_text().strip()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid in parents and comm in NAMES:
                found[NAMES[comm]] = int(d.name)
                parents.add(int(d.name))
    return found


def pss(pid):
    """{field: kB} of /proc/<pid>/smaps_rollup (Rss, Pss, Pss_Anon, Pss_File, …)."""
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        out[key] = int(value.split()[0])
    return out


def cpu(pid):
    """Seconds of CPU (user + system) the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def breakdown(pid, top=12):
    """The mappings holding most of the process's PSS, grouped by what maps them."""
    groups = {}
    name = None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if "-" in head[0] and not head[0].endswith(":"):
            name = head[5] if len(head) > 5 else "[anon]"
            if name.startswith("/"):
                name = os.path.basename(name)
        elif head[0] == "Pss:":
            groups[name] = groups.get(name, 0) + int(head[1])
    return sorted(groups.items(), key=lambda kv: -kv[1])[:top]


def pending(cache):
    """Sessions listed and sessions whose text is not indexed yet, from the app's cache (read
    only; None while it does not exist)."""
    for db in sorted(cache.rglob("*.db")) if cache.exists() else []:
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            try:
                listed, left = conn.execute(
                    "SELECT count(*), coalesce(sum(text_indexed = 0), 0) FROM sessions").fetchone()
            finally:
                conn.close()
            return listed, left
        except sqlite3.Error:
            continue
    return None


def wait_quiet(pids, cache, timeout, quiet_s=10.0, limit=0.05):
    """Waits until the index is complete, then until every process used at most `limit` of a
    core over `quiet_s`; the seconds it took."""
    t0 = time.monotonic()
    while True:
        state = pending(cache)
        if state and state[0] > 0 and state[1] == 0:
            break
        if time.monotonic() - t0 > timeout:
            raise RuntimeError(f"the index was not complete after {timeout} s: {state}")
        time.sleep(1)
    while True:
        before = {r: cpu(p) for r, p in pids.items()}
        time.sleep(quiet_s)
        used = {r: cpu(p) - before[r] for r, p in pids.items()}
        if all(u <= limit * quiet_s for u in used.values()):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise RuntimeError(f"never quiet: {used}")


def parse_app(spec):
    """(path, {variable: value}) of an APP argument: `[KEY=VALUE,...@]path`."""
    extra, sep, path = spec.rpartition("@")
    env = dict(kv.split("=", 1) for kv in extra.split(",")) if sep else {}
    return Path(path), env


def measure(app, corpus, display, idle, show_breakdown, timeout):
    app, app_env = parse_app(app)
    tmp = Path(tempfile.mkdtemp(prefix="agent-sessions-mem-"))
    (tmp / "home").mkdir()
    (tmp / "data").mkdir()
    # OpenCode's root is <XDG_DATA_HOME>/opencode; the corpus is read, never written.
    (tmp / "data/opencode").symlink_to(corpus / "opencode")
    cache = tmp / "cache"
    env = dict(os.environ, DISPLAY=display, HOME=str(tmp / "home"), AGENT_SESSIONS_CACHE_DIR=str(cache),
               AGENT_SESSIONS_CONFIG=str(tmp / "config.toml"), CLAUDE_CONFIG_DIR=str(corpus / "claude"),
               CODEX_HOME=str(corpus / "codex"), XDG_DATA_HOME=str(tmp / "data"), **app_env)
    proc = subprocess.Popen([str(app)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        pids = processes(proc.pid)
        missing = {"web", "network"} - pids.keys()
        if missing:
            raise RuntimeError(f"no {missing} process under {proc.pid}")
        took = wait_quiet(pids, cache, timeout)
        start = {r: (cpu(p), pss(p)) for r, p in pids.items()}
        time.sleep(idle)
        end = {r: (cpu(p), pss(p)) for r, p in pids.items()}
        rows = {r: {"pss_mb": end[r][1]["Pss"] / 1024, "pss_start_mb": start[r][1]["Pss"] / 1024,
                    "uss_mb": (end[r][1]["Private_Clean"] + end[r][1]["Private_Dirty"]) / 1024,
                    "anon_mb": end[r][1].get("Pss_Anon", 0) / 1024, "file_mb": end[r][1].get("Pss_File", 0) / 1024,
                    "rss_mb": end[r][1]["Rss"] / 1024, "cpu_s": end[r][0] - start[r][0]} for r in pids}
        extra = {r: breakdown(p) for r, p in pids.items()} if show_breakdown else {}
        return took, rows, extra
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        subprocess.run(["rm", "-rf", str(tmp)], check=False)


def report(app, took, rows, extra, idle):
    print(f"\n{app}: indexed and quiet after {took:.0f} s; then {idle} s idle")
    print(f"| process | PSS | of it anonymous | of it files | private (USS) | RSS | PSS at the idle's start | CPU over {idle} s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = {k: 0.0 for k in ("pss_mb", "anon_mb", "file_mb", "uss_mb", "rss_mb", "pss_start_mb", "cpu_s")}
    for role in ("main", "web", "network"):
        r = rows[role]
        for k in total:
            total[k] += r[k]
        print(f"| {role} | {r['pss_mb']:.0f} MB | {r['anon_mb']:.0f} MB | {r['file_mb']:.0f} MB | {r['uss_mb']:.0f} MB | {r['rss_mb']:.0f} MB"
              f" | {r['pss_start_mb']:.0f} MB | {r['cpu_s']:.2f} s |")
    t = total
    print(f"| **all** | **{t['pss_mb']:.0f} MB** | {t['anon_mb']:.0f} MB | {t['file_mb']:.0f} MB | {t['uss_mb']:.0f} MB | - "
          f"| {t['pss_start_mb']:.0f} MB | **{t['cpu_s']:.2f} s** |")
    for role, maps in extra.items():
        print(f"  {role}: " + ", ".join(f"{n} {kb / 1024:.1f} MB" for n, kb in maps))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("apps", nargs="+", help="release binaries, each optionally KEY=VALUE,...@path")
    ap.add_argument("--idle", type=int, default=120, help="seconds of idle measured (default 120)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900, help="seconds to wait for the index (default 900)")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help=f"the stores (default {CORPUS})")
    ap.add_argument("--breakdown", action="store_true", help="also the largest mappings of each process")
    opts = ap.parse_args()
    if not (opts.corpus / "opencode/opencode.db").exists():
        sys.exit(f"no corpus at {opts.corpus}: cargo run --release -p agent-sessions-bench -- --size-mb 300 --suite index")
    server, display = xvfb()
    try:
        print(f"store: {opts.corpus}; load average {os.getloadavg()[0]:.1f}")
        for run in range(opts.runs):
            for app in opts.apps:
                took, rows, extra = measure(app, opts.corpus, f":{display}", opts.idle, opts.breakdown, opts.timeout)
                report(app, took, rows, extra, opts.idle)
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
