"""Issue 29 (review 17, finding 13): the minutes a note shows are the true span
rounded to the nearest minute, half a minute up, never floored.

The generated test writes a one-turn session whose span and worked time are
drawn to the millisecond (many of them a few milliseconds either side of a
half minute) and computes what the header must say from the stamps alone,
with decimal arithmetic. The corpus test checks every real session's
`duration_minutes` and header against its first and latest own entry in the
JSON, and `active_minutes` against the time worked out from the JSON by
test_headline_facts' reading of the README's rule.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter, json_objects, main_files
from test_corpus import expected_sid
from test_headline_facts import active_time_of
from test_story_facts import _stamp, corpus_notes, own_span  # noqa: F401
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

SID = "40a1d000-0000-4000-8000-000000000001"
START = datetime(2026, 1, 21, 6, 20, 46, 250_000, tzinfo=UTC)


def nearest_minute(ms: int | float) -> int:
    """Whole minutes to the nearest, a half minute up (decimal, not the code's
    integer arithmetic)."""
    return int((Decimal(str(ms)) / Decimal(60_000)).quantize(Decimal(1), ROUND_HALF_UP))


def worked_words(minutes: int, ms: int) -> str:
    if minutes == 0:
        return "0 min" if ms == 0 else "<1 min"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"


def span_said(minutes: int) -> str:
    """A duration past an hour in hours and minutes (review 19, finding 7)."""
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"


def stamp(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# Spans anywhere up to three hours, and spans a few ms either side of k minutes
# and a half (where floor and nearest part, and where half-up decides).
near_half = st.builds(lambda k, d: max(0, k * 60_000 + 30_000 + d),
                      st.integers(0, 180), st.integers(-3, 3))
span_ms = st.one_of(st.integers(0, 3 * 3600_000), near_half)


@settings(max_examples=examples(150, 600), deadline=None)
@given(span=span_ms, worked=st.one_of(st.integers(0, 3 * 3600_000), near_half),
       timed=st.booleans())
def test_the_minutes_shown_are_the_span_rounded_to_the_nearest(
        span: int, worked: int, timed: bool) -> None:
    """A prompt, Claude's answer `span` ms later and (on a client that writes
    one) the turn's `turn_duration` of `worked` ms at most the span: the
    header says the duration and Claude's time each rounded half up, "under a
    minute" / "<1 min" when that is 0, never "0 min" for time worked; the
    frontmatter holds the same whole minutes."""
    # (untimed: the prompt to the answer, unless that pause is 5 minutes or more)
    worked = min(worked, span) if timed else span if span < 300_000 else 0
    end = START + timedelta(milliseconds=span)
    base = {"sessionId": SID, "cwd": "/work/app", "version": "2.1.14"}
    lines: list[dict[str, Any]] = [
        {**base, "type": "user", "uuid": "u1", "timestamp": stamp(START),
         "message": {"role": "user", "content": "port the parser"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": stamp(end),
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-5-20251101",
                     "content": [{"type": "text", "text": "Ported."}],
                     "usage": {"input_tokens": 1, "output_tokens": 1}}}]
    if timed:
        lines.append({**base, "type": "system", "subtype": "turn_duration", "uuid": "d1",
                      "parentUuid": "a1", "timestamp": stamp(end), "durationMs": worked})
    facts = fold(Fold(), (decode_line(json.dumps(x).encode()) for x in lines))
    note = render(SessionState(session_id=SID, project="app", fold=facts))
    wall, active = nearest_minute(span), nearest_minute(worked)
    fm = frontmatter(note)
    assert (fm["duration_minutes"], fm["active_minutes"]) == (wall, active), (span, worked)
    header = next(ln for ln in note.splitlines() if ln.startswith("**Project**"))
    if wall:
        assert f"**Duration** {span_said(wall)} (Claude worked {worked_words(active, worked)})" \
            in header, (span, worked, header)
    else:
        assert "**Duration** under a minute" in header, (span, header)
    assert not re.search(r"\b0 min\b", header) or worked == 0, header


@pytest.mark.corpus
def test_every_corpus_notes_minutes_are_its_jsons_spans_rounded(
        corpus_notes: dict[str, str]) -> None:  # noqa: F811
    """Every corpus session: `duration_minutes` and the header's Duration are
    the first own entry to the latest, rounded half up; `active_minutes` and
    "Claude worked" are the JSON's worked time rounded the same way."""
    checked = rounded_up = 0
    for main in main_files():
        note = corpus_notes.get(str(expected_sid(main)))
        if note is None:
            continue
        span = own_span([o for o in json_objects(main) if _stamp(o) is not None])
        if span is None:
            continue
        first, last = span
        span_ms = (last - first) / timedelta(milliseconds=1)
        wall = nearest_minute(span_ms)
        lines = [x for x in main.read_bytes().split(b"\n") if x.strip()]
        worked_ms = active_time_of(lines)
        active = nearest_minute(worked_ms)
        fm = frontmatter(note)
        assert fm["duration_minutes"] == wall, (main.name, span_ms, fm["duration_minutes"])
        # (the fold's and this reading agree to 2 ms: either side of a half minute)
        assert fm["active_minutes"] in {active, nearest_minute(worked_ms - 2),
                                        nearest_minute(worked_ms + 2)}, \
            (main.name, worked_ms, fm["active_minutes"])
        active = int(fm["active_minutes"])  # type: ignore[call-overload]
        header = next(ln for ln in note.splitlines() if ln.startswith("**Project**"))
        if wall:
            assert f"**Duration** {span_said(wall)} (Claude worked {worked_words(active, worked_ms)}" \
                in header, (main.name, header)
        else:
            assert "**Duration** under a minute" in header, (main.name, header)
        checked += 1
        rounded_up += wall > span_ms // 60_000
    # (c7d3d95c's 3.75 min among them: a floor would show 3)
    assert checked > 20 and rounded_up >= 5, (checked, rounded_up)
