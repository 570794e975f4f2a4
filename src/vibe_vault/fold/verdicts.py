"""How a check (tests, a build, a linter) ended, read from what it printed.

A shell reports the exit status of a pipeline's last command (`go test ./...
2>&1 | tail -30` exits with `tail`'s 0), of the command after `;`, or of the
`|| true` that follows: then the status says nothing about the check, and only
its output does. The markers below are what the tools themselves print when
something failed (or passed), one row a form, each anchored to the start of a
line so that the word "error" in passing text, `0 failed`, or a test named
`TestFAIL` that passed is not taken for one.
"""

from __future__ import annotations

import re
from typing import Literal

from vibe_vault import patterns
from vibe_vault.text import rx

# (tool, what it prints on a line of its own when something failed, what the
# line is): a "finding" names what failed (a file and line, a test, the
# error's own words); a "summary" only says that something did (a count, a
# task runner's or a build's closing line). A failure is headed by its first
# finding, wherever its summary was printed (mise prints `ERROR task failed`
# on stderr, ahead of the linter's findings): the summary says nothing a
# person can act on, nor anything to search for.
FAILURE_MARKERS: tuple[tuple[str, str, str], ...] = (
    ("go test", r"--- FAIL: \S", "finding"),
    ("go test", r"FAIL\s+\S+\s+(?:\d+(?:\.\d+)?s|\[(?:build|setup) failed\])\s*$", "summary"),
    ("go test", r"FAIL\s*$", "summary"),
    ("go", r"panic: \S", "finding"),
    # a compiler's, vet's or a linter's `file.go:12:3: message` (not `file.go:1: : # pkg`)
    ("go build", r"(?:\.{0,2}/)?[\w.\-/]+\.go:\d+(?::\d+)?: [^\s:]", "finding"),
    ("pytest", r"=+ (?:.*\D)?[1-9]\d* (?:failed|errors?)\b.*=+\s*$", "summary"),
    ("unittest", r"FAILED \((?:failures|errors)=", "summary"),
    ("pytest", r"(?:FAILED|ERROR) \S+", "finding"),  # the short summary's test ids
    ("pytest", r"E {3,}\S", "finding"),  # the failing line's explanation
    # (its headline is the exception line that ends it: see first_failure)
    ("python", r"Traceback \(most recent call last\):\s*$", "summary"),
    ("cargo", r"error: (?:could not compile|aborting due to|process didn't exit)\b", "summary"),
    ("cargo", r"error(?:\[[\w\-]+\])?: \S", "finding"),  # rustc, cargo, ty, git's own errors
    ("cargo test", r"test result: FAILED\b", "summary"),
    ("mise", r"ERROR task failed\b", "summary"),
    ("task", r"task: Failed to run task\b", "summary"),
    ("make", r"g?make(?:\[\d+\])?: \*\*\* .*Error \d+", "summary"),
    ("golangci-lint", r"[1-9]\d* issues?(?::|\.|\s*$)", "summary"),
    # (not ruff's "Found 3 errors (3 fixed, 0 remaining).": `--fix` mended them all)
    ("ruff, tsc, mypy, ty", r"Found [1-9]\d* (?:errors?|diagnostics?)\b"
                            r"(?! \(\d+ fixed, 0 remaining\))", "summary"),
    ("mypy, gcc", r"[\w.\-/]+:\d+(?::\d+)?: (?:fatal )?error: \S", "finding"),
    ("pyright", r"\s*[\w.\-/]+:\d+:\d+ - error: \S", "finding"),
    ("pyright", r"\s*[1-9]\d* errors?, \d+ warnings?\b", "summary"),
    ("ruff, flake8", r"[\w.\-/]+\.py:\d+:\d+: [A-Z]{1,3}\d{1,4}\b", "finding"),
    ("ruff", r"[A-Z]{1,4}\d{1,4}\b.*\n\s*--> \S+:\d+:\d+", "finding"),  # a rule's code, then where
    ("tsc", r"[\w.\-/]+\(\d+,\d+\): error TS\d+:", "finding"),
    ("tsc", r"[\w.\-/]+:\d+:\d+ - error TS\d+:", "finding"),
    ("tsc", r"error TS\d+:", "finding"),
    ("eslint", r"✖ [1-9]\d* problems?\b", "summary"),
    ("npm", r"npm (?:ERR!|error) \S", "summary"),  # npm telling that a script failed
    ("jest", r"FAIL\s+\S+\.(?:[cm]?[jt]sx?)\b", "finding"),
    ("jest", r"Tests:\s+[1-9]\d* failed\b", "summary"),
    ("vitest", r"\s*(?:Test Files|Tests)\s+[1-9]\d* failed\b", "summary"),
    ("rspec", r"\d+ examples?, [1-9]\d* failures?\b", "summary"),
    ("phpunit", r"(?:FAILURES|ERRORS)!\s*$", "summary"),
    ("gradle, maven", r"(?:BUILD FAILED\b|FAILURE: Build failed\b|\[ERROR\] BUILD FAILURE\b)",
     "summary"),
    ("xcodebuild", r"\*\* (?:BUILD|TEST) FAILED \*\*", "summary"),
    ("dotnet", r"(?:Failed!\s+-\s+Failed:\s+[1-9]|Build FAILED\.)", "summary"),
    ("bun test", r"\s*[1-9]\d* fail\s*$", "summary"),
    ("deno test", r"FAILED \|", "summary"),
    ("mocha", r"\s*[1-9]\d* failing\s*$", "summary"),
    # act (GitHub Actions run here): the step that failed, and the job's end
    ("act", r"\s*❌\s+Failure - \S", "finding"),
    ("act", r"Error: Job '[^'\n]+' failed", "summary"),
)
# (tool, what it prints when its tests passed): a piped test run says "passed"
# only with one of these in its output and no failure.
PASS_MARKERS: tuple[tuple[str, str], ...] = (
    ("pytest", r"=+ (?:.*\D)?\d+ passed\b.*=+\s*$"),
    ("go test", r"ok\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\))"),
    ("go test", r"PASS\s*$"),
    ("cargo test", r"test result: ok\."),
    ("jest", r"Tests:\s+\d+ passed\b"),
    ("vitest", r"\s*Tests\s+\d+ passed\b"),
    ("rspec", r"\d+ examples?, 0 failures\b"),
    ("unittest, phpunit", r"OK(?: \(.*\))?\s*$"),
    ("bun test", r"\s*\d+ pass\s*$"),
    ("deno test", r"ok \| \d+ passed"),
    ("mocha", r"\s*\d+ passing\b"),
    ("dotnet", r"Passed!\s+-\s+Failed:\s+0\b"),
)
# A task runner's prefix before each line of a task's output (mise: `[lint:go] `;
# act: `[CI/test-1]   |   ` before what a step printed).
_TASK_PREFIX = r"(?:\[[^\]\n]{1,60}\](?: +\| +| ))?"
_FAILED = ("(?m)^" + _TASK_PREFIX + "(?:"
           + "|".join(f"(?:{p})" for _, p, _ in FAILURE_MARKERS) + ")")
