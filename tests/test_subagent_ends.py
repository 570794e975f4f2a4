"""Review 31 F11: a background subagent has finished when the transcript says
so, in any of the forms the client writes it.

0ccf1a04 (Claude Code 2.1.15) launched three agents in the background; the
client queued each one's `<task-notification>` (a `queue-operation` line,
`operation: enqueue`) and handed only one of them to Claude as a user
message. The note said the other two were "still running when the transcript
ends", with two open threads, though their notifications say `completed` and
their own files end with the finished poems.

The forms, each generated here (several for one agent, in any order, after
any number of later turns; the agent's id as old clients wrote it, 7
characters, or as newer ones do, 17):
- a `queue-operation` enqueue whose `content` is the notification;
- a user message holding it (a string, or a text block);
- a `queued_command` attachment holding it (read mid-turn, 2.1.21x);
- a TaskOutput (`task_id`) or AgentOutputTool (`agentId`, 2.0.x) call whose
  result tells the agent's status (`task.status`, or only the `<status>` of
  its text), where a status still `running` ends nothing;
- the agent's own `subagents/agent-<id>.jsonl` ending in its final answer
  (words, no tool call after them); one ending in a tool's result is at work.

The oracle reads the generated JSON: the latest status any line of the main
transcript gives for the agent (by its task id or tool call's id), else
`completed` when its file's last message is words with no tool call, else
still running. The note must say the same in the Subagents section, the
story and the open threads.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_agent_tokens import write_with_agents
from test_headlines import Transcript

FORMS = ("queue", "user", "user_block", "attachment", "task_output", "task_output_text",
         "agent_output")
hexes = st.text(alphabet="0123456789abcdef", min_size=16, max_size=16)

agent_spec = st.fixed_dictionaries({
    "hex": hexes,
    "long_id": st.booleans(),
    # The lines that tell its end, each after this many later turns.
    "forms": st.lists(st.tuples(st.sampled_from(FORMS), st.integers(0, 2)), max_size=3),
    "status": st.sampled_from(["completed", "completed", "failed", "killed"]),
    "with_tool_id": st.booleans(),  # the notification names its tool call too (2.1.2xx)
    "file": st.sampled_from([None, "working", "answered"]),
    "asked_running": st.booleans(),  # a TaskOutput that finds it still running, first
})


def _notice(agent: str, tool: str | None, status: str, desc: str) -> str:
    tool_line = f"<tool-use-id>{tool}</tool-use-id>\n" if tool else ""
    result = f"<result>The poem about {desc} is done.</result>\n" if status != "killed" else ""
    return (f"<task-notification>\n<task-id>{agent}</task-id>\n{tool_line}"
            f"<status>{status}</status>\n<summary>Agent \"{desc}\" {status}</summary>\n"
            f"{result}</task-notification>\n"
            f"Full transcript available at: /tmp/claude/tasks/{agent}.output")


def _output_call(t: Transcript, tool: str, agent: str, status: str, desc: str,
                 with_result: bool) -> None:
    """A TaskOutput (or AgentOutputTool) asking for the agent's output."""
    inp = {"agentId": agent, "block": True} if tool == "AgentOutputTool" else \
        {"task_id": agent, "block": True, "timeout": 30000}
    retrieval = "timeout" if status == "running" else "success"
    text = (f"<retrieval_status>{retrieval}</retrieval_status>\n\n<task_id>{agent}</task_id>\n\n"
            f"<task_type>local_agent</task_type>\n\n<status>{status}</status>")
    result = {"retrieval_status": retrieval, "task": {
        "task_id": agent, "task_type": "local_agent", "status": status, "description": desc,
        "output": ""}} if with_result else None
    t.call(tool, inp, result, text)


