"""Issue 29, second review: headline facts checked against the transcript's JSON.

Each test generates a transcript (branches, turns with and without Claude
Code's `turn_duration`, PowerShell output, interrupted turns, git history
rewritten later in the session), and the expected fact is computed here from
the generated JSON alone: the entries' `gitBranch`, their timestamps, the
PowerShell error records in the output, what `git log` printed at the end.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from test_headlines import Transcript, phrase
from vibe_vault.render import render

hexsha = st.text(alphabet="0123456789abcdef", min_size=7, max_size=7)


def frontmatter_of(note: str) -> str:
    return note.split("\n---\n", 1)[0] + "\n"


# -- the branch ------------------------------------------------------------------------

branch_value = st.sampled_from(["main", "feature/x", "HEAD", "worktree-agent-a4ca7529"])


@settings(max_examples=80, deadline=None)
@given(branches=st.lists(branch_value, min_size=1, max_size=8))
def test_the_branch_is_where_the_session_ended_and_a_detached_head_is_none(
        branches: list[str]) -> None:
    """`branch:` is the gitBranch of the session's last entry naming one that
    is not a subagent's worktree (the first worktree one if no other is
    named); `HEAD` (a detached HEAD) is no branch: said as nothing, never
    listed among the branches."""
    t = Transcript()
    for n, b in enumerate(branches):
        t.prompt(f"step {n}")
        t.lines[-1]["gitBranch"] = b
        t.say("done")
        t.lines[-1]["gitBranch"] = b
    named = [line["gitBranch"] for line in t.lines if line.get("gitBranch")]
    own = [b for b in named if not b.startswith("worktree-agent-")]
    last = own[-1] if own else named[0]
    head = frontmatter_of(render(t.state()))
    expected = "null" if last == "HEAD" else last
    assert f"\nbranch: {expected}\n" in head, head
    assert "HEAD" not in head.split("\nbranch:", 1)[1].split("\nmodels:", 1)[0], head


@settings(max_examples=30, deadline=None)
@given(subject=phrase, sha=hexsha, quiet=st.booleans())
def test_a_commit_on_a_detached_head_is_on_no_branch(subject: str, sha: str,
                                                      quiet: bool) -> None:
    t = Transcript()
    t.prompt("commit it")
    t.lines[-1]["gitBranch"] = "HEAD"
    if quiet:
        t.bash(f'git commit -q -m "{subject}"')
        t.bash("git log --oneline -1", f"{sha} {subject}\n")
    else:
        t.bash(f'git commit -m "{subject}"',
               f"[detached HEAD {sha}] {subject}\n 1 file changed, 1 insertion(+)\n")
    for line in t.lines:
        line["gitBranch"] = "HEAD"
    state = t.state()
    assert [(c.sha, c.subject, c.branch) for c in state.fold.commits] == [(sha, subject, "")]
    note = render(state)
    assert "HEAD`" not in note and "\nbranch: null\n" in note