_FINDING = ("(?m)^" + _TASK_PREFIX + "(?:"
            + "|".join(f"(?:{p})" for _, p, kind in FAILURE_MARKERS if kind == "finding") + ")")
_SUMMARY = ("(?m)^" + _TASK_PREFIX + "(?:"
            + "|".join(f"(?:{p})" for _, p, kind in FAILURE_MARKERS if kind == "summary") + ")")
_PASSED = "(?m)^(?:" + "|".join(f"(?:{p})" for _, p in PASS_MARKERS) + ")"
_ANSI = r"\x1b\[[0-9;?]*[A-Za-z]|\[(?:\d{1,3}(?:;\d{1,3})*)?m"
SCAN_CHARS = 200_000  # an output's head and tail this long are read

Verdict = Literal["failed", "passed", ""]

# Tools whose output the markers read: a test runner, a build, a linter or
# type checker, or a task runner running one. Other commands (`cat log |
# head`) print whatever a file holds, and are not judged by it.
CHECK_TOOLS = (
    # where a command starts: the line's start or after an operator, past
    # `NAME=value` assignments, `time`/`timeout 60`/`env`, and a path. Each part
    # stays on its line and short of the next operator, and is taken whole
    # (possessive): `\S*\s+` ran on over every later `k=v;` and line and back,
    # so a script of 6,000 assignments took 12 s a search from each start
    # (attack 25 S-1..S-10: `"Password=;" * 26624` held a Stop past 60 s).
    r"(?:^|[;&|(\n]|\$\()[ \t]*+(?:[A-Za-z_]\w*+=[^\s;&|]*+[ \t]++)*+"
    r"(?:(?:time|timeout[ \t]+[^\s;&|]++|nice|env|sudo|command|exec|xargs)[ \t]++)*+"
    r"(?:[\w.~\-]*+/)*+"
    r"(?:golangci-lint|ruff|flake8|pylint|mypy|pyright|basedpyright|eslint|biome|tsc|vue-tsc"
    r"|cargo|rustc|go (?:vet|build|test|run)|staticcheck|mise|task|just|g?make|npm|pnpm|yarn"
    r"|bun|npx|deno|gradle|gradlew|mvn|dotnet|swift (?:build|test)|xcodebuild|rubocop"
    r"|shellcheck|black --check|prettier --check|cmake|ctest|phpunit|rspec|jest|vitest"
    r"|mocha|pytest|py\.test|tox|nox|hatch|uv run|poetry run|python\d?(?:\.\d+)? -m|rake"
    r"|mix|bundle exec)(?=[\s;&|)]|$)"
)


