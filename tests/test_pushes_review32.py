"""Review 32: what a note says of pushes is what git printed.

#20 (f3d53121): `git push 2>&1 | tail -3` printed the last three lines of
git's advice after a rejection ("hint: … 'git pull' before pushing again."),
its status hidden by the pipe: the note counted it among the pushes, told the
commit as sent and the story's line "ok".

Generated sessions: a commit, then pushes whose output is drawn from what git
prints (a fast-forward, a new branch; a rejection in each of git's forms: not
a fast-forward, fetch first, stale info, a tag that exists, a non-commit
object, a remote ref updated since checkout, a protected branch on GitHub or
GitLab, repository rules, a refspec that matches nothing, no upstream, no
access), cut by `| tail -N` / `| head -N` or kept whole on stderr behind
`|| true`, the line's status 0 every time. The oracle is the drawn lines: each
is marked by the generator as part of git's failure report or not (`To …`,
progress, `remote:` chatter are not); a push whose kept lines hold one is a
failed push.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

URL = "github.com:o/r.git"
TO = f"To {URL}"
PROGRESS = ["Enumerating objects: 5, done.", "Counting objects: 100% (5/5), done.",
            "Delta compression using up to 8 threads",
            "Compressing objects: 100% (3/3), done.",
            "Writing objects: 100% (3/3), 312 bytes | 312.00 KiB/s, done.",
            "Total 3 (delta 2), reused 0 (delta 0), pack-reused 0 (from 0)"]
FAILED = f"error: failed to push some refs to '{URL}'"


def _hints(*lines: str) -> list[tuple[str, bool]]:
    return [("hint: " + x, True) for x in lines]


_SEE = "See the 'Note about fast-forwards' in 'git push --help' for details."
# Each form: its lines, each with whether it is part of git's report of a
# failure (True) or says nothing of one (False); whether it pushed.
PLAIN = [(x, False) for x in PROGRESS]


def _forms(b: str) -> dict[str, tuple[list[tuple[str, bool]], bool]]:
    rejected = f" ! [rejected]        {b} -> {b}"
    remote_rejected = f" ! [remote rejected] {b} -> {b}"
    return {
        "fast-forward": ([*PLAIN, ("remote: Resolving deltas: 100% (2/2), completed with 2 " "local objects.", False), (TO, False), (f"   1a2b3c4..5d6e7f8  {b} -> {b}", False)], True),
        "new branch": ([*PLAIN, ("remote: ", False), (f"remote: Create a pull request for '{b}' on GitHub by " "visiting:", False), (f"remote:      https://github.com/o/r/pull/new/{b}", False), ("remote: ", False), (TO, False), (f" * [new branch]      {b} -> {b}", False), (f"branch '{b}' set up to track 'origin/{b}'.", False)], True),
        "non-fast-forward": ([(TO, False), (rejected + " (non-fast-forward)", True), (FAILED, True), *_hints("Updates were rejected because the tip of your current branch is behind", "its remote counterpart. If you want to integrate the remote changes,", "use 'git pull' before pushing again.", _SEE)], False),
        "non-fast-forward (old git)": ([(TO, False), (rejected + " (non-fast-forward)", True), (FAILED, True), *_hints("Updates were rejected because the tip of your current branch is behind", "its remote counterpart. Integrate the remote changes (e.g.", "'git pull ...') before pushing again.", _SEE)], False),
        "behind, not checked out": ([(TO, False), (rejected + " (non-fast-forward)", True), (FAILED, True), *_hints("Updates were rejected because a pushed branch tip is behind its remote", "counterpart. If you want to integrate the remote changes, use 'git pull'", "before pushing again.", _SEE)], False),
        "fetch first": ([(TO, False), (rejected + " (fetch first)", True), (FAILED, True), *_hints("Updates were rejected because the remote contains work that you do not", "have locally. This is usually caused by another repository pushing to", "the same ref. If you want to integrate the remote changes, use", "'git pull' before pushing again.", _SEE, 'Disable this message with "git config set advice.pushFetchFirst false"')], False),
        "fetch first (old git)": ([(TO, False), (rejected + " (fetch first)", True), (FAILED, True), *_hints("Updates were rejected because the remote contains work that you do", "not have locally. This is usually caused by another repository pushing", "to the same ref. You may want to first integrate the remote changes", "(e.g., 'git pull ...') before pushing again.", _SEE)], False),
        "stale info": ([(TO, False), (rejected + " (stale info)", True), (FAILED, True)],
                       False),
        "tag exists": ([(TO, False), (" ! [rejected]        v1.0 -> v1.0 (already exists)", True), (FAILED, True), *_hints("Updates were rejected because the tag already exists in the " "remote.")], False),
        "needs force": ([(TO, False), (rejected + " (needs force)", True), (FAILED, True), *_hints("You cannot update a remote ref that points at a non-commit " "object,", "or update a remote ref to make it point at a " "non-commit object,", "without using the '--force' option.")],
                        False),
        "updated since checkout": ([(TO, False), (rejected + " (remote ref updated since checkout)", True), (FAILED, True), *_hints("Updates were rejected because the tip of the remote-tracking branch has", "been updated since the last checkout. If you want to integrate the", "remote changes, use 'git pull' before pushing again.", _SEE)], False),
        "protected branch": ([*PLAIN, (f"remote: error: GH006: Protected branch update failed for refs/heads/{b}.", True), ("remote: error: Changes must be made through a pull request.", True), (TO, False), (remote_rejected + " (protected branch hook declined)", True), (FAILED, True)],
            False),
        "repository rules": ([*PLAIN, (f"remote: error: GH013: Repository rule violations found for refs/heads/{b}.", True), (f"remote: Review all repository rules at https://github.com/o/r/rules?ref=refs%2F" f"heads%2F{b}", False), ("remote: ", False), ("remote: - Changes must be made through a pull request.", False), ("remote: ", False), (TO, False), (remote_rejected + " (push declined due to repository rule violations)", True), (FAILED, True)], False),
        "gitlab protected": ([*PLAIN, ("remote: GitLab: You are not allowed to push code to protected branches on this " "project.", True), (TO, False), (remote_rejected + " (pre-receive hook declined)", True), (FAILED, True)], False),
        "no such refspec": ([(f"error: src refspec {b} does not match any", True),
                             (FAILED, True)], False),
        "no upstream": ([(f"fatal: The current branch {b} has no upstream branch.", True),
                         ("To push the current branch and set the remote as upstream, use",
                          True), ("", False), (f"    git push --set-upstream origin {b}", True),
                         ("", False),
                         ("To have this happen automatically for branches without a tracking",
                          True),
                         ("upstream, see 'push.autoSetupRemote' in 'git help config'.", True)],
                        False),
        "no access (ssh)": ([("ERROR: Permission to o/r.git denied to someone.", True),
                             ("fatal: Could not read from remote repository.", True),
                             ("", False),
                             ("Please make sure you have the correct access rights", True),
                             ("and the repository exists.", True)], False),
        "no access (https)": ([("remote: Permission to o/r.git denied to someone.", True),
                               ("fatal: unable to access 'https://github.com/o/r.git/': The "
                                "requested URL returned error: 403", True)], False),
    }


KINDS = sorted(_forms("b"))
# How the line hands on git's output: cut by a pipe (the status is tail's or
# head's), or whole on stderr behind `|| true`.
cuts = st.one_of(st.tuples(st.sampled_from(["tail", "head"]), st.integers(1, 12)),
                 st.sampled_from([("|| true", 0), ("; echo pushed", 0)]))
push = st.tuples(st.sampled_from(KINDS), cuts,
                 st.sampled_from(["git push", "git push origin {b}", "git push -u origin {b}"]))


def _kept(lines: list[tuple[str, bool]], cut: str, n: int) -> list[tuple[str, bool]]:
    if cut == "tail":
        return lines[-n:]
    if cut == "head":
        return lines[:n]
    return lines


def _story_status(note: str, said: str) -> str:
    """What the story's line of the command described as `said` says of how it ended."""
    story = note.split("## Story", 1)[1].split("\n## ", 1)[0]
    line = next(ln for ln in story.splitlines() if ln.startswith(f"- {said}: "))
    return line.rsplit(" — ", 1)[1].split(",")[0]


