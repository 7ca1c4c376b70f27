#!/usr/bin/env python3
"""A scripted model on 127.0.0.1 for the real agents' CLIs in the tests.

Usage: mock_model.py REQUEST_LOG [SCRIPT]   (prints the port it listens on, then serves until
killed; SCRIPT "mcp-search" answers the first turn offering our MCP search tool with a call of it)

Answers every model call with one canned text, REPLY, in the shape the caller asks for:
  POST /v1/messages   Anthropic Messages API (Claude Code, OpenCode), streamed (SSE) or not
  POST /v1/responses  OpenAI Responses API, streamed (Codex)
  POST …:streamGenerateContent?alt=sse / …:generateContent / …:countTokens
                      Gemini API (Gemini CLI), scripted: see gemini_api()
  POST …/chat/completions  OpenAI chat completions, streamed (SSE) or not (Qwen Code, Aider),
                      scripted: see chat_completions()
  GET  anything       an empty model list
Every request is appended to REQUEST_LOG as one JSON line {method, path, body}: what an agent
sent after a resume shows the history it loaded.
"""

import json
import re
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


# --- Scripted turns for Gemini CLI, Qwen Code and Aider (tests/record/*) ---------------------
#
# The prompt that starts a turn carries the script, so the server keeps no state and a resumed
# session replays the same way:
#   [[steps: read /abs/file; shell CMD; edit /abs/file OLD => NEW; call NAME {json}]]
#       one tool call per model call, in order; the step taken is the number of tool results
#       the request holds after the prompt; the tool's name and argument names are taken from
#       the tools the request declares (they differ between agents and versions)
#   [[say TEXT]]   the final reply (default: "ok: " and the prompt's first 60 characters)
#   [[big N]]      the final reply is the numbers 1 to N, a line each (a large reply)
#   [[search-replace FILE OLD => NEW]]  the final reply is an edit as a SEARCH/REPLACE block
#                  (the text-format edits of Aider's `diff` edit format)
#   [[think]]      the reply starts with a reasoning ("thought") part
#   [[fail]]       the model call fails: HTTP 400 with the API's error body
# Utility calls (next-speaker checks, routing, summaries, memory extraction) get a JSON value
# built from the response schema they ask for, so they never turn into conversation turns.

SCRIPT_RE = re.compile(r"\[\[(steps|say|think|fail|big|search-replace)\s*:?\s*(.*?)\]\]", re.S)
READ_TOOLS = ("read_file", "view", "read_files")
SHELL_TOOLS = ("run_shell_command", "shell", "bash", "run_commands")
EDIT_TOOLS = ("replace", "edit", "editor")
PATH_ARGS = ("file_path", "absolute_path", "path")


def script_of(text):
    """The directives in a prompt: {"steps": [...], "say": str|None, "think": bool, "fail": bool}."""
    found = {"steps": [], "say": None, "think": False, "fail": False}
    for kind, arg in SCRIPT_RE.findall(text or ""):
        if kind == "steps":
            found["steps"] = [s.strip() for s in arg.split(";") if s.strip()]
        elif kind == "say":
            found["say"] = arg.strip()
        elif kind == "big":
            found["say"] = "\n".join(str(i) for i in range(1, int(arg) + 1))
        elif kind == "search-replace":
            path, _, change = arg.strip().partition(" ")
            old, _, new = change.partition("=>")
            found["say"] = "I will change it.\n\n%s\n```\n<<<<<<< SEARCH\n%s\n=======\n%s\n" \
                ">>>>>>> REPLACE\n```" % (path, old.strip(), new.strip())
        else:
            found[kind] = True
    return found


def plain_prompt(text):
    return SCRIPT_RE.sub("", text or "").strip()


def pick_tool(declared, wanted):
    """The first declared tool named one of `wanted`: (name, {argument: schema})."""
    for name in wanted:
        if name in declared:
            return name, declared[name]
    raise KeyError("none of %s among the declared tools %s" % (wanted, sorted(declared)))


def arg_named(params, names, value):
    for n in names:
        if n in params:
            return {n: value}
    return {names[0]: value}


