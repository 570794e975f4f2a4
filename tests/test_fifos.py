"""No file can hang a command (issue 28): a FIFO put at each path vibe-vault
opens (a FIFO's open waits for a writer or reader forever; a device or /proc
file may never end) and every command still finishes, within a timeout, with
at most a line on stderr and never a traceback; the hooks exit 0."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import Env
from test_hook_contract import SID, place

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

TIMEOUT = 40.0  # seconds: far above any command here on a busy machine; a hang never ends


def _paths(env: Env, target: Path) -> dict[str, Path]:
    notes = sorted(env.vault.glob("Projects/*/sessions/*.md"))
    note = notes[0]
    project = note.parent.parent
    return {
        "vv.log": env.state / "vv.log",
        "last-run": env.state / "last-run",
        "journal": env.state / "journal" / f"{SID}.jsonl",
        "state": env.state / "sessions" / f"{SID}.state",
        "lock": next((env.state / "locks").glob("session-*.lock")),
        "database": env.state / "vault.db",
        "staged record": env.state / "registry.d" / f"{SID}.msgpack",
        "tombstone": env.state / "forgotten" / SID,
        "config": env.root / "config.toml",
        "settings.json": env.claude / "settings.json",
        "plugins": env.claude / "plugins" / "installed_plugins.json",
        "note": note,
        "project note": project / f"{project.name}.md",
        "home note": env.vault / "index.md",
        "Sessions.base": env.vault / "Sessions.base",
        "transcript": target,
        "subagent": target.parent / SID / "subagents" / "agent-a1.jsonl",
        "subagent meta": target.parent / SID / "subagents" / "agent-a1.meta.json",
        "archive copy": next((env.state / "archive" / SID).glob("*.jsonl.gz"), None)
        or env.state / "archive" / SID / f"{SID}.jsonl.gz",
    }


def _commands(short: str, target: Path) -> list[tuple[str, ...] | dict[str, object]]:
    event = {"session_id": SID, "transcript_path": str(target), "cwd": "/tmp"}
    return [
        {**event, "hook_event_name": "Stop"},
        {**event, "hook_event_name": "PreToolUse", "tool_use_id": "t1", "tool_name": "Bash"},
        {**event, "hook_event_name": "PostToolUse", "tool_use_id": "t1", "tool_name": "Bash"},
        {**event, "hook_event_name": "SessionEnd", "reason": "other"},
        {**event, "hook_event_name": "SessionStart", "source": "startup"},
        ("backfill", "--archive"), ("search", "the"), ("show", short), ("files", "README.md"),
        ("stats",), ("doctor",), ("index",), ("reprocess", short), ("archive",),
        ("hook", "install"), ("config", "show"),
    ]


@pytest.mark.parametrize("which", ["vv.log", "last-run", "journal", "state", "lock", "database",
                                   "staged record", "tombstone", "config", "settings.json",
                                   "plugins", "note", "project note", "home note",
                                   "Sessions.base", "transcript", "subagent", "subagent meta",
                                   "archive copy"])
def test_a_fifo_at_a_path_vv_opens_hangs_no_command(env: Env, which: str) -> None:
    target = place(env)
    assert env.vv("backfill", "--archive").returncode == 0
    paths = _paths(env, target)
    short = SID[:8]
    fifo = paths[which]
    fifo.parent.mkdir(parents=True, exist_ok=True)
    if fifo.exists() or fifo.is_symlink():
        fifo.unlink()
    os.mkfifo(fifo)
    for command in _commands(short, target):
        try:
            if isinstance(command, dict):
                r = env.hook(command, timeout=TIMEOUT)
            else:
                r = env.vv(*command, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{command} hung with a FIFO at the {which}")
        err = r.stderr.decode(errors="replace")
        assert "Traceback" not in err, (command, err)
        if isinstance(command, dict):
            assert r.returncode == 0, (command, err)
            assert r.stdout in (b"",) or command["hook_event_name"] == "SessionStart", r.stdout
        else:
            assert r.returncode in (0, 1, 2), (command, err)
        # (the FIFO itself may be replaced or set aside by then: what matters is the end)
    json.dumps(which)
