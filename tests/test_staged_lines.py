"""Review 30 #6 (76810eb8): `git add \\` with one path a line (22 of them,
each line ended by a backslash), then a commit git said changed 22 files, 7
of them `create mode`: the note said "6 other files committed" (only those
git named), although the add named all 22 (20 besides the session's own 2).

Generated sessions: files the session writes, files it never touches; one
`git add` of them all, its paths split over lines by `\\` (or on one line);
a commit whose output says how many files changed and names those it made
(`create mode`). The oracle is the plan: the headline's "N other files
committed" is the files added that the session did not change.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@settings(max_examples=examples(30, 150), deadline=None)
@given(files=st.lists(st.tuples(name, st.booleans(), st.booleans()), min_size=2, max_size=12,
                      unique_by=lambda x: x[0]),
       split=st.sampled_from([" \\\n  ", " \\\n", " \\\r\n  ", " "]))
def test_the_files_a_split_git_add_named_are_the_commits(
        tmp_path_factory: Any, files: list[tuple[str, bool, bool]], split: str) -> None:
    t = Transcript()
    t.prompt("commit the team's work")
    paths = [(f"src/{stem}.ts", mine, made) for stem, mine, made in files]
    for path, mine, _ in paths:
        if mine:
            t.write_file(f"{t.cwd}/{path}", "one\ntwo\n", text="File created successfully")
    t.bash("git add" + split + split.join(p for p, _, _ in paths), "")
    created = [p for p, mine, made in paths if mine or made]
    t.bash("git commit -m 'the team work'",
           f"[main 1a2b3c4] the team work\n {len(paths)} files changed, "
           f"{2 * len(paths)} insertions(+)\n"
           + "".join(f" create mode 100644 {p}\n" for p in created))
    t.say("Committed.")
    note = t.note(tmp_path_factory, "test_the_files_a_split_git_add_named_are_the_commits")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    others = sum(1 for _, mine, _ in paths if not mine)
    said = re.search(r"(\d+) (?:other )?files? committed", head)
    if others == len(paths):  # (the commit's files are all it did: said with it)
        assert f" in {len(paths)} files, " in head, (head, paths)
    elif others:
        assert said is not None and int(said.group(1)) == others, (head, paths)
    else:
        assert said is None, head
