"""Review 32 #12, #13, #19: a subagent's report that mentions commits is not
an accusation. 7982b50c: two review subagents cited 221195b and dfb291f,
which the main session's own `git log` had printed (and a push range
`221195b..6071171` printed again later); 233712ad: an Explore report gave
`a3b2c4d5e6f7` as an example of a 12-hex checkpoint id. The notes said each
subagent "reports a commit … that no output of the session shows": false in
all 3 instances.

Generated sessions: the main agent's `git log --oneline` prints older
commits, a push prints a range, then a subagent's report mentions some of
those shas on lines that speak of commits (and an example id of 12 hex
digits); a later log may print them again. The oracle is what the test
printed: every sha the report names was shown by the session before the
subagent started (or is part of a longer id), so the note neither lists it
as a commit made by a subagent nor tells it as the report's unseen claim.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript, phrase

hexes = st.text("0123456789abcdef", min_size=12, max_size=12).filter(
    lambda h: any(c.isalpha() for c in h[:7]) and any(c.isdigit() for c in h[:7]))
MENTIONS = [
    "- commit `{sha}` ({subject}) introduced the flag",
    "Commit {sha} — {subject}: the only change to this file",
    "The last pushed commit was {sha}.",
    "**Commit:** {sha} by the author, \"{subject}\"",
]


@settings(max_examples=examples(30, 150), deadline=None)
@given(older=st.lists(st.tuples(hexes, phrase), min_size=1, max_size=4,
                      unique_by=lambda x: x[0][:7]),
       push=st.tuples(hexes, hexes), push_after=st.booleans(), log_after=st.booleans(),
       example=hexes, forms=st.lists(st.integers(0, len(MENTIONS) - 1), min_size=5,
                                     max_size=5),
       kind=st.sampled_from(["general-purpose", "Explore"]))
def test_shas_a_report_mentions_that_the_session_printed_are_not_told_as_unseen(
        tmp_path_factory: Any, older: list[tuple[str, str]], push: tuple[str, str],
        push_after: bool, log_after: bool, example: str, forms: list[int],
        kind: str) -> None:
    t = Transcript()
    t.prompt("review the branch's history with an agent")
    log = "".join(f"{sha[:7]} {subject}\n" for sha, subject in older)
    t.bash("git log main..HEAD --oneline", log)
    old, new = push[0][:7], push[1][:7]
    pushed = f"To github.com:o/r.git\n   {old}..{new}  feat -> feat\n"
    if not push_after:
        t.bash("git push", pushed)
    named = [sha[:7] for sha, _ in older] + ([old] if not push_after else [])
    lines = [MENTIONS[forms[k % 5]].format(sha=sha, subject=subject)
             for k, (sha, subject) in enumerate(older)]
    if not push_after:
        lines.append(MENTIONS[2].format(sha=old, subject=""))
    lines.append(f"Checkpoint ids in the commit trailer are 12 hex digits "
                 f"(e.g., `{example}`): `Entire-Checkpoint: {example}`")
    report = "Review done.\n\n" + "\n".join(lines) + "\n\nNo blockers."
    t.call("Task", {"description": "History review", "prompt": "review the history",
                    "subagent_type": kind},
           {"status": "completed", "totalToolUseCount": 9,
            "content": [{"type": "text", "text": report}]}, report)
    if push_after:
        t.bash("git push", pushed)
    if log_after:
        t.bash("git log --oneline -5", log)
    t.say("The review found nothing to fix.")
    note = t.note(tmp_path_factory,
                  "test_shas_a_report_mentions_that_the_session_printed_are_not_told_as_unseen")
    row = next(x for x in note.split("## Subagents", 1)[1].splitlines() if "History review" in x)
    for sha in [*named, example[:7]]:
        assert sha not in row, row  # told as neither its claim nor unseen
    assert "no output" not in row, row
    section = note.split("## Commits", 1)[1].split("\n## ", 1)[0] if "## Commits" in note else ""
    assert "made by a subagent" not in section, section  # all were there before it
