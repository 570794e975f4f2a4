"""Files written by shell commands other than a redirection (issue 29): copies
(`cp`, `install`, `rsync -v`), formatters and fixers (`ruff format`, `black`,
`isort`, `prettier --write`, `go fmt`, `gofmt -l -w`, `cargo fmt`, `eslint
--fix`, `ruff check --fix`), and deletions whose command line's exit status
is not their own (`rm f || true`, `rm f; ls`) or that only stop tracking a
file (`git rm --cached`).

Each test generates the commands (paths with spaces, unicode and quotes,
chains with `&&`, `||`, `;`, a newline) and what they printed, and checks
the note against a model the test builds from what it generated: which files
a command really wrote or removed, and what its output says of them."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, blocks, examples, frontmatter, main_files
from conftest import json_objects as objects
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.fold.files import lines_mark
from vibe_vault.render import render
from vibe_vault.state import Fold

CWD = "/work/app"
# File names as people make them: spaces, accents, quotes (never `$`, `*`, `~`:
# a name a command line cannot hold as written is not one to place).
_NAME_CHARS = st.sampled_from([*"abcxyz019_-", " ", "é", "ü", "ß", "'", '"', "日"])
stem = st.text(_NAME_CHARS, min_size=1, max_size=8).filter(
    lambda s: not s.startswith("-") and s.strip() == s and s not in (".", "..")
    and "  " not in s)  # (a path's runs of spaces are one in the note, wherever it comes from)
names = st.tuples(st.sampled_from(["", "src/", "docs/é x/"]), stem,
                  st.sampled_from([".py", ".txt", ".rs", ".md"])).map("".join)
quoting = st.sampled_from(["shlex", "double"])


def q(path: str, style: str) -> str:
    """A path as a command line holds it: shell-quoted (single quotes), or in
    double quotes (backslash before `"` and `\\`)."""
    if style == "double":
        return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return shlex.quote(path)


def _bash(t: Transcript, command: str, out: str = "", err: str = "", code: int = 0) -> None:
    """A Bash call and its result as Claude Code writes it: the content holds
    stdout and stderr (an error's, after "Exit code N")."""
    text = "\n".join(x for x in (out, err) if x)
    if code:
        t.call("Bash", {"command": command}, f"Error: Exit code {code}\n{text}",
               f"Exit code {code}\n{text}", error=True)
    else:
        t.call("Bash", {"command": command},
               {"stdout": out, "stderr": err, "interrupted": False}, text)


def _rows(note: str) -> dict[str, str]:
    """The Files changed table's rows, by the file shown (its first cell)."""
    if "\n## Files changed\n" not in note:
        return {}
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines()[2:]:
        m = re.match(r"^\| `(.+?)` \| (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
        elif line.startswith("| *"):
            out[line] = line
    return out


def _fold_law(t: Transcript, cut: int) -> None:
    lines = [decode_line(x) for x in t.encoded()]
    cut = min(cut, len(lines))
    assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == fold(Fold(), lines)


# -- copies -----------------------------------------------------------------------------

copy_forms = st.sampled_from(["cp", "cp -v", "install -m 644", "cp into", "cp -t", "rsync -v"])
joins = st.sampled_from(["alone", "&& after", "&& before", "newline before"])


@settings(max_examples=examples(40, 120), deadline=None)
@given(copies=st.lists(st.tuples(names, names, copy_forms, quoting, st.booleans(), joins),
                       min_size=1, max_size=4, unique_by=lambda c: (c[0], c[1])).filter(
           lambda cs: all(c[0] != c[1] for c in cs)),
       cut=st.integers(0, 40))
def test_a_file_a_command_copies_is_a_changed_file(
        copies: list[tuple[str, str, str, str, bool, str]], cut: int) -> None:
    """The model: each copy writes its target (the target path, or the source's
    name in the folder it names); the session knows the source's content when
    it wrote it first, and then the copy's lines are that content's: exact
    when the session made the target itself (a Write) before, so that it knows
    what the file held first and last, else estimated ("≈"). A copy of lines
    not known leaves "?" where the session never knew the target's lines, and
    its lines estimated where it did. `rsync -v` and `cp -v` name what they
    wrote, relative to the target or as `'a' -> 'b'`."""
    t = Transcript(cwd=CWD)
    t.prompt("copy things")
    want: dict[str, str | None] = {}  # target (relative) -> its content when known
    contents: dict[str, str] = {}
    made: set[str] = set()  # the files the session wrote (a Write made them)
    had_lines: set[str] = set()  # the files whose lines the session has known
    lines_before: dict[str, bool] = {}  # target -> whether it had, before its last copy
    for i, (src, dst, form, style, known, join) in enumerate(copies):
        if known and src not in want:
            body = f"line {i}\n" * (i + 1)
            t.write_file(f"{CWD}/{src}", body)
            contents[src] = body
            made.add(src)
            had_lines.add(src)
        folder = "out dir"
        into = form in ("cp into", "cp -t", "rsync -v")
        target = f"{folder}/{src.rpartition('/')[2]}" if into else dst
        if form == "cp into":
            command = f"cp {q(src, style)} {q(folder + '/', style)}"
        elif form == "cp -t":
            command = f"cp -t {q(folder, style)} {q(src, style)}"
        elif form == "rsync -v":
            command = f"rsync -v {q(src, style)} {q(folder + '/', style)}"
        else:
            command = f"{form} {q(src, style)} {q(dst, style)}"
        out = ""
        if form == "cp -v":  # (BSD cp prints the names bare; GNU cp quotes them)
            out = f"{src} -> {dst}" if "'" in src + dst else f"'{src}' -> '{dst}'"
        elif form == "rsync -v":
            out = (f"sending incremental file list\n{src.rpartition('/')[2]}\n\n"
                   "sent 120 bytes  received 35 bytes  310.00 bytes/sec\n"
                   "total size is 12  speedup is 0.08")
        if join == "&& after":
            command += " && git add -A"
        elif join == "&& before":
            command = "mkdir -p " + q(folder, style) + " && " + command
        elif join == "newline before":
            command = "echo copying\n" + command
            out = "copying\n" + out if out else "copying"
        _bash(t, command, out)
        want[target] = contents.get(src)
        lines_before[target] = target in had_lines
        if want[target] is not None:
            had_lines.add(target)
        contents.pop(target, None)
        if target != src and src in contents:
            contents[target] = contents[src]
    t.say("Copied.")
    _fold_law(t, cut)
    state = t.state()
    rows = _rows(render(state))
    for target, content in want.items():
        row = rows.get(" ".join(target.split(" ")).replace("  ", " "))
        row = row or next((r for k, r in rows.items() if k.split() == target.split()), None)
        assert row is not None and "copied by a command" in row, (target, rows)
        change = state.fold.files[f"{CWD}/{target}"]  # type: ignore[index]
        if content is None:
            assert lines_mark(change) == ("≈" if lines_before[target] else "?"), (target, change)
        else:
            assert change.added == content.count("\n"), change
            assert lines_mark(change) == ("" if target in made else "≈"), (target, change)
    # (a source written twice is one file; one a later copy overwrote is among the targets)
    assert figures(state, RenderOptions()).changed_file_count == len(set(want) | made)


def test_a_copy_whose_target_may_be_a_folder_is_not_told() -> None:
    """`cp x.py build`: build may be a folder (x.py lands in it) or a new file:
    neither is claimed. `cp -r src dst` (no -v): its files are not named, and
    the note says so instead of leaving them out unsaid."""
    t = Transcript(cwd=CWD)
    t.prompt("copy")
    _bash(t, "cp x.py build")
    _bash(t, "cp -r src 'the dst'")
    t.say("Done.")
    state = t.state()
    assert not state.fold.files
    note = render(state)
    assert "| *files copied into the dst by `cp -r`, not named* | | ? | ? |" in note, note


# -- formatters -------------------------------------------------------------------------

# How each formatter's output tells the files it rewrote: "names" (one a line,
# written as the test writes them here), "count", or "" (nothing).
FORMATTERS: dict[str, tuple[str, str]] = {
    # command: (label in the note, how its output tells)
    "black .": ("black", "names"),
    "uv run black src": ("black", "names"),
    "isort .": ("isort", "names"),
    "ruff format": ("ruff format", "count"),
    "uv run ruff format .": ("ruff format", "count"),
    "ruff check --fix": ("ruff check --fix", "fixes"),
    "npx prettier --write .": ("prettier --write", "names"),
    "go fmt ./...": ("go fmt", "names"),
    "gofmt -l -w .": ("gofmt -w", "names"),
    "cargo fmt": ("cargo fmt", ""),
    "eslint --fix src": ("eslint --fix", ""),
}
CHECKS = {"ruff format": ("ruff format --check", "Would reformat: {}"),
          "cargo fmt": ("cargo fmt --check", "Diff in " + CWD + "/{}:12:")}


def _printed(command: str, changed: list[str], left: list[str]) -> str:
    """What the formatter prints when it rewrote `changed` and left `left`."""
    if command.startswith(("black", "uv run black")):
        return "\n".join([f"reformatted {p}" for p in changed] + [
            "", "All done! ✨ 🍰 ✨",
            f"{len(changed)} file{'s' if len(changed) != 1 else ''} reformatted, "
            f"{len(left)} files left unchanged."])
    if command.startswith("isort"):
        return "\n".join(f"Fixing {CWD}/{p}" for p in changed)
    if "ruff format" in command:
        return (f"{len(changed)} file{'s' if len(changed) != 1 else ''} reformatted, "
                f"{len(left)} files left unchanged")
    if command.startswith("ruff check"):
        return (f"Found {len(changed) * 2} errors ({len(changed) * 2} fixed, 0 remaining)."
                if changed else "All checks passed!")
    if "prettier" in command:
        return "\n".join([f"{p} 12ms" for p in changed] + [f"{p} 3ms (unchanged)" for p in left])
    if command.startswith(("go fmt", "gofmt")):
        return "\n".join(changed)
    return ""


@settings(max_examples=examples(50, 150), deadline=None)
@given(command=st.sampled_from(sorted(FORMATTERS)),
       files=st.lists(st.tuples(names, st.booleans()), min_size=1, max_size=5,
                      unique_by=lambda f: f[0]),
       checked=st.booleans(), check_agrees=st.booleans(),
       join=st.sampled_from(["alone", "&& after", "; after", "|| true", "cd first",
                             "mise task", "npm script"]),
       cut=st.integers(0, 20))
def test_files_a_formatter_rewrote_are_changed_files(
        command: str, files: list[tuple[str, bool]], checked: bool, check_agrees: bool,
        join: str, cut: int) -> None:
    """The model: the formatter rewrote the files generated as changed (those
    with a `True`), and printed what it prints. Files it names are
    "reformatted by <label>" (lines "?"), those it left are not listed; one
    that only says how many names none, and the note says how many were
    reformatted by it, not named; one that says nothing, that it may have
    reformatted files it does not name. The same where a task runner ran it
    (`mise run fmt`, `npm run fmt`), which printed the command it ran. A check run of it just before that
    named exactly the files it then rewrote (as many as it says, or it says
    no number) names them. Never a file it did not change."""
    ext = ".go" if command.startswith(("go ", "gofmt")) else ".rs" if "cargo" in command else ""
    files = [(p.rpartition(".")[0] + ext if ext else p, c) for p, c in files]
    files = list(dict(files).items())
    changed = [p for p, c in files if c]
    left = [p for p, c in files if not c]
    label, tells = FORMATTERS[command]
    if label == "prettier --write" and not left:
        # Prettier 3 marks a file it left "(unchanged)"; prettier 2 lists every
        # file alike: without a mark the lines do not say which it changed.
        tells = ""
    t = Transcript(cwd=CWD)
    t.prompt("format it")
    check = CHECKS.get(label)
    if checked and check:
        # (a formatter that prints nothing rewrites what its check just named:
        # a check naming other files is a formatter that says how many)
        named = changed if check_agrees or not tells else changed + left[:1]
        _bash(t, check[0], "\n".join(check[1].format(p) for p in named), code=1 if named else 0)
    else:
        named = []
    line = command
    if join == "&& after":
        line += " && git status --short"
    elif join == "; after":
        line += "; echo formatted"
    elif join == "|| true":
        line += " || true"
    elif join == "cd first":
        line = f"cd {q(CWD, 'shlex')} && {line}"
    out = _printed(command, changed, left)
    if join == "mise task":
        # A task runner ran it: the command line names no formatter; what it
        # printed does (mise: `[fmt] $ cmd`, each line then after `[fmt] `).
        line = "mise run fmt"
        out = "\n".join(["[fmt] $ " + command, *("[fmt] " + x for x in out.splitlines()),
                         "Finished in 1.2s"])
    elif join == "npm script":
        line = "npm run fmt"
        out = f"\n> app@1.0.0 fmt\n> {command}\n\n{out}"
    if join == "; after":
        out = (out + "\n" if out else "") + "formatted"
    _bash(t, line, out)
    t.say("Formatted.")
    _fold_law(t, cut)
    state = t.state()
    files_now = {str(p).removeprefix(CWD + "/") for p in state.fold.files}
    rows = _rows(render(state))
    op = ("fixed by " if "fix" in label else "reformatted by ") + label
    if tells == "names":
        assert files_now == set(changed), (files_now, changed)
    elif named and set(named) == set(changed) and (
            tells == "" or (tells == "count" and len(named) == len(changed))) and changed:
        assert files_now == set(changed), (files_now, changed, named)
    else:
        assert not files_now, files_now
        unnamed = [r for r in rows if r.startswith("| *")]
        if tells == "count" and changed:
            assert unnamed == [f"| *{len(changed)} file{'s' if len(changed) > 1 else ''} "
                               f"reformatted by `{label}`, not named* | | ? | ? |"], rows
        elif tells == "fixes" and changed:
            assert unnamed == [f"| *files fixed by `{label}` ({len(changed) * 2} fixes), "
                               f"not named* | | ? | ? |"], rows
        elif tells == "" and "fix" in label:
            assert unnamed == [f"| *files fixed by `{label}`, not named* | | ? | ? |"], rows
        elif tells == "":
            assert unnamed == [f"| *files reformatted, if any, by `{label}`, not named* "
                               "| | ? | ? |"], rows
        else:
            assert not unnamed and not rows, rows
    for p in files_now:
        assert rows[p].startswith(op) and rows[p].endswith("| ? | ? |"), rows[p]
    summary = figures(state, RenderOptions()).summary
    if tells == "count" and changed and not files_now:
        assert f"{len(changed)} file{'s' if len(changed) > 1 else ''} reformatted by " \
               f"{label}, not named" in summary, summary
    if not files_now and (changed or tells == ""):
        assert "no files changed" not in summary.lower(), summary


@pytest.mark.parametrize("command", ["ruff format --check", "ruff format --diff", "black --check .",
                                     "isort --check-only .", "prettier --check .",
                                     "cargo fmt --check", "cargo fmt -- --check",
                                     "eslint src", "ruff check .", "gofmt -l ."])
def test_a_check_changes_nothing(command: str) -> None:
    t = Transcript(cwd=CWD)
    t.prompt("check formatting")
    _bash(t, command, "Would reformat: a.py\nreformatted b.py\nc.go", code=1)
    _bash(t, command, "1 file reformatted\nc.go")
    t.say("Checked.")
    state = t.state()
    assert not state.fold.files and not state.fold.unnamed


# -- deletions that did not happen ------------------------------------------------------

rm_forms = st.sampled_from(["rm", "rm -f", "rm -v", "git rm -q", "git rm --cached", "unlink",
                            "git rm -r --cached", "mv"])
rm_joins = st.sampled_from(["alone", "&& after", "|| true", "; after", "newline after",
                            "2>/dev/null || true", "2>&1 | tail"])
dialects = st.sampled_from(["gnu", "bsd"])


def _rm_error(form: str, path: str, dialect: str, i: int) -> str:
    tool = form.split()[0]
    if tool == "git":
        return f"fatal: pathspec '{path}' did not match any files"
    if tool == "mv":
        return (f"mv: cannot stat '{path}': No such file or directory" if dialect == "gnu"
                else f"mv: rename {path} to moved-{i}.txt: No such file or directory")
    return (f"{tool}: cannot remove '{path}': No such file or directory" if dialect == "gnu"
            else f"{tool}: {path}: No such file or directory")


@settings(max_examples=examples(60, 200), deadline=None)
@given(cases=st.lists(st.tuples(names, rm_forms, rm_joins, st.booleans(), st.booleans(),
                                dialects, quoting),
                      min_size=1, max_size=4, unique_by=lambda c: c[0]),
       cut=st.integers(0, 30))
def test_a_file_is_deleted_only_when_it_was_there_and_the_command_removed_it(
        cases: list[tuple[str, str, str, bool, bool, str, str]], cut: int) -> None:
    """The model: each file is there or not (generated), known to the session
    (it read it) or not; the command prints what rm, git or mv print for a
    file that is not there (GNU or BSD words), or nothing when it removed it;
    the line's exit status is what the shell makes of it. A file is told
    deleted (or renamed) only if it was there and the command removed it
    (`git rm --cached` never: the file stays); and it is told whenever the
    facts say so: the line's status is the command's (`&&`), or its errors
    were shown and there are none, or the session knew the file was there."""
    t = Transcript(cwd=CWD)
    t.prompt("clean up")
    truth: dict[str, bool] = {}  # path -> the command removed (or moved) it
    derivable: dict[str, bool] = {}
    for i, (path, form, join, there, known, dialect, style) in enumerate(cases):
        if known and there:
            t.call("Read", {"file_path": f"{CWD}/{path}"},
                   {"type": "text", "file": {"filePath": f"{CWD}/{path}", "content": "x\n"}},
                   "x")
        operand = q(path, style)
        command = f"{form} {operand}" + (f" moved-{i}.txt" if form == "mv" else "")
        removes = there and "--cached" not in form
        failed = not there and form != "rm -f"
        err = _rm_error(form, path, dialect, i) if failed else ""
        out = f"removed '{path}'" if form == "rm -v" and there else ""
        if form.startswith("git rm") and there:
            out = f"rm '{path}'" if "-q" not in form else ""
        code = 1 if failed else 0
        if form.startswith("git") and failed:
            code = 128
        if join == "&& after":
            command += " && echo ok"
            out = (out + "\nok").strip() if not failed else out
        elif join == "|| true":
            command += " || true"
            code = 0
        elif join == "; after":
            command += "; echo next"
            out, code = (out + "\nnext").strip(), 0
        elif join == "newline after":
            command += "\nls"
            out, code = (out + "\nREADME.md").strip(), 0
        elif join == "2>/dev/null || true":
            command += " 2>/dev/null || true"
            err, code = "", 0
        elif join == "2>&1 | tail":
            command += " 2>&1 | tail -3"
            out, err, code = "\n".join(x for x in (out, err) if x), "", 0
        _bash(t, command, out, err, code)
        truth[path] = removes
        # What the facts give: the command's own status, or errors it showed, or the file known.
        own_status = join in ("alone", "&& after")
        shown = join not in ("2>/dev/null || true",)
        derivable[path] = (removes and form != "rm -f") or (removes and known)
        if removes and not own_status and not shown and not known:
            derivable[path] = False
    t.say("Cleaned.")
    _fold_law(t, cut)
    state = t.state()
    for i, (path, form, *_) in enumerate(cases):
        change = state.fold.files.get(f"{CWD}/{path}")  # type: ignore[call-overload]
        said = change is not None and ("deleted by a command" in change.ops)
        moved = state.fold.files.get(f"{CWD}/moved-{i}.txt")  # type: ignore[call-overload]
        if form == "mv":
            said = moved is not None and moved.moved_from == f"{CWD}/{path}"
        assert not said or truth[path], (path, form, "told deleted, but it was not")
        if derivable[path]:
            assert said, (path, form, "deleted, but not told")


def test_git_rm_cached_leaves_the_file() -> None:
    """`git rm --cached f` stops tracking f; the file stays: not deleted. A
    plain `rm f` after it deletes it."""
    t = Transcript(cwd=CWD)
    t.prompt("untrack the env file")
    _bash(t, "git rm --cached .env.local && echo '.env.local' >> .gitignore", "rm '.env.local'")
    _bash(t, "git rm -r --cached build/", "rm 'build/a.o'")
    t.say("Untracked.")
    state = t.state()
    assert f"{CWD}/.env.local" not in state.fold.files
    assert not any("build" in str(p) for p in state.fold.files)
    _bash(t, "rm .env.local")
    assert "deleted by a command" in t.state().fold.files[f"{CWD}/.env.local"].ops  # type: ignore[index]


# -- end to end ---------------------------------------------------------------------------

def test_vv_shows_files_a_formatter_named_and_counted(tmp_path: Path) -> None:
    """Through `vv` as a process: black's named files are in the note's table
    and found by `vv files`; ruff format's count is said in the summary."""
    env = Env(tmp_path)
    sid = "5e551012-0000-4000-8000-000000000003"
    t = Transcript(sid=sid, cwd="/srv/app")
    t.prompt("format")
    _bash(t, "black src", "", "reformatted src/app ü.py\nAll done! ✨ 🍰 ✨\n"
          "1 file reformatted, 2 files left unchanged.")
    _bash(t, "uv run ruff format tests", "3 files reformatted, 1 file left unchanged")
    t.say("Done.")
    env.transcript(sid, t.encoded())
    assert env.vv("backfill").returncode == 0
    note = next(iter(env.notes().values()))
    summary = str(frontmatter(note)["summary"])
    assert summary.startswith("1 file changed"), summary
    assert "3 files reformatted by ruff format, not named" in summary, summary
    assert "| `src/app ü.py` | reformatted by black | ? | ? |" in note, note
    js = json.loads(env.vv("files", "--json", "/srv/app/src/app ü.py").stdout)
    assert [o["lines"] for o in js] == ["unknown"], js


# -- the corpus ----------------------------------------------------------------------------

def _ordered_calls(main: Path) -> list[tuple[str, dict[str, Any], str, bool]]:
    """(tool, input, result text, is_error) of the main transcript's calls, in result order."""
    calls: dict[str, dict[str, Any]] = {}
    out = []
    for o in objects(main):
        if o.get("isSidechain"):
            continue
        for b in blocks(o):
            if b.get("type") == "tool_use":
                calls[str(b.get("id"))] = b
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                call = calls.pop(str(b["tool_use_id"]))
                text = b.get("content")
                text = "".join(x.get("text", "") for x in text if isinstance(x, dict)) \
                    if isinstance(text, list) else str(text)
                out.append((str(call.get("name")), call.get("input") or {}, text,
                            bool(b.get("is_error"))))
    return out


@pytest.mark.corpus
def test_no_corpus_file_told_deleted_is_read_after() -> None:
    """Every corpus session: a file the note leaves deleted is not one the
    session read successfully after the last command that named it (the
    JSON's own Read results), and every file told deleted by a command was
    named by a command that deletes (rm, unlink, git rm) or a folder of it."""
    told = 0
    for main in main_files():
        f = fold(Fold(), (decode_line(x) for x in main.read_bytes().split(b"\n") if x.strip()))
        gone = [str(p) for p, c in f.files.items() if c.gone]
        if not gone:
            continue
        calls = _ordered_calls(main)
        for path in gone:
            told += 1
            name = path.rpartition("/")[2]
            last = max((i for i, (tool, inp, _, _) in enumerate(calls)
                        if tool == "Bash" and name in str(inp.get("command"))), default=-1)
            deleting = [str(inp.get("command")) for tool, inp, _, _ in calls if tool == "Bash"
                        and re.search(r"\b(?:rm|unlink)\b", str(inp.get("command")))]
            assert deleting, (main, path)
            for tool, inp, _, error in calls[last + 1:]:
                assert not (tool == "Read" and inp.get("file_path") == path and not error), (
                    main, path, "read after it was told deleted")
    assert told >= 14, told
