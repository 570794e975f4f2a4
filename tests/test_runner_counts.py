"""A test run's verdict is its runner's closing counts, as the runner prints them.

Review 28, findings 15 and 16 (ff36d868): `bun test src/ … 2>&1 | tail -20`
printed " 1329 pass / 0 fail … Ran 1329 tests across 60 files." and the note
said "failed" and "tests failing at the last run" (a passing test logs the
error it checks: `error: Database connection failed`); `rtk bun run test 2>&1
| head -100` printed rtk's "error: unrecognized subcommand 'bun' … Usage:" and
the note said "passed", though no test ran.

Generated: runners × their summary formats × counts × noise lines a passing
run prints (error logs, warnings, stack lines) × how the command is piped.
The oracle is the counts the generator printed, in each runner's own format
(written here from the runners' documented output, not from vibe_vault): a
failure → failed; passes and no failure → passed; no test → "ran no tests".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter
from vibe_vault.fold import verdicts

SID = "7e57c0de-1111-4222-8333-944455556666"


def summary(runner: str, failed: int, passed: int) -> str:
    """What `runner` prints at the end of a run of `failed` + `passed` tests."""
    total = failed + passed
    if runner == "bun":
        return (f"\n {passed} pass\n {failed} fail\n {total * 2} expect() calls\n"
                f"Ran {total} tests across 3 files. [820.00ms]")
    if runner == "jest":
        f = f"{failed} failed, " if failed else ""
        suites = f"Test Suites: {1 if failed else 0} failed, 2 passed, {3 if failed else 2} total" \
            if failed else "Test Suites: 2 passed, 2 total"
        return f"{suites}\nTests:       {f}{passed} passed, {total} total\nTime:        1.2 s"
    if runner == "vitest":
        f = f"{failed} failed | " if failed else ""
        return (f" Test Files  {'1 failed | ' if failed else ''}2 passed ({3 if failed else 2})\n"
                f"      Tests  {f}{passed} passed ({total})\n   Duration  1.02s")
    if runner == "mocha":
        return f"  {passed} passing (2s)" + (f"\n  {failed} failing" if failed else "")
    if runner == "pytest":
        words = ", ".join(w for w in [f"{failed} failed" if failed else "",
                                      f"{passed} passed" if passed else ""] if w)
        return f"========== {words} in 1.23s =========="
    if runner == "cargo":
        word = "FAILED" if failed else "ok"
        return (f"running {total} tests\ntest result: {word}. {passed} passed; {failed} failed; "
                "0 ignored; 0 measured; 0 filtered out; finished in 0.01s")
    if runner == "rspec":
        return f"Finished in 0.5 seconds\n{total} examples, {failed} failures"
    if runner == "mix":
        return f"Finished in 0.1 seconds\n{total} tests, {failed} failures"
    if runner == "phpunit":
        if not failed:
            return f"OK ({passed} tests, {passed * 3} assertions)"
        return f"FAILURES!\nTests: {total}, Assertions: {total * 3}, Failures: {failed}."
    if runner == "dotnet":
        word = "Failed!" if failed else "Passed!"
        return (f"{word}  - Failed:     {failed}, Passed:    {passed}, Skipped:     0, "
                f"Total:    {total}, Duration: 1 s - App.Tests.dll (net8.0)")
    if runner == "maven":
        level = "ERROR" if failed else "INFO"
        return (f"[{level}] Tests run: {total}, Failures: {failed}, Errors: 0, Skipped: 0\n"
                f"[{level}] BUILD {'FAILURE' if failed else 'SUCCESS'}")
    if runner == "unittest":
        end = f"FAILED (failures={failed})" if failed else "OK"
        return f"{'-' * 70}\nRan {total} tests in 0.123s\n\n{end}"
    if runner == "deno":
        word = "FAILED" if failed else "ok"
        return f"{word} | {passed} passed | {failed} failed (1s)"
    raise AssertionError(runner)


COMMANDS = {"bun": "bun test src/ --timeout 10000", "jest": "npx jest", "vitest": "npx vitest run",
            "mocha": "npx mocha", "pytest": "pytest -q", "cargo": "cargo test",
            "rspec": "bundle exec rspec", "mix": "mix test", "phpunit": "vendor/bin/phpunit",
            "dotnet": "dotnet test", "maven": "mvn test", "unittest": "python -m unittest",
            "deno": "deno test", "pytest-q": "uv run pytest --tb=short -q"}
NOISE = [
    "error: Database connection failed",
    "      at <anonymous> (/app/src/api/routes/evaluation.test.ts:317:25)",
    "Error: expected failure in mocked client",
    "[EvaluationRoutes] Error in POST /api/evaluate: boom",
    "npm WARN deprecated inflight@1.0.6: This module is not supported",
    "warning: unused variable: `x`",
    "WARNING: this test logs an ERROR on purpose",
    "[ERROR] mock upstream returned 500",
    "console.error: request failed with status 503",
    "npm error code ELIFECYCLE in a test's fixture log",
    "E   logged line",
]
# pytest -q's closing line: its counts in pytest's order, no `===` frame
# (review 29 #8: "2297 passed, 1 skipped, 1 warning in 126.83s (0:02:06)").
PYTEST_Q_EXTRAS = ("skipped", "deselected", "xfailed", "xpassed", "warnings")


@st.composite
def pytest_q(draw: st.DrawFn, failed: int, passed: int) -> str:
    errors = draw(st.integers(0, 2))
    extra = {w: draw(st.integers(0, 40)) for w in PYTEST_Q_EXTRAS}
    words = [f"{failed} failed" if failed else "", f"{passed} passed" if passed else "",
             *(f"{n} {w[:-1] if w == 'warnings' and n == 1 else w}"
               for w, n in extra.items() if n),
             f"{errors} error{'s' if errors > 1 else ''}" if errors else ""]
    secs = draw(st.sampled_from(["0.12s", "2.44s", "126.83s (0:02:06)", "3601.00s (1:00:01)"]))
    dots = "." * min(passed, 60) + "F" * failed + "s" * min(extra["skipped"], 5)
    progress = draw(st.sampled_from(["", f"{dots}{' ' * 10}[100%]\n"]))
    return f"{progress}{', '.join(w for w in words if w)} in {secs}"


PIPES = ["", " 2>&1", " 2>&1 | tail -20", " | tail -n 40", " 2>&1 | head -100", "; echo done"]


@st.composite
def runs(draw: st.DrawFn) -> tuple[str, str, int, int, bool]:
    """A test command, its output, its counts, and whether its exit status is
    the runner's failure (it ran unpiped and a test failed)."""
    runner = draw(st.sampled_from(sorted(COMMANDS)))
    failed = draw(st.integers(0, 3) | st.just(0))
    passed = draw(st.integers(0 if failed else 1, 2000))
    noise = draw(st.lists(st.sampled_from(NOISE), max_size=6))
    pipe = draw(st.sampled_from(PIPES))
    head = "\n".join(noise)
    closing = draw(pytest_q(failed, passed)) if runner == "pytest-q" else \
        summary(runner, failed, passed)
    out = (head + "\n" if head else "") + closing
    if runner == "pytest-q" and rx_errors(closing):
        failed = max(failed, 1)  # (an error is a failure of the run)
    return COMMANDS[runner] + pipe, out, failed, passed, failed > 0 and pipe in ("", " 2>&1")


