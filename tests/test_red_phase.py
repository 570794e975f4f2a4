"""A test run that fails as Claude said it meant it to (a TDD red phase) is
marked so among the errors, not told like a mistake (review 24 N10: e8106766's
04:10 run "to verify they fail (red phase)" failed as intended; its 04:08 run
failed to build, a real mistake).

Each generated session has Claude say something (that the next check is to
fail, or not) after an earlier call whose words said so or not, then run tests
whose description says so or not, and whose output is tests failing or a build
failing before any test ran. The oracle is the drawn parts: the mark iff
Claude's words since the last result, or the run's description, said it was
to fail, and the output is a test's failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, examples
from test_headlines import Transcript

MEANT = ("Now let's run the tests to confirm they fail (red phase).",
         "Let me verify the new test fails before the fix.",
         "These should fail until the fix is in.",
         "Running them now; I expect them to fail.")
NEUTRAL = ("Now let's run the tests.", "Let me run the test suite.", "Running the checks.",
           "Let me see what the build says.")
MEANT_DESC = ("Run new tests to verify they fail (red phase)", "Confirm the test fails")
NEUTRAL_DESC = ("Run the tests", "Run unit tests", "")
TESTS_FAILED = {
    "go": "--- FAIL: TestSave (0.08s)\n    save_test.go:40: got Agent, want Claude\nFAIL\n"
          "FAIL\tgithub.com/x/cli/strategy\t0.4s",
    "pytest": "F.\n=== FAILURES ===\nE       assert 1 == 2\n1 failed, 1 passed in 0.1s"}
BUILD_FAILED = {
    "go": "# github.com/x/cli/strategy\nstrategy/save_test.go:15:2: undefined: setupRepo\n"
          "FAIL\tgithub.com/x/cli/strategy [build failed]",
    "pytest": "=== ERRORS ===\nERROR collecting tests/test_save.py\nImportError: cannot "
              "import name 'save'\n1 error in 0.1s"}
RUNNER = {"go": "go test ./strategy/ -run TestSave", "pytest": "uv run pytest tests/test_save.py"}


@settings(max_examples=examples(30, 150), deadline=None)
@given(before=st.sampled_from(MEANT + NEUTRAL), earlier=st.sampled_from(MEANT + NEUTRAL),
       desc=st.sampled_from(MEANT_DESC + NEUTRAL_DESC), runner=st.sampled_from(["go", "pytest"]),
       tests_ran=st.booleans(), passes_later=st.booleans())
def test_a_red_phase_is_marked_as_meant(tmp_path_factory: Any, before: str, earlier: str,
                                        desc: str, runner: str, tests_ran: bool,
                                        passes_later: bool) -> None:
    t = Transcript()
    t.prompt("add a backfill of the agent type, tests first")
    t.say(earlier)  # (words before another call: not about the run)
    t.call("Read", {"file_path": "/work/app/strategy/save.go"}, None, "package strategy")
    t.say(before)
    out = (TESTS_FAILED if tests_ran else BUILD_FAILED)[runner]
    inp = {"command": RUNNER[runner], **({"description": desc} if desc else {})}
    t.call("Bash", inp, "Error: Exit code 1\n" + out, "Exit code 1\n" + out, error=True)
    if passes_later:
        t.call("Bash", {"command": RUNNER[runner]}, {"stdout": "ok", "stderr": "",
                                                     "interrupted": False}, "ok")
    t.say("Done.")
    note = t.note(tmp_path_factory, "red phase")
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    (line,) = [ln for ln in errors.splitlines() if ln.startswith("- ")]
    meant = before in MEANT or desc in MEANT_DESC
    assert ("as Claude meant: it ran them to see them fail" in line) == (meant and tests_ran), (
        line, before, desc, tests_ran)
    assert "later succeeded" in line or "later passed" in line or not passes_later, line


@pytest.mark.corpus
def test_the_corpus_red_phase(tmp_path: Path) -> None:
    """e8106766 (from its JSON: two runs described "to verify they fail (red
    phase)", the first failing to build, the second with '--- FAIL'): the
    second is marked as meant, the first is not."""
    from conftest import Env

    env = Env(tmp_path)
    main = CORPUS / "entireio__cli/checkpoints/ad/a8171575ce/0/full.jsonl"
    text = main.read_text()
    assert "[build failed]" in text and "--- FAIL: TestInitializeSession" in text
    assert env.vv("backfill", str(main.parent)).returncode == 0
    (note,) = [n for n in env.notes().values() if "e8106766" in n]
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    red = [ln for ln in errors.splitlines() if "(red phase)" in ln]
    assert len(red) == 2
    assert "as Claude meant" not in red[0] and "as Claude meant" in red[1], red


# -- an error case tried on purpose (review 25 N10: cb2e607c) -----------------------------

TRIES = ("Perfect! Now let me test the error case when there's no PR:",
         "Let me check the error handling with an invalid URL.",
         "Now let's try the failure path: a missing config file.",
         "Let me verify the error message for a bad token.")
NOT_TRIES = ("Now let me run it on the current branch:", "Let me run the tool again.",
             "There was an error; let me look at the config.", "Let me try again.")
TRIES_DESC = ("Test behavior when no PR exists (error case)", "Check error handling")
PLAIN_DESC = ("Test behavior when no PR exists", "Run the extractor", "")


@settings(max_examples=examples(30, 150), deadline=None)
@given(before=st.sampled_from(TRIES + NOT_TRIES), earlier=st.sampled_from(TRIES + NOT_TRIES),
       desc=st.sampled_from(TRIES_DESC + PLAIN_DESC), tests_ran=st.booleans())
def test_an_error_case_tried_on_purpose_is_marked_as_meant(
        tmp_path_factory: Any, before: str, earlier: str, desc: str, tests_ran: bool) -> None:
    """Claude says (or not) that it tries an error case, after an earlier
    call whose words said so or not; the command then fails with the tool's
    own error message (or a test's failure): marked as meant iff Claude's
    words since the last result, or the command's description, said it tried
    an error case, and not a red phase (which says so in its own words)."""
    t = Transcript()
    t.prompt("make the PR argument optional")
    t.say(earlier)  # (words before another call: not about the run)
    t.call("Read", {"file_path": "/work/app/extract.py"}, None, "import sys")
    t.say(before)
    out = TESTS_FAILED["pytest"] if tests_ran else (
        "❌ No PR found for the current branch.\n\nProvide a PR explicitly.")
    inp = {"command": "cd /tmp && coderabbit-extract", **({"description": desc} if desc else {})}
    t.call("Bash", inp, "Error: Exit code 1\n" + out, "Exit code 1\n" + out, error=True)
    t.say("Done.")
    note = t.note(tmp_path_factory, "error case")
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    (line,) = [ln for ln in errors.splitlines() if ln.startswith("- ")]
    meant = before in TRIES or desc in TRIES_DESC
    assert ("as Claude meant: it tried the error case" in line) == meant, (line, before, desc)


@pytest.mark.corpus
def test_the_corpus_error_case(tmp_path: Path) -> None:
    """cb2e607c (from its JSON: "Now let me test the error case when there's
    no PR:" just before `cd /tmp && coderabbit-extract`, which exited 1): that
    run is marked as meant; no other error of the session is."""
    from conftest import Env

    env = Env(tmp_path)
    main = CORPUS / ("iansherr__claude-code-log/real_projects/-Users-dain-workspace-"
                     "coderabbit-review-helper/cb2e607c-c758-415a-8b45-c49e4631906a.jsonl")
    text = main.read_text()
    assert "test the error case when there's no PR" in text
    assert env.vv("backfill", str(main)).returncode == 0
    (note,) = [n for n in env.notes().values() if "cb2e607c" in n]
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    marked = [ln for ln in errors.splitlines() if "tried the error case" in ln]
    assert len(marked) == 1 and "coderabbit-extract`" in marked[0], marked


# -- words that expect a pass (review 30 #4: 09e82c6a) ----------------------------------
# "Now let me verify it builds and passes tests, then test the exact failing
# command": Claude expected a pass; "failing" named the command the user had
# reported, not what the run was to do. Its failure is a failure.

EXPECTS_PASS = ("Now let me verify it builds and passes tests", "Let me make sure everything passes",
                "Let me confirm the fix works", "Let me check that nothing fails now",
                "Let me verify the build is green")
NAMES_A_FAILING = ("then test the exact failing command", "then rerun the failing test",
                   "and then check the previously failing case", "")


@settings(max_examples=examples(30, 150), deadline=None)
@given(hope=st.sampled_from(EXPECTS_PASS), named=st.sampled_from(NAMES_A_FAILING),
       red=st.sampled_from((*MEANT, "")), red_first=st.booleans(),
       runner=st.sampled_from(["go", "pytest"]))
def test_words_that_expect_a_pass_do_not_mark_a_failure_as_meant(
        tmp_path_factory: Any, hope: str, named: str, red: str, red_first: bool,
        runner: str) -> None:
    """Claude's words before the run say it expects a pass (and may name a
    failing thing it will look at next), with or without a sentence of its own
    saying the run is to fail; the tests then fail. The oracle is the drawn
    parts: the failure is marked as meant iff such a sentence was drawn."""
    words = hope + (", " + named if named else "") + "."
    said = (red + " " + words if red_first else words + " " + red) if red else words
    t = Transcript()
    t.prompt("bring the ignore-file commits onto main")
    t.say(said)
    t.call("Bash", {"command": RUNNER[runner], "description": "Build and run tests"},
           "Error: Exit code 1\n" + TESTS_FAILED[runner], "Exit code 1\n" + TESTS_FAILED[runner],
           error=True)
    t.say("The two failing tests are assertion mismatches. Let me look.")
    note = t.note(tmp_path_factory, "expects a pass")
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    (line,) = [ln for ln in errors.splitlines() if ln.startswith("- ")]
    assert ("as Claude meant" in line) == bool(red), (line, said)


def test_the_unseen_expects_a_pass() -> None:
    """09e82c6a's words before its failing run (review 30 #4), from its JSON,
    read alone; and the forms of an expected failure the brief names."""
    from vibe_vault.fold.verdicts import expects_failure

    assert not expects_failure("Both cherry-picks applied cleanly with no conflicts. Now let me "
                               "verify it builds and passes tests, then test the exact failing "
                               "command.")
    for meant in ("This should fail.", "Run it to see it fail.", "Red first: the new test.",
                  "Let me confirm the tests are still failing."):
        assert expects_failure(meant), meant