@settings(max_examples=examples(60, 300), deadline=None)
@example(pushes=[("non-fast-forward", ("tail", 3), "git push")], branch="scope-skill")  # f3d53121
@example(pushes=[("fast-forward", ("tail", 3), "git push"),
                 ("fetch first", ("|| true", 0), "git push origin {b}")], branch="main")
@given(pushes=st.lists(push, min_size=1, max_size=3), branch=st.sampled_from(["main", "feat/x"]))
def test_a_push_git_refused_is_no_push_whatever_the_status(
        tmp_path_factory: Any, pushes: list[tuple[str, tuple[str, int], str]],
        branch: str) -> None:
    t = Transcript()
    t.prompt("commit and push")
    t.bash('git commit -m "the change"', f"[{branch} 1a2b3c4] the change\n"
           " 1 file changed, 1 insertion(+)\n")
    shown: list[tuple[str, bool | None]] = []  # each push's line; refused, or None: not told
    for k, (kind, (cut, n), form) in enumerate(pushes):
        lines, pushed = _forms(branch)[kind]
        kept = _kept(lines, cut, n)
        out = "".join(x + "\n" for x, _ in kept)
        command = form.format(b=branch) + (f" 2>&1 | {cut} -{n}" if n else f" {cut}")
        if not n:
            # (git's report on stderr; the tool's text holds both streams)
            full = "".join(x + "\n" for x, _ in lines)
            echoed = "pushed\n" if "echo" in cut else ""
            t.call("Bash", {"command": command, "description": f"Push {k}"},
                   {"stdout": echoed, "stderr": full, "interrupted": False}, echoed + full)
            told = any(marked for _, marked in lines)
        else:
            t.bash(command, out, description=f"Push {k}")
            told = any(marked for _, marked in kept)
        shown.append((f"Push {k}", False if pushed else True if told else None))
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_push_git_refused_is_no_push_whatever_the_status")
    for command, refused in shown:
        said = _story_status(note, command)
        if refused:
            assert said == "failed", (said, command)
        elif refused is False:
            assert said == "ok", (said, command)
    sent = sum(1 for _, r in shown if r is False)
    unknown = sum(1 for _, r in shown if r is None)
    line = next((ln for ln in note.splitlines() if ln.startswith("- Pushed ")), "")
    if not sent and not unknown:
        assert not line, (line, shown)
    else:
        m = re.fullmatch(r"- Pushed (\S+) times?", line)
        assert m is not None and sent <= _number(m.group(1)) <= sent + unknown, (line, shown)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    if sent:
        assert "not pushed" not in head, (head, shown)
    elif not unknown:
        assert "not pushed" in head, (head, shown)


