#!/usr/bin/env python3
"""Record Aider chat histories: tests/record/aider.py VERSION

Needs `python3 -m venv target/agents/aider-VERSION && target/agents/aider-VERSION/bin/pip
install aider-chat==VERSION`. Runs `aider --message …` under HOME=/tmp/agent-rec/aider-VERSION/home
in two git repositories against the scripted model (OpenAI chat completions through
--openai-api-base), then copies each repository's .aider.chat.history.md and
.aider.input.history (Aider keeps no central store) to testdata/aider/VERSION/<repo>/.
Runs: an edit with reasoning (a SEARCH/REPLACE block the model writes), a slash command
(/run, 169 KB of output added to the chat, which the history file does not keep), a 169 KB
reply, a --restore-chat-history run with non-ASCII text (the request after it is checked for the
restored turns), a failed model call, and a second repository whose directory name is not ASCII.
"""

import subprocess
import sys

import common as c

rec = c.Recorder("aider", sys.argv[1], "aider")
# Aider writes its own argv into the history: run it by a link in the throwaway home.
AIDER = rec.home / ".local/bin/aider"
AIDER.parent.mkdir(parents=True)
AIDER.symlink_to(rec.prefix / "bin/aider")
AIDER = str(AIDER)
a, b = c.two_projects(rec)
for repo in (a, b):
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
rec.env.update({"LITELLM_LOCAL_MODEL_COST_MAP": "True", "GIT_AUTHOR_NAME": "rec",
                "GIT_AUTHOR_EMAIL": "rec@example.invalid", "GIT_COMMITTER_NAME": "rec",
                "GIT_COMMITTER_EMAIL": "rec@example.invalid"})
COMMON = ["--model", "openai/mock-coder", "--openai-api-base",
          "http://127.0.0.1:%d/v1" % rec.port, "--openai-api-key", "mock-key", "--yes-always",
          "--no-auto-commits", "--no-check-update", "--no-analytics", "--no-pretty",
          "--no-show-release-notes", "--no-show-model-warnings", "--edit-format", "diff"]




def aider(cwd, *args):
    return rec.run([AIDER, *COMMON, *args], cwd)


def last_request_carries(text):
    with open(rec.requests) as f:
        last = [line for line in f][-1]
    return text in last


aider(a, "notes.txt", "--message",
      "[[think]] Change alpha to beta in notes.txt. [[search-replace notes.txt alpha => beta]]")
aider(a, "--message", "/run seq 1 30000")
aider(a, "--restore-chat-history", "--message", c.RESUME_PROMPT)
rec.note("# the model call after --restore-chat-history carried the first run's prompt: %s"
         % last_request_carries("Change alpha to beta in notes.txt."))
# After this reply the history is too long: a restore would send Aider's summary instead.
aider(a, "--message", "[[big 30000]] Print the numbers from 1 to 30000.")
aider(a, "--message", c.FAIL_PROMPT)
aider(b, "--message", c.NON_ASCII_PROMPT)
out = rec.finish({"projects/%s/%s" % (d.name, f): "%s/%s" % (d.name, f)
                  for d in (a, b) for f in (".aider.chat.history.md", ".aider.input.history")})
print(out)
