"""Review 28 #1-3, 5, 7, 8, 11, 12: subagents launched in the background.

Claude Code 2.1.2xx runs agents in the background by default: the Task's
result only says it started ("Async agent launched successfully. (This tool
result is internal metadata — never quote …") and the agent's end comes
later as a `<task-notification>` (a user entry, or a `queued_command`
attachment read mid-turn) naming it by its tool call's id and its task id
(= the launch's agentId), with its status, final words and usage. A
checkpoint tool may scrub the tool call's id (`REDACTED`): the task id still
names it.

Generated sessions mix foreground and background agents, with and without
their own files, notified or not (before or after other turns, by either
id, as a user entry or an attachment), completed, failed or killed. The
oracle reads the generated JSON: each agent's tool calls (its file's
tool_use blocks, else the notification's `<tool_uses>`, else the result's
count), status and report. Every session goes through `vv backfill`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_agent_tokens import write_with_agents
from test_headlines import Transcript

ACK = ("Async agent launched successfully. (This tool result is internal metadata — never quote "
       "or paste any part of it, including the agentId below, into a user-facing reply.)\n"
       "agentId: {agent} (internal ID - do not mention to user. Use SendMessage with to: "
       "'{agent}', summary: '<5-10 word recap>' to continue this agent.)\nThe agent is working "
       "in the background. You will be notified automatically when it completes.")

agent_spec = st.fixed_dictionaries({
    "background": st.booleans(),
    "file_calls": st.one_of(st.none(), st.integers(1, 4)),  # its own file, and its calls
    "notified": st.booleans(),
    "via": st.sampled_from(["user", "attachment"]),
    "key": st.sampled_from(["both", "task", "tool"]),  # the ids the notification names it by
    "status": st.sampled_from(["completed", "completed", "failed", "killed"]),
    "tool_uses": st.integers(0, 90),
    "found": st.integers(0, 99),
})


def build(specs: list[dict[str, Any]], delays: list[int]) -> tuple[Transcript, dict[str, Any]]:
    """The session: one prompt launching every agent in turn, then turns of
    the user's, with each background agent's notification after `delay`
    of them."""
    t = Transcript(sid="7c1d2e3f-0000-4000-8000-00000000abcd")
    t.prompt("Split the work between agents")
    files: dict[str, list[dict[str, Any]]] = {}
    waiting: list[tuple[int, dict[str, Any]]] = []
    for a, spec in enumerate(specs):
        agent, tid = f"a{a:016x}", f"toolu_bg{a:04d}"
        desc = f"Part {a} of the work"
        t.raw({"type": "assistant", "message": {
            "id": f"msg_task{a}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": "Agent", "input": {
                "description": desc, "subagent_type": "general-purpose", "prompt": desc}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
        report = f"Checked part {a} and found {spec['found']} issues."
        if not spec["background"]:
            t.raw({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": report}]},
                "toolUseResult": {"status": "completed", "agentId": agent,
                                  "totalToolUseCount": spec["tool_uses"], "totalDurationMs": 4000,
                                  "totalTokens": 100, "content": [],
                                  "usage": {"input_tokens": 2, "output_tokens": 3}}})
            continue
        t.raw({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid,
             "content": [{"type": "text", "text": ACK.format(agent=agent)}]}]},
            "toolUseResult": {"isAsync": True, "status": "async_launched", "agentId": agent,
                              "description": desc, "prompt": desc}})
        if spec["file_calls"] is not None:
            entries: list[dict[str, Any]] = [{"type": "user", "uuid": f"{agent}-0",
                                              "message": {"role": "user", "content": desc}}]
            for c in range(spec["file_calls"]):
                entries.append({"type": "assistant", "uuid": f"{agent}-c{c}", "message": {
                    "id": f"msg_{agent}_{c}", "role": "assistant", "model": "claude-haiku-4-5",
                    "content": [{"type": "tool_use", "id": f"toolu_{agent}_{c}", "name": "Read",
                                 "input": {"file_path": f"/work/app/f{c}.txt"}}],
                    "usage": {"input_tokens": 1, "output_tokens": 1}}})
                entries.append({"type": "user", "uuid": f"{agent}-r{c}", "message": {
                    "role": "user", "content": [{"type": "tool_result",
                                                 "tool_use_id": f"toolu_{agent}_{c}",
                                                 "content": "x"}]}})
            files[agent] = [{**e, "sessionId": t.sid, "agentId": agent, "isSidechain": True,
                             "cwd": t.cwd, "timestamp": "2026-03-01T10:00:30.000Z"}
                            for e in entries]
        if spec["notified"]:
            waiting.append((delays[a], {**spec, "agent": agent, "tid": tid, "desc": desc,
                                        "report": report}))
    turns = max([d for d, _ in waiting], default=0) + 1
    for turn in range(turns):
        for delay, n in waiting:
            if delay == turn:
                _notify(t, n)
        t.say(f"Noted, turn {turn}.")
        t.prompt(f"And the next thing, {turn}")
    t.say("All done.")
    return t, files


def _notify(t: Transcript, n: dict[str, Any]) -> None:
    tool = n["tid"] if n["key"] in ("both", "tool") else "REDACTED"
    task = f"<task-id>{n['agent']}</task-id>\n" if n["key"] in ("both", "task") else ""
    result = f"<result>{n['report']}</result>\n" if n["status"] != "killed" else ""
    text = (f"<task-notification>\n{task}<tool-use-id>{tool}</tool-use-id>\n"
            f"<output-file>/tmp/claude/tasks/{n['agent']}.output</output-file>\n"
            f"<status>{n['status']}</status>\n<summary>Agent \"{n['desc']}\" finished</summary>\n"
            f"{result}<usage><subagent_tokens>5000</subagent_tokens>"
            f"<tool_uses>{n['tool_uses']}</tool_uses><duration_ms>61000</duration_ms></usage>\n"
            "</task-notification>")
    if n["via"] == "user":
        t.raw({"type": "user", "message": {"role": "user", "content": text},
               "origin": {"kind": "task-notification"}})
    else:
        t.raw({"type": "attachment", "attachment": {
            "type": "queued_command", "prompt": text, "commandMode": "task-notification"}})


# -- the oracle: read from the generated JSON alone ---------------------------------------

_TAG = r"<{0}>(.*?)</{0}>"


def oracle(lines: list[dict[str, Any]], files: dict[str, list[dict[str, Any]]]
           ) -> list[dict[str, Any]]:
    """Each agent of the session: its description, tool calls (None: not
    known), status ("" while it runs in the background) and report."""
    agents: list[dict[str, Any]] = []
    by_tool: dict[str, dict[str, Any]] = {}
    by_task: dict[str, dict[str, Any]] = {}
    for o in lines:
        content = (o.get("message") or {}).get("content")
        notice = content if isinstance(content, str) else \
            (o.get("attachment") or {}).get("prompt")
        if isinstance(notice, str) and notice.startswith("<task-notification>"):
            fields = {k: (re.search(_TAG.format(k), notice, re.S) or [None, None])[1]
                      for k in ("task-id", "tool-use-id", "status", "result", "tool_uses")}
            a = by_tool.get(fields["tool-use-id"] or "") or by_task.get(fields["task-id"] or "")
            assert a is not None
            a["status"] = fields["status"]
            a["report"] = fields["result"]
            if a["calls"] is None or a["agent"] not in files:
                a["calls"] = int(fields["tool_uses"])
            continue
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_use" and b.get("name") == "Agent":
                agents.append({"desc": b["input"]["description"], "tool": b["id"],
                               "calls": None, "status": "", "report": None, "agent": ""})
                by_tool[b["id"]] = agents[-1]
            if b.get("type") == "tool_result" and b["tool_use_id"] in by_tool:
                a, r = by_tool[b["tool_use_id"]], o["toolUseResult"]
                a["agent"] = r["agentId"]
                by_task[r["agentId"]] = a
                if r["status"] == "async_launched":
                    a["background"] = True
                    if r["agentId"] in files:
                        a["calls"] = sum(1 for e in files[r["agentId"]]
                                         for c in e["message"]["content"]
                                         if isinstance(c, dict) and c.get("type") == "tool_use")
                else:
                    a["background"] = False
                    a["status"], a["report"] = r["status"], b["content"]
                    a["calls"] = r["totalToolUseCount"]
    return agents


@settings(max_examples=examples(12, 60), deadline=None)
@given(specs=st.lists(agent_spec, min_size=1, max_size=4),
       delays=st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_background_subagents_are_told_as_their_notifications_say(
        tmp_path_factory: Any, specs: list[dict[str, Any]], delays: list[int]) -> None:
    env = Env(tmp_path_factory.mktemp("bg-agents"))
    env.here = in_process("background subagents")
    t, files = build(specs, delays)
    write_with_agents(env, t, files)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    expected = oracle(t.lines, files)
    # The launch's words are the client's, and say never to quote them.
    assert "Async agent launched" not in note and "internal metadata" not in note, note
    section = note.split("\n## Subagents\n", 1)[1].split("\n## ", 1)[0]
    listed = [ln for ln in section.splitlines() if ln.startswith("- *general-purpose*: ")]
    assert len(listed) == len(expected), section
    threads = note.split("\n## Open threads\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Open threads\n" in note else ""
    for a, line in zip(expected, listed, strict=True):
        assert line.startswith(f"- *general-purpose*: {a['desc']} ("), (line, a)
        running = a["background"] and not a["status"]
        if a["calls"] is not None:
            assert f"({a['calls']} tool call{'' if a['calls'] == 1 else 's'}" in line, (line, a)
            assert "(1 tool calls" not in line, (line, a)  # English, as counted
        else:
            assert "tool call" not in line, (line, a)
        assert ("still running in the background" in line) == running, (line, a)
        for word in ("failed", "killed"):
            assert (word in line) == (a["status"] == word), (line, a)
        # Open threads: only an agent with no end.
        assert (f"- [ ] {a['desc']} *(running in the background)*" in threads) == running, \
            (threads, a)
        story = [ln for ln in note.splitlines()
                 if ln.startswith(f"- Delegated to subagent *general-purpose*: {a['desc']}")]
        assert len(story) == 1, note
        at = note.splitlines().index(story[0])
        below = note.splitlines()[at + 1] if at + 1 < len(note.splitlines()) else ""
        if a["report"]:
            assert "*Its report" in below and a["report"] in below, (below, a)
        else:
            assert "*Its report" not in below, (below, a)
        if a["background"]:
            assert "in the background" in story[0], story
            assert ("still running" in story[0]) == running, story
    # The "≥" reason names what is really unrecorded.
    head = note.split("\n## ", 1)[0]
    unfinished = [a for a in expected if a["background"] and not a["status"]
                  and a["agent"] not in files]
    ended = [a for a in expected if a["background"] and a["status"]
             and a["agent"] not in files]
    assert ("had not finished" in head) == bool(unfinished), head
    assert ("background subagent" in head) == bool(ended), head
    if ended:
        k = len(ended)
        assert f"no usage of {k} background subagent{'s' if k > 1 else ''}," in head, head


def test_a_notification_names_its_agent_by_task_id_when_its_tool_id_is_scrubbed(
        tmp_path: Path) -> None:
    """Review 28 #3: dcce4143's T2, its notification's tool-use-id
    `REDACTED`: it finished, with 56 calls, and is no open thread."""
    spec = {"background": True, "file_calls": None, "notified": True, "via": "user",
            "key": "task", "status": "completed", "tool_uses": 56, "found": 3}
    t, _ = build([spec], [1])
    env = Env(tmp_path)
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert "- *general-purpose*: Part 0 of the work (56 tool calls, 1m 01s)" in note, note
    assert "running in the background" not in note and "had not finished" not in note, note
    assert "Checked part 0 and found 3 issues." in note, note
