#!/usr/bin/env python3
"""A scripted model on 127.0.0.1 for the real agents' CLIs in the tests.

Usage: mock_model.py REQUEST_LOG [SCRIPT]   (prints the port it listens on, then serves until
killed; SCRIPT "mcp-search" answers the first turn offering our MCP search tool with a call of it)

Answers every model call with one canned text, REPLY, in the shape the caller asks for:
  POST /v1/messages   Anthropic Messages API (Claude Code, OpenCode), streamed (SSE) or not
  POST /v1/responses  OpenAI Responses API, streamed (Codex)
  GET  anything       an empty model list
Every request is appended to REQUEST_LOG as one JSON line {method, path, body}: what an agent
sent after a resume shows the history it loaded.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
REPLY = "restored-session-reply"


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def anthropic(body):
    model = body.get("model", "mock")
    usage = {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 0}
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": usage}).encode()
    start = {"id": "msg_mock", "type": "message", "role": "assistant", "model": model,
             "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    return "text/event-stream", b"".join([
        sse("message_start", {"type": "message_start", "message": start}),
        sse("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}}),
        sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                    "delta": {"type": "text_delta", "text": REPLY}}),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse("message_delta", {"type": "message_delta",
                              "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                              "usage": {"output_tokens": 3}}),
        sse("message_stop", {"type": "message_stop"}),
    ])


def responses(body):
    item = {"type": "message", "role": "assistant", "id": "msg_mock", "status": "completed",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 13}
    return "text/event-stream", b"".join([
        sse("response.created", {"type": "response.created", "response": {"id": "resp_mock"}}),
        sse("response.output_item.added", {"type": "response.output_item.added",
                                           "output_index": 0,
                                           "item": dict(item, content=[], status="in_progress")}),
        sse("response.output_text.delta", {"type": "response.output_text.delta",
                                           "output_index": 0, "content_index": 0,
                                           "item_id": "msg_mock", "delta": REPLY}),
        sse("response.output_item.done", {"type": "response.output_item.done",
                                          "output_index": 0, "item": item}),
        sse("response.completed", {"type": "response.completed",
                                   "response": {"id": "resp_mock", "usage": usage,
                                                "output": [item]}}),
    ])


# An optional second argument names a script that answers some calls differently (below).
SCRIPT = sys.argv[2] if len(sys.argv) > 2 else None
MCP_QUERY = "my-demo-session"


def mcp_search_tool(body):
    """The name the agent gave our MCP server's search tool, when this call offers it."""
    for tool in body.get("tools") or []:
        if tool.get("name", "").endswith("search_sessions"):
            return tool["name"]
    return None


def has_tool_result(body):
    last = (body.get("messages") or [{}])[-1]
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(c, dict) and c.get("type") == "tool_result" for c in content)


def mcp_search(body):
    """Script "mcp-search": a turn that offers our search tool and has no tool result yet is
    answered with one call of it (query MCP_QUERY); every other call as anthropic() does."""
    name = mcp_search_tool(body)
    if name is None or has_tool_result(body) or not body.get("stream"):
        return anthropic(body)
    model = body.get("model", "mock")
    usage = {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 0}
    start = {"id": "msg_mock_mcp", "type": "message", "role": "assistant", "model": model,
             "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    tool_input = json.dumps({"query": MCP_QUERY})
    return "text/event-stream", b"".join([
        sse("message_start", {"type": "message_start", "message": start}),
        sse("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "tool_use", "id": "toolu_mock_mcp",
                                                      "name": name, "input": {}}}),
        sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                    "delta": {"type": "input_json_delta",
                                              "partial_json": tool_input}}),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse("message_delta", {"type": "message_delta",
                              "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                              "usage": {"output_tokens": 3}}),
        sse("message_stop", {"type": "message_stop"}),
    ])


class Handler(BaseHTTPRequestHandler):
    def log(self, body):
        with open(LOG, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "body": body}) + "\n")

    def send(self, ctype, payload):
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.log(None)
        self.send("application/json", json.dumps({"data": [], "models": []}).encode())

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        self.log(body)
        if self.path.split("?")[0].endswith("/responses"):
            self.send(*responses(body))
        elif SCRIPT == "mcp-search":
            self.send(*mcp_search(body))
        else:
            self.send(*anthropic(body))

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
