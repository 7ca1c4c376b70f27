"""Shared helpers for recording a real agent's store against the scripted model (mock_model.py).

Each tests/record/<agent>.py runs one pinned version of the agent CLI, installed into
target/agents/<package>-<version>, under a throwaway HOME (/tmp/agent-rec/<agent>-<version>/home)
with every model call going to crates/cli/tests/agents/mock_model.py on 127.0.0.1, then copies
the store into testdata/<agent>/<version>/ with run.log (argv, cwd, the CLI's own output, exit
code) and requests.jsonl left out (it is large; the run.log names what was sent).
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MOCK = REPO / "crates/cli/tests/agents/mock_model.py"
AGENTS = REPO / "target/agents"


class Recorder:
    def __init__(self, agent, version, package):
        self.agent, self.version = agent, version
        self.prefix = AGENTS / ("%s-%s" % (package.split("/")[-1], version))
        self.base = Path("/tmp/agent-rec/%s-%s" % (agent, version))
        if self.base.exists():
            shutil.rmtree(self.base)
        self.home = self.base / "home"
        self.home.mkdir(parents=True)
        self.out = REPO / "testdata" / agent / version
        self.log_lines = []
        self.requests = self.base / "requests.jsonl"
        self.mock = subprocess.Popen([sys.executable, str(MOCK), str(self.requests)],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.mock.stdout.readline())
        self.env = {"HOME": str(self.home), "PATH": os.environ["PATH"], "LANG": "C.UTF-8",
                    "TERM": "dumb", "NO_COLOR": "1", "TZ": "UTC"}

    def project(self, name, files):
        d = self.home / "projects" / name
        d.mkdir(parents=True, exist_ok=True)
        for rel, text in files.items():
            (d / rel).write_text(text)
        return d

    def note(self, text):
        self.log_lines.append(text)

    def run(self, argv, cwd, extra_env=None, timeout=300, stdin=None):
        """Run the agent; log the argv (relative to the install), cwd, output and exit code."""
        env = dict(self.env, **(extra_env or {}))
        shown = [a.replace(str(self.prefix), "$PREFIX") for a in argv]
        self.log_lines.append("### %s\n# cwd: %s" % (" ".join(shown), cwd))
        before = self.request_count()
        try:
            p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=timeout, input=stdin or "")
            out, rc = p.stdout + p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
                errors="replace")
            rc = "timeout"
        if len(out) > 20000:
            out = out[:10000] + "\n[… %d characters of output left out …]\n" % (
                len(out) - 20000) + out[-10000:]
        self.log_lines.append(out.rstrip("\n"))
        self.log_lines.append("rc=%s  (model calls: %d)" % (rc, self.request_count() - before))
        time.sleep(1.1)  # distinct timestamps in file names between runs
        return rc, out

    def declared_tools(self):
        """Every tool name the agent declared to the model so far (Gemini or OpenAI shape)."""
        names = set()
        with open(self.requests) as f:
            for line in f:
                body = json.loads(line)["body"] or {}
                for t in body.get("tools", []) or []:
                    names.update(d["name"] for d in t.get("functionDeclarations", []) or [])
                    if t.get("type") == "function":
                        names.add(t["function"]["name"])
        return names

    def request_count(self):
        if not self.requests.exists():
            return 0
        with open(self.requests) as f:
            return sum(1 for _ in f)

    def finish(self, copies):
        """Stop the mock; copy {source under home: name in the fixture}; write run.log."""
        self.mock.kill()
        self.mock.wait()
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        for src, dst in copies.items():
            s = self.home / src
            if s.is_dir():
                shutil.copytree(s, self.out / dst, symlinks=True)
            elif s.exists():
                (self.out / dst).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(s, self.out / dst)
        header = ["# %s %s recorded by tests/record/%s.py" % (self.agent, self.version,
                                                             self.agent),
                  "# HOME=%s, model server on 127.0.0.1 (crates/cli/tests/agents/mock_model.py)"
                  % self.home, "# $PREFIX = target/agents/%s" % self.prefix.name]
        header.append("# EXPECTED.json: python3 tests/record/expected.py testdata/%s/%s"
                      % (self.agent, self.version))
        header.append("# requests.jsonl: each model call, summarised (tests/record/common.py)")
        write_request_summary(self.requests, self.out / "requests.jsonl")
        text = "\n".join(header + self.log_lines) + "\n"
        # Stack traces name the install; keep the log free of this machine's paths.
        text = text.replace(str(self.prefix), "$PREFIX").replace(str(REPO), "$REPO")
        (self.out / "run.log").write_text(text)
        return self.out


def two_projects(rec):
    """The demo project, and a second one whose directory name is not ASCII."""
    return (rec.project("demo", {"notes.txt": "alpha\n", "main.py": "print('hi')\n"}),
            rec.project("naïve-проект", {"README.md": "# Проект\n"}))


# Settings both Gemini CLI and Qwen Code take: nothing sent anywhere, no update checks.
QUIET_SETTINGS = {"privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False}}


# The prompts every agent is given (the [[…]] scripts are read by mock_model.py).
def tool_loop_prompt(notes):
    return ("[[think]] [[steps: read %s; shell ls -la && echo tool-ran; edit %s alpha => beta]] "
            "Read notes.txt, list the folder, then change alpha to beta." % (notes, notes))


RESUME_PROMPT = ("Grüße! Was hast du gefunden? 日本語でも "
                 "[[say Ich habe notes.txt gelesen — 完了 ✓ 🎉]]")
FAIL_PROMPT = "[[fail]] This model call fails."
BIG_OUTPUT_PROMPT = "[[steps: shell seq 1 30000]] Print many numbers."
NON_ASCII_PROMPT = "Привет, 世界! Что здесь? [[say Здравствуйте 👋 — всё в порядке]]"


def subagent_prompt(agent):
    return ("[[steps: agent %s Find where notes are kept.]] "
            "Delegate the investigation to a subagent." % agent)


def start(agent, package, binary, dot_name):
    """Recorder for sys.argv[1], the agent's executable, its (new) store folder, two projects."""
    rec = Recorder(agent, sys.argv[1], package)
    dot = rec.home / dot_name
    dot.mkdir()
    return rec, str(rec.prefix / "node_modules/.bin" / binary), dot, two_projects(rec)


def user_texts(body):
    """The user texts of a model request (Gemini `contents` or OpenAI `messages`), in order."""
    texts = []
    for m in body.get("contents") or body.get("messages") or []:
        if m.get("role") != "user":
            continue
        parts = m.get("parts") or m.get("content") or []
        if isinstance(parts, str):
            parts = [{"text": parts}]
        for p in parts:
            text = (p.get("text") or "").strip() if isinstance(p, dict) else ""
            if text and not text.startswith(("<session_context>", "<system-reminder>")):
                texts.append(text)
    return texts


def write_request_summary(requests, dest):
    """One line per model call: its path, how many messages it carried, its first and last
    user text (80 characters). After a resume, the first user text is the restored history's."""
    lines = []
    if requests.exists():
        for line in requests.read_text().splitlines():
            rec = json.loads(line)
            body = rec["body"] or {}
            texts = user_texts(body)
            lines.append(json.dumps({
                "path": rec["path"].split("?")[0],
                "messages": len(body.get("contents") or body.get("messages") or []),
                "first_user": texts[0][:80] if texts else None,
                "last_user": texts[-1][:80] if texts else None,
            }, ensure_ascii=False))
    dest.write_text("".join(l + "\n" for l in lines))
