"""Review 29 (467cacaa): README.md written (59 lines), then edited; one Edit's
`originalFile` lacked 6 lines the session wrote: the user changed the file
between the session's edits. The Files row counts the file as it ended, so
its figures are not the sum of the story's edits: the row says the file was
"changed outside the session too".

Generated sessions: a Write makes a file, then steps: the session's Edits and
Writes (each result carrying the file's content before it, as Claude Code
records it), changes planted outside (a line added to the file between two
results), commands that only look (`ls`, `git status`, `cat f | head`),
commands that may change files (`npm run format`, `sed -i`, a hook's
formatter) and subagents. The oracle is the plan itself: the row says
"outside" iff a planted change was followed by a change of the session with
nothing run in between that may have changed the file. (A command that may
have written makes the change no one's known: nothing is said.)
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

PATH = "/work/app/notes.txt"
OUTSIDE = "changed outside the session too"
LOOKS = ["ls -la", "git status && git log --oneline -3", "cat notes.txt | head -20",
         "grep -n word notes.txt", "wc -l notes.txt && echo '---' && git diff --stat",
         "for f in *.txt; do echo \"$f ($(wc -l < \"$f\") lines)\"; done"]
MAY_WRITE = ["npm run format", "sed -i 's/a/b/' notes.txt", "python tools/gen.py",
             "git checkout notes.txt", "make", "ruff format ."]
STEPS = st.one_of(
    st.just(("edit",)), st.just(("write",)), st.just(("outside",)),
    st.sampled_from(LOOKS).map(lambda c: ("look", c)),
    st.sampled_from(MAY_WRITE).map(lambda c: ("may write", c)),
    st.just(("agent",)), st.just(("hook",)))


def _text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def _hook(t: Transcript, command: str) -> None:
    """A PostToolUse hook's run as Claude Code 2.x records it (a formatter)."""
    t.raw({"type": "attachment", "attachment": {
        "type": "hook_success", "hookName": "PostToolUse:Edit", "toolUseID": "toolu_hook",
        "hookEvent": "PostToolUse", "content": "", "stdout": "", "stderr": "", "exitCode": 0,
        "command": command}})


@settings(max_examples=examples(60, 300), deadline=None)
@given(first=st.integers(1, 8), steps=st.lists(STEPS, max_size=12))
def test_a_file_changed_between_the_sessions_changes_is_said_so(
        tmp_path_factory: Any, first: int, steps: list[tuple[str, ...]]) -> None:
    t = Transcript()
    t.prompt("write the notes, then keep them up to date")
    lines = [f"line {k}" for k in range(first)]
    t.write_file(PATH, _text(lines), text="File created successfully")
    made = count = 0
    planted = uncertain = expected = False  # since the session's last change
    for step in steps:
        kind = step[0]
        if kind == "outside":  # the user's editor: a line added, nothing in the transcript
            count += 1
            lines.append(f"outside {count}")
            planted = True
        elif kind in ("edit", "write"):
            before = _text(lines)
            made += 1
            if kind == "edit" and lines:
                old = lines[made % len(lines)]
                new = f"edited {made}"
                t.call("Edit", {"file_path": PATH, "old_string": old, "new_string": new},
                       {"filePath": PATH, "oldString": old, "newString": new,
                        "originalFile": before, "structuredPatch": [], "userModified": False,
                        "replaceAll": False}, "The file has been updated.")
                lines[lines.index(old)] = new
            else:
                lines = [*lines, f"written {made}"]
                t.write_file(PATH, _text(lines), before=before, text="File updated")
            expected = expected or (planted and not uncertain)
            planted = uncertain = False
        elif kind == "look":
            t.bash(step[1], "ok\n")
        elif kind == "may write":
            t.bash(step[1], "ok\n")
            uncertain = True
        elif kind == "agent":
            t.call("Task", {"description": "Tidy up", "prompt": "tidy", "subagent_type": "x"},
                   {"status": "completed", "content": [{"type": "text", "text": "Done."}]},
                   "Done.")
            uncertain = True
        elif kind == "hook" and made:  # (after a change of the session's: its hook)
            _hook(t, "npx prettier --write notes.txt")
            uncertain = True
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_file_changed_between_the_sessions_changes_is_said_so")
    row = next(x for x in note.splitlines() if re.match(r"^\| `notes\.txt` \|", x))
    assert (OUTSIDE in row) == expected, (row, steps)

