"""Files a shell command deleted, renamed or made are changed files (issue 29):
`rm`, `rm -r dir` (the files the session knows under it), `git rm`, `unlink`,
`mv`/`git mv`, and the files `cargo init`/`new`, `uv init`, `npm init` make.

Generated command lines (quoting, `&&` and `;` chains, a `cd` first, `git -C`)
are checked against a model of the files they act on, built by the test from
the operations it generated; the corpus against git's own output (`rm 'P'`
lines of `git rm`, `delete mode` and `create mode` lines of commits)."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, blocks, examples, frontmatter, main_files
from conftest import json_objects as objects
from file_lines import net_lines
from test_headlines import Transcript
from vibe_vault.document import document_of
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.fold.files import lines_mark, no_net_change
from vibe_vault.render import render
from vibe_vault.state import Fold

CWD = "/work/app"
NAMES = ["a.py", "b c.txt", "docs/guide.md", "docs/old/x.md", "src/m.rs", "README"]
body = st.lists(st.sampled_from(["alpha", "beta", "x = 1", "- step"]), min_size=1,
                max_size=5).map(lambda ws: "\n".join(ws) + "\n")


def _q(path: str, style: str) -> str:
    """A path as a command line holds it: bare (quoted when it has a space),
    in single quotes, in double quotes."""
    if style == "single" or (style == "plain" and " " in path):
        return "'" + path + "'"
    return '"' + path + '"' if style == "double" else path


# How the session comes to know a file before a command acts on it.
#   made:   a Write that created it (content known from nothing)
#   edited: an Edit whose result carries the file before (its first content known)
#   listed: a Glob that found it (known to be there; lines not known)
#   none:   not known at all
knowing = st.sampled_from(["made", "edited", "listed", "none"])
# What a command does to it.
acts = st.sampled_from(["rm", "rm -f", "git rm -q", "unlink", "rm -r folder", "rm -rf folder",
                        "git rm -r folder", "mv", "git mv", "keep"])
styles = st.sampled_from(["plain", "single", "double"])
ways = st.sampled_from(["abs", "rel", "cd", "git -C", "chain"])


@settings(max_examples=examples(40, 150), deadline=None)
@given(files=st.dictionaries(st.sampled_from(NAMES), st.tuples(knowing, body, body, acts, styles,
                                                               ways), min_size=1, max_size=4),
       data=st.data())
def test_deleted_and_renamed_files_are_changed_files(
        files: dict[str, tuple[str, str, str, str, str, str]], data: st.DataObject) -> None:
    """The model: each file known (or not) as generated, then one command acts
    on it. A file deleted is listed as "deleted by a command": its lines
    exact where its first content was known (all of it removed; a file the
    session made and deleted is no net change), else "?"; a folder's `rm -r`
    takes exactly the files the session knew under it; `rm -f` of a file not
    known, and any command that failed, tell nothing; a rename lists the new
    path "renamed from" the old, with the old path's figures."""
    t = Transcript(cwd=CWD)
    t.prompt("tidy up")
    listed: list[str] = []
    model: dict[str, dict[str, Any]] = {}  # abs path -> what the note must say
    for rel, (know, before, after, _act, _style, _way) in files.items():
        path = f"{CWD}/{rel}"
        if know == "made":
            t.write_file(path, after)
            model[path] = {"first": "", "now": after}
        elif know == "edited":
            t.call("Edit", {"file_path": path, "old_string": before, "new_string": after},
                   {"filePath": path, "oldString": before, "newString": after,
                    "originalFile": before, "structuredPatch": []}, "ok")
            model[path] = {"first": before, "now": after}
        elif know == "listed":
            listed.append(path)
    if listed:
        t.call("Glob", {"pattern": "**/*"}, {"filenames": listed, "numFiles": len(listed)},
               "\n".join(listed))
    known = set(model) | set(listed)
    gone_before: set[str] = set()
    for rel, (know, _b, _a, act, style, way) in files.items():
        path = f"{CWD}/{rel}"
        if act == "keep" or (path not in known and know != "none") or path in gone_before:
            continue  # (a file an earlier command took: a command on it would fail)
        folder = rel.rpartition("/")[0]
        tool = act.removesuffix(" folder")
        target = folder if act.endswith("folder") and folder else rel
        new_rel = "moved/" + rel.replace("/", "_") if act in ("mv", "git mv") else ""
        operands = [target] + ([new_rel] if new_rel else [])
        if way == "abs":
            command = f"{tool} " + " ".join(_q(f"{CWD}/{o}", style) for o in operands)
        elif way == "rel":
            command = f"{tool} " + " ".join(_q(o, style) for o in operands)
        elif way == "cd":
            command = f"cd {_q(CWD, style)} && {tool} " + " ".join(_q(o, style) for o in operands)
        elif way == "git -C" and tool.startswith("git "):
            command = f"git -C {_q(CWD, style)} {tool[4:]} " + " ".join(
                _q(o, style) for o in operands)
        else:
            command = f"echo start; {tool} " + " ".join(_q(o, style) for o in operands) + \
                " && echo done"
        if tool in ("mv", "git mv"):
            t.bash(f"mkdir -p {CWD}/moved")
        t.bash(command)
        # The model: what the command did, as far as the session can know it.
        gone: list[str] = []
        if " -r" in tool:  # the files known there, or under it
            top = f"{CWD}/{target}"
            gone = [p for p in known if p == top or p.startswith(top + "/")]
        elif tool == "rm -f":
            gone = [path] if path in known else []
        elif tool in ("mv", "git mv"):
            moved = model.pop(path, {"first": None, "now": None})
            model[f"{CWD}/{new_rel}"] = {**moved, "from": path}
            known.discard(path)
            known.add(f"{CWD}/{new_rel}")
            gone_before.add(path)
            continue
        else:
            gone = [path]
        for p in gone:
            entry = model.setdefault(p, {"first": None, "now": None})
            entry["gone"] = True
            known.discard(p)
            gone_before.add(p)
    # A failed command tells nothing.
    t.call("Bash", {"command": f"rm {CWD}/never-there.txt"}, None,
           "Exit code 1\nrm: cannot remove", error=True)
    t.say("Done.")
    state = t.state()
    # The fold law: read in two parts (a Stop between the commands), the same facts.
    lines = [decode_line(x) for x in t.encoded()]
    cut = data.draw(st.integers(0, len(lines)), label="cut")
    assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == state.fold
    facts = state.fold.files
    assert set(facts) == set(model), (set(facts) ^ set(model))
    for path, want in model.items():
        change = facts[path]  # type: ignore[index]
        if want.get("gone"):
            assert "deleted by a command" in change.ops, (path, change.ops)
            if want["first"] is None:
                assert lines_mark(change) == "?", (path, change)
            else:
                assert (change.added, change.removed) == net_lines(want["first"], ""), path
                assert lines_mark(change) == "" and no_net_change(change) == (
                    want["first"] == ""), path
        elif "from" in want:
            # (renamed from where it never was before the session: a file made)
            assert "renamed by a command" in change.ops
            assert change.moved_from == ("" if want["first"] == "" else want["from"])
            if want["first"] is not None:
                assert (change.added, change.removed) == net_lines(want["first"], want["now"])
    note = render(state)
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0] if model else ""
    for path, want in model.items():
        rel = path.removeprefix(CWD + "/")
        row = next(ln for ln in section.splitlines() if f"`{rel}`" in ln)
        if "from" in want and want["first"] != "":
            assert f"renamed from {want['from'].removeprefix(CWD + '/')}" in row, row
        if want.get("gone") and want["first"] is None:
            assert row.endswith("| ? | ? |"), row
    # `vv files` tells what happened in the note's words (review 22 #9): the
    # index's row of each file says it too.
    doc = document_of(msgspec.structs.replace(state, note="n.md"))  # (as if it had a note)
    assert doc is not None
    told = {row.path: row.change for row in doc.files}
    for path, want in model.items():
        if want.get("gone"):
            assert "deleted by a command" in told[path], (path, told)
        elif "from" in want and want["first"] != "":
            assert f"renamed from {want['from']} by a command" in told[path], (path, told)
            assert told[want["from"]] == f"renamed to {path} by a command", told
    fig = figures(state, RenderOptions())
    counted = [p for p, w in model.items()  # made and deleted, or edited to as it was: not
               if not (w.get("gone") and w["first"] == "") and not (
                   not w.get("gone") and "from" not in w and w["first"] == w["now"])]
    assert fig.changed_file_count == len(counted), (fig.changed_file_count, model)


