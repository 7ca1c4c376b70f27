#!/usr/bin/env python3
"""Writes EXPECTED.json for an OpenCode JSON-storage fixture, from the raw files, independently
of the project's reader, and checks it against OpenCode's own view saved beside the store.

Usage: expected.py FIXTURE_DIR   (e.g. testdata/opencode/0.1.174)

Reads FIXTURE_DIR/local-share-opencode: the 0.x per-project storage
(project/<slug>/storage/session/{info,message,part}/) and the 1.x JSON storage
(storage/{session,message,part}/). One session id is one session: the copy with the newest
time.updated wins, on a tie the newer layout. Counts follow SPEC §6 as the fixture README
states them: user = user messages with a text or file part that is not synthetic or ignored;
assistant = assistant messages without summary: true (one per message as OpenCode stores and
shows it, though a 0.x message holds every model step of its turn).

The oracle: server/<project>/ (0.x `opencode serve`: GET /session and /session/<id>/message)
and exports/ (1.x `opencode export <id>`). Every session the agent lists must be in EXPECTED
with the same parent and counts computed from the agent's own messages; the script stops if not.
"""

import glob
import json
import os
import sys

FIXTURE = sys.argv[1]
STORE = os.path.join(FIXTURE, "local-share-opencode")


def load(path):
    with open(path) as f:
        return json.load(f)


def jsons(pattern):
    return sorted(glob.glob(pattern))


def normalize(msg, parts):
    """(role, summary flag, parts, path) of a message in any of the stored shapes."""
    if "metadata" in msg:  # 0.1: parts inline, the rest under metadata
        assistant = msg["metadata"].get("assistant") or {}
        return msg["role"], assistant.get("summary") is True, msg["parts"], assistant.get("path")
    if "parts" in msg:  # inline parts in the later shape
        parts = msg["parts"]
    return msg["role"], msg.get("summary") is True, parts, msg.get("path")


def counts(messages):
    user = assistant = 0
    cwd = None
    for msg, parts in messages:
        role, summary, parts, path = normalize(msg, parts)
        if role == "user":
            user += any(p.get("type") in ("text", "file") and not p.get("synthetic")
                        and not p.get("ignored") for p in parts)
        elif role == "assistant":
            assistant += not summary
            if cwd is None and path:
                cwd = path.get("cwd")
    return user, assistant, cwd


def copies():
    """Every stored copy: (id, time.updated, layout rank, session, messages)."""
    out = []
    for info in jsons(os.path.join(STORE, "project/*/storage/session/info/*.json")):
        storage = info.split("/session/info/")[0]
        s = load(info)
        msgs = []
        for m in jsons(os.path.join(storage, "session/message", s["id"], "*.json")):
            msg = load(m)
            parts = [load(p) for p in
                     jsons(os.path.join(storage, "session/part", s["id"], msg["id"], "*.json"))]
            msgs.append((msg, parts))
        out.append((s["id"], s["time"]["updated"], 0, s, msgs))
    for info in jsons(os.path.join(STORE, "storage/session/*/*.json")):
        s = load(info)
        msgs = []
        for m in jsons(os.path.join(STORE, "storage/message", s["id"], "*.json")):
            msg = load(m)
            parts = [load(p) for p in jsons(os.path.join(STORE, "storage/part", msg["id"], "*.json"))]
            msgs.append((msg, parts))
        out.append((s["id"], s["time"]["updated"], 1, s, msgs))
    return out


def expected():
    best = {}
    for c in copies():
        if c[0] not in best or (c[1], c[2]) > (best[c[0]][1], best[c[0]][2]):
            best[c[0]] = c
    sessions = []
    for sid in sorted(best):
        _, _, _, s, msgs = best[sid]
        user, assistant, cwd = counts(msgs)
        sessions.append({
            "id": sid,
            "parent_id": s.get("parentID"),
            "cwd": s.get("directory") or cwd,
            "counts": {"user": user, "assistant": assistant},
        })
    return {"sessions": sessions}


def check_oracle(want):
    by_id = {s["id"]: s for s in want["sessions"]}
    checked = 0
    for listing in jsons(os.path.join(FIXTURE, "server/*/sessions.json")):
        for s in load(listing):
            msgs = load(os.path.join(os.path.dirname(listing), s["id"] + ".json"))
            pairs = [(m["info"], m["parts"]) if "info" in m else (m, None) for m in msgs]
            user, assistant, _ = counts(pairs)
            got = (s.get("parentID"), user, assistant)
            e = by_id[s["id"]]
            assert got == (e["parent_id"], e["counts"]["user"], e["counts"]["assistant"]), \
                (s["id"], got, e)
            checked += 1
    for export in jsons(os.path.join(FIXTURE, "exports/*.json")):
        x = load(export)
        user, assistant, _ = counts([(m["info"], m["parts"]) for m in x["messages"]])
        e = by_id[x["info"]["id"]]
        got = (x["info"].get("parentID"), user, assistant)
        assert got == (e["parent_id"], e["counts"]["user"], e["counts"]["assistant"]), \
            (x["info"]["id"], got, e)
        checked += 1
    return checked


want = expected()
checked = check_oracle(want)
with open(os.path.join(FIXTURE, "EXPECTED.json"), "w") as f:
    json.dump(want, f, indent=2)
    f.write("\n")
print(f"{FIXTURE}: {len(want['sessions'])} sessions, {checked} checked against OpenCode's own view")
