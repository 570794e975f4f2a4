"""Work a session left running, on each client version: a command started in
the background (Bash `run_in_background`), one stopped (TaskStop), one whose
TaskOutput says it ended, a Monitor, a prompt scheduled (CronCreate), one
scheduled then cancelled (CronDelete), a wakeup (ScheduleWakeup). What the
client offers is read from its own API requests, never assumed.

The oracle is the transcript's JSON, read here on its own, and what the
client sent on each Stop (`background_tasks`, `session_crons`), kept by a
hook of the test's own: a background command or monitor is open at the end
unless a `<task-notification>` names its call or a stop (or TaskOutput) of its
task id says it ended; a scheduled job is open unless a CronDelete of its id
succeeded; a wakeup is open until the transcript's time passes it. What the
last Stop listed that the transcript does not name is open too. The note's
open threads list exactly the open ones, each once.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from world import Run

from conftest import open_threads

SESSIONS = {
    # 2.1.332 in print mode waits for its background commands before it exits
    # (the transcript then tells the command finished); 2.1.197 exits with it
    # still running.
    "left": "please background: sleep 8",
    "stopped": "please stop it after you background: sleep 40",
    "scheduled": "please schedule: check the build",
    "cancelled": "please cancel it after you schedule: check the tests",
    # A monitor (2.1.332; 2.1.197 does not offer it) that ends by itself; a
    # wakeup that has not fired when the client exits; a command whose
    # TaskOutput (2.1.197; deprecated, then gone by 2.1.332) tells it ended.
    "monitor": "please monitor: sleep 2; echo ready",
    "wakeup": "please wakeup: check the deploy",
    "checked": "please check it after you background: sleep 2",
}


@pytest.fixture(scope="module")
def left(claude: Path, client_version: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    world = Run(tmp_path_factory.mktemp("left"), claude, client_version)
    assert world.vv("hook", "install").returncode == 0
    # Beside vv's own, a hook that keeps what the client sends on Stop: the
    # client's own word on what still runs.
    settings = world.home / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    keep = world.root / "stops.jsonl"
    config["hooks"]["Stop"].append({"hooks": [{"type": "command", "command":
                                               f"sh -c 'cat >> {keep}; echo >> {keep}'"}]})
    settings.write_text(json.dumps(config))
    lines = [world.fake_api()]
    for name, prompt in SESSIONS.items():
        lines.append(f"timeout 60 {claude} -p {json.dumps(prompt)} --output-format json "
                     f"--permission-mode bypassPermissions > {world.root / name}.json "
                     f"2> {world.root / name}.err")
    lines.append("kill $api 2>/dev/null; true")
    done = world.drive(lines)
    assert done.returncode == 0, done.stderr
    return world


def session_ids(run: Run) -> dict[str, str]:
    return {name: json.loads((run.root / f"{name}.json").read_text())["session_id"]
            for name in SESSIONS}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()]


def _blocks(o: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    m = o.get("message")
    content = m.get("content") if isinstance(m, dict) else None
    return [b for b in content or [] if isinstance(b, dict) and b.get("type") == kind] \
        if isinstance(content, list) else []


def _text(block: dict[str, Any]) -> str:
    c = block.get("content")
    return c if isinstance(c, str) else " ".join(
        str(b.get("text", "")) for b in c or [] if isinstance(b, dict))


def stops(run: Run) -> dict[str, list[dict[str, Any]]]:
    """What the client sent on each Stop, by session, in order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for line in (run.root / "stops.jsonl").read_text().splitlines():
        if line.strip():
            event = json.loads(line)
            out.setdefault(event["session_id"], []).append(event)
    return out


