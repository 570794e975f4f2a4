"""Review 31 F15: "N open tasks" counts the todo list's items not done, and
nothing else.

5632e712 made five tasks (TaskCreate) and marked all five completed
(TaskUpdate); what it left running was a command started in the background
(`run_in_background`). The headline read "1 open task". A command, a monitor
or a subagent left running is not a task of the list: it is said as what it
is ("1 shell command left running", "2 subagents (1 running in the
background)").

Generated: sessions with a todo list (TodoWrite, replaced whole by each call,
or TaskCreate/TaskUpdate), background commands (some ended by their
notification) and background subagents (some notified). The oracle reads the
generated JSON: each task's last status, each command's and agent's
notification.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

STATUSES = ("pending", "in_progress", "completed", "completed", "deleted")
todo = st.tuples(st.sampled_from(STATUSES[:3]), st.sampled_from(STATUSES))


def _notice(task: str, tool: str) -> str:
    return (f"<task-notification>\n<task-id>{task}</task-id>\n<tool-use-id>{tool}</tool-use-id>\n"
            "<status>completed</status>\n<summary>done</summary>\n</task-notification>")


def build(kind: str, todos: list[tuple[str, str]], commands: list[bool],
          agents: list[bool]) -> Transcript:
    t = Transcript(sid="5632e712-0000-4000-8000-0000000f15f1")
    t.prompt("Work through the plan")
    subjects = [f"WP{n}: part {n} of the plan" for n in range(len(todos))]
    if kind == "tasks":
        for n, (first, _) in enumerate(todos):
            t.call("TaskCreate", {"subject": subjects[n], "description": "do it"},
                   {"task": {"id": str(n + 1), "subject": subjects[n]}},
                   f"Task #{n + 1} created successfully: {subjects[n]}")
            if first != "pending":
                t.call("TaskUpdate", {"taskId": str(n + 1), "status": first},
                       {"success": True}, f"Updated task #{n + 1} status")
    elif todos:
        t.call("TodoWrite", {"todos": [{"content": s, "status": first, "activeForm": s}
                                       for s, (first, _) in zip(subjects, todos, strict=True)]},
               {"oldTodos": [], "newTodos": []}, "Todos have been modified successfully.")
    for n, _ in enumerate(commands):
        t.call("Bash", {"command": f"/tmp/bench-{n} -jobs 8 > /tmp/bench-{n}.log 2>&1",
                        "run_in_background": True},
               {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": f"b{n}x"},
               f"Command running in background with ID: b{n}x. Output is being written to: "
               f"/tmp/b{n}x.output")
    for n, _ in enumerate(agents):
        desc, agent = f"Research part {n}", f"a{n:016x}"
        t.call("Task", {"description": desc, "subagent_type": "general-purpose", "prompt": desc,
                        "run_in_background": True},
               {"isAsync": True, "status": "async_launched", "agentId": agent,
                "description": desc, "prompt": desc},
               "Async agent launched successfully.")
    t.say("Started.")
    for n, ended in enumerate(commands):
        if ended:
            tool = next(o["message"]["content"][0]["id"] for o in t.lines
                        if o["type"] == "assistant" and f"/tmp/bench-{n} " in str(o["message"]))
            t.raw({"type": "user", "message": {"role": "user", "content": _notice(f"b{n}x", tool)}})
    for n, ended in enumerate(agents):
        if ended:
            t.raw({"type": "user", "message": {"role": "user", "content": _notice(
                f"a{n:016x}", "REDACTED")}})
    if kind == "tasks":
        for n, (first, last) in enumerate(todos):
            if last != first:
                t.call("TaskUpdate", {"taskId": str(n + 1), "status": last},
                       {"success": True}, f"Updated task #{n + 1} status")
    elif todos:
        t.call("TodoWrite", {"todos": [{"content": s, "status": last, "activeForm": s}
                                       for s, (_, last) in zip(subjects, todos, strict=True)
                                       if last != "deleted"]},
               {"oldTodos": [], "newTodos": []}, "Todos have been modified successfully.")
    t.say("Done for now.")
    return t


def oracle(lines: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(open tasks, commands left running, agents running), from the JSON."""
    tasks: dict[str, str] = {}
    todos: dict[str, str] = {}
    started: dict[str, str] = {}  # tool id -> task id, of what runs in the background
    ended: set[str] = set()
    for o in lines:
        content = o["message"]["content"]
        if isinstance(content, str):
            ended.update(re.findall(r"<task-id>(.*?)</task-id>", content))
            continue
        for b in content:
            if b.get("type") == "tool_use" and b["name"] == "TaskCreate":
                tasks[str(len(tasks) + 1)] = "pending"
            elif b.get("type") == "tool_use" and b["name"] == "TaskUpdate":
                tasks[b["input"]["taskId"]] = b["input"]["status"]
            elif b.get("type") == "tool_use" and b["name"] == "TodoWrite":
                todos = {x["content"]: x["status"] for x in b["input"]["todos"]}
        use = o.get("toolUseResult")
        if isinstance(use, dict) and (use.get("backgroundTaskId") or use.get("agentId")):
            started[str(use.get("backgroundTaskId") or use.get("agentId"))] = \
                "command" if use.get("backgroundTaskId") else "agent"
    listed = todos or tasks
    open_ = sum(1 for s in listed.values() if s not in ("completed", "deleted"))
    left = [kind for task, kind in started.items() if task not in ended]
    return open_, left.count("command"), left.count("agent")


def _said(head: str, pattern: str) -> int:
    found = re.search(pattern, head)
    return int(found.group(1)) if found else 0


@settings(max_examples=examples(20, 100), deadline=None)
@given(kind=st.sampled_from(["tasks", "todos"]), todos=st.lists(todo, max_size=5),
       commands=st.lists(st.booleans(), max_size=2), agents=st.lists(st.booleans(), max_size=2))
def test_open_tasks_are_the_lists_items_not_done(
        tmp_path_factory: Any, kind: str, todos: list[tuple[str, str]], commands: list[bool],
        agents: list[bool]) -> None:
    t = build(kind, todos, commands, agents)
    note = t.note(tmp_path_factory, "open tasks")
    head = note.split("\n## ", 1)[0]
    open_, left, running = oracle(t.lines)
    assert _said(head, r"(\d+) open tasks?\b") == open_, (head, todos)
    assert _said(head, r"(\d+) shell commands? left running\b") == left, head
    assert _said(head, r"(\d+) running in the background\b") == running, head
