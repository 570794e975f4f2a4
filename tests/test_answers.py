"""Issue 29, review 12: the words a summary quotes as Claude's.

Generated sessions (answers before and after a compaction, lines Claude wrote
before more tool calls, Claude Code's `<synthetic>` placeholder, outcome
sentences at random places, bullet lists, sessions cut off after a tool call)
are folded and rendered; what the summary and the note say is checked against
an oracle read from the generated JSON itself: the last assistant text after
the last request a person typed, provided nothing but text came after it.
"""

from __future__ import annotations

import re
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, has_assistant, main_files
from conftest import json_objects as objects
from test_headlines import Transcript, phrase
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.redact import DEFAULT, Redacted
from vibe_vault.render import render
from vibe_vault.state import SessionState

NOUNS = ["cache", "parser", "router", "config", "schema", "buffer", "index", "widget",
         "loader", "queue"]
noun = st.sampled_from(NOUNS)
sha7 = st.text(alphabet="0123456789abcdef", min_size=7, max_size=7)


def typed_prompt(o: dict[str, Any]) -> bool:
    """A line that is a request a person typed: a user message of words, not
    Claude Code's own (a compaction's summary, a command's output, meta)."""
    if o.get("type") != "user" or o.get("isMeta") or o.get("isCompactSummary"):
        return False
    content = (o.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(not isinstance(b, dict) or b.get("type") not in ("text", "image")
               for b in content):
            return False  # a tool's result
        content = " ".join(str(b.get("text") or "") for b in content)
    return (isinstance(content, str) and bool(content.strip())
            and not content.lstrip().startswith(("<", "[Request interrupted")))


def last_request_and_answer(lines: list[dict[str, Any]]) -> tuple[str, str | None]:
    """From the JSON: the last typed request, and the text Claude ended its
    work on it with (None when its last block after that request is a tool
    call, or nothing came): `<synthetic>` messages are not Claude's."""
    start = max((k for k, o in enumerate(lines) if typed_prompt(o)), default=-1)
    request = str(lines[start]["message"]["content"]) if start >= 0 else ""
    last: tuple[str, str] | None = None
    for o in lines[start + 1:]:
        msg = o.get("message") or {}
        if o.get("type") != "assistant" or msg.get("model") == "<synthetic>":
            continue
        for b in msg.get("content") or []:
            if b.get("type") == "text" and str(b.get("text") or "").strip():
                last = ("text", str(b["text"]))
            elif b.get("type") == "tool_use":
                last = ("tool", "")
    return request, (last[1] if last is not None and last[0] == "text" else None)


def calls_after_request(lines: list[dict[str, Any]]) -> int:
    """From the JSON: the tool calls Claude made after the last typed request
    (then a request with no answer was being worked on, review 26 #1)."""
    start = max((k for k, o in enumerate(lines) if typed_prompt(o)), default=-1)
    return sum(1 for o in lines[start + 1:] if o.get("type") == "assistant"
               for b in (o.get("message") or {}).get("content") or []
               if isinstance(b, dict) and b.get("type") == "tool_use")


NO_ANSWER = "The last request got no answer"
STILL_ON = "The transcript ends while Claude was still on the last request (after "


def exit_turn(t: Transcript) -> None:
    """`/exit`, its output, and Claude Code's placeholder answer."""
    t.slash("exit", "")
    t.prompt("<local-command-stdout>Goodbye!</local-command-stdout>")
    t.say("No response requested.")
    t.lines[-1]["message"]["model"] = "<synthetic>"


def compaction(t: Transcript) -> None:
    t.raw({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
           "compactMetadata": {"trigger": "auto", "preTokens": 155000}})
    t.raw({"type": "user", "isCompactSummary": True, "message": {
        "role": "user", "content": "This session is being continued from a previous "
                                   "conversation. Summary: work on the config."}})


OUTCOMES = ["commit", "tests", "complete", "push"]


def outcome_sentence(kind: str, sha: str) -> str:
    return {"commit": f"Committed `{sha}`.", "tests": "All tests pass and no lint issues.",
            "complete": "The fix is complete.", "push": "Pushed the branch to origin."}[kind]


def outcome_facts(t: Transcript, kind: str, sha: str) -> None:
    """What makes the outcome true in the transcript (the summary repeats no
    claim the facts contradict)."""
    if kind == "commit":
        t.bash("git commit -m 'fix the config'", f"[main {sha}] fix the config\n 1 file changed")
    elif kind == "push":
        t.bash("git push", "To github.com:a/b.git\n   1111111..2222222  main -> main\n")


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Transcript, str, str | None]:
    """A session of 1-3 requests; each one's work is tool calls, some with a
    line Claude wrote before them, some followed by a compaction; the last one
    may end after a tool call (or with nothing at all). Its final answer is
    neutral sentences with, maybe, an outcome sentence somewhere among them.
    Returns the transcript, the answer's first neutral sentence and its outcome
    sentence (or None)."""
    t = Transcript()
    tags = count()
    placeholder = draw(st.sampled_from(["none", "start", "end"]))
    if placeholder == "start":
        exit_turn(t)
    turns = draw(st.integers(1, 3))
    first_neutral, outcome = "", None
    for k in range(turns):
        t.prompt(f"please fix the {draw(noun)} {k}")
        steps = draw(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=3))
        for say_first, compact in steps:
            if say_first:
                t.say(f"Let me check the {draw(noun)} mid{next(tags)}.")
            t.bash(f"cat {draw(noun)}.txt", "ok")
            if compact:
                compaction(t)
        last = k == turns - 1
        if last and draw(st.booleans()):
            continue  # cut off: no answer to this request
        neutral = [f"The {draw(noun)} n{next(tags)} keeps the {draw(noun)}."
                   for _ in range(draw(st.integers(1, 4)))]
        sentences = list(neutral)
        outcome = None
        if draw(st.booleans()):
            kind, sha = draw(st.sampled_from(OUTCOMES)), draw(sha7)
            outcome = outcome_sentence(kind, sha)
            outcome_facts(t, kind, sha)
            sentences.insert(draw(st.integers(0, len(sentences))), outcome)
        split = draw(st.integers(0, len(sentences)))
        body = " ".join(sentences[:split]) + "\n\n" + " ".join(sentences[split:])
        t.say(body.strip())
        first_neutral = neutral[0]
    if placeholder == "end":
        exit_turn(t)
    return t, first_neutral, outcome


