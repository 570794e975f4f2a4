"""The per-project sums in the database (aggregates.py): kept up by each
record's change, they equal sums made from scratch, and `vv stats` made from
them equals the report made from the records one by one; the charts they
draw are deterministic and their labels cannot break out of a Mermaid block."""

from __future__ import annotations

import itertools
import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import aggregates, neighbours, registry, vaultdb
from vibe_vault.charts import BLOCKS, activity, bar, cost_pie, weeks_ending
from vibe_vault.commands.stats import compute, from_sums
from vibe_vault.markdown import mermaid_label
from vibe_vault.records import Record
from vibe_vault.times import day

PROJECTS = ["alpha", "beta", "gamma-δ"]
DAYS = ["", "2025-12-29", "2026-01-01", "2026-01-04", "2026-01-05", "2026-02-28",
        "2026-03-01", "2027-01-01"]
MODELS = ["claude-opus-4-5", "claude-haiku-4-5", "odd \"model\" `x`"]
FILES = ["/a.py", "/b.py", "/ü/c.py", "/d.md"]


@st.composite
def records(draw: Any, sid: str) -> Record:
    day = draw(st.sampled_from(DAYS))
    models = draw(st.lists(st.sampled_from(MODELS), unique=True, max_size=3))
    tokens = {m: draw(st.lists(st.integers(0, 10**7), min_size=4, max_size=4)) for m in models}
    priced = draw(st.lists(st.sampled_from(models), unique=True)) if models else []
    cost = {m: round(draw(st.floats(0, 50, allow_nan=False)), 6) for m in priced}
    short = draw(st.integers(0, 3))  # replies whose output tokens were under-recorded
    return Record(
        output_short=short, output_unrecorded=draw(st.integers(1, 10**5)) if short else 0,
        session_id=sid, project=draw(st.sampled_from(PROJECTS)),
        started=f"{day}T10:00:00+00:00" if day else "",
        has_note=draw(st.booleans()), note=f"Projects/x/sessions/{sid}.md",
        active_minutes=draw(st.integers(0, 600)),
        input_tokens=draw(st.integers(0, 10**6)), output_tokens=draw(st.integers(0, 10**6)),
        cache_read_tokens=draw(st.integers(0, 10**8)),
        cache_creation_tokens=draw(st.integers(0, 10**6)),
        cost_usd=sum(cost.values()), tokens_by_model=tokens, cost_by_model=cost,
        files_changed=sorted(draw(st.lists(st.sampled_from(FILES), unique=True))))


# A history: sessions written, written again (their record changed), deleted.
operations = st.lists(st.tuples(st.sampled_from(["put", "put", "put", "delete"]),
                                st.integers(0, 7), st.data()), max_size=30)


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall()
            for t in aggregates.TABLES}


