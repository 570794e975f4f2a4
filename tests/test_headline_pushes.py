"""Review 26 #10: a headline says when the session's commits were never
pushed (063071b3: three commits on a branch, no push, no PR, read as done).
Review 28 (#29): a commit made after the last push read as pushed, the state
keeping only how many pushes each repository had.

Generated sessions: commits on two branches, in the session's repository and
in a sibling one (`git -C ../lib commit`); pushes from either, of the branches
their output reports (some rejected), or reporting none (`Everything
up-to-date`); a commit and a push in one command, in either order; in any
order. The oracle is the generated sequence: a commit is "not pushed" when no
push from its repository came after it whose output reports its branch sent
(a push reporting no branch sends any).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

BRANCHES = ["main", "feat"]
REMOTE = "To github.com:o/r.git\n"

# Each step: what (commit, push, a commit then a push in one command, a push
# then a commit), in the sibling repository or not, the commit's branch, and
# the push's reported refs: (branch, accepted) pairs; none: "Everything up-to-date".
refs = st.lists(st.tuples(st.sampled_from(BRANCHES), st.booleans()), max_size=2,
                unique_by=lambda r: r[0])
step = st.tuples(st.sampled_from(["commit", "push", "commit && push", "push && commit"]),
                 st.booleans(), st.sampled_from(BRANCHES), refs)


def _push_output(reported: list[tuple[str, bool]]) -> str:
    if not reported:
        return "Everything up-to-date\n"
    lines = [f"   0000000..1111111  {b} -> {b}" if ok else
             f" ! [rejected]        {b} -> {b} (fetch first)" for b, ok in reported]
    failed = [b for b, ok in reported if not ok]
    return REMOTE + "\n".join(lines) + "\n" + (
        "error: failed to push some refs to 'github.com:o/r.git'\n" if failed else "")


@settings(max_examples=examples(60, 300), deadline=None)
@example(steps=[("commit", False, "main", []), ("push", False, "main", [("main", True)]),
                ("commit", False, "main", [])])
@given(steps=st.lists(step, min_size=1, max_size=8))
def test_commits_no_later_push_sent_are_said_not_pushed(
        tmp_path_factory: Any, steps: list[tuple[str, bool, str, list[tuple[str, bool]]]]) -> None:
    t = Transcript()
    t.prompt("make the change and commit it")
    # The oracle's sequence: ("commit", repo, branch) and ("push", repo, branches
    # sent, or None for any), in the order they happened.
    events: list[tuple[str, bool, Any]] = []
    made_at: list[int] = []  # the steps whose commit was made
    for k, (what, sibling, branch, reported) in enumerate(steps):
        where = "git -C ../lib" if sibling else "git"
        sha = f"{k + 1:07x}"
        made = f"[{branch} {sha}] step {k}\n 1 file changed, 1 insertion(+)\n"
        pushed = _push_output(reported)
        ok = all(accepted for _, accepted in reported)
        sent = {b for b, accepted in reported if accepted} if reported else None
        if what == "commit":
            t.bash(f'{where} commit -m "step {k}"', made)
            events.append(("commit", sibling, branch))
            made_at.append(k)
            continue
        if what == "push":
            command, out = f"{where} push", pushed
        elif what == "commit && push":
            command, out = f'{where} commit -m "step {k}" && {where} push', made + pushed
        else:
            # (a rejected push ends the line: `&&` runs no commit after it)
            command, out = f'{where} push && {where} commit -m "step {k}"', pushed + (
                made if ok else "")
        if ok:
            t.bash(command, out)
        else:
            t.call("Bash", {"command": command}, "Error: " + out, "Exit code 1\n" + out,
                   error=True)
        if what == "commit && push":
            events.append(("commit", sibling, branch))
            made_at.append(k)
        if ok or sent:
            events.append(("push", sibling, sent))
        if what == "push && commit" and ok:
            events.append(("commit", sibling, branch))
            made_at.append(k)
    t.say("The change is in.")
    note = t.note(tmp_path_factory, "test_commits_no_later_push_sent_are_said_not_pushed")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    commits = [(at, e) for at, e in enumerate(events) if e[0] == "commit"]
    left = sum(1 for at, (_, repo, branch) in commits if not any(
        kind == "push" and there == repo and (sent is None or branch in sent)
        for kind, there, sent in events[at + 1:]))
    if not commits:
        assert not re.search(r"\bcommits?\b", head), head
        return
    # (the headline leads with a commit by its subject: "Committed “step 0” (+1 −0
    # in 1 file, not pushed)", "… and 2 more (1 not pushed)")
    told = re.match(r"Committed “step (\d+)” \(\+1 −0 in 1 file(, not pushed)?\)"
                    r"(?: and (\d+) more( \((?:(\d+) )?not pushed\))?)?", head)
    assert told is not None and 1 + int(told.group(3) or 0) == len(commits), (head, events)
    # (every commit git counted alike: the one named is the first made)
    assert int(told.group(1)) == made_at[0], (head, events)
    unpushed = told.group(2) or told.group(4)
    if not left:
        assert unpushed is None, (head, events)
    elif left == len(commits):
        assert unpushed in (", not pushed", " (not pushed)"), (head, events)
    else:
        assert told.group(5) is not None and int(told.group(5)) == left, (head, events)
