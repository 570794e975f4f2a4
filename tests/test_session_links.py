"""A symbolic link the session makes itself (`ln -s AGENTS.md CLAUDE.md`),
then edits through: the edits are its target's, counted once under the
target's name, as git counts them; the link is listed as made by a command
(git keeps it as a file whose one line is the target's path).

Generated: where the target and the link are (one folder, two, the link
made from another folder after a `cd`, or put into a folder by name), how
the target is written in the command (relative to the link, absolute), the
`ln` form (`-s`, `-sf`, `-sfn`, `--symbolic`), and edits of the target, by
its own name or through the link, in any order. Oracle: the lines the test
added to the target (its own contents); the link's one line. The first case
runs `vv backfill` (Transcript.note).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

CWD = "/work/app"
PLACES = [("AGENTS.md", "CLAUDE.md"), ("docs/AGENTS.md", "CLAUDE.md"),
          ("AGENTS.md", "docs/CLAUDE.md"), ("docs/guide.md", "notes/guide.md")]


def _table(note: str) -> dict[str, tuple[str, str, str]]:
    if "\n## Files changed\n" not in note:
        return {}
    part = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in part.splitlines()[2:]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 5 and cells[1].startswith("`"):
            out[cells[1].strip("`")] = (cells[2], cells[3], cells[4])
    return out


def _relative(target: str, link: str) -> str:
    """The target as `ln -s` takes it: from the link's folder."""
    ups = link.count("/")
    return "../" * ups + target


@settings(max_examples=examples(20, 80), deadline=None)
@given(data=st.data(), place=st.sampled_from(PLACES),
       form=st.sampled_from(["-s", "-sf", "-sfn", "--symbolic"]),
       how=st.sampled_from(["relative", "absolute", "cd", "into"]),
       existed=st.booleans(), edits=st.lists(st.booleans(), min_size=1, max_size=4))
def test_edits_through_a_link_the_session_made_count_once_under_its_target(
        tmp_path_factory: Any, data: st.DataObject, place: tuple[str, str], form: str,
        how: str, existed: bool, edits: list[bool]) -> None:
    target, link = place
    t = Transcript(cwd=CWD)
    t.prompt("keep one instructions file and link the other to it")
    content = "".join(f"line {k}\n" for k in range(3))
    if not existed:
        t.write_file(f"{CWD}/{target}", content)
    folder, _, name = link.rpartition("/")
    if how == "absolute":
        t.bash(f"ln {form} {CWD}/{target} {link}")
    elif how == "cd" and folder:
        t.bash(f"cd {folder} && ln {form} {_relative(target, link)} {name}")
    elif how == "into" and target.rpartition("/")[2] == name:
        t.bash(f"ln {form} {_relative(target, link)} {folder or '.'}/")
    else:
        t.bash(f"ln {form} {_relative(target, link)} {link}")
    first = content
    added = 0
    for k, through in enumerate(edits):
        more = data.draw(st.integers(1, 3))
        new = content + "".join(f"edit {k} line {n}\n" for n in range(more))
        path = f"{CWD}/{link if through else target}"
        t.call("Edit", {"file_path": path, "old_string": content, "new_string": new},
               {"filePath": path, "oldString": content, "newString": new,
                "originalFile": content, "structuredPatch": []})
        content, added = new, added + more
    t.say("Linked.")
    note = t.note(tmp_path_factory, "session_links")
    rows = _table(note)
    change, plus, minus = rows[target]
    assert (plus, minus) == (str(added + (0 if existed else first.count("\n"))), "0"), rows
    change, plus, minus = rows[link]
    assert "symbolic link" in change and (plus, minus) == ("1", "0"), rows
    assert set(rows) == {target, link}, rows  # (no row counting the edits again)
    fm = frontmatter(note)
    assert fm["files_changed"] == 2, fm
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    m = re.search(r"(\d+) files changed \(\+(\d+) −(\d+)\)", head)
    total = added + (0 if existed else first.count("\n")) + 1
    assert m and (int(m.group(1)), int(m.group(2)), int(m.group(3))) == (2, total, 0), head