_WORDS = {"once": 1, "two": 2, "three": 3}


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word]


# -- #11: a forced update is said as one -------------------------------------------------

hexes = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
branch_names = st.sampled_from(["main", "scope-skill", "feat/x", "release/1.2"])
# Each push: its branch, forced or a fast-forward, the old and new shas, whether
# a `git log --oneline` before it showed the old one's subject (and which).
one_push = st.tuples(branch_names, st.booleans(), hexes, hexes, st.booleans(), st.just(""))
SUBJECTS = ["rename skill from scope to crosslink", "wip", "fix: a b"]


def _subject(sha: str) -> str:
    """The subject of the commit `sha` names (one sha, one commit)."""
    return SUBJECTS[int(sha[:7], 16) % len(SUBJECTS)]


@settings(max_examples=examples(50, 250), deadline=None)
@example(pushes=[("scope-skill", True, "d42eb64acf0dfd9e6cc78948553aecf833d8528e",
                  "d282c83" + "0" * 33, True, "")])
@given(pushes=st.lists(one_push, min_size=1, max_size=4))
def test_a_forced_update_is_told_with_what_it_replaced(
        tmp_path_factory: Any, pushes: list[tuple[str, bool, str, str, bool, str]]) -> None:
    t = Transcript()
    t.prompt("push it")
    for k, (branch, forced, old, new, logged, _) in enumerate(pushes):
        if logged:
            t.bash("git log --oneline -3 origin/" + branch,
                   f"{old[:7]} {_subject(old)}\n", description=f"Log {k}")
        if forced:
            line = f" + {old[:7]}...{new[:7]} {branch} -> {branch} (forced update)\n"
        else:
            line = f"   {old[:7]}..{new[:7]}  {branch} -> {branch}\n"
        t.bash(f"git push {'--force ' if forced else ''}origin {branch}",
               "To github.com:o/r.git\n" + line, description=f"Push {k}")
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_forced_update_is_told_with_what_it_replaced")
    told = [ln for ln in note.splitlines() if ln.startswith("- Force-pushed ")]
    expected = []
    for k, (branch, forced, old, new, _, _) in enumerate(pushes):
        if not forced:
            continue
        # (the subject a log showed of the replaced sha: the latest one before the push)
        shown = _subject(old) if any(lg and o[:7] == old[:7]
                                     for _, _, o, _, lg, _ in pushes[:k + 1]) else ""
        was = f" ({shown})" if shown else ""
        expected.append(f"- Force-pushed `{branch}`, replacing `{old[:7]}`{was} with `{new[:7]}`")
    assert told == expected, (told, expected)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    branches = list(dict.fromkeys(p[0] for p in pushes if p[1]))
    if len(expected) == 1:
        one = next(p for p in pushes if p[1])
        assert f"force-pushed `{one[0]}` (replacing `{one[2][:7]}`)" in head, head
    elif len(branches) <= 2 and expected:
        assert "force-pushed " + " and ".join(f"`{b}`" for b in branches) in head, head
    elif expected:
        assert f"force-pushed {len(branches)} branches" in head, head
    else:
        assert "force-pushed" not in head.lower(), head