class Open:
    """What the transcript's JSON never saw end: commands, monitors (by
    description), scheduled prompts, the wakeup still to fire (its prompt);
    and every id and wakeup prompt it names."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.monitors: list[str] = []
        self.scheduled: list[str] = []
        self.wakeup: list[str] = []
        self.ids: set[str] = set()
        self.wakeups: set[str] = set()


def still_open(transcript: Path) -> Open:
    """The oracle, from the transcript's JSON alone."""
    calls: dict[str, dict[str, Any]] = {}
    commands: dict[str, tuple[str, str]] = {}  # call id -> (task id, command)
    monitors: dict[str, tuple[str, str]] = {}  # call id -> (task id, description)
    jobs: dict[str, str] = {}  # cron job id -> prompt
    wakeup: tuple[str, int] | None = None  # the last wakeup set: prompt, epoch ms
    last_ms = 0
    stopped_calls: set[str] = set()
    stopped_tasks: set[str] = set()
    deleted: set[str] = set()
    out = Open()
    for o in _lines(transcript):
        if o.get("type") in ("user", "assistant") and isinstance(o.get("timestamp"), str):
            when = datetime.fromisoformat(o["timestamp"].replace("Z", "+00:00"))
            last_ms = max(last_ms, int(when.timestamp() * 1000))
        for b in _blocks(o, "tool_use"):
            calls[b["id"]] = b
        m = o.get("message")
        if o.get("type") == "user" and isinstance(m, dict) and isinstance(m.get("content"), str):
            stopped_calls.update(re.findall(r"<tool-use-id>([^<]+)</tool-use-id>", m["content"]))
        for b in _blocks(o, "tool_result"):
            call = calls.get(b.get("tool_use_id", ""), {})
            inp = call.get("input") or {}
            ok = not b.get("is_error")
            if call.get("name") == "Bash" and inp.get("run_in_background") is True and ok:
                found = re.search(r"with ID: (\S+?)\.", _text(b))
                assert found, _text(b)
                commands[call["id"]] = (found.group(1), inp["command"])
            elif call.get("name") in ("TaskStop", "KillShell", "KillBash") and ok:
                stopped_tasks.add(inp.get("task_id") or inp.get("shell_id"))
            elif call.get("name") == "TaskOutput" and ok:
                task = o["toolUseResult"].get("task") or {}
                if task.get("status") not in ("running", "pending"):
                    stopped_tasks.add(inp["task_id"])
            elif call.get("name") == "Monitor" and ok:
                monitors[call["id"]] = (o["toolUseResult"]["taskId"], inp["description"])
            elif call.get("name") == "ScheduleWakeup" and ok:
                wakeup = (inp["prompt"], o["toolUseResult"]["scheduledFor"])
            elif call.get("name") == "CronCreate" and ok:
                jobs[o["toolUseResult"]["id"]] = inp["prompt"]
            elif call.get("name") == "CronDelete" and ok:
                deleted.add(inp["id"])
    out.commands = [cmd for cid, (task, cmd) in commands.items()
                    if cid not in stopped_calls and task not in stopped_tasks]
    out.monitors = [d for cid, (task, d) in monitors.items()
                    if cid not in stopped_calls and task not in stopped_tasks]
    out.scheduled = [p for j, p in jobs.items() if j not in deleted]
    out.wakeup = [wakeup[0]] if wakeup and wakeup[1] > last_ms else []
    out.ids = {t for t, _ in commands.values()} | {t for t, _ in monitors.values()} | set(jobs)
    out.wakeups = {wakeup[0]} if wakeup else set()
    return out