def judge(output: str) -> Verdict:
    """How a check ended by what it printed: by a test runner's closing counts
    when it printed them (a passing test's expected error log, `error:
    Database connection failed`, is not the run failing), else "failed" when
    the output holds a tool's failure marker, else "passed" when it holds a
    tool's pass marker, else "" (it does not say, or no test ran)."""
    text = _scanned(output)
    counts = runner_counts(text)
    if counts is not None:
        failed, passed = counts
        after = _after_counts(text)
        if not failed and passed and after and rx(_FAILED).search(text, after):
            # A tool run after the tests (`pytest -q | tail; ruff check`)
            # printed its failure below their closing line: what the tests
            # logged comes before it, so that is not their expected error.
            return "failed"
        return "failed" if failed else "passed" if passed else ""
    if rx(_FAILED).search(text):
        return "failed"
    if rx(_PASSED).search(text):
        return "passed"
    return ""


def first_failure(output: str) -> str:
    """The output from the line that heads its failure ("" when no line is a
    tool's failure line): its first finding, else its first summary line; a
    Python traceback from the exception line that ends it."""
    text = _scanned(output)
    # (a line both forms match is a summary: `error: could not compile`)
    found = next((finding.start() for finding in rx(_FINDING).finditer(text)
                  if not rx(_SUMMARY).match(text, finding.start())), -1)
    # A traceback, also one a tool printed indented (uv's build backend's),
    # is a finding by its exception line.
    traceback = rx(_TRACEBACK_AT).search(text)
    if traceback is not None and (found < 0 or traceback.start() < found):
        found = _exception_at(text, traceback.start())
    if found < 0:
        summary = rx(_FAILED).search(text)
        found = summary.start() if summary else -1
    if found >= 0:
        named = _pytest_test(text, found)
        if named:  # what failed, then why (the E line, in the lines under it)
            return f"{named}\n{text[found:]}"
    return text[found:] if found >= 0 else ""


# pytest names each failed test on a line of its short summary, after the
# explanations (`E   assert 1 == 2`) its FAILURES section printed first:
# `FAILED tests/x.py::test_y - AssertionError: …` (or `ERROR` for an error in
# a fixture or at collection). That line heads the failure: the test that
# failed, and why when it says.
_PYTEST_ID = (r"(?m)^" + _TASK_PREFIX + r"(?:FAILED|ERROR) [\w./\\\-]+\.py(?:::\S+)?"
              r"(?: - [^\n]*)?[ \t]*$")
