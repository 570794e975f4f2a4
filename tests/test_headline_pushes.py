"""Review 26 #10: a headline says when the session's commits were never
pushed (063071b3: three commits on a branch, no push, no PR, read as done).

Generated sessions: commits made in the session's repository and in a
sibling one (`git -C ../lib commit`), pushes from either or none, in any
order. The oracle is what was generated: a commit is "not pushed" when no
push was made from its repository in the session.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import RenderOptions, figures

# Each step: ("commit" | "push", in the sibling repository or not).
step = st.tuples(st.sampled_from(["commit", "push"]), st.booleans())


@settings(max_examples=examples(60, 300), deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=8))
def test_commits_never_pushed_are_said_so(steps: list[tuple[str, bool]]) -> None:
    t = Transcript()
    t.prompt("make the change and commit it")
    made = {False: 0, True: 0}
    pushed = {False: False, True: False}
    for k, (what, sibling) in enumerate(steps):
        where = "git -C ../lib" if sibling else "git"
        if what == "commit":
            sha = f"{k + 1:07x}"
            t.bash(f'{where} commit -m "step {k}"', f"[main {sha}] step {k}\n 1 file changed\n")
            made[sibling] += 1
        else:
            t.bash(f"{where} push", "To github.com:o/r.git\n   0000000..1111111  main -> main\n")
            pushed[sibling] = True
    t.say("The change is in.")
    summary = figures(t.state(), RenderOptions()).summary
    commits = made[False] + made[True]
    left = sum(k for s, k in made.items() if not pushed[s])
    if not commits:
        assert not re.search(r"\bcommits?\b", summary), summary
        return
    told = re.search(r"\b(\d+) commits?( \((?:(\d+) )?not pushed\))?", summary)
    assert told is not None and int(told.group(1)) == commits, summary
    if not left:
        assert told.group(2) is None, summary
    elif left == commits:
        assert told.group(2) == " (not pushed)", summary
    else:
        assert told.group(3) is not None and int(told.group(3)) == left, summary
