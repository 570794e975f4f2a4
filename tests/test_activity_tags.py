"""Issue 29 review, F16: a session is tagged `debugging` by its facts, not by
failed tests alone (writing a test first, seeing it fail, then the code, is
implementation).

Generated sessions change files, run tests that fail or pass in a generated
order, and open with a request that does or does not tell of a failure (the
generator knows which: the oracle). Debugging: files changed, and the first
request tells of a failure, or a test failed before the first change and one
passed after it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter, json_objects, main_files
from test_corpus import expected_sid
from test_headlines import Transcript, phrase
from test_story_facts import corpus_notes  # noqa: F401
from vibe_vault.render import render

TROUBLE = ["the browser tests are failing", "let's debug the importer",
           "the login is broken", "the app crashes on start", "the export does not work",
           "I ran into this: Error: ENOENT", "there's a bug in the parser"]
WORK = ["add a CSV export", "if we fail to open the repo, return an error",
        "rename the config loader", "write tests for the cache", "update the README"]
FAILED = "=== 1 failed, 2 passed in 0.12s ==="
PASSED = "=== 3 passed in 0.10s ==="


def run_tests(t: Transcript, ok: bool) -> None:
    if ok:
        t.call("Bash", {"command": "pytest -q"},
               {"stdout": PASSED, "stderr": "", "interrupted": False}, PASSED)
    else:
        t.call("Bash", {"command": "pytest -q"}, None, f"Exit code 1\n{FAILED}", error=True)


@settings(max_examples=examples(40, 150), deadline=None)
@given(troubled=st.booleans(), ask=st.data(), detail=phrase,
       steps=st.lists(st.sampled_from(["edit", "fail", "pass"]), min_size=1, max_size=6))
def test_debugging_is_told_by_the_request_or_a_failure_found_then_mended(
        troubled: bool, ask: st.DataObject, detail: str, steps: list[str]) -> None:
    request = ask.draw(st.sampled_from(TROUBLE if troubled else WORK))
    t = Transcript()
    t.prompt(f"{request}. Also {detail}")
    for n, step in enumerate(steps):
        if step == "edit":
            t.write_file(f"/work/app/m{n}.py", f"x = {n}\n")
        else:
            run_tests(t, step == "pass")
    t.say("Done.")
    tags = frontmatter(render(t.state()))["tags"]
    assert isinstance(tags, list)
    edited = "edit" in steps
    first_edit = steps.index("edit") if edited else len(steps)
    found_failing = "fail" in steps[:first_edit] and "pass" in steps[first_edit:]
    assert ("debugging" in tags) == (edited and (troubled or found_failing)), (request, steps)
    if edited:
        assert ("implementation" in tags) != ("debugging" in tags), tags


@settings(max_examples=examples(20, 60), deadline=None)
@given(subject=phrase, reads=st.integers(0, 3), how=st.sampled_from(["commit", "push", "pr"]))
def test_git_work_without_an_edit_is_operations(subject: str, reads: int, how: str) -> None:
    """Review 17 #16 (10764452): a session that committed, pushed or opened a
    PR, reading files on the way but editing none, is `operations`, not
    `research`."""
    t = Transcript()
    t.prompt("make a feature branch and commit the changes")
    for k in range(reads):
        t.call("Read", {"file_path": f"/work/app/m{k}.py"}, None, "x = 1\n")
    if how == "commit":
        t.bash(f'git commit -m "{subject}"', f"[main 1a2b3c4] {subject}\n 1 file changed\n")
    elif how == "push":
        t.bash("git push origin main", "To github.com:o/r.git\n   1a2b3c4..5d6e7f8  main -> main\n")
    else:
        t.bash(f'gh pr create --title "{subject}"', "https://github.com/o/r/pull/7\n")
    t.say("Done.")
    tags = frontmatter(render(t.state()))["tags"]
    assert isinstance(tags, list) and tags[-1] == "operations", tags


@settings(max_examples=examples(10, 30), deadline=None)
@given(skill=phrase.map(lambda p: p.replace(" ", "-")))
def test_a_skill_is_told_as_a_skill_that_ran(skill: str) -> None:
    """Review 17 #16: "Used `commit`" said nothing; the story says a skill ran."""
    t = Transcript()
    t.prompt("commit it")
    t.call("Skill", {"skill": skill}, {"success": True, "commandName": skill},
           f"Launching skill: {skill}")
    t.say("Committed.")
    assert f"- Ran the `{skill}` skill" in render(t.state())