def close_enough(got: Any, want: Any) -> bool:
    """Equal, floats (costs, hours: sums of floats in the oracle) to 1e-4."""
    if isinstance(want, dict):
        return isinstance(got, dict) and list(got) == list(want) and all(
            close_enough(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            close_enough(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, float) or isinstance(got, float):
        return bool(got == pytest.approx(want, abs=1.5e-4))
    return bool(got == want)


@settings(max_examples=examples(20, 60), deadline=None)
@given(operations)
def test_sums_kept_up_by_each_change_equal_sums_from_scratch(
        ops: list[tuple[str, int, Any]]) -> None:
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        live: dict[str, Record] = {}
        with vaultdb.transaction(conn):
            for op, n, data in ops:
                sid = f"s{n}"
                if op == "put":
                    live[sid] = data.draw(records(sid))
                    registry.put(conn, live[sid])
                else:
                    live.pop(sid, None)
                    registry.delete(conn, sid)
        kept_up = dump(conn)
        with vaultdb.transaction(conn):
            aggregates.rebuild(conn)
        assert dump(conn) == kept_up
        # no row of nothing: a day, model or file left by every session is gone
        for table in aggregates.TABLES:
            assert not conn.execute(f"SELECT 1 FROM {table} WHERE sessions <= 0").fetchone()
        # The report from the sums equals the one from the records, one by one.
        noted = sorted((r for r in live.values() if r.has_note),
                       key=lambda r: (r.started, r.session_id))
        for by in ("week", "month"):
            assert close_enough(from_sums(conn, by, 3), compute(noted, by, 3))
        for project in PROJECTS:
            want = compute([r for r in noted if r.project == project], "month", 10)
            assert close_enough(from_sums(conn, "month", 10, project), want)
        since = "2026-01-04"
        # (a day where the user is: the zone notes tell times in)
        want = compute([r for r in noted if r.started and day(r.started) >= since], "week", 10)
        assert close_enough(from_sums(conn, "week", 10, None, since), want)
        conn.close()


def test_a_database_from_before_the_sums_is_taken_up_with_its_rows(tmp_path: Path) -> None:
    from vibe_vault.config import Config

    cfg = Config(vault=str(tmp_path / "vault"), state_dir=str(tmp_path / "state"),
                 projects_root=str(tmp_path / "claude"), config_file=str(tmp_path / "c.toml"))
    recs = [Record(session_id=f"s{i}", project=PROJECTS[i % 3], has_note=i % 4 != 0,
                   started=f"2026-01-0{1 + i % 5}T00:00:00+00:00", active_minutes=i,
                   input_tokens=i * 10, cost_usd=i / 7, tokens_by_model={"m": [i, 0, 0, 0]},
                   cost_by_model={"m": i / 7}, files_changed=[f"/f{i % 2}"])
           for i in range(12)]
    with registry.opened(cfg) as conn:
        with vaultdb.transaction(conn):
            for r in recs:
                registry.put(conn, r)
        want = dump(conn)
        assert want["agg_days"]
        # As schema 7 left it: no sums (nor the links' keys of 9), its version 7.
        with vaultdb.transaction(conn):
            for table in (*aggregates.TABLES, *neighbours.TABLES):
                conn.execute(f"DROP TABLE {table}")
            conn.execute("DELETE FROM meta WHERE key = 'aggregates'")
        conn.execute("PRAGMA user_version = 7")
    with registry.opened(cfg) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == vaultdb.SCHEMA_VERSION
        assert registry.count(conn) == len(recs)  # its rows kept, not built again
        assert dump(conn) == want
        assert vaultdb.meta(conn, "aggregates") == "ready"
        assert vaultdb.meta(conn, "link_keys") == "ready"


@given(st.text())
def test_a_mermaid_label_stays_one_quoted_label(text: str) -> None:
    label = mermaid_label(text)
    inner = label[1:-1]
    assert label[0] == label[-1] == '"' and len(label) >= 2
    assert not any(c in inner for c in '"`<>') and inner.isprintable()
    assert "%%" not in inner and not re.search(r"#[A-Za-z0-9]+;", inner)
    assert len(inner) <= 60


def test_a_model_name_cannot_break_the_pie() -> None:
    pie = cost_pie({'evil"\n```\n# heading': 2.0, "ok": 1.0, "free": 0.0})
    assert pie[0] == "```mermaid" and pie[-1] == "```"
    assert all("```" not in line for line in pie[1:-1])
    assert [line.rsplit(" : ", 1)[1] for line in pie[2:-1]] == ["2.00", "1.00"]  # free: no slice


@given(st.dictionaries(st.sampled_from([d for d in DAYS if d]),
                       st.tuples(st.integers(0, 50), st.floats(0, 100, allow_nan=False))))
def test_weeks_hold_every_session_of_the_last_year(days: dict[str, tuple[int, float]]) -> None:
    weeks = weeks_ending(days)
    if not days:
        assert weeks == [] and activity(weeks) == []
        return
    assert len(weeks) <= 52
    mondays = [w for w, _, _ in weeks]
    assert all((b - a).days == 7 for a, b in itertools.pairwise(mondays))
    # the oracle: each day's sessions, in the year that ends with the latest week
    from datetime import date, timedelta

    last = max(date.fromisoformat(d) for d in days)
    start = last - timedelta(days=last.weekday()) - timedelta(weeks=51)
    want = sum(n for d, (n, _) in days.items() if date.fromisoformat(d) >= start)
    assert sum(n for _, n, _ in weeks) == want
    assert activity(weeks) == activity(weeks_ending(dict(reversed(list(days.items())))))


@given(st.integers(0, 10**6), st.integers(1, 10**6), st.integers(1, 80))
def test_a_bar_is_as_long_as_its_share(value: int, most: int, width: int) -> None:
    value = min(value, most)
    drawn = bar(value, most, width)
    eighths = sum(8 if c == "█" else BLOCKS.index(c) for c in drawn)
    assert eighths == round(value / most * width * 8)
    assert len(drawn) <= width
