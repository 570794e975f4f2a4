"""Plan mode on each client version, in a terminal: Claude writes its plan to
the plan file the client names and asks to leave plan mode (ExitPlanMode,
offered only in an interactive session in plan mode: `claude -p` offers it
not); the user approves it (Enter) in one session and declines it (Esc) in
another. The note tells the plan and the user's answer.

The oracle is the transcript's JSON, read here on its own: the plan is what
was written to the plans folder, the answer is whether ExitPlanMode's result
is an error (declined) or not (approved).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from world import HERE, Run

PROMPT = "please propose: read the code; fix the bug"


@pytest.fixture(scope="module")
def planned(claude: Path, client_version: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    world = Run(tmp_path_factory.mktemp("plan"), claude, client_version)
    env = world.env()
    env["TERM"] = "xterm-256color"
    (world.home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark",
        "projects": {str(world.project): {"hasTrustDialogAccepted": True}},
        "customApiKeyResponses": {"approved": [env["ANTHROPIC_API_KEY"][-20:]], "rejected": []},
    }))
    assert world.vv("hook", "install", env=env).returncode == 0
    lines = [world.fake_api()]
    for key in ("<enter>", "<esc>"):
        lines.append(f"{sys.executable} {HERE / 'pty_session.py'} '{claude} --permission-mode plan' "
                     f"{world.project} '{PROMPT}' '{key}' /exit > /dev/null; true")
    lines.append("kill $api 2>/dev/null; true")
    done = world.drive(lines, env=env, timeout=400)
    assert done.returncode == 0, done.stderr
    return world


def plan_facts(transcript: Path) -> tuple[str, str] | None:
    """(the plan written to the plans folder, "approved" or "rejected")."""
    plan, answer = "", ""
    calls: dict[str, dict[str, Any]] = {}
    for ln in transcript.read_text(encoding="utf-8").splitlines():
        o = json.loads(ln)
        m = o.get("message")
        content = m.get("content") if isinstance(m, dict) else None
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                calls[b["id"]] = b
                inp = b.get("input") or {}
                if b["name"] == "Write" and "/.claude/plans/" in inp.get("file_path", ""):
                    plan = inp["content"]
            elif b.get("type") == "tool_result" and \
                    calls.get(b.get("tool_use_id", ""), {}).get("name") == "ExitPlanMode":
                answer = "rejected" if b.get("is_error") else "approved"
    return (plan, answer) if answer else None


def test_the_plan_and_the_answer_are_in_the_note(planned: Run) -> None:
    notes = planned.notes()
    answers = []
    for transcript in planned.transcripts():
        facts = plan_facts(transcript)
        if facts is None:
            continue
        plan, answer = facts
        assert plan, transcript
        note = notes[transcript.stem]
        lines = note.splitlines()
        told = f"- Plan {answer}"
        assert told in lines, (answer, note)
        quoted = lines[lines.index(told) + 2:]
        for plan_line in plan.splitlines()[2:]:  # the numbered steps
            assert f"  > {plan_line}" in quoted, (plan_line, note)
        answers.append(answer)
    print(planned.version, "plans:", answers)
    assert sorted(answers) == ["approved", "rejected"], answers
