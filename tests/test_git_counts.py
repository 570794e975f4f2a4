"""The line counts a note shows agree with git's own and with what the tools
said (review 26, findings 2, 18, 19, 24, 25).

- An Edit of an empty old string that Claude Code answers "File created
  successfully at: …" made the file: "Created", "created", its lines exact.
- A file deleted that the session read whole loses all its lines; one never
  read is "?", and the headline gives git's count of the commit holding it.
- A file only committed (changed before the session) says what git made of
  it and shows git's own per-file count where its stat tells it.

Oracles: each file's contents are generated; the lines are counted here
(file_lines.net_lines, or difflib for what git is made to print), and the
git output the session shows is built by the test from them, never read back
from vv's own figures.
"""

from __future__ import annotations

import difflib
import re

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
contents_nonempty = contents.filter(lambda c: bool(c.strip()))


def _section(note: str, name: str) -> str:
    return note.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]



def files_part(head: str) -> str:
    """The headline from its files on: 7971a92 leads it with the session's
    commit, `Committed “<subject>” (+a −r in n files…)` and maybe `and N
    more (…)`, then a comma (test_headline_outcome checks that part)."""
    return re.sub(r"^Committed “[^”]*” \([^)]*\)(?: and \d+ more(?: \([^)]*\))?)?, ", "", head)


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


# -- git's count of files the session deleted or only committed -----------------------------

names = st.lists(st.sampled_from(["a.py", "b.py", "src/c.py", "src/d.txt", "lib/e.rs", "f.md"]),
                 min_size=1, max_size=5, unique=True)


def _lines_of(text: str) -> int:
    return len(text.splitlines())


def _diff(old: str, new: str) -> tuple[int, int]:
    """Lines inserted and deleted, as the oracle's own diff (difflib) counts them."""
    plus = minus = 0
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        plus += line.startswith("+ ")
        minus += line.startswith("- ")
    return plus, minus


def _total(files: int, plus: int, minus: int) -> str:
    """git's summary line: parts of 0 left out, singulars as git writes them."""
    out = f" {files} file{'s' if files != 1 else ''} changed"
    if plus or not minus:
        out += f", {plus} insertion{'s' if plus != 1 else ''}(+)"
    if minus:
        out += f", {minus} deletion{'s' if minus != 1 else ''}(-)"
    return out