def _state(t: Transcript, status: str) -> SessionState:
    state = t.state()
    state.status = status
    state.end_reason = Redacted("idle" if status == "ended" else "")
    return state


@settings(max_examples=examples(40, 150), deadline=None)
@given(case=sessions(), status=st.sampled_from(["ended", "active"]))
def test_the_summary_quotes_the_last_real_answer_and_its_outcome(
        case: tuple[Transcript, str, str | None], status: str) -> None:
    t, first_neutral, outcome = case
    state = _state(t, status)
    fig = figures(state, RenderOptions())
    note = render(state)
    request, answer = last_request_and_answer(t.lines)
    assert "No response requested" not in fig.summary
    assert "**Claude:** No response requested" not in note
    if answer is None:
        # (", and nothing was pushed" may follow: test_headline_main_change)
        said = ("Claude is still at work on the last request." if status == "active" else
                f"{STILL_ON}{calls_after_request(t.lines)} call" if calls_after_request(t.lines)
                else NO_ANSWER)
        assert said in fig.summary and "Claude:" not in fig.summary, fig.summary
        threads = note.split("\n## Open threads\n", 1)[1].split("\n## ", 1)[0]
        assert request in threads, threads
        assert (frontmatter(note)["end_reason"] == "idle, mid-turn") == (status == "ended")
        return
    assert "no answer" not in fig.summary and "still at work" not in fig.summary
    assert frontmatter(note)["end_reason"] in ("idle", None)
    quoted = fig.summary.split(" Claude: ", 1)[1]
    # Words of the final answer only: no line written before later work.
    assert not re.search(r"\bmid\d+\b", quoted), quoted
    expected = outcome if outcome is not None else first_neutral
    assert quoted.startswith(expected), (quoted, answer)
    assert quoted.rstrip(".") in " ".join(answer.split()), (quoted, answer)


@settings(max_examples=80, deadline=None)
@given(items=st.lists(st.tuples(noun, noun), min_size=2, max_size=5),
       marker=st.sampled_from(["-", "*", "1."]),
       lead=st.sampled_from(["", "완료했습니다.", "Done.", "Perfect!"]))