def _tell(t: Transcript, form: str, a: dict[str, Any]) -> None:
    notice = _notice(a["agent"], a["tid"] if a["with_tool_id"] else None, a["status"],
                     a["desc"])
    if form == "queue":
        t.lines.append({"type": "queue-operation", "operation": "enqueue",
                        "timestamp": t._base("x")["timestamp"], "sessionId": t.sid,
                        "content": notice})
    elif form == "user":
        t.raw({"type": "user", "message": {"role": "user", "content": notice}})
    elif form == "user_block":
        t.raw({"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": notice}]}})
    elif form == "attachment":
        t.raw({"type": "attachment", "attachment": {
            "type": "queued_command", "prompt": notice, "commandMode": "task-notification"}})
    else:
        _output_call(t, "AgentOutputTool" if form == "agent_output" else "TaskOutput",
                     a["agent"], a["status"], a["desc"], with_result=form != "task_output_text")


def _agent_file(t: Transcript, agent: str, desc: str, how: str) -> list[dict[str, Any]]:
    base = {"sessionId": t.sid, "agentId": agent, "isSidechain": True, "cwd": t.cwd,
            "timestamp": "2026-03-01T10:00:30.000Z"}
    entries: list[dict[str, Any]] = [
        {"type": "user", "uuid": f"{agent}-0", "message": {"role": "user", "content": desc}},
        {"type": "assistant", "uuid": f"{agent}-1", "message": {
            "id": f"msg_{agent}_1", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "tool_use", "id": f"toolu_{agent}_1", "name": "WebSearch",
                         "input": {"query": desc}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "user", "uuid": f"{agent}-2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{agent}_1", "content": "found"}]}},
    ]
    if how == "answered":
        entries.append({"type": "assistant", "uuid": f"{agent}-3", "message": {
            "id": f"msg_{agent}_3", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": f"## {desc}\n\nGolden warmth in a bowl."}],
            "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 9}}})
    return [{**e, **base} for e in entries]


def build(specs: list[dict[str, Any]]) -> tuple[Transcript, dict[str, list[dict[str, Any]]]]:
    t = Transcript(sid="5e2d3c4b-0000-4000-8000-00000000f11f")
    t.prompt("Spawn agents to write poems, in the background")
    files: dict[str, list[dict[str, Any]]] = {}
    agents = []
    for n, spec in enumerate(specs):
        agent = "a" + (spec["hex"] if spec["long_id"] else spec["hex"][:6])
        agent = f"{agent[:-2]}{n:02d}"  # (each its own)
        tid, desc = f"toolu_bg{n:04d}", f"Poem number {n}"
        t.raw({"type": "assistant", "message": {
            "id": f"msg_task{n}", "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": "Task", "input": {
                "description": desc, "subagent_type": "general-purpose", "prompt": desc,
                "run_in_background": True}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
        t.raw({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": [{"type": "text", "text": (
                f"Async agent launched successfully.\nagentId: {agent} (This is an internal "
                "ID for your use, do not mention it to the user.)\nThe agent is currently "
                "working in the background.")}]}]},
            "toolUseResult": {"isAsync": True, "status": "async_launched", "agentId": agent,
                              "description": desc, "prompt": desc}})
        if spec["file"] is not None:
            files[agent] = _agent_file(t, agent, desc, spec["file"])
        agents.append({**spec, "agent": agent, "tid": tid, "desc": desc})
    t.say("The agents are at work.")
    for a in agents:
        if a["asked_running"]:
            _output_call(t, "TaskOutput", a["agent"], "running", a["desc"], with_result=True)
    for turn in range(3):
        for a in agents:
            for form, at in a["forms"]:
                if at == turn:
                    _tell(t, form, a)
        t.say(f"Noted, turn {turn}.")
        t.prompt(f"Anything else, {turn}?")
    t.say("All done.")
    # Each line's parent: the line with a uuid before it (a queue line has none).
    last = None
    for line in t.lines:
        if "uuid" in line:
            line["parentUuid"] = last
            last = line["uuid"]
    return t, files


# -- the oracle: read from the generated JSON alone ---------------------------------------

def _tag(text: str, name: str) -> str | None:
    found = re.search(f"<{name}>(.*?)</{name}>", text, re.S)
    return found.group(1).strip() if found else None


