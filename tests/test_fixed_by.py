"""A check failed, then its fixing form ran and succeeded (review 26 #11,
063071b3: `cargo fmt --check` failed, `cargo fmt` fixed it, and the error was
still shown as unresolved): the error says "later fixed by `cargo fmt`", as
"later succeeded" is said. Only the fixing form of the same tool on the same
files, and only when it succeeded.

The oracle is the sequence drawn: which check failed, whether its fixing form
ran after it, on which files, and how it ended.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.render import render

# A check, its fixing form; `{}` stands for the files they are given.
PAIRS = (
    ("cargo fmt --check{}", "cargo fmt{}"),
    ("cargo fmt{} -- --check", "cargo fmt{}"),
    ("ruff format --check{}", "ruff format{}"),
    ("black --check{}", "black{}"),
    ("prettier --check{}", "prettier --write{}"),
    ("gofmt -l{}", "gofmt -w{}"),
    ("npx eslint{}", "npx eslint --fix{}"),
    ("ruff check{}", "ruff check --fix{}"),
    ("isort --check-only{}", "isort{}"),
)
files = st.sampled_from(("", " .", " src", " src/a.py"))


def failed(t: Transcript, command: str) -> None:
    t.call("Bash", {"command": command, "description": "Check formatting"}, None,
           "Exit code 1\nWould reformat: src/a.py", error=True)


@settings(max_examples=examples(60, 300), deadline=None)
@given(pair=st.sampled_from(PAIRS), where=files, fix_where=files,
       then=st.sampled_from(("fixed", "fix failed", "nothing", "other")))
def test_a_check_fixed_by_its_fixing_form_says_so(
        pair: tuple[str, str], where: str, fix_where: str, then: str) -> None:
    check, fixer = pair[0].format(where), pair[1].format(fix_where)
    t = Transcript()
    t.prompt("format the code")
    failed(t, check)
    if then == "fixed":
        t.bash(fixer, "")
    elif then == "fix failed":
        failed(t, fixer)
    elif then == "other":
        t.bash("ls src", "a.py\n")
    t.say("Done.")
    note = render(t.state())
    line = next(ln for ln in note.splitlines()
                if f"`{check}` failed" in ln and "Check formatting" in ln)
    told = f" — later fixed by `{fixer}`"
    if then == "fixed" and where == fix_where:
        assert line.endswith(told), line
    else:
        assert "later fixed by" not in line, line
        assert "later succeeded" not in line, line
    assert not re.search(r"later fixed by `[^`]*--check", note), note