def test_a_bullet_list_is_quoted_as_items(items: list[tuple[str, str]], marker: str,
                                          lead: str) -> None:
    """An answer that is (a filler and) a list: the summary reads its items as
    items, joined by "; ", never run into one sentence."""
    texts = [f"Moved the {a} beside item{k} {b}" for k, (a, b) in enumerate(items)]
    lines = [f"{marker if marker != '1.' else f'{k + 1}.'} {x}" for k, x in enumerate(texts)]
    t = Transcript()
    t.prompt("tidy it up")
    t.say((lead + "\n\n" if lead else "") + "\n".join(lines))
    summary = figures(_state(t, "ended"), RenderOptions()).summary
    assert summary.endswith("Claude: " + "; ".join(texts) + "."), summary


# -- the corpus ---------------------------------------------------------------------------

SESSIONS = [p for p in main_files() if has_assistant(p)]


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = Env(tmp_path_factory.mktemp("answers"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return {str(frontmatter(text)["session_id"]): text for text in env.notes().values()}


def _plain(text: str) -> str:
    """Words as a reader compares them: no Markdown emphasis, escapes or breaks."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text).replace("&lt;", "<").replace("&amp;", "&")
    return " ".join(text.replace("**", "").split())


def _links_as_words(text: str) -> str:
    """Markdown links as the README says a summary reads them: the words, and
    where they point beside them when that is more than the words."""
    def read(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        return label if target.rstrip("/").endswith(label.strip("`")) else f"{label} ({target})"
    return re.sub(r"\[([^\[\]\n]+)\]\(([^()\s]+)\)", read, text)


@pytest.mark.corpus
@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_summaries_quote_the_last_real_answer(notes: dict[str, str], main: Path) -> None:
    """Every corpus session: the words quoted as Claude's are from the last
    answer after the last typed request (by the JSON); a session whose last
    request got no answer says so, and quotes nothing as Claude's."""
    lines = [o for o in objects(main) if not o.get("isSidechain")]
    sids = {str(o.get("sessionId")) for o in lines if o.get("sessionId")}
    note = next((notes[s] for s in sids if s in notes), None)
    if note is None:
        pytest.skip("no note for this file (another session's part)")  # counted below
    summary = str(frontmatter(note)["summary"])
    assert "No response requested" not in note
    _, answer = last_request_and_answer(lines)
    interrupted = any(typed_or_interrupt(o) for o in lines[-3:])
    asked = max((k for k, o in enumerate(lines) if typed_prompt(o)), default=-1)
    # An API error after the request is said as such ("no answer: 1 API error").
    api_error = any(o.get("isApiErrorMessage") or o.get("subtype") in ("api_error", "error")
                    for o in lines[asked + 1:])
    # A tool call the user refused ends the turn by their choice, not Claude's.
    results = [b for o in lines[asked + 1:] for b in (o.get("message") or {}).get("content") or []
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    refused = bool(results) and bool(results[-1].get("is_error")) and "doesn't want to" in str(
        results[-1].get("content"))
    summary, _, question = summary.partition(" It ended with Claude asking: “")
    if question:  # the question the answer ended on, its words the answer's own
        assert answer is not None, summary
        said = set(re.findall(r"\w+", _plain(answer)))
        assert set(re.findall(r"\w+", question.rstrip("…”"))[:-1]) <= said, question
    if " Claude: " in summary:
        assert answer is not None, summary
        quoted = _plain(summary.split(" Claude: ", 1)[1]).rstrip(".… ")  # (" …": more followed)
        # (list items are joined by "; ", the items under one ending in ":" by
        # ", "; a status may follow the change as a sentence of its own: each
        # piece is Claude's words, in order within it)
        pieces = [p for p in re.split(r"; |, |(?<=[.!?]) ", quoted) if p]
        if pieces and re.fullmatch(r"and (?:\d+ )?more", pieces[-1]):
            pieces.pop()  # (vv's count of the list's items left out: test_summary_cuts)
        plain_answer = _plain(_links_as_words(
            re.sub(r"(?m)^\s*(?:[-*+•]|\d+[.)])\s+", "", answer)))
        for piece in pieces:
            assert piece.rstrip(".…") in plain_answer, (piece, answer[:400])
    if answer is None and not (interrupted or api_error or refused) and "recap" not in summary:
        # (a file that holds no request opens in a turn begun before it)
        requested = any(o.get("type") == "user" and not o.get("isCompactSummary")
                        and not any(isinstance(b, dict) and b.get("type") == "tool_result"
                                    for b in (o.get("message") or {}).get("content") or [])
                        for o in lines)
        after = calls_after_request(lines)
        said = (f"{STILL_ON}{after} call" if after else NO_ANSWER) if requested else \
            "The transcript ends mid-turn with no answer (its request is not in it)."
        assert said in summary, summary


def typed_or_interrupt(o: dict[str, Any]) -> bool:
    content = (o.get("message") or {}).get("content")
    text = content if isinstance(content, str) else " ".join(
        str(b.get("text") or "") for b in content or [] if isinstance(b, dict))
    return o.get("type") == "user" and "[Request interrupted by user" in text


@pytest.mark.corpus
def test_the_corpus_has_answers_to_choose_from(notes: dict[str, str]) -> None:
    """The corpus check means something: sessions quoting Claude, and one
    whose last request got no answer."""
    summaries = [str(frontmatter(n)["summary"]) for n in notes.values()]
    assert sum(" Claude: " in s for s in summaries) >= 10
    assert any("The last request got no answer" in s for s in summaries)


# -- who refused a tool call; PowerShell is a shell -------------------------------------------

path_word = st.from_regex(r"[a-z]{2,8}(?:/[a-z]{2,8}){0,2}\.(?:py|ps1|md)", fullmatch=True)


@st.composite
def refusals(draw: st.DrawFn) -> tuple[str, str, str]:
    """A tool call's error text as Claude Code words a refusal (by the user, a
    permission rule, don't-ask mode, a hook, a safety check, or unsaid), or a
    command that ran and failed; and who, by the text itself: ("user" |
    "rule" | "mode" | "hook" | "check" | "unsaid" | "failed")."""
    tool = draw(st.sampled_from(["Bash", "PowerShell", "Edit", "Write"]))
    target = draw(path_word)
    form = draw(st.sampled_from([
        ("user", "The user doesn't want to proceed with this tool use. The tool use was rejected "
                 "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
                 "what you are doing and wait for the user to tell you how to proceed."),
        ("user", "The user doesn't want to take this action right now. STOP what you are doing "
                 "and wait for the user to tell you how to proceed."),
        ("user", "The user doesn't want to proceed with this tool use."),
        ("unsaid", f"Permission to use {tool} with command cat {target} has been denied."),
        ("unsaid", f"Permission to edit {target} has been denied."),
        ("unsaid", f"Permission to read {target} has been denied."),
        ("rule", f"Agent type '{target}' has been denied by permission rule 'Agent({target})' "
                 "from project settings."),
        ("mode", f"Permission to use {tool} has been denied because Claude Code is running in "
                 "don't ask mode. Ask the user to allow it."),
        ("check", "Permission for this command was denied by a built-in Claude Code safety "
                  "check"),
        ("hook", "Permission denied by PermissionRequest hook"),
        ("failed", f"Exit code 126\nbash: ./{target}: Permission denied"),
        ("failed", f"cat: {target}: Permission denied"),
    ]))
    who, message = form
    if who not in ("user", "failed") and draw(st.booleans()):
        message = "Error: " + message  # as toolUseResult words it
    return tool, message, who


WORDS_FOR = {"user": "denied by the user", "rule": "denied by a permission rule",
             "mode": "denied (Claude Code ran in don't-ask mode)", "hook": "denied by a hook",
             "check": "denied by a safety check", "unsaid": "denied"}


@settings(max_examples=examples(12, 40), deadline=None)
@given(calls=st.lists(refusals(), min_size=1, max_size=4))
def test_a_refusal_says_who_refused_it(calls: list[tuple[str, str, str]]) -> None:
    """"denied by the user" only where the user said no; a rule's, a mode's,
    a hook's refusal says so, one the transcript does not attribute reads
    "denied"; a command that ran and failed is no refusal."""
    t = Transcript()
    t.prompt("look at the files")
    for k, (tool, message, _) in enumerate(calls):
        inp: dict[str, Any] = ({"command": f"cat f{k}.txt", "description": f"Show file {k}"}
                               if tool in ("Bash", "PowerShell") else
                               {"file_path": f"/work/app/f{k}.txt", "old_string": "a",
                                "new_string": "b", "content": "b"})
        t.call(tool, inp, None, message, error=True)
    t.say("The files are guarded.")
    story = render(_state(t, "ended")).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in story.splitlines() if ln.startswith("- ")]
    assert len(lines) == len(calls), lines
    for line, (_, _, who) in zip(lines, calls, strict=True):
        if who == "failed":
            assert "denied" not in line, line
        else:
            assert line.endswith(WORDS_FOR[who]) or f"{WORDS_FOR[who]}," in line, (who, line)
        assert ("denied by the user" in line) == (who == "user"), (who, line)


@settings(max_examples=examples(20, 60), deadline=None)
@given(runs=st.lists(st.tuples(st.sampled_from(["Bash", "PowerShell"]), phrase,
                               st.booleans()), min_size=1, max_size=5))
def test_powershell_is_a_shell_told_with_its_outcome(runs: list[tuple[str, str, bool]]) -> None:
    """Every shell call (Bash or PowerShell) counts among the commands and its
    story line says how it ended; a failed one's first error line is under
    Errors."""
    t = Transcript()
    t.prompt("check the script")
    for k, (tool, purpose, ok) in enumerate(runs):
        out = f"line{k} {purpose}"
        if ok:
            t.call(tool, {"command": f"Get-Item x{k}", "description": f"Check {purpose}"},
                   {"stdout": out, "stderr": "", "interrupted": False}, out)
        else:
            t.call(tool, {"command": f"Get-Item x{k}", "description": f"Check {purpose}"},
                   None, f"Exit code 1\nerror{k}: {purpose}", error=True)
    t.say("Checked the script.")
    note = render(_state(t, "ended"))
    shells = sum(1 for o in t.lines for b in (o.get("message") or {}).get("content") or []
                 if isinstance(b, dict) and b.get("type") == "tool_use"
                 and b.get("name") in ("Bash", "PowerShell"))
    assert frontmatter(note)["commands"] == shells
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    for k, (_, purpose, ok) in enumerate(runs):
        line = next(ln for ln in story.splitlines() if f"`Get-Item x{k}`" in ln)
        assert re.search(r" — ok(?:, \d+\w*)?$" if ok else r" — failed \(exit 1\)", line), line
        if not ok:
            # (unless the gate hides part of it: 'mkpasswd aaa' names a password)
            told = f"error{k}: {purpose}"
            assert told in note.split("\n## Errors\n", 1)[1] or DEFAULT.redact(told)[1]


# -- test runners, as a class ---------------------------------------------------------------

RUNNERS = ["mise run test", "mise run test:unit", "make test", "just test", "task test",
           "npm test", "npm run test", "pnpm test", "yarn test", "bun test", "cargo test",
           "go test ./...", "pytest -q", "tox -e py312", "nox -s tests", "uv run pytest",
           "rake test", "gradle test", "./gradlew test", "mvn test", "dotnet test",
           "python -m pytest tests", "npx vitest run", "bundle exec rspec"]
NOT_TESTS = ["mise run lint", "git status", "ls tests", "cat test.txt", "echo testing",
             "make build", "grep -r test src"]


@settings(max_examples=60, deadline=None)
@given(runs=st.lists(st.tuples(st.sampled_from(RUNNERS + NOT_TESTS), st.booleans(),
                               st.sampled_from(["", "cd /work/app && ", "CI=1 "])),
                     min_size=1, max_size=5))
def test_every_test_runner_counts_and_the_summary_says_the_last_result(
        runs: list[tuple[str, bool, str]]) -> None:
    """A run of any runner in the table (through a task runner too) is a test
    run; the summary says how the last one ended, and says nothing of tests
    when none ran."""
    t = Transcript()
    t.prompt("run the checks")
    for command, ok, prefix in runs:
        if ok:
            t.bash(prefix + command, "all good")
        else:
            t.call("Bash", {"command": prefix + command}, None, "Exit code 1\nboom", error=True)
    t.say("The checks ran through.")
    summary = figures(_state(t, "ended"), RenderOptions()).summary
    tests = [ok for command, ok, _ in runs if command in RUNNERS]
    if not tests:
        assert "tests" not in summary, summary
    elif tests[-1]:
        assert "tests passed at the last run" in summary, summary
    else:
        assert "tests failing at the last run" in summary, summary


@settings(max_examples=40, deadline=None)
@given(files=st.lists(path_word, min_size=1, max_size=3, unique=True), commit=st.booleans(),
       how=st.sampled_from(["heredoc", "tee", "redirect"]), sha=sha7)
def test_no_files_changed_is_never_said_beside_a_commit(files: list[str], commit: bool, how: str,
                                                         sha: str) -> None:
    """Files written by a command (a heredoc, tee, a redirection), committed
    or not: they are changed files (bf5ce0d), so the summary never says "no
    files changed", and counts each of them."""
    t = Transcript()
    t.prompt("add the ignore files and commit them")
    for f in files:
        t.bash({"heredoc": f"cat > {f} <<'EOF'\n*.log\nEOF", "tee": f"echo '*.log' | tee {f}",
                "redirect": f"printf '*.log\\n' > {f}"}[how])
    if commit:
        t.bash("git add -A && git commit -m 'add ignores'",
               f"[main {sha}] add ignores\n {len(files)} files changed, {len(files)} "
               f"insertions(+)\n" + "".join(f" create mode 100644 {f}\n" for f in files))
    t.say("The ignore files are in place.")
    summary = figures(_state(t, "ended"), RenderOptions()).summary
    assert "no files changed" not in summary.lower(), summary
    many = f"{len(files)} file{'s' if len(files) > 1 else ''} changed"
    assert many in summary, summary
    if commit:
        assert summary.startswith("Committed “add ignores”"), summary


RUNNER_WORDS = re.compile(  # the test's own list of runners, for the corpus's commands
    r"(?:^|[\s;&|(/])(?:pytest|tox|nox|go test|cargo test|(?:npm|pnpm|yarn|bun)(?: run)? test"
    r"|mise (?:run )?test|make test|just test|task test|rake test|gradle test|mvn test"
    r"|dotnet test|jest|vitest|rspec)\b")
COMMITTED = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? [0-9a-f]{7,40}\] ")


@pytest.mark.corpus
@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_summaries_tell_the_last_test_run_and_no_false_no_files(
        notes: dict[str, str], main: Path) -> None:
    """By the JSON of the main transcript: the last run of a test runner that
    got a result decides what the summary says of tests; a session whose
    commands printed a new commit never reads "no files changed"."""
    lines = [o for o in objects(main) if not o.get("isSidechain")]
    sids = {str(o.get("sessionId")) for o in lines if o.get("sessionId")}
    note = next((notes[s] for s in sids if s in notes), None)
    if note is None:
        pytest.skip("no note for this file (another session's part)")
    summary = str(frontmatter(note)["summary"])
    runs: dict[str, str] = {}
    results: list[bool] = []
    committed = False
    for o in lines:
        for b in (o.get("message") or {}).get("content") or []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and b.get("name") == "Bash":
                runs[str(b.get("id"))] = str((b.get("input") or {}).get("command") or "")
            elif b.get("type") == "tool_result" and str(b.get("tool_use_id")) in runs:
                command = runs.pop(str(b.get("tool_use_id")))
                content = b.get("content")
                out = content if isinstance(content, str) else " ".join(
                    str(x.get("text") or "") for x in content or [] if isinstance(x, dict))
                r = o.get("toolUseResult")
                out += str(r.get("stdout") or "") if isinstance(r, dict) else ""
                committed |= bool(COMMITTED.search(out)) and "commit" in command
                background = isinstance(r, dict) and bool(r.get("backgroundTaskId"))
                if RUNNER_WORDS.search(command) and not background and not (
                        isinstance(r, dict) and r.get("interrupted")):
                    results.append(not b.get("is_error"))
    if results and results[-1]:
        # ("tests 8 failing → 20 passed at the last run" where a run before failed)
        told = re.search(r"tests (?:(\d+) failing → \d+ )?passed at the last run", summary)
        assert told, summary
        assert not told.group(1) or not all(results), summary
    elif results:
        assert "tests failing at the last run" in summary, summary
    if committed:
        assert "no files changed" not in summary.lower(), summary


@settings(max_examples=60, deadline=None)
@given(lead=st.sampled_from(["You can now profile startup with:", "Run it with:",
                             "Done. Start the server with:"]),
       code=st.lists(st.tuples(noun, noun).map(" ".join), min_size=1, max_size=3),
       after=st.sampled_from(["", "It prints the trace.", "This opens a browser with:"]))
def test_a_gist_keeps_no_dangling_colon_before_code(lead: str, code: list[str],
                                                    after: str) -> None:
    """An earlier turn's gist whose sentence ends "with:" before a code block:
    the gist carries the code's first line, never the colon alone."""
    answer = f"{lead}\n\n```sh\n" + "\n".join(code) + "\n```" + (f"\n\n{after}" if after else "")
    t = Transcript()
    t.prompt("how do I profile it")
    t.say(answer)
    t.prompt("thanks")
    t.say("You are welcome to ask more.")
    story = render(_state(t, "ended")).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    line = next(ln for ln in story.splitlines() if lead.split()[0] in ln and "Claude:" in ln)
    assert f"{lead} `{code[0]}`" in line, line


LEAD_INS = ["Let me explain:", "Now let me provide a summary response to clarify the mechanism.",
            "I can see what happened! Let me explain:", "Here's what I found:",
            "Perfect. Let me summarize.", "Let me check the logs first."]


@settings(max_examples=80, deadline=None)
@given(lead=st.none() | st.sampled_from(LEAD_INS), heading=st.booleans(),
       said=st.lists(noun, min_size=2, max_size=6).map(" ".join),
       bold=st.booleans(), after=st.sampled_from(["", "- one point\n- another point",
                                                  "```sh\nmake test\n```", "## Details\n\nMore."]))
def test_a_gist_says_the_answer_not_only_its_lead_in(
        lead: str | None, heading: bool, said: str, bold: bool, after: str) -> None:
    """An earlier turn's gist of an answer that opens by announcing itself
    ("Let me explain:", "Now let me provide a summary…") followed by the
    answer, under a heading or not, and more: the gist holds the answer's
    sentence (the generator's), not the announcement alone."""
    sentence = f"The {said} was the cause."
    answer_line = f"**{sentence}**" if bold else sentence
    parts = ([lead] if lead else []) + (["## What Happened"] if heading else []) + [answer_line]
    if after:
        parts.append(after)
    t = Transcript()
    t.prompt("what happened")
    t.say("\n\n".join(parts))
    t.prompt("thanks")
    t.say("You are welcome to ask more.")
    line = _first_quoted_answer(t)
    assert said in line.replace("*", ""), line
    if lead and lead.endswith(":"):
        assert lead in line, line  # a lead-in ending with a colon opens what it announces


def _first_quoted_answer(t: Transcript) -> str:
    """The story's first quoted answer (its `> **Claude:**` lines), as one line."""
    story = render(_state(t, "ended")).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    lines = story.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith("> **Claude:**"))
    quoted = []
    for ln in lines[at:]:
        if not ln.startswith(">"):
            break
        quoted.append(ln.lstrip("> "))
    return " ".join(quoted)