_PYTEST_E = r"E {3,}\S"
_PYTEST_RUN = r"(?m)^=+ (?:FAILURES|ERRORS|short test summary info) =+[ \t]*$"


def _pytest_test(text: str, found: int) -> str:
    """The short-summary line of pytest naming the first test that failed,
    when the failure found at `found` is pytest's (an `E` line, or anything
    in a run that printed pytest's FAILURES or summary banner) and that line
    comes after it; "" otherwise."""
    line = text[found:text.find("\n", found) if "\n" in text[found:] else len(text)]
    bare = rx(r"^" + _TASK_PREFIX).sub("", line, count=1)
    if not (rx(_PYTEST_E).match(bare) or rx(_PYTEST_RUN).search(text)):
        return ""
    named = rx(_PYTEST_ID).search(text, found + len(line))
    return named.group(0).strip() if named else ""


def _exception_at(text: str, at: int) -> int:
    """Where the exception line that ends the traceback at `at` starts (of a
    chained one, the last: the exception that ended the program); `at` when
    none is found."""
    while True:
        end = rx(_TRACEBACK_END).search(text, at + 1)
        if end is None:
            return at
        chained = rx(_CHAINED).match(text, end.end())
        if chained is None:
            return end.start() + len(end.group(0)) - len(end.group(0).lstrip())
        at = chained.end()


# A traceback's frames (`  File "x.py", line 3, in f`, the code under each)
# and its chained ones; the first line after them that is none of these is the
# exception, the line that says what failed.
_TRACEBACK_AT = r"(?m)^[ \t]*" + _TASK_PREFIX + r"Traceback \(most recent call last\):[ \t]*$"
# The exception: a line that is not indented and no frame's, or, at any
# indent, one named as exceptions are (`ValueError: …`, `pkg.mod.MyError`).
_TRACEBACK_END = (r"(?m)^(?:" + _TASK_PREFIX + r"(?!\s|Traceback \(most recent|File \"|\^|~)\S"
                  r"|[ \t]*" + _TASK_PREFIX + r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception"
                  r"|Exit|Interrupt|Failure|Fault)\b(?=:|[ \t]*$)).*$")
_CHAINED = (r"\s*\n\s*(?:During handling of the above exception|The above exception was the "
            r"direct cause)[^\n]*\n(?=\s*" + _TASK_PREFIX + r"Traceback \(most recent)")


def _scanned(output: str) -> str:
    if len(output) > 2 * SCAN_CHARS:
        output = output[:SCAN_CHARS] + "\n" + output[-SCAN_CHARS:]
    if "[" in output and ("m" in output):
        output = rx(_ANSI).sub("", output)
    return output


def is_check(command: str) -> bool:
    return bool(rx(CHECK_TOOLS).search(command))


_OPERATOR = patterns.compile(r"\|\||\|&?|;|\n|&&|&")


def masked(command: str) -> bool:
    """Whether the exit status of `command` may not be its check's own: the
    check's output goes on through a pipe (`| tail -40`, `| tee log`), or
    another command runs after it whatever it did (`; echo $?`, `|| true`).
    `&&` keeps a failure's status; `set -o pipefail` keeps a pipe's."""
    if not any(op in command for op in ("|", ";", "\n")):
        return False
    pipefail = "pipefail" in command
    ops = _operators(command)
    at = _check_at(command)
    if at < 0:
        return False
    for pos, op in ops:
        if pos < at:
            continue
        if op in ("|", "|&") and not pipefail:
            return True
        if op in ("||", ";", "\n") and command[pos + len(op):].strip():
            return True
    return False


def _check_at(command: str) -> int:
    m = rx(CHECK_TOOLS).search(command)
    return m.end() if m else -1


