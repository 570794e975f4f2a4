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


# -- F14: "(N not pushed)" is true -------------------------------------------------------
#
# 3535d4da read "(1 not pushed)" though at least six of its commits never left
# the machine: four made in a sibling repository reached by `cd ~/Projects/…`
# (`~` was not read, so they counted as the project's), two on a branch the
# session deleted unpushed; its pushes were quiet (`git push -q origin x`),
# read as sending every branch. Generated sessions: commits (quiet, stamped
# with the branch as Claude Code stamps its lines, or printing `[branch sha]`)
# in the project reached in any way (`cd ~/…`, its full path, `git -C`, none)
# and in a sibling (`cd ~/Projects/lib`, `cd ../lib`, `git -C ~/Projects/lib`);
# branches made (`git checkout -q -b`), switched to, deleted (`git branch
# -D`); quiet pushes of a branch named, of HEAD, of the branch checked out.
# The oracle runs git's model on the drawn steps: each branch holds the
# commits made on it and those of the branch it was made from; a push sends
# what its branch holds then; a commit is pushed when a later push of its
# repository sent it.

HOME_DIR = "/Users/u"
APP_DIR, LIB_DIR = f"{HOME_DIR}/Projects/app", f"{HOME_DIR}/Projects/lib"
AT_APP = ["git", "cd ~/Projects/app && git", f"cd {APP_DIR} && git", "git -C ~/Projects/app",
          "cd . && git"]
AT_LIB = ["cd ~/Projects/lib && git", "cd ../lib && git", "git -C ~/Projects/lib",
          f"cd {LIB_DIR} && git", "cd ~ && cd Projects/lib && git"]
app_step = st.one_of(
    st.tuples(st.just("commit"), st.sampled_from(AT_APP), st.booleans()),  # quiet?
    st.tuples(st.just("branch"), st.sampled_from(AT_APP), st.sampled_from(["x", "y"])),
    st.tuples(st.just("switch"), st.sampled_from(AT_APP), st.sampled_from(["main", "x", "y"])),
    st.tuples(st.just("delete"), st.sampled_from(AT_APP), st.sampled_from(["x", "y"])),
    st.tuples(st.just("push"), st.sampled_from(AT_APP),
              st.sampled_from(["push -q", "push -q origin HEAD", "push -q origin {b}",
                               "push -q -u origin {b}", "push -q origin main",
                               "push -q --force-with-lease origin {b}"])))
lib_step = st.one_of(
    st.tuples(st.just("commit"), st.sampled_from(AT_LIB), st.just(False)),
    st.tuples(st.just("push"), st.sampled_from(AT_LIB),
              st.sampled_from(["push -q origin main", "push origin main"])))


@settings(max_examples=examples(60, 300), deadline=None)
@example(steps=[("branch", "cd ~/Projects/app && git", "x"), ("commit", "git", True),
                ("commit", "cd ~/Projects/lib && git", False),
                ("push", "cd ~/Projects/app && git", "push -q origin {b}"),
                ("branch", "git", "y"), ("commit", "git", True),
                ("switch", "git", "x"), ("delete", "git", "y")])
@given(steps=st.lists(st.one_of(app_step, lib_step), min_size=1, max_size=10))
def test_not_pushed_counts_the_commits_no_push_of_their_branch_sent(
        tmp_path_factory: Any, steps: list[tuple[str, str, Any]]) -> None:
    t = Transcript(cwd=APP_DIR)
    t.prompt("make the change, commit and push it")
    t.lines[-1]["gitBranch"] = "main"
    # git's model: per repository, its branches' commits (ids), the one checked out.
    held: dict[str, dict[str, set[int]]] = {"app": {"main": set()}, "lib": {"main": set()}}
    on = {"app": "main", "lib": "main"}
    made: list[tuple[int, str]] = []  # (commit id, repository), in order
    pushed: set[tuple[str, int]] = set()
    for k, (what, where, arg) in enumerate(steps):
        repo = "lib" if where in AT_LIB else "app"
        branch = on[repo]
        before = on["app"]
        if what == "commit":
            sha = f"{k + 1:07x}"
            quiet = arg
            out = "" if quiet else f"[{branch} {sha}] step {k}\n 1 file changed, 1 insertion(+)\n"
            t.bash(f'{where} commit {"-q " if quiet else ""}-m "step {k}"', out)
            held[repo][branch].add(k)
            made.append((k, repo))
        elif what == "branch":
            if arg in held[repo]:
                continue
            t.bash(f"{where} checkout -q -b {arg}")
            held[repo][arg] = set(held[repo][branch])
            on[repo] = arg
        elif what == "switch":
            if arg not in held[repo]:
                continue
            t.bash(f"{where} checkout -q {arg}")
            on[repo] = arg
        elif what == "delete":
            if arg not in held[repo] or arg == branch:
                continue
            t.bash(f"{where} branch -D {arg}", f"Deleted branch {arg} (was {k:07x}).\n")
            del held[repo][arg]
        else:
            form = str(arg)
            sent = "main" if "origin main" in form else branch
            if sent not in held[repo]:
                continue
            out = "" if "-q" in form else \
                f"To github.com:me/{repo}.git\n   1111111..2222222  {sent} -> {sent}\n"
            t.bash(f"{where} {form.format(b=branch)}", out)
            pushed.update((repo, c) for c in held[repo][sent])
        # (Claude Code stamps each line with the branch the project is on)
        t.lines[-2]["gitBranch"] = before
        t.lines[-1]["gitBranch"] = on["app"]
    t.say("Committed.")
    note = t.note(tmp_path_factory,
                  "test_not_pushed_counts_the_commits_no_push_of_their_branch_sent")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    if not made:
        assert not re.search(r"\bcommit", head), head
        return
    left = sum(1 for c, repo in made if (repo, c) not in pushed)
    told = re.match(r"Committed “step \d+”(?: \(([^)]*)\))?(?: and (\d+) more(?: \(([^)]*)\))?)?",
                    head)
    assert told is not None and 1 + int(told.group(2) or 0) == len(made), (head, steps)
    said = re.search(r"(?:^|, )(?:(\d+) )?not pushed$", told.group(3) or told.group(1) or "")
    if not left:
        assert said is None, (head, steps)
    else:
        assert said is not None, (head, steps)
        assert int(said.group(1) or len(made)) == left, (head, steps)


