"""Review 31 F10: lines the user changed outside the session are not the
session's.

c5607325: a Write made test-v2.md (1 line), the user typed a line into it
between two prompts (the next Edit's `originalFile` shows it), two Edits
added a line each: the table's +4 with "changed outside the session too" is
the file's, the headline's "+4 −0" was not the session's own (+3).

Generated: a Write of n lines, then turns each of which may start with the
user changing the file outside (lines added at its end, or one of its lines
removed), followed by an Edit that adds a line after the file's last. The
oracle counts the session's own lines from the drawn steps: the Write's n,
one a Edit, none removed."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

PATH = "/work/app/notes.md"
word = st.text(alphabet="abcdefghij", min_size=3, max_size=6)
# What the user does to the file before a turn's Edit: nothing, adds lines
# at its end, or removes one of its lines (by its place, taken modulo).
outside = st.one_of(st.just(("none", 0)), st.tuples(st.just("add"), st.integers(1, 3)),
                    st.tuples(st.just("drop"), st.integers(0, 50)))


def _text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.lists(word, min_size=1, max_size=4, unique=True),
       st.lists(st.tuples(outside, word), min_size=1, max_size=4))
def test_the_headline_counts_the_sessions_own_lines(
        tmp_path_factory: Any, first: list[str],
        turns: list[tuple[tuple[str, int], str]]) -> None:
    t = Transcript(cwd="/work/app")
    t.prompt("Start the notes")
    t.write_file(PATH, _text(first))
    lines = list(first)
    own = len(first)
    changed = False
    for k, ((what, size), new) in enumerate(turns):
        t.prompt(f"Add more {k}")
        if what == "add":
            lines += [f"user {k} {i}" for i in range(size)]
            changed = True
        elif what == "drop" and len(lines) > 1:
            del lines[size % len(lines)]
            changed = True
        before = _text(lines)
        last = lines[-1]
        added = f"{new} {k}"
        t.call("Edit", {"file_path": PATH, "old_string": last, "new_string": f"{last}\n{added}"},
               {"filePath": PATH, "oldString": last, "newString": f"{last}\n{added}",
                "originalFile": before, "replaceAll": False, "userModified": False,
                "structuredPatch": [{"oldStart": len(lines), "oldLines": 1,
                                     "newStart": len(lines), "newLines": 2,
                                     "lines": [f" {last}", f"+{added}"]}]},
               f"The file {PATH} has been updated successfully.")
        lines.append(added)
        own += 1
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_the_headline_counts_the_sessions_own_lines")
    summary = next(line for line in note.splitlines() if line.startswith("summary:"))
    m = re.search(r"1 file changed \(\+(\d+) −(\d+)", summary)
    assert m is not None, summary
    assert (int(m.group(1)), int(m.group(2))) == (own, 0), (summary, first, turns)
    assert ("also changed outside the session" in summary) == changed, summary
    row = next(line for line in note.splitlines() if line.startswith("| `notes.md` |"))
    assert ("changed outside the session too" in row) == changed, row