def oracle(lines: list[dict[str, Any]], files: dict[str, list[dict[str, Any]]]
           ) -> dict[str, str]:
    """Each agent's description → how it ended ("" while it runs)."""
    by_task: dict[str, str] = {}
    by_tool: dict[str, str] = {}
    ended: dict[str, str] = {}
    asks: dict[str, str] = {}  # an output call's id → the agent it asks about

    def told(text: str) -> None:
        for block in text.split("<task-notification>")[1:]:
            desc = by_tool.get(_tag(block, "tool-use-id") or "") or \
                by_task.get(_tag(block, "task-id") or "")
            if desc is not None:
                ended[desc] = _tag(block, "status") or ""

    for o in lines:
        if o["type"] == "queue-operation" and o.get("operation") == "enqueue":
            told(o["content"])
            continue
        if o["type"] == "attachment":
            told(o["attachment"].get("prompt") or "")
            continue
        content = (o.get("message") or {}).get("content")
        if isinstance(content, str):
            told(content)
            continue
        for b in content or []:
            if b.get("type") == "text":
                told(b["text"])
            elif b.get("type") == "tool_use" and b["name"] == "Task":
                by_tool[b["id"]] = b["input"]["description"]
            elif b.get("type") == "tool_use" and b["name"] in ("TaskOutput", "AgentOutputTool"):
                asks[b["id"]] = b["input"].get("task_id") or b["input"].get("agentId")
            elif b.get("type") == "tool_result" and b["tool_use_id"] in by_tool:
                by_task[o["toolUseResult"]["agentId"]] = by_tool[b["tool_use_id"]]
            elif b.get("type") == "tool_result" and b["tool_use_id"] in asks:
                status = _tag(b["content"], "status")
                desc = by_task.get(asks[b["tool_use_id"]])
                if desc is not None and status not in ("running", "pending", None):
                    ended[desc] = status
    for agent, desc in by_task.items():
        if desc in ended or agent not in files:
            continue
        last = [e for e in files[agent] if e["type"] in ("user", "assistant")][-1]
        content = last["message"]["content"]
        if last["type"] == "assistant" and not any(
                b.get("type") == "tool_use" for b in content) and any(
                b.get("type") == "text" and b["text"].strip() for b in content):
            ended[desc] = "completed"
    return {desc: ended.get(desc, "") for desc in by_task.values()}


@settings(max_examples=examples(15, 80), deadline=None)
@given(specs=st.lists(agent_spec, min_size=1, max_size=3))
def test_a_background_subagent_has_ended_when_any_line_says_so(
        tmp_path_factory: Any, specs: list[dict[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("agent-ends"))
    env.here = in_process("background subagent ends")
    t, files = build(specs)
    write_with_agents(env, t, files)
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    (note,) = env.notes().values()
    expected = oracle(t.lines, files)
    assert len(expected) == len(specs)
    section = note.split("\n## Subagents\n", 1)[1].split("\n## ", 1)[0]
    threads = note.split("\n## Open threads\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Open threads\n" in note else ""
    for desc, status in expected.items():
        (line,) = [ln for ln in section.splitlines()
                   if ln.startswith(f"- *general-purpose*: {desc} (")]
        running = not status
        assert ("still running" in line) == running, (line, status)
        for word in ("failed", "killed"):
            assert (word in line) == (status == word), (line, status)
        assert (f"- [ ] {desc} *(running in the background)*" in threads) == running, \
            (threads, status)
        (story,) = [ln for ln in note.splitlines()
                    if ln.startswith(f"- Delegated to subagent *general-purpose*: {desc}")]
        assert ("still running" in story) == running, (story, status)
        for word in ("failed", "killed"):
            assert (word in story) == (status == word), (story, status)


def test_0ccf1a04s_queued_notifications_end_their_agents(tmp_path_factory: Any) -> None:
    """The reviewed case: two agents whose notifications were only queued,
    with 7-character ids, and whose files end with their poems; a third
    notified as a user message."""
    specs = [{"hex": f"{n}a5ef13" + "0" * 9, "long_id": False, "forms": forms,
              "status": "completed", "with_tool_id": False, "file": "answered",
              "asked_running": False}
             for n, forms in enumerate([[("queue", 0)], [("queue", 0)],
                                        [("queue", 0), ("user", 1)]])]
    env = Env(tmp_path_factory.mktemp("0ccf1a04"))
    t, files = build(specs)
    write_with_agents(env, t, files)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert "still running" not in note and "running in the background" not in note, note
