#!/usr/bin/env python3
"""Record a GitHub Copilot CLI store: tests/record/copilot.py VERSION  (1.0.x: offline mode)

Needs `npm install --prefix target/agents/copilot-VERSION @github/copilot@VERSION`. Runs
`copilot -p … --allow-all-tools` under HOME=/tmp/agent-rec/copilot-VERSION/home with
COPILOT_OFFLINE=true and the scripted model as an OpenAI-compatible provider
(COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_TYPE=openai, COPILOT_MODEL), then copies ~/.copilot
(without logs/) to testdata/copilot/VERSION/dot-copilot. Sessions: a tool loop (view, bash,
edit, with reasoning), its resume by id with non-ASCII text, a failed model call, a >100 KB
shell output, a subagent (task tool), and a second project whose directory name is not ASCII.
"""

import re

import common as c

rec, COPILOT, dot, (a, b) = c.start("copilot", "@github/copilot", "copilot", ".copilot")
rec.env.update({"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:%d/v1" % rec.port,
                "COPILOT_MODEL": "gpt-5", "COPILOT_PROVIDER_API_KEY": "mock-key"})


def copilot(cwd, *args):
    return rec.run([COPILOT, *args, "--allow-all-tools"], cwd)


notes = a / "notes.txt"
_, out = copilot(a, "-p", c.tool_loop_prompt(notes))
first = re.search(r"--resume=(\S+)", out).group(1)
copilot(a, "--resume=%s" % first, "-p", c.RESUME_PROMPT)
copilot(a, "-p", c.FAIL_PROMPT)
copilot(a, "-p", c.BIG_OUTPUT_PROMPT)
copilot(a, "-p", c.subagent_prompt("explore"))
copilot(b, "-p", c.NON_ASCII_PROMPT)
kept = {p.name: "dot-copilot/" + p.name for p in dot.iterdir() if p.name != "logs"}
print(rec.finish({".copilot/" + k: v for k, v in kept.items()}))
