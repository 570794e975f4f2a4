"""The archive is the only copy once Claude Code deletes a transcript: kills at
any point, torn or damaged members, planted manifests and symlinks never lose
what was archived, and never write outside it."""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, session_files
from test_backfill import lay_out
from test_restore import Home
from vibe_vault import archive
from vibe_vault.config import Config
from vibe_vault.discover import discover

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

# A session with subagent files, and two plain ones: several archive files per run.
WITH_AGENTS = next((
    p for p in sorted(CORPUS.rglob("*.jsonl"))
    if p.parent.name != "subagents" and (p.parent / p.stem / "subagents").is_dir()
    and p.stat().st_size < 2_000_000), None)
PLAIN = [
    CORPUS / "DRMacIver__claude-reliability/snapshot-tests/python-to-rust-port/transcript.jsonl",
    CORPUS / "DRMacIver__claude-reliability/snapshot-tests/coverage-test-fix/transcript.jsonl",
]


def config_for(env: Env) -> Config:
    return Config(vault=str(env.vault), state_dir=str(env.state),
                  projects_root=str(env.claude / "projects"), config_file="/nonexistent")


def gz_bytes(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def archive_everything(cfg: Config) -> None:
    for src in discover([Path(cfg.projects_root)])[0]:
        archive.archive_files(cfg, src.session_id, [Path(p) for p in (src.main, *src.agents)])


def archived_matches_transcripts(cfg: Config) -> None:
    """Each archived file decompresses to exactly its transcript's bytes."""
    sources = discover([Path(cfg.projects_root)])[0]
    assert sources
    for src in sources:
        for path in map(Path, [src.main, *src.agents]):
            name = archive.name_for(path)
            gz = archive.archive_root(cfg) / src.session_id / f"{name}.gz"
            assert gz_bytes(gz) == path.read_bytes(), gz


def grow(home_files: list[tuple[Path, bytes]], fraction: float) -> None:
    for path, full in home_files:
        cut = full.find(b"\n", int(len(full) * fraction))
        path.write_bytes(full if cut < 0 else full[: cut + 1])


def test_runs_killed_at_any_point_never_lose_or_duplicate(env: Env,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs killed at each of the 17 points in turn while the transcripts grow
    (200 kills in CI, 51 here), mended by the next whole run every fourth."""
    lay_out(env, [WITH_AGENTS, *PLAIN])
    home = [(p, p.read_bytes()) for p in sorted((env.claude / "projects").rglob("*.jsonl"))]
    cfg = config_for(env)
    monkeypatch.setattr(archive, "PIECE", 32 << 10)  # more points inside members
    wanted = examples(51, 200)
    kills = trial = 0
    while kills < wanted and trial < 2 * wanted:
        grow(home, 0.2 + 0.8 * min(1.0, (kills + 1) / wanted))
        pid = os.fork()
        if pid == 0:  # the run that is killed, at its (trial % 17 + 1)-th point
            archive._kills[0] = trial % 17 + 1
            try:
                archive_everything(cfg)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        kills += os.WIFSIGNALED(status)
        trial += 1
        if trial % 4 == 0:  # the next run mends what the killed ones left
            archive_everything(cfg)
            archived_matches_transcripts(cfg)
            for sid in archive.archived_sessions(cfg):
                assert archive.verify(cfg, sid).problems == []
    assert kills == wanted
    archive_everything(cfg)
    archived_matches_transcripts(cfg)


def test_reprocess_from_the_archive_after_kills_gives_the_transcripts_note(
        env: Env, tmp_path: Path) -> None:
    projects = lay_out(env, [WITH_AGENTS])
    cfg = config_for(env)
    for k in range(1, 30, 3):  # killed runs, at different points, then one whole run
        pid = os.fork()
        if pid == 0:
            archive._kills[0] = k
            try:
                archive_everything(cfg)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    assert env.vv("archive").returncode == 0
    assert env.vv("archive", "--verify").returncode == 0
    assert env.vv("backfill").returncode == 0
    notes = env.notes()
    shutil.rmtree(projects)
    projects.mkdir()
    r = env.vv("reprocess", WITH_AGENTS.stem)
    assert r.returncode == 0, r.stderr
    assert b"from the archive" in r.stdout
    assert env.notes() == notes


def test_verify_is_read_only_and_repair_keeps_what_is_whole(env: Env) -> None:
    lay_out(env, PLAIN[:1])
    assert env.vv("archive").returncode == 0
    gz = next((env.state / "archive").rglob("*.jsonl.gz"))
    good = gz.read_bytes()
    with open(gz, "ab") as f:  # a member cut short by a kill
        f.write(gzip.compress(os.urandom(5000))[:2000])
    torn = gz.read_bytes()
    r = env.vv("archive", "--verify")
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    assert gz.read_bytes() == torn  # verify changed nothing
    assert b"verified 0 files" in r.stdout and b"--repair" in r.stdout
    r = env.vv("archive", "--repair")
    assert r.returncode == 0, r.stderr
    assert gz.read_bytes() == good
    r = env.vv("archive", "--verify")
    assert r.returncode == 0 and b"verified 1 files" in r.stdout


def test_a_damaged_member_keeps_everything_before_it(env: Env) -> None:
    projects = lay_out(env, PLAIN[:1])
    main = next(projects.rglob("*.jsonl"))
    full = main.read_bytes()
    half = full[: full.index(b"\n", len(full) // 2) + 1]
    main.write_bytes(half)
    assert env.vv("archive").returncode == 0
    gz = next((env.state / "archive").rglob("*.jsonl.gz"))
    first_member = gz.stat().st_size
    main.write_bytes(full)
    assert env.vv("archive").returncode == 0
    data = bytearray(gz.read_bytes())
    data[first_member + 30] ^= 0xFF  # the second member is damaged
    gz.write_bytes(bytes(data))
    main.unlink()
    r = env.vv("archive", "--verify")
    assert r.returncode == 1 and b"damaged after" in r.stderr
    restored = env.root / "restored"
    restored.mkdir()
    cfg = config_for(env)
    [sid] = archive.archived_sessions(cfg)
    out = archive.restore(cfg, sid, restored)
    assert out is not None
    assert out[0].read_bytes() == half


def test_planted_manifest_entries_cannot_leave_the_archive(env: Env, tmp_path: Path) -> None:
    lay_out(env, PLAIN[:1])
    assert env.vv("archive").returncode == 0
    manifest = next((env.state / "archive").rglob("manifest.json"))
    m = json.loads(manifest.read_text())
    entry = next(iter(m["files"].values()))
    victim = tmp_path / "victim.jsonl"
    for evil in ("../../../victim.jsonl", str(victim), "subagents/../../x.jsonl", ".."):
        m["files"][evil] = dict(entry)
    manifest.write_text(json.dumps(m))
    sid = m["session_id"]
    before = set(tmp_path.rglob("*"))
    restored = env.root / "restored"
    restored.mkdir()
    out = archive.restore(config_for(env), sid, restored)
    assert out is not None
    assert {p for p in tmp_path.rglob("*") if not p.is_relative_to(env.root)} == {
        p for p in before if not p.is_relative_to(env.root)}
    assert not victim.exists()
    assert env.vv("archive", "--verify").returncode == 0


def test_symlinked_archive_file_or_folder_is_never_written_through(env: Env,
                                                                  tmp_path: Path) -> None:
    projects = lay_out(env, PLAIN[:2])
    first, second = discover([projects])[0]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.gz").write_bytes(b"")
    root = env.state / "archive"
    root.mkdir(parents=True)
    (root / first.session_id).symlink_to(outside, target_is_directory=True)
    (root / second.session_id).mkdir()
    (root / second.session_id / f"{Path(second.main).name}.gz").symlink_to(outside / "target.gz")
    r = env.vv("archive")
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    assert (outside / "target.gz").read_bytes() == b""
    assert [p.name for p in outside.iterdir()] == ["target.gz"]


def test_an_archive_in_the_vault_moves_to_the_state_directory(env: Env) -> None:
    lay_out(env, PLAIN[:1])
    env.configure(f'archive_dir = "{env.vault}/.vibe-vault/archive"\n')
    assert env.vv("archive").returncode == 0
    r = env.vv("doctor")
    assert b"inside the vault" in r.stdout
    env.configure()
    r = env.vv("archive")
    assert r.returncode == 0 and b"moved the archive of 1 sessions out of the vault" in r.stderr
    assert not (env.vault / ".vibe-vault").exists()
    assert env.vv("archive", "--verify").returncode == 0
    assert (env.state / "archive").stat().st_mode & 0o077 == 0
    assert b"inside the vault" not in env.vv("doctor").stdout


def test_notes_match_after_archive_survives(env: Env) -> None:
    """The figures of a note rebuilt from the archive are the transcript's own."""
    projects = lay_out(env, [WITH_AGENTS])
    assert env.vv("backfill", "--archive").returncode == 0
    note = next(iter(env.notes().values()))
    shutil.rmtree(projects)
    projects.mkdir()
    assert env.vv("reprocess").returncode == 0
    again = next(iter(env.notes().values()))
    assert frontmatter(again)["output_tokens"] == frontmatter(note)["output_tokens"]
    assert len(session_files(WITH_AGENTS)) >= 1


@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(days=st.integers(1, 12), ages=st.lists(st.floats(0, 14), min_size=1, max_size=5))
def test_doctor_watches_retention(tmp_path_factory: pytest.TempPathFactory, days: int,
                                  ages: list[float]) -> None:
    """Sessions the cleanup deletes within three days and not archived are
    named; with archiving off every one is at risk; a session whose
    transcript is gone but whose copy is kept is counted."""
    # An age at the boundary itself is on either side by the time doctor runs
    # (seconds later): the oracle cannot say, so none is generated there.
    assume(all(abs(age - (days - 3)) > 0.01 for age in ages))
    env = Env(tmp_path_factory.mktemp("home"))
    env.claude.mkdir(parents=True)
    (env.claude / "settings.json").write_text(json.dumps({"cleanupPeriodDays": days}))
    env.configure("archive = false\n")
    homes = []
    for age in ages:
        h = Home(env, f"/work/p{len(homes)}")
        h.grow(random.Random(len(homes)))
        then = time.time() - age * 86400
        os.utime(h.main, (then, then))
        homes.append((h, age))

    def retention() -> dict[str, str]:
        r = env.vv("doctor", "--json", "--project-dir", str(env.root))
        return next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "retention")

    check = retention()
    assert check["status"] == "warn" and "archiving is off" in check["detail"]
    assert f"cleanupPeriodDays = {days}" in check["detail"]
    env.configure()
    due = [h for h, age in homes if age > days - 3]  # the oracle: deleted within 3 days
    check = retention()
    if due:
        assert check["status"] == "warn" and f"{len(due)} sessions not" in check["detail"]
        assert "vv archive" in check["fix"]
    else:
        assert check["status"] == "pass"
    assert env.vv("archive").returncode == 0
    check = retention()
    assert check["status"] == "pass" and "only in the archive" not in check["detail"]
    homes[0][0].cleanup()
    check = retention()
    assert "1 sessions exist only in the archive (vv restore)" in check["detail"]


def test_backfill_archives_by_default_and_archive_false_turns_it_off(env: Env) -> None:
    home = Home(env)
    rng = random.Random(4)
    home.grow(rng)
    env.configure("archive = false\n")
    assert env.vv("backfill").returncode == 0
    assert not (env.state / "archive").exists()
    env.configure()
    home.grow(rng)
    assert env.vv("backfill").returncode == 0
    assert env.vv("archive", "--verify").returncode == 0
    # a tool result spilled later, its session otherwise unchanged: --archive checks it
    spilled = home.own / "tool-results" / "late.txt"
    spilled.parent.mkdir(parents=True, exist_ok=True)
    spilled.write_bytes(rng.randbytes(3000))
    assert env.vv("backfill", "--archive").returncode == 0
    saved = home.files()
    home.cleanup()
    assert env.vv("restore", home.sid).returncode == 0
    assert home.files() == saved


@pytest.mark.parametrize("syncfs", [True, False])
def test_a_backfill_syncs_its_copies_before_it_records_them(
        env: Env, monkeypatch: pytest.MonkeyPatch, syncfs: bool) -> None:
    """A backfill's copies are not synced one by one (an fsync of each member
    and manifest, three a session, was most of a first backfill's time): the
    archive's file system is synced (syncfs) before each commit of the rows
    that record sessions as read, so no row names a session whose copy a
    power cut could still take. Where there is no syncfs, each file is synced
    as it is written, as before."""
    import sqlite3

    from vibe_vault import backfill as backfill_module

    lay_out(env, [WITH_AGENTS, *PLAIN])
    cfg = config_for(env)
    root = archive.archive_root(cfg)
    if not syncfs:
        monkeypatch.setattr(archive, "_SYNCFS", [None])
    monkeypatch.setattr(backfill_module, "COMMIT_ROWS", 1)  # a commit after each session
    synced: list[set[str]] = []  # the sessions with a copy, at each sync
    committed: list[set[str]] = []  # the sessions the database held then (committed rows)
    real_sync = archive.sync_all

    def sync_all(c: Config) -> None:
        real_sync(c)
        synced.append({p.name for p in root.iterdir()} if root.is_dir() else set())
        with sqlite3.connect(env.state / "vault.db") as db:
            committed.append({r[0] for r in db.execute("SELECT session_id FROM records")})

    monkeypatch.setattr(archive, "sync_all", sync_all)
    archive_fsyncs: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else ""
        if where.startswith(str(root)):
            archive_fsyncs.append(where)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    r = env.vv_here("backfill", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    sessions = {src.session_id for src in discover([env.claude / "projects"])[0]}
    if syncfs and archive.can_sync_all():
        assert archive_fsyncs == []
        assert len(synced) >= len(sessions)  # (a commit a session)
        for k in range(1, len(synced)):  # what was committed by then had been synced before
            assert committed[k] <= synced[k - 1]
        assert synced[-1] == sessions
    else:
        assert synced == []
        # every archive file and manifest synced as it was written
        assert len(set(archive_fsyncs)) >= len(sessions) * 2
    archived_matches_transcripts(cfg)
    for sid in archive.archived_sessions(cfg):
        assert archive.verify(cfg, sid).problems == []
