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

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript, phrase
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
