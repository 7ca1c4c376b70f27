#!/usr/bin/env python3
"""Record a Gemini CLI store: tests/record/gemini.py VERSION

Needs `npm install --prefix target/agents/gemini-cli-VERSION @google/gemini-cli@VERSION`.
Runs the CLI headless (-p, --yolo) under HOME=/tmp/agent-rec/gemini-VERSION/home against the
scripted model (GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY), then copies ~/.gemini to
testdata/gemini/VERSION/dot-gemini. Sessions: a tool loop (read, shell, edit, with reasoning),
its resume by id with non-ASCII text, a failed model call, a >100 KB shell output, a subagent
where the version has one, and a second project whose directory name is not ASCII.
"""

import json
import re
import common as c

rec, GEMINI, dot, (a, b) = c.start("gemini", "@google/gemini-cli", "gemini", ".gemini")
settings = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"sessionRetention": {"enabled": False}, "disableAutoUpdate": True,
                "disableUpdateNag": True},
    **c.QUIET_SETTINGS,
}
(dot / "settings.json").write_text(json.dumps(settings, indent=2))
(dot / "trustedFolders.json").write_text(
    json.dumps({str(a): "TRUST_FOLDER", str(b): "TRUST_FOLDER"}, indent=2))
rec.env.update({"GEMINI_API_KEY": "mock-key",
                "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:%d" % rec.port})


def gemini(cwd, *args):
    return rec.run([GEMINI, "-y", *args], cwd)


def sessions():
    """{session id: file} for every session file written so far."""
    found = {}
    for f in sorted((dot / "tmp").glob("*/chats/*.json*")):
        text = f.read_text()
        m = re.search(r'"sessionId"\s*:\s*"([^"]+)"', text)
        if m:
            found.setdefault(m.group(1), f)
    return found


notes = a / "notes.txt"
gemini(a, "-p", c.tool_loop_prompt(notes))
first = next(iter(sessions()))
rc, _ = gemini(a, "--resume", first, "-p", c.RESUME_PROMPT)
if rc != 0:
    rec.note("# --resume <id> failed in this version: resuming the latest session instead")
    gemini(a, "--resume", "latest", "-p", c.RESUME_PROMPT)
gemini(a, "-p", c.FAIL_PROMPT)
gemini(a, "-p", c.BIG_OUTPUT_PROMPT)
tools = rec.declared_tools()
if "invoke_agent" in tools or "codebase_investigator" in tools:
    gemini(a, "-p", c.subagent_prompt("codebase_investigator"))
else:
    rec.note("# no subagent tool is declared by this version (tools: %s)" % ", ".join(sorted(tools)))
gemini(b, "-p", c.NON_ASCII_PROMPT)
gemini(a, "--list-sessions")
out = rec.finish({".gemini": "dot-gemini"})
print(out)
