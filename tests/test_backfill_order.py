"""A first backfill writes the newest sessions first, shows its progress on a
terminal only, and a run killed anywhere is completed by the next (issue 31).

Homes are generated (test_warm_runs.Home), each session's file given its own
time. Oracles: the times the test gave the files (a note written is never
older than a session left unwritten, but for the jobs the other workers
still had in hand), and the notes a backfill that was never stopped makes.
"""

from __future__ import annotations

import json
import os
import pty
import random
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_warm_runs import PROJECTS, WORDS, Home


def _home(root: Path, n: int, seed: int) -> tuple[Home, dict[str, float]]:
    """n sessions over the projects, each its own last activity (seconds since
    1970): its entries a second apart up to it, its file dated then, as
    Claude Code leaves a transcript it appends to."""
    rng = random.Random(seed)
    home = Home(root)
    when: dict[str, float] = {}
    base = int(time.time()) - 400 * 86400
    stamps = rng.sample(range(0, 300 * 86400, 60), n)  # distinct: an order, no ties
    for _ in range(n):
        home.new(rng.choice(PROJECTS), [rng.choice(WORDS) for _ in range(rng.randint(1, 4))])
    for sid, at in zip(sorted(home.sessions), stamps, strict=True):
        when[sid] = base + at
        _restamp(home.path(sid), when[sid])
        os.utime(home.path(sid), (when[sid], when[sid]))
    return home, when


def _restamp(path: Path, end: float) -> None:
    """The transcript's entries dated a second apart, the last at `end`."""
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    for k, line in enumerate(lines):
        line["timestamp"] = _iso(end - (len(lines) - 1 - k))
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(at))


def _written(env: Env) -> int:
    return len(list(env.vault.glob("Projects/*/sessions/*.md")))