# -- #9: a PR the session closed is not delivered work -----------------------------------

# Each PR: its repository, number, how many times it was closed then reopened in
# turn (an odd count leaves it closed), merged at the end when open, and
# whether gh printed the repository in its confirmations.
a_pr = st.tuples(st.sampled_from(["entireio/cli", "entireio/skills"]), st.integers(1, 3000),
                 st.integers(0, 3), st.booleans(), st.booleans())


@settings(max_examples=examples(50, 250), deadline=None)
@example(prs=[("entireio/cli", 1229, 1, False, True), ("entireio/skills", 26, 0, False, True)])
# (one number a PR: gh's "#12" without its repository names no other)
@given(prs=st.lists(a_pr, min_size=1, max_size=3, unique_by=lambda p: p[1]))
def test_a_pr_the_session_closed_is_said_closed_and_a_merged_one_merged(
        tmp_path_factory: Any, prs: list[tuple[str, int, int, bool, bool]]) -> None:
    t = Transcript()
    t.prompt("open the PRs")
    states: list[tuple[str, int, str]] = []  # (repo, number, "", "closed" or "merged")
    for repo, number, toggles, merge, named in prs:
        url = f"https://github.com/{repo}/pull/{number}"
        t.bash(f'gh pr create --title "pr {number}" --body "b"', url + "\n")
        said = f"{repo}#{number}" if named else f"#{number}"
        for k in range(toggles):
            verb = "close" if k % 2 == 0 else "reopen"
            t.bash(f"gh pr {verb} {number}" + (' --comment "superseded"' if k == 0 else ""),
                   f"✓ {'Closed' if verb == 'close' else 'Reopened'} pull request {said}"
                   f" (pr {number})\n")
        closed = toggles % 2 == 1
        merged = merge and not closed
        if merged:
            t.bash(f"gh pr merge {number} --squash",
                   f"✓ Squashed and merged pull request {said} (pr {number})\n")
        states.append((repo, number, "merged" if merged else "closed" if closed else ""))
    t.say("Done.")
    note = t.note(tmp_path_factory,
                  "test_a_pr_the_session_closed_is_said_closed_and_a_merged_one_merged")
    listed = [ln for ln in note.splitlines() if ln.startswith("- PR ")]
    assert listed == [f"- PR [{repo}#{number}](https://github.com/{repo}/pull/{number})"
                      + (f" ({state})" if state else "") for repo, number, state in states], listed
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    if len(states) <= 2:
        for repo, number, state in states:
            assert re.search(re.escape(f"PR {repo}#{number}")
                             + (re.escape(f" ({state})") if state else r"(?! \()"), head), head
    else:
        told = [f"{k} {s}" for s in ("merged", "closed")
                if (k := sum(1 for _, _, x in states if x == s))]
        assert f"{len(states)} PRs" + (f" ({', '.join(told)})" if told else "") in head, head


