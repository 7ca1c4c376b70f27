#!/usr/bin/env python3
"""Record a Cline CLI store: tests/record/cline.py VERSION

Needs `npm install --prefix target/agents/cline-VERSION cline@VERSION`. Configures an
OpenAI-compatible provider pointing at the scripted model (`cline auth`), runs tasks headless
under HOME=/tmp/agent-rec/cline-VERSION/home with CLINE_NO_AUTO_UPDATE=1, stops the hub daemon
3.x leaves running (by the pid it records), then copies ~/.cline (without logs) to
testdata/cline/VERSION/dot-cline. Sessions: a tool loop (read, shell, edit, with reasoning), its
resume by id with non-ASCII text, a failed model call, a >100 KB shell output, a subagent where
the version has one, and a second project whose directory name is not ASCII.
"""

import json
import os
import signal

import common as c

rec, CLINE, dot, (a, b) = c.start("cline", "cline", "cline", ".cline")
rec.env["CLINE_NO_AUTO_UPDATE"] = "1"
V3 = rec.version.startswith("3.")
BASE = "http://127.0.0.1:%d/v1" % rec.port
if V3:
    rec.run([CLINE, "auth", "openai", "-k", "mock-key", "-m", "mock-coder", "-b", BASE], a)
    RUN, RESUME = [], "--id"
else:
    rec.run([CLINE, "auth", "-p", "openai", "-k", "mock-key", "-m", "mock-coder", "-b", BASE], a)
    RUN, RESUME = ["-y"], "-T"


def cline(cwd, *args):
    return rec.run([CLINE, *RUN, *args], cwd, timeout=180)


def session_ids():
    """Session (3.x) or task (2.x) ids in the order they were made."""
    found = [p for p in dot.glob("data/sessions/*") if p.is_dir()] + \
        [p for p in dot.glob("data/tasks/*") if p.is_dir()]
    return [p.name for p in sorted(found, key=lambda p: p.stat().st_mtime)]


def stop_hub():
    """3.x leaves a detached hub daemon running: stop it by the pid its lock records."""
    for owner in dot.glob("data/locks/hub/*.json"):
        pid = json.loads(owner.read_text()).get("pid")
        try:
            os.kill(pid, signal.SIGTERM)
            rec.note("# stopped the hub daemon, pid %d (from %s)" % (pid, owner.name))
        except (ProcessLookupError, TypeError):
            pass


notes = a / "notes.txt"
cline(a, c.tool_loop_prompt(notes))
ids = session_ids()
if ids:
    rc, _ = cline(a, RESUME, ids[0], c.RESUME_PROMPT)
    if rc != 0:  # 3.0.65 resumes only in its TUI: run that in a pseudo-terminal until the reply
        rec.run(["python3", str(c.REPO / "tests/record/pty_type.py"), "120",
                 "Auto-approve", c.RESUME_PROMPT, "Ichhabenotes.txtgelesen", CLINE, *RUN,
                 RESUME, ids[0]], a, timeout=180)
cline(a, c.FAIL_PROMPT)
cline(a, c.BIG_OUTPUT_PROMPT)
if "spawn_agent" in rec.declared_tools():
    cline(a, c.subagent_prompt("research"))
else:
    rec.note("# no subagent tool is declared by this version")
cline(b, c.NON_ASCII_PROMPT)
stop_hub()
kept = {p.name: "dot-cline/" + p.name for p in dot.iterdir()}
copies = {".cline/" + k: v for k, v in kept.items() if k != "data"}
if (dot / "data").exists():
    copies.update({".cline/data/" + p.name: "dot-cline/data/" + p.name
                   for p in (dot / "data").iterdir() if p.name not in ("logs", "locks", "db")})
    # The session databases; the hub's event log, runs, cron and connectors are not sessions.
    copies.update({".cline/data/db/" + p.name: "dot-cline/data/db/" + p.name
                   for p in (dot / "data/db").glob("*.db*")
                   if p.name.split(".")[0] in ("sessions", "session-search", "tasks", "teams")})
print(rec.finish(copies))
