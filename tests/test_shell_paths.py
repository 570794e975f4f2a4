"""Review 31 F1, F2: the paths a command writes are read the way the shell
reads them, and the headline counts what is left of them.

F1: `cd ~/Projects/entire-sem && … cp /tmp/dbg_test.go internal/sem/zz_debug_test.go`
gave the path ` /internal/sem/zz_debug_test.go` (the `~` not read, the
folder taken as a control character), and the later `rm` of the same file
was not seen: a file made and deleted in the session was counted.
F2: `S=/private/tmp/claude-501/…/scratchpad … | tee $S/branch_sweep.txt`
became the project file `S/branch_sweep.txt`: a variable is its value where
the command line set it, and a path holding one whose value is not known
is no path at all.

Generated sessions: commands that move to a folder first (`cd ~/…`, `cd
$HOME/…`, `cd` to the absolute folder, `D=…` then `cd "$D"`), on one line
(`&&`) or several, with a here-document before, that write a file (`cp`,
`mv`, `>`, `tee`, `cat > f <<EOF`) at a path written relative, absolute,
under `~`, or under a variable the command set (or one it did not, or set
to a command's output); some are removed by a later command. The oracle is
the path as the shell resolves it and whether the file is there at the end,
from the drawn steps, not from vibe-vault."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

HOMES = ["/home/u", "/Users/dev"]
SID = "3d4e5f60-0000-4000-8000-0000000000f1"

# Where a command moves before it writes: how it is written, and the folder
# (relative to the home) it is.
moves = st.sampled_from(["none", "tilde", "home var", "absolute", "set var", "other"])
# How the written path is given.
spells = st.sampled_from(["relative", "absolute", "tilde", "var", "braced var"])
writers = st.sampled_from(["cp", "mv", "echo", "tee", "heredoc"])
names = st.sampled_from(["a.txt", "src/m.go", "docs/x y.md", "internal/sem/zz_debug_test.go"])
unknowns = st.sampled_from(["unset", "substituted", "loop"])


def _move(how: str, home: str) -> tuple[str, str]:
    """(the command's first part, the folder it leaves the shell in)."""
    app = f"{home}/work/app"
    if how == "tilde":
        return "cd ~/work/app && ", app
    if how == "home var":
        return 'cd "$HOME/work/app" && ', app
    if how == "absolute":
        return f"cd {app} && ", app
    if how == "set var":
        return "P=~/work/app\ncd \"$P\"\n", app
    if how == "other":
        return "cd ~/elsewhere && ", f"{home}/elsewhere"
    return "", app


def _spell(how: str, name: str, here: str, home: str) -> tuple[str, str, str]:
    """(what the command sets first, the path as written, the path it is)."""
    quoted = (lambda p: f'"{p}"') if " " in name else (lambda p: p)
    if how == "absolute":
        return "", quoted(f"{here}/{name}"), f"{here}/{name}"
    if how == "tilde" and here.startswith(home + "/"):
        rest = here[len(home) + 1:]
        return "", "~/" + quoted(f"{rest}/{name}"), f"{here}/{name}"
    if how in ("var", "braced var"):
        ref = "$D" if how == "var" else "${D}"
        return f"D={here}; ", quoted(f"{ref}/{name}"), f"{here}/{name}"
    return "", quoted(name), f"{here}/{name}"


def _write(writer: str, path: str) -> str:
    if writer == "cp":
        return f"cp /tmp/src.txt {path}"
    if writer == "mv":
        return f"mv /tmp/src.txt {path}"
    if writer == "echo":
        return f"echo hello > {path}"
    if writer == "tee":
        return f"printf 'x\\n' | tee {path} >/dev/null"
    return f"cat > {path} <<'EOF'\nline one\nline two\nEOF"


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Transcript, dict[str, bool], list[str], str]:
    """A session, the files it leaves (absolute path: there at the end), the
    names of variables whose value was not known, and the home."""
    home = draw(st.sampled_from(HOMES))
    cwd = f"{home}/work/app"
    t = Transcript(sid=SID, cwd=cwd)
    t.prompt("Try the change")
    files: dict[str, bool] = {}
    lost: list[str] = []
    for k in range(draw(st.integers(1, 4))):
        name = draw(names)
        start, here = _move(draw(moves), home)
        setting, written, path = _spell(draw(spells), name, here, home)
        writer = draw(writers)
        before = ""
        if draw(st.booleans()):  # a here-document before the write
            before = "cat > /tmp/src.txt <<'EOF'\npackage x\nEOF\n"
        sep = draw(st.sampled_from([" && ", "\n"]))
        command = start + before + setting + sep.join(
            [f'mkdir -p "{path.rsplit("/", 1)[0]}"', _write(writer, written)])
        if writer == "mv":
            # (mv needs its source: made first, on the same line)
            command = "echo seed > /tmp/src.txt && " + command
        t.bash(command, description=f"Step {k}")
        files[path] = True
        if draw(st.booleans()):
            # A variable whose value is not known: no path is made of it.
            how = draw(unknowns)
            var = f"Q{k}"
            first = {"unset": "", "substituted": f"{var}=$(mktemp -d)\n",
                     "loop": f"for {var} in a b; do true; done\n"}[how]
            t.bash(first + f"echo x > ${var}/lost_{k}.txt && tee ${{{var}}}/tee_{k}.txt </dev/null",
                   description="Unknown folder")
            lost.append(var)
        if draw(st.booleans()):
            # Removed later, by a command that moves there its own way.
            start2, here2 = _move(draw(moves), home)
            if here2 == here:
                _, gone, _ = _spell(draw(spells), name, here2, home)
                setting2 = "D=" + here2 + "; " if "D" in gone else ""
                t.bash(f"{start2}{setting2}rm {gone}", description="Clean up")
                files[path] = False
    t.say("Done.")
    return t, files, lost, cwd