@settings(max_examples=60, deadline=None)
@given(tool=st.sampled_from(["cargo init", "cargo init --lib", "cargo new app",
                             "cargo new --lib --vcs none app", "uv init", "uv init svc",
                             "npm init -y", "pnpm init", "npm init vite"]),
       cd=st.booleans(), edit=st.booleans(), later=body)
def test_files_a_scaffolding_command_makes_are_created(tool: str, cd: bool, edit: bool,
                                                       later: str) -> None:
    """`cargo init` makes Cargo.toml and src/main.rs (src/lib.rs with --lib),
    `cargo new dir` the same in dir, `uv init [dir]` pyproject.toml, `npm
    init` package.json (an initializer, `npm init vite`, makes what it makes:
    none told). Each is "created by a command", its lines not known ("?")
    until the session rewrites it; then they are the whole file's, exact."""
    words = tool.split()
    folder = next((w for w in words[2:] if not w.startswith("-") and w != "none"), "")
    lib = "--lib" in words
    expected = {
        "cargo": ["Cargo.toml", "src/lib.rs" if lib else "src/main.rs"],
        "uv": ["pyproject.toml"], "npm": ["package.json"], "pnpm": ["package.json"],
    }[words[0]] if words[-1] != "vite" else []
    expected = [f"{folder}/{e}" if folder else e for e in expected]
    t = Transcript(cwd=CWD)
    t.prompt("start the project")
    t.bash(f"cd {CWD}/pkg && {tool}" if cd else tool)
    base = f"{CWD}/pkg" if cd else CWD
    written = f"{base}/{expected[0]}" if expected and edit else ""
    if written:
        t.write_file(written, later, before="[package]\nname = \"x\"\n")
    t.say("Done.")
    files = t.state().fold.files
    assert set(files) == {f"{base}/{e}" for e in expected}
    for path, change in files.items():
        assert change.ops[0] == "created by a command"
        if path == written:
            assert (change.added, change.removed) == net_lines("", later)
            assert lines_mark(change) == ""
        else:
            assert lines_mark(change) == "?"


