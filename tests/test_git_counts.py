"""The line counts a note shows agree with git's own and with what the tools
said (review 26, findings 2, 18, 19, 24, 25).

- An Edit of an empty old string that Claude Code answers "File created
  successfully at: …" made the file: "Created", "created", its lines exact.

Oracles: each file's contents are generated; the lines are counted here
(file_lines.net_lines, a longest common subsequence of the lines), never
read back from vv's own figures.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from file_lines import net_lines
from test_headlines import Transcript
from vibe_vault.render import render

CWD = "/work/app"
word = st.sampled_from(["alpha", "beta", "gamma", "", "  x = 1", "}", "- step", "def f():"])
contents = st.builds(lambda lines, nl: "\n".join(lines) + ("\n" if nl else ""),
                     st.lists(word, min_size=1, max_size=12), st.booleans())


def _section(note: str, name: str) -> str:
    return note.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


@settings(max_examples=examples(30, 120), deadline=None)
@given(content=contents.filter(bool),  # (an empty new string: the client makes nothing)
       name=st.sampled_from(["a.py", "src/deco.py", "docs/x y.md"]),
       said=st.sampled_from(["File created successfully at: {}", "File created successfully"]))
def test_an_edit_that_made_the_file_is_a_creation(content: str, name: str, said: str) -> None:
    path = f"{CWD}/{name}"
    t = Transcript(cwd=CWD)
    t.prompt("write a decorator example")
    # (the hand-made 1.0 files: the result a string, no structured result)
    t.call("Edit", {"file_path": path, "old_string": "", "new_string": content},
           said.format(path), said.format(path))
    t.say("Done.")
    note = render(t.state())
    plus, minus = net_lines("", content)
    assert f"Created `{name}` (+{plus} −{minus})" in note, note
    row = next(ln for ln in _section(note, "Files changed").splitlines() if f"`{name}`" in ln)
    assert row == f"| `{name}` | created | {plus} | {minus} |", row
    assert "Edited" not in note


@settings(max_examples=examples(20, 60), deadline=None)
@given(before=contents, after=contents)
def test_an_edit_said_updated_is_no_creation(before: str, after: str) -> None:
    """The control: an Edit answered "has been updated" is an edit."""
    path = f"{CWD}/a.py"
    t = Transcript(cwd=CWD)
    t.prompt("change it")
    t.call("Edit", {"file_path": path, "old_string": before, "new_string": after},
           f"The file {path} has been updated successfully.",
           f"The file {path} has been updated successfully.")
    t.say("Done.")
    note = render(t.state())
    assert "Created `a.py`" not in note and "| created |" not in note
