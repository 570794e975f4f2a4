"""Review 30 #9 (bb5159a3): a Write refused by a PreToolUse hook, then one
that made the file: the story said "Created `docs/git-ai-reference.md` (2
changes, +787 −0 in all)", counting the refused attempt as a change.

Generated attempts at one file, each made or refused (a hook's error, a
tool error, the user's refusal); the oracle is the plan: the story's lines
of the file count as many changes as attempts succeeded.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.render import render

PATH = "/work/app/notes.txt"


def _text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


REFUSALS = ["PreToolUse:Write hook error: [python3 hooks/check.py]: Security Warning: no",
            "<tool_use_error>File has not been read yet. Read it first before writing to it."
            "</tool_use_error>",
            "The user doesn't want to proceed with this tool use. The tool use was rejected."]


@settings(max_examples=examples(40, 200), deadline=None)
@given(attempts=st.lists(st.tuples(st.booleans(), st.sampled_from(REFUSALS)), min_size=1,
                         max_size=6))
def test_a_files_story_line_counts_the_changes_that_were_made(
        attempts: list[tuple[bool, str]]) -> None:
    t = Transcript()
    t.prompt("write the reference")
    lines: list[str] | None = None
    for k, (ok, refusal) in enumerate(attempts):
        new = [*(lines or []), f"part {k}"]
        if not ok:
            t.call("Write", {"file_path": PATH, "content": _text(new)}, None, refusal, error=True)
        elif lines is None:
            t.write_file(PATH, _text(new), text="File created successfully")
            lines = new
        else:
            t.write_file(PATH, _text(new), before=_text(lines), text="File updated",
                         patch=[{"oldStart": len(lines) + 1, "oldLines": 0,
                                 "newStart": len(lines) + 1, "newLines": 1,
                                 "lines": [f"+part {k}"]}])
            lines = new
    t.say("Done.")
    story = render(t.state()).split("## Story", 1)[1].split("\n## ", 1)[0]
    said = 0
    for line in story.splitlines():
        if "`notes.txt`" not in line or not line.startswith(("- Created", "- Edited")):
            continue
        m = re.search(r"\((\d+) changes, ", line)
        said += int(m.group(1)) if m else 1
    assert said == sum(1 for ok, _ in attempts if ok), (story, attempts)
