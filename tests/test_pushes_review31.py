"""Review 31: what a note says of pushes and branches is what git said.

F8 (e67c9434): "Pushed 5 times" counted two pushes that printed
"Everything up-to-date", which sent nothing. Generated sessions: pushes whose
output is drawn from what git prints (a fast-forward `a..b`, a forced
`+ a...b`, a new branch `* [new branch]`, refs all `= [up to date]`,
"Everything up-to-date" alone or after a pre-push hook's line, a rejected
push); the oracle counts the drawn outputs that moved a ref.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

REMOTE = "To github.com:o/r.git\n"
# What a push printed, by kind; whether it moved a ref; whether it succeeded.
PUSH_OUTPUTS: dict[str, tuple[str, bool, bool]] = {
    "fast-forward": (REMOTE + "   1a2b3c4..5d6e7f8  {b} -> {b}\n", True, True),
    "forced": (REMOTE + " + 1a2b3c4...5d6e7f8 {b} -> {b} (forced update)\n", True, True),
    "new": (REMOTE + " * [new branch]      {b} -> {b}\n", True, True),
    "same": (REMOTE + " = [up to date]      {b} -> {b}\n", False, True),
    "up-to-date": ("Everything up-to-date\n", False, True),
    "hook then up-to-date": ("[entire] Pushing session logs to origin...\n"
                             "Everything up-to-date\n", False, True),
    "same and moved": (REMOTE + " = [up to date]      main -> main\n"
                       "   1a2b3c4..5d6e7f8  {b} -> {b}\n", True, True),
    "rejected": (REMOTE + " ! [rejected]        {b} -> {b} (fetch first)\n"
                 "error: failed to push some refs to 'github.com:o/r.git'\n", False, False),
}
push = st.tuples(st.sampled_from(sorted(PUSH_OUTPUTS)), st.sampled_from(["main", "feat/x"]),
                 st.sampled_from(["git push", "git push origin {b}", "git push -u origin {b}"]))


def _pushed_line(note: str) -> str:
    return next((ln for ln in note.splitlines() if ln.startswith("- Pushed ")), "")


@settings(max_examples=examples(40, 200), deadline=None)
@example(pushes=[("up-to-date", "main", "git push"), ("up-to-date", "main", "git push origin {b}"),
                 ("fast-forward", "main", "git push")])
@given(pushes=st.lists(push, min_size=1, max_size=6))
def test_a_push_that_sent_nothing_is_not_counted_as_pushed(
        tmp_path_factory: Any, pushes: list[tuple[str, str, str]]) -> None:
    t = Transcript()
    t.prompt("push it")
    for kind, branch, form in pushes:
        out, _, ok = PUSH_OUTPUTS[kind]
        out, command = out.format(b=branch), form.format(b=branch)
        if ok:
            t.bash(command, out)
        else:
            t.call("Bash", {"command": command}, "Error: " + out, "Exit code 1\n" + out,
                   error=True)
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_push_that_sent_nothing_is_not_counted_as_pushed")
    moved = sum(1 for kind, _, _ in pushes if PUSH_OUTPUTS[kind][1])
    idle = sum(1 for kind, _, _ in pushes if PUSH_OUTPUTS[kind][2] and not PUSH_OUTPUTS[kind][1])
    said = _pushed_line(note)
    if not moved and not idle:
        assert not said, said
        return
    if not moved:
        m = re.fullmatch(r"- Pushed nothing new \((\d+) push(?:es)?:"
                         r" everything was up to date\)", said)
        assert m is not None and _number(m.group(1)) == idle, (said, pushes)
        return
    m = re.fullmatch(r"- Pushed (\d+) times?(?:, and (\S+) more with nothing new to send)?", said)
    assert m is not None, (said, pushes)
    assert _number(m.group(1)) == moved, (said, pushes)
    assert _number(m.group(2) or "0") == idle, (said, pushes)


_WORDS = {"once": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9}


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word]
