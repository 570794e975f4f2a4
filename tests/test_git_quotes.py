"""What a command's quotes hold never makes or unmakes a commit or a push.

fold.git looks for `git commit`, `git push` (and rebase, merge, log) in the
command with what its quotes hold blanked to x's (git.unquoted: a `git
commit` in a grep pattern is none, and `git -C "/work/lib" commit` is still a
commit there). The x's must never be read as a word a pattern looks for, nor
hide one outside the quotes.

Generated: a Bash call, its command a real `git commit` (plain, `-C
"<folder>"`, `-c key="<value>"`, `--amend`, after `git add`) or no commit
(`echo`, `grep`, `git status`, `git log --grep`, `printf`), maybe with `git
push` or an `echo` after; every quoted part drawn from words that spell git's
(`git`, `commit`, `push`, `-m`, `-C`, `xxxx`, `&&` ...). Its output prints a
push's ref line (`   0000000..sha  main -> main`), and a commit's line
(`[main sha] subject`) when the command commits and is not quiet: git's own
line is a commit whatever the command (fold.git.on_output), so only a commit
that printed none is told by its command. Oracle: the forms drawn: a commit is
kept (its sha when printed; in the folder its `-C` names) exactly when the
command is a commit, a push counted exactly when it has one.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

APP, LIB = "/work/app", "/work/lib"
quoted = st.lists(st.sampled_from(["git", "commit", "push", "-m", "-C", "--amend", "rebase",
                                   "merge", "log", "xxxx", "x", "main", "&&", ";", "|", "-c",
                                   "git commit -m", "git push", "fix the parser"]),
                  min_size=1, max_size=6).map(" ".join)
# (the command with {q} for quoted words, and whether it makes a commit, where)
COMMITS = [
    ('git commit -m "{q}"', APP),
    ('git -C "{lib}" commit -m "{q}"', LIB),
    ('git -c user.name="{q}" commit -m "{q2}"', APP),
    ('git -c "user.name={q}" commit -m "{q2}"', APP),
    ("git commit --amend -m '{q}'", APP),
    ('git add -A && git commit -m "{q}"', APP),
]
OTHERS = [
    'echo "{q}"',
    'grep -rn "{q}" src',
    "git status # '{q}'",
    'git log --oneline --grep="{q}"',
    "printf '%s\\n' \"{q}\" '{q2}'",
]


@settings(max_examples=examples(100, 500), deadline=None)
@given(commit=st.one_of(st.sampled_from(COMMITS), st.sampled_from(OTHERS).map(
    lambda c: (c, ""))), q=quoted, q2=quoted,
    after=st.sampled_from(["", " && git push", ' && echo "{q}"', " ; git push origin main"]),
    sha=st.text(alphabet="0123456789abcdef", min_size=7, max_size=7), quiet=st.booleans())
def test_quoted_words_never_make_or_unmake_a_commit_or_a_push(
        commit: tuple[str, str], q: str, q2: str, after: str, sha: str, quiet: bool) -> None:
    template, folder = commit
    command = (template + after).format(q=q, q2=q2, lib=LIB)
    # (no drawn word holds a quote: each quoted part ends where the template says)
    printed = bool(folder) and not quiet
    out = (f"[main {sha}] Fix the parser\n 1 file changed, 2 insertions(+)\n" if printed
           else "") + f"To github.com:me/app.git\n   0000000..{sha}  main -> main\n"
    t = Transcript(cwd=APP)
    t.prompt("commit the fix")
    t.bash(command, out)
    state = t.state()
    made = {str(c.sha): str(c.folder) for c in state.fold.commits}
    if folder:
        assert made == {sha if printed else "": LIB if folder == LIB else ""}, (command, made)
    else:
        assert made == {}, (command, made)
    pushed = "git push" in after
    assert (state.fold.pushes > 0) == pushed, (command, state.fold.pushes)