def _rows(note: str) -> dict[str, str]:
    """The Files table: path as shown → its change's words."""
    table = note.split("## Files changed", 1)[1].split("\n## ", 1)[0] if \
        "## Files changed" in note else ""
    out = {}
    for line in table.splitlines():
        m = re.match(r"^\| `([^`]*)` \| ([^|]*) \|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _commands(t: Transcript) -> list[str]:
    return [b["input"].get("command", b["name"]) for o in t.lines
            for b in (o.get("message") or {}).get("content") or []
            if isinstance(b, dict) and b.get("type") == "tool_use"]


def _shown(path: str, cwd: str) -> str:
    return path[len(cwd) + 1:] if path.startswith(cwd + "/") else path


@settings(max_examples=examples(40, 200), deadline=None)
@given(sessions())
def test_a_commands_paths_are_the_shells_and_what_is_gone_is_not_counted(
        tmp_path_factory: Any, drawn: tuple[Transcript, dict[str, bool], list[str], str]) -> None:
    t, files, lost, cwd = drawn
    note = t.note(tmp_path_factory, "test_a_commands_paths_are_the_shells")
    rows = _rows(note)
    summary = next(line for line in note.splitlines() if line.startswith("summary:"))
    for path, there in files.items():
        shown = _shown(path, cwd)
        if there:
            assert shown in rows, (shown, rows, _commands(t))
            assert "no net change" not in rows[shown], (rows[shown], _commands(t))
        elif shown in rows:
            # Made and deleted in the session: said so, never counted.
            assert "no net change" in rows[shown], (shown, rows[shown], _commands(t))
    for shown in rows:
        # No path made of a folder not known (` /x`), a variable's name
        # (`S/x`, `$S/x`) or an unread `~`.
        assert not shown.startswith((" ", "$", "~")) and "\0" not in shown, shown
        assert not any(shown.startswith(f"{var}/") or f"/{var}/" in shown for var in lost), \
            shown
        assert "lost_" not in shown and "tee_" not in shown, shown
    left = sum(1 for there in files.values() if there)
    m = re.search(r"(\d+) files? changed", summary)
    assert (int(m.group(1)) if m else 0) == left, (summary, files, rows, _commands(t))


SCRATCH = f"/tmp/claude-1000/-home-u-work-app/{SID}/scratchpad"


@settings(max_examples=examples(20, 100), deadline=None)
@given(st.sampled_from(["Edit", "Write", "tee", "redirect"]), st.booleans(),
       st.sampled_from(["nits", "try/wt"]), st.sampled_from(["S", "SCRATCH", "SP"]))
def test_claudes_scratchpad_is_scratch_even_where_a_commit_was_made(
        tmp_path_factory: Any, how: str, commit: bool, folder: str, var: str) -> None:
    """F2: fffff083 made a worktree in Claude's scratchpad, edited a file there
    and committed it: the file is scratch ("outside the project, not
    counted"), as a file a command writes there through a variable is."""
    t = Transcript(sid=SID, cwd="/home/u/work/app")
    t.prompt("Polish the follow-up")
    t.write_file("/home/u/work/app/src/main.go", "package main\n")
    tree = f"{SCRATCH}/{folder}"
    t.bash(f"git worktree add -b nits {tree} origin/main", description="Make a worktree")
    path = f"{tree}/internal/git.go"
    if how == "Edit":
        t.call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"},
               {"filePath": path, "oldString": "a", "newString": "b", "originalFile": "a\n",
                "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                     "lines": ["-a", "+b"]}]}, "ok")
    elif how == "Write":
        t.write_file(path, "package git\n")
    else:
        op = "| tee" if how == "tee" else ">"
        t.bash(f"{var}={tree}\nprintf 'package git\\n' {op} ${var}/internal/git.go",
               description="Note the status")
    if commit:
        t.bash(f'cd {tree} && git add -A && git commit -m "Polish"',
               "[nits 1a2b3c4] Polish\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_claudes_scratchpad_is_scratch")
    rows = _rows(note)
    shown = f"scratchpad/{folder}/internal/git.go"
    assert shown in rows, (rows, _commands(t))
    assert "scratch: Claude's scratchpad, outside the project, not counted" in rows[shown], \
        rows[shown]
    assert not any(p.startswith(f"{var}/") for p in rows), rows
    summary = next(line for line in note.splitlines() if line.startswith("summary:"))
    # The project's one file (src/main.go), never the scratchpad's.
    assert re.search(r"\b1 file changed", summary) and "scratchpad/" not in summary, summary


@settings(max_examples=examples(20, 100), deadline=None)
@given(st.lists(st.sampled_from(["a.h", "b.h", "c.c", "d.go"]), min_size=1, max_size=4,
                unique=True), st.sampled_from(["h", "c", "go"]), st.booleans())
def test_a_copy_of_a_pattern_copies_the_files_it_names(
        tmp_path_factory: Any, made: list[str], ext: str, known: bool) -> None:
    """3535d4da's `cp $SCRATCH/…/tree_sitter/*.h internal/…/tree_sitter/` gave
    a row (counted) for a file named `*.h`: the files the pattern names are
    copied, each, where the session knows them; else files copied into the
    folder, not named."""
    t = Transcript(sid=SID, cwd="/home/u/work/app")
    t.prompt("Vendor the headers")
    src = "/home/u/work/app/src" if known else "/tmp/vendor"
    if known:
        for name in made:
            t.write_file(f"{src}/{name}", f"// {name}\n")
    t.bash(f"mkdir -p vendored && cp {src}/*.{ext} vendored/", description="Copy them")
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_a_copy_of_a_pattern_copies_the_files_it_names")
    rows = _rows(note)
    assert not any("*" in p for p in rows), rows
    names = [n for n in made if n.endswith("." + ext)] if known else []
    for name in names:
        assert f"vendored/{name}" in rows, (name, rows)
    assert not any(p.startswith("vendored/") and p[9:] not in names for p in rows), rows
    if not names:
        assert "files copied into vendored by `cp`, not named" in note, rows