# -- #5: a file two commits hold has the lines of both ------------------------------------

STYLE = "/work/app/src/style.css"
# Each commit of the file: git's count of it (insertions, deletions), whether a
# staged stat printed it before the commit, and how the file was staged.
a_commit = st.tuples(st.integers(1, 30), st.integers(0, 30), st.booleans(),
                     st.sampled_from(["git add src/style.css", "git add -A && git status --short",
                                      "git add src/style.css && git status -s"]))


@settings(max_examples=examples(50, 250), deadline=None)
@example(commits=[(32, 25, True, "git add src/style.css"),
                  (27, 8, True, "git add src/style.css && git status --short")])  # 233712ad
@given(commits=st.lists(a_commit, min_size=1, max_size=3))
def test_a_file_committed_twice_has_the_lines_of_every_commit(
        tmp_path_factory: Any, commits: list[tuple[int, int, bool, str]]) -> None:
    t = Transcript()
    t.prompt("restyle the bar")
    for k, (plus, minus, stat, add) in enumerate(commits):
        # (an edit told only in words: its lines are the session's estimate)
        t.call("Edit", {"file_path": STYLE, "old_string": f"a{k}\nb{k}", "new_string": f"c{k}"},
               f"The file {STYLE} has been updated successfully.",
               f"The file {STYLE} has been updated successfully.")
        counted = f" 1 file changed, {plus} insertions(+), {minus} deletions(-)\n"
        listing = "M  src/style.css\n?? .codex/\n" if "status" in add else ""
        if stat:
            t.bash(add + " && git diff --cached --stat", listing +
                   f" src/style.css | {plus + minus} {'+' * plus}{'-' * minus}\n" + counted)
        else:
            t.bash(add, listing)
        t.bash(f'git commit -m "step {k}"', f"[main {k + 1:07x}] step {k}\n" + counted)
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_file_committed_twice_has_the_lines_of_every_commit")
    files = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    row = next(ln for ln in files.splitlines() if "`src/style.css`" in ln)
    if all(stat for _, _, stat, _ in commits):
        plus = sum(p for p, _, _, _ in commits)
        minus = sum(m for _, m, _, _ in commits)
        assert row == f"| `src/style.css` | modified; lines: git's count | {plus} | {minus} |", \
            (row, commits)
    else:
        # (one commit's count is not the file's: the session's own estimate)
        assert "git's count" not in row and "≈" in row, (row, commits)
