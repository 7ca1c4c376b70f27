"""Repeated CLI searches with the background index (docs/performance.md, "Repeated searches"):
an empty cache listed once, three searches one after another, then two more once the detached
`index --background` has gone (its lock beside the cache file). Prints each search's start,
time, sessions read directly and what it said of the background index.

    cargo build --release -p agent-sessions-cli -p agent-sessions-bench
    target/release/agent-sessions-bench --suite index --size-mb 300   # makes the corpus
    python3 tests/perf/search_background.py [CORPUS] [CLI]
"""
import json, os, shutil, subprocess, sys, time, tempfile
from pathlib import Path
REPO = Path(__file__).resolve().parents[2]
base = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/bench-corpus/g2-all-300MB-big40")
cli = sys.argv[2] if len(sys.argv) > 2 else str(REPO / "target/release/agent-sessions-cli")
cache = tempfile.mkdtemp(prefix="m35-")
env = dict(os.environ, AGENT_SESSIONS_CACHE_DIR=cache, HOME=cache + "/home")
env.pop("AGENT_SESSIONS_NO_BACKGROUND_INDEX", None)
roots = ["--claude-root", base + "/claude", "--codex-root", base + "/codex", "--opencode-root", base + "/opencode"]
def run(*args):
    t = time.time()
    out = subprocess.run([cli, *roots, *args, "--json"], env=env, capture_output=True, text=True)
    dt = time.time() - t
    return dt, json.loads(out.stdout)
dt, v = run("scan")
print("scan", round(dt, 2), len(v["data"]["sessions"]))
rows = []
t0 = time.time()
for q in ["QueryBuilder9000", "handler nowhereword1", "E0222 retry"]:
    dt, v = run("search", q)
    d = v["data"]
    rows.append((q, round(time.time() - t0, 1), round(dt, 2), d.get("read_directly"), d.get("background_index", {}).get("state")))
# wait for the background index to finish: the lock beside the cache file goes
start = time.time()
while any(f.endswith(".lock") for f in os.listdir(cache)) and time.time() - start < 120:
    time.sleep(0.2)
print("background index done after", round(time.time() - start, 1), "s more")
for q in ["nowhereword3", "nowhereword4"]:
    dt, v = run("search", q)
    d = v["data"]
    rows.append((q, round(time.time() - t0, 1), round(dt, 2), d.get("read_directly"), d.get("background_index", {}).get("state")))
print("| search | done at | time | read directly | background_index |")
print("| --- | --- | --- | --- | --- |")
for q, at, dt, direct, state in rows:
    print(f"| `{q}` | {at} s | {dt} s | {direct} | {state or '-'} |")
shutil.rmtree(cache, ignore_errors=True)