WALK_INS = ["Good question! Let me trace through what would have happened:",
            "Let me walk through it:", "Here's what happened:"]


@settings(max_examples=40, deadline=None)
@given(lead=st.sampled_from(WALK_INS),
       steps=st.lists(st.tuples(noun, noun), min_size=1, max_size=3),
       said=st.lists(noun, min_size=2, max_size=5).map(" ".join), bold=st.booleans(),
       ask_after=st.booleans())
def test_a_gist_that_would_end_on_a_colon_ends_on_the_conclusion(
        lead: str, steps: list[tuple[str, str]], said: str, bold: bool,
        ask_after: bool) -> None:
    """An earlier turn's answer that announces a walk-through, whose every
    step again ends on a colon before its list or code, then concludes: the
    gist is the announcement and the conclusion (the generator's sentence),
    never a gist that stops on a colon."""
    parts = [lead]
    for a, b in steps:
        parts += [f"**Before {a}**, the states would have been:", f"1. {a}\n2. {b}",
                  f"**The history of {b}**:", f"```\n{a} -- {b}\n```"]
    conclusion = f"So the {said} would have prevented this."
    parts.append(f"**{conclusion}**" if bold else conclusion)
    if ask_after:
        parts.append("Want me to write this up?")  # a question closes no answer
    t = Transcript()
    t.prompt("would it have helped")
    t.say("\n\n".join(parts))
    t.prompt("thanks")
    t.say("You are welcome to ask more.")
    line = _first_quoted_answer(t)
    assert lead in line and conclusion in line.replace("*", ""), line
    assert not line.rstrip(" …*").endswith(":"), line