def rx_errors(closing: str) -> bool:
    """Whether pytest's closing line counts errors (`1 error`, `2 errors`)."""
    return re.search(r"\b[1-9]\d* errors?\b", closing) is not None


@settings(max_examples=examples(300, 1500), deadline=None)
@given(run=runs())
def test_judge_reads_the_runner_counts(run: tuple[str, str, int, int, bool]) -> None:
    _, out, failed, passed, _ = run
    assert verdicts.judge(out) == ("failed" if failed else "passed")
    counts = verdicts.runner_counts(out)
    assert counts is not None
    assert (counts[0] > 0) == (failed > 0)
    assert counts[1] == passed  # (a line of files' counts adds a failed file, not passes)
    assert verdicts.ran_no_test(out) == ""


NO_TESTS = [
    ("pytest -q", "========== no tests ran in 0.01s =========="),
    ("bun test", " 0 pass\n 0 fail\nRan 0 tests across 0 files. [5.00ms]"),
    ("cargo test", "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; "
                   "0 measured; 0 filtered out; finished in 0.00s"),
    ("npx jest", "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit "
                 "with code 0"),
    ("npx vitest run", "No test files found, exiting with code 1"),
    ("python -m unittest", "\n" + "-" * 70 + "\nRan 0 tests in 0.000s\n\nNO TESTS RAN"),
]
NOT_RUN = [
    ("rtk bun run test", "error: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS] "
                         "<COMMAND>\n\nFor more information, try '--help'."),
    ("npx vitest run", "bash: line 1: vitest: command not found"),
    ("pytest -q", "/bin/sh: 1: pytest: not found"),
    ("bun run test", "error: Script not found \"test\""),
    ("cargo test", "error: unexpected argument '--foo' found\n\nUsage: cargo test [OPTIONS]"),
]


def _session(command: str, out: str, is_error: bool) -> list[bytes]:
    base: dict[str, Any] = {"sessionId": SID, "cwd": "/srv/app", "version": "2.1.50",
                            "gitBranch": "main", "isSidechain": False, "userType": "external"}
    content = f"Exit code 1\n{out}" if is_error else out
    rows = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None,
         "timestamp": "2026-02-23T14:06:58.000Z",
         "message": {"role": "user", "content": "run the tests please"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "timestamp": "2026-02-23T14:07:00.000Z", "requestId": "req_1",
         "message": {"id": "msg_1", "model": "claude-haiku-4-5", "role": "assistant",
                     "type": "message", "usage": {"input_tokens": 3, "output_tokens": 9},
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                  "input": {"command": command}}]}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1",
         "timestamp": "2026-02-23T14:07:02.000Z",
         "toolUseResult": {"stdout": "" if is_error else out, "stderr": "",
                           "interrupted": False},
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_1", "content": content,
              "is_error": is_error}]}},
        {**base, "type": "assistant", "uuid": "a2", "parentUuid": "u2",
         "timestamp": "2026-02-23T14:07:05.000Z", "requestId": "req_2",
         "message": {"id": "msg_2", "model": "claude-haiku-4-5", "role": "assistant",
                     "type": "message", "usage": {"input_tokens": 3, "output_tokens": 9},
                     "content": [{"type": "text", "text": "Done."}]}},
    ]
    return [json.dumps(o).encode() for o in rows]


