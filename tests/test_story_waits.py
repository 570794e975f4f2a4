"""Waits in a story are measured from the last thing that happened before them
(review 25 L2: a7da6a22's "1 h 22 min later, at 16:46" counted from the 15:24
prompt, though a pytest call was made at 15:37:27 and its result came at
16:46:49: the hour was that one call's wait, which its line did not show).

A "*N later, at T:*" line tells how long after the last prompt, call or result
above it the next line's work came; a call whose result came LONG_WAIT or more
after it says so on its line ("its result came N later, at T") unless the run
time it shows is that long. The oracles: times planted in generated sessions,
and the entries' own timestamps in every corpus session's JSON.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, main_files
from conftest import json_objects as objects
from test_corpus import expected_sid
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

LATER_SECONDS = 30 * 60
LONG_WAIT = 10 * 60
ANSWERED = ("AskUserQuestion", "ExitPlanMode")  # told at the user's answer
MARKER = re.compile(r"^\*((?:\d+ days? ?)?(?:\d+ h ?)?(?:\d+ min)?) later, at "
                    r"(?:(\d{4}-\d\d-\d\d) )?(\d\d:\d\d):\*$")
WAITED = re.compile(r"\(its result came ((?:\d+ days? ?)?(?:\d+ h ?)?(?:\d+ min)?) later, "
                    r"at (?:(\d{4}-\d\d-\d\d) )?(\d\d:\d\d)\)$")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SID = "5e1a9c2b-0000-4000-8000-000000000001"


def span(seconds: float) -> str:
    """A wait as the note words it, to the minute (rounded down)."""
    minutes = int(seconds // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [f"{days} day" + ("s" if days > 1 else "")] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{mins} min"] if mins and not days else []
    return " ".join(parts) or "0 min"


def stamp(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Session:
    """A session's lines, each at a time the test sets."""

    def __init__(self, mode: str) -> None:
        self.lines: list[dict[str, Any]] = []
        self.mode = mode

    def add(self, at: datetime, kind: str, **fields: Any) -> None:
        n = len(self.lines) + 1
        self.lines.append({
            "type": kind, "uuid": f"5e1a9c2b-0000-4000-8000-{n:012d}",
            "parentUuid": self.lines[-1]["uuid"] if self.lines else None,
            "sessionId": SID, "cwd": "/work/app", "version": "2.0.55",
            "timestamp": stamp(at), **fields})

    def prompt(self, at: datetime, words: str) -> None:
        self.add(at, "user", permissionMode=self.mode,
                 message={"role": "user", "content": words})

    def call(self, at: datetime, done: datetime, n: int, out: str = "done",
             ran_ms: int | None = None) -> None:
        tid = f"toolu_{n:04d}"
        self.add(at, "assistant", message={
            "id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                         "input": {"command": f"make step{n}", "description": f"Step {n}"}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        result: dict[str, Any] = {"stdout": out, "stderr": "", "interrupted": False}
        if ran_ms is not None:
            result["durationMs"] = ran_ms  # the client's own count of the run
        self.add(done, "user", toolUseResult=result,
                 message={"role": "user", "content": [
                     {"type": "tool_result", "tool_use_id": tid, "content": out}]})

    def say(self, at: datetime, words: str) -> None:
        self.add(at, "assistant", message={
            "id": f"msg_{len(self.lines)}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": words}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})

    def note(self) -> str:
        f = fold(Fold(), (decode_line(json.dumps(x).encode()) for x in self.lines))
        return render(SessionState(session_id=SID, project="app", fold=f))


# Seconds: a few, minutes, or long enough for a marker or a wait to be told.
seconds = st.one_of(st.integers(1, 120), st.integers(121, 3 * 3600),
                    st.sampled_from([LONG_WAIT - 1, LONG_WAIT, LATER_SECONDS,
                                     LATER_SECONDS + 60, 26 * 3600]))


@settings(max_examples=examples(40, 200), deadline=None)
@given(steps=st.lists(st.tuples(seconds, seconds, st.sampled_from([None, 2.95, 41.5])),
                      min_size=1, max_size=6),
       mode=st.sampled_from(["default", "bypassPermissions"]))
def test_a_wait_is_measured_from_the_last_call_or_result_before_it(
        steps: list[tuple[int, int, float | None]], mode: str) -> None:
    """A prompt, then commands, each made `before` seconds after the last
    event and answered `wait` seconds after it was made, some printing their
    own run time (pytest's "in 2.95s"): a marker stands before each command
    made over LATER_SECONDS after the last event (the prompt or the last
    result), saying how long and when; a command whose result came LONG_WAIT
    or more after it shows that wait as its run time where nothing asks for
    permission; else, where a permission may have been waited for, it tells
    the wait on its line only beside the run time the tool printed (review 26
    #7: never as if it ran that long)."""
    s = Session(mode)
    s.prompt(START, "run the steps")
    last = START
    markers, waits = [], {}
    printed: dict[int, float | None] = {}
    for n, (before, wait, own) in enumerate(steps):
        at, done = last + timedelta(seconds=before), last + timedelta(seconds=before + wait)
        printed[n] = own
        s.call(at, done, n, "done" if own is None else
               f"===== 3 passed in {own}s =====")
        if before > LATER_SECONDS:
            when = at.strftime("%H:%M") if at.date() == START.date() else \
                at.strftime("%Y-%m-%d %H:%M")
            markers.append(f"*{span(before)} later, at {when}:*")
        waits[n] = (wait, done)
        last = done
    s.say(last + timedelta(seconds=1), "All steps ran.")
    story = s.note().split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    assert [x for x in story.splitlines() if MARKER.match(x)] == markers, story
    for n, (wait, done) in waits.items():
        line = next(x for x in story.splitlines() if f"step{n}`" in x)
        told = WAITED.search(line)
        if wait < LONG_WAIT:
            assert told is None, line
        elif mode == "bypassPermissions":  # (its wait is its run time, shown as such)
            assert told is None and re.search(r"— ok, \d+h \d\dm$|— ok, \d+m$", line), line
        elif printed[n] is None:  # (a permission may have been waited for: not told)
            assert told is None and line.endswith("— ok"), line
        else:
            assert f"— ok, {int(printed[n])}s (" in line, line
            assert told is not None, line
            assert told.group(1) == span(wait), (line, wait)
            assert told.group(3) == done.strftime("%H:%M"), line
            assert (told.group(2) or START.date().isoformat()) == done.date().isoformat(), line


@settings(max_examples=examples(30, 120), deadline=None)
@given(ran_s=st.integers(1, 3 * 3600), waited_s=st.integers(0, 3 * 3600),
       mode=st.sampled_from(["default", "bypassPermissions"]))
def test_the_clients_own_run_time_is_shown(ran_s: int, waited_s: int, mode: str) -> None:
    """A result that carries the client's own count of the run (`durationMs`):
    that is the time shown, whatever the wait around it; the wait is told
    beside it when its result came LONG_WAIT or more after the call and over
    a minute more than the run."""
    s = Session(mode)
    s.prompt(START, "run it")
    at = START + timedelta(seconds=5)
    done = at + timedelta(seconds=ran_s + waited_s)
    s.call(at, done, 0, "done", ran_s * 1000)
    s.say(done + timedelta(seconds=1), "Ran.")
    f = fold(Fold(), (decode_line(json.dumps(x).encode()) for x in s.lines))
    assert f.commands[0].ms == ran_s * 1000
    story = s.note().split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in story.splitlines() if "step0`" in x)
    told = WAITED.search(line)
    if ran_s + waited_s >= LONG_WAIT and waited_s > 60:
        assert told is not None and told.group(1) == span(ran_s + waited_s), line
    else:
        assert told is None, line