def _operators(command: str) -> list[tuple[int, str]]:
    """The shell operators of `command` outside quotes and heredoc bodies,
    with their positions."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(command)
    quote = ""
    heredocs: list[str] = []
    while i < n:
        c = command[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
            i += 1
            continue
        if c in "'\"":
            quote = c
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "#" and (i == 0 or command[i - 1] in " \t\n;|&("):
            end = command.find("\n", i)
            i = n if end < 0 else end
            continue
        if command.startswith("<<", i):
            m = rx(r"<<-?\s*(?:'(\w+)'|\"(\w+)\"|(\w+))").match(command[i:])
            if m:
                heredocs.append(next(g for g in m.groups() if g is not None))
                i += m.end()
                continue
        if c == "\n" and heredocs:
            out.append((i, "\n"))
            # Skip each heredoc's body, to its closing word.
            for word in heredocs:
                close = re.compile(r"(?m)^\s*" + re.escape(word) + r"\s*$").search(command, i + 1)
                i = n if close is None else close.end()
            heredocs = []
            continue
        m = _OPERATOR.match(command, i)
        if m:
            op = m.group(0)
            if op == "&" and (command.startswith(">", i + 1) or command[i - 1:i] in "<>"):
                i += 1  # `2>&1`, `&>file`: a redirection
                continue
            out.append((i, op))
            i += len(op)
            continue
        i += 1
    return out


# -- a check Claude ran to see it fail (a TDD red phase) ----------------------------------
# Claude's words that the check it runs next is meant to fail: "run the tests
# to confirm they fail (red phase)", "verify the new test fails", "this should
# fail", "expect them to fail".
# Each clause is read alone ("verify it builds and passes tests, then test the
# exact failing command" expects a pass: review 30 #4), and "failing" only as
# what the check is ("are still failing"), not as a name for a thing ("the
# failing test", "the failing command").
_EXPECTS_FAILURE = (
    r"(?i)\bred (?:phase|first)\b|\bred[- ]green\b.{0,40}\bred\b"
    r"|\b(?:confirm|verify|check|ensure|make sure|see|watch|show)\b[^.!?\n]{0,60}?"
    r"(?:\b(?:fails?|fail(?:s|ed)? as expected|is red|are red)\b"
    r"|\b(?:is|are|be|still|stays?|keeps?)\s+failing\b(?!\s+(?:test|command|case|check|spec)))"
    r"|\b(?:should|will|must|expect(?:ed|ing)?(?: (?:it|them|these|this|the tests?))? to)"
    r" (?:still )?fail\b")
# Where one clause of Claude's words ends: a sentence's end, a semicolon, "then".
_CLAUSE = r"[.!?;\n]|,?\s+(?:and\s+)?then\b"
# Words that expect the check to pass ("verify it builds and passes tests",
# "make sure the fix works"): a clause saying so does not expect a failure.
_EXPECTS_SUCCESS = (r"(?i)\b(?:pass(?:es)?|passing|succeeds?|works?|builds? (?:cleanly|fine|ok)"
                    r"|(?:is|are) (?:green|fixed)|no longer fails?|now passes"
                    r"|(?:no|nothing|none|not|n't)\s+(?:\w+\s+)?fail(?:s|ing)?)\b")
# A check's output that says the tests ran and some failed (not a build, a
# compile or a collection that failed before any test ran).
_TEST_FAILED = (r"(?m)^\s*(?:--- FAIL|FAIL\b|FAILED\b|[✗✕×] )|\b\d+ (?:failed|failing|failures?)\b"
                r"|^E {3,}\S|\bAssertionError\b|\btest result: FAILED\b|\bTests? failed\b")
_NOT_RUN = (r"(?i)\[build failed\]|\bundefined: |\bcould not compile\b|\berror\[E\d+\]"
            r"|\bSyntaxError\b|\bModuleNotFoundError\b|\bImportError\b|\bERROR collecting\b"
            r"|\berrors? during collection\b|\bno tests ran\b|\bcompilation failed\b"
            r"|\berror TS\d+\b|\bcannot find package\b|\bsetup failed\b")


# Claude's words that the command it runs next tries an error or a failure
# case on purpose ("now let me test the error case when there's no PR", "let's
# check the error handling with an invalid URL"): its failure is what it meant.
_TRIES_ERROR_CASE = (
    r"(?i)\b(?:test|tests|testing|try|trying|check|checking|verify|see|confirm|demonstrate"
    r"|show|exercise)\b[^.!?\n]{0,40}?"
    # (not "the previously failing case": one that failed before, now to pass)
    r"(?<!previously )(?<!formerly )(?<!originally )(?<!earlier )"
    r"\b(?:error|failure|failing|invalid[- ]input|edge)"
    r"[- ](?:cases?|paths?|handling|scenarios?|conditions?|messages?|behaviou?r)\b")


def tries_error_case(words: str) -> bool:
    """Whether Claude's words say the command it runs next tries an error case."""
    return bool(words) and rx(_TRIES_ERROR_CASE).search(words) is not None


