"""A package install that names a test runner among its packages is not a test
run (review 30 #14: c461850b's `pip install respx pytest-asyncio pytest-cov`,
"Install test dependencies", was told "— passed" like a run of the tests).

Generated commands: an installer and its packages (runners, their plugins,
other packages), alone or followed by a run of a runner. The oracle is the
drawn parts: the note says tests passed iff a runner was run.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

INSTALLERS = ("pip install", "pip3 install -U", "python -m pip install", "uv pip install",
              "uv add --dev", "poetry add --group dev", "npm install -D", "npm i --save-dev",
              "pnpm add -D", "yarn add --dev", "sudo pip install")
PACKAGES = ("pytest", "pytest-asyncio", "pytest-cov", "respx", "vitest", "jest", "mocha",
            "tox", "nox", "requests", "@vitest/coverage-v8")
RUNS = ("pytest -q", "python -m pytest tests/ -v", "npx vitest run", "npm test", "go test ./...")
PREFIXES = ("", "source venv/bin/activate && ", "cd /work/app && ")


@settings(max_examples=examples(25, 120), deadline=None)
@given(prefix=st.sampled_from(PREFIXES), installer=st.sampled_from(INSTALLERS),
       packages=st.lists(st.sampled_from(PACKAGES), min_size=1, max_size=4, unique=True),
       run=st.sampled_from(("", *RUNS)), tail=st.booleans())
def test_an_install_is_not_a_test_run(tmp_path_factory: Any, prefix: str, installer: str,
                                      packages: list[str], run: str, tail: bool) -> None:
    command = f"{prefix}{installer} {' '.join(packages)}" + (" 2>&1 | tail -5" if tail else "")
    if run:
        command += f" && {run}"
    t = Transcript()
    t.prompt("add tests for the client")
    t.bash(command, "Successfully installed respx-0.22.0 pytest-asyncio-1.3.0"
           + ("\n5 passed in 0.20s" if run else ""), "Install test dependencies")
    t.say("Installed.")
    note = t.note(tmp_path_factory, "installs")
    summary = str(frontmatter(note)["summary"])
    assert ("tests passed" in summary) == bool(run), (summary, command)
    story = note.split("\n## Story\n", 1)[1]
    line = next(ln for ln in story.splitlines() if "Install test dependencies" in ln)
    assert bool(re.search(r"— \**passed\b", line)) == bool(run), (line, command)
