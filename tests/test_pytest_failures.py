"""Issue 29: a pytest failure is headed by the test that failed.

pytest prints its explanations (`E   assert 1 == 2`) in its FAILURES section,
then names each failed test in its short summary (`FAILED tests/x.py::test_y
- reason`). The note heads the failure with that line, the test and why, and
shows the E line under it where there is room. Checked on every pytest
failure of the corpus, read with this file's own patterns, and on generated
runs of any number of failing tests, with or without a reason on the FAILED
line, captured output, a pipe.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, main_files
from test_error_lines import _collapsed, _outputs
from test_headlines import Transcript, phrase, words
from test_trust import folded

SUMMARY_ID = re.compile(r"^(?:FAILED|ERROR) [\w./\-]+\.py::\S+(?: - .*)?$")
EXPLANATION = re.compile(r"^E {3,}\S")
BANNER = re.compile(r"^=+ (?:FAILURES|short test summary info) =+$")


def _pytest_failure(printed: str) -> tuple[str, str] | None:
    """(the first test its short summary names, the first E line of the
    FAILURES section), each collapsed, when the output is a pytest run that
    failed; None when it is not."""
    lines = printed.splitlines()
    if not any(BANNER.match(ln.strip()) for ln in lines):
        return None
    ids = [ln.strip() for ln in lines if SUMMARY_ID.match(ln.strip())]
    said = [ln for ln in lines if EXPLANATION.match(ln)]
    if not ids:
        return None
    return _collapsed(ids[0]), _collapsed(said[0]) if said else ""


@pytest.mark.corpus
def test_every_corpus_pytest_failure_is_headed_by_its_test() -> None:
    """Corpus, every main transcript: each failed command whose output is a
    pytest run that failed opens its error with the short summary's first
    FAILED line, the E line following it when both fit."""
    checked = 0
    for main in main_files():
        outputs = _outputs(main)
        for err in folded(main).fold.errors:
            if err.tool != "Bash":
                continue
            found = [f for p in outputs.get((err.ts, err.tool), []) if (f := _pytest_failure(p))]
            if not found:
                continue
            test, why = found[0]
            lines = err.text.splitlines()
            assert lines[0] == test, (main, err.text)
            if why and len(test) + len(why) < 380:
                assert lines[1] == why, (main, err.text)
            checked += 1
    assert checked >= 2, checked  # (claude-code-log's browser tests, deep-manifest's unit tests)


# -- generated runs ------------------------------------------------------------------------

# (class names of the test's own: a drawn word may read as a secret's name in
# some language, `TestHaslo::test_x` as a password given a value)
test_id = st.tuples(st.lists(words, min_size=1, max_size=2), words,
                    st.sampled_from(["", "parser", "store", "render"])).map(
    lambda t: (f"tests/{'/'.join(t[0])}.py", f"Test{t[2].capitalize()}::" if t[2] else "",
               f"test_{t[1]}"))
failure = st.tuples(test_id, phrase, st.booleans(), st.one_of(st.just(""), phrase))


def _run(fails: list[tuple[tuple[str, str, str], str, bool, str]], passed: int) -> str:
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.12.1, pytest-8.3.2, pluggy-1.5.0",
           f"collected {len(fails) + passed} items", "",
           "=================================== FAILURES ==================================="]
    for (path, cls, name), why, _, captured in fails:
        out += [f"_____________________________ {cls.replace('::', '.')}{name} ______________",
                "", f"    def {name}():", f"        value = compute('{why}')",
                ">       assert value == 2", f"E       AssertionError: {why}",
                "E       assert 1 == 2", "", f"{path}:12: AssertionError"]
        if captured:
            out += ["----------------------------- Captured stdout call -----------------------------",
                    captured]
    out.append("=========================== short test summary info ============================")
    for (path, cls, name), why, reason, _ in fails:
        out.append(f"FAILED {path}::{cls}{name}" + (f" - AssertionError: {why}" if reason else ""))
    out.append(f"========================= {len(fails)} failed, {passed} passed in 0.52s "
               "=========================")
    return "\n".join(out)


@settings(max_examples=examples(40, 300), deadline=None)
@given(fails=st.lists(failure, min_size=1, max_size=4), passed=st.integers(0, 40),
       piped=st.booleans())
def test_a_pytest_failure_is_headed_by_the_test_that_failed(
        fails: list[tuple[tuple[str, str, str], str, bool, str]], passed: int,
        piped: bool) -> None:
    """A failing pytest run (exit 1, or piped on and exit 0): its error opens
    with the short summary's first FAILED line as printed (the test, and the
    reason when pytest gives one), then the first test's E line."""
    output = _run(fails, passed)
    t = Transcript()
    t.prompt("run the tests")
    if piped:
        t.call("Bash", {"command": "pytest -q 2>&1 | tail -60", "description": "Run tests"},
               {"stdout": output, "stderr": "", "interrupted": False}, output)
    else:
        t.call("Bash", {"command": "pytest -q", "description": "Run tests"},
               f"Error: {output}", f"Exit code 1\n{output}", error=True)
    (err,) = t.state().fold.errors
    (path, cls, name), why, reason, _ = fails[0]
    lines = err.text.splitlines()
    head = f"FAILED {path}::{cls}{name}" + (f" - AssertionError: {why}" if reason else "")
    assert lines[0] == head, err.text
    assert lines[1] == f"E AssertionError: {why}", err.text


def test_the_e_line_still_heads_when_pytest_names_no_test() -> None:
    """A run whose short summary was cut off (`| head -30`): the E line,
    the first that says what failed, still heads it."""
    output = _run([(("tests/a.py", "", "test_x"), "no match", True, "")], 0)
    output = output.split("=== short test summary info")[0].rsplit("\n", 1)[0]
    t = Transcript()
    t.prompt("run the tests")
    t.call("Bash", {"command": "pytest -q"}, "Error: x", f"Exit code 1\n{output}", error=True)
    (err,) = t.state().fold.errors
    assert err.text.splitlines()[0] == "E AssertionError: no match", err.text
