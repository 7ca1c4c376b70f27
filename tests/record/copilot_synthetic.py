#!/usr/bin/env python3
"""Write the SYNTHETIC GitHub Copilot CLI fixtures of the two generations that could not be
recorded (0.0.3xx only talks to GitHub's hosts: ../shared/notes/agents-offline.md).

Usage: tests/record/copilot_synthetic.py      (writes testdata/copilot/0.0.340 and 0.0.365)

The shapes are the writers' in each version's own bundle (`npm pack @github/copilot@VERSION`,
package/index.js), never guessed:
- 0.0.340: `history-session-state/session_<sessionId>_<startTime ms>.json` written by
  `saveHistorySession` (`AYe(schema, "history-session")`, the folder `<name>-state` under
  `~/.copilot`), the document `{sessionId, startTime, chatMessages, timeline, selectedModel}`:
  chatMessages are OpenAI chat messages (system/user/assistant with tool_calls/tool);
  timeline entries `{type: user|copilot|info|error|tool_call_requested|tool_call_completed,
  id, timestamp, …}`, a completed call's `result.type` success|failure|rejected|denied.
- 0.0.365: `session-state/<sessionId>.jsonl` (`m_t(schema, "session")`), one event a line
  `{id, timestamp, parentId, type, data}` with the types of its event union: `session.start`
  `{sessionId, version, producer, copilotVersion, startTime, selectedModel}` (no directory),
  `user.message {content, attachments}`, `assistant.message {messageId, content,
  toolRequests[{toolCallId, name, arguments}], parentToolCallId?}`, `tool.execution_start`,
  `tool.execution_complete {toolCallId, success, result{content}|error{message}}`,
  `custom_agent.started/completed`, `session.error {errorType, message}`, `session.resume
  {resumeTime, eventCount}`, `session.import_legacy {legacySession, importTime, sourceFile}`;
  `assistant.usage` and `session.idle` are ephemeral (never written).
Neither generation records the directory in a field of its own: each states it in the system
prompt it keeps (0.0.340's first chatMessage, 0.0.365's `system.message` event), in the
`<environment_context>` block both bundles' prompt builders write (`* Current working
directory: ${cwd}`, then the git root, the OS, a listing; the block is [`environment`] below,
the other prompt text shortened).
Then EXPECTED.json: tests/record/expected.py testdata/copilot/VERSION.
"""

import json
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOME = "/tmp/agent-rec/copilot-synthetic/home"


def ids(seed):
    n = 0
    while True:
        n += 1
        yield str(uuid.uuid5(uuid.NAMESPACE_URL, f"copilot-{seed}-{n}"))


def environment(version, cwd):
    """The system prompt's `<environment_context>`, as each bundle's prompt builder writes it."""
    listing = "notes.txt"
    if version == "0.0.340":
        contents = ("* Directory contents (snapshot at start of turn; may be stale if files are "
                    "added, removed, or renamed later in the turn):\n" + listing)
    else:
        contents = "* Directory contents (snapshot at turn start; may be stale): " + listing
    return ("<version_information>\nVersion number: %s\n</version_information>\n\n"
            "<environment_context>\nYou are working in the following environment. You do not "
            "need to make additional tool calls to verify this.\n"
            "* Current working directory: %s\n* Git repository root: Not a git repository\n"
            "* Operating System: Linux\n%s\n</environment_context>" % (version, cwd, contents))


