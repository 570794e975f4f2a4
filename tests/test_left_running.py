"""Work left running when a session ended is an open thread of its note:
commands started in the background (Bash `run_in_background`) that no
notification or stop ended, and prompts scheduled with CronCreate that no
CronDelete cancelled. Nothing that was stopped, finished or cancelled is.

Generated: sessions of starts, notifications, stops (that succeed, or fail as
the client says when the task had ended), schedules and cancellations, laid
out as Claude Code 2.1.197 and 2.1.332 write them (seen with the real clients:
`tests/client/test_client_background.py`). The oracle is a plain model of the
operations, kept by the generator; the session is folded in two reads split
anywhere (the fold law), and once end to end through `vv backfill`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, in_process
from vibe_vault.entries import decode_lines
from vibe_vault.figures import todo_list
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

SID = "5eda311b-37f2-4f63-9cb2-42089c0ad219"
OPS = st.lists(st.tuples(st.sampled_from(
    ["start", "notify", "stop", "stop-late", "schedule", "cancel", "cancel-fails",
     "check-done", "check-running", "bash-output", "monitor", "monitor-ends", "stop-monitor",
     "wakeup", "wakeup-stop", "wait"]),
    st.integers(0, 3)), max_size=14)
BASE = 1795687200  # 2026-11-26T10:00:00Z: where the Script's clock starts


class Script:
    """The lines of a session, and the model of what runs (the oracle)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.k = 0
        self.running: dict[int, str] = {}  # shell number -> command
        self.started: set[int] = set()
        self.scheduled: dict[int, str] = {}  # job number -> prompt
        self.created: set[int] = set()
        self.monitors: dict[int, str] = {}  # monitor number -> description
        self.watched: set[int] = set()
        self.wakeup: tuple[str, int] | None = None  # the prompt waiting, and when (epoch s)
        self.tool_ids: dict[int, str] = {}
        self.monitor_ids: dict[int, str] = {}

    def now(self) -> int:
        """The time (epoch s) of the last line."""
        return BASE + self.k

    def waiting_wakeup(self) -> tuple[str, int] | None:
        """The wakeup still to fire when the session's last line was written."""
        return self.wakeup if self.wakeup and self.wakeup[1] > self.now() else None

    def _line(self, kind: str, content: Any, **extra: Any) -> None:
        self.k += 1
        self.lines.append({
            "type": kind, "uuid": f"u{self.k:04d}", "sessionId": SID, "version": "2.1.332",
            "timestamp": f"2026-11-26T10:{self.k // 60:02d}:{self.k % 60:02d}.000Z",
            "message": {"role": kind, "content": content, **(
                {"id": f"msg_{self.k}", "model": "claude-opus-5-5",
                 "usage": {"input_tokens": 1, "output_tokens": 1}} if kind == "assistant"
                else {})}, **extra})

    def call(self, name: str, inp: dict[str, Any], result: str, use: Any = None,
             error: bool = False) -> None:
        tid = f"toolu_{self.k:04d}"
        self._line("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": inp}])
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": result}
        if error:
            block["is_error"] = True
        self._line("user", [block], toolUseResult=use if use is not None else result)

    def op(self, what: str, i: int) -> None:
        task, job = f"b{i}task", f"c{i}job"
        if what == "start" and i not in self.started:
            self.started.add(i)
            command = f"sleep {100 + i}"
            tid = f"toolu_{self.k:04d}"
            self.call("Bash", {"command": command, "run_in_background": True},
                      f"Command running in background with ID: {task}. Output is being "
                      f"written to: /tmp/{task}.output",
                      {"stdout": "", "stderr": "", "interrupted": False,
                       "backgroundTaskId": task})
            self.running[i] = command
            self.tool_ids[i] = tid
        elif what == "notify" and i in self.running:
            tid = self.tool_ids[i]
            self._line("user", f"<task-notification>\n<task-id>{task}</task-id>\n"
                       f"<tool-use-id>{tid}</tool-use-id>\n<status>completed</status>\n"
                       "<summary>done</summary>\n</task-notification>")
            del self.running[i]
        elif what == "stop" and i in self.running:
            self.call("TaskStop", {"task_id": task},
                      json.dumps({"message": f"Successfully stopped task: {task}"}),
                      {"message": f"Successfully stopped task: {task}", "task_id": task})
            del self.running[i]
        elif what == "stop-late" and i in self.started and i not in self.running:
            self.call("TaskStop", {"task_id": task},
                      f"<tool_use_error>Task {task} is not running (status: completed)"
                      "</tool_use_error>", f"Error: Task {task} is not running", error=True)
        elif what in ("check-done", "check-running") and i in self.started:
            status = "completed" if what == "check-done" else "running"
            self.call("TaskOutput", {"task_id": task, "block": what == "check-done",
                                     "timeout": 30000},
                      f"<retrieval_status>success</retrieval_status>\n\n<task_id>{task}</task_id>"
                      f"\n\n<status>{status}</status>",
                      {"retrieval_status": "success", "task": {
                          "task_id": task, "task_type": "local_bash", "status": status}})
            if status == "completed":
                self.running.pop(i, None)
        elif what == "bash-output" and i in self.started:
            self.call("BashOutput", {"bash_id": task}, "<status>killed</status>",
                      {"shellId": task, "command": "x", "status": "killed", "exitCode": None})
            self.running.pop(i, None)
        elif what == "monitor" and i not in self.watched:
            self.watched.add(i)
            mtask = f"m{i}task"
            self.monitor_ids[i] = f"toolu_{self.k:04d}"
            self.call("Monitor", {"command": f"tail -f app{i}.log", "description": f"errors {i}",
                                  "timeout_ms": 300000},
                      f"Monitor started (task {mtask}, expires in 5m unless the source ends "
                      "first). You will be notified on each event.",
                      {"taskId": mtask, "timeoutMs": 300000, "persistent": False})
            self.monitors[i] = f"errors {i}"
        elif what == "monitor-ends" and i in self.monitors:
            self._line("user", f"<task-notification>\n<task-id>m{i}task</task-id>\n"
                       f"<tool-use-id>{self.monitor_ids[i]}</tool-use-id>\n"
                       "<status>completed</status>\n<summary>Monitor stream ended</summary>\n"
                       "</task-notification>")
            del self.monitors[i]
        elif what == "stop-monitor" and i in self.monitors:
            self.call("TaskStop", {"task_id": f"m{i}task"},
                      json.dumps({"message": f"Successfully stopped task: m{i}task"}),
                      {"message": f"Successfully stopped task: m{i}task", "task_id": f"m{i}task"})
            del self.monitors[i]
        elif what == "wakeup":
            delay = (60, 1200, 3600, 5)[i]
            at = self.now() + 1 + delay  # (the result's line is a second after the call's)
            self.call("ScheduleWakeup", {"delaySeconds": delay, "prompt": f"poll ci {i}",
                                         "reason": "the CI run takes a while"},
                      f"Next wakeup scheduled (in {delay}s).",
                      {"scheduledFor": at * 1000, "clampedDelaySeconds": delay,
                       "wasClamped": False})
            self.wakeup = (f"poll ci {i}", at)
        elif what == "wakeup-stop" and self.wakeup is not None:
            self.call("ScheduleWakeup", {"stop": True}, "The loop is stopped.", {"stopped": True})
            self.wakeup = None
        elif what == "wait":  # time passes: the session's clock moves on
            self.k += 60 * (i + 1)
        elif what == "schedule" and i not in self.created:
            self.created.add(i)
            prompt = f"check build {i}"
            self.call("CronCreate", {"cron": "*/5 * * * *", "prompt": prompt, "recurring": True},
                      f"Scheduled recurring job {job} (Every 5 minutes).",
                      {"id": job, "humanSchedule": "Every 5 minutes", "recurring": True})
            self.scheduled[i] = prompt
        elif what == "cancel" and i in self.scheduled:
            self.call("CronDelete", {"id": job}, f"Cancelled job {job}.", {"id": job})
            del self.scheduled[i]
        elif what == "cancel-fails" and i in self.created:
            self.call("CronDelete", {"id": job}, f"<tool_use_error>No job {job}</tool_use_error>",
                      f"Error: No job {job}", error=True)


