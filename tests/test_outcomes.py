"""How commands ended, told from evidence (issue 29, review 3).

A check piped on (`go test ./... 2>&1 | tail -30`, `|| true`, `; echo $?`)
exits with the last command's status: its outcome is read from what its tool
printed. Each test writes a transcript from generated parts (a runner, a
pipe, output lines some of which are the tool's own failure lines and some
look-alikes) and checks the note against those parts: the run failed exactly
when a failure line was put in and the pipe hid the status, and the error
shown is the first failure line put in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import Env, corpus_files, examples, frontmatter, json_objects, main_files
from test_headlines import Transcript, words
from vibe_vault.render import render

# (runner command, kind) : what a person runs to check their work
RUNNERS = [
    ("go test ./...", "test"), ("pytest -q", "test"), ("uv run pytest tests/", "test"),
    ("cargo test", "test"), ("npm test", "test"), ("mise run test:integration", "test"),
    ("cargo clippy -- -D warnings", "command"), ("mise run lint", "command"),
    ("golangci-lint run ./...", "command"), ("go build ./...", "build"),
    ("npx tsc --noEmit", "command"), ("ruff check src", "command"),
]
# What hides the runner's exit status, and what does not.
MASKS = ["2>&1 | tail -{n}", "| head -{n}", "2>&1 | grep -v ok", "| tee out.log",
         "|| true", "; echo exit=$?"]
KEEPS = ["", "2>&1", "&& echo done", "> out.log 2>&1"]
# Lines a tool prints when something failed. A finding names what failed (a
# file and line, a test, the error's words); a summary only says that
# something did. The first finding put in leads the error, else the first
# summary: `ERROR task failed` printed before the linter's findings says nothing.
name = st.from_regex(r"[A-Z][a-z]{2,8}[A-Z][a-z]{2,8}", fullmatch=True)
# (words a secret rule would take for a password's name, as `pw`, are left out)
path = st.sampled_from(["cmd/app", "internal/store", "pkg/hooks", "src/parser", "lib/io_util"])
count = st.integers(1, 40)
FINDING_LINES = st.one_of(
    name.map(lambda n: f"--- FAIL: Test{n} (0.04s)"),
    st.tuples(path, count).map(lambda pc: f"{pc[0]}.go:{pc[1]}:3: undefined: setupRepo"),
    st.tuples(path, count).map(lambda pc: f"[lint:go] {pc[0]}.go:{pc[1]}:3: x is unused"),
    path.map(lambda p: f"FAILED tests/{p}.py::test_one - AssertionError"),
    st.just("E       AssertionError: assert 1 == 2"),
    path.map(lambda p: f"error[E0425]: cannot find value `x` in {p}"),
    path.map(lambda p: f"error[call-non-callable]: `x` in {p} is not callable"),
    path.map(lambda p: f"src/{p}.ts(3,7): error TS2304: Cannot find name 'x'."),
)
SUMMARY_LINES = st.one_of(
    path.map(lambda p: f"FAIL\texample.com/{p}\t0.51s"),
    path.map(lambda p: f"FAIL\texample.com/{p} [build failed]"),
    st.tuples(count, count).map(lambda c: f"==== {c[0]} failed, {c[1]} passed in 2.95s ===="),
    path.map(lambda p: f"error: could not compile `{p.replace('/', '-')}` (lib)"),
    st.just("test result: FAILED. 3 passed; 1 failed; 0 ignored"),
    st.sampled_from(["[lint] ERROR task failed", "ERROR task failed"]),
    count.map(lambda c: f"{c} issues:"),
    count.map(lambda c: f"Found {c} errors."),
    st.just("npm ERR! code ELIFECYCLE"),
    count.map(lambda c: f"Tests:       {c} failed, 3 passed, {c + 3} total"),
)
# (kind, line): which list made a line is the oracle's knowledge of what it is.
FAILURE_LINES = st.one_of(FINDING_LINES.map(lambda ln: ("finding", ln)),
                          SUMMARY_LINES.map(lambda ln: ("summary", ln)))


def findings_first(failures: list[tuple[str, str]]) -> str | None:
    """Of the failure lines put in, the one that should lead an error: the
    first finding, else the first summary; None when none was put in. pytest
    prints its explanation (`E   assert 1 == 2`) before the short summary's
    line naming the test (`FAILED tests/x.py::test_one - …`): when the first
    finding is such an `E` line and a later line names a test, that line leads
    (what failed, then why)."""
    lead = next((ln for kind, ln in failures if kind == "finding"), None) or \
        next((ln for _, ln in failures), None)
    if lead is not None and lead.startswith("E   "):
        later = [ln for _, ln in failures[[ln for _, ln in failures].index(lead) + 1:]]
        return next((ln for ln in later if ln.startswith("FAILED tests/")), lead)
    return lead


def headline_of(lines: list[str], at: str) -> str:
    """The line `at` as an error's first line: collapsed (the note joins one
    ending on a colon to the next: see test_error_lines)."""
    assert at in lines
    return " ".join(at.split())


# Lines that mention failure in passing: never a failure.
LOOK_ALIKES = st.one_of(
    st.sampled_from([
        "improved error handling in the parser", "0 failed", "no errors found",
        "All checks passed!", "=== RUN   TestFailover", "Finished `test` profile in 1.2s",
        "    --- PASS: TestFAILSafe (0.00s)",
        "tests/test_x.py::test_error_path PASSED", "0 issues.", "Found 0 errors.",
        "warning: unused variable `e`", "Build complete: 0 errors, 0 warnings",
        "log: retrying after error", "FAILOVER=1 set", "ERRORS: none",
    ]),
    words.map(lambda w: f"{w} error {w}"),
)
PASS_LINES = {"go test ./...": "ok  \texample.com/app\t0.31s",
              "pytest -q": "==== 5 passed in 0.12s ====",
              "uv run pytest tests/": "==== 5 passed in 0.12s ====",
              "cargo test": "test result: ok. 5 passed; 0 failed; 0 ignored",
              "npm test": "Tests:       5 passed, 5 total",
              "mise run test:integration": "ok  \texample.com/app\t35.1s"}


def _counted_failures(line: str) -> int | None:
    """How many failures a line put in counts, when it is a test runner's
    closing count (go's `FAIL pkg` and `--- FAIL: TestX` a failure each, pytest's
    and cargo's and jest's counts, the pass lines' 0), else None."""
    if line in PASS_LINES.values():
        return 0
    if line.startswith(("FAIL\texample.com/", "--- FAIL: Test")):
        return 1
    for prefix in ("==== ", "Tests:       "):
        if line.startswith(prefix) and " failed" in line:
            return int(line[len(prefix):].split()[0])
    if line.startswith("test result: FAILED."):
        return 1
    return None


def bash_result(t: Transcript, command: str, output: str) -> None:
    """A Bash call that exited 0 with `output` (as Claude Code 2.x writes it)."""
    t.call("Bash", {"command": command, "description": "Check it"},
           {"stdout": output, "stderr": "", "interrupted": False}, output)


@settings(max_examples=examples(40, 150), deadline=None)
@given(runner=st.sampled_from(RUNNERS), mask=st.sampled_from(MASKS + KEEPS),
       n=st.integers(5, 80), noise=st.lists(LOOK_ALIKES, max_size=6),
       failed=st.lists(FAILURE_LINES, max_size=3), passed=st.booleans(),
       cd=st.booleans())
# (pytest's own order: the explanation, then the line naming the test)
@example(runner=("pytest -q", "test"), mask="2>&1 | tail -{n}", n=5, noise=[],
         failed=[("finding", "E       AssertionError: assert 1 == 2"),
                 ("finding", "FAILED tests/src/parser.py::test_one - AssertionError")],
         passed=False, cd=False)
def test_a_piped_check_is_judged_by_its_output(
        runner: tuple[str, str], mask: str, n: int, noise: list[str],
        failed: list[tuple[str, str]],
        passed: bool, cd: bool) -> None:
    command, kind = runner
    full = (f"cd /work/app && {command} " if cd else f"{command} ") + mask.format(n=n)
    full = full.strip()
    pass_line = PASS_LINES.get(command, "") if passed else ""
    failures = [ln for _, ln in failed]
    output = "\n".join([*noise, *failures, *([pass_line] if pass_line else [])])
    t = Transcript()
    t.prompt("run the checks")
    bash_result(t, full, output)
    t.say("Done.")
    state = t.state()
    (row,) = state.fold.commands
    hidden = mask in MASKS
    # The oracle: the parts put in, not the code's reading of them. A test
    # runner's closing counts, where one was put in, decide (review 28 #15: a
    # passing run logs errors): how many failed by those lines.
    counted = [_counted_failures(ln) for ln in [*failures, pass_line] if ln]
    runner_said = [c for c in counted if c is not None]
    if hidden and runner_said and not sum(runner_said):
        assert row.status == "ok", (full, output)
        assert not state.fold.errors
    elif hidden and failures:
        assert row.status == "failed", (full, output)
        (err,) = state.fold.errors
        lines = output.split("\n")
        lead = findings_first(failed)
        assert lead is not None
        assert err.text.partition("\n")[0] == headline_of(lines, lead), err.text
    elif hidden and kind == "test" and not pass_line:
        assert row.status == "unknown", (full, output)
        assert not state.fold.errors
    else:
        assert row.status == "ok", (full, output)
        assert not state.fold.errors
    note = render(state)
    # The pipe is shown: it is part of the command, and of what its status says.
    if "|" in mask:
        assert mask.format(n=n).split("|")[-1].strip() in note
    if row.status == "failed":
        assert "## Errors" in note and "— failed" in note
    if row.status == "unknown":
        assert "tests passed at the last run" not in note
        assert "result unknown" in note


@settings(max_examples=40, deadline=None)
@given(failed=FAILURE_LINES, noise=st.lists(LOOK_ALIKES, max_size=4))
def test_a_failed_check_leads_with_its_first_failure_line(
        failed: tuple[str, str], noise: list[str]) -> None:
    """A check that failed (exit 1) is headed by the first line its tool marks
    as failing, not by a banner or an assert line shown before it."""
    t = Transcript()
    t.prompt("run the tests")
    lines = ["Exit code 1", "============ test session starts ============",
             ">       assert 'Error:' in captured.err", *noise, failed[1], "the end"]
    output = "\n".join(lines)
    t.call("Bash", {"command": "pytest -x"}, f"Error: {output}", output, error=True)
    (err,) = t.state().fold.errors
    assert err.text.partition("\n")[0] == headline_of(lines, failed[1])


def test_a_successful_unpiped_run_is_trusted_whatever_it_prints() -> None:
    t = Transcript()
    t.prompt("run")
    bash_result(t, "go test ./...", "--- FAIL: TestX (0.01s)\nFAIL")  # exit 0 is go's own
    assert t.state().fold.commands[0].status == "ok"


def test_other_piped_commands_are_not_judged_by_what_they_print() -> None:
    t = Transcript()
    t.prompt("show the log")
    bash_result(t, "cat build.log | tail -20", "error: could not compile `x`\nFAIL")
    assert t.state().fold.commands[0].status == "ok"


def test_a_piped_failure_end_to_end(env: Env) -> None:
    """Through `vv backfill`: the run reads as failed, its first failure line is
    under Errors, the command keeps its pipe, and the summary does not say the
    tests passed."""
    t = Transcript(sid="0b1c2d3e-0000-4000-8000-0000000000aa")
    t.prompt("run the integration tests")
    output = ("[test:integration] $ go test -tags=integration ./...\n"
              "--- FAIL: TestAgentHookInstallation (0.04s)\n"
              "    agent_test.go:122: InstallHooks() count = 7, want 6\nFAIL\n"
              "FAIL\tentire.io/cli/integration_test\t35.075s\n"
              "[test:integration] ERROR task failed")
    bash_result(t, "mise run test:integration 2>&1 | tail -40", output)
    t.say("All tests pass.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert "`mise run test:integration 2>&1 | tail -40` — failed" in note
    # Under Errors: the command that failed (by its description, as the story
    # tells it), and what it printed from its first failure line.
    assert "**Bash**: Check it: `mise run test:integration 2>&1 | tail -40` failed" in note
    assert "\n  --- FAIL: TestAgentHookInstallation (0.04s)\n" in note
    assert "tests failing at the last run" in str(frontmatter(note)["summary"])


# -- the sessions of review 3 --------------------------------------------------------------


def _outputs(path: Path) -> list[tuple[str, str, str, bool]]:
    """(command, description, output, is_error) of every Bash call of a
    transcript, from the JSON."""
    calls: dict[str, tuple[str, str]] = {}
    out = []
    for o in json_objects(path):
        content = (o.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and b.get("name") == "Bash":
                inp = b.get("input") or {}
                calls[str(b.get("id"))] = (str(inp.get("command") or ""),
                                           str(inp.get("description") or ""))
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                text = b.get("content")
                if isinstance(text, list):
                    text = "\n".join(str(x.get("text") or "") for x in text if isinstance(x, dict))
                command, description = calls[b["tool_use_id"]]
                out.append((command, description, str(text), bool(b.get("is_error"))))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("checkpoint", ["26/dcd5518fea", "ad/a8171575ce", "0f/54ff53e6a4"])
def test_review_sessions_piped_failures_read_as_failed(env: Env, checkpoint: str) -> None:
    """Corpus: the review's cli-1, cli-2 and mementor sessions. Every described
    Bash call piped into tail/head/grep whose output holds the tool's own
    failure line (`--- FAIL`, `[build failed]`, `ERROR task failed`, `could not
    compile`, found here with plain substring tests) is told failed: as many
    story lines of its description read "— failed" as there are such calls."""
    (main,) = [p for p in corpus_files() if checkpoint in str(p) and p.name == "full.jsonl"]
    ends = ("ERROR task failed", "[build failed]", "could not compile", "--- FAIL")
    failing: dict[str, int] = {}
    for command, description, text, err in _outputs(main):
        if description and not err and "|" in command and any(e in text for e in ends):
            failing[description.rstrip(".")] = failing.get(description.rstrip("."), 0) + 1
    assert failing, "the review found piped failures here"
    from test_backfill import backfill, lay_out
    lay_out(env, [main])
    backfill(env)
    (note,) = env.notes().values()
    for description, calls in failing.items():
        told = [ln for ln in note.splitlines() if ln.startswith(f"- {description}: `")]
        assert sum(1 for ln in told if "` — failed" in ln) >= calls, (description, told)


# -- PRs: only those the session made or merged ---------------------------------------------

repo = st.sampled_from(["acme/widgets", "obra/helper", "me/tool"])
pr_no = st.integers(1, 999)
PR_STEPS = st.one_of(
    st.tuples(st.just("create"), repo, pr_no),
    st.tuples(st.just("merge"), repo, pr_no),
    st.tuples(st.just("view"), repo, pr_no),
    st.tuples(st.just("list"), repo, pr_no),
    st.tuples(st.just("help"), st.just("owner/repo"), st.just(123)),
    st.tuples(st.just("read"), repo, pr_no),
    st.tuples(st.just("link"), repo, pr_no),
)


@settings(max_examples=examples(30, 80), deadline=None)
@given(steps=st.lists(PR_STEPS, max_size=6))
def test_prs_are_those_the_session_made_or_merged(steps: list[tuple[str, str, int]]) -> None:
    """`gh pr create` output, `gh pr merge` and Claude Code's pr-link rows are
    PRs of the session; a PR URL in `gh pr view`/`gh pr list` output, help
    text or a file read is not, and `owner/repo#123` never is."""
    t = Transcript()
    t.prompt("ship it")
    made: dict[tuple[str, int], bool] = {}  # (repo, number) -> merged
    for kind, rp, no in steps:
        url = f"https://github.com/{rp}/pull/{no}"
        if kind == "create":
            bash_result(t, "gh pr create --fill", f"Creating pull request\n\n{url}\n")
            made.setdefault((rp, no), False)
        elif kind == "merge":
            bash_result(t, f"gh pr merge {url} --squash",
                        f"✓ Squashed and merged pull request {rp}#{no} (Fix)\n")
            made[(rp, no)] = True
        elif kind == "view":
            bash_result(t, "gh pr view --json url", json.dumps({"url": url}))
        elif kind == "list":
            bash_result(t, "gh pr list", f"{no}\tFix things\tfeature\tOPEN\t{url}")
        elif kind == "help":
            bash_result(t, "extract --help | head -30",
                        f"EXAMPLES:\n  extract {url}\n  extract {rp}#{no}\n")
        elif kind == "read":
            t.call("Read", {"file_path": "/work/app/README.md"},
                   {"type": "text", "file": {"filePath": "/work/app/README.md",
                                             "content": f"See {url}"}}, f"1\tSee {url}")
        else:
            t.raw({"type": "pr-link", "prNumber": no, "prUrl": url, "prRepository": rp})
            made.setdefault((rp, no), False)
    t.say("Done.")
    state = t.state()
    got = {(p.repo, p.number): p.merged for p in state.fold.prs}
    assert got == made
    note = render(state)
    summary = str(frontmatter(note)["summary"])
    if 0 < len(made) <= 2:  # named, each (review 15)
        assert all(f"PR {rp}#{no}" in summary for rp, no in made), summary
    elif made:
        assert (f"{len(made)} PR" + ("s" if len(made) > 1 else "")) in summary
    else:
        assert " PR" not in summary
    assert "owner/repo" not in note.partition("## Commits and PRs")[2].partition("\n## ")[0]


def test_a_pr_merged_by_number_in_its_folder() -> None:
    t = Transcript()
    t.prompt("merge it")
    bash_result(t, "gh pr merge 12 --squash --delete-branch", "✓ Merged pull request #12 (Fix)")
    (p,) = t.state().fold.prs
    assert (p.number, p.merged, p.url) == (12, True, "")
    assert "- PR #12 (merged)" in render(t.state())  # (#12 is no tag: left as typed)


@pytest.mark.corpus
def test_corpus_prs_are_the_ones_made_there() -> None:
    """Corpus, every main transcript: the session's PRs are its pr-link rows'
    URLs and the URLs its successful `gh pr create` calls printed (read from
    the JSON here); coderabbit's README placeholder and looked-up PR #2 are not."""
    import re

    from test_trust import folded
    checked = 0
    for main in main_files():
        want: set[str] = set()
        for raw in main.read_bytes().splitlines():
            try:
                o: Any = json.loads(raw)
            except ValueError:
                continue
            if isinstance(o, dict) and o.get("type") == "pr-link" and o.get("prUrl"):
                want.add(str(o["prUrl"]))
        for command, _, text, err in _outputs(main):
            if not err and re.search(r"\bgh\s+pr\s+create\b", command):
                want.update(re.findall(r"https://github\.com/[\w.\-]+/[\w.\-]+/pull/\d+", text))
        got = {p.url for p in folded(main).fold.prs}
        assert got == want, main
        checked += bool(want) or "coderabbit" in str(main)
    assert checked >= 2


# -- refusals that carry the user's words ------------------------------------------------------

REFUSAL_FORMS = [  # (the message, as Claude Code 2.1.x and 2.0.x write it)
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\n{words}",
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). The user provided the "
    "following reason for the rejection:  {words}",
]
WORDLESS = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
            "if it was a file edit, the new_string was NOT written to the file). STOP what you "
            "are doing and wait for the user to tell you how to proceed.")


@settings(max_examples=60, deadline=None)
@given(said=st.lists(words, min_size=1, max_size=8).map(" ".join),
       form=st.sampled_from(REFUSAL_FORMS), tool=st.sampled_from(["ExitPlanMode", "Edit", "Bash"]),
       before=st.integers(0, 2))
def test_words_given_with_a_refusal_are_a_prompt(said: str, form: str, tool: str,
                                                 before: int) -> None:
    t = Transcript()
    t.prompt("plan the change")
    for _ in range(before):
        t.prompt("and then?")
    inp: dict[str, Any] = ({"plan": "1. do it"} if tool == "ExitPlanMode" else
                           {"command": "rm -rf build"} if tool == "Bash" else
                           {"file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"})
    message = form.format(words=said)
    t.call(tool, inp, f"Error: {message}", message, error=True)
    t.say("Understood, doing that instead.")
    state = t.state()
    assert state.fold.prompts == 2 + before  # the typed prompts and these words
    turn = state.fold.turns[-1]
    assert (turn.kind, turn.text) == ("prompt", said)
    assert turn.answer == "Understood, doing that instead."
    note = render(state)
    label = "rejecting the plan" if tool == "ExitPlanMode" else "refusing a tool call"
    assert f"· Prompt (given when {label})\n> {said}\n" in note
    assert f"prompts: {2 + before}" in note


def test_a_refusal_without_words_is_no_prompt() -> None:
    t = Transcript()
    t.prompt("edit it")
    t.call("Edit", {"file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"},
           f"Error: {WORDLESS}", WORDLESS, error=True)
    assert t.state().fold.prompts == 1 and len(t.state().fold.turns) == 1


def test_words_given_with_a_refusal_pass_the_gate_and_are_escaped() -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    said = f"use [this](javascript:alert(1)) <script>x</script> with token {secret}"
    t = Transcript()
    t.prompt("go")
    message = REFUSAL_FORMS[0].format(words=said)
    t.call("Bash", {"command": "make"}, f"Error: {message}", message, error=True)
    note = render(t.state())
    assert secret not in note and "REDACTED" in note
    assert "](javascript:" not in note and "<script>" not in note


@pytest.mark.corpus
def test_corpus_refusal_words_are_prompts() -> None:
    """Corpus, every main transcript: each refusal whose message carries the
    user's words (found here by the two phrasings) is a prompt turn holding
    those words' first line."""
    from test_trust import folded
    marks = ("the user said:\n", "reason for the rejection:")
    found = 0
    for main in main_files():
        said: list[str] = []
        for o in json_objects(main):
            content = (o.get("message") or {}).get("content")
            if o.get("isSidechain") or not isinstance(content, list):
                continue
            for b in content:
                text = b.get("content") if isinstance(b, dict) and b.get("is_error") else None
                for mark in marks:
                    if isinstance(text, str) and mark in text:
                        said.append(text.split(mark, 1)[1].strip().splitlines()[0])
        prompts = [tu.text for tu in folded(main).fold.turns if tu.kind == "prompt"]
        for typed in said:
            assert any(p.startswith(" ".join(typed.split())[:40]) for p in prompts), typed
        found += len(said)
    assert found >= 5


# -- command durations: never a wait for the user's permission ----------------------------------


def _timed_bash(command: str, output: str, gap_s: float, mode: str = "",
                progress_s: list[float] | None = None) -> Any:
    """A session whose one Bash call's result came `gap_s` after the call, in
    permission mode `mode`, with bash_progress lines at those seconds after
    the call (each saying how long the command had run by then: the client's
    own count, here as if it started 1 s before the first)."""
    import datetime as dt
    t0 = dt.datetime(2026, 3, 1, 10, 0, 0, tzinfo=dt.UTC)

    def at(s: float) -> str:
        return (t0 + dt.timedelta(seconds=s)).isoformat().replace("+00:00", "Z")
    lines: list[dict[str, Any]] = []
    base = {"sessionId": "s", "cwd": "/work/app", "version": "2.1.50"}
    prompt: dict[str, Any] = {**base, "type": "user", "uuid": "u0", "timestamp": at(-1),
                              "message": {"role": "user", "content": "run it"}}
    if mode:
        prompt["permissionMode"] = mode
    lines.append(prompt)
    lines.append({**base, "type": "assistant", "uuid": "a1", "timestamp": at(0), "message": {
        "id": "m1", "role": "assistant", "model": "claude-x",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                     "input": {"command": command}}]}})
    started = (progress_s[0] - 1) if progress_s else None
    for i, s in enumerate(progress_s or []):
        lines.append({**base, "type": "progress", "uuid": f"p{i}", "timestamp": at(s),
                      "parentToolUseID": "toolu_1", "toolUseID": f"bash-progress-{i}",
                      "data": {"type": "bash_progress", "output": "", "fullOutput": "",
                               "elapsedTimeSeconds": int(s - (started or 0)), "totalLines": 0}})
    lines.append({**base, "type": "user", "uuid": "r1", "timestamp": at(gap_s),
                  "message": {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": "toolu_1", "content": output}]},
                  "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False}})
    from test_trust import folded
    return folded([json.dumps(x).encode() for x in lines])


@settings(max_examples=examples(30, 80), deadline=None)
@given(run_s=st.floats(0.1, 600), wait_s=st.floats(0, 5000), mode=st.sampled_from(
    ["", "default", "acceptEdits", "plan", "bypassPermissions"]),
    reported=st.booleans(), progress=st.booleans())
def test_a_command_time_is_never_a_permission_wait(run_s: float, wait_s: float, mode: str,
                                                   reported: bool, progress: bool) -> None:
    """The oracle: the run time put in. A shown time is within a few seconds of
    it (elapsed seconds are whole), or any wait was too short to matter; a
    long wait is never shown as a run."""
    output = f"==== 3 passed in {run_s:.2f}s ====" if reported else "done"
    ticks = [wait_s + 1 + k for k in range(int(run_s) - 1)] if progress and run_s >= 3 else None
    state = _timed_bash("pytest -q", output, wait_s + run_s, mode, ticks)
    (row,) = state.fold.commands
    shown = row.ms / 1000 if row.ms is not None else None
    if shown is None:
        # Nothing shown: only when a wait may be in it.
        assert mode != "bypassPermissions" and not ticks
        return
    if ticks:
        assert abs(shown - run_s) <= 2.5, (shown, run_s)  # the client's own count
    elif mode != "bypassPermissions":
        # No evidence of auto-approval: any wait shown is short, or the tool's
        # own printed time vouches for the figure.
        assert wait_s < 10 or (reported and shown <= 2 * run_s + 10), (shown, run_s, wait_s)


def test_review_pytest_shows_no_hour_of_waiting() -> None:
    """deep-manifest's `pytest -x`: 1 failed in 2.95 s, its result 69 minutes
    after the call: its run time is pytest's own count (review 26 #7, #13)."""
    out = "==== 1 failed, 37 passed in 2.95s ===="
    state = _timed_bash("(source .venv/bin/activate && pytest -x)", out, 4161.2)
    assert state.fold.commands[0].ms == 2950
    # (the session's own duration is 69 minutes: "Duration 1h 09m" in the header)
    commands = [ln for ln in render(state).splitlines() if "pytest -x" in ln]
    assert commands and not any("1h 09m" in ln or "69m" in ln for ln in commands), commands


@pytest.mark.corpus
def test_corpus_progress_times_are_the_runs() -> None:
    """Corpus, every main transcript with bash_progress lines: a command with
    them shows the time from its start (first line's time minus its elapsed
    seconds, computed here from the JSON) to its result, within a second."""
    import datetime as dt

    from test_trust import folded

    def ep(ts: str) -> float:
        return dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    checked = 0
    for main in main_files():
        raw = main.read_bytes()
        if b"bash_progress" not in raw:
            continue
        start: dict[str, float] = {}
        ended: dict[str, float] = {}
        for line in raw.splitlines():
            try:
                o: Any = json.loads(line)
            except ValueError:
                continue
            if not isinstance(o, dict) or o.get("isSidechain"):
                continue
            d = o.get("data")
            if o.get("type") == "progress" and isinstance(d, dict) \
                    and d.get("type") == "bash_progress" and o.get("parentToolUseID"):
                s = ep(o["timestamp"]) - float(d.get("elapsedTimeSeconds") or 0)
                start[o["parentToolUseID"]] = min(start.get(o["parentToolUseID"], s), s)
            for b in (o.get("message") or {}).get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    ended[str(b.get("tool_use_id"))] = ep(o["timestamp"])
        state = folded(main)
        for c in state.fold.commands:
            tid = next((t for t in start if state.fold.commands and c.tool_id and
                        c.tool_id == _key(t)), None)
            if tid is None or tid not in ended:
                continue
            assert c.ms is not None and abs(c.ms / 1000 - (ended[tid] - start[tid])) < 1.0
            checked += 1
    assert checked >= 10


def _key(tool_use_id: str) -> str:
    from vibe_vault.locations import tool_key
    return tool_key(tool_use_id)
