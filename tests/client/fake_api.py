"""A stand-in for the Anthropic Messages API, for driving the real Claude Code
client offline in tests. Loopback only, and it exits by itself.

Scenarios, chosen by the words of the last user message:
- a tool result in the last message: a final text that quotes it;
- "run: <command>": a Bash tool_use running <command>;
- "write: <absolute path>": a Write of three lines;
- "plan: a; b; c": a TaskCreate for each item;
- "todo: a; b; c": a TodoWrite of the items, the first one in progress;
- "edit: <absolute path>": a Read of the file, then an Edit of its line "two";
- "delegate: <task>": a Task for a general-purpose subagent;
- "propose: a; b": in plan mode, a Write of a plan of the items to the plan
  file the client names, then an ExitPlanMode;
- "background: <command>": a Bash tool_use running <command> in the background;
  "stop it" anywhere in the user's words: then a TaskStop of the id it got;
  "check it": then a TaskOutput of it, waiting for it to end;
- "monitor: <command>": a Monitor watching <command>;
- "wakeup: <prompt>": a ScheduleWakeup of <prompt> in twenty minutes;
- "schedule: <prompt>": a CronCreate of <prompt> every five minutes; "cancel it"
  anywhere in the user's words: then a CronDelete of the job id it got;
- "api error": an overloaded error (HTTP 529);
- "go fast" anywhere in the user's words: every reply served in fast mode;
- anything else: a short text.

A tool the scenario needs that the client offers only as a deferred tool (newer
clients list those by name and load them through ToolSearch) is first loaded
with a ToolSearch call; one it does not offer at all is not called: the reply
says so instead. Each request's log record lists the tools offered (`tools`,
`deferred`), so a test asks the client what it offers instead of assuming.

Every reply k carries its own usage (input 5+k, output 30+k, cache write 700*k
of which 50 for an hour, cache read 9000*k; k counts from `--kbase`, so turns
can be made to cross 200k tokens) and a message id unique to this run; each is
logged as a JSON line (id, model, usage) so a test can add up what the
transcript should hold. `--bodies DIR` keeps every request body.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RUN = uuid.uuid4().hex[:10]
COUNTER = itertools.count(1)
LOCK = threading.Lock()


KBASE = 0


def usage(k: int, fast: bool = False) -> dict[str, Any]:
    u: dict[str, Any] = {
        "input_tokens": 5 + k, "output_tokens": 30 + k,
        "cache_creation_input_tokens": 700 * k, "cache_read_input_tokens": 9000 * k,
        "cache_creation": {"ephemeral_5m_input_tokens": 700 * k - 50,
                           "ephemeral_1h_input_tokens": 50}}
    if fast:  # served in fast mode, as the API says of such a reply
        u["speed"] = "fast"
    return u


def wants_fast(body: dict[str, Any]) -> bool:
    """A session whose user asked to "go fast" is answered in fast mode."""
    return any("go fast" in words(m) for m in body.get("messages", []) if m.get("role") == "user")


def texts(body: dict[str, Any]) -> list[str]:
    """Every text of a request: system blocks and message contents."""
    out: list[str] = []
    system = body.get("system")
    for part in [system] if isinstance(system, str) else system or []:
        out.append(part if isinstance(part, str) else str(part.get("text", "")))
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for b in content or []:
            if isinstance(b, dict) and isinstance(b.get("text"), str):
                out.append(b["text"])
    return out


def offered(body: dict[str, Any]) -> list[str]:
    return [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]


def deferred(body: dict[str, Any]) -> list[str]:
    """Tools the client lists by name only, to be loaded with ToolSearch first:
    the lines after its "deferred tools are now available" notice."""
    names: list[str] = []
    for text in texts(body):
        for part in text.split("deferred tools are now available")[1:]:
            for line in part.split(":\n", 1)[-1].splitlines():
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", line.strip()):
                    break
                names.append(line.strip())
    return names


def session_of(body: dict[str, Any]) -> str:
    """The session a request is for, as the client tells it in `metadata.user_id`."""
    user = str((body.get("metadata") or {}).get("user_id", ""))
    found = re.search(r"session[_\"a-z:]*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
                      user)
    return found.group(1) if found else ""


def tool_call(body: dict[str, Any], k: int, name: str, inputs: list[dict[str, Any]],
              before: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], str]:
    """Calls of tool `name` (one per input), as the client offers it: loaded
    with ToolSearch first when it is deferred, or a text saying it is not
    offered at all."""
    if name not in offered(body):
        if name in deferred(body) and "ToolSearch" in offered(body):
            return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "ToolSearch",
                     "input": {"query": f"select:{name}"}}], "tool_use"
        return [{"type": "text", "text": f"The client does not offer {name}."}], "end_turn"
    return [*(before or []), *({"type": "tool_use", "id": f"toolu_{RUN}{k:04d}{i}", "name": name,
                                "input": inp} for i, inp in enumerate(inputs))], "tool_use"


def words(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


EDIT = {"old_string": "two\n", "new_string": "2\n2.5\n"}


def tools_called(body: dict[str, Any]) -> list[str]:
    return [b.get("name", "") for m in body.get("messages", []) if m.get("role") == "assistant"
            and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]


def result_text(block: dict[str, Any]) -> str:
    out = block.get("content")
    return out if isinstance(out, str) else " ".join(
        b.get("text", "") for b in out or [] if isinstance(b, dict))


def reply(body: dict[str, Any], k: int) -> tuple[list[dict[str, Any]], str] | None:
    """The content blocks and stop reason of reply k; None for an API error."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = users[-1] if users else {}
    content = last.get("content")
    if isinstance(content, list):
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        asked = " ".join(words(m) for m in users)
        called = tools_called(body)
        earlier = " ".join(result_text(b) for m in users if isinstance(m.get("content"), list)
                           for b in m["content"] if isinstance(b, dict)
                           and b.get("type") == "tool_result")
        if results and "stop it" in asked and "Bash" in called and "TaskStop" not in called:
            found = re.search(r"with ID: ([A-Za-z0-9_-]+)", earlier)
            if found:
                return tool_call(body, k, "TaskStop", [{"task_id": found.group(1)}])
        if results and "check it" in asked and "Bash" in called and "TaskOutput" not in called:
            found = re.search(r"with ID: ([A-Za-z0-9_-]+)", earlier)
            if found:
                return tool_call(body, k, "TaskOutput", [{"task_id": found.group(1),
                                                          "block": True, "timeout": 20000}])
        if results and "cancel it" in asked and "CronCreate" in called and \
                "CronDelete" not in called:
            found = re.search(r"job ([A-Za-z0-9_-]+)", earlier)
            if found:
                return tool_call(body, k, "CronDelete", [{"id": found.group(1)}])
        if results and "propose: " in asked and called[-1:] == ["Write"]:
            return scenario(body, k, asked)  # the plan is written: put it to the user
        if results and tools_called(body)[-1:] == ["ToolSearch"]:
            return scenario(body, k, asked)  # the tool it needed is loaded now
        if results and "edit: " in asked and tools_called(body)[-1:] == ["Read"]:
            path = asked.split("edit: ", 1)[1].strip().split()[0]
            return tool_call(body, k, "Edit", [{"file_path": path, **EDIT}])
        if results:
            out = results[-1].get("content")
            text = out if isinstance(out, str) else " ".join(
                b.get("text", "") for b in out or [] if isinstance(b, dict))
            return [{"type": "text", "text": f"The command printed: {text.strip()[:200]}"}], \
                "end_turn"
    return scenario(body, k, words(last))


