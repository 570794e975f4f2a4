"""Every line of a story is told under a time the transcript bears out (review
23 #7: b74fb8cb's plan, approved 2 h after the 02:31 heading, and all the work
after it read as done at 02:31).

The oracle is the JSON of every corpus session: the times of its entries of the
main chain (prompts, Claude's messages, tool results). Each is at most
LATER_MINUTES after a time the story shows above it (a turn's heading, a line
saying how much later the work went on, or a call's line saying when its result
came), and no time shown is later than the
entries it stands over: the times shown go forward, each the time of an entry.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from conftest import CORPUS, Env, frontmatter, main_files
from conftest import json_objects as objects
from test_corpus import expected_sid
from test_unanswered import asks

pytestmark = pytest.mark.corpus

LATER_MINUTES = 30
HEADING = re.compile(r"^### (?:(\d{4}-\d\d-\d\d) )?(\d\d:\d\d) · ")
LATER = re.compile(r"^\*(?:\d+ days? ?)?(?:\d+ h ?)?(?:\d+ min)? ?later, at "
                   r"(?:(\d{4}-\d\d-\d\d) )?(\d\d:\d\d):\*$")
# A call's line telling when its result came, long after it (test_story_waits).
RESULT_CAME = re.compile(r"\(its result came [\w ]+ later, at (?:(\d{4}-\d\d-\d\d) )?"
                         r"(\d\d:\d\d)\)$")
SKIPPED = re.compile(r"^\*… [\d,]+ turns in between are not shown\.\*$")


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = Env(tmp_path_factory.mktemp("times"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}


def shown_times(note: str) -> list[datetime | None]:
    """The times the story shows, in order (UTC: the notes are written with
    TZ=UTC), None where turns are left out."""
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    day = str(frontmatter(note)["started"])[:10]
    out: list[datetime | None] = []
    for line in story.splitlines():
        if SKIPPED.match(line):
            out.append(None)
            continue
        m = HEADING.match(line) or LATER.match(line) or RESULT_CAME.search(line)
        if m:
            day = m.group(1) or day
            out.append(datetime.fromisoformat(f"{day}T{m.group(2)}:00+00:00"))
    return out


def entry_times(main: Path, sid: str, work: bool = True) -> list[datetime]:
    """When each entry of the session's main chain was written: its prompts,
    Claude's messages and results (`work`; not meta lines, subagents' or Claude
    Code's own), else any line of the session with a time (a command's output,
    a recap)."""
    out = []
    for o in objects(main):
        if o.get("sessionId") == sid and isinstance(o.get("timestamp"), str) and (
                not work or (o.get("type") in ("user", "assistant")
                             and not o.get("isSidechain") and not o.get("isMeta"))):
            out.append(datetime.fromisoformat(o["timestamp"].replace("Z", "+00:00"))
                       .astimezone(UTC))
    return out


def _minute(t: datetime) -> datetime:
    return t.replace(second=0, microsecond=0)


# The sessions where the user asked something (from the JSON): each has a note
# (test_unanswered holds the others have none), so each is read here.
SESSIONS = [p for p in main_files() if any(asks(o) for o in objects(p))]


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_entry_is_told_under_a_time_it_bears_out(notes: dict[str, str],
                                                       main: Path) -> None:
    sid = str(expected_sid(main))
    assert sid in notes, "asked, yet no note"
    shown = shown_times(notes[sid])
    entries = sorted(entry_times(main, sid))
    told = [t for t in shown if t is not None]
    minutes = {_minute(t) for t in entry_times(main, sid, work=False)}
    # Each time shown is the minute of an entry, and they go forward.
    for t in told:
        assert t in minutes, (t, "shown, but no entry was written then")
    for a, b in pairwise(told):
        assert a <= b, (a, b, "a time shown before an earlier one")
    # Each entry is at most LATER_MINUTES after a time shown above it (where
    # turns are left out, the entries between the times either side of the gap
    # are not told).
    gaps = [(a, b) for a, b, c in zip(shown, shown[1:], shown[2:], strict=False)
            if b is None and a is not None and c is not None]
    first = told[0] if told else None
    for e in entries:
        if first is None or e < first:
            continue  # (before the story's first turn: the lines a file opens with)
        if any(a <= _minute(e) <= c for a, c in gaps):
            continue
        above = max(t for t in told if t <= _minute(e))
        assert e - above <= timedelta(minutes=LATER_MINUTES, seconds=59), (
            e, above, "told under a time long before it")


def test_the_corpus_has_work_long_after_its_heading(notes: dict[str, str]) -> None:
    """The check means something: a session where a turn went on long after
    its heading's time (b74fb8cb's plan approved 2 h later) is in the corpus."""
    assert any(LATER.match(line) for n in notes.values() for line in n.splitlines())
