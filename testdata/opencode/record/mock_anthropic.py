#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for recording OpenCode fixtures offline.

Usage: mock_anthropic.py PORT REQUEST_LOG

Binds 127.0.0.1 only. The answer depends on a keyword in the latest real user prompt of the
request and on how many model steps already followed that prompt:

  TOOL     -> bash `echo hello-from-tool && ls`, then read the file the prompt names last
              (a word with a dot), then a closing sentence
  SUBAGENT -> a `task` tool call (the child session gets the default answer), then text
  THINK    -> a thinking block, then text
  EDIT     -> write hello.txt, then edit it, then a closing sentence
  (else)   -> one canned sentence

Requests that ask for a title (OpenCode's small-model title call) get a short title. Every
request body is appended to REQUEST_LOG as one JSON line, so a resumed run shows the history
OpenCode sent back.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1])
LOG = sys.argv[2]

SCRIPTS = {
    "TOOL": [
        ("tool", "bash", {"command": "echo hello-from-tool && ls", "description": "List files"},
         "Let me look at the files."),
        ("tool", "read", {"filePath": "@CWD@/@FILE@"}, None),
        ("text", "The file holds one line."),
    ],
    "THINK": [
        ("think", "The user wants a short answer; no tools needed.", "Thought about it: 42."),
    ],
    "SUBAGENT": [
        ("tool", "task", {"description": "Count lines", "prompt": "count the lines in README.md",
                          "subagent_type": "general"}, None),
        ("text", "The subagent reports README.md has 1 line."),
    ],
    "EDIT": [
        ("tool", "write", {"filePath": "@CWD@/hello.txt", "content": "hello world\n"}, None),
        ("tool", "edit", {"filePath": "@CWD@/hello.txt", "oldString": "hello world",
                          "newString": "hello opencode"}, None),
        ("text", "Wrote and edited hello.txt."),
    ],
}
DEFAULT = [("text", "Happy to help! Nothing else to do here.")]


def text_of(content):
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def is_tool_result(msg):
    content = msg.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def plan(body):
    """The content blocks and stop reason of the next answer."""
    system = json.dumps(body.get("system", ""))
    messages = body.get("messages", [])
    if "title" in system.lower() and not body.get("tools"):
        prompt = text_of(messages[-1]["content"]) if messages else ""
        words = [w for w in prompt.split() if w.isalpha() and w.islower()][:4]
        return [{"type": "text", "text": " ".join(words).capitalize() or "Session"}], "end_turn"
    # The latest user message that is a prompt, not a tool result.
    last = max((i for i, m in enumerate(messages)
                if m["role"] == "user" and not is_tool_result(m)), default=-1)
    prompt = text_of(messages[last]["content"]) if last >= 0 else ""
    step = sum(1 for m in messages[last + 1:] if m["role"] == "assistant")
    script = next((s for k, s in SCRIPTS.items() if k in prompt), DEFAULT)
    entry = script[min(step, len(script) - 1)]
    cwd = body.get("_cwd", "")
    if entry[0] == "text":
        return [{"type": "text", "text": entry[1]}], "end_turn"
    if entry[0] == "think":
        return [{"type": "thinking", "thinking": entry[1], "signature": "mock-signature"},
                {"type": "text", "text": entry[2]}], "end_turn"
    _, name, args, preface = entry
    named = [w for w in prompt.split() if "." in w.strip(".")]
    args = json.dumps(args).replace("@CWD@", cwd).replace("@FILE@", (named or ["README.md"])[-1])
    args = json.loads(args)
    blocks = [{"type": "text", "text": preface}] if preface else []
    blocks.append({"type": "tool_use", "id": "toolu_mock%04d" % (step + 1), "name": name,
                   "input": args})
    return blocks, "tool_use"


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def stream(blocks, stop, model, counter):
    msg = {"id": "msg_mock%04d" % counter, "type": "message", "role": "assistant", "model": model,
           "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 120, "output_tokens": 1, "cache_read_input_tokens": 0,
                     "cache_creation_input_tokens": 0}}
    out = [sse("message_start", {"type": "message_start", "message": msg})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": b["text"]}
        elif b["type"] == "thinking":
            start = {"type": "thinking", "thinking": ""}
            delta = {"type": "thinking_delta", "thinking": b["thinking"]}
        else:
            start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
        out.append(sse("content_block_start",
                       {"type": "content_block_start", "index": i, "content_block": start}))
        out.append(sse("content_block_delta",
                       {"type": "content_block_delta", "index": i, "delta": delta}))
        if b["type"] == "thinking":
            out.append(sse("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "signature_delta", "signature": b["signature"]}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 30}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    counter = 0

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        # The working directory is in OpenCode's system prompt ("Working directory: …").
        system = json.dumps(body.get("system", ""))
        marker = "Working directory: "
        if marker in system:
            body["_cwd"] = system.split(marker, 1)[1].split("\\n", 1)[0]
        Handler.counter += 1
        blocks, stop = plan(body)
        model = body.get("model", "mock")
        if body.get("stream"):
            payload = stream(blocks, stop, model, Handler.counter)
            ctype = "text/event-stream"
        else:
            payload = json.dumps({
                "id": "msg_mock%04d" % Handler.counter, "type": "message", "role": "assistant",
                "model": model, "content": blocks, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 30}}).encode()
            ctype = "application/json"
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
