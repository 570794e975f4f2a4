"""A failure "later succeeded" when a later command of the same purpose
succeeded (review 22 #11): a test run again with flags that change only what
it prints (`-v`, `--tb=short`, `-x`, `| tail -20`…), a pull request created
again with another base. Never for one that ran other tests (`-k`, `-m`,
`--lf`, another path), in another folder, with something chained after it,
for another head branch or repository, or a `gh pr create --web` that makes
no pull request.

The oracle is the generator's own model of each command: what it runs (the
tests' scope, the folder, the head branch), built from the parts it drew, not
from vibe_vault.fold.retries. An error later succeeded exactly when a later
run with the same model purpose (or the very same command) succeeded."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold

CWD = "/work/app"

# The runners, with the scopes they may be given (what tests run) and the
# output-only flags drawn for them, as each tool's documentation has them.
RUNNERS: dict[str, tuple[list[str], list[str]]] = {
    "pytest": (["", "-m browser", "tests/test_a.py", "-k foo", "--lf", "tests/test_b.py -k bar"],
               ["-v", "-vv", "-q", "-s", "-x", "--tb=short", "--tb line", "-xvs", "-rA",
                "--maxfail=2", "--color=no", "--durations=5", "--no-header", "--exitfirst"]),
    "uv run pytest": (["", "-m browser", "tests/test_a.py", "-k foo"],
                      ["-v", "-q", "--tb=short", "-x", "-sv"]),
    "python -m pytest": (["", "-m slow", "tests/test_a.py"], ["-v", "-q", "--tb=no"]),
    "go test": (["./...", "./pkg/ -run TestA", "./cmd/"], ["-v", "-count=1", "-failfast"]),
    "cargo test": (["", "parser", "--lib"], ["-q", "--quiet", "-v"]),
}
TAILS = ["", " 2>&1 | tail -20", " | tail -n 5", " 2>&1 | head -40"]
PREFIXES = ["", f"cd {CWD} && ", "cd /work/other && ", "FOO=1 "]


def _passed(runner: str) -> str:
    if runner.startswith("go"):
        return "ok  \texample.com/m\t0.012s"
    if runner.startswith("cargo"):
        return "test result: ok. 3 passed; 0 failed; 0 ignored"
    return "============ 3 passed in 0.50s ============"


def _failed(runner: str) -> str:
    if runner.startswith("go"):
        return "--- FAIL: TestA (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s"
    if runner.startswith("cargo"):
        return "test result: FAILED. 2 passed; 1 failed; 0 ignored"
    return "FAILED tests/test_a.py::test_x\n======= 1 failed, 2 passed in 0.50s ======="


@st.composite
def check_runs(draw: st.DrawFn, runner: str = "", scope: str | None = None,
              prefix: str | None = None, chained: str | None = None) -> dict[str, Any]:
    """A test run; the parts given are fixed, the others drawn."""
    runner = runner or draw(st.sampled_from(sorted(RUNNERS)), label="runner")
    scopes, flags = RUNNERS[runner]
    scope = draw(st.sampled_from(scopes), label="scope") if scope is None else scope
    chosen = draw(st.lists(st.sampled_from(flags), max_size=3, unique=True), label="flags")
    # Flags before or after the scope's words (a valued one stays whole).
    words = scope.split(" ") if scope else []
    at = draw(st.sampled_from([0, len(words)]), label="where")
    parts = words[:at] + chosen + words[at:]
    prefix = draw(st.sampled_from(PREFIXES), label="prefix") if prefix is None else prefix
    tail = draw(st.sampled_from(TAILS), label="tail")
    chained = draw(st.sampled_from(["", "", " && echo done", "; echo $?"]),
                   label="chained") if chained is None else chained
    ok = draw(st.booleans(), label="ok")
    command = " ".join((f"{prefix}{runner} " + " ".join(parts) + tail + chained).split())
    # The model: what it runs. Chained with anything: not told (only the very
    # same command mends it).
    purpose: Any = ("exact", command) if chained else ("tests", prefix, runner, scope)
    return {"command": command, "ok": ok, "purpose": purpose, "piped": bool(tail),
            "output": _passed(runner) if ok else _failed(runner), "branch": None,
            "parts": (runner, scope, prefix, chained)}


@st.composite
def pr_runs(draw: st.DrawFn, fixed: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `gh pr create`; with `fixed` (another run), of its head, repository,
    folder and branch."""
    base = draw(st.sampled_from(["main", "alex/ent-221-hooks", "develop"]), label="base")
    if fixed is not None:
        head, repo, prefix, branch = fixed["parts"]
    else:
        head = draw(st.sampled_from(["", "feat-a", "feat-b"]), label="head")
        repo = draw(st.sampled_from(["", "o/r", "o/other"]), label="repo")
    draft = draw(st.booleans(), label="draft")
    body = draw(st.sampled_from(["", "--body \"$(cat <<'EOF'\n## Summary\n- one `a`\nEOF\n)\"",
                                 "-b 'short body'"]), label="body")
    web = "" if fixed is not None else draw(st.sampled_from(["", "", "--web", "--dry-run"]),
                                              label="web")
    if fixed is None:
        prefix = draw(st.sampled_from(["", f"cd {CWD} && ", "cd /work/other && "]),
                      label="prefix")
        branch = draw(st.sampled_from(["feat-a", "feat-b"]), label="branch")
    ok = draw(st.booleans(), label="ok")
    args = [f"--base {base}", "--title 'Add the thing'"]
    args += [f"--head {head}"] if head else []
    args += [f"-R {repo}"] if repo else []
    args += ["--draft"] if draft else []
    args += [body] if body else []
    args += [web] if web else []
    order = draw(st.permutations(args), label="order")
    command = f"{prefix}gh pr create " + " ".join(order)
    # The model: a pull request from this head (named, else the session's
    # branch) to this repository, made from this folder; a run that opens a
    # browser or only tries makes none.
    purpose: Any = ("exact", command) if web else ("pr", prefix, head or branch, repo)
    return {"command": command, "ok": ok, "purpose": purpose, "piped": False,
            "output": "https://github.com/o/r/pull/7" if ok else
            "pull request create failed: GraphQL: Base sha can't be blank",
            "branch": branch, "parts": (head, repo, prefix, branch)}