@settings(max_examples=examples(4, 20), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(n=st.integers(12, 40), seed=st.integers(0, 2**16), workers=st.sampled_from([1, 2]),
       stop_after=st.floats(0.0, 1.0))
def test_a_killed_first_backfill_wrote_the_newest_and_the_next_run_completes_it(
        tmp_path_factory: pytest.TempPathFactory, n: int, seed: int, workers: int,
        stop_after: float) -> None:
    root = tmp_path_factory.mktemp("order")
    env = Env(root)
    home, when = _home(root, n, seed)
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", "backfill", "-j", str(workers)],
                            env=env.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # killed once some share of the notes exist (or the run ended first)
    want = int(stop_after * n)
    while proc.poll() is None and _written(env) < want:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    order = sorted(home.sessions, key=lambda s: -when[s])
    done = [sid for sid in order if _note_of(env, sid)]
    if done:
        oldest_written = min(when[s] for s in done)
        newer_unwritten = [s for s in order if when[s] > oldest_written and s not in done]
        # a worker's job in hand when another finished later ones: one per other worker
        assert len(newer_unwritten) <= workers - 1, (len(done), newer_unwritten)
    # (the run after the kill and the oracle's: in this process but in the first case)
    env.here = in_process("backfill order killed")
    again = env.vv("backfill", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["failed"] == 0
    fresh = Env(root / "fresh")
    fresh.env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
    fresh.here = env.here
    assert fresh.vv("backfill").returncode == 0
    assert env.all_notes() == fresh.all_notes()


def _note_of(env: Env, sid: str) -> bool:
    """Whether the session's note is in the vault (its name ends in the id's first 8)."""
    return any(env.vault.glob(f"Projects/*/sessions/*-{sid[:8]}.md"))


def _on_a_terminal(env: Env, *args: str) -> tuple[int, bytes, bytes]:
    """`vv` with its stderr on a pseudo-terminal: (exit code, stdout, what the terminal got)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", *args], env=env.env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 1 << 16)
        except OSError:  # the other end closed (Linux says EIO)
            break
        if not data:
            break
        seen += data
    out = proc.stdout.read() if proc.stdout else b""
    code = proc.wait(60)
    os.close(leader)
    return code, out, seen


def test_progress_on_a_terminal_only(tmp_path: Path) -> None:
    env = Env(tmp_path)
    home, _ = _home(tmp_path, 30, 7)
    code, out, terminal = _on_a_terminal(env, "backfill")
    assert code == 0
    assert b"30/30 sessions" in terminal and b"ETA" in terminal, terminal
    assert out.startswith(b"30 sessions: 30 notes written")
    # piped: nothing on stderr, the summary alone on stdout
    fresh = Env(tmp_path / "piped")
    fresh.env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude")
    r = fresh.vv("backfill")
    assert r.returncode == 0 and r.stderr == b""
    assert r.stdout.startswith(b"30 sessions: 30 notes written") and r.stdout.count(b"\n") == 1
    assert len(home.sessions) == 30


def search_rows(db: Path) -> dict[str, object]:
    """What the search index holds of each session (by its id, not the row
    number it happened to get), and the sessions each of a few words finds."""
    with sqlite3.connect(db) as conn:
        out: dict[str, object] = {
            "sessions": sorted(conn.execute(
                "SELECT s.session_id, s.project, f.path, s.started, s.ended, s.note, s.status, "
                "t.body FROM sessions s JOIN folders f ON f.id = s.folder "
                "JOIN texts t ON t.doc = s.doc").fetchall()),
            "changes": sorted(conn.execute(
                "SELECT s.session_id, c.path, c.added, c.removed, c.sha, c.subject, c.committed"
                " FROM changes c JOIN sessions s ON s.doc = c.doc").fetchall()),
            "indexed": sorted(conn.execute("SELECT state, has_text FROM indexed").fetchall())}
        for word in ("the", "test", "file", "fix"):
            out[word] = sorted(conn.execute(
                "SELECT s.session_id FROM search JOIN sessions s ON s.doc = search.rowid "
                "WHERE search MATCH ?", (word,)).fetchall())
    return out


@settings(max_examples=examples(3, 15), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(n=st.integers(8, 30), seed=st.integers(0, 2**16), first=st.integers(1, 3),
       workers=st.sampled_from([1, 2]), how=st.sampled_from(["serial", "chunks", "projects"]))
def test_a_run_in_stages_does_the_newest_first_and_writes_the_notes_of_a_run_in_one(
        tmp_path_factory: pytest.TempPathFactory, n: int, seed: int, first: int,
        workers: int, how: str) -> None:
    """A large first backfill does its newest sessions before it foresees the
    rest's links (backfill.FIRST_STAGE, made small here so a small home is
    large): the first stage is the newest sessions by their files' times, and
    the notes at the end are those of a run in one go (links the first stage
    guessed wrong, its oldest session's previous one, set by the end). The
    later stage's notes are written once, at the end, with their links: the
    writes are counted by the note file they name, in every process.
    `how` the notes owed are written: in this process, a few sessions to a
    worker (on a machine of several cores), as a large project's are, or a
    project to a worker, as those of many smaller projects are."""
    from vibe_vault import backfill, index, note, vaultdb

    root = tmp_path_factory.mktemp("stages")
    env = Env(root)
    home, when = _home(root, n, seed)
    stages: list[list[str]] = []
    run_jobs = backfill._run_jobs
    writes = root / "writes.log"
    write_session_note = note.write_session_note

    def recorded(cfg: Any, jobs: list[Any], count: int) -> Any:
        stages.append([job.session_id for job in jobs])
        return run_jobs(cfg, jobs, count)

    def counted(vault: str, state: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        fd = os.open(writes, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:  # (one write a line: lines from forked workers do not mix)
            os.write(fd, state.session_id.encode() + b"\n")
        finally:
            os.close(fd)
        return write_session_note(vault, state, text, *args, **kwargs)

    read_again: list[str] = []  # states the run's search catch-up read
    read_one = vaultdb._read_one

    def read_by_catch_up(state_dir: str, key: str) -> Any:
        read_again.append(key)
        return read_one(state_dir, key)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backfill, "FIRST_STAGE", first)
        patch.setattr(backfill, "_run_jobs", recorded)
        patch.setattr(vaultdb, "_read_one", read_by_catch_up)
        patch.setattr(index, "OWED_PARALLEL_FROM", 1 if how == "chunks" else 10**9)
        patch.setattr(index, "PARALLEL_FROM", 1 if how == "projects" else 10**9)
        patch.setattr(os, "cpu_count", lambda: 2)  # (the workers even on one core)
        patch.setattr(index, "OWED_CHUNK", 3)
        for module in ("vibe_vault.session", "vibe_vault.index"):
            patch.setattr(f"{module}.write_session_note", counted)
        staged = env.vv_here("backfill", "-j", str(workers), "--json")
    assert staged.returncode == 0, staged.stderr
    summary = json.loads(staged.stdout)
    assert summary["failed"] == 0
    newest = sorted(home.sessions, key=lambda s: -when[s])
    assert stages == [newest[:first], newest[first:]]
    fresh = Env(root / "fresh")
    fresh.env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
    assert fresh.vv("backfill").returncode == 0
    assert env.all_notes() == fresh.all_notes()
    # every note counted as written once, the later stage's written once
    short = {p.stem.rsplit("-", 1)[-1] for p in env.vault.glob("Projects/*/sessions/*.md")}
    noted = {sid for sid in home.sessions if sid[:8] in short}
    assert summary["written"] == len(short) == len(noted) > 0
    count: dict[str, int] = {}
    for sid in writes.read_text().split():
        count[sid] = count.get(sid, 0) + 1
    assert set(count) == noted
    assert all(count[sid] == 1 for sid in newest[first:] if sid in noted), count
    # and the search index holds every session, each once
    with sqlite3.connect(env.state / "vault.db") as conn:
        indexed = [row[0] for row in conn.execute("SELECT session_id FROM sessions")]
    assert sorted(indexed) == sorted(noted)
    # made from the states in hand (the link pass's, the workers'), none read
    # again by the catch-up; what it holds is what a rebuild from the states gives
    assert read_again == []
    rebuilt = root / "rebuilt-state"
    shutil.copytree(env.state, rebuilt)
    vaultdb.ready(str(rebuilt), reindex=True).close()
    assert search_rows(env.state / "vault.db") == search_rows(rebuilt / "vault.db")


def _dated_home(root: Path, last: list[int], projects: list[int], times: str = "entries",
                summaries: list[bool] | None = None) -> dict[str, float]:
    """A session a minute offset in `last` (its last activity, minutes after
    2025-01-01), each in project `projects[i]`; each file's time set to its
    last entry's, as Claude Code leaves a transcript it appends to
    (`times` "entries"), or every file the same time, as a copied home's are
    ("equal"), or the files' times in the reverse order of their sessions'
    activity ("reversed": a home restored oldest last). `summaries[i]`: the
    transcript ends with a `summary` line, which has no time of its own.
    The session ids' last activity, read back from each transcript's own
    entries (the oracle: not from what the test meant, nor from the files'
    times)."""
    base = 1735689600  # 2025-01-01T00:00:00Z
    when: dict[str, float] = {}
    for i, (minutes, p) in enumerate(zip(last, projects, strict=True)):
        sid = f"{i + 1:08d}-0ded-4000-8000-{i + 1:012d}"
        folder = root / "claude" / "projects" / f"-work-p{p}"
        folder.mkdir(parents=True, exist_ok=True)
        end = base + minutes * 60
        lines = []
        for k, at in enumerate((end - 120, end - 60, end)):  # prompt, answer, prompt...
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(at))
            uuid = f"{i + 1:08d}-0ded-4000-8000-{k:012d}"
            parent = f"{i + 1:08d}-0ded-4000-8000-{k - 1:012d}" if k else None
            common = {"sessionId": sid, "cwd": f"/work/p{p}", "version": "2.1.50",
                      "timestamp": stamp, "uuid": uuid, "parentUuid": parent}
            if k % 2 == 0:
                lines.append({**common, "type": "user", "message": {
                    "role": "user", "content": f"task {i} step {k} of {WORDS[i % len(WORDS)]}"}})
            else:
                lines.append({**common, "type": "assistant", "message": {
                    "id": f"msg_{i}_{k}", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": f"done {i}"}],
                    "usage": {"input_tokens": 3, "output_tokens": 5}}})
        if summaries and summaries[i]:
            lines.append({"type": "summary", "summary": f"task {i}", "leafUuid": uuid})
        path = folder / f"{sid}.jsonl"
        path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
        mtime = {"entries": end, "equal": base + 600 * 86400,
                 "reversed": base + (max(last) - minutes) * 60}[times]
        os.utime(path, (mtime, mtime))
    for path in (root / "claude" / "projects").glob("*/*.jsonl"):
        stamps = [json.loads(line)["timestamp"] for line in path.read_bytes().splitlines()
                  if "timestamp" in json.loads(line)]
        when[path.stem] = max(time.mktime(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S"))
                              for s in stamps)
    return when


@settings(max_examples=examples(3, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(last=st.lists(st.integers(0, 500_000), min_size=6, max_size=30, unique=True),
       data=st.data(), workers=st.sampled_from([1, 2]),
       times=st.sampled_from(["entries", "equal", "reversed"]))
def test_a_first_backfill_writes_its_notes_newest_activity_first(
        tmp_path_factory: pytest.TempPathFactory, last: list[int], data: st.DataObject,
        workers: int, times: str) -> None:
    """`vv backfill` on a home it never saw: the notes appear in the vault in
    the order of their sessions' last activity, newest first, as the run is
    watched (a note's file time tells its last write, not its first: the
    link pass may rewrite it), whatever the files' times say (a copied home's
    are all the same; a restored one's may run backwards). Oracle: each
    transcript's own last timestamp. With two workers, one newer note may
    come after it (the other worker's job in hand)."""
    projects = data.draw(st.lists(st.integers(0, 2), min_size=len(last), max_size=len(last)))
    summaries = data.draw(st.lists(st.booleans(), min_size=len(last), max_size=len(last)))
    root = tmp_path_factory.mktemp("activity")
    env = Env(root)
    when = _dated_home(root, last, projects, times, summaries)
    newest = sorted(when, key=lambda s: -when[s])
    rank = {sid[:8]: k for k, sid in enumerate(newest)}
    seen: dict[str, int] = {}  # a note's id (its first 8) -> the look that first found it
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", "backfill", "-j", str(workers)],
                            env=env.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    look = 0
    folders = [env.vault / "Projects" / f"p{p}" / "sessions" for p in range(3)]
    while True:
        running = proc.poll() is None
        look += 1
        for folder in folders:
            try:
                names = os.listdir(folder)
            except FileNotFoundError:
                continue
            for name in names:
                if name.endswith(".md"):
                    seen.setdefault(name[:-3].rsplit("-", 1)[-1], look)
        if not running:
            break
        time.sleep(0.001)
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert set(seen) == set(rank), (sorted(seen), out)
    # Seen at an earlier look: written earlier. When a note was written, every
    # newer session's note was too, but for the other worker's job in hand.
    for a, at_a in seen.items():
        later = sorted(rank[b] for b, at_b in seen.items() if at_b > at_a and rank[b] < rank[a])
        assert len(later) <= workers - 1, (
            f"{a} (newest #{rank[a]}) was written before the newer #{later}")


@settings(max_examples=examples(30, 200), deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(["stamped", "summary", "snapshot"]),
                                st.integers(0, 10**9), st.integers(0, 30_000)),
                      max_size=12),
       partial=st.booleans())
def test_last_stamp_is_the_time_of_the_last_complete_line_that_has_one(
        tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[str, int, int]],
        partial: bool) -> None:
    """discover.last_stamp reads a transcript's end: the time of its last
    complete line with a timestamp of its own, past `summary` lines (none),
    a file-history snapshot's (a timestamp inside, not its own), lines longer
    than its first read, and a last line still being written. Oracle: the
    entries the test wrote, in order."""
    from vibe_vault.discover import last_stamp

    base = 1735689600
    written = []
    want = None
    for kind, offset, pad in lines:
        at = base + offset
        if kind == "stamped":
            entry = {"type": "user", "timestamp": _iso(at), "message": {"content": "x" * pad}}
            want = float(at)
        elif kind == "summary":
            entry = {"type": "summary", "summary": "y" * pad}
        else:
            entry = {"type": "file-history-snapshot",
                     "snapshot": {"timestamp": _iso(at + 1), "files": "z" * pad}}
        written.append(json.dumps(entry).encode() + b"\n")
    if partial:  # a line still being written: not the session's yet
        written.append(json.dumps({"type": "user", "timestamp": _iso(base + 2 * 10**9)}).encode()
                       [:-1])
    path = tmp_path_factory.mktemp("tail") / "s.jsonl"
    path.write_bytes(b"".join(written))
    assert last_stamp(path) == want
