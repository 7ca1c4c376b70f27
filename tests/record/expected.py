#!/usr/bin/env python3
"""Compute a fixture's EXPECTED.json from its raw files, independently of this project's readers.

Usage: tests/record/expected.py testdata/<agent>/<version>      (writes EXPECTED.json there)

Only the standard library and the fixture itself are used (the store and run.log, whose
"# cwd:" lines name the directories the agent ran in). The counting rules are the ones
docs/formats.md states for each agent:

Gemini CLI (dot-gemini/tmp/<project>/chats/):
  A session file is replayed the way the CLI's own loader does: a line with `sessionId` and
  `projectHash` merges into the metadata; `{"$set": {...}}` merges too, and a `$set.messages`
  replaces every message so far (a checkpoint); a line with a string `id` is a message, stored
  by id (a later line with the same id replaces it in place); `{"$rewindTo": id}` drops that
  message and every later one. A legacy `.json` file is one ConversationRecord.
  user = `type: user` messages whose text (text parts joined, trimmed) is not empty (tool
  results), does not start with `/` or `?` (commands) or `<session_context>`/`<hook_context>`
  (context the CLI injects); assistant = `type: gemini` messages with text (not `thought`
  parts), tool calls or thoughts; tool_calls = their `toolCalls` entries, or where a message
  has none (the checkpoint a resume writes) its `functionCall` parts; errors = `type: error`
  messages.
  info/warning messages and utility model calls (routing, next-speaker checks, summaries: never
  written as messages) are not turns.
  parent = the session folder a subagent file sits in (chats/<parent id>/<id>.jsonl).
  cwd = the project folder's `.project_root`, else projects.json's entry for the folder, else
  the run directory whose sha256 is the folder name (before 0.29).

Qwen Code and Aider: see their sections below.
"""

import hashlib
import json
import re
import sys
from pathlib import Path


def run_dirs(fixture):
    text = (fixture / "run.log").read_text()
    return sorted(set(re.findall(r"^# cwd: (.+)$", text, re.M)))


def parts_of(content):
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    return [p if isinstance(p, dict) else {"text": str(p)} for p in content or []]


def text_of(content):
    """The text of a message's parts, reasoning ("thought") parts left out."""
    return "".join(p["text"] for p in parts_of(content)
                   if isinstance(p.get("text"), str) and not p.get("thought"))


# --- Gemini CLI ------------------------------------------------------------------------------