def history_doc():
    sid = "0b9d4a4e-1f7e-4a51-9d2e-3f0c1c2b5a10"
    t = lambda s: f"2025-10-10T09:00:{s:02d}.000Z"
    typed = "List the files and fix the typo in notes.txt — grüße"
    edit_args = {"command": "str_replace", "path": f"{HOME}/projects/demo/notes.txt",
                 "old_str": "teh", "new_str": "the"}
    doc = {
        "sessionId": sid,
        "startTime": t(0),
        "chatMessages": [
            {"role": "system", "content": "You are the GitHub Copilot CLI, a terminal assistant."
             "\n\n" + environment("0.0.340", f"{HOME}/projects/demo")},
            {"role": "user", "content": f"<problem_statement>\n{typed}\n</problem_statement>"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "bash", "arguments": json.dumps(
                     {"command": "ls", "description": "list the folder"})}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "notes.txt\n"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_2", "type": "function",
                 "function": {"name": "str_replace_editor", "arguments": json.dumps(edit_args)}}]},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: no match for teh"},
            {"role": "user", "content": "Remember to work in the repository."},
            {"role": "assistant", "content": "Listed the folder; the edit found no typo."},
            {"role": "user", "content": "Danke! 日本語でも?"},
            {"role": "assistant", "content": "はい — fertig ✓"},
        ],
        "timeline": [
            {"type": "user", "text": typed, "id": "tl-1", "timestamp": t(1)},
            {"type": "tool_call_requested", "callId": "call_1", "name": "bash",
             "intentionSummary": "list the folder", "arguments": {"command": "ls",
             "description": "list the folder"}, "id": "tl-2", "timestamp": t(2)},
            {"type": "tool_call_completed", "callId": "call_1", "name": "bash",
             "intentionSummary": "list the folder", "result": {"type": "success",
             "log": "notes.txt"}, "arguments": {"command": "ls", "description":
             "list the folder"}, "id": "tl-3", "timestamp": t(3)},
            {"type": "tool_call_completed", "callId": "call_2", "name": "str_replace_editor",
             "intentionSummary": None, "result": {"type": "failure", "log": "no match"},
             "arguments": edit_args, "id": "tl-4", "timestamp": t(4)},
            {"type": "copilot", "text": "Listed the folder; the edit found no typo.",
             "id": "tl-5", "timestamp": t(5)},
            {"type": "user", "text": "Danke! 日本語でも?", "id": "tl-6", "timestamp": t(6)},
            {"type": "copilot", "text": "はい — fertig ✓", "id": "tl-7", "timestamp": t(7)},
            {"type": "error", "text": "Execution failed: 400 quota", "id": "tl-8",
             "timestamp": t(8)},
        ],
        "selectedModel": "claude-sonnet-4.5",
    }
    return sid, doc


def event_log(sid, events, seed):
    gen, parent, out = ids(seed), None, []
    for n, (kind, data) in enumerate(events):
        eid = next(gen)
        out.append({"id": eid, "timestamp": f"2025-11-20T10:00:{n:02d}.000Z",
                    "parentId": parent, "type": kind, "data": data})
        parent = eid
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in out)


