"""A commit's sha is the latest one any output of the session ties to it, a
push's range included (review 28 #19: acc53d32 committed `a1f28397`, ran `git
pull --rebase`, and `git push` printed `6c08f5a5..b02b3c07  main -> main`;
the note said "its new sha was not printed").

A model of one branch runs generated git operations in any order: commits
that print git's `[branch sha] subject` line or nothing (`-q`), rebases
(`git pull --rebase`, `git rebase`), pushes (a fast-forward `a..b` or a forced
`a...b`, after the hooks' and the remote's own lines), and logs that print
other commits. Git's outputs are written as git prints them. The oracle is
the model's: the sha each output tied to each commit, latest last: its own
line, then the tip a push reported when it was the branch's latest commit;
a rebase leaves it with no sha printed until a push reports it.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

CWD = "/work/app"
ops = st.sampled_from(["loud", "loud", "quiet", "rebase", "pull", "push", "push", "log"])


def _commit_lines(note: str) -> list[str]:
    if "\n## Commits and PRs\n" not in note:
        return []
    part = note.split("\n## Commits and PRs\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in part.splitlines() if line.startswith("- ")]


@settings(max_examples=examples(15, 60), deadline=None)
@given(data=st.data(), branch=st.sampled_from(["main", "feature/tips", "dev"]),
       plan=st.lists(ops, min_size=1, max_size=9))
def test_each_commit_shows_the_latest_sha_an_output_tied_to_it(
        tmp_path_factory: Any, data: st.DataObject, branch: str, plan: list[str]) -> None:
    t = Transcript(cwd=CWD)
    t.prompt("commit the work and push it")
    # The model: each commit of the session, its sha now (git's truth) and
    # what the session's outputs last told of it.
    made: list[dict[str, Any]] = []
    remote = "0" * 8
    for k, op in enumerate(plan):
        # (a commit's sha: its op's number, then 0; a rebased one's: 1 there)
        sha = f"{k:02x}0" + data.draw(st.text("0123456789abcdef", min_size=5, max_size=5))
        if op in ("loud", "quiet"):
            subject = f"Change number {k}"
            t.write_file(f"{CWD}/f{k}.txt", f"line {k}\n")
            if op == "loud":
                t.bash(f"git add -A && git commit -m '{subject}'",
                       f"[{branch} {sha}] {subject}\n 1 file changed, 1 insertion(+)\n"
                       f" create mode 100644 f{k}.txt\n")
            else:
                t.bash(f"git add -A && git commit -q -m '{subject}'")
            made.append({"subject": subject, "sha": sha,
                         "told": ("sha", sha) if op == "loud" else ("none", "")})
        elif op in ("rebase", "pull"):
            command = f"git pull --rebase origin {branch}" if op == "pull" else \
                f"git rebase origin/{branch}"
            t.bash(command, f"Rebasing (1/{len(made) or 1})\r\r\x1b[KSuccessfully rebased and "
                   f"updated refs/heads/{branch}.\n")
            for n, c in enumerate(made):
                c["sha"] = f"{n:02x}1{k:02x}" + sha[5:]  # (new commits: none printed)
                if c["told"][0] == "sha":
                    c["told"] = ("stale", "")
        elif op == "push" and made:
            tip = made[-1]["sha"]
            forced = data.draw(st.booleans())
            flag, dots = ("+", "...") if forced else (" ", "..")
            hooks = data.draw(st.sampled_from(
                ["", "Build....................Passed\n", "[entire] Pushing … done\n"]))
            t.bash(f"git push {'--force-with-lease ' if forced else ''}origin {branch}",
                   f"{hooks}To https://github.com/o/app.git\n {flag} {remote}{dots}{tip}  "
                   f"{branch} -> {branch}\n")
            remote = tip
            made[-1]["told"] = ("sha", tip[:7])
        elif op == "log":
            t.bash("git log --oneline -2", f"{sha[:7]} an older commit\n"
                   f"{'9' * 7} another older one\n")
    t.say("Done.")
    for line in t.lines:
        line["gitBranch"] = branch  # (as Claude Code records it on each line)
    if not made:
        return
    note = t.note(tmp_path_factory, "pushed_tips")
    lines = _commit_lines(note)
    for c in made:
        line = next(x for x in lines if c["subject"] in x)
        kind, sha = c["told"]
        shown = re.findall(r"`([0-9a-f]{7,40})`", line)
        if kind == "sha":
            # (the sha shown last on the line is the commit's now: `old` → `new`;
            # git prints 7 or more of its digits)
            assert shown and shown[-1][:7] == sha[:7], (line, c, plan)
            assert "not printed" not in line and "no sha" not in line, (line, c, plan)
        elif kind == "stale":
            assert "its new sha was not printed" in line, (line, c, plan)
        else:
            assert "not printed" in line or "no sha" in line, (line, c, plan)
