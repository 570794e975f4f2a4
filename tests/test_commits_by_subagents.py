"""Review 29 #9: commits a subagent made are the session's (544fe3a7: a
subagent split the work into five commits; the main agent's `git log
--oneline -8` printed them above its own two; the note said "and 1 more").

Generated sessions: the main agent commits, may start a subagent (which
commits through tools the transcript does not hold), then runs `git log` of
its branch, which prints the subagent's commits above the session's own and
older commits below. The oracle is the log the test printed: the commits
above the session's latest commit are the subagent's when a subagent started
after that commit; none else is added.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript, phrase


@settings(max_examples=examples(40, 200), deadline=None)
@given(own=st.integers(1, 3), theirs=st.lists(phrase, max_size=5, unique=True),
       older=st.integers(0, 3), agent=st.booleans(), oneline=st.sampled_from(
           ["git log --oneline -{n}", "git log --oneline --no-decorate -n {n}",
            "git log -{n} --oneline"]))
def test_commits_a_subagent_made_are_listed_as_its(
        tmp_path_factory: Any, own: int, theirs: list[str], older: int, agent: bool,
        oneline: str) -> None:
    t = Transcript()
    t.prompt("commit this, then have an agent split the rest into commits")
    mine = [(f"{k + 1:07x}", f"own change {k}") for k in range(own)]
    for sha, subject in mine:
        t.bash(f'git commit -m "{subject}"', f"[main {sha}] {subject}\n 1 file changed, "
               "1 insertion(+)\n")
    if agent:
        t.call("Task", {"description": "Split the rest", "prompt": "split it",
                        "subagent_type": "general-purpose"},
               {"status": "completed", "content": [{"type": "text", "text": "Done."}]},
               "Done.")
    subs = [(f"{0xa00000 + k:07x}", f"sub {s}") for k, s in enumerate(theirs)]
    old = [(f"{0xb00000 + k:07x}", f"old change {k}") for k in range(older)]
    log = list(reversed(subs)) + list(reversed(mine)) + old
    t.bash(oneline.format(n=len(log)), "".join(f"{sha} {subject}\n" for sha, subject in log))
    t.say("All in.")
    note = t.note(tmp_path_factory, "test_commits_a_subagent_made_are_listed_as_its")
    section = note.split("## Commits", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"(?m)^- `([0-9a-f]{7})`( \(made by a subagent\))?", section)
    want = [(sha, "") for sha, _ in mine] + (
        [(sha, " (made by a subagent)") for sha, _ in subs] if agent else [])
    assert sorted(listed) == sorted(want), (listed, want)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    more = len(want) - 1
    assert (f" and {more} more" in head) == (more > 0), head
    for sha, _ in old:
        assert sha not in section, section
