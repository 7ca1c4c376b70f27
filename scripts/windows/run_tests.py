#!/usr/bin/env python3
"""Runs the Windows test executables under Wine, several at a time (scripts/test-windows.sh).

cargo runs test binaries one after another; under Wine most of a binary's time is Wine's
file and process calls, which leave a core idle, so two binaries at once take about half the
time. Reads the build's JSON messages (`cargo test --no-run --message-format=json`), runs each
test executable as cargo would (its package's folder as the working directory), prints each
binary's whole output when it ends (so outputs never interleave) and a table of durations, and
exits non-zero when any binary failed. Standard library only.

    run_tests.py --wine WINE --jobs N --log FILE ARTIFACTS.json [-- test-binary args...]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# The binaries that take longest under Wine start first, so the last ones to end are short.
SLOW_FIRST = ["live_transcript", "search_unindexed", "cli", "robustness", "index_append", "follow",
              "bundle_restore", "timeline"]


def executables(artifacts):
    """(name, executable, package folder) of every test executable the build made."""
    found = []
    for line in Path(artifacts).read_text().splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("profile", {}).get("test"):
            continue
        exe = msg.get("executable")
        if exe:
            target = msg["target"]
            kind = "lib" if "lib" in target["kind"] else target["kind"][0]
            name = f"{Path(msg['manifest_path']).parent.name}/{kind}/{target['name']}"
            found.append((name, exe, str(Path(msg["manifest_path"]).parent), target["name"]))
    rank = {n: i for i, n in enumerate(SLOW_FIRST)}
    found.sort(key=lambda f: (rank.get(f[3], len(SLOW_FIRST)), f[0]))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wine", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--log", required=True)
    ap.add_argument("artifacts")
    ap.add_argument("args", nargs="*")
    opts = ap.parse_args()
    todo = executables(opts.artifacts)
    if not todo:
        sys.exit("run_tests: the build listed no test executables")
    lock = threading.Lock()
    results = []
    # UTF-8 whatever the locale (a C locale's ASCII cannot write the tests' non-ASCII names).
    with open(opts.log, "w", encoding="utf-8") as log:

        def run(item):
            name, exe, folder, _ = item
            env = dict(os.environ, CARGO_MANIFEST_DIR=folder)
            start = time.monotonic()
            # Into a file, not a pipe: the Wine services the first program starts (winedevice,
            # rpcss, ...) inherit its handles and outlive it, so a pipe would never end.
            with tempfile.TemporaryFile() as out:
                proc = subprocess.run([opts.wine, exe, *opts.args], cwd=folder, env=env,
                                      stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
                out.seek(0)
                text = out.read().decode("utf-8", "replace")
            took = time.monotonic() - start
            with lock:
                block = f"     Running {name} ({exe})\n{text}"
                sys.stdout.buffer.write(block.encode("utf-8"))
                sys.stdout.flush()
                log.write(block)
                log.flush()
                results.append((took, name, proc.returncode))

        def run_safely(item):
            # A binary that could not be run at all is a failure of its own, never a lost one.
            try:
                run(item)
            except Exception as e:  # noqa: BLE001 - reported, and the run goes on
                with lock:
                    results.append((0.0, item[0], f"not run: {e}"))

        with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            list(pool.map(run_safely, todo))
    failed = [r for r in results if r[2] != 0]
    if len(results) != len(todo):
        failed.append((0.0, f"{len(todo) - len(results)} binaries", "never reported"))
    print(f"\nrun_tests: {len(results)} test binaries, {opts.jobs} at a time; the longest:")
    for took, name, code in sorted(results, key=lambda r: r[0], reverse=True)[:10]:
        print(f"  {took:7.1f} s  {name}{'  FAILED' if code else ''}")
    for _, name, code in failed:
        print(f"run_tests: FAILED {name} ({code})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