def test_what_was_left_running_is_open_and_nothing_else(left: Run) -> None:
    """The open threads are what the transcript never saw end, and what the
    client's last Stop listed that the transcript does not name: each once."""
    sids = session_ids(left)
    notes = left.notes()
    transcripts = {t.stem: t for t in left.transcripts()}
    offered = left.offered()
    said = stops(left)
    seen = {"command": 0, "stopped": 0, "scheduled": 0, "cancelled": 0, "monitor": 0,
            "wakeup": 0, "wakeup set": 0, "checked": 0, "listed": 0}
    for name, sid in sids.items():
        want = still_open(transcripts[sid])
        threads = open_threads(notes[sid])
        # Both clients (2.1.145 and later) tell on every Stop what still runs.
        assert said[sid], name
        for event in said[sid]:
            assert isinstance(event.get("background_tasks"), list), event
            assert isinstance(event.get("session_crons"), list), event
        last = said[sid][-1]
        listed = [t for t in last["background_tasks"] if t["id"] not in want.ids] + [
            c for c in last["session_crons"] if c["id"] not in want.ids
            and not (c.get("recurring") is False and c.get("prompt") in want.wakeups)]
        got = [t for t in threads if "left running in the background" in t
               and not t.startswith("- [ ] Monitor: ")]
        assert got == [f"- [ ] `{cmd}` *(left running in the background)*"
                       for cmd in want.commands] + [
            f"- [ ] `{t['command']}` *(left running in the background)*" for t in listed
            if t.get("type") == "shell"], (name, threads, want.commands, listed)
        monitors = [t for t in threads if t.startswith("- [ ] Monitor: ")]
        assert monitors == [f"- [ ] Monitor: {d} *(left running in the background)*"
                            for d in want.monitors] + [
            f"- [ ] Monitor: {t['description']} *(left running in the background)*"
            for t in listed if t.get("type") == "monitor"], (name, threads)
        got_jobs = [t for t in threads if t.startswith("- [ ] Scheduled: ")]
        crons = [c for c in listed if "schedule" in c]
        assert len(got_jobs) == len(want.scheduled) + len(crons), (name, threads, listed)
        for line, prompt in zip(got_jobs, want.scheduled + [c["prompt"] for c in crons],
                                strict=True):
            assert line.startswith(f"- [ ] Scheduled: {prompt} ("), (line, prompt)
        wakeups = [t for t in threads if t.startswith("- [ ] Wake-up: ")]
        assert [w.split(" (at ")[0] for w in wakeups] == \
            [f"- [ ] Wake-up: {p}" for p in want.wakeup], (name, threads)
        assert len(threads) == len(got) + len(monitors) + len(got_jobs) + len(wakeups), threads
        seen["command"] += len(want.commands)
        text = transcripts[sid].read_text(encoding="utf-8")
        seen["stopped"] += name == "stopped" and '"name":"TaskStop"' in text
        seen["scheduled"] += len(want.scheduled)
        seen["cancelled"] += name == "cancelled" and '"name":"CronDelete"' in text
        seen["monitor"] += name == "monitor" and '"name":"Monitor"' in text
        seen["wakeup"] += len(want.wakeup)
        seen["wakeup set"] += bool(re.search(r'"scheduledFor":[1-9]', text))
        seen["checked"] += name == "checked" and '"name":"TaskOutput"' in text
        seen["listed"] += sum(len(e["background_tasks"]) + len(e["session_crons"])
                              for e in said[sid])
    print(left.version, "offered:", sorted(offered & {
        "TaskStop", "KillShell", "CronCreate", "CronDelete", "Monitor", "ScheduleWakeup",
        "TaskOutput"}), seen)
    # What the scenarios exercised, where the client offers the tools.
    if "CronCreate" in offered:
        assert seen["scheduled"] == 1 and seen["cancelled"] == 1, seen
    if "TaskStop" in offered:
        assert seen["stopped"] == 1, seen
    if "Monitor" in offered:
        assert seen["monitor"] == 1, seen
    # (2.1.197 offers ScheduleWakeup but schedules nothing outside /loop:
    # `scheduledFor: 0`, "Wakeup not scheduled")
    assert seen["wakeup"] == seen["wakeup set"], seen
    if left.at_least("2.1.332"):
        assert seen["wakeup"] == 1, seen
    if "TaskOutput" in offered:
        assert seen["checked"] == 1, seen
    assert seen["listed"] >= 1, seen  # some Stop listed something: the oracle was put to work
    assert "Bash" in offered
