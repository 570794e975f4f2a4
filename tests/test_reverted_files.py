"""A file the session changed and that its own later evidence shows back as
it was is told as reverted, with no net change, and counts in no total
(review 28 #17: 2d14de52 counted config.ts +12 −6 after the user reverted
it by hand; only `git diff --stat`, which listed every other changed file
and not it, showed that).

Claude modifies files in two folders (and may create one); the user then
reverts some of them outside Claude's tools (no line of the transcript
says so), or Claude does (`git checkout -- …`), or Claude reads one back
as it was. The evidence is drawn: `git status` (long, `-s`,
`--porcelain`), `git diff` (`--stat`, `--name-only`, `HEAD --name-status`),
`git checkout -- <paths>`, a Read. Controls where git's list does not say
it: a `git add` before the listing (the file may be absent for that), a
pipe that cuts the list, a file changed by something else in the list (it
may be another name of one of the session's).

Oracle: the files the test reverted and the lines it added to each (its
own contents); git's outputs are made from the files the test left
changed. The first case runs `vv backfill` (Transcript.note).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

CWD = "/work/app"
EVIDENCE = ["status", "status -s", "status --porcelain", "diff --stat", "diff --name-only",
            "diff HEAD --name-status", "checkout", "read"]
CONTROLS = ["", "", "", "add first", "piped", "other file"]


def _table(note: str) -> dict[str, tuple[str, str, str]]:
    """The Files changed table: each file's change, + and −, as shown."""
    if "\n## Files changed\n" not in note:
        return {}
    part = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in part.splitlines()[2:]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 5 and cells[1].startswith("`"):
            out[cells[1].strip("`")] = (cells[2], cells[3], cells[4])
    return out


@settings(max_examples=examples(20, 80), deadline=None)
@given(data=st.data(), evidence=st.sampled_from(EVIDENCE), control=st.sampled_from(CONTROLS),
       sizes=st.lists(st.integers(1, 3), min_size=2, max_size=2), made=st.booleans())
def test_files_shown_back_as_they_were_are_reverted_and_counted_nowhere(
        tmp_path_factory: Any, data: st.DataObject, evidence: str, control: str,
        sizes: list[int], made: bool) -> None:
    listing = evidence not in ("checkout", "read")
    assume(listing or control in ("", "add first"))
    names = [f"{folder}/m{k}.py" for folder, n in zip(("src", "docs"), sizes, strict=True)
             for k in range(n)]
    added = {name: data.draw(st.integers(1, 4)) for name in names}
    if listing:  # (a folder's reverted file beside one git still lists)
        reverted = [n for n in names if n[-4] != "0" and data.draw(st.booleans())]
    else:
        reverted = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    t = Transcript(cwd=CWD)
    t.prompt("tidy the modules")
    original = {name: "".join(f"{name} line {k}\n" for k in range(5)) for name in names}
    for name in names:
        t.write_file(f"{CWD}/{name}", original[name] + "".join(
            f"new {k}\n" for k in range(added[name])), before=original[name])
    if made:
        t.write_file(f"{CWD}/src/new.py", "print('new')\n")
    if control == "add first":
        t.bash("git add -A")
    t.prompt("I reverted some of it myself" if listing or evidence == "read" else
             "put those back")
    left = [n for n in names if n not in reverted or control == "add first"]
    if control == "other file":
        left.append("package-lock.json")
    if evidence.startswith("status"):
        if evidence == "status":
            out = "On branch main\n"
            if control == "add first":
                out += ("Changes to be committed:\n  (use \"git restore --staged <file>...\" "
                        "to unstage)\n" + "".join(f"\tmodified:   {n}\n" for n in left) +
                        ("\tnew file:   src/new.py\n" if made else ""))
            else:
                out += ("Changes not staged for commit:\n  (use \"git add <file>...\" to update "
                        "what will be committed)\n" + "".join(f"\tmodified:   {n}\n" for n in left))
                if made:
                    out += ("\nUntracked files:\n  (use \"git add <file>...\" to include in what "
                            "will be committed)\n\tsrc/new.py\n")
        else:
            mark = "M " if control == "add first" else " M"
            out = "".join(f"{mark} {n}\n" for n in left) + (
                ("A  src/new.py\n" if control == "add first" else "?? src/new.py\n")
                if made else "")
        t.bash(f"git {evidence}" + (" | head -3" if control == "piped" else ""),
               out if control != "piped" else "\n".join(out.splitlines()[:3]) + "\n")
    elif evidence.startswith("diff"):
        shown = [n for n in left if control != "add first"]  # (staged: not in `git diff`)
        if evidence == "diff --stat":
            ins = sum(added.get(n, 1) for n in shown)
            out = "".join(f" {n} | {added.get(n, 1)} {'+' * added.get(n, 1)}\n" for n in shown)
            out += f" {len(shown)} file{'s' if len(shown) != 1 else ''} changed, {ins} " \
                   f"insertion{'s' if ins != 1 else ''}(+)\n" if shown else ""
        elif evidence == "diff --name-only":
            out = "".join(f"{n}\n" for n in shown)
        else:
            shown = left
            out = "".join(f"M\t{n}\n" for n in shown)
        if control == "piped":
            t.bash(f"git {evidence} | head -1", "".join(out.splitlines(True)[:1]))
        else:
            t.bash(f"git {evidence}", out)
    elif evidence == "checkout":
        t.bash(f"git checkout -- {' '.join(reverted)}",
               f"Updated {len(reverted)} path{'s' if len(reverted) != 1 else ''} from the index\n")
    else:
        for name in reverted:
            lines = original[name].count("\n")
            t.call("Read", {"file_path": f"{CWD}/{name}"},
                   {"type": "text", "file": {"filePath": f"{CWD}/{name}",
                                             "content": original[name], "numLines": lines,
                                             "startLine": 1, "totalLines": lines}},
                   "".join(f"{k + 1:6}\u2192{x}\n" for k, x in
                           enumerate(original[name].splitlines())))
    t.say("Done.")
    note = t.note(tmp_path_factory, "reverted_files")
    rows = _table(note)
    # Told reverted: exactly the files the evidence shows back as they were.
    told = control == "" or (control == "add first" and not listing)
    if control == "add first" and not listing:
        told = evidence == "read"  # (`git checkout --` puts back the index's: the staged change)
    for name in names:
        change, plus, minus = rows[name]
        if name in reverted and told:
            assert "reverted" in change and "no net change" in change, (name, rows)
            assert (plus, minus) == ("0", "0"), (name, rows)
        else:
            assert "reverted" not in change, (name, rows, reverted, evidence, control)
            assert (plus, minus) == (str(added[name]), "0"), (name, rows)
    if made:
        assert "reverted" not in rows["src/new.py"][0], rows
    # The totals count what is left changed.
    counted = [n for n in names if not (n in reverted and told)]
    fm = frontmatter(note)
    assert fm["files_changed"] == len(counted) + made, (fm, counted)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    total = sum(added[n] for n in counted) + made
    m = re.search(r"(\d+) files? changed \(\+(\d+) −(\d+)\)", head)
    if not counted and not made:
        assert m is None and "No files changed" in head, head
    else:
        assert m and (int(m.group(1)), int(m.group(2))) == (len(counted) + made, total), head
