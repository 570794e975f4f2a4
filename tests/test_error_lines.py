"""Issue 29, review 17 #5 and F22: the line that heads a failure.

A failed command's output holds lines of several kinds: warnings, where it ran
(`On branch main`), a wrapper's or a summary's word that something failed
(`ERROR task failed`, `1 issues:`, `Found 2 errors`, `Traceback (most recent
call last):`) and the findings that say what failed (`x.go:12:3: … (goconst)`,
`error[E0382]: …`, `FAILED tests/…`, a traceback's exception line). The note
heads the error with the first finding, else the first summary, never a
warning; a line that ends on a colon only announces the next, and is joined
to it. Checked on every failed call of every corpus session against kinds
read here with patterns of this file's own, and on generated outputs mixing
every kind in any order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, json_objects, main_files, session_files
from test_headlines import Transcript, phrase, words
from test_trust import folded
from vibe_vault.render import render
from vibe_vault.render.work import error_headline

# -- the oracle's own reading of a line ----------------------------------------------

# (read on lines collapsed as the note shows them; a task runner's prefix,
# mise's `[lint:go] `, may stand before any of them)
_PREFIX = r"^(?:\[[^\]]+\] (?:\| )?)?"
FINDING = re.compile(_PREFIX + r"(?:"
                     r"[\w./\-]+\.(?:go|py|rs|ts|tsx|js|rb|c|h):\d+(?::\d+)?(?::| -) ?[^\s:]"
                     r"|error\[[\w\-]+\]: \S|--- FAIL: \S|FAILED [\w./\-]+::\S|E \S"
                     r"|[A-Z]\w*(?:Error|Exception): \S|❌ Failure - \S)")
SUMMARY = re.compile(_PREFIX + r"(?:ERROR task failed|\d+ issues?:?$|Found \d+ (?:error|diagnostic)"
                     r"|Traceback \(most recent call last\):$|Exit code -?\d+$"
                     r"|error: could not compile|make(?:\[\d+\])?: \*\*\*|FAIL$"
                     r"|=+ .*\d+ failed.*=+$|Error: Job '[^']+' failed$|\d+ errors?, \d+ warnings?)")
WARNING = re.compile(r"(?i)^(?:npm warn|warn(?:ing)?\b|\S+: warning:)|^WARN\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _collapsed(text: str) -> str:
    return " ".join(_ANSI.sub("", text).split())


def _outputs(path: Path) -> dict[tuple[str, str], list[str]]:
    """What each Bash or PowerShell call printed, by (result's time, tool):
    the tool_result's text and the structured result's stdout and stderr."""
    names: dict[str, str] = {}
    out: dict[tuple[str, str], list[str]] = {}
    for o in json_objects(path):
        content = (o.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                names[str(b.get("id"))] = str(b.get("name"))
            if b.get("type") != "tool_result":
                continue
            tool = names.get(str(b.get("tool_use_id")), "")
            if tool not in ("Bash", "PowerShell"):
                continue
            c = b.get("content")
            texts = [c] if isinstance(c, str) else [
                str(x.get("text") or "") for x in c or [] if isinstance(x, dict)]
            r = o.get("toolUseResult")
            if isinstance(r, dict):
                texts += [str(r.get("stdout") or ""), str(r.get("stderr") or "")]
            out.setdefault((str(o.get("timestamp")), tool), []).append("\n".join(texts))
    return out


def _lines(text: str) -> list[str]:
    """The text's lines, each collapsed as the note shows them."""
    return [_collapsed(ln) for ln in text.splitlines() if ln.strip()]


@pytest.mark.corpus
def test_every_corpus_failure_is_headed_by_a_line_that_says_what_failed() -> None:
    """Corpus, every main transcript: each failed command's error opens with a
    line of its output that is no warning; not with a summary or a wrapper
    when the output holds a finding (then with a finding); and not with a line
    ending on a colon when more followed it."""
    checked = with_finding = 0
    for main in main_files():
        outputs = _outputs(main)
        for err in folded(main).fold.errors:
            if err.tool not in ("Bash", "PowerShell"):
                continue
            printed = outputs.get((err.ts, err.tool))
            assert printed, (main, err.ts)
            first = err.text.partition("\n")[0]
            said = first.removesuffix("…").strip()
            assert any(said in _collapsed(p) for p in printed), (main, first)
            assert not WARNING.search(first), (main, first)
            shown = error_headline(err.text)[0]  # (as the note shows it in a line)
            assert not shown.endswith(":") or "\n" not in err.text, (main, err.text)
            found = [ln for p in printed for ln in _lines(p) if FINDING.search(ln)]
            if found:
                with_finding += 1
                assert not SUMMARY.search(first), (main, first, found[0])
                assert FINDING.search(first), (main, first, found[0])
            checked += 1
    # (the corpus holds dozens, a third of them with findings: acdd84ab's goconst)
    assert checked >= 40 and with_finding >= 15, (checked, with_finding)


@pytest.mark.corpus
def test_review17_lint_failure_names_its_finding() -> None:
    """Corpus, acdd84ab (review 17 #5): `mise run lint` printed the goconst
    finding, `1 issues:` and then `ERROR task failed`: the error opens with
    the finding (file, line and rule), so searching `goconst` finds it."""
    (main,) = [p for p in main_files() if "ac/0df591859d" in str(p)]
    (err,) = folded(main).fold.errors
    assert err.text.startswith("[lint:go] cmd/entire/cli/strategy/phase_postcommit_test.go:1259:16:")
    assert "(goconst)" in err.text
    assert "ERROR task failed" not in err.text


# -- generated outputs -----------------------------------------------------------------

path = st.sampled_from(["cmd/app/main", "internal/store/db", "pkg/hooks/run", "src/parse"])
num = st.integers(1, 999)
findings = st.one_of(
    st.tuples(path, num, words).map(lambda t: f"{t[0]}.go:{t[1]}:7: {t[2]} is unused (unused)"),
    st.tuples(path, num, words).map(lambda t: f"[lint:go] {t[0]}.go:{t[1]}:3: {t[2]} (goconst)"),
    words.map(lambda w: f"error[E0382]: borrow of moved value: `{w}`"),
    st.tuples(path, words).map(lambda t: f"FAILED tests/{t[0]}.py::test_{t[1]} - assert 1 == 2"),
    st.tuples(path, num).map(lambda t: f"[CI/test-1]   |   /w/{t[0]}.py:{t[1]}:9 - error: x"),
    words.map(lambda w: f"[CI/test-2]   ❌  Failure - Main Run {w}"),
    words.map(lambda w: f"--- FAIL: Test{w.capitalize()} (0.02s)"),
)
summaries = st.one_of(
    st.sampled_from(["ERROR task failed", "[lint] ERROR task failed",
                     "error: could not compile `app` (bin \"app\") due to 1 previous error",
                     "make: *** [Makefile:12: test] Error 2", "FAIL",
                     "Error: Job 'test' failed", "[CI/test-1]   |   17 errors, 0 warnings"]),
    num.map(lambda n: f"{n} issues:"),
    num.map(lambda n: f"Found {n} errors in 2 files (checked 9 source files)"),
)
warnings = st.one_of(
    words.map(lambda w: f"npm warn deprecated {w}@1.0.0: no longer supported"),
    words.map(lambda w: f"warning: unused variable `{w}`"),
    words.map(lambda w: f"WARN {w} is pre-release software"),
)
context = st.one_of(st.just("On branch main"), words.map(lambda w: f"compiling {w} v0.1.0"))
kinds = st.one_of(findings.map(lambda ln: ("finding", ln)), summaries.map(lambda ln: ("summary", ln)),
                  warnings.map(lambda ln: ("warning", ln)), context.map(lambda ln: ("context", ln)))


def _failed_call(t: Transcript, tool: str, inp: dict[str, Any], output: str) -> None:
    t.call(tool, inp, f"Error: {output}", output, error=True)


@settings(max_examples=examples(60, 400), deadline=None)
@given(parts=st.lists(kinds, min_size=1, max_size=8), piped=st.booleans())
def test_a_failure_is_headed_by_its_first_finding_whatever_comes_around_it(
        parts: list[tuple[str, str]], piped: bool) -> None:
    """A failed check whose output mixes findings, summaries, warnings and
    context lines in any order: its error opens with the first finding put
    in, else the first summary (joined to the next line when it ends on a
    colon), never a warning. Piped on (`| tail`), exit 0, the same."""
    lines = [ln for _, ln in parts]
    t = Transcript()
    t.prompt("lint it")
    if piped:
        output = "\n".join(lines)
        t.call("Bash", {"command": "mise run lint 2>&1 | tail -30"},
               {"stdout": output, "stderr": "", "interrupted": False}, output)
    else:
        _failed_call(t, "Bash", {"command": "mise run lint"}, "\n".join(["Exit code 1", *lines]))
    errs = t.state().fold.errors
    lead = next((ln for kind, ln in parts if kind == "finding"), None) or \
        next((ln for kind, ln in parts if kind == "summary"), None)
    if lead is None:  # nothing a tool marks as failing
        if piped:
            assert not errs
            return
        (err,) = errs
        first = err.text.partition("\n")[0]
        assert first in ["Exit code 1", *(" ".join(ln.split()) for ln in lines)], err.text
        if any(ln.startswith("compiling ") for ln in lines):  # a line that is no warning
            assert not WARNING.search(first), err.text
        return
    (err,) = errs
    assert err.text.partition("\n")[0] == " ".join(lead.split()), (parts, err.text)


@settings(max_examples=examples(30, 200), deadline=None)
@given(head=st.sampled_from(["error: the following files have problems:",
                             "error: Your local changes would be overwritten by checkout:",
                             "The following paths are ignored by one of your .gitignore files:"]),
       detail=st.lists(path, min_size=1, max_size=3), tool=st.sampled_from(["Bash", "Edit"]))
def test_an_error_line_ending_on_a_colon_keeps_its_detail(
        head: str, detail: list[str], tool: str) -> None:
    """F22: an error whose line ends on a colon (its detail on the lines
    below) is told with that detail on the same line where the note tells it
    in one line (an earlier error): alone it says nothing. Six failures: the
    first is an earlier one, told in a line; the last ones show the detail in
    the block under the line."""
    t = Transcript()
    t.prompt("do it")
    inp: dict[str, Any] = ({"command": "git checkout main"} if tool == "Bash" else
                           {"file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"})
    for _ in range(6):
        _failed_call(t, tool, inp, "\n".join([head, *(f"\t{d}.py" for d in detail)]))
    note = render(t.state())
    told = [ln for ln in _errors_section(note) if ln.startswith(("- ", "> - "))]
    assert len(told) == 6, note
    assert f"`{head} {detail[0]}.py`" in told[0], note
    assert f"`{head}`" not in told[0], note


@settings(max_examples=examples(30, 200), deadline=None)
@given(frames=st.lists(st.tuples(path, num, words), min_size=1, max_size=4), exc=words,
       chained=st.booleans())
def test_a_traceback_is_headed_by_its_exception(
        frames: list[tuple[str, int, str]], exc: str, chained: bool) -> None:
    """A Python traceback's headline is its last line, the exception (what
    failed; of a chained one, the last), not `Traceback (most recent call last):`."""
    tb = ["Traceback (most recent call last):"]
    for p, n, fn in frames:
        tb += [f'  File "/work/app/{p}.py", line {n}, in {fn}', f"    {fn}()", "    ^^^^"]
    body = [*tb, f"KeyError: '{exc}'"]
    if chained:
        body = [*body, "", "During handling of the above exception, another exception occurred:",
                "", *tb, f"RuntimeError: no {exc}"]
    t = Transcript()
    t.prompt("run it")
    _failed_call(t, "Bash", {"command": "python3 tool.py"}, "\n".join(["Exit code 1", *body]))
    (err,) = t.state().fold.errors
    last = f"RuntimeError: no {exc}" if chained else f"KeyError: '{exc}'"
    assert err.text.partition("\n")[0] == last, err.text


def test_the_oracles_patterns_tell_the_kinds_apart() -> None:
    """The corpus test's patterns read a finding behind a task prefix as one,
    and its task's wrapper lines as summaries, not findings."""
    assert FINDING.search("[lint:go] a/b.go:1:2: x (goconst)")
    assert SUMMARY.search("[lint:go] 1 issues:") and SUMMARY.search("[lint:go] ERROR task failed")
    assert not FINDING.search("[lint:go] ERROR task failed")
    assert not FINDING.search("Traceback (most recent call last):")


# -- review 17 #18: what failed is named -----------------------------------------------

_SUBJECT_TOOLS = {"Read": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
                  "Write": "file_path", "NotebookEdit": "notebook_path", "WebFetch": "url"}
_NOT_RUN = ("doesn't want to", "Permission to ", "denied", "rejected")


def _errors_section(note: str) -> list[str]:
    body = note.split("\n## Errors\n", 1)[1] if "\n## Errors\n" in note else ""
    return body.split("\n## ", 1)[0].splitlines()


def _failed_subjects(paths: list[Path]) -> list[tuple[str, str]]:
    """(tool, what its input named: a file, a URL) of every call of those
    tools that ran and failed, from the JSON."""
    calls: dict[str, tuple[str, str]] = {}
    out = []
    for p in paths:
        for o in json_objects(p):
            for b in (o.get("message") or {}).get("content") or []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use" and b.get("name") in _SUBJECT_TOOLS:
                    what = (b.get("input") or {}).get(_SUBJECT_TOOLS[b["name"]])
                    if isinstance(what, str) and what:
                        calls[str(b.get("id"))] = (b["name"], what)
                if b.get("type") == "tool_result" and b.get("is_error"):
                    call = calls.get(str(b.get("tool_use_id")))
                    said = json.dumps(b.get("content"))
                    if call and not any(w in said for w in _NOT_RUN):
                        out.append(call)
    return out


@pytest.mark.corpus
def test_every_corpus_tool_error_names_what_it_was_about(tmp_path: Path) -> None:
    """Corpus, every session (subagents' files too, through `vv backfill`):
    each failed Read, edit or WebFetch is told under Errors on a line of its
    tool that names its file (by its name) or its URL, read from the call's
    input in the JSON."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {frontmatter(n).get("session_id"): n for n in env.all_notes().values()
             if "\ntype: session\n" in n}
    checked = fetches = 0
    for main in main_files():
        failed = _failed_subjects([main, *session_files(main)])
        if not failed:
            continue
        sid = next((o["sessionId"] for o in json_objects(main) if o.get("sessionId")), None)
        lines = _errors_section(notes[sid])
        for tool, what in failed:
            named = what if tool == "WebFetch" else what.replace("\\", "/").rsplit("/", 1)[-1]
            assert any(f"**{tool}**" in ln and named in ln for ln in lines), (main, tool, what)
            checked += 1
            fetches += tool == "WebFetch"
    assert checked >= 15 and fetches >= 3, (checked, fetches)


url_path = st.lists(words, min_size=1, max_size=3).map("/".join)


@settings(max_examples=examples(20, 150), deadline=None)
@given(tool=st.sampled_from(["WebFetch", "Read", "Edit"]), where=url_path, said=phrase,
       under=st.booleans())
def test_a_tool_error_names_its_file_or_url(
        tmp_path_factory: Any, tool: str, where: str, said: str, under: bool) -> None:
    """A failed WebFetch, Read or Edit: its line under Errors names the URL,
    or the file as the story shows it (relative under the session's folder),
    beside what the tool said."""
    t = Transcript()
    t.prompt("look it up")
    if tool == "WebFetch":
        subject = f"https://example.org/{where}"
        inp: dict[str, Any] = {"url": subject, "prompt": "summarise"}
    else:
        full = f"{t.cwd if under else '/opt/other'}/{where}.py"
        subject = f"{where}.py" if under else full
        inp = {"file_path": full, "old_string": "a", "new_string": "b"}
    t.call(tool, inp, f"Error: {said}", f"<tool_use_error>{said}</tool_use_error>", error=True)
    t.say("It failed.")
    note = t.note(tmp_path_factory, "test_a_tool_error_names_its_file_or_url")
    line = f"**{tool}**: `{subject}` → `{said}`"
    assert any(line in ln for ln in _errors_section(note)), note


# -- review 17 #15: an interrupted call is told once -----------------------------------

_REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
            "you are doing and wait for the user to tell you how to proceed.")


def _after_interrupt(note: str) -> list[tuple[str, list[str]]]:
    """Each "Interrupted … after: X" line's X, with the story's list items of
    its turn (the lines starting "- " above it, up to the turn's heading)."""
    out = []
    lines = note.splitlines()
    for i, ln in enumerate(lines):
        m = re.match(r"> \*\*Interrupted\*\* by the user(?: \(\d+ times\))? after: (.*)$", ln)
        if not m:
            continue
        items = []
        for above in reversed(lines[:i]):
            if above.startswith("### "):
                break
            if above.startswith("- "):
                items.append(above[2:])
        out.append((m.group(1), items))
    return out


@pytest.mark.corpus
def test_no_corpus_interruption_repeats_the_line_above_it(tmp_path: Path) -> None:
    """Corpus, every session through `vv backfill`: a turn the user stopped
    tells its last step once, on the "Interrupted … after:" line, not also
    as the list item above it (cb2e607c showed one denied command twice)."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    told = 0
    for note in env.all_notes().values():
        for done, items in _after_interrupt(note):
            assert done not in items, done
            told += 1
    assert told >= 1


@settings(max_examples=examples(20, 150), deadline=None)
@given(before=st.lists(phrase, max_size=4), last=phrase, refused=st.booleans())
def test_an_interrupted_turn_tells_its_last_step_once(
        tmp_path_factory: Any, before: list[str], last: str, refused: bool) -> None:
    """Commands, the last one refused by the user (or run), then the user's
    interrupt: every command's description is in the note once, the last on
    the "Interrupted … after:" line."""
    t = Transcript()
    t.prompt("clean up")
    for n, said in enumerate(before):
        t.call("Bash", {"command": f"echo {n}", "description": f"Step {said}"},
               {"stdout": "", "stderr": "", "interrupted": False}, "")
    t.call("Bash", {"command": "make clean", "description": f"Last {last}"}, None,
           _REFUSED if refused else "done", error=refused)
    t.raw({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    t.prompt("now do it another way")
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_an_interrupted_turn_tells_its_last_step_once")
    ((done, items),) = _after_interrupt(note)
    assert done.startswith(f"Last {last}: `make clean`"), done
    assert note.count(f"Last {last}: `make clean`") == 1, note
    for said in before:
        assert f"Step {said}: `echo" in "\n".join(items), note