def expects_failure(words: str) -> bool:
    """Whether Claude's words say the check it runs next is meant to fail:
    a clause of them that says so and does not say it is to pass."""
    if not words or rx(_EXPECTS_FAILURE).search(words) is None:
        return False
    return any(rx(_EXPECTS_FAILURE).search(clause) is not None
               and rx(_EXPECTS_SUCCESS).search(clause) is None
               for clause in rx(_CLAUSE).split(words))


def failed_as_tests(output: str) -> bool:
    """Whether a check's output is tests failing, not a build or a collection
    failing before any test ran."""
    return rx(_TEST_FAILED).search(output) is not None and rx(_NOT_RUN).search(output) is None


# -- how many tests failed and passed --------------------------------------------------------
# A runner's count line ("==== 1 failed, 19 passed, 208 deselected in 39.13s ====", cargo's
# "test result: ok. 5 passed; 0 failed", jest's "Tests: 1 failed, 5 passed, 6 total"), and a
# test's own line of a verbose run that never reached it ("x.py::test_y[a] FAILED [ 20%]":
# the run timed out, review 26 #15).
_COUNTED = r"\b(\d{1,7}) (passed|failed|errors?)\b"
_ONE_TEST = ("PASSED", "FAILED", "ERROR")  # after a test's id: "x.py::test_y PASSED [ 5%]"
TALLY_LINES = 400  # of the output's end: where a count line stands
TALLY_LINE_CHARS = 1000  # (a longer line is no count line nor a test's)


def tally(output: str) -> tuple[int, int] | None:
    """How many tests failed (errors included) and passed, by the last count
    line a runner printed; else by its verbose run's lines, one a test (a
    run cut off before its count: "timed out" after 8 FAILED and 9 PASSED);
    None when the output says neither."""
    lines = [ln for ln in _scanned(output).splitlines() if len(ln) <= TALLY_LINE_CHARS]
    for line in reversed(lines[-TALLY_LINES:]):
        found = rx(_COUNTED).findall(line) if ("passed" in line or "failed" in line) else []
        if found:
            failed = sum(int(k) for k, what in found if what != "passed")
            return failed, sum(int(k) for k, what in found if what == "passed")
    failed = passed = 0
    for line in lines:
        words = line.split(None, 2) if "::" in line else []
        if len(words) >= 2 and "::" in words[0] and words[1] in _ONE_TEST:
            passed += words[1] == "PASSED"
            failed += words[1] != "PASSED"
    return (failed, passed) if failed or passed else None


# -- a test runner's closing counts ----------------------------------------------------------
# Each runner's summary line, as it prints it at the end of a run: what
# failed and what passed are read from it, and they decide how the run ended,
# whatever other lines say (a test that checks an error case logs the error;
# a warning). (runner, the line, how its numbers read): "fp" a failed and a
# passed count in named groups `f` (and `e`, errors) and `p`, or a total `t`
# (either may be absent: 0; an empty `f` or `p` is one package); "words" every
# `N failed|failing|fail|failures|errors` and `N passed|passing|pass` on it.
_PYTEST_WORDS = (r"(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?"
                 r"|rerun|subtests? passed|subtests? failed)")
_PYTEST_Q = (r"[ \t]*\d{1,7} " + _PYTEST_WORDS + r"(?:, \d{1,7} " + _PYTEST_WORDS + r")*+"
             r" in \d+(?:\.\d+)?s\b(?: \(\d+:\d\d:\d\d\))?[ \t]*$")