def tool_call_for(step, declared):
    """(tool name, arguments) for one scripted step, fitted to the declared tools."""
    verb, _, rest = step.partition(" ")
    rest = rest.strip()
    if verb == "read":
        name, params = pick_tool(declared, READ_TOOLS)
        if "files" in params:  # Cline 3: read_files {files: [{path}]}
            return name, {"files": [{"path": rest}]}
        return name, arg_named(params, PATH_ARGS, rest)
    if verb == "shell":
        name, params = pick_tool(declared, SHELL_TOOLS)
        if "commands" in params:  # Cline 3: run_commands {commands: [...]}
            return name, {"commands": [rest]}
        args = {"command": rest}
        if "description" in params:
            args["description"] = "scripted shell step"
        if "is_background" in params:  # required by Qwen Code 0.1
            args["is_background"] = False
        return name, args
    if verb == "edit":
        path, _, change = rest.partition(" ")
        old, _, new = change.partition("=>")
        name, params = pick_tool(declared, EDIT_TOOLS)
        args = arg_named(params, PATH_ARGS, path)
        # Copilot CLI: old_str/new_str; Cline 3: old_text/new_text
        suffix = next((x for x in ("str", "text") if "old_" + x in params), "string")
        args.update({"old_" + suffix: old.strip(), "new_" + suffix: new.strip()})
        if "instruction" in params:
            args["instruction"] = "scripted edit"
        return name, args
    if verb == "agent":
        # A subagent: Gemini's invoke_agent (0.4x+) or a tool named after the agent (older),
        # Qwen's task tool (agent from 0.2x), Copilot CLI's task tool.
        agent, _, text = rest.partition(" ")
        if "invoke_agent" in declared:
            return "invoke_agent", {"agent_name": agent, "prompt": text}
        if "spawn_agent" in declared:  # Cline 3
            return "spawn_agent", {"systemPrompt": "You are the %s helper." % agent, "task": text}
        for name in ("task", "agent"):
            if name in declared:
                kind = "agent_type" if "agent_type" in declared[name] else "subagent_type"
                args = {"description": "scripted subagent", "prompt": text, kind: agent}
                if "name" in declared[name]:  # Copilot CLI names each agent
                    args["name"] = "scripted"
                return name, args
        name, params = pick_tool(declared, (agent,))
        return name, {next(iter(params), "objective"): text}
    if verb == "call":
        name, _, raw = rest.partition(" ")
        return name, json.loads(raw or "{}")
    raise ValueError("unknown step %r" % step)


def subagent_step(declared, done):
    """A Gemini subagent's turn (it declares complete_task): one glob, then its report."""
    if done == 0 and "glob" in declared:
        return "glob", {"pattern": "*"}
    return "complete_task", value_for({"type": "object",
                                       "properties": declared["complete_task"]})


