"""A record put over an older one of the same session leaves the database as
if only the newer had ever been put: the registry's rows, the files' stamps,
the unknown entry types, the per-project sums and the neighbour keys, after
any history of records coming, changing (links only, or anything) and going,
equal those of a database given the final records alone (the oracle: puts
into an empty database, which change nothing in place)."""

from __future__ import annotations

import sqlite3
import tempfile
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from conftest import examples
from vibe_vault import aggregates, neighbours, registry, vaultdb
from vibe_vault.records import FileStamp, Record

SIDS = [f"s{i}" for i in range(5)]
UUIDS = [f"u{i}" for i in range(4)]
DAYS = ["", "2026-01-01T10:00:00Z", "2026-01-02T09:00:00Z", "2026-02-01T09:00:00Z"]
MODELS = ["claude-opus-4-1", "claude-sonnet-4-5", "mystery-model"]
PATHS = ["/p/a.py", "/p/b.py", "/p/c.md"]


@st.composite
def records(draw: Any, sid: str) -> Record:
    models = draw(st.lists(st.sampled_from(MODELS), unique=True, max_size=2))
    return Record(
        session_id=sid, project=draw(st.sampled_from(["alpha", "alpha", "beta"])),
        note=f"n/{sid}.md", title=draw(st.sampled_from(["", "Fix it", "Add tests"])),
        started=draw(st.sampled_from(DAYS)), ended=draw(st.sampled_from(DAYS)),
        status=draw(st.sampled_from(["active", "ended"])),
        has_note=draw(st.sampled_from([True, True, False])),
        active_minutes=draw(st.integers(0, 90)), input_tokens=draw(st.integers(0, 10**6)),
        output_tokens=draw(st.integers(0, 10**5)),
        cost_usd=draw(st.sampled_from([0.0, 0.01, 1.25, 3.333333])),
        tokens_by_model={m: [draw(st.integers(0, 1000)) for _ in range(4)] for m in models},
        cost_by_model={m: 0.5 for m in models if m != "mystery-model"},
        files_changed=draw(st.lists(st.sampled_from(PATHS), max_size=3)),
        output_short=draw(st.sampled_from([0, 0, 1])), output_unrecorded=draw(st.integers(0, 99)),
        files=[FileStamp(f"/t/{sid}.jsonl", draw(st.integers(1, 3)), draw(st.integers(1, 3)), 7),
               *([FileStamp(f"/t/{sid}/agent-1.jsonl", 5, 5, 8)] if draw(st.booleans()) else [])],
        unknown=draw(st.dictionaries(st.sampled_from(["2.1.9:odd", "2.1.9:new"]),
                                     st.integers(1, 3), max_size=2)),
        tail_uuids=draw(st.lists(st.sampled_from(UUIDS), unique=True, max_size=3)),
        first_parent=draw(st.sampled_from(["", *UUIDS])),
        summaries=draw(st.dictionaries(st.sampled_from(UUIDS), st.sampled_from(
            ["Fix it", "Summed up"]), max_size=2)),
        named_title=draw(st.sampled_from(["", "Fix it"])),
        fallback_title=draw(st.sampled_from(["", "Stand-in"])))


@st.composite
def relinked(draw: Any, rec: Record) -> Record:
    """What a link pass changes of a record: its links, its summary told
    elsewhere and its title's tag (and so its title)."""
    tag = draw(st.sampled_from(["", "2026-01-01", "… the logout page"]))
    return replace(rec, previous=draw(st.sampled_from(["", "n/s1.md", "n/s2.md"])),
                   next=draw(st.sampled_from(["", "n/s3.md"])),
                   continues=draw(st.sampled_from(["", "n/s0.md"])),
                   continued_by=draw(st.lists(st.sampled_from(["n/s3.md", "n/s4.md"]),
                                              unique=True)),
                   told_elsewhere=draw(st.sampled_from(["", "Fix it", "Summed up"])),
                   title_tag=tag, title=rec.title + (f" ({tag})" if tag else ""))


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every table a record's put writes, a neighbour key by its session (rowids
    differ between histories)."""
    out = {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall())
           for t in ("stamps", "unknown", *aggregates.TABLES)}
    out["records"] = sorted(conn.execute(
        "SELECT session_id, project, started, ended, status, has_note, note, active_minutes, "
        "cost_usd, body FROM records").fetchall())
    for t in neighbours.TABLES:
        out[t] = sorted(conn.execute(
            f"SELECT h, records.session_id FROM {t} JOIN records ON records.rowid = rec"
            ).fetchall())
        # (no key left pointing at no record)
        assert conn.execute(f"SELECT count(*) FROM {t} WHERE rec NOT IN "
                            "(SELECT rowid FROM records)").fetchone()[0] == 0
    return out


@settings(max_examples=examples(15, 300), deadline=None)
@given(st.data())
def test_any_history_of_puts_leaves_what_the_final_records_alone_give(data: Any) -> None:
    with tempfile.TemporaryDirectory() as kept, tempfile.TemporaryDirectory() as fresh:
        conn = vaultdb.connect(kept)
        final: dict[str, Record] = {}
        for _ in range(data.draw(st.integers(1, 14), label="steps")):
            sid = data.draw(st.sampled_from(SIDS), label="session")
            step = data.draw(st.sampled_from(["new", "relink", "same", "gone"]), label="step")
            with vaultdb.transaction(conn):
                if step == "gone":
                    registry.delete(conn, sid)
                    final.pop(sid, None)
                    continue
                was = final.get(sid)
                if was is None or step == "new":
                    rec = data.draw(records(sid), label="record")
                elif step == "relink":
                    rec = data.draw(relinked(was), label="links")
                else:
                    rec = replace(was)
                registry.put(conn, rec)
                final[sid] = rec
        oracle = vaultdb.connect(fresh)
        with vaultdb.transaction(oracle):
            for sid in sorted(final):
                registry.put(oracle, final[sid])
        assert dump(conn) == dump(oracle)
        conn.close()
        oracle.close()
