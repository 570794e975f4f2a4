"""Review 31 F12 (a): a session whose only edits are outside the project is
not said to have changed nothing.

1656b075's only request was to edit three files in a pytest temporary folder
(`/private/var/folders/…/T/pytest-of-pete/…`); all four Edits succeeded. The
files are scratch (outside the project, not counted), and the headline read
"No files changed, 1 prompt. The transcript ends while Claude was still on
the last request (after 4 calls: it had edited edit_basic.txt, edited
edit_replace_all.txt and edited edit_multiline.txt)": a contradiction.

Generated: sessions editing files in temporary folders (`/tmp`, macOS's
`/private/var/folders/…/T`, Claude's scratchpad) and maybe in the project,
the request naming those files or not, the transcript ending on an answer or
in the middle of the request. The oracle reads the JSON: the files each
successful Edit changed (its old and new strings differ), under the session's
folder or not.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

SID = "1656b075-0000-4000-8000-0000000f12aa"
PLACES = {"tmp": "/tmp/pytest-of-me/pytest-3/test_edits0",
          "folders": "/private/var/folders/jv/1nsz/T/pytest-of-pete/pytest-1/test_edit0",
          "scratchpad": f"/tmp/claude-501/-work-app/{SID}/scratchpad",
          "project": "/work/app/src"}

edit = st.tuples(st.sampled_from(sorted(PLACES)), st.integers(0, 3), st.booleans())


def build(edits: list[tuple[str, int, bool]], named: bool, ends_mid: bool) -> Transcript:
    t = Transcript(sid=SID)
    paths = [f"{PLACES[place]}/edit_{n}.txt" for place, n, _ in edits]
    ask = "Please perform the following file edit operations using the Edit tool:\n\n" + \
        "\n".join(f"{k + 1}. Edit {p}, change \"hello\" to \"goodbye\""
                  for k, p in enumerate(paths)) if named else "Try the edit tool on a few files"
    t.prompt(ask)
    for (_, _, same), path in zip(edits, paths, strict=True):
        new = "hello" if same else "goodbye"  # (an edit that changes nothing: no change)
        patch = [] if same else [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                  "lines": ["-hello", f"+{new}"]}]
        t.call("Edit", {"file_path": path, "old_string": "hello", "new_string": new},
               {"filePath": path, "oldString": "hello", "newString": new,
                "originalFile": "hello\n", "structuredPatch": patch, "replaceAll": False,
                "userModified": False},
               f"The file {path} has been updated successfully.")
    if not ends_mid:
        t.say("All the edits are done.")
    return t


def oracle(t: Transcript) -> tuple[int, int]:
    """(project files changed, files changed outside it), from the JSON."""
    cwd = t.lines[0]["cwd"]
    changed: set[str] = set()
    for o in t.lines:
        for b in (o.get("message") or {}).get("content") or []:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b["name"] == "Edit" \
                    and b["input"]["old_string"] != b["input"]["new_string"]:
                changed.add(b["input"]["file_path"])
    mine = {p for p in changed if p.startswith(cwd + "/")}
    return len(mine), len(changed - mine)


@settings(max_examples=examples(30, 150), deadline=None)
@given(edits=st.lists(edit, min_size=1, max_size=4, unique_by=lambda e: (e[0], e[1])),
       named=st.booleans(), ends_mid=st.booleans())
def test_edits_outside_the_project_are_not_no_change(
        tmp_path_factory: Any, edits: list[tuple[str, int, bool]], named: bool,
        ends_mid: bool) -> None:
    t = build(edits, named, ends_mid)
    note = t.note(tmp_path_factory, "edits outside the project")
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    mine, outside = oracle(t)
    if mine:
        assert re.match(rf"{mine} files? changed\b", head), (head, edits)
    elif outside:
        assert head.startswith(f"{outside} file{'s' if outside > 1 else ''} edited outside "
                               "the project (not counted)"), (head, edits)
    else:
        assert head.startswith("No files changed"), (head, edits)
    # Never "no change" beside the edits the headline itself tells.
    assert not ("No files changed" in head and "edited edit_" in head), head
