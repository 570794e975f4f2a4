"""A command of 10 s or more shows how long it took (review 26 #13,
cde341db: "Run tests: `mise run test` — passed" lost the 3 minutes from its
call to its result while 2-second lint runs showed "ok, 2s"): its run time
when known, else when its result came after the call.

The oracle is the gap planted between the tool_use and its tool_result.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.render import render


def said(seconds: int) -> str:
    """A span as a person reads it: 12s, 2m 58s."""
    return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m {seconds % 60:02d}s"


def slow_bash(t: Transcript, command: str, gap: int) -> None:
    tid = f"toolu_{len(t.lines):04d}"
    t.lines.append({**t._base("assistant"), "message": {
        "id": f"msg_{len(t.lines)}", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                     "input": {"command": command, "description": "Run the tests"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}})
    t.clock = itertools.count(next(t.clock) + gap - 1)  # (the result `gap` s after the call)
    t.lines.append({**t._base("user"), "toolUseResult": {
        "stdout": "12 passed\n", "stderr": "", "interrupted": False},
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": "12 passed"}]}})


@settings(max_examples=examples(40, 200), deadline=None)
@given(gap=st.integers(1, 590), command=st.sampled_from(
    ("mise run test", "pytest -q", "cargo test", "npm test", "make lint")))
def test_a_slow_command_shows_its_time(gap: int, command: str) -> None:
    t = Transcript()
    t.prompt("run the tests")
    slow_bash(t, command, gap)
    t.say("They pass.")
    note = render(t.state())
    line = next(ln for ln in note.splitlines() if f"`{command}`" in ln and ln.startswith("- "))
    if gap >= 10:
        assert (f", {said(gap)}" in line or f"(its result came {said(gap)} after the call)"
                in line), (gap, line)
    else:
        assert "after the call" not in line, line