def flat_logs():
    a = "5f0e2c1d-7b3a-4c9e-8d21-6a4b3c2d1e0f"
    start = lambda sid: ("session.start", {"sessionId": sid, "version": 1,
                         "producer": "copilot-agent", "copilotVersion": "0.0.365",
                         "startTime": "2025-11-20T10:00:00.000Z", "selectedModel": "gpt-5"})
    first = [
        start(a),
        ("user.message", {"content": "Read notes.txt and ask explore where notes live.",
                          "attachments": []}),
        ("system.message", {"content": "You are the GitHub Copilot CLI.\n\n"
                            + environment("0.0.365", f"{HOME}/projects/demo"),
                            "role": "system"}),
        ("assistant.turn_start", {"turnId": "0"}),
        ("assistant.message", {"messageId": "m1", "content": "", "toolRequests": [
            {"toolCallId": "call_1", "name": "view",
             "arguments": {"path": f"{HOME}/projects/demo/notes.txt"}}]}),
        ("tool.execution_start", {"toolCallId": "call_1", "toolName": "view",
                                  "arguments": {"path": f"{HOME}/projects/demo/notes.txt"}}),
        ("tool.execution_complete", {"toolCallId": "call_1", "success": True,
                                     "result": {"content": "alpha\n"}}),
        ("assistant.turn_end", {"turnId": "0"}),
        ("assistant.turn_start", {"turnId": "1"}),
        ("assistant.message", {"messageId": "m2", "content": "Asking explore.", "toolRequests": [
            {"toolCallId": "call_2", "name": "explore", "arguments": {"prompt": "Where?"}}]}),
        ("custom_agent.started", {"toolCallId": "call_2", "agentName": "explore",
                                  "agentDisplayName": "Explore", "agentDescription": "explores"}),
        ("assistant.message", {"messageId": "m3", "content": "They live in notes.txt.",
                               "toolRequests": [], "parentToolCallId": "call_2"}),
        ("custom_agent.completed", {"toolCallId": "call_2", "agentName": "explore"}),
        ("tool.execution_complete", {"toolCallId": "call_2", "success": True,
                                     "result": {"content": "They live in notes.txt."}}),
        ("assistant.turn_end", {"turnId": "1"}),
        ("assistant.message", {"messageId": "m4", "content": "Notes are in notes.txt: alpha.",
                               "toolRequests": []}),
        ("user.message", {"content": "Now run a failing command.", "attachments": []}),
        ("assistant.message", {"messageId": "m5", "content": "", "toolRequests": [
            {"toolCallId": "call_3", "name": "bash", "arguments": {"command": "false"}}]}),
        ("tool.execution_complete", {"toolCallId": "call_3", "success": False,
                                     "error": {"message": "exit code 1", "code": "failure"}}),
        ("session.error", {"errorType": "query", "message": "400 rate limited"}),
        ("session.resume", {"resumeTime": "2025-11-20T11:00:00.000Z", "eventCount": 20}),
        ("user.message", {"content": "Weiter — ünïcödé 🎉", "attachments": []}),
        ("assistant.message", {"messageId": "m6", "content": "Fertig ✓", "toolRequests": []}),
    ]
    b = "7c3b9e2a-1d4f-4a6b-9c8e-2f1a0b3c4d5e"
    legacy_sid, legacy = history_doc()
    legacy = {**legacy, "sessionId": b, "chatMessages": legacy["chatMessages"][:4],
              "timeline": legacy["timeline"][:3]}
    second = [
        start(b),
        ("session.import_legacy", {"legacySession": legacy,
                                   "importTime": "2025-11-20T10:00:01.000Z",
                                   "sourceFile": f"{HOME}/.copilot/history-session-state/"
                                                 f"session_{b}_1760086800000.json"}),
        ("session.resume", {"resumeTime": "2025-11-20T10:00:01.000Z", "eventCount": 2}),
        ("user.message", {"content": "And now?", "attachments": []}),
        ("assistant.message", {"messageId": "m1", "content": "Done.", "toolRequests": []}),
    ]
    return {a: event_log(a, first, a), b: event_log(b, second, b)}


README = """# SYNTHETIC fixture (not recorded)

Written by `tests/record/copilot_synthetic.py` from the shapes of the writer in
`@github/copilot@{version}`'s own bundle (`npm pack`, package/index.js), because this version
cannot be run offline here (it only talks to GitHub's hosts). The script's docstring names
the writer code each field comes from. `EXPECTED.json`: `tests/record/expected.py`.
"""


def main():
    root = REPO / "testdata/copilot"
    sid, doc = history_doc()
    v1 = root / "0.0.340"
    hist = v1 / "dot-copilot/history-session-state"
    hist.mkdir(parents=True, exist_ok=True)
    (hist / f"session_{sid}_1760086800000.json").write_text(
        json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    (v1 / "README.md").write_text(README.format(version="0.0.340"))
    v2 = root / "0.0.365"
    state = v2 / "dot-copilot/session-state"
    state.mkdir(parents=True, exist_ok=True)
    for sid, text in flat_logs().items():
        (state / f"{sid}.jsonl").write_text(text)
    (v2 / "README.md").write_text(README.format(version="0.0.365"))


if __name__ == "__main__":
    main()
