"""Review 30 #12 (f5a2606b): `rm -rf .claude/plugins/entire-external-agent/`
deleted five files; the one the session had read was "deleted by a command",
the four it never named were "committed as deleted (outside this session's
edits)" when the commit took the deletions: the note said the session did
not delete files it deleted.

Generated sessions: files under a folder (some read first, some never
named), the folder removed by `rm -rf` (its path absolute or relative, with
or without a trailing slash), then a commit whose output lists each file
`delete mode`, with files outside the folder too (one made elsewhere,
`create mode`). The oracle is the plan: every file under the removed folder
is "deleted by a command"; the others are not, and no file under the folder
is said changed outside the session.
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
@given(folder=st.lists(name, min_size=1, max_size=3), names=st.lists(
    st.tuples(st.lists(name, max_size=2), name, st.booleans()), min_size=1, max_size=5,
    unique_by=lambda x: (tuple(x[0]), x[1])), absolute=st.booleans(), slash=st.booleans(),
    made=st.booleans())
def test_files_under_a_folder_the_session_removed_are_its_deletions(
        tmp_path_factory: Any, folder: list[str], names: list[tuple[list[str], str, bool]],
        absolute: bool, slash: bool, made: bool) -> None:
    t = Transcript()
    t.prompt("remove the old plugin folder and commit")
    top = "/".join(["z" + folder[0], *folder[1:]])  # (never "created/…")
    under = [("/".join([top, *sub, f"{leaf}.md"]), read) for sub, leaf, read in names]
    for path, read in under:
        if read:
            content = "line\n"
            t.call("Read", {"file_path": f"{t.cwd}/{path}"},
                   {"type": "text", "file": {"filePath": f"{t.cwd}/{path}", "content": content,
                                             "numLines": 1, "startLine": 1, "totalLines": 1}},
                   "     1\tline\n")
    target = (f"{t.cwd}/{top}" if absolute else top) + ("/" if slash else "")
    t.bash(f"rm -rf {target}", "")
    elsewhere = "notes/outside.txt"
    modes = [f" delete mode 100644 {path}\n" for path, _ in under]
    if made:
        modes.append(f" create mode 100644 {elsewhere}\n")
    paths = " ".join(p for p, _ in under) + (f" {elsewhere}" if made else "")
    t.bash(f"git add -A {paths} && git commit -m 'remove the plugin'",
           f"[main 1a2b3c4] remove the plugin\n {len(modes)} files changed, "
           f"{1 if made else 0} insertion(+), {len(under)} deletions(-)\n" + "".join(modes))
    t.say("Removed and committed.")
    note = t.note(tmp_path_factory, "test_files_under_a_folder_the_session_removed_are_its_"
                                    "deletions")
    rows = dict(re.findall(r"(?m)^\| `([^`]+)` \| ([^|]+) \|", note))
    for path, _ in under:
        assert path in rows, (path, rows)
        assert rows[path].strip() == "deleted by a command", (path, rows[path])
    if made:
        assert "deleted by a command" not in rows[elsewhere], rows[elsewhere]
    assert "outside this session" not in "".join(rows[p] for p, _ in under)