def scenario(body: dict[str, Any], k: int, asked: str) -> tuple[list[dict[str, Any]], str] | None:
    """What the words the user asked call for."""
    said = asked.lower()
    if "api error" in said:
        return None
    if "write: " in said:
        path = asked.split("write: ", 1)[1].strip().split()[0]
        return tool_call(body, k, "Write", [{"file_path": path, "content": "one\ntwo\nthree\n"}])
    if "edit: " in said:
        path = asked.split("edit: ", 1)[1].strip().split()[0]
        return tool_call(body, k, "Read", [{"file_path": path}])
    if "todo: " in said:
        # TodoWrite: offered by 2.1 clients run with CLAUDE_CODE_ENABLE_TASKS=0 (and, on
        # the newest models, CLAUDE_CODE_ENABLE_TODO_TOOLS=1)
        items = [w.strip() for w in asked.split("todo: ", 1)[1].split(";") if w.strip()]
        todos = [{"content": item, "activeForm": item,
                  "status": "in_progress" if i == 0 else "pending"}
                 for i, item in enumerate(items)]
        return tool_call(body, k, "TodoWrite", [{"todos": todos}])
    if "plan: " in said:
        # TaskCreate: offered by 2.1 clients (on the newest models only with
        # CLAUDE_CODE_ENABLE_TODO_TOOLS=1)
        items = [w.strip() for w in asked.split("plan: ", 1)[1].split(";") if w.strip()]
        return tool_call(body, k, "TaskCreate", [
            {"subject": item, "description": item, "activeForm": item} for item in items])
    if "delegate: " in said:
        task = asked.split("delegate: ", 1)[1].strip()
        agent = "Agent" if "Agent" in offered(body) else "Task"
        return tool_call(body, k, agent, [{"description": "Look into it", "prompt": task,
                                           "subagent_type": "general-purpose"}])
    if "schedule: " in said:
        prompt = asked.split("schedule: ", 1)[1].strip().splitlines()[0]
        prompt = prompt.split("Tool loaded")[0].strip()  # words the client adds
        return tool_call(body, k, "CronCreate", [{"cron": "*/5 * * * *", "prompt": prompt,
                                                  "recurring": True}])
    if "propose: " in said:
        # As plan mode asks: the plan written to the plan file the client
        # names, then ExitPlanMode (which takes no plan of its own).
        items = [w.strip() for w in asked.split("propose: ", 1)[1].split("Tool loaded")[0]
                 .split(";") if w.strip()]
        plan = "## The plan\n\n" + "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))
        found = re.search(r"(/\S+/\.claude/plans/[\w.-]+\.md)", " ".join(texts(body)))
        if found and "Write" not in tools_called(body):
            return tool_call(body, k, "Write", [{"file_path": found.group(1), "content": plan}])
        return tool_call(body, k, "ExitPlanMode", [{}])
    if "monitor: " in said:
        command = asked.split("monitor: ", 1)[1].strip().splitlines()[0]
        command = command.split("Tool loaded")[0].strip()
        return tool_call(body, k, "Monitor", [{"command": command,
                                               "description": "Watch it"}])
    if "wakeup: " in said:
        prompt = asked.split("wakeup: ", 1)[1].strip().splitlines()[0]
        prompt = prompt.split("Tool loaded")[0].strip()
        return tool_call(body, k, "ScheduleWakeup", [{"delaySeconds": 1200, "prompt": prompt,
                                                      "reason": "check back later"}])
    if "background: " in said:
        command = asked.split("background: ", 1)[1].strip().splitlines()[0]
        command = command.split("Tool loaded")[0].strip()
        return tool_call(body, k, "Bash", [{"command": command, "run_in_background": True,
                                            "description": "Run it in the background"}])
    if "run: " in said:
        command = asked.split("run: ", 1)[1].strip().splitlines()[0]
        return tool_call(body, k, "Bash", [{"command": command,
                                            "description": "Run the requested command"}],
                         before=[{"type": "text", "text": "Running it now."}])
    return [{"type": "text", "text": "hello from the fake API"}], "end_turn"