def _session(runs: list[dict[str, Any]]) -> Transcript:
    t = Transcript(cwd=CWD)
    t.prompt("make the tests pass and open a PR")
    t.lines[-1]["gitBranch"] = "feat-a"
    for run in runs:
        if run["branch"]:
            # The session is on this branch (said before the call, as Claude
            # Code stamps every line with it).
            t.say("on it")
            t.lines[-1]["gitBranch"] = run["branch"]
        failed_plainly = not run["ok"] and not run["piped"]
        text = ("Exit code 1\n" if failed_plainly else "") + run["output"]
        t.call("Bash", {"command": run["command"]},
               None if failed_plainly else {"stdout": text, "stderr": "", "interrupted": False},
               text, error=failed_plainly)
        if run["branch"]:
            t.lines[-1]["gitBranch"] = t.lines[-2]["gitBranch"] = run["branch"]
    t.say("Done.")
    return t


def _expected(runs: list[dict[str, Any]]) -> list[bool]:
    """For each failure in order: whether a later run of the same purpose in
    the model, or the very same command, succeeded."""
    out = []
    for i, run in enumerate(runs):
        if not run["ok"]:
            out.append(any(later["ok"] and (later["purpose"] == run["purpose"]
                                            or later["command"] == run["command"])
                           for later in runs[i + 1:]))
    return out


def _note_fates(note: str) -> list[bool]:
    """The Errors section's lines of failed commands, in order: marked or not."""
    section = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    return [line.endswith(" — later succeeded") for line in section.splitlines()
            if re.match(r"^(?:> )?- \d\d:\d\d \*\*Bash\*\*", line)]


def _respelled(run: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Another run of the same model purpose as `run` (other output flags,
    tail, base, title…), failing or not."""
    if run["branch"] is None:
        return check_runs(*run["parts"])
    return pr_runs(fixed=run)


@settings(max_examples=examples(60, 300), deadline=None)
@given(pool=st.lists(st.one_of(check_runs(), pr_runs()), min_size=1, max_size=3),
       data=st.data())
def test_a_failure_later_succeeded_when_a_run_of_the_same_purpose_did(
        tmp_path_factory: pytest.TempPathFactory, pool: list[dict[str, Any]],
        data: st.DataObject) -> None:
    # Each run a respelling of one of a few drawn (so purposes meet), or new.
    picks = data.draw(st.lists(st.integers(-1, len(pool) - 1), min_size=2, max_size=7),
                      label="picks")
    runs = [data.draw(_respelled(pool[i]) if i >= 0 else st.one_of(check_runs(), pr_runs()),
                      label="run") for i in picks]
    t = _session(runs)
    state = t.state()
    want = _expected(runs)
    errors = state.fold.errors
    assert [e.later_ok for e in errors] == want, (
        [(r["command"], r["ok"]) for r in runs], [(str(e.key), e.later_ok) for e in errors])
    # The fold law, cut anywhere.
    lines = [decode_line(x) for x in t.encoded()]
    cut = data.draw(st.integers(0, len(lines)), label="cut")
    assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == state.fold
    if want:
        note = t.note(tmp_path_factory, "retries later succeeded")
        assert _note_fates(note) == want, note


@settings(max_examples=examples(40, 200), deadline=None)
@given(first=st.one_of(check_runs(), pr_runs()), same=st.booleans(), data=st.data())
def test_the_same_purpose_respelled_mends_and_another_does_not(
        first: dict[str, Any], same: bool, data: st.DataObject) -> None:
    """A failure, then a success respelled to the same model purpose (test
    runs: other output flags and tail; pull requests: another base, title,
    body, order) or drawn anew: both sides of the class met on every example."""
    if first["branch"] is None:
        runner, scope, prefix, chained = first["parts"]
        first = data.draw(check_runs(runner, scope, prefix, chained).filter(
            lambda r: not r["ok"]), label="failed")
        later = data.draw((check_runs(runner, scope, prefix, chained) if same else
                           check_runs()).filter(lambda r: r["ok"]), label="later")
    else:
        first = {**first, "ok": False, "output": "pull request create failed"}
        later = data.draw(pr_runs().filter(lambda r: r["ok"]), label="later")
        if same:  # (the same head, repository, folder and branch; no --web)
            later = data.draw(pr_runs(fixed=first).filter(lambda r: r["ok"]), label="same")
    runs = [first, later]
    errors = _session(runs).state().fold.errors
    assert [e.later_ok for e in errors] == _expected(runs), runs
    if same and first["purpose"][0] != "exact":
        assert errors[0].later_ok
