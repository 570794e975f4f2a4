"""Work a session left running, on each client version: a command started in
the background (Bash `run_in_background`), one stopped (TaskStop), a prompt
scheduled (CronCreate) and one scheduled then cancelled (CronDelete). What the
client offers is read from its own API requests, never assumed.

The oracle is the transcript's JSON, read here on its own: a background
command is open at the end unless a `<task-notification>` names its call or a
stop of its task id succeeded; a scheduled job is open unless a CronDelete of
its id succeeded. The note's open threads list exactly the open ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from world import Run

SESSIONS = {
    # 2.1.332 in print mode waits for its background commands before it exits
    # (the transcript then tells the command finished); 2.1.197 exits with it
    # still running.
    "left": "please background: sleep 8",
    "stopped": "please stop it after you background: sleep 40",
    "scheduled": "please schedule: check the build",
    "cancelled": "please cancel it after you schedule: check the tests",
}


@pytest.fixture(scope="module")
def left(claude: Path, client_version: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    world = Run(tmp_path_factory.mktemp("left"), claude, client_version)
    assert world.vv("hook", "install").returncode == 0
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


def still_open(transcript: Path) -> tuple[list[str], list[str]]:
    """The oracle: (commands, scheduled prompts) the transcript never saw stop."""
    calls: dict[str, dict[str, Any]] = {}
    commands: dict[str, tuple[str, str]] = {}  # call id -> (task id, command)
    jobs: dict[str, str] = {}  # cron job id -> prompt
    stopped_calls: set[str] = set()
    stopped_tasks: set[str] = set()
    deleted: set[str] = set()
    for o in _lines(transcript):
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
            elif call.get("name") == "CronCreate" and ok:
                jobs[o["toolUseResult"]["id"]] = inp["prompt"]
            elif call.get("name") == "CronDelete" and ok:
                deleted.add(inp["id"])
    running = [cmd for cid, (task, cmd) in commands.items()
               if cid not in stopped_calls and task not in stopped_tasks]
    return running, [p for j, p in jobs.items() if j not in deleted]


def open_threads(note: str) -> list[str]:
    lines = note.splitlines()
    if "## Open threads" not in lines:
        return []
    out = []
    for ln in lines[lines.index("## Open threads") + 1:]:
        if not ln.startswith("- [ ] "):
            break
        out.append(ln)
    return out


def test_what_was_left_running_is_open_and_nothing_else(left: Run) -> None:
    sids = session_ids(left)
    notes = left.notes()
    transcripts = {t.stem: t for t in left.transcripts()}
    offered = left.offered()
    seen = {"command": 0, "stopped": 0, "scheduled": 0, "cancelled": 0}
    for name, sid in sids.items():
        running, scheduled = still_open(transcripts[sid])
        threads = open_threads(notes[sid])
        want = [f"- [ ] `{cmd}` *(left running in the background)*" for cmd in running]
        got = [t for t in threads if "left running in the background" in t]
        assert got == want, (name, threads, running)
        got_jobs = [t for t in threads if t.startswith("- [ ] Scheduled: ")]
        assert len(got_jobs) == len(scheduled), (name, threads, scheduled)
        for line, prompt in zip(got_jobs, scheduled, strict=True):
            assert line.startswith(f"- [ ] Scheduled: {prompt} ("), (line, prompt)
        seen["command"] += len(running)
        text = transcripts[sid].read_text(encoding="utf-8")
        seen["stopped"] += name == "stopped" and '"name":"TaskStop"' in text
        seen["scheduled"] += len(scheduled)
        seen["cancelled"] += name == "cancelled" and '"name":"CronDelete"' in text
    print(left.version, "offered:", sorted(offered & {"TaskStop", "KillShell", "CronCreate",
                                                      "CronDelete", "Monitor"}), seen)
    # What the scenarios exercised, where the client offers the tools.
    if "CronCreate" in offered:
        assert seen["scheduled"] == 1 and seen["cancelled"] == 1, seen
    if "TaskStop" in offered:
        assert seen["stopped"] == 1, seen
    assert "Bash" in offered
    # The client that exits with its command still running leaves it open.
    running_left, _ = still_open(transcripts[sids["left"]])
    if running_left:
        assert seen["command"] >= 1
