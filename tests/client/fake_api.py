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
- "api error": an overloaded error (HTTP 529);
- anything else: a short text.

Every reply k carries its own usage (input 5+k, output 30+k, cache write 700*k,
cache read 9000*k) and a message id unique to this run; each is logged as a JSON
line (id, model, usage) so a test can add up what the transcript should hold.
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RUN = uuid.uuid4().hex[:10]
COUNTER = itertools.count(1)
LOCK = threading.Lock()


def usage(k: int) -> dict[str, int]:
    return {"input_tokens": 5 + k, "output_tokens": 30 + k,
            "cache_creation_input_tokens": 700 * k, "cache_read_input_tokens": 9000 * k}


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


def reply(body: dict[str, Any], k: int) -> tuple[list[dict[str, Any]], str] | None:
    """The content blocks and stop reason of reply k; None for an API error."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = users[-1] if users else {}
    content = last.get("content")
    if isinstance(content, list):
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        asked = " ".join(words(m) for m in users)
        if results and "edit: " in asked and tools_called(body)[-1:] == ["Read"]:
            path = asked.split("edit: ", 1)[1].strip().split()[0]
            return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "Edit",
                     "input": {"file_path": path, **EDIT}}], "tool_use"
        if results:
            out = results[-1].get("content")
            text = out if isinstance(out, str) else " ".join(
                b.get("text", "") for b in out or [] if isinstance(b, dict))
            return [{"type": "text", "text": f"The command printed: {text.strip()[:200]}"}], \
                "end_turn"
    said = words(last).lower()
    if "api error" in said:
        return None
    if "write: " in said:
        path = words(last).split("write: ", 1)[1].strip().split()[0]
        return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "Write",
                 "input": {"file_path": path, "content": "one\ntwo\nthree\n"}}], "tool_use"
    if "edit: " in said:
        path = words(last).split("edit: ", 1)[1].strip().split()[0]
        return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "Read",
                 "input": {"file_path": path}}], "tool_use"
    if "todo: " in said:
        # TodoWrite is offered when the client runs with CLAUDE_CODE_ENABLE_TASKS=0
        items = [w.strip() for w in words(last).split("todo: ", 1)[1].split(";") if w.strip()]
        todos = [{"content": item, "activeForm": item,
                  "status": "in_progress" if i == 0 else "pending"}
                 for i, item in enumerate(items)]
        return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "TodoWrite",
                 "input": {"todos": todos}}], "tool_use"
    if "plan: " in said:
        # 2.1 clients offer TaskCreate (TodoWrite is not enabled in -p mode)
        items = [w.strip() for w in words(last).split("plan: ", 1)[1].split(";") if w.strip()]
        return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}{i}", "name": "TaskCreate",
                 "input": {"subject": item, "description": item, "activeForm": item}}
                for i, item in enumerate(items)], "tool_use"
    if "delegate: " in said:
        task = words(last).split("delegate: ", 1)[1].strip()
        return [{"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "Task",
                 "input": {"description": "Look into it", "prompt": task,
                           "subagent_type": "general-purpose"}}], "tool_use"
    if "run: " in said:
        command = words(last).split("run: ", 1)[1].strip().splitlines()[0]
        return [{"type": "text", "text": "Running it now."},
                {"type": "tool_use", "id": f"toolu_{RUN}{k:04d}", "name": "Bash",
                 "input": {"command": command, "description": "Run the requested command"}}], \
            "tool_use"
    return [{"type": "text", "text": "hello from the fake API"}], "end_turn"


def event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    # Keep-alive, as the client expects: a connection closed under it is an
    # ECONNRESET on its next request.
    protocol_version = "HTTP/1.1"
    log_path = ""

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
            k = next(COUNTER)
        planned = reply(body, k)
        model = body.get("model", "claude-sonnet-4-5")
        if planned is None:
            self.log({"k": k, "error": True, "model": model})
            self.send(529, "application/json", json.dumps(
                {"type": "error", "error": {"type": "overloaded_error",
                                            "message": "Overloaded"}}).encode())
            return
        blocks, stop = planned
        msg_id = f"msg_{RUN}{k:04d}"
        self.log({"k": k, "id": msg_id, "model": model, "usage": usage(k), "stop": stop,
                  # whether the client offered the model vibe-vault's recall skill
                  "recall_skill": "Find what was done in earlier Claude Code sessions"
                  in json.dumps(body)})
        if not body.get("stream"):
            self.send(200, "application/json", json.dumps(
                {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                 "content": blocks, "stop_reason": stop, "stop_sequence": None,
                 "usage": usage(k)}).encode())
            return
        start_usage = dict(usage(k), output_tokens=1)
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
    args = ap.parse_args()
    Handler.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    time.sleep(args.lifetime)


if __name__ == "__main__":
    main()