# -- every corpus session ----------------------------------------------------------------

@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = Env(tmp_path_factory.mktemp("waits"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}


def _time(o: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(str(o["timestamp"]).replace("Z", "+00:00")).astimezone(UTC)


def events(main: Path, sid: str) -> list[tuple[datetime, str, str]]:
    """The main chain's events, from the JSON, in order: (when, what, tool):
    a prompt ("prompt"), a tool call ("call") or its result ("result")."""
    out: list[tuple[datetime, str, str]] = []
    names: dict[str, str] = {}
    for o in objects(main):
        if o.get("sessionId") != sid or o.get("isSidechain") or o.get("isMeta") \
                or not isinstance(o.get("timestamp"), str) \
                or o.get("type") not in ("user", "assistant"):
            continue
        content = (o.get("message") or {}).get("content")
        if isinstance(content, str):
            out.append((_time(o), "prompt", ""))
            continue
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                names[str(b.get("id"))] = str(b.get("name"))
                out.append((_time(o), "call", str(b.get("name"))))
            elif b.get("type") == "tool_result":
                out.append((_time(o), "result", names.get(str(b.get("tool_use_id")), "")))
            elif b.get("type") == "text" and o.get("type") == "user":
                out.append((_time(o), "prompt", ""))
    return sorted(out, key=lambda e: e[0])


HEADING = re.compile(r"^### (?:(\d{4}-\d\d-\d\d) )?\d\d:\d\d · ")


def _at(day: str, hhmm: str) -> datetime:
    return datetime.fromisoformat(f"{day}T{hhmm}:00+00:00")


SESSIONS = [p for p in main_files()
            if any(isinstance(o.get("timestamp"), str) for o in objects(p))]


@pytest.mark.corpus
@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_wait_told_is_one_the_json_bears_out(notes: dict[str, str], main: Path) -> None:
    """Each "*N later, at T:*" of a corpus note stands before work (a call, or
    the answer to a question or a plan) made in minute T, N after the last
    prompt, call or result before it; each "its result came N later, at T" is
    a call's result that came N after a call, in minute T, N at least
    LONG_WAIT."""
    sid = str(expected_sid(main))
    if sid not in notes:
        return  # (a session with no note: test_story_times holds which have none)
    note = notes[sid]
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    evs = events(main, sid)
    day = str(frontmatter(note)["started"])[:10]  # (a time shown without a date: its turn's day)
    for line in story.splitlines():
        h = HEADING.match(line)
        day = h.group(1) or day if h else day
        m = MARKER.match(line)
        if m:
            at = _at(m.group(2) or day, m.group(3))
            gaps = {span((t - max(p for p, _, _ in evs if p < t)).total_seconds())
                    for t, what, tool in evs
                    if at <= t < at + timedelta(minutes=1) and any(p < t for p, _, _ in evs)
                    and (what == "call" or (what == "result" and tool in ANSWERED))}
            assert m.group(1) in gaps, (line, sorted(gaps))
        w = WAITED.search(line)
        if w:
            at = _at(w.group(2) or day, w.group(3))
            calls = [t for t, what, _ in evs if what == "call"]
            waits = {span((t - c).total_seconds())
                     for t, what, _ in evs if what == "result"
                     and at <= t < at + timedelta(minutes=1)
                     for c in calls if (t - c).total_seconds() >= LONG_WAIT}
            assert w.group(1) in waits, (line, sorted(waits))


@pytest.mark.corpus
def test_the_corpus_has_long_waits_of_each_kind(notes: dict[str, str]) -> None:
    """The check above means something: corpus notes tell both a gap between
    calls and a single call's long wait."""
    lines = [x for n in notes.values() for x in n.splitlines()]
    assert sum(1 for x in lines if MARKER.match(x)) >= 3
    assert any(WAITED.search(x) for x in lines)
