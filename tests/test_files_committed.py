"""What a note counts as files changed and as files only committed, alike in
its frontmatter, its summary and its Files changed table (review 27 #6:
10764452 read "3 files committed (+82 −9, git's count)" beside
`files_changed: 0`, so a Dataview or Bases query on its files missed it).

`files_changed` is the files the session's own tools changed; `files_committed`
the files a commit of the session holds that no tool of it changed (left out
at zero). The summary says each number; the table has one row per file.

Oracle: the generated session itself. Which files Claude wrote and which it
only committed are chosen by the test; git's output is built here from the
contents the test made (each file's lines, a `create mode` line for a new
one), never read back from vv's figures. The first case runs `vv backfill`
as a process and reads the note it wrote (Transcript.note).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

CWD = "/work/app"
NAMES = ["a.py", "src/b.py", "docs/c.md", ".entire/settings.json", "README.md", "d.txt"]


def _rows(note: str) -> list[str]:
    """The file names of the Files changed table, as shown."""
    if "\n## Files changed\n" not in note:
        return []
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    return [line.split("|")[1].strip().strip("`") for line in table.splitlines()[2:]
            if line.startswith("| `")]


def _files(k: int) -> str:
    return f"{k} file{'s' if k != 1 else ''}"


@settings(max_examples=examples(25, 100), deadline=None)
@given(data=st.data(), sha=st.text("0123456789abcdef", min_size=7, max_size=7))
def test_files_changed_and_files_committed_agree_everywhere(
        tmp_path_factory: Any, data: st.DataObject, sha: str) -> None:
    """Claude writes some new files (`own`), then one commit holds them and
    files it never touched (`only`: new to git, or changed before the
    session), git printing its count of them all."""
    chosen = data.draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    split = data.draw(st.integers(0, len(chosen)))
    own, only = chosen[:split], chosen[split:]
    lines = {name: data.draw(st.integers(1, 9)) for name in chosen}
    new = {name: data.draw(st.booleans()) for name in only}
    t = Transcript(cwd=CWD)
    t.prompt("write the module and commit everything")
    for name in own:
        t.write_file(f"{CWD}/{name}", "".join(f"line {k}\n" for k in range(lines[name])))
    inserted = sum(lines.values())
    modes = [f" create mode 100644 {name}" for name in sorted(chosen)
             if name in own or new[name]]
    t.bash(f"git add {' '.join(sorted(chosen))} && git commit -m 'Add the module'",
           "\n".join([f"[main {sha}] Add the module",
                      f" {_files(len(chosen))} changed, {inserted} insertion"
                      f"{'s' if inserted != 1 else ''}(+)", *modes]) + "\n")
    t.bash(f"git show --stat {sha}", "\n".join(
        [f"commit {sha}", "", "    Add the module", "",
         *(f" {name} | {lines[name]} {'+' * lines[name]}" for name in sorted(chosen)),
         f" {_files(len(chosen))} changed, {inserted} insertions(+)"]) + "\n")
    t.say("Committed.")
    note = t.note(tmp_path_factory, "files_committed")
    fm = frontmatter(note)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    assert fm["files_changed"] == len(own), (fm, own, only)
    assert fm.get("files_committed", 0) == len(only), (fm, own, only)  # left out at zero
    assert "files_committed" not in fm or only
    assert sorted(_rows(note)) == sorted(chosen), (_rows(note), chosen)
    # The commit leads, by its subject and git's count of it (issue 29); its
    # files are all those the session changed or only committed.
    lead = re.match(rf"Committed “Add the module” \(\+{inserted} −0 in {_files(len(chosen))}"
                    r"(?:, not pushed)?\)(?:, |\.(?: |$))", head)
    assert lead is not None, (head, chosen)
    rest = head[lead.end():]
    if own:
        assert rest.startswith(f"{_files(len(own))} changed"), head
        if only:
            assert f", {len(only)} other file{'s' if len(only) != 1 else ''} committed" in rest
        else:
            assert "committed" not in rest, head
    else:
        # (the commit's own count says them: "N files committed" would say it again)
        assert "committed" not in rest, head
    # (the frontmatter's summary is the headline's words: the same counts)
    assert str(fm["summary"]).split(", 1 commit")[0] == head.split(", 1 commit")[0], (fm, head)
