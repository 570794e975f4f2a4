"""Commits rewritten in the session are listed once, as they exist at the end.

A model of one branch's history runs generated git operations, each by the
main agent or a subagent, in any order: commits, `git commit --amend` (with
the same message or a new one), `git rebase` (at once, or stopped by a
conflict and finished by `--continue`, which prints the replayed commit's new
line), `git cherry-pick` of a commit from before the session, and `git log
--oneline`. Git's outputs are written into the two transcripts as git prints
them. The oracle is the model's branch at the end: the session's commits on
it, each listed once, by the sha git printed for it if any output printed it
(else, rebased, as such with its subject); no commit an amend or a rebase
replaced is listed as one that exists.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold, fold_agent
from vibe_vault.redact import Redacted
from vibe_vault.render import render
from vibe_vault.state import AgentFile, AgentFold, Commit, Fold, SessionState
from vibe_vault.work import _named, work_of

SID = "5e551011-0000-4000-8000-000000000001"
AGENT = "a1b2c3d"

op = st.sampled_from(["commit", "commit", "amend", "amend-message", "rebase",
                      "rebase-conflict", "cherry-pick", "log", "fixup", "rebase-autosquash"])


class Lines:
    """One transcript's lines, stamped from a clock both transcripts share."""

    def __init__(self, clock: list[int], agent: bool) -> None:
        self.clock, self.agent = clock, agent
        self.lines: list[dict[str, Any]] = []

    def _line(self, kind: str, message: dict[str, Any]) -> dict[str, Any]:
        self.clock[0] += 1
        n = self.clock[0]
        line = {"type": kind, "uuid": f"{'a' if self.agent else 'm'}{n:07d}-0000-4000-8000-"
                f"000000000000", "parentUuid": self.lines[-1]["uuid"] if self.lines else None,
                "sessionId": SID, "cwd": "/work/app", "gitBranch": "feature",
                "version": "2.1.90", "message": message,
                "timestamp": f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z"}
        if self.agent:
            line.update(isSidechain=True, agentId=AGENT)
        self.lines.append(line)
        return line

    def prompt(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def bash(self, command: str, out: str, failed: bool = False) -> None:
        tid = f"toolu_{'a' if self.agent else 'm'}{self.clock[0]:05d}"
        self._line("assistant", {
            "id": f"msg_{tid}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                         "input": {"command": command}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid,
                                 "content": f"Exit code 1\n{out}" if failed else out}
        if failed:
            block["is_error"] = True
        line = self._line("user", {"role": "user", "content": [block]})
        if not failed:
            line["toolUseResult"] = {"stdout": out, "stderr": "", "interrupted": False}

    def encoded(self) -> list[bytes]:
        return [json.dumps(x).encode() for x in self.lines]


class Repo:
    """The branch `feature` as git holds it, from its first commit not on
    origin/main (made before the session): (sha, subject, made in the session)."""

    def __init__(self) -> None:
        self.shas = (f"{n:07x}" for n in range(0x1a2b3c4, 0x1a2b3c4 + 10_000, 7))
        self.branch: list[tuple[str, str, bool]] = [(next(self.shas), "before the session",
                                                     False)]
        self.n = 0

    def new(self) -> str:
        return next(self.shas)

    def subject(self, kind: str) -> str:
        self.n += 1
        return f"{kind} number {self.n}"


def _stat() -> str:
    return " 1 file changed, 2 insertions(+)\n"


def play(ops: list[tuple[str, bool]]) -> tuple[Lines, Lines, Repo]:
    """The operations, by the main agent (False) or the subagent (True), run
    on the model and told in the transcripts as git prints them."""
    clock = [0]
    main, sub = Lines(clock, agent=False), Lines(clock, agent=True)
    main.prompt("work on the feature")
    sub.prompt("help with the feature")
    repo = Repo()
    for kind, by_sub in ops:
        t = sub if by_sub else main
        ours = [i for i, c in enumerate(repo.branch) if c[2]]
        if kind == "commit":
            sha, subject = repo.new(), repo.subject("change")
            repo.branch.append((sha, subject, True))
            t.bash(f'git add -A && git commit -m "{subject}"', f"[feature {sha}] {subject}\n"
                   + _stat())
        elif kind in ("amend", "amend-message"):
            sha = repo.new()
            subject = repo.branch[-1][1] if kind == "amend" else repo.subject("reworded")
            repo.branch[-1] = (sha, subject, True)
            flag = "--no-edit" if kind == "amend" else f'-m "{subject}"'
            t.bash(f"git commit --amend {flag}",
                   f"[feature {sha}] {subject}\n Date: Sun Mar 1 10:00:00 2026 +0000\n" + _stat())
        elif kind.startswith("rebase") and kind != "rebase-autosquash" and ours:
            # origin/main moved on: every commit of the branch is replayed (one
            # from before the session too, not the session's)
            repo.branch = [(repo.new(), s, mine) for _, s, mine in repo.branch]
            done = "Successfully rebased and updated refs/heads/feature.\n"
            if kind == "rebase":
                t.bash("git fetch origin && git rebase origin/main", done)
            else:
                first = repo.branch[0]
                t.bash("git rebase origin/main",
                       f"Auto-merging a.txt\nCONFLICT (content): Merge conflict in a.txt\n"
                       f"error: could not apply 9999999... {first[1]}\n", failed=True)
                t.bash("git add a.txt && GIT_EDITOR=true git rebase --continue",
                       f"[detached HEAD {first[0]}] {first[1]}\n{_stat()}{done}")
        elif kind == "fixup" and [i for i in ours if not repo.branch[i][1].startswith(
                "fixup! ") and ("fixup! " + repo.branch[i][1]) not in {
                s for _, s, _ in repo.branch}]:
            # (one fixup a commit: commits of one subject are told apart by
            # nothing a log prints, fixups or not)
            target = next(repo.branch[i] for i in ours if not repo.branch[i][1].startswith(
                "fixup! ") and ("fixup! " + repo.branch[i][1]) not in {
                s for _, s, _ in repo.branch})
            sha, subject = repo.new(), "fixup! " + target[1]
            repo.branch.append((sha, subject, True))
            t.bash(f"git add -A && git commit --fixup={target[0]}",
                   f"[feature {sha}] {subject}\n" + _stat())
        elif kind == "rebase-autosquash" and ours:
            # git's own rule: each `fixup! S` goes into the first commit whose
            # subject is S (gone, as a commit of its own); the rest are replayed
            kept: list[tuple[str, str, bool]] = []
            for _, subject, mine in repo.branch:
                wanted = subject.removeprefix("fixup! ")
                if subject.startswith("fixup! ") and any(s == wanted for _, s, _ in kept):
                    continue
                kept.append((repo.new(), subject, mine))
            repo.branch = kept
            t.bash("GIT_SEQUENCE_EDITOR=true git rebase -i --autosquash origin/main",
                   "Successfully rebased and updated refs/heads/feature.\n")
        elif kind == "cherry-pick":
            sha, subject = repo.new(), repo.subject("upstream fix")
            repo.branch.append((sha, subject, True))
            t.bash(f"git cherry-pick {repo.new()}",
                   f"[feature {sha}] {subject}\n Date: Sun Mar 1 09:00:00 2026 +0000\n" + _stat())
        elif kind == "log":
            t.bash("git log --oneline -20",
                   "".join(f"{sha} {subject}\n" for sha, subject, _ in reversed(repo.branch)))
    return main, sub, repo


def state_of(main: Lines, sub: Lines) -> SessionState:
    state = SessionState(session_id=SID, project="app", status="ended",
                         fold=fold(Fold(), (decode_line(x) for x in main.encoded())))
    if len(sub.lines) > 1:
        state.agents[AGENT] = AgentFile(
            fold=fold_agent(AgentFold(), (decode_line(x) for x in sub.encoded())),
            agent_type="general-purpose", description="help")
    return state


def printed(main: Lines, sub: Lines) -> str:
    """Every tool output of the session, as the JSON holds it."""
    return "\n".join(str(b.get("content")) for t in (main, sub) for line in t.lines
                     for b in line["message"]["content"] if isinstance(b, dict)
                     and b.get("type") == "tool_result") if main.lines else ""


@settings(max_examples=examples(60, 600), deadline=None)
@given(ops=st.lists(st.tuples(op, st.booleans()), min_size=1, max_size=12))
def test_the_commits_listed_are_those_that_exist_at_the_end(
        ops: list[tuple[str, bool]]) -> None:
    main, sub, repo = play(ops)
    state = state_of(main, sub)
    listed = [c for _, c in work_of(state).commits]
    exists = [(sha, subject) for sha, subject, ours in repo.branch if ours]
    told = printed(main, sub)
    assert len(listed) == len(exists), (listed, exists)
    now = {sha for sha, _, _ in repo.branch}
    for sha, subject in exists:
        if re.search(rf"\b{sha}\b", told):  # git printed it: listed by it
            assert any(c.sha == sha and c.subject == subject and not c.stale
                       for c in listed), (sha, subject, listed)
        else:  # rebased, its new sha never printed: said so, by its subject
            assert any(c.stale and c.subject == subject for c in listed), (subject, listed)
    for c in listed:
        assert c.stale or c.sha in now, (c, now)  # no replaced commit listed as existing
    note = render(state)
    if not exists:
        assert "\n## Commits and PRs\n" not in note
        return
    section = note.split("\n## Commits and PRs\n", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("- `")]
    assert len(rows) == len(exists), section
    for c in listed:
        row = next(r for r in rows if c.subject in r)
        if c.stale:
            assert "rebased; its new sha was not printed" in row, row
        elif c.was and c.was != c.sha:
            assert f"`{c.was}` → `{c.sha}` ({c.how})" in row, row


def test_a_subagent_amends_the_main_agents_commit() -> None:
    """As 2.1.x wrote it in ef958aa1: a commit, then `git add` and `git commit
    --amend --no-edit` (here by another agent than the one that committed)."""
    main, sub, repo = play([("commit", False), ("amend", True)])
    listed = [c for _, c in work_of(state_of(main, sub)).commits]
    (first, _, _), = [c for c in repo.branch if c[2]]
    assert [(c.sha, c.was, c.how) for c in listed] == [(first, "1a2b3cb", "amended")]


def test_a_rebase_then_a_log_names_the_new_commits() -> None:
    main, sub, repo = play([("commit", False), ("commit", True), ("rebase", False),
                            ("log", True)])
    listed = [c for _, c in work_of(state_of(main, sub)).commits]
    assert [(c.sha, c.how, c.stale) for c in listed] == [
        (sha, "rebased", False) for sha, _, ours in repo.branch if ours]


def test_an_autosquash_folds_a_fixup_into_its_commit() -> None:
    """`git commit --fixup`, then `git rebase -i --autosquash`: the fixup is
    no commit of its own at the end; the one it went into says so."""
    main, sub, repo = play([("commit", False), ("commit", True), ("fixup", False),
                            ("rebase-autosquash", False), ("log", False)])
    state = state_of(main, sub)
    listed = [c for _, c in work_of(state).commits]
    exists = [(sha, subject) for sha, subject, ours in repo.branch if ours]
    assert [(c.sha, c.subject) for c in listed] == exists
    assert [c.folded for c in listed] == [1, 0]  # (the first commit's fixup)
    assert "1 commit folded into it by `--autosquash`" in render(state)


_SUBJECTS = st.sampled_from(["fix", "add x", "Merge branch 'topic'",
                             "Merge branch 'topic' into main", "Merge branch 'other'"])
_SHAS = st.sampled_from(["", "a1", "b2", "c3", "d4"])
_TIMES = st.sampled_from(["", "2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z",
                          "2026-01-01T00:00:03Z"])
_COMMITS = st.builds(lambda sha, subject, ts: Commit(sha=Redacted(sha), subject=Redacted(subject),
                                                     ts=ts), _SHAS, _SUBJECTS, _TIMES)
# A merge made without a message: its merged branch is known, its subject
# (git's own) only as a later output prints it (review 30 #2).
_MERGES = st.builds(lambda sha, branch, ts: Commit(sha=Redacted(sha), merged=Redacted(branch),
                                                   ts=ts), _SHAS,
                    st.sampled_from(["topic", "origin/main"]), _TIMES)
_PRINTED = st.builds(lambda sha, subject, ts: Commit(sha=Redacted(sha), subject=Redacted(subject),
                                                     ts=ts), _SHAS.filter(bool),
                     st.sampled_from(["fix", "add x", "Merge branch 'topic'",
                                      "Merge branch 'topic' into main",
                                      "Merge remote-tracking branch 'origin/main' into x",
                                      "Merge branch 'other'"]), _TIMES)


@settings(max_examples=examples(200, 2000), deadline=None)
@given(made=st.lists(st.tuples(st.sampled_from(["main", "agent"]), _COMMITS | _MERGES),
                    max_size=8),
       printed=st.lists(_PRINTED, max_size=10))
def test_unnamed_commits_take_the_first_sha_printed_later_with_their_subject(
        made: list[tuple[str, Commit]], printed: list[Commit]) -> None:
    """Each commit made without git's line takes the sha of the first commit
    printed at or after it with its subject, a merge made with none (its
    branch known) the first printed with git's subject for a merge of that
    branch, subject and all, whose sha no commit has yet: the oracle scans
    every printed one for each commit."""
    known = {c.sha for _, c in made if c.sha}
    want = []
    for label, c in made:
        if not c.sha:
            for p in printed:
                if c.subject:
                    same = p.subject == c.subject
                else:
                    same = bool(c.merged) and p.subject.startswith("Merge ") and (
                        f"branch '{c.merged}'" in p.subject)
                if p.sha not in known and p.ts >= c.ts and same:
                    c = Commit(sha=p.sha, subject=c.subject or p.subject, ts=c.ts,
                               merged=c.merged)
                    known.add(p.sha)
                    break
        want.append((label, c))
    assert _named(made, printed) == want