def test_vv_files_finds_a_deleted_file_marked_unknown(tmp_path: Path) -> None:
    """End to end: a session lists files, deletes them with `rm -r`, makes a
    crate with `cargo init`; `vv files` (as a process) finds the deleted file
    with "+? −?" and the note says deleted, and lines of how many are not known."""
    env = Env(tmp_path)
    sid = "5e551011-0000-4000-8000-000000000002"
    t = Transcript(sid=sid, cwd="/srv/app")
    t.prompt("port it")
    gone = ["/srv/app/tests/test_a.py", "/srv/app/tests/test_b.py"]
    t.call("Glob", {"pattern": "tests/*.py"}, {"filenames": gone, "numFiles": 2},
           "\n".join(gone))
    t.bash("rm -r /srv/app/tests/")
    t.bash("cargo init --lib")
    t.say("Done.")
    env.transcript(sid, t.encoded())
    assert env.vv("backfill").returncode == 0
    note = next(iter(env.notes().values()))
    # Lines of none of the four known: no figures said, not +0 −0.
    assert re.match(r"4 files changed(?! \()", str(frontmatter(note)["summary"])), note
    r = env.vv("files", gone[0])
    # What happened, as the note says it, not only "+? −?" (review 22 #9).
    assert r.returncode == 0 and f"{gone[0]} (deleted by a command) +? −?" in r.stdout.decode(), \
        r.stdout
    js = json.loads(env.vv("files", "--json", "/srv/app/Cargo.toml").stdout)
    assert [(o["lines"], o["change"]) for o in js] == [("unknown", "created by a command")]
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    assert "| `tests/test_a.py` | deleted by a command | ? | ? |" in section, section
    assert "| `Cargo.toml` | created by a command | ? | ? |" in section, section


# -- the corpus: git's own output ---------------------------------------------------------

_SCAFFOLD_FILES = {"cargo": ("Cargo.toml", "src/main.rs", "src/lib.rs"),
                   "uv": ("pyproject.toml",), "npm": ("package.json",)}


def _bash_runs(main: Path) -> list[tuple[str, str, bool]]:
    """(command, output, failed) of every Bash call of the main transcript, in order."""
    calls: dict[str, str] = {}
    out = []
    for o in objects(main):
        if o.get("isSidechain"):
            continue
        for b in blocks(o):
            if b.get("type") == "tool_use" and b.get("name") == "Bash":
                calls[str(b.get("id"))] = str((b.get("input") or {}).get("command"))
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                text = b.get("content")
                text = "".join(x.get("text", "") for x in text if isinstance(x, dict)) \
                    if isinstance(text, list) else str(text)
                out.append((calls.pop(str(b["tool_use_id"])), text, bool(b.get("is_error"))))
    return out


def _leading_cd(command: str, cwd: str) -> str:
    m = re.match(r"\s*cd\s+(\S+)\s*&&", command)
    return posixpath.join(cwd, m.group(1).strip("'\"")) if m else cwd