RUNNER_SUMMARIES: tuple[tuple[str, str, str], ...] = (
    ("bun test", r"[ \t]*(?P<p>\d+) pass[ \t]*$", "fp"),
    ("bun test", r"[ \t]*(?P<f>\d+) fail[ \t]*$", "fp"),
    ("jest", r"(?:Tests|Test Suites):[ \t]+[^\n]*\btotal\b", "words"),
    ("vitest", r"[ \t]*(?:Tests|Test Files)[ \t]+[^\n]*\(\d+\)", "words"),
    ("mocha", r"[ \t]*(?P<p>\d+) passing\b", "fp"),
    ("mocha", r"[ \t]*(?P<f>\d+) failing[ \t]*$", "fp"),
    ("pytest", r"=+ [^=\n]* =+[ \t]*$", "words"),  # (its counts: `1 failed, 2 passed in 3s`)
    # `-q` prints the same counts with no `===` frame (review 29 #8: "2297
    # passed, 1 skipped, 1 warning in 126.83s (0:02:06)" was "result unknown").
    ("pytest -q", _PYTEST_Q, "words"),
    ("go test", r"ok[ \t]+\S+[ \t]+(?:\d+(?:\.\d+)?s|\(cached\))(?P<p>)", "fp"),
    ("go test", r"FAIL[ \t]+\S+[ \t]+(?:\d+(?:\.\d+)?s|\[(?:build|setup) failed\])(?P<f>)", "fp"),
    ("go test", r"[ \t]*--- FAIL: \S(?P<f>)", "fp"),  # (a test of a package not told `FAIL` yet)
    ("cargo test", r"test result: (?:ok|FAILED)\. (?P<p>\d+) passed; (?P<f>\d+) failed\b", "fp"),
    ("rspec", r"(?P<t>\d+) examples?, (?P<f>\d+) failures?\b", "fp"),
    ("mix test", r"(?:\d+ doctests?, )?(?:\d+ propert(?:y|ies), )?(?P<t>\d+) tests?, "
                 r"(?P<f>\d+) failures?\b", "fp"),
    ("phpunit", r"OK \((?P<p>\d+) tests?, \d+ assertions?\)", "fp"),
    ("phpunit", r"Tests: (?P<t>\d+), Assertions: \d+(?:, Errors: (?P<e>\d+))?"
                r"(?:, Failures: (?P<f>\d+))?", "fp"),
    ("dotnet", r"(?:Passed|Failed)!\s+-\s+Failed:\s+(?P<f>\d+),\s+Passed:\s+(?P<p>\d+)", "fp"),
    ("gradle", r"(?P<t>\d+) tests? completed, (?P<f>\d+) failed\b", "fp"),
    ("maven", r"\[(?:INFO|ERROR|WARNING)\] Tests run: (?P<t>\d+), Failures: (?P<f>\d+), "
              r"Errors: (?P<e>\d+), Skipped: \d+[ \t]*$", "fp"),
    ("deno test", r"(?:ok|FAILED) \| (?P<p>\d+) passed[^|\n]*\| (?P<f>\d+) failed\b", "fp"),
    ("xctest", r"[ \t]*Executed (?P<t>\d+) tests?, with (?P<f>\d+) failures?\b", "fp"),
)
_RUNNER_AT = [("^" + _TASK_PREFIX + "(?:" + p + ")", how) for _, p, how in RUNNER_SUMMARIES]
# All of them at once, to pass over the other lines quickly.
_ANY_RUNNER = ("^" + _TASK_PREFIX + "(?:" + "|".join(
    re.sub(r"\(\?P<\w+>", "(?:", p) for _, p, _ in RUNNER_SUMMARIES) + ")")
_WORD_COUNT = r"\b(\d{1,7}) (passed|passing|pass|failed|failing|fail|failures?|errors?)\b"
# unittest names its count and its end on lines of their own.
_UNITTEST_RAN = r"(?m)^Ran (\d+) tests? in [\d.]+s[ \t]*$"
_UNITTEST_END = r"(?m)^(?:OK\b|FAILED \()"
_UNITTEST_FAILED = r"(?m)^FAILED \((?:failures=(\d+))?(?:, )?(?:errors=(\d+))?"


