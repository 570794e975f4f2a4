"""Which files a session changed, as a person means it (issue 29, review 13):
Claude Code's own plan file is the plan, not a change to the project; files a
shell command wrote are changed files; a file written in a subagent's worktree
is the repository's file; the user's own `!` commands are in the story.

Each test generates sessions and derives what the note must say from the
generated JSON alone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter, main_files
from conftest import json_objects as objects
from file_lines import net_lines
from test_headlines import Transcript
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.render import render

CWD = "/work/app"
word = st.sampled_from(["alpha", "beta", "gamma", "delta", "x = 1", "- step"])
body = st.lists(word, min_size=1, max_size=8).map(lambda ws: "\n".join(ws) + "\n")


def files_section(note: str) -> str:
    return note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Files changed\n" in note else ""


# -- Claude Code's plan file -------------------------------------------------------------

plan_home = st.sampled_from(["/Users/kim", "/home/kim", "C:\\Users\\kim"])


def _plan_path(home: str, name: str) -> str:
    sep = "\\" if "\\" in home else "/"
    return sep.join([home, ".claude", "plans", f"{name}.md"])


@settings(max_examples=examples(20, 60), deadline=None)
@given(home=plan_home, name=st.sampled_from(["sunny-percolating-umbrella", "quiet-fox"]),
       plan=body, revised=st.one_of(st.none(), body), edit_plan=st.booleans(),
       project=st.lists(st.tuples(st.sampled_from(["a.py", "docs/b.md"]), body),
                        max_size=3))
def test_the_plan_file_is_the_plan_not_a_file_of_the_project(
        home: str, name: str, plan: str, revised: str | None, edit_plan: bool,
        project: list[tuple[str, str]]) -> None:
    """The plan written to ~/.claude/plans/ is told as the plan (its words
    under the plan's line), never listed or counted among the files changed;
    a plan put to the user again unchanged is shown once."""
    t = Transcript(cwd=CWD)
    t.prompt("plan a CSV export")
    path = _plan_path(home, name)
    t.write_file(path, plan, text="File created")
    t.call("ExitPlanMode", {}, None, "The user doesn't want to proceed with this tool use.",
           error=True)
    final = plan
    if edit_plan and revised is not None:
        old_s, new_s = plan, revised
        t.call("Edit", {"file_path": path, "old_string": old_s, "new_string": new_s},
               {"filePath": path, "oldString": old_s, "newString": new_s,
                "originalFile": plan, "structuredPatch": []}, "ok")
        final = revised
    t.call("ExitPlanMode", {}, {"plan": final, "isAgent": False, "filePath": path},
           "User has approved your plan.")
    changed: dict[str, str] = {}
    for rel, content in project:
        where = f"{CWD}/{rel}"
        t.write_file(where, content, before=changed.get(where))
        changed[where] = content
    t.say("Done.")
    state = t.state()
    note = render(state)
    fig = figures(state, RenderOptions())
    assert fig.changed_file_count == len(changed)
    section = files_section(note)
    assert name not in section and "plans" not in section
    assert ".claude" not in str(frontmatter(note)["summary"])
    story = note.split("\n## Story\n", 1)[1]
    # The plan's words under the plan's lines: once when it came back unchanged.
    shown = story.count("> [!abstract]- The plan")
    assert shown == (1 if final == plan else 2)
    first_line = plan.split("\n", 1)[0]
    assert first_line in story
    if final == plan:
        assert "Plan approved (the plan of " in story


@pytest.mark.corpus
def test_no_corpus_plan_file_is_among_the_files_changed(tmp_path: Any) -> None:
    """Every Write or Edit of a plan file in the corpus (the JSON's own
    paths): its name is not in the note's Files changed section."""
    from conftest import Env

    plans: dict[str, set[str]] = {}
    for main in main_files():
        for o in objects(main):
            msg = o.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use" \
                        and b.get("name") in ("Write", "Edit", "MultiEdit"):
                    p = str((b.get("input") or {}).get("file_path") or "")
                    if "/.claude/plans/" in p.replace("\\", "/"):
                        plans.setdefault(str(o.get("sessionId")), set()).add(
                            re.split(r"[\\/]", p)[-1])
    assert plans, "the corpus has a session in plan mode"
    env = Env(tmp_path)
    for main in main_files():
        sid = next((str(o.get("sessionId")) for o in objects(main) if o.get("sessionId")), "")
        if sid in plans:
            assert env.vv("backfill", str(main)).returncode == 0
    notes = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    for sid, names in plans.items():
        if sid not in notes:
            continue
        section = files_section(notes[sid])
        for name in names:
            assert name not in section, (sid, name)


# -- files a shell command wrote ---------------------------------------------------------

rel_path = st.sampled_from(["notes.txt", ".gitignore", "docs/guide.md", "a b.txt"])
delimiter = st.sampled_from(["EOF", "PY", "END_OF_FILE"])
shell_body = st.lists(st.sampled_from(["alpha", "beta > gamma", "x = 1", "", "$HOME/x",
                                       "echo hi > not-a-file", "EOFX"]),
                      min_size=1, max_size=6).map(lambda ws: "".join(w + "\n" for w in ws))
form = st.sampled_from(["cat >", "cat <<>", "tee", "tee -a", "cat >>", "echo", "printf",
                        "commit", "python", "failed"])


def _quoted(path: str) -> str:
    return f"'{path}'" if " " in path else path


@settings(max_examples=examples(30, 120), deadline=None)
@given(writes=st.lists(st.tuples(form, rel_path, shell_body, delimiter, st.booleans()),
                       min_size=1, max_size=6),
       cd=st.booleans())
def test_files_a_shell_command_wrote_are_changed_files(
        writes: list[tuple[str, str, str, str, bool]], cd: bool) -> None:
    """`cat > f <<'EOF'`, `cat <<EOF > f`, `tee [-a] f <<EOF`, `cat >> f`,
    `echo … > f` and `printf … >> f` that ran are changed files; a here-document
    fed to `git commit -m "$(cat <<EOF …)"` or to `python -`, and a command
    that failed, write none. A file made by a here-document counts the lines
    of its body (estimated: what was there before is not known); one written
    only by echo or printf shows "?", never a figure."""
    t = Transcript(cwd=CWD)
    t.prompt("set the files up")
    expected: dict[str, list[tuple[str, str | None]]] = {}  # path -> (kind, body)
    for kind, rel, text, word, quote in writes:
        doc = (f"'{word}'" if quote else word)
        prefix, where = ("cd sub && ", f"{CWD}/sub/{rel}") if cd else ("", f"{CWD}/{rel}")
        p = _quoted(rel)
        command = {
            "cat >": f"{prefix}cat > {p} <<{doc}\n{text}{word}",
            "cat <<>": f"{prefix}cat <<{doc} > {p}\n{text}{word}",
            "tee": f"{prefix}tee {p} <<{doc}\n{text}{word}",
            "tee -a": f"{prefix}tee -a {p} > /dev/null <<{doc}\n{text}{word}",
            "cat >>": f"{prefix}cat >> {p} <<{doc}\n{text}{word}",
            "echo": f"{prefix}echo \"a > b\" > {p}",
            "printf": f"{prefix}printf '%s\\n' one two >> {p} 2>&1",
            "commit": f"git commit -q -m \"$(cat <<{doc}\n{text}{word}\n)\"",
            "python": f"python - <<{doc}\nprint('> {rel}')\n{word}",
            "failed": f"{prefix}cat > {p} <<{doc}\n{text}{word}",
        }[kind]
        if kind == "failed":
            t.call("Bash", {"command": command}, None, "Exit code 1\nno such folder", error=True)
            continue
        t.bash(command)
        if kind in ("commit", "python"):
            continue
        expanded = not quote and "$" in text
        exact_body = text if kind in ("cat >", "cat <<>", "tee") and not expanded else None
        expected.setdefault(where, []).append((kind, exact_body))
    t.say("Done.")
    state = t.state()
    files = state.fold.files
    assert set(files) == set(expected)
    for where, done in expected.items():
        change = files[where]  # type: ignore[index]
        assert change.estimated  # what the file held before the session is not known
        kinds = {k for k, _ in done}
        if kinds <= {"echo", "printf"}:
            assert (change.added, change.removed) == (0, 0) and change.uncounted
            continue
        first, last = done[0][1], done[-1][1]
        if first is not None and last is not None and done[0][0] != "tee -a":
            assert (change.added, change.removed) == net_lines("", last)
    note = render(state)
    fig = figures(state, RenderOptions())
    assert fig.changed_file_count == len(expected)
    section = files_section(note)
    for where, done in expected.items():
        rel = where.removeprefix(CWD + "/")
        row = next(ln for ln in section.splitlines() if f"`{rel}`" in ln)
        if {k for k, _ in done} <= {"echo", "printf"}:
            assert row.endswith("| ? | ? |"), row
        else:
            assert "| ≈" in row, row
    said = re.search(r"(\d+) files? changed", fig.summary)
    assert (int(said.group(1)) if said else 0) == len(expected), fig.summary


@pytest.mark.corpus
def test_the_corpus_heredoc_file_is_counted() -> None:
    """b86cc0a4 (branch-pruner, Windows, 2.1.235) made .gitignore by a Bash
    here-document and committed it: the file and its lines, from the
    command's own text, are in the facts."""
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold

    main = next(m for m in main_files() if "01M0CHRTQR403Q8EN4ER6AE6HP" in str(m))
    heredocs: dict[str, int] = {}
    for o in objects(main):
        msg = o.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash":
                command = str((b.get("input") or {}).get("command"))
                for m in re.finditer(r"(?m)\bcat > (\S+) <<'(\w+)'\n(.*?)\n\2$", command, re.S):
                    heredocs[m.group(1)] = m.group(3).count("\n") + 1
    assert heredocs == {".gitignore": 10}
    f = fold(Fold(), (decode_line(x) for x in main.read_bytes().split(b"\n") if x.strip()))
    mine = {str(p).replace("\\", "/").rsplit("/", 1)[-1]: c for p, c in f.files.items()}
    assert (mine[".gitignore"].added, mine[".gitignore"].removed) == (10, 0)