def _note(env: Env, lines: list[bytes]) -> str:
    path = env.transcript(SID, lines)
    r = env.vv_here("backfill", str(path.parent))
    assert r.returncode == 0, r.stderr
    notes = [n for k, n in env.notes().items() if "/sessions/" in k]
    assert len(notes) == 1
    return notes[0]


def _ran_line(note: str, command: str) -> str:
    lines = [ln for ln in note.splitlines() if ln.startswith("- Ran tests `")]
    assert lines, note
    return lines[0]


@settings(max_examples=examples(20, 80), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs())
def test_the_note_tells_the_run_as_its_counts_say(tmp_path_factory: pytest.TempPathFactory,
                                                  run: tuple[str, str, int, int, bool]) -> None:
    command, out, failed, _, exit_failed = run
    note = _note(Env(tmp_path_factory.mktemp("runs")), _session(command, out, exit_failed))
    line = _ran_line(note, command)
    head = str(frontmatter(note)["summary"])
    if failed:
        assert " — failed" in line, line
        assert "tests failing at the last run" in head, head
    else:
        assert " — passed" in line, line
        assert "tests passed at the last run" in head, head


@pytest.mark.parametrize(("command", "out"), NO_TESTS + NOT_RUN)
@pytest.mark.parametrize("pipe", [" 2>&1 | tail -20", " 2>&1 | head -100"])
def test_a_run_of_no_test_is_not_a_pass(tmp_path: Path, command: str, out: str,
                                        pipe: str) -> None:
    """Piped (its status the pipe's 0): what it printed says no test ran."""
    note = _note(Env(tmp_path), _session(command + pipe, out, False))
    line = _ran_line(note, command)
    assert " — ran no tests" in line, line
    head = str(frontmatter(note)["summary"])
    assert "tests passed" not in head and "tests failing" not in head, head


def test_ff36d868_last_run_passed_and_rtk_ran_none(tmp_path: Path) -> None:
    """The two runs of finding 15 and 16, in the order the session ran them."""
    noisy = ("[EvaluationRoutes] Error in POST /api/evaluate: 312 | expect(r.status)\n"
             "error: Database connection failed\n      at <anonymous> (/a/evaluation.test.ts:317:25)"
             "\n\n" + summary("bun", 0, 1329))
    lines = _session("rtk bun run test 2>&1 | head -100", NOT_RUN[0][1], False)
    more = _session("bun test src/ --timeout 10000 2>&1 | tail -20", noisy, False)
    k = "x"  # (its own uuids and ids, after the first run's)
    for raw in more:
        o = json.loads(raw)
        o["uuid"] = o["uuid"] + k
        o["parentUuid"] = "a2" if o["parentUuid"] is None else o["parentUuid"] + k
        o["timestamp"] = o["timestamp"].replace("14:0", "14:1")
        if "requestId" in o:
            o["requestId"] += k
            o["message"]["id"] += k
        content = o["message"]["content"]
        if isinstance(content, list):
            for b in content:
                if "id" in b:
                    b["id"] += k
                if "tool_use_id" in b:
                    b["tool_use_id"] += k
        lines.append(json.dumps(o).encode())
    note = _note(Env(tmp_path), lines)
    assert "tests passed at the last run" in str(frontmatter(note)["summary"])
    ran = [ln for ln in note.splitlines() if ln.startswith("- Ran tests `")]
    assert " — ran no tests" in ran[0] and " — passed" in ran[1], ran


LATER_FAILURES = ["Found {n} error", "Found {n} errors", "Found {n} diagnostics",
                  "make: *** [Makefile:12: lint] Error {n}", "✖ {n} problems (1 error, 0 warnings)"]


@settings(max_examples=examples(100, 500), deadline=None)
@given(run=runs(), later=st.sampled_from(LATER_FAILURES), n=st.integers(1, 9),
       clean=st.booleans())
def test_a_tool_failing_after_passing_tests_fails_the_command(
        run: tuple[str, str, int, int, bool], later: str, n: int, clean: bool) -> None:
    """`pytest -q | tail; echo; ruff check | tail`: the tests' closing line
    says passed, the linter below it failed (review 29, 719e4ab3): the
    command failed. A linter that printed nothing wrong leaves the tests' verdict."""
    _, out, failed, _, _ = run
    tail = "=== ruff ===\nAll checks passed!" if clean else \
        f"=== ruff ===\n{later.format(n=n)}"
    verdict = verdicts.judge(f"{out}\n{tail}")
    assert verdict == ("failed" if failed or not clean else "passed"), (out, tail)