def session(ops: list[tuple[str, int]]) -> Script:
    s = Script()
    s._line("user", "keep an eye on the build")
    for what, i in ops:
        s.op(what, i)
    s._line("assistant", [{"type": "text", "text": "All set."}])
    return s


@settings(max_examples=60, deadline=None)
@given(ops=OPS, cut=st.floats(0, 1))
def test_open_threads_are_what_still_runs(ops: list[tuple[str, int]], cut: float) -> None:
    s = session(ops)
    raw = [json.dumps(o).encode() for o in s.lines]
    at = int(cut * len(raw))
    facts = fold(fold(Fold(), decode_lines(raw[:at])), decode_lines(raw[at:]))
    left = todo_list(SessionState(session_id=SID, fold=facts))
    assert sorted(t.text for t in left if t.status == "command") == sorted(s.running.values())
    assert sorted(t.text for t in left if t.status == "monitor") == sorted(s.monitors.values())
    waiting = s.waiting_wakeup()
    assert [t.text.split(" (at ")[0] for t in left if t.status == "wakeup"] == \
        ([waiting[0]] if waiting else [])
    assert sorted(t.text for t in left if t.status == "scheduled") == \
        sorted(f"{p} (Every 5 minutes)" for p in s.scheduled.values())


@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS.filter(lambda ops: len(ops) > 4))
def test_the_note_lists_them(tmp_path_factory: Any, ops: list[tuple[str, int]]) -> None:
    env = Env(tmp_path_factory.mktemp("left"))
    env.here = in_process("left_running note")  # (the first as a process)
    s = session(ops)
    folder = env.claude / "projects" / "-work-app"
    folder.mkdir(parents=True)
    for o in s.lines:
        o["cwd"] = "/work/app"
    (folder / f"{SID}.jsonl").write_text("".join(json.dumps(o) + "\n" for o in s.lines))
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    for command in s.running.values():
        assert f"- [ ] `{command}` *(left running in the background)*" in note
    for prompt in s.scheduled.values():
        assert f"- [ ] Scheduled: {prompt} (Every 5 minutes)" in note
    for description in s.monitors.values():
        assert f"- [ ] Monitor: {description} *(left running in the background)*" in note
    waiting = s.waiting_wakeup()
    if waiting:
        at = time.strftime("%H:%M", time.gmtime(waiting[1]))  # (Env's zone is UTC)
        assert f"- [ ] Wake-up: {waiting[0]} (at {at}) *(scheduled, not yet fired)*" in note
    else:
        assert "Wake-up: " not in note
    stopped = {f"sleep {100 + i}" for i in s.started} - set(s.running.values())
    for command in stopped:
        assert f"`{command}` *(left running" not in note
    if not s.running and not s.scheduled and not s.monitors:
        assert "left running in the background" not in note and "Scheduled: " not in note
