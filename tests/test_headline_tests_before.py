"""Review 26 #15 (12a546d1): the user's own `!uv run pytest -m browser -v`
printed 8 FAILED and 9 PASSED before "Command timed out"; the note said only
"timed out", and the headline "tests passed at the last run". The failing
count is the reason for the session: the story tells it beside the outcome,
and the headline the before and after ("tests 8 failing → 20 passed").

Generated sessions: a verbose test run by the user (`!`) with generated
tests, each passing or failing, cut off by a timeout or ending on pytest's
count line; then Claude's runs, the last the same command passing. The
oracle is what was generated: the counts of FAILED and PASSED lines.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.state import USER_SHELL

name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
COMMAND = "uv run pytest -m browser -v"


def user_ran(t: Transcript, command: str, stdout: str, stderr: str) -> None:
    t.prompt(f"<bash-input>{command}</bash-input>")
    t.prompt(f"<bash-stdout>{stdout}</bash-stdout><bash-stderr>{stderr}</bash-stderr>")


@settings(max_examples=examples(60, 300), deadline=None)
@given(results=st.lists(st.tuples(name, st.booleans()), min_size=1, max_size=30),
       timed_out=st.booleans(), after=st.integers(1, 500), same=st.booleans())
def test_the_tests_failing_before_are_told(results: list[tuple[str, bool]], timed_out: bool,
                                           after: int, same: bool) -> None:
    failed = sum(1 for _, ok in results if not ok)
    passed = len(results) - failed
    lines = [f"test/test_x.py::test_{n}_{k}[chromium] {'PASSED' if ok else 'FAILED'} "
             f"[{100 * (k + 1) // len(results):3d}%]" for k, (n, ok) in enumerate(results)]
    stdout = "collecting ... collected 9 items\n\n" + "\n".join(lines) + "\n"
    stderr = ""
    if timed_out:
        stderr = "Command timed out after 2m 0.0s"
    else:
        counted = ", ".join(f"{k} {w}" for k, w in ((failed, "failed"), (passed, "passed")) if k)
        stdout += f"{'=' * 10} {counted} in 3.2s {'=' * 10}\n"
    t = Transcript()
    user_ran(t, COMMAND, stdout, stderr)
    t.prompt("a lot of the browser tests are failing, fix them")
    t.write_file("/work/app/src/one.py", "x = 1\n")
    command = COMMAND if same else "uv run pytest -m browser"
    t.bash(command, f"{'=' * 10} {after} passed in 39.1s {'=' * 10}\n")
    t.say("The browser tests pass now.")
    state = t.state()
    summary = figures(state, RenderOptions()).summary
    story = [turn for turn in state.fold.turns if turn.kind == USER_SHELL]
    assert story, state.fold.turns
    outcome = str(story[0].detail)
    if timed_out:
        told = " and ".join(f"{k} {w}" for k, w in ((failed, "failed"), (passed, "passed")) if k)
        assert outcome.startswith(f"timed out after {told}: Command timed out"), outcome
    if failed and same:
        assert f"tests {failed} failing → {after} passed at the last run" in summary, summary
    else:
        # (no failing run of the same command before: nothing to set against)
        assert "failing →" not in summary, summary
        assert "tests passed at the last run" in summary, summary
    assert not re.search(r"\btests? \d+ failing → \d+ passed\b(?! at the last run)", summary)
