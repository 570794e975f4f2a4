"""The vault's database (registry and search index) and the notes agree, and a
database built again from the states gives the same vault.

Whatever mix of hooks, backfills, reprocess and forget came before: the links
between sessions, the project and home notes and `vv stats` equal what a
registry rebuilt from scratch (from the session states) gives.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest

from conftest import Env, frontmatter
from test_backfill import SMALL, lay_out
from test_corpus import UUID

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus


def snapshot(env: Env) -> dict[str, str]:
    """Every note (the project and home notes with their charts), what `vv
    stats` says (by month and by week, with its bars), and the database's
    per-project sums."""
    out = dict(env.all_notes())
    for args in (("--json",), ("--by", "week"), ("--by", "month")):
        r = env.vv("stats", *args)
        assert r.returncode == 0, r.stderr
        out["stats" + "".join(args)] = r.stdout.decode()
    with sqlite3.connect(env.state / "vault.db") as conn:
        for table in ("agg_days", "agg_models", "agg_files"):
            out[table] = repr(conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall())
    return out


def hook(env: Env, event: str, transcript: Path, **extra: str) -> None:
    r = env.hook({"hook_event_name": event, "session_id": transcript.stem,
                  "transcript_path": str(transcript), "cwd": "/tmp", **extra})
    assert r.returncode == 0 and r.stdout == b"", r.stderr


def drop_database(env: Env) -> None:
    for path in env.state.glob("vault.db*"):
        path.unlink()


UUID_TEXT = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def copy_of(main: Path, k: int) -> Path:
    """Beside `main`, the same session under a fresh id, every uuid in it
    fresh too (a shared message uuid would make it continue `main`): the
    same title in the same project, which the link pass tells apart by a tag."""
    fresh: dict[bytes, bytes] = {}

    def renamed(m: re.Match[bytes]) -> bytes:
        return fresh.setdefault(m.group(0), str(
            uuid.uuid5(uuid.NAMESPACE_URL, f"{k}/{m.group(0)!r}")).encode())

    data = UUID_TEXT.sub(renamed, main.read_bytes())
    dest = main.with_name(fresh.get(main.stem.encode(), b"").decode() + ".jsonl")
    assert dest != main and dest.name != ".jsonl"
    dest.write_bytes(data)
    return dest


def test_a_mix_of_events_leaves_what_a_rebuild_from_the_states_gives(env: Env) -> None:
    projects = lay_out(env, SMALL)
    # Sessions that share a title in one project (the title tags a backfill
    # learns only once every title of the project is known).
    original = sorted(p for p in projects.glob("*/*.jsonl") if UUID.match(p.stem))[-1]
    copies = [copy_of(original, k) for k in (1, 2)]
    transcripts = sorted(p for p in projects.glob("*/*.jsonl") if UUID.match(p.stem)
                         and p not in copies and p != original)
    assert len(transcripts) >= 6
    # Some sessions arrive by backfill, the rest by hooks, one half-way first.
    held = transcripts[:3]
    for path in held:
        shutil.move(path, path.with_suffix(".held"))
    assert env.vv("backfill").returncode == 0
    for path in held:
        shutil.move(path.with_suffix(".held"), path)
        data = path.read_bytes()
        path.write_bytes(data[: data.rfind(b"\n", 0, len(data) // 2) + 1])
        hook(env, "Stop", path)
        path.write_bytes(data)
        hook(env, "Stop", path)
        hook(env, "SessionEnd", path, reason="exit")
    assert env.vv("reprocess", transcripts[3].stem[:8]).returncode == 0
    assert env.vv("forget", transcripts[4].stem).returncode == 0
    assert env.vv("backfill").returncode == 0
    kept_up = snapshot(env)
    assert sum(n.count("next session") for n in kept_up.values()) >= 1
    assert json.loads(kept_up["stats--json"])["total"]["sessions"] == len(env.notes())
    assert "```mermaid\nxychart-beta" in kept_up["index.md"]
    assert "agg_days" in kept_up and kept_up["agg_days"] != "[]"
    told_apart = {str(frontmatter(note)["session_id"]): str(frontmatter(note)["title"])
                  for note in env.notes().values()
                  if str(frontmatter(note)["session_id"]) in {p.stem for p in [original, *copies]}}
    # The same request on the same minute: each told by its minute (links._tags).
    assert len(told_apart) == 3, told_apart
    assert all(re.search(r" \(\d{4}-\d\d-\d\d \d\d:\d\d\)$", title)
               for title in told_apart.values()), told_apart

    drop_database(env)
    r = env.vv("index")  # the registry built again from the states, every index note owed
    assert r.returncode == 0, r.stderr
    assert snapshot(env) == kept_up
    # and a backfill after it finds nothing to do
    r = env.vv("backfill", "--json")
    assert json.loads(r.stdout)["written"] == 0
    assert snapshot(env) == kept_up


def test_a_corrupt_database_is_built_again(env: Env) -> None:
    lay_out(env, SMALL[:4])
    assert env.vv("backfill").returncode == 0
    before = snapshot(env)
    drop_database(env)
    (env.state / "vault.db").write_bytes(b"not a database at all" * 500)
    r = env.vv("backfill", "--json")
    assert r.returncode == 0, r.stderr
    assert snapshot(env) == before
    with sqlite3.connect(env.state / "vault.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 4


def test_a_session_whose_transcript_is_gone_stays_in_a_rebuilt_registry(env: Env) -> None:
    projects = lay_out(env, SMALL[:3])
    assert env.vv("backfill").returncode == 0
    gone = sorted(p for p in projects.glob("*/*.jsonl") if UUID.match(p.stem))[0]
    gone.unlink()  # Claude Code's 30 days
    before = snapshot(env)
    drop_database(env)
    assert env.vv("index").returncode == 0
    assert snapshot(env) == before
    assert gone.stem in {str(frontmatter(n)["session_id"]) for n in env.notes().values()}


def test_no_lock_file_is_left_per_session(env: Env) -> None:
    """Sessions share a fixed set of lock files; the ones an older version kept
    per session are removed by the next backfill."""
    projects = lay_out(env, SMALL[:4])
    (env.state / "locks").mkdir(parents=True)
    old_locks = ["0e4c7c5e-1111-4222-8333-944455556666.lock",
                 "0e4c7c5e-1111-4222-8333-944455556666.archive.lock"]
    for name in old_locks:
        (env.state / "locks" / name).write_text("")
    assert env.vv("backfill").returncode == 0
    sids = set()
    for path in projects.glob("*/*.jsonl"):
        if UUID.match(path.stem):
            sids.add(path.stem)
            hook(env, "Stop", path)
    names = [p.name for p in (env.state / "locks").iterdir()]
    # the slots used (a session's and its archive's: backfill archives), and `vv index`'s lock
    assert names and len(names) <= 2 * len(sids) + 1
    assert not [n for n in names if any(sid in n for sid in sids) or n in old_locks]


@pytest.mark.parametrize(("dead", "live", "rebuilt"), [(1500, 2000, False), (2500, 2000, True),
                                                       (900, 10, False)])
def test_dead_rows_rebuild_the_index_when_they_outnumber_the_sessions(
        tmp_path: Path, dead: int, live: int, rebuilt: bool) -> None:
    """Dead text rows (left by an older version) rebuild the index when they
    outnumber the sessions and are over a thousand; otherwise the sessions
    are counted once for that number of dead rows, not at every search."""
    from vibe_vault import vaultdb

    conn = vaultdb.connect(str(tmp_path))
    try:
        with vaultdb.transaction(conn):
            conn.executemany("INSERT INTO sessions(session_id, project, folder, started, ended,"
                             " note, status) VALUES (?, 'p', 0, 0, 0, '', 'ended')",
                             [(f"s{i}",) for i in range(live)])
            vaultdb.set_meta(conn, "dead", str(dead))
        counts: list[str] = []
        conn.set_trace_callback(lambda sql: counts.append(sql) if "count(*)" in sql else None)
        assert vaultdb.needs_rebuild(conn) is rebuilt
        assert vaultdb.needs_rebuild(conn) is rebuilt
        assert len(counts) == (2 if rebuilt else 1 if dead > 1000 else 0), counts
    finally:
        conn.close()