def value_for(schema):
    """A small value that fits a JSON schema (for utility calls that ask for JSON)."""
    schema = schema or {}
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: value_for(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "mock"


def gemini_turn(contents):
    """(script, prompt text, tool results since the prompt) from a Gemini `contents` list.

    The prompt is the last user text that the agent did not inject itself ("Please continue."
    after a next-speaker check); its script is read from its own text parts."""
    for i in range(len(contents) - 1, -1, -1):
        c = contents[i]
        texts = [p.get("text", "") for p in c.get("parts", []) if isinstance(p, dict)]
        texts = [t for t in texts if t and t.strip() != "Please continue."]
        if c.get("role") == "user" and texts:
            done = sum(1 for later in contents[i + 1:] for p in later.get("parts", [])
                       if isinstance(p, dict) and "functionResponse" in p)
            return script_of("\n".join(texts)), plain_prompt(texts[-1]), done
    return script_of(""), "", 0


def final_text(script, prompt):
    return script["say"] if script["say"] is not None else "ok: " + prompt[:60]


def gemini_chunk(parts, finish=None, usage=None, model="mock"):
    cand = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    chunk = {"candidates": [cand], "modelVersion": model}
    if usage:
        chunk["usageMetadata"] = usage
    return chunk


def gemini_api(route, body):
    """(status, content type, payload) for a Gemini API call."""
    model = route.rsplit("/", 1)[-1].split(":")[0]
    if route.endswith(":countTokens"):
        return 200, "application/json", json.dumps({"totalTokens": 100}).encode()
    contents = body.get("contents", [])
    config = body.get("generationConfig") or body.get("config") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if route.endswith(":generateContent"):
        text = json.dumps(value_for(schema)) if schema else "mock summary"
        payload = gemini_chunk([{"text": text}], "STOP", {"promptTokenCount": 50,
                               "candidatesTokenCount": 5, "totalTokenCount": 55}, model)
        return 200, "application/json", json.dumps(payload).encode()
    script, prompt, done = gemini_turn(contents)
    if script["fail"]:
        err = {"error": {"code": 400, "message": "mock: this model call fails on purpose",
                         "status": "INVALID_ARGUMENT"}}
        return 400, "application/json", json.dumps(err).encode()
    declared = {}
    for group in body.get("tools", []) or []:
        for f in group.get("functionDeclarations", []) or []:
            params = f.get("parametersJsonSchema") or f.get("parameters") or {}
            declared[f["name"]] = params.get("properties", {})
    usage = {"promptTokenCount": 1000 + 10 * len(contents), "candidatesTokenCount": 20,
             "thoughtsTokenCount": 5 if script["think"] else 0,
             "totalTokenCount": 1025 + 10 * len(contents)}
    chunks = []
    if "complete_task" in declared:
        name, args = subagent_step(declared, done)
        chunks.append(gemini_chunk([{"functionCall": {"name": name, "args": args}}],
                                   "STOP", usage, model))
        return 200, "text/event-stream", b"".join(
            ("data: %s\r\n\r\n" % json.dumps(c)).encode() for c in chunks)
    if script["think"] and done == 0:
        chunks.append(gemini_chunk([{"text": "**Planning the answer**\n\nMock reasoning.",
                                     "thought": True}], model=model))
    if done < len(script["steps"]):
        name, args = tool_call_for(script["steps"][done], declared)
        chunks.append(gemini_chunk([{"functionCall": {"name": name, "args": args}}],
                                   "STOP", usage, model))
    else:
        text = final_text(script, prompt)
        half = len(text) // 2
        chunks.append(gemini_chunk([{"text": text[:half]}], model=model))
        chunks.append(gemini_chunk([{"text": text[half:]}], "STOP", usage, model))
    return 200, "text/event-stream", b"".join(
        ("data: %s\r\n\r\n" % json.dumps(c)).encode() for c in chunks)


def openai_text(content):
    """A message's text; the reminders Qwen Code adds to a prompt (<system-reminder>) left out."""
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict)
                            and not p.get("text", "").startswith("<system-reminder>"))
    return content or ""


def chat_turn(messages):
    """(script, prompt text, tool results since the prompt) from chat-completions messages."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        text = openai_text(m.get("content"))
        if m.get("role") == "user" and text.strip() and text.strip() != "Please continue.":
            done = sum(1 for later in messages[i + 1:] if later.get("role") == "tool")
            return script_of(text), plain_prompt(text), done
    return script_of(""), "", 0


# Cline 2.x declares no tools: its system prompt asks for XML tool calls in the reply text, and
# tool results come back as user messages "[tool for '…'] Result: …".
def xml_tools(body):
    system = openai_text((body.get("messages") or [{}])[0].get("content"))
    return not body.get("tools") and "<attempt_completion>" in system


def xml_turn(messages):
    """(script, prompt text, tool results since the prompt) for an XML-tools conversation."""
    for i in range(len(messages) - 1, -1, -1):
        text = openai_text(messages[i].get("content"))
        if messages[i].get("role") == "user" and SCRIPT_RE.search(text):
            done = sum(1 for later in messages[i + 1:] if later.get("role") == "user"
                       and "] Result:" in openai_text(later.get("content")))
            prompt = plain_prompt(re.sub(r"</?task>", "", text)).split("\n")[0]
            return script_of(text), prompt, done
    return script_of(""), "", 0


def xml_reply(script, prompt, done):
    """The reply text: the next step as Cline's XML tool call, else attempt_completion."""
    if done >= len(script["steps"]):
        return "<attempt_completion>\n<result>%s</result>\n</attempt_completion>" % \
            final_text(script, prompt)
    verb, _, rest = script["steps"][done].partition(" ")
    if verb == "read":
        return "<read_file>\n<path>%s</path>\n</read_file>" % rest
    if verb == "shell":
        return ("<execute_command>\n<command>%s</command>\n<requires_approval>false"
                "</requires_approval>\n</execute_command>" % rest)
    path, _, change = rest.partition(" ")
    old, _, new = change.partition("=>")
    return ("<replace_in_file>\n<path>%s</path>\n<diff>\n------- SEARCH\n%s\n=======\n%s\n"
            "+++++++ REPLACE\n</diff>\n</replace_in_file>" % (path, old.strip(), new.strip()))


