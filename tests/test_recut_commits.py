"""A branch re-cut by `git reset` lists the commits that survive (review 31
F4: fffff083's four commits, cut eight times, were "29 more").

A model of one branch (two commits before the session, from `main`) runs
generated operations: commits (quiet or not), `git reset -q --soft` to
`HEAD~k`, to `main` or to a sha an output printed, a re-cut (`git reset -q
--soft main` then the same or other subjects committed again, in one
line), a commit undone in its own line (`git commit … && git reset --soft
HEAD~1`), and `git log --oneline -N`. The oracle is the model's branch at
the end: its commits made in the session, each once, by the sha git printed
for it after it was made (else none); a commit a reset took off is counted
in the next commit made with its subject (`recut`), or, with none, as
undone; none of them is listed.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_quiet_commits import SID, Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState
from vibe_vault.work import work_of

SUBJECTS = ["feat(sem): proto2", "feat(cli): ids", "fix(sem): scopes", "docs: readme"]


class Branch:
    def __init__(self) -> None:
        self.shas = (f"{n:07x}" for n in range(0xdef0000, 0xdef0000 + 99_999, 11))
        # [sha, subject, made in the session, printed since made, recut]
        self.base: list[list[Any]] = [[next(self.shas), f"base {k}", False, False, 0]
                                      for k in range(2)]  # `main`
        self.commits = list(self.base)
        self.pending: dict[str, int] = {}  # subject -> commits taken off, to count in the next
        self.made: list[list[Any]] = []

    def commit(self, subject: str, quiet: bool) -> str:
        c = [next(self.shas), subject, True, not quiet, self.pending.pop(subject, 0)]
        self.commits.append(c)
        self.made.append(c)
        return "" if quiet else f"[feature {c[0]}] {subject}\n 1 file changed, 1 insertion(+)\n"

    def drop(self, keep: int) -> None:
        """The branch moved back to its first `keep` commits."""
        for c in self.commits[keep:]:
            if c[2]:
                self.pending[c[1]] = self.pending.get(c[1], 0) + 1 + c[4]
        del self.commits[keep:]

    def to_main(self) -> None:
        self.drop(0)
        self.commits = list(self.base)

    def ours(self) -> int:
        return sum(1 for c in self.commits if c[2])


commit_op = st.tuples(st.just("commit"), st.sampled_from(SUBJECTS), st.booleans())
back_op = st.tuples(st.just("back"), st.integers(1, 3), st.booleans())
to_main_op = st.tuples(st.just("main"), st.just(0), st.booleans())
to_sha_op = st.tuples(st.just("sha"), st.integers(0, 9), st.booleans())
recut_op = st.tuples(st.just("recut"), st.lists(st.sampled_from(SUBJECTS), min_size=1,
                                                 max_size=4), st.booleans())
undo_op = st.tuples(st.just("undo"), st.sampled_from(SUBJECTS), st.booleans())
log_op = st.tuples(st.just("log"), st.integers(1, 8), st.booleans())


def play(ops: list[tuple[Any, Any, bool]]) -> tuple[Transcript, Branch]:
    t, b = Transcript(), Branch()
    t.prompt("cut the branch into clean commits")
    for kind, what, quiet in ops:
        q = " -q" if quiet else ""
        if kind == "commit":
            out = b.commit(what, quiet)
            t.bash(f'git add -A && git commit{q} -m "{what}"', out)
        elif kind == "back" and b.ours() >= what:
            b.drop(len(b.commits) - what)
            t.bash(f"git reset -q --soft HEAD~{what}", "")
        elif kind == "main":
            b.to_main()
            t.bash("git reset -q --soft main && git reset -q", "")
        elif kind == "sha":
            told = [k for k, c in enumerate(b.commits) if c[3]]
            if told:
                at = told[what % len(told)]
                sha = b.commits[at][0]
                b.drop(at + 1)
                t.bash(f"git reset -q --soft {sha}", "")
        elif kind == "recut":
            b.to_main()
            outs = [b.commit(s, quiet=True) for s in what]
            t.bash("git reset -q --soft main && git reset -q\n" + "\n".join(
                f"git add -A && git commit -q -m '{s}'" for s in what), "".join(outs))
        elif kind == "undo":
            out = b.commit(what, quiet)
            b.drop(len(b.commits) - 1)
            t.bash(f'git add -A && git commit{q} -m "{what}" && git reset -q --soft HEAD~1', out)
        elif kind == "log":
            shown = b.commits[::-1][:what]
            for c in shown:
                c[3] = True
            t.bash(f"git log --oneline -{what}", "".join(f"{c[0]} {c[1]}\n" for c in shown))
    return t, b


@settings(max_examples=examples(80, 800), deadline=None)
@given(ops=st.lists(commit_op | back_op | to_main_op | to_sha_op | recut_op | undo_op | log_op,
                    min_size=1, max_size=12))
def test_the_commits_listed_are_those_left_on_the_branch(ops: list[tuple[Any, Any, bool]]) -> None:
    t, b = play(ops)
    state = SessionState(session_id=SID, project="app", status="ended",
                         fold=fold(Fold(), (decode_line(json.dumps(x).encode())
                                            for x in t.lines)))
    work = work_of(state)
    listed = [(str(c.sha), str(c.subject), getattr(c, "recut", 0)) for _, c in work.commits]
    want = [(c[0] if c[3] else "", c[1], c[4]) for c in b.commits if c[2]]
    assert listed == want, (listed, want)
    undone = getattr(work, "undone", 0)  # (getattr: the same test on older code)
    assert undone == len(b.pending), (undone, b.pending)
    note = render(state)
    if want:
        # The headline counts the commits left, not every cut.
        more = len(want) - 1
        assert (f" and {more} more" in note) == bool(more), note
    if b.pending:
        assert f"{undone} commit{'s' if undone > 1 else ''} undone by `git reset`" \
            in note, note


def test_fffff083s_re_cuts_are_one_commit_each() -> None:
    """Review 31 F4, as fffff083 did it: four commits, then the branch cut
    again from `main` three times, quietly; only the last cut's log named them."""
    four = SUBJECTS
    ops: list[tuple[Any, Any, bool]] = [("commit", s, False) for s in four]
    ops += [("recut", four, True)] * 3 + [("log", 5, False)]
    t, b = play(ops)
    state = SessionState(session_id=SID, project="app", status="ended",
                         fold=fold(Fold(), (decode_line(json.dumps(x).encode())
                                            for x in t.lines)))
    work = work_of(state)
    assert [(c.sha, c.subject, getattr(c, "recut", 0)) for _, c in work.commits] == [
        (c[0], c[1], 3) for c in b.commits[2:]]
    assert "and 3 more" in render(state)
