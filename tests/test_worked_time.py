"""Review 15, finding 8: "active" time said as what it is, Claude's working
time, alike in the note, the project note, the home note and `vv stats`, with
the span of the user's prompts beside it in the note.

Each generated session has prompts at chosen minutes, each answered by Claude
over a chosen time that Claude Code's `turn_duration` line records. The
oracle is that JSON: the sum of the turns' `durationMs` in whole minutes, the
first and last prompt's times.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process, stamp

SID = "5e55a0b1-0000-4000-8000-00000000000a"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def session(turns: list[tuple[int, int]], start: datetime = START) -> list[dict[str, Any]]:
    """Per turn: minutes after the previous turn ended that its prompt came,
    and how long Claude worked on it (ms): an answer at the end of that time
    and the turn_duration line that records it."""
    lines: list[dict[str, Any]] = []
    at = start
    base = {"sessionId": SID, "cwd": "/work/app", "version": "2.1.50"}
    for n, (pause_min, work_ms) in enumerate(turns):
        at += timedelta(minutes=pause_min)
        lines.append({**base, "type": "user", "uuid": f"u{n}", "timestamp": stamp(at),
                      "message": {"role": "user", "content": f"step {n} please"}})
        at += timedelta(milliseconds=work_ms)
        lines.append({**base, "type": "assistant", "uuid": f"a{n}", "timestamp": stamp(at),
                      "message": {"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "text", "text": f"Step {n} done."}],
                                  "usage": {"input_tokens": 1, "output_tokens": 1}}})
        lines.append({**base, "type": "system", "subtype": "turn_duration", "uuid": f"d{n}",
                      "timestamp": stamp(at), "durationMs": work_ms, "isMeta": False})
    return lines


def worded(minutes: int) -> str:
    if minutes == 0:
        return "<1 min"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"


def span_said(first: str, last: str) -> str:
    """The prompts' span as a reader needs it, from two UTC stamps (the
    tests' zone): on another day, which one."""
    a, b = first[:10], last[:10]
    if a == b:
        return f"{first[11:16]}–{last[11:16]}"
    days = (datetime.fromisoformat(b) - datetime.fromisoformat(a)).days
    return (f"{first[11:16]}–{last[11:16]} the next day" if days == 1
            else f"{first[11:16]}–{b} {last[11:16]}")


@settings(max_examples=examples(6, 12), deadline=None)
@given(turns=st.lists(st.tuples(st.integers(0, 40), st.integers(1_000, 1_500_000)),
                      min_size=1, max_size=5),
       late=st.sampled_from([0, 14 * 60 + 50, 14 * 60 + 59]), away=st.sampled_from([0, 700, 2900]))
def test_claude_worked_is_said_alike_everywhere(tmp_path_factory: Any,
                                                turns: list[tuple[int, int]], late: int,
                                                away: int) -> None:
    """(A session may start late in the evening, and the user may come back
    hours or days later: review 16, finding 20.)"""
    env = Env(tmp_path_factory.mktemp("worked"))
    env.here = in_process("worked time")
    if len(turns) > 1:
        turns[-1] = (turns[-1][0] + away, turns[-1][1])
    lines = session(turns, START + timedelta(minutes=late))
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    worked_ms = sum(x["durationMs"] for x in lines if x.get("subtype") == "turn_duration")
    minutes = (worked_ms + 30_000) // 60_000  # to the nearest minute, half up
    prompts = [x["timestamp"] for x in lines if x["type"] == "user"]
    first = datetime.fromisoformat(lines[0]["timestamp"].replace("Z", "+00:00"))
    last = datetime.fromisoformat(lines[-1]["timestamp"].replace("Z", "+00:00"))
    assert frontmatter(note)["active_minutes"] == minutes
    header = next(x for x in note.splitlines() if x.startswith("**Project**"))
    if int((last - first).total_seconds() + 30) // 60:  # (a duration rounded to the minute)
        span = f"; prompts {span_said(prompts[0], prompts[-1])}" \
            if prompts[0][:16] != prompts[-1][:16] else ""
        assert f"(Claude worked {worded(minutes)}{span})" in header, header
    assert " active" not in header
    home = (env.vault / "index.md").read_text()
    row = next(x for x in home.splitlines() if x.startswith("| [[Projects/"))
    assert "| Claude worked |" in home and f"| {worded(minutes)} |" in row, row
    project = next(p for p in env.all_notes() if p.count("/") == 2 and "sessions" not in p)
    assert f"**Claude worked {worded(minutes)}**" in env.all_notes()[project]
    stats = env.vv("stats").stdout.decode()
    hours = minutes / 60
    said = "<1 min" if minutes == 0 else f"{minutes} min" if minutes < 60 else f"{hours:.1f} h"
    assert f"Claude worked {said}" in stats, stats
    assert re.search(r"active hours", stats) is None
