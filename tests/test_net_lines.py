"""A file's lines are netted, not summed (issue 29, review 17 findings 1 and 11).

Where no result tells a change's content (a subagent file of Claude Code
2.1.114 has no `toolUseResult`), the file's content is still known from the
transcript: a Read shows it whole, a Write gives it, each Edit's strings put in
place give the next one, and a commit's `create mode` line says there was
nothing before a Write. The figures are the net lines between the first
content and the last, as `git diff` counts them; where git itself printed a
file's figures, they are those.

The generated tests replay each content in the test itself (Python's own
string replacement, then an LCS of the lines: tests/file_lines.py); the
corpus tests derive the same from every session's JSON, and from every count
git printed for a commit of one file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import blocks, examples, session_files
from conftest import json_objects as objects
from file_lines import net_lines
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold, fold_agent
from vibe_vault.state import AgentFold, Fold

PATH = "/work/app/notes.md"

word = st.sampled_from(["alpha", "beta", "gamma", "", "  x = 1", "}", "- step"])
contents = st.builds(lambda lines, nl: "\n".join(lines) + ("\n" if nl else ""),
                     st.lists(word, min_size=1, max_size=10), st.booleans())


def numbered(text: str, arrow: bool) -> str:
    """A Read's result as Claude Code shows a file: numbered lines ("12\\tline"
    in 2.1.1xx, "    12→line" before), the last newline an empty last line."""
    lines = text.split("\n")
    return "\n".join((f"{n:6}→{x}" if arrow else f"{n}\t{x}") for n, x in enumerate(lines, 1))


def whole_lines_edit(now: str, data: st.DataObject) -> tuple[str, str] | None:
    """An Edit of whole lines of `now` (its old string found there once), as
    Claude mostly makes them: from a line's start to a line's end, with or
    without the last newline; None when no span of `now` is found once."""
    lines = now.split("\n")
    spans = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines) + 1):
            old = "\n".join(lines[i:j])
            for cand in (old, old + "\n") if j < len(lines) else (old,):
                if cand and now.count(cand) == 1 and not cand.startswith("\n"):
                    spans.append(cand)
    if not spans:
        return None
    old = data.draw(st.sampled_from(spans), label="old")
    new = data.draw(contents, label="new")
    if old.endswith("\n") and not new.endswith("\n"):
        new += "\n"  # whole lines for whole lines
    return old, new


def ambiguous(old: str) -> bool:
    """An old string that may be found starting inside a line, overlapping
    where it is found whole (what follows one of its newlines is how it
    starts: "a\na" in "a\na\na"): the client replaces the first place, which
    lines alone cannot tell."""
    return any(c == "\n" and old.startswith(old[i + 1:]) for i, c in enumerate(old[:-1]))


def any_edit(now: str, data: st.DataObject) -> tuple[str, str] | None:
    """An Edit of any span of `now` found there once (inside a line too)."""
    i = data.draw(st.integers(0, max(len(now) - 1, 0)), label="from")
    j = data.draw(st.integers(i + 1, max(len(now), i + 1)), label="to")
    old = now[i:j]
    if not old or now.count(old) != 1:
        return None
    return old, data.draw(contents, label="new")


def fold_of(t: Transcript, agent: bool) -> Fold:
    lines = [decode_line(x) for x in t.encoded()]
    return fold_agent(AgentFold(), lines).work if agent else fold(Fold(), lines)


@settings(max_examples=examples(60, 300), deadline=None)
@given(data=st.data(), first=contents, start=st.sampled_from(["read", "read-arrow", "write"]),
       created=st.booleans(), agent=st.booleans(),
       steps=st.lists(st.sampled_from(["edit", "multi", "same", "back", "write", "any"]),
                      min_size=1, max_size=6))
def test_edits_without_results_count_the_net_lines_of_the_contents_they_make(
        data: st.DataObject, first: str, start: str, created: bool, agent: bool,
        steps: list[str]) -> None:
    """A file read whole (or written, then committed as a file git created)
    and then changed by Edits, MultiEdits and Writes whose results tell
    nothing (2.1.114's subagent files): rewritten with the same content,
    edited back and forth. Its figures are the net lines from the first
    content to the last, exact wherever every edit is of whole lines; an edit
    inside a line may leave them estimated, never a wrong exact figure."""
    t = Transcript()
    t.prompt("change the notes")
    if start == "write":
        t.call("Write", {"file_path": PATH, "content": first}, None, "ok")
        if created:
            t.bash("git add notes.md && git commit -m 'notes'",
                   "[main 1a2b3c4] notes\n 1 file changed, 1 insertion(+)\n"
                   " create mode 100644 notes.md\n")
        base = "" if created else None
    else:
        t.call("Read", {"file_path": PATH}, None, numbered(first, start == "read-arrow"))
        base = first
    now = first
    aligned = True
    history = [first]
    for step in steps:
        new = now
        if step == "same":
            t.call("Write", {"file_path": PATH, "content": now}, None, "ok")
        elif step == "write":
            new = data.draw(contents, label="written")
            t.call("Write", {"file_path": PATH, "content": new}, None, "ok")
        elif step == "back" and len(history) > 1 and history[-2] != now:
            # The whole file edited back to what it was before the last change.
            if now.count(now) == 1 and not now.startswith("\n"):
                new = history[-2]
                t.call("Edit", {"file_path": PATH, "old_string": now, "new_string": new}, None,
                       "ok")
                aligned = aligned and not ambiguous(now)
        elif step in ("edit", "multi", "any"):
            edits = []
            for _ in range(2 if step == "multi" else 1):
                e = (any_edit if step == "any" else whole_lines_edit)(new, data)
                if e is None:
                    break
                edits.append(e)
                aligned = aligned and not ambiguous(e[0])
                new = new.replace(e[0], e[1], 1)
            if not edits:
                continue
            if step == "any":
                aligned = False
            if step == "multi":
                t.call("MultiEdit", {"file_path": PATH, "edits": [
                    {"old_string": o, "new_string": n} for o, n in edits]}, None, "ok")
            else:
                t.call("Edit", {"file_path": PATH, "old_string": edits[0][0],
                                "new_string": edits[0][1]}, None, "ok")
        history.append(new)
        now = new
    f = fold_of(t, agent)
    change = f.files.get(PATH)  # type: ignore[call-overload]
    if change is None:
        assert start != "write" and all(h == first for h in history)
        return
    if base is not None and not change.estimated:
        assert (change.added, change.removed) == net_lines(base, now)
    if base is not None and aligned:
        assert not change.estimated, (base, now)
        assert (change.added, change.removed) == net_lines(base, now)
    if base is None:
        assert change.estimated  # what was there before the Write: not known
    # The fold law: read in two parts, the same facts.
    lines = [decode_line(x) for x in t.encoded()]
    cut = data.draw(st.integers(0, len(lines)), label="cut")
    if agent:
        whole = fold_agent(AgentFold(), lines)
        assert fold_agent(fold_agent(AgentFold(), lines[:cut]), lines[cut:]) == whole
    else:
        assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == fold(Fold(), lines)


# -- the corpus ----------------------------------------------------------------------------

from test_facts import (  # noqa: E402  (a corpus module: after the generated tests' imports)
    CORPUS,
    SESSIONS,
    corpus_home,  # noqa: F401  (the fixture `notes` reads)
    expected_sid,
    file_lines,
    notes,  # noqa: F401  (the module's fixture: the corpus backfilled once)
    result_text,
)

ROW = re.compile(r"^\| `(.+?)` \| [^|]* \| (≈?)(\d+|\?) \| (≈?)(\d+|\?) \|", re.M)
SUMMARY = re.compile(r"(?m)^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
                     r"(?:, (\d+) deletions?\(-\))?")


def table_rows(note: str) -> dict[str, tuple[str, str, str]]:
    """The Files changed table's rows: path -> (mark, added, removed)."""
    if "\n## Files changed\n" not in note:
        return {}
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    return {m.group(1).replace("\\`", "`"): (m.group(2) or m.group(4), m.group(3), m.group(5))
            for m in ROW.finditer(section)}


def row_of(path: str, rows: dict[str, Any]) -> str | None:
    """The table's row a transcript's path is shown by (the repository's path
    it ends with, the longest: a worktree's copy is the repository's file)."""
    p = path.replace("\\", "/")
    found = [r for r in rows if p == r or p.endswith("/" + r)]
    return max(found, key=len) if found else None


def resultless(main: Path) -> set[str]:
    """Paths changed by tool calls whose results tell nothing of the content
    (no `toolUseResult`: 2.1.114's subagent files)."""
    out: set[str] = set()
    for path in [main, *session_files(main)]:
        calls: dict[str, dict[str, Any]] = {}
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") in ("Write", "Edit", "MultiEdit"):
                    calls[str(b.get("id"))] = b
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                        and "toolUseResult" not in o and not b.get("is_error"):
                    out.add(str(calls[str(b["tool_use_id"])]["input"].get("file_path")))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_file_whose_contents_the_json_tells_shows_its_net_lines(
        notes: dict[str, str], main: Path) -> None:  # noqa: F811
    """Each row of a note's Files table whose contents the JSON tells, first
    and last (file_lines: replayed from results, Reads, Writes and the edits'
    strings): shown exact, the figures are the net lines between them; those
    changed without results are shown exact."""
    rows = table_rows(notes[str(expected_sid(main))])
    totals = file_lines(main)
    by_row: dict[str, list[str]] = {}
    for where in totals:
        row = row_of(where, rows)
        if row is not None:
            by_row.setdefault(row, []).append(where)
    bare = resultless(main)
    for row, paths in by_row.items():
        mark, added, removed = rows[row]
        if not all(totals[p][2] for p in paths):
            continue  # not told by the JSON: checked as an estimate in test_facts
        want = (str(sum(totals[p][0] for p in paths)), str(sum(totals[p][1] for p in paths)))
        if not mark:
            assert (added, removed) == want, (row, paths)
        if any(p in bare for p in paths):
            assert (mark, added, removed) == ("", *want), (row, paths)


def _commits_of_one_file(path: Path) -> list[tuple[int, str, int, int, bool]]:
    """Each commit git printed of one file in a transcript file: (entry
    number, the file as git or the command's `git add` named it, insertions,
    deletions, whether git says it created it)."""
    out = []
    calls: dict[str, str] = {}
    for n, o in enumerate(objects(path)):
        for b in blocks(o):
            if b.get("type") == "tool_use" and b.get("name") == "Bash":
                calls[str(b.get("id"))] = str((b.get("input") or {}).get("command") or "")
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                    and not b.get("is_error"):
                command = calls.pop(str(b["tool_use_id"]))
                text = result_text(o, b)
                if not re.search(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? [0-9a-f]{7,40}\] ", text):
                    continue
                m = SUMMARY.search(text)
                if not m or m.group(1) != "1":
                    continue
                created = re.findall(r"(?m)^ create mode \d+ (.+)$", text)
                stat = re.findall(r"(?m)^ (\S.*?)\s+\|\s+\d+", text)
                added = re.findall(r"\bgit(?:\s+-C\s+\S+)?\s+add\s+([^\s;&|-][^\s;&|]*)"
                                   r"\s*(?:&&|;|$)", command)
                named = created or stat or (added if len(added) == 1 else [])
                if len(named) == 1:
                    out.append((n, named[0].strip(), int(m.group(2) or 0), int(m.group(3) or 0),
                                bool(created)))
    return out


def _changes(path: Path) -> list[tuple[int, str]]:
    """(entry number, file) of each change the tools made in a transcript file."""
    out = []
    calls: dict[str, dict[str, Any]] = {}
    for n, o in enumerate(objects(path)):
        for b in blocks(o):
            if b.get("type") == "tool_use" and b.get("name") in ("Write", "Edit", "MultiEdit",
                                                                 "Bash"):
                calls[str(b.get("id"))] = b
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                    and not b.get("is_error"):
                call = calls.pop(str(b["tool_use_id"]))
                inp = call.get("input") or {}
                if call["name"] == "Bash":
                    for m in re.finditer(r"(?:>|\btee(?:\s+-a)?)\s*([^\s<>;&|]+)\s*<<",
                                         str(inp.get("command"))):
                        out.append((n, m.group(1)))
                else:
                    out.append((n, str(inp.get("file_path"))))
    return out


def git_counted(main: Path) -> dict[str, tuple[int, int]]:
    """Files whose net lines git printed, by the repository's path: every
    change the session made to the file (in any of its transcript files) is
    followed, in the same file, by a commit of that one file, with no change
    after it; the first commit says git created it (nothing was there before),
    each later one counts from the one before. Their insertions and
    deletions, summed."""
    commits: list[tuple[str, int, str, int, int, bool]] = []
    changes: list[tuple[str, int, str]] = []
    for path in [main, *session_files(main)]:
        commits += [(path.name, *c) for c in _commits_of_one_file(path)]
        changes += [(path.name, *c) for c in _changes(path)]
    out: dict[str, tuple[int, int]] = {}
    for name in {c[2] for c in commits}:
        def same(p: str, name: str = name) -> bool:
            p = p.replace("\\", "/")
            return p == name or p.endswith("/" + name)
        mine = [c for c in commits if same(c[2])]
        touched = [c for c in changes if same(c[2])]
        if not mine or not touched or not any(c[5] for c in mine):
            continue
        files = {c[0] for c in touched}
        ok = all(any(c[0] == f and c[1] > max(t[1] for t in touched if t[0] == f)
                     for c in mine) for f in files)
        # each commit holds changes of its own transcript, made since its commit before
        ok = ok and all(any(t[0] == c[0] and t[1] < c[1] and not any(
            d[0] == c[0] and t[1] < d[1] < c[1] for d in mine) for t in touched) for c in mine)
        if ok and sum(c[5] for c in mine) == 1:
            out[name] = (sum(c[3] for c in mine), sum(c[4] for c in mine))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_files_lines_are_those_git_printed_for_its_commits(
        notes: dict[str, str], main: Path) -> None:  # noqa: F811
    """Where git printed a file's count (`1 file changed, 65 insertions(+)`)
    for every change the session made to it, the note shows those figures,
    exact."""
    rows = table_rows(notes[str(expected_sid(main))])
    for name, (added, removed) in git_counted(main).items():
        row = row_of(name, rows) or next((r for r in rows if r.endswith("/" + name)), None)
        assert row is not None, name
        assert rows[row] == ("", str(added), str(removed)), (row, rows[row], added, removed)


@pytest.mark.corpus
def test_the_corpus_has_files_counted_by_git_and_changed_without_results() -> None:
    """The two corpus tests above have cases to check."""
    counted = sum(len(git_counted(m)) for m in SESSIONS)
    bare = sum(len(resultless(m)) for m in SESSIONS)
    assert counted >= 3 and bare >= 3, (counted, bare)
