"""Review 29 #4, #5, #10: what a session's commits became, as git printed it.

#4, #5: a commit pushed on another branch than its own read "not pushed"
(f70db4c5: `git push origin main` rejected by a protected branch, then
`git branch release/v0.16.1 && git push origin release/v0.16.1`; d29c2adb:
`git checkout -b docs/x && git push -u origin docs/x`). #10: a `git commit`
inside a grep pattern (`grep -rln "MakeCommits\\|git commit"`) was counted
as a commit "git printed no sha" (0708a5fa).

Generated sessions: commits, branches made from HEAD (`git branch x`,
`git checkout -b x`, with or without a push in the same line), checkouts,
pushes of any branch or of HEAD under a new name, some rejected; `git commit`
and `git push` quoted in grep and echo commands; amends. The oracle is git's
own model, kept by the test from the commands it generated: a branch holds
the commits of the branch it was made from, then those made on it; an
accepted push sends every commit its branch holds; a rejected one sends
nothing; an amend replaces the last commit.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

REMOTE = "To github.com:o/r.git\n"
FAILED = "error: failed to push some refs to 'github.com:o/r.git'\n"

step = st.one_of(
    st.tuples(st.just("commit"), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("amend"), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("branch"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("checkout"), st.integers(0, 7), st.booleans()),
    st.tuples(st.just("push"), st.integers(0, 7), st.booleans()),
    st.tuples(st.just("push HEAD"), st.integers(0, 7), st.booleans()),
    st.tuples(st.just("quoted"), st.integers(0, 3), st.booleans()),
)

# Commands that only name `git commit` / `git push` in their quotes.
QUOTED = ['grep -rln "MakeCommits\\|git commit\\|\\"commit\\"" --include=\'*_test.go\' .',
          "echo 'next: git commit -m wip && git push origin main'",
          'rg -n "git push --force|git commit --amend" docs/',
          "grep -c 'git -C ../lib commit' notes.md"]


def _headline(note: str) -> str:
    return note.split("\n> ", 1)[1].split("\n", 1)[0]


@settings(max_examples=examples(60, 300), deadline=None)
@example(steps=[("commit", 0, True), ("push", 0, False), ("branch", 0, False),
                ("push", 1, True)], stamp=True)  # f70db4c5
@example(steps=[("commit", 0, True), ("push", 0, False), ("branch", 2, True)],
         stamp=True)  # d29c2adb
@example(steps=[("commit", 0, True), ("amend", 0, False), ("amend", 0, True),
                ("quoted", 0, True), ("commit", 0, True)], stamp=False)  # 0708a5fa
@example(steps=[("commit", 0, True), ("branch", 1, True), ("commit", 0, True),
                ("checkout", 1, True), ("push HEAD", 0, True)], stamp=False)  # HEAD: main's
@given(steps=st.lists(step, min_size=1, max_size=10), stamp=st.booleans())
def test_a_commit_is_pushed_when_a_push_sent_a_branch_holding_it(
        tmp_path_factory: Any, steps: list[tuple[str, int, bool]], stamp: bool) -> None:
    t = Transcript()
    t.prompt("commit the change and push it")
    cur = "main"
    holds: dict[str, list[int]] = {"main": []}  # each branch's commits, by number
    made: list[int] = []  # the commits of the session, in order (an amend replaces)
    sent: set[int] = set()
    serial = 0

    def run(command: str, out: str, ok: bool = True) -> None:
        if ok:
            t.bash(command, out)
        else:
            t.call("Bash", {"command": command}, "Error: " + out, "Exit code 1\n" + out,
                   error=True)
        if stamp:  # (Claude Code stamps lines with the branch, when it reads it)
            t.lines[-1]["gitBranch"] = t.lines[-2]["gitBranch"] = cur

    on: dict[int, str] = {}  # the branch each commit was made on
    for k, (what, i, flag) in enumerate(steps):
        branches = sorted(holds)
        last = holds[cur][-1] if holds[cur] else 0
        # An amend the oracle tells plainly: of a commit made on this branch,
        # held by no other branch, not pushed (else: a commit).
        amends = what == "amend" and last and on[last] == cur and last not in sent and all(
            last not in cs for b, cs in holds.items() if b != cur)
        if what in ("commit", "amend") and not amends:
            serial += 1
            run(f'git commit -m "step {serial}"',
                f"[{cur} {serial:07x}] step {serial}\n 1 file changed, 1 insertion(+)\n")
            holds[cur].append(serial)
            made.append(serial)
            on[serial] = cur
        elif what == "amend":
            serial += 1
            run(f'git commit --amend -m "step {last}"',
                f"[{cur} {serial:07x}] step {last}\n Date: Mon Mar 1 10:00:00 2026 +0000\n"
                " 1 file changed, 1 insertion(+)\n")
            # (one commit: the amended one, under its new sha)
            made[made.index(last)] = holds[cur][-1] = serial
            on[serial] = cur
        elif what == "branch":
            name = f"b{k}"
            holds[name] = list(holds[cur])
            if i == 0:
                run(f"git branch {name}", "")
            elif i == 1:
                run(f"git checkout -b {name}", f"Switched to a new branch '{name}'\n")
                cur = name
            else:
                out = f"Switched to a new branch '{name}'\n"
                cur = name
                if flag:
                    out += REMOTE + f" * [new branch]      {name} -> {name}\n"
                    sent.update(holds[name])
                else:
                    out += REMOTE + f" ! [remote rejected] {name} -> {name} (protected)\n" + FAILED
                run(f"git checkout -b {name} && git push -u origin {name}", out, ok=flag)
        elif what == "checkout":
            name = branches[i % len(branches)]
            run(f"git checkout {name}", f"Already on '{name}'\n" if name == cur
                else f"Switched to branch '{name}'\n")
            cur = name
        elif what in ("push", "push HEAD"):
            name = branches[i % len(branches)] if what == "push" else cur
            tip = f"{holds[name][-1]:07x}" if holds[name] else "abcdef1"
            ref, dst = (name, name) if what == "push" else ("HEAD", f"r{k}")
            shown = f"   0123456..{tip}  {ref} -> {dst}\n" if k % 2 else \
                f" * [new branch]      {ref} -> {dst}\n"
            if flag:
                run(f"git push origin {ref}" + ("" if ref == dst else f":{dst}"), REMOTE + shown)
                sent.update(holds[name])
            else:
                run(f"git push origin {ref}" + ("" if ref == dst else f":{dst}"),
                    REMOTE + f" ! [remote rejected] {ref} -> {dst} (protected branch hook"
                    " declined)\n" + FAILED, ok=False)
        else:
            run(QUOTED[i], "notes.md:1\n" if flag else "")
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_commit_is_pushed_when_a_push_sent_a_branch_holding_it")
    head = _headline(note)
    if not made:
        assert not re.search(r"\bcommits?\b|Committed", head), head
        return
    assert "git printed no sha" not in note, steps
    # Every commit is listed by its sha beside its subject, and no other.
    listed = re.findall(r"(?m)^- (?:`[0-9a-f]{7}` → )?`([0-9a-f]{7})`", note.split(
        "## Commits", 1)[1].split("\n## ", 1)[0])
    assert sorted(int(x, 16) for x in listed) == sorted(made), (listed, made, steps)
    told = re.match(r"Committed “step (\d+)” \(\+1 −0 in 1 file(, not pushed)?\)"
                    r"(?: and (\d+) more( \((?:(\d+) )?not pushed\))?)?", head)
    assert told is not None and 1 + int(told.group(3) or 0) == len(made), (head, steps)
    left = sum(1 for c in made if c not in sent)
    unpushed = told.group(2) or told.group(4)
    if not left:
        assert unpushed is None, (head, steps)
    elif left == len(made):
        assert unpushed in (", not pushed", " (not pushed)"), (head, steps)
    else:
        assert told.group(5) is not None and int(told.group(5)) == left, (head, steps)