def _after_counts(text: str) -> int:
    """Where the line after the last runner's closing line starts (0: none)."""
    at = end = 0
    for m in rx(_UNITTEST_END).finditer(text):
        end = text.find("\n", m.end()) + 1 or len(text)
    for line in text.splitlines(keepends=True):
        at += len(line)
        if len(line) <= TALLY_LINE_CHARS and rx(_ANY_RUNNER).match(line.rstrip("\r\n")):
            end = max(end, at)
    return end


def runner_counts(output: str) -> tuple[int, int] | None:
    """How many tests failed (errors included) and passed, by the closing
    lines of the test runners that printed them (summed: cargo prints one a
    crate, go one a package), or None when no runner printed one. On a line
    that counts files (jest's `Test Suites:`, vitest's `Test Files`), a failed
    file is a failure; the passes are the tests' own line's."""
    text = _scanned(output)
    failed = passed = 0
    found = False
    for line in text.splitlines():
        if len(line) > TALLY_LINE_CHARS:
            continue
        if not rx(_ANY_RUNNER).match(line):
            continue
        for pattern, how in _RUNNER_AT:
            m = rx(pattern).match(line)
            if m is None:
                continue
            if how == "words":
                counted = rx(_WORD_COUNT).findall(line)
                files = "Suites" in line or "Files" in line
                for n, word in counted:
                    if word.startswith("pass"):
                        passed += 0 if files else int(n)
                    else:
                        failed += int(n)
                found = found or bool(counted)  # (`=== FAILURES ===` counts nothing)
                break
            found = True
            g = m.groupdict()
            f = int(g.get("f") or 0) + int(g.get("e") or 0)
            if g.get("f") == "":
                f = 1  # (go: a package failed)
            failed += f
            if g.get("p") is not None:
                passed += int(g["p"]) if g["p"] else 1
            elif g.get("t") is not None:
                passed += max(0, int(g["t"]) - f)
            break
    ran = rx(_UNITTEST_RAN).findall(text)
    if ran and rx(_UNITTEST_END).search(text):
        total = sum(int(n) for n in ran)
        bad = sum(int(a or 0) + int(b or 0) for a, b in rx(_UNITTEST_FAILED).findall(text))
        failed, passed, found = failed + bad, passed + max(0, total - bad), True
    return (failed, passed) if found else None


# What a test command prints when it ran no test: none found or collected;
# or the command itself did not run (a usage error, a command not found).
# (Not go's `[no test files]`: printed for a package without tests beside the
# `ok` of those with, which `| grep -v ^ok` may have taken out.)
_NO_TESTS = (r"(?im)\bno tests (?:ran|found|to run)\b|\bcollected 0 items\b"
             r"|\bno test files? found\b|\bno tests executed\b"
             r"|^Ran 0 tests\b|\bno test suites? found\b")
_NOT_RUN_CMD = (r"(?m)^" + _TASK_PREFIX + r"(?:error: (?:unrecognized subcommand|unexpected "
                r"argument|unrecognized (?:option|argument)|unknown (?:command|subcommand|option)"
                r"|no such (?:sub)?command|Script not found)\b|[Uu]sage: \S"
                r"|[^\n]{0,200}?: (?:command not found|not found)[ \t]*$)")


def ran_no_test(output: str) -> str:
    """Why a test command that did not fail ran no test: "no tests" (none
    found, collected or run), "not run" (a usage error or a command not
    found: what ran was not the tests), or "" when its output does not say
    so (or a runner counted tests)."""
    text = _scanned(output)
    counts = runner_counts(text)
    if counts is not None and (counts[0] or counts[1]):
        return ""
    if counts is not None or rx(_NO_TESTS).search(text):
        return "no tests"
    # (printed first, in a short output: a test's own log line saying so
    # further down is not the command failing to start)
    head = text.lstrip().split("\n", 3)
    if len(text) < 4000 and rx(_NOT_RUN_CMD).search("\n".join(head[:3])):
        return "not run"
    return ""