# -- F7: a branch made and deleted is not "created" ----------------------------------------
#
# 98766c04: "branches `chore/fix-orval-any-warnings` and `chore/close-orval-any-todo`
# created", the first deleted 45 s after it was made (`git checkout main && git
# branch -D chore/fix-orval-any-warnings` → "Deleted branch … (was b2f2f512d).").
# Generated sessions: branches made (checkout -b, switch -c, branch x), some
# deleted (`-d`, `-D`, from the project's folder reached by `cd` or not; a
# deletion git refused prints no "Deleted branch"), some made again. The
# oracle is the drawn steps: a branch is created when the last thing done to
# it was to make it; the frontmatter's `branches:` (the branches the lines were
# stamped with) names none made and deleted.

branch_name = st.sampled_from(["feat/a", "fix/b", "chore/c-d", "e"])
MAKE = ["git checkout -b {}", "git switch -c {}", "git branch {}", "git checkout -q -b {}"]
DELETE = ["git branch -D {}", "git branch -d {}", "git checkout main && git branch -D {}",
          f"cd {APP_DIR} && git branch -D {{}}", "git branch -q -D {}"]
branch_step = st.tuples(st.sampled_from(["make", "delete", "refused"]), branch_name,
                        st.integers(0, 4))


@settings(max_examples=examples(60, 300), deadline=None)
@example(steps=[("make", "chore/c-d", 0), ("delete", "chore/c-d", 2), ("make", "fix/b", 0)])
@given(steps=st.lists(branch_step, min_size=1, max_size=8))
def test_a_branch_made_and_deleted_is_not_said_created(
        tmp_path_factory: Any, steps: list[tuple[str, str, int]]) -> None:
    t = Transcript(cwd=APP_DIR)
    t.prompt("try it on a branch")
    t.lines[-1]["gitBranch"] = "main"
    made: list[str] = []  # in order of their last making
    exists = {"main"}
    on = "main"
    stamped: list[str] = ["main"]
    for what, branch, form in steps:
        if what == "make":
            if branch in exists:
                continue
            command = MAKE[form % len(MAKE)].format(branch)
            switches = not command.startswith("git branch")
            t.bash(command, f"Switched to a new branch '{branch}'\n"
                   if "-q" not in command and switches else "")
            exists.add(branch)
            if branch in made:
                made.remove(branch)
            made.append(branch)
            if switches:
                on = branch
        elif what == "delete":
            command = DELETE[form].format(branch)
            moves = "checkout main" in command
            if branch not in exists or (branch == on and not moves):
                continue
            out = "Switched to branch 'main'\n" if moves else ""
            t.bash(command, out + ("" if "-q" in command else
                                   f"Deleted branch {branch} (was 1a2b3c{form}).\n"))
            if moves:
                on = "main"
            exists.discard(branch)
            if branch in made:
                made.remove(branch)
        else:  # (git refuses: the branch is checked out, or not fully merged)
            t.call("Bash", {"command": f"git branch -d {branch}"}, None,
                   f"Exit code 1\nerror: the branch '{branch}' is not fully merged",
                   error=True)
        t.lines[-1]["gitBranch"] = on
        if on not in stamped:
            stamped.append(on)
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_branch_made_and_deleted_is_not_said_created")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    m = re.search(r"\bbranch(?:es)? ((?:`[^`]+`(?:, | and )?)+)(?: and (\d+) others?)? created",
                  head)
    said = re.findall(r"`([^`]+)`", m.group(1)) if m else []
    assert said == made[:2], (head, steps)
    assert (int(m.group(2) or 0) if m else 0) == max(0, len(made) - 2), (head, steps)
    front = note.split("\n---\n", 1)[0]
    listed = re.search(r"(?m)^branches: \[(.*)\]$", front)
    names = re.findall(r'"([^"]+)"', listed.group(1)) if listed else []
    gone = [b for b in stamped if b not in exists]
    assert not set(names) & set(gone), (front, steps)
    kept = [b for b in stamped if b in exists]
    if listed:
        assert names == kept, (front, steps)
    else:
        assert kept in ([], [on]), (front, steps)


# -- F9: an amend of a commit made before the session ---------------------------------------
#
# 8b89dece only reworded the last commit's message (`git commit --amend -m
# "$(cat <<'EOF' …`, nothing staged) and read "Committed “test” (+2 −0 in 1
# file, not pushed)": the +2 lines were the old commit's. Generated sessions:
# an amend in any form (quiet or not, `-m`, a heredoc, `--no-verify`, `-a`,
# `--no-edit`), with something staged before it (`git add`) or not, after a
# commit of the session's own or not. The oracle is the drawn steps: an amend
# of a commit made before the session that staged nothing and gave a message
# reworded it; one that staged changes amended it, and git's count is said as
# the whole commit's; an amend of the session's own commit leaves it the
# session's commit.

AMENDS = ['git commit --amend -m "{s}"', "git commit -q --amend -m '{s}'",
          "git commit --amend -m \"$(cat <<'EOF'\n{s}\n\nEntire-Checkpoint: ecf782729563\nEOF\n)\"",
          'git commit --amend --no-verify -m "{s}"', 'git commit -a --amend -m "{s}"',
          "git commit --amend --no-edit"]
subject_words = st.lists(st.sampled_from(["fix", "the", "parser", "docs", "test", "add", "cli"]),
                         min_size=1, max_size=4).map(" ".join)


@settings(max_examples=examples(40, 200), deadline=None)
@example(form=2, subject="test", staged=False, own=False, files=1, lines=2)
@given(form=st.integers(0, len(AMENDS) - 1), subject=subject_words, staged=st.booleans(),
       own=st.booleans(), files=st.integers(1, 3), lines=st.integers(0, 40))
def test_an_amend_of_an_earlier_commit_is_not_said_committed(
        tmp_path_factory: Any, form: int, subject: str, staged: bool, own: bool, files: int,
        lines: int) -> None:
    t = Transcript()
    t.prompt("fix the last commit's message")
    if own:
        t.bash('git commit -m "first try"',
               "[main 1111111] first try\n 1 file changed, 1 insertion(+)\n")
    if staged:
        t.bash("git add src/app.py")
    command = AMENDS[form].format(s=subject)
    quiet = " -q " in command
    told = "first try" if "--no-edit" in command and own else subject
    count = f" {files} file{'s' if files > 1 else ''} changed" + (
        f", {lines} insertion{'s' if lines != 1 else ''}(+)" if lines else "") + "\n"
    t.bash(command, "" if quiet else
           f"[main 70a873a] {told}\n Date: Tue Mar 17 15:39:58 2026 -0700\n{count}")
    t.say("Done.")
    for line in t.lines:  # (Claude Code stamps each line with the branch)
        line["gitBranch"] = "main"
    note = t.note(tmp_path_factory, "test_an_amend_of_an_earlier_commit_is_not_said_committed")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    message = "--no-edit" not in command
    adds = staged or " -a " in command
    if own:
        # (the session's commit, amended: its work)
        assert head.startswith(f"Committed “{told}”"), (head, command)
        return
    assert not head.startswith("Committed"), (head, command)
    if quiet and not message:
        return  # (no subject told: "1 commit (not pushed)")
    if message and not adds:
        assert head.startswith(f"Reworded the last commit's message: “{subject}”"), (head, command)
        assert not re.search(r"[+−]\d", head.split(", ", 1)[0]), (head, command)
        if not quiet:
            assert "`70a873a`" in head, (head, command)
    else:
        assert head.startswith(f"Amended the last commit, “{told}”"), (head, command)
        if not quiet:
            shown = f"+{lines} −0 in {files} file{'s' if files > 1 else ''}" if lines else \
                f"{files} file{'s' if files > 1 else ''}"
            assert f"(git's count of the whole commit: {shown}" in head, (head, command)