def chat_chunk(model, delta, finish=None):
    return {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1767225600,
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def chat_completions(body):
    """(status, content type, payload) for an OpenAI chat completions call."""
    model = body.get("model", "mock")
    messages = body.get("messages", [])
    xml = xml_tools(body)
    script, prompt, done = (xml_turn if xml else chat_turn)(messages)
    if script["fail"]:
        err = {"error": {"message": "mock: this model call fails on purpose",
                         "type": "invalid_request_error", "code": "mock_failure"}}
        return 400, "application/json", json.dumps(err).encode()
    declared = {t["function"]["name"]: t["function"].get("parameters", {}).get("properties", {})
                for t in body.get("tools", []) or [] if t.get("type") == "function"}
    usage = {"prompt_tokens": 1000 + 10 * len(messages), "completion_tokens": 20,
             "total_tokens": 1020 + 10 * len(messages)}
    forced = (body.get("tool_choice") or {}) if isinstance(body.get("tool_choice"), dict) else {}
    fmt = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
    call, text, reasoning = None, None, None
    if forced.get("function"):
        name = forced["function"]["name"]
        call = (name, value_for({"type": "object", "properties": declared.get(name, {})}))
    elif fmt or (body.get("response_format") or {}).get("type") == "json_object":
        text = json.dumps(value_for(fmt))
    elif xml:
        text = xml_reply(script, prompt, done)
    elif done < len(script["steps"]):
        call = tool_call_for(script["steps"][done], declared)
    else:
        text = final_text(script, prompt)
    if script["think"] and done == 0 and not fmt:
        reasoning = "Mock reasoning before answering."
    if not body.get("stream"):
        msg = {"role": "assistant", "content": text}
        if reasoning:
            msg["reasoning_content"] = reasoning
        if call:
            msg["tool_calls"] = [{"id": "call_mock%d" % done, "type": "function",
                                  "function": {"name": call[0], "arguments": json.dumps(call[1])}}]
        payload = {"id": "chatcmpl-mock", "object": "chat.completion", "created": 1767225600,
                   "model": model, "usage": usage, "choices": [{
                       "index": 0, "message": msg,
                       "finish_reason": "tool_calls" if call else "stop"}]}
        return 200, "application/json", json.dumps(payload).encode()
    chunks = [chat_chunk(model, {"role": "assistant", "content": ""})]
    if reasoning:
        chunks.append(chat_chunk(model, {"reasoning_content": reasoning}))
    if call:
        chunks.append(chat_chunk(model, {"tool_calls": [{
            "index": 0, "id": "call_mock%d" % done, "type": "function",
            "function": {"name": call[0], "arguments": json.dumps(call[1])}}]}))
    else:
        half = len(text) // 2
        chunks += [chat_chunk(model, {"content": text[:half]}),
                   chat_chunk(model, {"content": text[half:]})]
    chunks.append(chat_chunk(model, {}, "tool_calls" if call else "stop"))
    chunks[-1]["usage"] = usage
    return 200, "text/event-stream", b"".join(
        ("data: %s\n\n" % json.dumps(c)).encode() for c in chunks) + b"data: [DONE]\n\n"
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
        self.send_status(200, ctype, payload)

    def send_status(self, status, ctype, payload):
        self.send_response(status)
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
        route = self.path.split("?")[0]
        if ":" in route.rsplit("/", 1)[-1]:
            self.send_status(*gemini_api(route, body))
        elif route.endswith("/chat/completions"):
            self.send_status(*chat_completions(body))
        elif self.path.split("?")[0].endswith("/responses"):
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
