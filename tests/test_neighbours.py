"""The links SessionEnd makes from a session's neighbours only (neighbours.py)
equal the links made from all the project's records (links.compute_links,
the oracle): for every session of a generated project, and after any
history of sessions coming, changing and going, each relinked from its
neighbourhood alone. Records are generated with few uuids, titles, words
and start times, so continuations, summaries told in other files, equal
titles and equal starts are common."""

from __future__ import annotations

import sqlite3
import tempfile
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import neighbours, registry, vaultdb
from vibe_vault.links import Links, compute_links, links_of
from vibe_vault.records import Record

PROJECTS = ["alpha", "beta"]
UUIDS = [f"u{i}" for i in range(4)]
STARTS = ["", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "2026-01-02T09:00:00Z",
          "2026-02-01T09:00:00Z"]
TITLES = ["", "Fix the build", "Add tests"]
WORDS = ["", "fix the build please", "fix the build now", "add tests", "fix the build please"]
SIDS = [f"s{i}" for i in range(8)]


@st.composite
def records(draw: Any, sid: str) -> Record:
    named = draw(st.sampled_from(TITLES))
    return Record(
        session_id=sid, project=draw(st.sampled_from([*PROJECTS[:1] * 3, *PROJECTS])),
        note=f"sessions/{sid}.md", started=draw(st.sampled_from(STARTS)),
        has_note=draw(st.sampled_from([True, True, False])),
        tail_uuids=draw(st.lists(st.sampled_from(UUIDS), unique=True, max_size=3)),
        first_parent=draw(st.sampled_from(["", *UUIDS])),
        logical_parent=draw(st.sampled_from(["", "", *UUIDS])),
        summaries=draw(st.dictionaries(st.sampled_from(UUIDS), st.sampled_from(
            ["Fix the build", "Summed up", "Another"]), max_size=2)),
        named_title=named,
        fallback_title=draw(st.sampled_from(["", "Fix the build", "Stand-in"])),
        title=draw(st.sampled_from(TITLES)),
        request_words=draw(st.sampled_from(WORDS)))


def oracle(conn: sqlite3.Connection, project: str) -> dict[str, Links]:
    recs = registry.of_projects(conn, [project])
    return compute_links(recs, registry.tellers(conn, [project]))


def apply(conn: sqlite3.Connection, links: dict[str, Links]) -> None:
    """Links written into the records, as index.apply_links does."""
    with vaultdb.transaction(conn):
        for sid, lk in links.items():
            rec = registry.get(conn, sid)
            assert rec is not None
            if links_of(rec) == lk:
                continue
            rec.previous, rec.next = lk.previous, lk.next
            rec.continues, rec.continued_by = lk.continues, list(lk.continued_by)
            rec.told_elsewhere, rec.title_tag = lk.summary, lk.tag
            registry.put(conn, rec)


def stored(conn: sqlite3.Connection, project: str) -> dict[str, Links]:
    return {sid: links_of(rec) for sid, rec in registry.of_projects(conn, [project]).items()}


def settled(conn: sqlite3.Connection) -> None:
    """Every project's links as the oracle makes them (twice: a summary
    applied changes a title, which the keys then hold)."""
    for _ in range(2):
        for p in PROJECTS:
            apply(conn, oracle(conn, p))


@settings(max_examples=examples(15, 150), deadline=None)
@given(st.data())
def test_links_of_each_session_from_its_neighbours_equal_the_oracle(data: Any) -> None:
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        with vaultdb.transaction(conn):
            for sid in SIDS:
                registry.put(conn, data.draw(records(sid)))
        settled(conn)
        for p in PROJECTS:
            want = oracle(conn, p)
            for sid, lk in want.items():
                got = neighbours.links_near(neighbours.Near(conn, p), [sid])
                assert got[sid] == lk, sid
        conn.close()


# A history: sessions written (new or changed) and deleted, one at a time.
operations = st.lists(st.tuples(st.sampled_from(["put", "put", "put", "delete"]),
                                st.sampled_from(SIDS)), min_size=1, max_size=12)


