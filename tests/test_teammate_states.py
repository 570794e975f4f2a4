"""A teammate's notice is said in a sentence that fits it, and the agent team's
own notices are not a teammate's (review 30 #13: 76810eb8 read "Teammate
*system* is teammate terminated at 22:14: “reviewer-fix has shut down.”" and
"Teammate *reviewer-fix* is shutdown approved at 22:14").

Generated: notices of the types Claude Code sends (from a teammate, or from
`system`), with or without words. The oracle is the drawn JSON: each line
names its sender unless it is `system`, holds the notice's words, and never
pastes a type into "is …" (only an idle teammate "is idle").
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

TYPES = ("idle_notification", "shutdown_request", "shutdown_approved", "shutdown_rejected",
         "teammate_terminated", "plan_approval_request", "permission_request")
name = st.builds(lambda a, b: f"{a}-{b}", st.sampled_from(["dev", "reviewer", "critic"]),
                 st.sampled_from(["alice", "bob", "fix", "1"]))


@settings(max_examples=examples(25, 120), deadline=None)
@given(notices=st.lists(st.tuples(st.sampled_from(TYPES), name, st.booleans(),
                                  st.booleans()), min_size=1, max_size=4))
def test_a_notice_is_said_as_what_it_is(tmp_path_factory: Any,
                                        notices: list[tuple[str, str, bool, bool]]) -> None:
    t = Transcript()
    t.prompt("build it with a team")
    t.say("Starting the team.")
    expected = []
    for kind, who, from_system, worded in notices:
        sender = "system" if from_system else who
        body: dict[str, Any] = {"type": kind, "from": sender}
        words = f"{who} has shut down." if kind == "teammate_terminated" else f"{who} is done"
        if worded:
            body["message"] = words
        t.prompt(f'<teammate-message teammate_id="{sender}">\n{json.dumps(body)}\n'
                 "</teammate-message>")
        t.say("Noted.")
        expected.append((kind, sender, words if worded else ""))
    note = t.note(tmp_path_factory, "teammate states")
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in story.splitlines() if "Teammate " in ln or "team notice" in ln]
    assert len(lines) == len(expected), (lines, expected)
    for line, (kind, sender, words) in zip(lines, expected, strict=True):
        assert "Teammate *system*" not in line, line
        if sender != "system":
            assert f"Teammate *{sender}*" in line, line
        assert not words or words in line, (line, words)
        typed = kind.removesuffix("_notification").replace("_", " ")
        assert f" is {typed}" not in line or kind == "idle_notification", line
