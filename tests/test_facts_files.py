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

from conftest import frontmatter, main_files
from conftest import json_objects as objects
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


@settings(max_examples=60, deadline=None)
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
    t.call("Write", {"file_path": path, "content": plan},
           {"type": "create", "filePath": path, "content": plan, "structuredPatch": []},
           "File created")
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
        t.call("Write", {"file_path": where, "content": content},
               {"type": "create" if where not in changed else "update", "filePath": where,
                "content": content, "structuredPatch": []}, "ok")
        changed[where] = content
    t.say("Done.")
    state = t.state()
    note = render(state)
    fig = figures(state, RenderOptions())
    assert fig.files_changed == len(changed)
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