# -- every corpus session ---------------------------------------------------------------

# A request that plainly tells of something failing now (the oracle's own words).
PLAIN_TROUBLE = re.compile(r"(?i)\b(?:traceback|(?:is|are) failing|(?:is|are) broken|crashes"
                           r"|let'?s debug|debug (?:this|the|why))\b")
# Any word that might tell of trouble: a request with none of these, in a session
# where nothing that looks like a check failed before the first change, is no
# debugging.
ANY_TROUBLE = re.compile(r"(?i)bug|broke|crash|trace|fail|regress|debug|panic|segfault"
                         r"|error|exception|work(?:s|ing)?\b|ran into|run into")
CHECK = re.compile(r"(?i)\b(?:test|pytest|tox|nox|jest|vitest|mocha|rspec|build|check|lint"
                   r"|tsc|mypy|ruff|clippy|compile|make)\b")
EDITS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}


def first_request(objs: list[dict[str, Any]]) -> str:
    for o in objs:
        if o.get("type") != "user" or o.get("isMeta") or o.get("isSidechain"):
            continue
        content = (o.get("message") or {}).get("content")
        if isinstance(content, list):
            content = "\n".join(str(b.get("text") or "") for b in content
                                if isinstance(b, dict) and b.get("type") == "text")
        if not isinstance(content, str) or not content.strip():
            continue
        m = re.search(r"<command-args>(.*?)</command-args>", content, re.S)
        if "<command-name>" in content:
            if m and m.group(1).strip():
                return m.group(1)
            continue
        if content.lstrip().startswith(("<local-command", "Caveat:", "[Request interrupted",
                                        "<bash-", "<task-notification")):
            continue
        return content
    return ""


def checks_failed_before_first_edit(objs: list[dict[str, Any]]) -> bool | None:
    """Whether a call that looks like a check failed before the first edit
    that succeeded (None: no edit succeeded in the main file)."""
    calls: dict[str, dict[str, Any]] = {}
    failed = False
    for o in objs:
        content = (o.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                calls[str(b.get("id"))] = b
            elif b.get("type") == "tool_result":
                call = calls.get(str(b.get("tool_use_id")), {})
                text = json.dumps(b.get("content"))
                if call.get("name") in EDITS and not b.get("is_error"):
                    return failed
                command = str((call.get("input") or {}).get("command") or "")
                if call.get("name") == "Bash" and CHECK.search(command) and (
                        b.get("is_error") or re.search(r"(?i)\bfail|error", text)):
                    failed = True
    return None


@pytest.mark.corpus
def test_every_corpus_sessions_debugging_tag_follows_its_facts(
        corpus_notes: dict[str, str]) -> None:  # noqa: F811
    """From each session's JSON: no file changed, never `debugging`; files
    changed and a first request that plainly tells of a failure, `debugging`;
    files changed, a first request with no word of trouble and no check that
    failed before the first edit, not `debugging`."""
    from test_facts import Facts

    told = {"none": 0, "plain": 0, "clean": 0}
    for main in main_files():
        note = corpus_notes.get(str(expected_sid(main)))
        if note is None:
            continue
        tags = frontmatter(note)["tags"]
        assert isinstance(tags, list)
        objs = json_objects(main)
        request = first_request(objs)
        if not Facts(main).files:
            assert "debugging" not in tags, (main, tags)
            told["none"] += 1
        elif PLAIN_TROUBLE.search(request) \
                and not request.startswith("Implement the following plan:"):
            assert "debugging" in tags, (main, request[:200], tags)
            told["plain"] += 1
        elif not ANY_TROUBLE.search(request) and checks_failed_before_first_edit(objs) is False:
            assert "debugging" not in tags, (main, request[:200], tags)
            told["clean"] += 1
    assert all(told.values()), told
