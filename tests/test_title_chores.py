"""Issue 29 (a7da6a22): a session opened by a chore ("I see that I have
pending changes, examine them, add and commit"), whose work was the request
after it (embedded tar support: nearly all of its changed lines), is titled by
that request, not by the chore.

Generated sessions: a first request whose turn runs a git command that
records (commit, push, …) or only looks (log, status), and changes some
lines; later requests that change others. The oracle is the generated line
counts and commands: a first turn that recorded in git and changed at most a
tenth of the lines gives the title to a later request that changed more than
half of them; otherwise the first request keeps it.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript, words
from test_titles import is_cut_of
from vibe_vault.figures import title_of

RECORDS = ["git add -A && git commit -m 'wip'", "git push origin main", "git pull --rebase",
           "git stash", "cd /work/app && git commit -am 'docs'"]
LOOKS = ["git status", "git log --oneline -5", "git diff", "git checkout main && cat a.txt"]
request = st.lists(words, min_size=4, max_size=10).map(lambda w: " ".join(w).capitalize())


def lines(n: int) -> str:
    return "".join(f"line {k}\n" for k in range(n))


@settings(max_examples=examples(40, 200), deadline=None)
@given(first=request, later=st.lists(st.tuples(request, st.integers(0, 60)), min_size=1,
                                     max_size=3),
       git=st.sampled_from(RECORDS + LOOKS), first_lines=st.integers(0, 12),
       filler=st.booleans())
def test_a_chore_before_the_work_gives_the_title_to_the_work(
        first: str, later: list[tuple[str, int]], git: str, first_lines: int,
        filler: bool) -> None:
    t = Transcript()
    t.prompt(first)
    t.bash(git, "ok\n")
    if first_lines:
        t.write_file("notes/chore.txt", lines(first_lines))
    t.say("Done.")
    for k, (asked, n) in enumerate(later):
        if filler:
            t.prompt("thanks")
            t.say("You're welcome.")
        t.prompt(asked)
        if n:
            t.write_file(f"src/m{k}.py", lines(n))
        t.say("Done.")
    title = title_of(t.state())
    total = first_lines + sum(n for _, n in later)
    top = max(range(len(later)), key=lambda k: later[k][1])  # (the first of equals)
    chore = git in RECORDS and total > 0 and first_lines * 10 <= total
    if chore and later[top][1] * 2 > total:
        assert is_cut_of(title, later[top][0]), (title, later, first_lines, git)
    else:
        assert is_cut_of(title, first), (title, first, git, first_lines, later)


def test_the_chore_of_the_issue() -> None:
    # (a7da6a22's requests: the chore committed and touched .gitignore; the
    # tar support changed most lines of the session)
    t = Transcript()
    t.prompt("It's been a while - I see that I have pending changes, examine them, add and"
             " commit (i.e., including unknown files).")
    t.bash("git status", "M README.md\n")
    t.write_file(".gitignore", lines(2))
    t.bash("git add .gitignore README.md && git commit -m 'docs'", "[main 1a2b3c4] docs\n")
    t.say("Done.")
    t.prompt("New feature: we support .zip, but I've seen an archive that contains embedded"
             " tar.gz. We should support those (.tar, .tar.gz) as well, in a similar way to"
             " the .zip embedded archives.")
    t.write_file("deep_manifest/deep_manifest.py", lines(90))
    t.say("Added.")
    title = title_of(t.state())
    assert "tar.gz" in title and "commit" not in title, title
    # (and no request cut to its verb alone after the words it points back
    # at: "…embedded tar.gz: support…" said nothing of what it asked)
    assert not re.search(r": \w+…$", title), title