def git_says_the_session_changed(main: Path) -> dict[str, str]:
    """Files git's own output in the session says it deleted or made (path ->
    "deleted" or "created"): each file `git rm` reported removing (`rm 'P'`),
    each `delete mode` file of a commit that a plain `rm` of the session named
    (itself, or a folder over it with the file listed by a Glob of the
    session), each `create mode` file a scaffolding command of the
    session makes, and `.gitmodules` where a `git status` after a `git
    submodule add` lists it as staged."""
    wanted: dict[str, str] = {}
    objs = objects(main)
    cwd = next((str(o["cwd"]) for o in objs if o.get("cwd")), "")
    if cwd.startswith("/"):
        listed = {f for o in objs if isinstance(o.get("toolUseResult"), dict)
                  for f in (o["toolUseResult"].get("filenames") or []) if isinstance(f, str)}
        removed: set[str] = set()  # absolute paths a plain `rm` named, or files under them
        scaffolded: set[str] = set()
        submodules: set[str] = set()  # folders a `git submodule add` ran in
        for command, output, failed in _bash_runs(main):
            if failed:
                continue
            here = _leading_cd(command, cwd)
            if re.search(r"\bgit submodule add\b", command):
                submodules.add(here)
            elif here in submodules and output and re.search(r"\bgit status\b", command):
                # git's status after it: `.gitmodules` staged
                m = re.search(r"Changes to be committed:\n(.*?)(?:\n\n|\Z)", output, re.S)
                if m and re.search(r"(?m)^\t(?:new file|modified):\s+\.gitmodules$", m.group(1)):
                    wanted[posixpath.join(here, ".gitmodules")] = "written"
                submodules.discard(here)
            if re.search(r"\bgit rm\b", command):
                for rel in re.findall(r"(?m)^rm '([^']+)'$", output):
                    wanted[posixpath.join(here, rel)] = "deleted"
            for m in re.finditer(r"(?:^|&&|;)\s*rm\s+((?:-\w+\s+)*)([^;&|\n]+)", command):
                for operand in shlex.split(m.group(2)):
                    p = posixpath.normpath(posixpath.join(here, operand))
                    removed.add(p)
                    if "r" in m.group(1):
                        removed.update(f for f in listed if f.startswith(p.rstrip("/") + "/"))
            for tool in _SCAFFOLD_FILES:
                if re.search(rf"\b{tool} (?:init|new)\b(?! vite)", command):
                    scaffolded.update(posixpath.join(here, f) for f in _SCAFFOLD_FILES[tool])
            for rel in re.findall(r"(?m)^ delete mode \d+ (.+)$", output):
                p = posixpath.join(cwd, rel)
                if p in removed:
                    wanted[p] = "deleted"
            for rel in re.findall(r"(?m)^ create mode \d+ (.+)$", output):
                p = posixpath.join(cwd, rel)
                if p in scaffolded:
                    wanted[p] = "created"
    return wanted


@pytest.mark.corpus
def test_the_corpus_files_git_says_the_session_deleted_or_made(tmp_path: Path) -> None:
    """Every corpus session: each file git's output says the session deleted
    or made (`git_says_the_session_changed`) is in the note's Files changed,
    deleted or created (c7d3d95c: 14 `delete mode` lines, Cargo.toml and
    src/lib.rs made by `cargo init`)."""
    wanted: dict[str, dict[str, str]] = {}  # session id -> path -> "deleted"/"created"
    for main in main_files():
        sid = next((str(o["sessionId"]) for o in objects(main) if o.get("sessionId")), "")
        found = git_says_the_session_changed(main)
        if found:
            wanted[sid] = found
    assert sum(len(w) for w in wanted.values()) >= 20, wanted
    env = Env(tmp_path)
    for main in main_files():
        sid = next((str(o["sessionId"]) for o in objects(main) if o.get("sessionId")), "")
        if sid in wanted:
            assert env.vv("backfill", str(main)).returncode == 0
    notes = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    for sid, files in wanted.items():
        note = notes[sid]
        cwd = str(re.search(r"(?m)^cwd: \"?([^\"\n]+)", note).group(1))  # type: ignore[union-attr]
        section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
        for path, kind in files.items():
            rel = path.removeprefix(cwd.rstrip("/") + "/")
            row = next((ln for ln in section.splitlines() if f"| `{rel}` |" in ln), "")
            assert kind in row, (sid, rel, kind, row)
            # `vv files` says it too, in the same words (review 22 #9).
            r = env.vv("files", "--json", path)
            said = [o["change"] for o in json.loads(r.stdout) if o["session_id"] == sid]
            assert len(said) == 1 and kind in said[0], (sid, path, kind, said)