@settings(max_examples=examples(15, 150), deadline=None)
@given(st.data(), operations)
def test_relinking_only_the_touched_sessions_keeps_every_link_equal_to_the_oracle(
        data: Any, ops: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        with vaultdb.transaction(conn):
            for sid in SIDS[:4]:
                registry.put(conn, data.draw(records(sid)))
        settled(conn)
        for op, sid in ops:
            change(conn, sid, data.draw(records(sid)) if op == "put" else None)
            for p in PROJECTS:
                assert stored(conn, p) == oracle(conn, p), (op, sid)
        conn.close()


def change(conn: sqlite3.Connection, sid: str, new: Record | None) -> None:
    """A session's record written (None: deleted), then the sessions it
    touched before and after relinked from their neighbours, as SessionEnd does."""
    before: dict[str, set[str]] = {}
    old = registry.get(conn, sid)
    if old is not None:
        before[old.project] = neighbours.touched(neighbours.Near(conn, old.project), old)
    with vaultdb.transaction(conn):
        if new is not None:
            if old is not None:  # its links as last applied stay in its record
                new.previous, new.next = old.previous, old.next
                new.continues, new.continued_by = old.continues, old.continued_by
                new.told_elsewhere, new.title_tag = old.told_elsewhere, old.title_tag
            registry.put(conn, new)
        else:
            registry.delete(conn, sid)
    now = registry.get(conn, sid)
    if now is not None:
        before.setdefault(now.project, set()).update(
            neighbours.touched(neighbours.Near(conn, now.project), now))
    for p, sids in before.items():
        apply(conn, neighbours.links_near(neighbours.Near(conn, p), sids))


def test_a_summary_told_elsewhere_changing_retitles_and_untags_its_group() -> None:
    """A file that sums up another session (Claude Code 1.0) changes what it
    says: the session summed up gets the new title, and the session that had
    its old title loses the tag that told the two apart."""
    def rec(sid: str, started: str, **kw: Any) -> Record:
        return Record(session_id=sid, project="alpha", note=f"{sid}.md", started=started,
                      has_note=True, **kw)

    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        with vaultdb.transaction(conn):
            # a and b far apart, and from t, in start order: only their titles join them
            for sid, on in (("f", 2), ("g", 4), ("h", 6)):
                registry.put(conn, rec(sid, f"2026-01-0{on}T10:00:00Z", named_title=sid))
            registry.put(conn, rec("a", "2026-01-01T10:00:00Z", tail_uuids=["u1"],
                                   fallback_title="x"))
            registry.put(conn, rec("b", "2026-01-03T10:00:00Z", fallback_title="Fix the build"))
            registry.put(conn, rec("t", "2026-01-07T10:00:00Z",
                                   summaries={"u1": "Fix the build"}))
        settled(conn)
        assert stored(conn, "alpha")["b"].tag  # told apart from a, titled alike
        change(conn, "t", rec("t", "2026-01-07T10:00:00Z", summaries={"u1": "Another"}))
        got = stored(conn, "alpha")
        assert got == oracle(conn, "alpha")
        assert got["a"].summary == "Another" and not got["b"].tag
        conn.close()


def test_an_upgraded_database_gets_its_keys_from_its_records() -> None:
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        with vaultdb.transaction(conn):
            registry.put(conn, Record(session_id="a", project="alpha", note="a.md",
                                      started=STARTS[1], has_note=True, tail_uuids=["u1"]))
            registry.put(conn, Record(session_id="b", project="alpha", note="b.md",
                                      started=STARTS[2], has_note=True, first_parent="u1"))
            want = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                    for t in neighbours.TABLES}
            for t in neighbours.TABLES:
                conn.execute(f"DROP TABLE {t}")
            conn.execute("PRAGMA user_version = 8")
        conn.close()
        conn = vaultdb.connect(state)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == vaultdb.SCHEMA_VERSION
        assert vaultdb.meta(conn, "link_keys") == "owed"
        with vaultdb.transaction(conn):
            neighbours.rebuild(conn)
        got = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
               for t in neighbours.TABLES}
        assert got == want and want["link_tails"] and want["link_refs"]
        lk = neighbours.links_near(neighbours.Near(conn, "alpha"), ["b"])["b"]
        assert lk.continues == "a.md" and lk.previous == "a.md"
        conn.close()


@settings(max_examples=examples(15, 150), deadline=None)
@given(st.data())
def test_links_from_the_link_pass_records_equal_those_from_whole_records(data: Any) -> None:
    """registry.link_records_of (the backfill's link pass reads a project so,
    without tokens, files, tasks or tail uuids nobody names) gives the links
    of whole records, each record's link fields and titles as whole."""
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        with vaultdb.transaction(conn):
            for sid in SIDS:
                rec = data.draw(records(sid))
                rec.tokens_by_model = {"m": [1, 2, 3, 4]}
                rec.files_changed, rec.open_tasks = [f"{sid}.py"], ["a task"]
                registry.put(conn, rec)
        for p in PROJECTS:
            tellers = registry.tellers(conn, [p])
            slim = registry.link_records_of(conn, p, tellers)
            whole = registry.of_projects(conn, [p])
            assert compute_links(slim, tellers) == oracle(conn, p)
            assert slim.keys() == whole.keys()
            for sid, rec in slim.items():
                full = whole[sid]
                assert (rec.session_id, rec.note, rec.started, rec.title, rec.named_title,
                        rec.fallback_title, rec.request_words, rec.summaries, links_of(rec)) == (
                    full.session_id, full.note, full.started, full.title, full.named_title,
                    full.fallback_title, full.request_words, full.summaries, links_of(full))
                assert set(rec.tail_uuids) <= set(full.tail_uuids)
                assert not rec.tokens_by_model and not rec.files_changed
        conn.close()