def gemini_replay(path):
    """(metadata, [messages]) of one session file, as the CLI's loader rebuilds it."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        doc = json.loads(raw)
        return doc, list(doc.get("messages", []))
    meta, messages = {}, {}
    for line in raw.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if isinstance(rec.get("$rewindTo"), str):
            ids = list(messages)
            cut = ids.index(rec["$rewindTo"]) if rec["$rewindTo"] in ids else 0
            for gone in ids[cut:]:
                del messages[gone]
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = rec
        elif isinstance(rec.get("$set"), dict):
            if isinstance(rec["$set"].get("messages"), list):
                messages = {m["id"]: m for m in rec["$set"]["messages"]
                            if isinstance(m.get("id"), str)}
            meta.update(rec["$set"])
        elif isinstance(rec.get("sessionId"), str) and isinstance(rec.get("projectHash"), str):
            meta.update(rec)
    return meta, list(messages.values())


def gemini_counts(messages):
    c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
    for m in messages:
        if m.get("type") == "user":
            t = text_of(m.get("content")).strip()
            if t and not t.startswith(("/", "?", "<session_context>", "<hook_context>")):
                c["user"] += 1
        elif m.get("type") in ("gemini", "qwen"):  # Qwen Code before 0.5 writes `qwen`
            parts = parts_of(m.get("content"))
            # A resume rewrites the history as a checkpoint in which tool calls are
            # functionCall parts and reasoning is `thought` parts (no toolCalls/thoughts).
            calls = len(m.get("toolCalls") or []) or sum("functionCall" in p for p in parts)
            thought = m.get("thoughts") or any(p.get("thought") for p in parts)
            if text_of(m.get("content")).strip() or calls or thought:
                c["assistant"] += 1
                c["tool_calls"] += calls
        elif m.get("type") == "error":
            c["errors"] += 1
    return c


def gemini_cwd(root, folder, dirs):
    marker = root / "tmp" / folder / ".project_root"
    if marker.exists():
        return marker.read_text(encoding="utf-8").strip()
    reg = root / "projects.json"
    if reg.exists():
        for path, slug in json.loads(reg.read_text(encoding="utf-8"))["projects"].items():
            if slug == folder:
                return path
    for d in dirs:
        if hashlib.sha256(d.encode()).hexdigest() == folder:
            return d
    return None


def gemini(fixture):
    root = fixture / "dot-gemini"
    dirs = run_dirs(fixture)
    out = []
    for chats in sorted((root / "tmp").glob("*/chats")):
        folder = chats.parent.name
        for f in sorted(chats.rglob("*.json*")):
            if f.suffix not in (".json", ".jsonl"):
                continue
            meta, messages = gemini_replay(f)
            if "sessionId" not in meta:
                continue
            nested = f.parent != chats
            out.append({
                "id": meta["sessionId"],
                "parent_id": f.parent.name if nested else None,
                "cwd": gemini_cwd(root, folder, dirs),
                "file": str(f.relative_to(fixture)),
                "kind": meta.get("kind"),
                "counts": gemini_counts(messages),
            })
    return out


# --- Qwen Code -------------------------------------------------------------------------------
#
# Before 0.5 (dot-qwen/tmp/<sha256 of the directory>/chats/*.json): Gemini's JSON
# ConversationRecord with assistant messages of `type: qwen`; the Gemini rules apply.
# 0.5 and later (dot-qwen/projects/<sanitised cwd>/chats/<session id>.jsonl): one record a line,
# linked by uuid/parentUuid; the conversation is the chain from the last record back to the
# root (a rewind leaves other branches in the file). On that chain:
#   user = `type: user` records without a `subtype` (a `notification` is the CLI telling the
#   model a background agent finished) whose `provenance` is absent or `real_user`, with text
#   that is not empty and does not start with `/` or `?`;
#   assistant = `type: assistant` records with text, functionCall or thought parts;
#   tool_calls = their functionCall parts; errors = `system/ui_telemetry` records whose event is
#   `qwen-code.api_error` (a failed model call). `tool_result` and other `system` records
#   (attribution snapshots, telemetry, …) are not messages.
#   cwd = the records' `cwd`; subagents are projects/<…>/subagents/<parent id>/<agent>.jsonl
#   (their records carry the parent's sessionId and isSidechain): id = the file stem, parent =
#   the folder name.

def qwen_chain(records):
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    chain, r = [], records[-1] if records else None
    while r is not None:
        chain.append(r)
        r = by_uuid.get(r.get("parentUuid"))
    return chain[::-1]


def qwen_counts(chain):
    c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
    for r in chain:
        parts = parts_of((r.get("message") or {}).get("parts"))
        if r.get("type") == "user" and not r.get("subtype") and \
                r.get("provenance", "real_user") == "real_user":
            t = text_of(parts).strip()
            if t and not t.startswith(("/", "?")):
                c["user"] += 1
        elif r.get("type") == "assistant":
            calls = sum("functionCall" in p for p in parts)
            if text_of(parts).strip() or calls or any(p.get("thought") for p in parts):
                c["assistant"] += 1
                c["tool_calls"] += calls
        elif r.get("subtype") == "ui_telemetry":
            event = ((r.get("systemPayload") or {}).get("uiEvent") or {}).get("event.name")
            c["errors"] += event == "qwen-code.api_error"
    return c


def qwen_jsonl(fixture, f, parent):
    records = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    chain = qwen_chain(records)
    return {
        "id": f.stem if parent else records[0]["sessionId"],
        "parent_id": parent,
        "cwd": next((r["cwd"] for r in chain if r.get("cwd")), None),
        "file": str(f.relative_to(fixture)),
        "kind": "subagent" if parent else "main",
        "counts": qwen_counts(chain),
    }


def qwen(fixture):
    root = fixture / "dot-qwen"
    out = []
    for f in sorted((root / "projects").glob("*/chats/*.jsonl")):
        out.append(qwen_jsonl(fixture, f, None))
    for f in sorted((root / "projects").glob("*/subagents/*/*.jsonl")):
        out.append(qwen_jsonl(fixture, f, f.parent.name))
    if (root / "tmp").exists():  # before 0.5: Gemini's layout and JSON records
        dirs = run_dirs(fixture)
        for f in sorted((root / "tmp").glob("*/chats/*.json")):
            meta, messages = gemini_replay(f)
            out.append({"id": meta["sessionId"], "parent_id": None,
                        "cwd": gemini_cwd(root, f.parent.parent.name, dirs),
                        "file": str(f.relative_to(fixture)), "kind": None,
                        "counts": gemini_counts(messages)})
    return out


# --- Aider -------------------------------------------------------------------------------------
#
# testdata/aider/<version>/<repo>/.aider.chat.history.md, one per repository. A line
# `# aider chat started at <local time>` opens a run; each run is one session.
#   id = "aider-" + the first 16 hex digits of sha256("<history path relative to the fixture>
#   \0<header line>\0<k>"), k counting earlier identical header lines in the file: stable while
#   the run is appended to, unique in the file. (A proposal; `line` and `header` are given too.)
#   user = blocks of consecutive `#### ` lines that do not start with `/` (slash commands) —
#   a multi-line prompt is one block; assistant = the non-blank text between a prompt block and
#   the next `> ` line, `#### ` line or run header (reasoning in <thinking-content-…> included);
#   errors = `> ` lines naming an exception (`…Error: `, `…Exception`); tool_calls = 0 (Aider
#   has no tool calls: edits are SEARCH/REPLACE blocks in the reply, `> Applied edit to …`).
#   cwd = the directory of the history file (run.log's `# cwd:` line ending in its name).

ERROR_RE = re.compile(r"^> \S*(Error|Exception)\b")


def aider_runs(text):
    """[(line number, header, [lines])] of each run in a history file."""
    runs = []
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("# aider chat started at "):
            runs.append((n, line, []))
        elif runs:
            runs[-1][2].append(line)
    return runs


def aider_counts(lines):
    c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
    state = None  # "prompt": inside a prompt block or before its reply; "reply": in the reply
    for line in lines:
        if line.startswith("####"):
            command = line[4:].strip().startswith("/")
            if state != "prompt" and not command:
                c["user"] += 1
            state = None if command else "prompt"
        elif line.startswith("> "):
            c["errors"] += bool(ERROR_RE.match(line))
            state = None
        elif state == "prompt" and line.strip():
            c["assistant"] += 1
            state = "reply"
    return c


def aider(fixture):
    dirs = run_dirs(fixture)
    out = []
    for f in sorted(fixture.glob("*/.aider.chat.history.md")):
        rel = str(f.relative_to(fixture))
        seen = {}
        for n, header, lines in aider_runs(f.read_text(encoding="utf-8")):
            k = seen.get(header, 0)
            seen[header] = k + 1
            key = "%s\0%s\0%d" % (rel, header, k)
            model = next((ln[len("> Model: "):].split(" with ")[0] for ln in lines
                          if ln.startswith("> Model: ")), None)
            out.append({
                "id": "aider-" + hashlib.sha256(key.encode()).hexdigest()[:16],
                "parent_id": None,
                "cwd": next((d for d in dirs if Path(d).name == f.parent.name), None),
                "file": rel, "line": n, "header": header, "model": model,
                "counts": aider_counts(lines),
            })
    return out


# --- GitHub Copilot CLI (1.0.x: dot-copilot/session-state/<id>/events.jsonl) ------------------
#
# One event a line {type, data, id, timestamp, parentId}. id = the folder name (=
# session.start's data.sessionId); cwd = session.start's data.context.cwd (workspace.yaml's
# `cwd` says the same). A subagent runs inside its parent's file: its events carry
# data.parentToolCallId (assistant) or data.source "agent-…" (its prompt) and are not counted on
# the parent (nor listed as sessions).
#   user = `user.message` events without such a source; assistant = `assistant.message` events
#   without parentToolCallId that have content or toolRequests; tool_calls = their toolRequests;
#   errors = `session.error` events. Older generations (synthetic fixtures, see
#   tests/record/copilot_synthetic.py): flat session-state/<id>.jsonl (0.0.3xx, the same events,
#   no directory field) and history-session-state/session_<id>_<ms>.json (<= 0.0.341:
#   copilot_legacy). Their cwd is what the CLI's system prompt states (the first
#   "* Current working directory: <dir>" line of a system message: a `system.message` event, a
#   carried document's or a history document's `system` chatMessage), else none.

COPILOT_CWD = "* Current working directory: "


def copilot_stated_cwd(text):
    for line in (text or "").split("\n"):
        if line.startswith(COPILOT_CWD) and line[len(COPILOT_CWD):].strip():
            return line[len(COPILOT_CWD):].strip()
    return None


def copilot_legacy_cwd(doc):
    for m in doc.get("chatMessages", []):
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            cwd = copilot_stated_cwd(m["content"])
            if cwd:
                return cwd
    return None

def copilot_legacy(doc):
    """Counts of a <= 0.0.341 history document (its own file, or carried by
    session.import_legacy): user = chatMessages `user` whose text holds something the timeline
    says the user typed (the CLI wraps the first prompt in its instructions); assistant =
    `assistant` messages with text or tool_calls; tool_calls = their tool_calls; errors =
    timeline `error` entries."""
    c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
    typed = [e["text"].strip() for e in doc.get("timeline", [])
             if e.get("type") == "user" and e.get("text", "").strip()]
    for m in doc.get("chatMessages", []):
        content = m.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        content = content or ""
        if m.get("role") == "user" and any(t in content for t in typed):
            c["user"] += 1
        elif m.get("role") == "assistant" and (content.strip() or m.get("tool_calls")):
            c["assistant"] += 1
            c["tool_calls"] += len(m.get("tool_calls") or [])
    c["errors"] += sum(1 for e in doc.get("timeline", []) if e.get("type") == "error")
    return c


def copilot_log(f):
    c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
    cwd = None
    for line in f.read_text(encoding="utf-8").splitlines():
        ev = json.loads(line)
        d = ev.get("data") or {}
        sub = "agentId" in ev or d.get("parentToolCallId")
        if ev["type"] == "session.start":
            cwd = (d.get("context") or {}).get("cwd")
        elif ev["type"] == "system.message" and not sub and cwd is None:
            cwd = copilot_stated_cwd(d.get("content"))
        elif ev["type"] == "user.message" and not str(d.get("source", "")).startswith("agent-") \
                and not sub:
            c["user"] += 1
        elif ev["type"] == "assistant.message" and not sub:
            if d.get("content") or d.get("toolRequests"):
                c["assistant"] += 1
                c["tool_calls"] += len(d.get("toolRequests") or [])
        elif ev["type"] == "session.error":
            c["errors"] += 1
        elif ev["type"] == "session.import_legacy":
            for k, v in copilot_legacy(d["legacySession"]).items():
                c[k] += v
            cwd = cwd or copilot_legacy_cwd(d["legacySession"])
    return cwd, c


def copilot(fixture):
    out = []
    state = fixture / "dot-copilot/session-state"
    # 1.0.x: a folder a session; 0.0.342-0.0.377: flat <id>.jsonl (the directory only in the
    # system prompt).
    for f in sorted(state.glob("*/events.jsonl")) + sorted(state.glob("*.jsonl")):
        cwd, c = copilot_log(f)
        sid = f.parent.name if f.name == "events.jsonl" else f.stem
        out.append({"id": sid, "parent_id": None, "cwd": cwd,
                    "file": str(f.relative_to(fixture)), "counts": c})
    # <= 0.0.341: history-session-state/session_<id>_<ms>.json (the directory only in the system
    # prompt).
    for f in sorted((fixture / "dot-copilot/history-session-state").glob("session_*_*.json")):
        sid = f.stem[len("session_"):].rsplit("_", 1)[0]
        doc = json.loads(f.read_text(encoding="utf-8"))
        out.append({"id": sid, "parent_id": None, "cwd": copilot_legacy_cwd(doc),
                    "file": str(f.relative_to(fixture)), "counts": copilot_legacy(doc)})
    return out


# --- Cline -------------------------------------------------------------------------------------
#
# 3.x (dot-cline/data/sessions/<id>/<id>.json + <id>.messages.json): id = the folder name, cwd =
# the .json's `cwd`. A subagent is data/sessions/<parent id>/agent_<…>.messages.json: id = its
# `sessionId` (<parent id>__agent_<…>), parent = the folder name, cwd = the parent's.
#   user = `user` messages with a `text` part (tool_result-only messages are tool output);
#   assistant = `assistant` messages that are not `metadata.displayOnly`, with text, thinking or
#   tool_use parts; tool_calls = their tool_use parts; errors = `assistant` messages whose
#   metadata.displayRole is `error` (a failed model call, shown, never sent).
# 2.x (dot-cline/data/tasks/<id>/ + state/taskHistory.json): id = the folder name, cwd =
# taskHistory's `cwdOnTaskInitialization`. Tools are XML in the reply text, so counts come from
# ui_messages.json (what Cline shows) and the API history:
#   user = ui `say` `task` and `user_feedback`; assistant = api_conversation_history
#   `assistant` messages; tool_calls = ui `say`/`ask` `tool` and `command`; errors = ui
#   `ask: api_req_failed` and `say: error`.

def cline_v3(fixture, root):
    out = []
    for meta_file in sorted(root.glob("data/sessions/*/*.json")):
        if meta_file.name.endswith(".messages.json"):
            continue
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        folder = meta_file.parent
        for f in sorted(folder.glob("*.messages.json")):
            doc = json.loads(f.read_text(encoding="utf-8"))
            child = f.name.startswith("agent_")
            c = {"user": 0, "assistant": 0, "tool_calls": 0, "errors": 0}
            for m in doc.get("messages", []):
                kinds = [p.get("type") for p in m.get("content") or [] if isinstance(p, dict)]
                info = m.get("metadata") or {}
                if m.get("role") == "user" and "text" in kinds:
                    c["user"] += 1
                elif m.get("role") == "assistant" and info.get("displayRole") == "error":
                    c["errors"] += 1
                elif m.get("role") == "assistant" and not info.get("displayOnly") and \
                        {"text", "thinking", "tool_use"} & set(kinds):
                    c["assistant"] += 1
                    c["tool_calls"] += kinds.count("tool_use")
            out.append({"id": doc["sessionId"] if child else folder.name,
                        "parent_id": folder.name if child else None, "cwd": meta.get("cwd"),
                        "file": str(f.relative_to(fixture)), "counts": c})
    return out


def cline_v2(fixture, root):
    index = root / "data/state/taskHistory.json"
    if not index.exists():
        return []
    history = {t["id"]: t for t in json.loads(index.read_text(encoding="utf-8"))}
    out = []
    for task in sorted(root.glob("data/tasks/*")):
        ui = json.loads((task / "ui_messages.json").read_text(encoding="utf-8"))
        api = json.loads((task / "api_conversation_history.json").read_text(encoding="utf-8"))
        said = [(m.get("type"), m.get("say") or m.get("ask")) for m in ui]
        c = {"user": sum(k in ("task", "user_feedback") for t, k in said if t == "say"),
             "assistant": sum(m.get("role") == "assistant" for m in api),
             "tool_calls": sum(k in ("tool", "command") for _, k in said),
             "errors": sum(1 for t, k in said if (t, k) in (("ask", "api_req_failed"),
                                                             ("say", "error")))}
        out.append({"id": task.name, "parent_id": None,
                    "cwd": history.get(task.name, {}).get("cwdOnTaskInitialization"),
                    "file": str((task / "ui_messages.json").relative_to(fixture)), "counts": c})
    return out


def cline(fixture):
    root = fixture / "dot-cline"
    return cline_v3(fixture, root) + cline_v2(fixture, root)


AGENTS = {"gemini": gemini, "qwen": qwen, "aider": aider, "copilot": copilot, "cline": cline}


def main():
    fixture = Path(sys.argv[1]).resolve()
    agent = fixture.parent.name
    sessions = sorted(AGENTS[agent](fixture), key=lambda s: (s["id"], s["file"]))
    doc = {"computed_by": "tests/record/expected.py (independent of the readers)",
           "sessions": sessions}
    (fixture / "EXPECTED.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    for s in sessions:
        print(s["id"], s["parent_id"], s["cwd"], s["counts"])


if __name__ == "__main__":
    main()