def _stat(name: str, plus: int, minus: int, width: int) -> str:
    """A stat line; its bar scaled down to `width` marks when longer (as git
    does for a narrow terminal): then its split is not told by it."""
    marks = plus + minus
    if marks > width:
        p = max(1, plus * width // marks) if plus else 0
        plus_bar, minus_bar = "+" * p, "-" * (width - p if minus else 0)
    else:
        plus_bar, minus_bar = "+" * plus, "-" * minus
    return f" {name} | {marks} {plus_bar}{minus_bar}".rstrip()


def _read(t: Transcript, path: str, content: str) -> None:
    n = _lines_of(content)
    t.call("Read", {"file_path": path},
           {"type": "text", "file": {"filePath": path, "content": content, "numLines": n,
                                     "startLine": 1, "totalLines": n}},
           "\n".join(f"{k:6}→{x}" for k, x in enumerate(content.split("\n"), 1)))


def _rows(note: str) -> dict[str, tuple[str, str, str]]:
    if "\n## Files changed\n" not in note:
        return {}
    out = {}
    for line in _section(note, "Files changed").splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`"):
            out[cells[0].strip("`")] = (cells[1], cells[2], cells[3])
    return out


@settings(max_examples=examples(40, 200), deadline=None)
@given(gone=names, data=st.data(), sha=st.text("0123456789abcdef", min_size=7, max_size=7),
       how=st.sampled_from(["rm", "git rm"]), made_too=st.booleans(), extra=st.integers(0, 2))
def test_files_deleted_count_their_lines_and_git_counts_the_rest(
        gone: list[str], data: st.DataObject, sha: str, how: str, made_too: bool,
        extra: int) -> None:
    """The session deletes generated files, having read some of them whole,
    and makes one (or not); a commit of everything prints git's summary (the
    oracle's count), of `extra` files more than the session named (changed
    before it). A file read whole loses all its lines (exact); one never read
    is "?"; where any is "?", the headline gives git's count of the commit that
    holds it, and its own figures are the sum of the rows it knows. git's
    count says what it covers (review 28: 9e953218 read "+559 −596 … git
    counted +729 −10" as two counts of the same lines): "of them" where the
    commit holds only files whose lines are not known, else "in all the files
    of" it."""
    t = Transcript(cwd=CWD)
    t.prompt("port it")
    contents = {n: data.draw(contents_nonempty, label=n) for n in gone}
    read = {n for n in gone if data.draw(st.booleans(), label=f"read {n}")}
    for n in gone:
        if n in read:
            _read(t, f"{CWD}/{n}", contents[n])
    made = data.draw(contents_nonempty, label="made")
    if made_too:
        t.write_file(f"{CWD}/new.rs", made)
    t.bash(f"{how} " + " ".join(gone), "\n".join(f"rm '{n}'" for n in gone) if how == "git rm"
           else "")
    plus = _lines_of(made) if made_too else 0
    minus = sum(_lines_of(contents[n]) for n in gone)
    out = f"[main {sha}] Port it\n" + _total(len(gone) + made_too + extra, plus, minus) + "\n" + \
        "\n".join([*([" create mode 100644 new.rs"] if made_too else []),
                   *(f" delete mode 100644 {n}" for n in gone)])
    t.bash("git add -A && git commit -m 'Port it'", out)
    t.say("Done.")
    note = render(t.state())
    rows = _rows(note)
    for n in gone:
        change, a, r = rows[n]
        assert change.startswith("deleted by a command"), rows[n]
        assert (a, r) == (("0", str(_lines_of(contents[n]))) if n in read else ("?", "?")), (
            n, rows[n])
    if made_too:
        assert rows["new.rs"][1:] == (str(plus), "0")
    head = files_part(note.split("\n> ", 1)[1].split("\n", 1)[0])
    known_minus = sum(_lines_of(contents[n]) for n in read)
    unknown = len(gone) - len(read)
    changed = len(gone) + made_too
    # What git's count covers: the unknown files alone, or more.
    covers = "of them in" if unknown == changed and not extra else "in all the files of"
    counted = f"git counted +{plus} −{minus} {covers} commit `{sha}`)"
    # (one file is "1 file changed": a thorough draw of one file read whole, then rm'd)
    files = f"{changed} file{'s' * (changed != 1)} changed"
    if unknown == changed:
        assert head.startswith(f"{files} ({counted}"), head
    elif unknown:
        assert head.startswith(f"{files} (+{plus} −{known_minus}; lines of "
                               f"{unknown} not known; {counted}"), head
    else:
        assert head.startswith(f"{files} (+{plus} −{known_minus})"), head


@settings(max_examples=examples(40, 200), deadline=None)
@given(files=st.dictionaries(st.sampled_from(["a.json", ".entire/x.json", "src/b.py", "c.txt"]),
                             st.tuples(st.booleans(), contents, contents_nonempty),
                             min_size=1, max_size=4),
       width=st.sampled_from([3, 8, 60]), where=st.sampled_from(["commit", "pull"]),
       sha=st.text("0123456789abcdef", min_size=7, max_size=7))
def test_files_only_committed_show_gits_own_count(
        files: dict[str, tuple[bool, str, str]], width: int, where: str, sha: str) -> None:
    """Files changed before the session (new to git, or changed) that it only
    commits: each row says what git made of it, in words, and git's lines where
    its stat tells them (the bar not scaled, a file git made, or the one file
    left of the totals); else "?". The headline says how many were committed,
    with git's count when every row has one."""
    t = Transcript(cwd=CWD)
    t.prompt("commit my changes")
    counts = {n: _diff("" if new else old, now) for n, (new, old, now) in files.items()}
    plus = sum(a for a, _ in counts.values())
    minus = sum(r for _, r in counts.values())
    stat = [_stat(n, *counts[n], width) for n in sorted(files)]
    modes = [f" create mode 100644 {n}" for n in sorted(files) if files[n][0]]
    summary = _total(len(files), plus, minus)
    names_ = " ".join(sorted(files))
    if where == "commit":
        t.bash(f"git add {names_} && git commit --stat -m 'Add settings'",
               "\n".join([f"[feature {sha}] Add settings", *stat, summary, *modes]))
    else:
        t.bash(f"git add {names_} && git commit -m 'Add settings'",
               "\n".join([f"[feature {sha}] Add settings", summary, *modes]))
        t.bash("git checkout main && git pull origin main",
               "\n".join(["Updating 1111111..2222222", "Fast-forward", *stat, summary, *modes]))
    t.say("Done.")
    note = render(t.state())
    rows = _rows(note)
    # The oracle's own reading of the stat: which splits it tells.
    told = {}
    for n in files:
        a, r = counts[n]
        if a + r <= width or files[n][0]:
            told[n] = (a, r)
    left = [n for n in files if n not in told]
    if len(left) == 1:
        told[left[0]] = counts[left[0]]
    for n, (new, _old, _now) in files.items():
        change, a, r = rows[n]
        assert change.startswith("committed as it was (untracked before)" if new else
                                 "committed; changed outside this session's edits"), rows[n]
        assert "no change seen" not in change
        if n in told:
            assert (a, r) == tuple(map(str, told[n])), (n, rows[n], counts)
            assert change.endswith("lines: git's count"), rows[n]
        else:
            assert (a, r) == ("?", "?"), (n, rows[n])
    whole = note.split("\n> ", 1)[1].split("\n", 1)[0]
    head = files_part(whole)
    want = f"{len(files)} file{'s' if len(files) > 1 else ''} committed"
    if len(told) == len(files):
        want += f" (+{plus} −{minus}, git's count)"
    if head == whole:
        assert head.startswith(want), (head, want)
    else:  # (the commit that leads says it: "Committed “…” (+a −r in n files…)")
        n = f"{len(files)} file{'s' if len(files) > 1 else ''}"
        lead = whole[:len(whole) - len(head)]
        assert lead.startswith("Committed “") and n in lead, (whole, want)
        if len(told) == len(files) and (plus or minus):
            assert f"(+{plus} −{minus} in {n}" in lead, (whole, want)
        assert "files changed" not in head, (whole, want)


@settings(max_examples=examples(40, 200), deadline=None)
@given(own=st.lists(st.sampled_from(["a.py", "b.py", "src/c.py"]), max_size=3, unique=True),
       lib=st.lists(st.sampled_from(["d.py", "e.rs"]), max_size=2, unique=True),
       extra=st.tuples(st.integers(0, 2), st.integers(0, 2)), loose=st.booleans(),
       counts=st.tuples(st.integers(0, 99), st.integers(1, 99), st.integers(0, 99),
                        st.integers(1, 99)))
def test_gits_count_says_what_it_covers(own: list[str], lib: list[str], extra: tuple[int, int],
                                        loose: bool, counts: tuple[int, int, int, int]) -> None:
    """Files deleted unread (lines not known) in the session's repository and
    in a sibling one, each committed there with `extra` files git counts
    beyond them, and maybe one deleted after and never committed. The
    headline's git count is the holding commits' sum, said "of them" when
    they hold only such files, else "in all the files of" them, with how
    many of the files they hold when not all, and which commits are of the
    other repository (review 28: 9e953218)."""
    if not own and not lib:
        return
    t = Transcript(cwd=CWD)
    t.prompt("drop the generated files")
    holding: list[tuple[str, int, int, bool]] = []  # sha, +, −, of the sibling
    for k, (names_there, git, sibling) in enumerate(((own, "git", False),
                                                     (lib, "git -C ../lib", True))):
        if not names_there:
            continue
        sha = f"{k + 1}" * 7
        plus, minus = counts[2 * k], counts[2 * k + 1]
        t.bash("rm " + " ".join(("../lib/" if sibling else "") + x for x in names_there), "")
        t.bash(f"{git} add -A && {git} commit -m 'Drop {k}'",
               f"[main {sha}] Drop {k}\n" + _total(len(names_there) + extra[k], plus, minus)
               + "\n" + "\n".join(f" delete mode 100644 {x}" for x in names_there))
        holding.append((sha, plus, minus, sibling))
    if loose:
        t.bash("rm z.py", "")
    t.say("Done.")
    head = files_part(render(t.state()).split("\n> ", 1)[1].split("\n", 1)[0])
    changed = len(own) + len(lib) + loose
    exact = all(extra[k] == 0 for k, names_there in enumerate((own, lib)) if names_there)
    where = ("commit " if len(holding) == 1 else "commits ") + " and ".join(
        f"`{sha}`" for sha, _, _, _ in holding)
    some = f"{len(own) + len(lib)} of " if loose else ""
    figure = f"git counted +{sum(h[1] for h in holding)} −{sum(h[2] for h in holding)}"
    if exact:
        said = f"{figure} of {some}them in {where}"
    else:
        said = f"{figure} in all the files of {where}" + (f" holding {some}them" if some else "")
        if lib:
            said += " in lib" if not own else ", 1 of the commits in lib"
    assert head.startswith(f"{changed} file{'s' * (changed > 1)} changed ({said})"), (head, said)
