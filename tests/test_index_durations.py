"""A session's duration in the project and daily notes reads as in its own
note: "<1 min", "18 min", past an hour "23h 40m" (the README: hours and
minutes past an hour everywhere but the frontmatter), never "1420 min"."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples


def said(minutes: int) -> str:
    """The README's words for a span of whole minutes."""
    if minutes <= 0:
        return "<1 min"
    hours, rest = divmod(minutes, 60)
    return f"{minutes} min" if not hours else f"{hours}h {rest:02d}m"


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.lists(st.integers(0, 100 * 24 * 60), min_size=1, max_size=6))
def test_durations_read_in_hours_and_minutes(durations: list[int]) -> None:
    from vibe_vault.aggregates import Sums
    from vibe_vault.index import ProjectView, render_daily, render_project
    from vibe_vault.records import Record

    records = [Record(session_id=f"{k:08d}-0000-0000-0000-000000000000", project="p",
                      note=f"Projects/p/sessions/s{k}.md", title=f"Talk {k}",
                      started=f"2026-11-27T{k:02d}:00:00Z", status="ended",
                      duration_minutes=m, has_note=True)
               for k, m in enumerate(durations)]
    view = ProjectView("p", Sums(sessions=len(records)), [], [], {}, records[0].started,
                       records[-1].started, records)
    by_title = {r.title: said(r.duration_minutes) for r in records}
    rows = [line for line in render_project(view).splitlines() if "Talk " in line]
    assert len(rows) == len(records)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        title = re.search(r"Talk \d+", row)
        assert title is not None and cells[2] == by_title[title.group(0)], row
    days = [line for line in render_daily("2026-11-27", records).splitlines()
            if "Talk " in line]
    assert len(days) == len(records)
    for line in days:
        title = re.search(r"Talk \d+", line)
        assert title is not None and f"({by_title[title.group(0)]}, " in line, line