def event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    # Keep-alive, as the client expects: a connection closed under it is an
    # ECONNRESET on its next request.
    protocol_version = "HTTP/1.1"
    log_path = ""
    bodies = ""

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def send(self, code: int, kind: str, payload: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self.send(200, "application/json", b"{}")

    def do_HEAD(self) -> None:
        self.send(200, "application/json", b"")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if not self.path.startswith("/v1/messages") or self.path.startswith(
                "/v1/messages/count_tokens"):
            self.send(200, "application/json", json.dumps({"input_tokens": 10}).encode())
            return
        with LOCK:
            k = next(COUNTER) + KBASE
        if self.bodies:
            os.makedirs(self.bodies, exist_ok=True)
            with open(os.path.join(self.bodies, f"req-{k:04d}.json"), "w") as f:
                json.dump(body, f)
        planned = reply(body, k)
        # the model asked for, as the API names it (without the client's "[1m]")
        model = str(body.get("model", "claude-sonnet-4-5")).replace("[1m]", "")
        if planned is None:
            self.log({"k": k, "error": True, "model": model, "tools": offered(body),
                      "deferred": deferred(body)})
            self.send(529, "application/json", json.dumps(
                {"type": "error", "error": {"type": "overloaded_error",
                                            "message": "Overloaded"}}).encode())
            return
        blocks, stop = planned
        fast = wants_fast(body)
        msg_id = f"msg_{RUN}{k:04d}"
        self.log({"k": k, "id": msg_id, "model": model, "usage": usage(k, fast), "stop": stop,
                  "tools": offered(body), "deferred": deferred(body),
                  "session": session_of(body), "called": [b["name"] for b in blocks if b["type"] == "tool_use"],
                  # whether the client offered the model vibe-vault's recall skill
                  "recall_skill": "Find what was done in earlier Claude Code sessions"
                  in json.dumps(body)})
        if not body.get("stream"):
            self.send(200, "application/json", json.dumps(
                {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                 "content": blocks, "stop_reason": stop, "stop_sequence": None,
                 "usage": usage(k, fast)}).encode())
            return
        start_usage = dict(usage(k, fast), output_tokens=1)
        out = [event("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": start_usage}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            else:
                start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            out.append(event("content_block_start", {"type": "content_block_start", "index": i,
                                                     "content_block": start}))
            out.append(event("content_block_delta", {"type": "content_block_delta", "index": i,
                                                     "delta": delta}))
            out.append(event("content_block_stop", {"type": "content_block_stop", "index": i}))
        out.append(event("message_delta", {"type": "message_delta",
                                           "delta": {"stop_reason": stop, "stop_sequence": None},
                                           "usage": {"output_tokens": usage(k)["output_tokens"]}}))
        out.append(event("message_stop", {"type": "message_stop"}))
        self.send(200, "text/event-stream", b"".join(out))

    def log(self, record: dict[str, Any]) -> None:
        if self.log_path:
            with LOCK, open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", default="")
    ap.add_argument("--lifetime", type=float, default=120)
    ap.add_argument("--bodies", default="", help="a folder to keep every request body in")
    ap.add_argument("--kbase", type=int, default=0, help="where k starts (usage grows with k)")
    args = ap.parse_args()
    global KBASE
    KBASE = args.kbase
    Handler.log_path = args.log
    Handler.bodies = args.bodies
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    time.sleep(args.lifetime)


if __name__ == "__main__":
    main()
