#!/usr/bin/env python3
"""Record a Qwen Code store: tests/record/qwen.py VERSION

Needs `npm install --prefix target/agents/qwen-code-VERSION @qwen-code/qwen-code@VERSION`.
Runs the CLI headless (-p, --yolo) under HOME=/tmp/agent-rec/qwen-VERSION/home against the
scripted model (OpenAI chat completions: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL), then
copies ~/.qwen to testdata/qwen/VERSION/dot-qwen. Sessions: a tool loop (read, shell, edit,
with reasoning), its resume by id (where the version has --resume) with non-ASCII text, a
failed model call, a >100 KB shell output, a subagent (task tool) where the version has one,
and a second project whose directory name is not ASCII.
"""

import json
import re
import common as c

rec, QWEN, dot, (a, b) = c.start("qwen", "@qwen-code/qwen-code", "qwen", ".qwen")
settings = {
    "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    **c.QUIET_SETTINGS,
}
(dot / "settings.json").write_text(json.dumps(settings, indent=2))
rec.env.update({"OPENAI_API_KEY": "mock-key", "OPENAI_MODEL": "qwen3-coder-plus",
                "OPENAI_BASE_URL": "http://127.0.0.1:%d/v1" % rec.port})
HELP = rec.run([QWEN, "--help"], a)[1]
rec.log_lines[-2] = "(help text left out)"


def qwen(cwd, *args):
    return rec.run([QWEN, "--yolo", *args], cwd)


def sessions():
    """Session ids in the order their files were written."""
    found = []
    for f in sorted(dot.rglob("chats/*.json*"), key=lambda p: p.stat().st_mtime):
        m = re.search(r'"sessionId"\s*:\s*"([^"]+)"', f.read_text())
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


notes = a / "notes.txt"
qwen(a, "-p", c.tool_loop_prompt(notes))
resume = c.RESUME_PROMPT
if "--resume" in HELP:
    qwen(a, "--resume", sessions()[0], "-p", resume)
else:
    rec.note("# this version has no --resume or --continue: the resume is not recorded")
qwen(a, "-p", c.FAIL_PROMPT)
qwen(a, "-p", c.BIG_OUTPUT_PROMPT)
if {"task", "agent"} & rec.declared_tools():
    qwen(a, "-p", c.subagent_prompt("general-purpose"))
else:
    rec.note("# no task (subagent) tool is declared by this version")
qwen(b, "-p", c.NON_ASCII_PROMPT)
if "--continue" in HELP:
    qwen(b, "--continue", "-p", "Und weiter? [[say Fertig.]]")
out = rec.finish({".qwen": "dot-qwen"})
print(out)
