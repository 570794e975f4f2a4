"""A secret of several words, once learned, is in no text of the session
(issue 27): a passphrase given to a secret's name in a shell
(`export DB_PASSWORD='correct horse battery staple'`), a `.env` read or
written with one, a `<private>` span, said again before or after in any
place, with any space between its words and any glue around it.

Generated: phrases of 2-8 words (letters and digits) x the forms that teach
them x where the phrase comes back (prompt, answer, a command's description,
an error, the title) x before or after x how it is spaced and glued. Oracle:
the phrase's bytes, which the test chose, as it was written each time, are
nowhere in the note or the state (in process), nor under the vault, the state
dir, `vv search` or `vv show` (end to end through `vv hook`).
"""

from __future__ import annotations

import string
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_shell_secrets import _assistant, _lines, _result

_WORD = st.text(string.ascii_lowercase + string.digits, min_size=3, max_size=9).filter(
    lambda w: any(c.isalpha() for c in w))
# (not a value the README calls a placeholder, which nobody's secret is and vv
# does not learn: one opening with "your" or ending in "here", "your 000000a")
phrases = st.lists(_WORD, min_size=2, max_size=8, unique=True).map(" ".join).filter(
    lambda p: len(p) >= 12 and p.split()[0] != "your" and p.split()[-1] != "here")

# How a phrase is taught: (the teaching entries' maker).
TEACHERS = ("export", "env-read", "env-write", "private", "pasted-json")


def _teach(how: str, p: str) -> list[dict[str, Any]]:
    if how == "export":
        return [_assistant(50, {"type": "tool_use", "id": "teach", "name": "Bash", "input": {
            "command": f"export DB_PASSWORD='{p}' && ./migrate"}}),
            _result("teach", "ok", stdout="ok")]
    if how == "env-read":
        return [_assistant(50, {"type": "tool_use", "id": "teach", "name": "Read",
                                "input": {"file_path": "/srv/app/.env"}}),
                {"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "teach", "content": "read"}]},
                 "toolUseResult": {"type": "text", "file": {
                     "filePath": "/srv/app/.env", "content": f"APP=shop\nPASSPHRASE={p}\n",
                     "numLines": 2, "startLine": 1, "totalLines": 2}}}]
    if how == "env-write":
        return [_assistant(50, {"type": "tool_use", "id": "teach", "name": "Write", "input": {
            "file_path": "/srv/app/.env", "content": f'MAIL_PASS="{p}"\n'}}),
            _result("teach", "File created successfully")]
    if how == "private":
        return [{"type": "user", "message": {"role": "user",
                                             "content": f"the door code is <private>{p}</private>"}}]
    return [{"type": "user", "message": {"role": "user", "content":
                                         f'the config is {{"db_password": "{p}"}}'}}]


# How the phrase is written when it comes back: its words joined by `sep`,
# between `before` and `after`.
SPACINGS = (" ", "  ", "\n", " \t", "\n  ")
GLUES = (("", ""), ("'", "'"), ('"', '"'), ("(", ")."), ("pw=", ";"), ("`", "`"), ("", ","))
PLACES = ("prompt", "answer", "description", "error", "title")


def _again(place: str, n: int, written: str) -> list[dict[str, Any]]:
    if place == "prompt":
        return [{"type": "user", "message": {"role": "user", "content": f"use {written} now"}}]
    if place == "answer":
        return [_assistant(n, {"type": "text", "text": f"I set it to {written} as asked."})]
    if place == "title":
        return [{"type": "ai-title", "aiTitle": " ".join(f"Set {written} up".split())}]
    tid = f"p{n}"
    if place == "description":
        return [_assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
            "command": "ls", "description": f"check {written} works"}}),
            _result(tid, "ok", stdout="ok")]
    return [_assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
        "command": "./login"}}),
        _result(tid, f"Exit code 1\nrejected: {written}", error=True)]


@st.composite
def sessions(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str]]:
    """A session teaching a phrase and saying it again; the phrase as written
    each time it comes back (the needles)."""
    p = draw(phrases)
    how = draw(st.sampled_from(TEACHERS))
    said = draw(st.lists(st.tuples(st.sampled_from(PLACES), st.booleans(),
                                   st.sampled_from(SPACINGS), st.sampled_from(GLUES)),
                         min_size=1, max_size=4))
    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "set up the app"}}]
    needles = [p]
    later: list[dict[str, Any]] = []
    for n, (place, after, sep, (before, behind)) in enumerate(said):
        written = sep.join(p.split())
        if place != "title":
            needles.append(written)
        entries = _again(place, n + 1, before + written + behind)
        if after:
            later += entries
        else:
            out += entries
    out += _teach(how, p) + later
    out.append(_assistant(99, {"type": "text", "text": "All set."}))
    return out, needles


def _fold(entries: list[dict[str, Any]]) -> tuple[str, bytes, Any]:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in _lines("s" * 8, entries)])
    return render(state), msgspec.json.encode(state), state


@settings(max_examples=examples(25, 800), deadline=None)
@given(sessions(), st.integers(0, 1000))
def test_a_learned_phrase_is_in_no_text_before_or_after(
        case: tuple[list[dict[str, Any]], list[str]], cut: int) -> None:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import SessionState

    entries, needles = case
    note, state, _ = _fold(entries)
    for needle in needles:
        assert needle not in note, (needle, note)
        assert needle.encode() not in state
        assert msgspec.json.encode(needle)[1:-1] not in state
    # The fold law: read in two parts, split anywhere, the state is the same.
    lines = [decode_line(x) for x in _lines("s" * 8, entries)]
    at = cut % (len(lines) + 1)
    parts = SessionState(session_id="s")
    fold(parts.fold, lines[:at])
    fold(parts.fold, lines[at:])
    assert msgspec.json.encode(parts) == state


def test_the_words_of_a_phrase_alone_are_kept() -> None:
    """Only the whole run of words is the secret: its words said alone, or the
    run cut short, stay (they are ordinary words)."""
    p = "correct horse battery staple"
    entries = [{"type": "user", "message": {"role": "user", "content": "go"}},
               *_teach("export", p),
               _assistant(60, {"type": "text", "text": "A correct horse battery is what we"
                                                       " need; staple it."})]
    note, state, folded = _fold(entries)
    assert "A correct horse battery is what we need; staple it." in note
    assert any("w" in d for d in folded.fold.learned)  # learned as a phrase
    assert p.encode() not in state


@settings(max_examples=examples(3, 10), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.booleans())
def test_end_to_end_a_learned_phrase_is_in_no_file_search_or_show(
        case: tuple[list[dict[str, Any]], list[str]], two_reads: bool) -> None:
    entries, needles = case
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        env.here = in_process("learned phrases end to end")
        slug = env.claude / "projects" / "-srv-app"
        slug.mkdir(parents=True)
        sid = "5ec7e700-0000-4000-8000-000000000270"
        path = slug / f"{sid}.jsonl"
        lines = _lines(sid, entries)
        event = {"hook_event_name": "Stop", "session_id": sid, "transcript_path": str(path),
                 "cwd": "/srv/app"}
        if two_reads:  # said in one hook's read, taught in the next
            path.write_bytes(b"\n".join(lines[:2]) + b"\n")
            assert env.hook(event).returncode == 0
        path.write_bytes(b"\n".join(lines) + b"\n")
        r = env.hook(event)
        assert r.returncode == 0, r.stderr
        assert env.notes()
        assert env.vv_here("index").returncode == 0
        for needle in needles:
            leaks = env.traces(needle, sid)
            assert not leaks, (needle, leaks)
