"""Backfill, reprocess, archive and the vault's indexes, through `vv` as a user runs them."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import Env, frontmatter, has_assistant, main_files, session_files
from test_corpus import UUID

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

SMALL = [p for p in main_files() if 2000 < p.stat().st_size < 700_000 and UUID.match(p.stem)]


def lay_out(env: Env, mains: list[Path]) -> Path:
    """A Claude Code home holding these corpus sessions with their subagent files."""
    projects = env.claude / "projects"
    for main in mains:
        slug = projects / main.parent.name
        slug.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(main, slug / main.name)
        for a in session_files(main):
            dest = slug / a.relative_to(main.parent)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(a, dest)
    return projects


def backfill(env: Env, *args: str) -> dict[str, object]:
    r = env.vv("backfill", "--json", *args)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    return json.loads(r.stdout)


def test_json_counts_match_the_vault(env: Env) -> None:
    lay_out(env, SMALL)
    s = backfill(env)
    notes = env.notes()
    assert s["written"] == len(notes)
    assert s["sessions"] == s["written"] + s["without_note"]
    assert s["failed"] == 0
    again = backfill(env)
    assert again["written"] == 0 and again["unchanged"] == s["sessions"] and again["bytes"] == 0
    assert env.notes() == notes


def test_the_whole_corpus_as_a_claude_home(env: Env) -> None:
    """Both subagent layouts and legacy agent files, laid out as Claude Code does."""
    mains = [p for p in main_files() if UUID.match(p.stem)]
    lay_out(env, mains)
    s = backfill(env)
    assert s["failed"] == 0
    sids = {frontmatter(n)["session_id"] for n in env.notes().values()}
    assert all(not str(sid).startswith("agent-") for sid in sids)
    index = (env.vault / "index.md").read_text()
    assert f"**{len(sids)} sessions**" in index


def test_a_first_backfill_writes_each_note_once(env: Env) -> None:
    """Links are guessed before any note is written, sessions Claude never
    answered (no note) left out: the pass that sets links at the end rewrites
    only the notes titled by their summary in another session's file (known
    only once both are read), and writes the index notes."""
    from test_facts import summaries_elsewhere

    mains = [p for p in main_files() if UUID.match(p.stem)]
    lay_out(env, mains)
    s = backfill(env)
    assert s["without_note"] > 0  # some sessions between others have no note
    projects = list((env.vault / "Projects").glob("*/*.md"))
    retitled = set(summaries_elsewhere()) & {p.stem for p in mains if has_assistant(p)}
    assert retitled
    # + index.md, Sessions.base
    assert s["index_notes_written"] == len(projects) + 2 + len(retitled)


def test_links_do_not_depend_on_processing_order(env: Env, tmp_path: Path) -> None:
    projects = lay_out(env, SMALL)
    backfill(env)
    ordered = env.all_notes()
    other = Env(tmp_path / "newest-first")
    lay_out(other, SMALL)
    files = sorted((other.claude / "projects").rglob("*.jsonl"))
    mains = [p for p in files if UUID.match(p.stem)]
    starts = {p: _first_ts(p) for p in mains}
    for p in sorted(mains, key=lambda p: starts[p], reverse=True):
        backfill(other, str(p.parent))  # one project directory at a time, newest first
    assert _normalise(other.all_notes(), other) == _normalise(ordered, env)
    assert projects.exists()
    linked = [n for n in ordered.values() if "\nprevious: " in n or "\nnext: " in n]
    assert linked, "the corpus has projects with several sessions"


def test_index_notes_made_on_every_core_equal_those_made_in_one_process(
        env: Env, tmp_path: Path) -> None:
    """The index pass (links, project notes) done by forked workers, one
    project each, leaves the vault and the registry a single process leaves;
    links corrected along the way included."""
    setup = ("import os, sys; import vibe_vault.index as ix, vibe_vault.workers as w; "
             "os.cpu_count = lambda: 2; ix.PARALLEL_FROM = {first}; run = w.run_forked\n"
             "def counted(work, jobs, n, kind):\n"
             "    if kind is ix.ProjectDone: print('projects on workers', file=sys.stderr)\n"
             "    return run(work, jobs, n, kind)\n"
             "w.run_forked = counted\n"
             "from vibe_vault.cli import main; sys.exit(main(sys.argv[1:]))")
    vaults = {}
    links = {}
    for how, first in (("one process", 10**9), ("workers", 1)):
        home = Env(tmp_path / how.replace(" ", "-"))
        lay_out(home, SMALL)
        mains = [p for p in sorted((home.claude / "projects").rglob("*.jsonl"))
                 if UUID.match(p.stem)]
        starts = {p: _first_ts(p) for p in mains}
        on_workers = 0
        for p in sorted(mains, key=lambda p: starts[p], reverse=True):
            # One transcript at a time, newest first: each older one changes
            # the links of sessions already written.
            r = subprocess.run([sys.executable, "-c", setup.format(first=first), "backfill",
                                "--json", str(p)],
                               capture_output=True, env=home.env, timeout=120, check=False)
            assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
            on_workers += r.stderr.count(b"projects on workers")
        assert (on_workers > 0) == (how == "workers")
        vaults[how] = _normalise(home.all_notes(), home)
        links[how] = _registry_links(home)
    assert vaults["workers"] == vaults["one process"]
    assert links["workers"] == links["one process"]
    assert any(prev for prev, *_ in links["workers"].values())
    assert sum("\nprevious: " in n for n in vaults["workers"].values()) >= 3


def _registry_links(env: Env) -> dict[str, tuple[str, str, str, list[str]]]:
    """The links the registry holds for each session (what the next link pass
    compares against)."""
    import sqlite3

    import msgspec

    from vibe_vault.records import Record

    conn = sqlite3.connect(env.state / "vault.db")
    try:
        rows = conn.execute("SELECT session_id, body FROM records").fetchall()
    finally:
        conn.close()
    out = {}
    for sid, body in rows:
        rec = msgspec.msgpack.decode(body, type=Record)
        out[sid] = (rec.previous, rec.next, rec.continues, rec.continued_by)
    return out


def _first_ts(p: Path) -> str:
    for raw in p.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and d.get("timestamp"):
            return str(d["timestamp"])
    return ""


def _normalise(notes: dict[str, str], env: Env) -> dict[str, str]:
    return {k: v.replace(str(env.root), "ROOT") for k, v in notes.items()}


def test_previous_and_next_follow_start_time(env: Env) -> None:
    lay_out(env, SMALL)
    backfill(env)
    by_project: dict[str, list[tuple[str, str, dict[str, object]]]] = {}
    for path, note in env.notes().items():
        fm = frontmatter(note)
        by_project.setdefault(str(fm["project"]), []).append((str(fm["started"]), path, fm))
    for sessions in by_project.values():
        sessions.sort()
        for (_, pa, fa), (_, pb, fb) in itertools.pairwise(sessions):
            assert fa["next"] == f"[[{pb[:-3]}]]"
            assert fb["previous"] == f"[[{pa[:-3]}]]"
        assert "previous" not in sessions[0][2]
        assert "next" not in sessions[-1][2]


def test_project_note_totals_equal_session_sums(env: Env) -> None:
    lay_out(env, SMALL)
    backfill(env)
    for proj in (env.vault / "Projects").iterdir():
        note = (proj / f"{proj.name}.md").read_text()
        fm = frontmatter(note)
        sessions = [frontmatter(n) for k, n in env.notes().items()
                    if k.startswith(f"Projects/{proj.name}/")]
        assert fm["sessions"] == len(sessions)
        assert fm["cost_usd"] == pytest.approx(sum(float(s.get("cost_usd", 0)) for s in sessions),
                                               abs=0.01)
        total = sum(int(s[k]) for s in sessions for k in ("input_tokens", "output_tokens",
                                                          "cache_read_tokens",
                                                          "cache_creation_tokens"))
        assert fm["tokens"] == total


def test_continuation_links_both_ways(env: Env, tmp_path: Path) -> None:
    a_src, b_src = SMALL[0], SMALL[1]
    a_lines = [json.loads(x) for x in a_src.read_bytes().split(b"\n") if x.strip()]
    last = [d["uuid"] for d in a_lines if d.get("type") in ("user", "assistant")
            and d.get("uuid") and not d.get("isSidechain")][-1]
    b_lines = [json.loads(x) for x in b_src.read_bytes().split(b"\n") if x.strip()]
    first = next(d for d in b_lines if d.get("type") in ("user", "assistant")
                 and not d.get("isSidechain"))
    first["parentUuid"] = last
    # resumed where it ran: Claude Code resumes a session only in its own folder
    cwd = next(d["cwd"] for d in a_lines if d.get("cwd"))
    for d in b_lines:
        if "cwd" in d:
            d["cwd"] = cwd
    slug = env.claude / "projects" / "-p"
    slug.mkdir(parents=True)
    shutil.copyfile(a_src, slug / a_src.name)
    b = slug / "bbbbbbbb-0000-4000-8000-000000000001.jsonl"
    b.write_text("\n".join(json.dumps(d) for d in b_lines) + "\n")
    backfill(env)
    notes = {frontmatter(n)["session_id"]: (k, frontmatter(n)) for k, n in env.notes().items()}
    a_path, a_fm = notes[a_src.stem]
    b_path, b_fm = notes[b.stem]
    assert b_fm["continues"] == f"[[{a_path[:-3]}]]"
    assert a_fm["continued_by"] == [f"[[{b_path[:-3]}]]"]


def test_idle_is_decided_by_the_last_entry_not_the_files_mtime(env: Env) -> None:
    from datetime import UTC, datetime, timedelta

    projects = lay_out(env, SMALL[:1])  # entries months old, file copied just now
    now = datetime.now(UTC)
    recent = projects / "-tmp-recent" / "0000beef-0000-4000-8000-000000000001.jsonl"
    recent.parent.mkdir()
    lines = []
    for i, kind in enumerate(("user", "assistant")):
        stamp = (now - timedelta(minutes=10) + timedelta(seconds=i)).isoformat()
        message = ({"role": "user", "content": "hello"} if kind == "user" else
                   {"id": "m1", "model": "claude-x", "role": "assistant",
                    "content": [{"type": "text", "text": "hi"}]})
        lines.append(json.dumps({"type": kind, "uuid": f"u{i}", "timestamp": stamp,
                                 "cwd": "/tmp/recent", "message": message}))
    recent.write_text("\n".join(lines) + "\n")
    old = time.time() - 3 * 3600
    os.utime(recent, (old, old))  # restored from a backup: an old mtime
    backfill(env)
    by_project = {frontmatter(n)["project"]: frontmatter(n) for n in env.notes().values()}
    assert (by_project["recent"]["status"], by_project["recent"]["end_reason"]) == (
        "active", None)
    for project, fm in by_project.items():
        if project != "recent":
            assert (fm["status"], fm["end_reason"]) == ("ended", "idle"), project


def test_dry_run_since_and_project_filters(env: Env) -> None:
    lay_out(env, SMALL)
    r = env.vv("backfill", "--dry-run")
    assert r.returncode == 0 and b"would process" in r.stdout
    assert not env.vault.exists()
    s = backfill(env, "--since", "2999-01-01")
    assert s["filtered"] == s["sessions"] and not env.notes()
    # Before a session's project is known, its Claude Code folder name decides.
    proj = SMALL[0].parent.name.rsplit("-", 1)[-1]
    s = backfill(env, "--project", proj)
    assert s["written"] >= 1
    assert s["filtered"] == sum(1 for p in SMALL if not p.parent.name.endswith("-" + proj))


def test_backfill_racing_hooks_equals_sequential(env: Env, tmp_path: Path) -> None:
    projects = lay_out(env, SMALL)
    mains = sorted(p for p in projects.rglob("*.jsonl") if UUID.match(p.stem))
    errors: list[bytes] = []

    def hooks() -> None:
        for _ in range(3):
            for p in mains:
                r = env.hook({"hook_event_name": "Stop", "session_id": p.stem,
                              "transcript_path": str(p)})
                if r.returncode != 0 or r.stdout or b"Traceback" in r.stderr:
                    errors.append(r.stderr)

    t = threading.Thread(target=hooks)
    t.start()
    backfill(env)
    t.join()
    backfill(env)
    assert not errors
    seq = Env(tmp_path / "seq")
    lay_out(seq, SMALL)
    backfill(seq)
    assert _normalise(env.all_notes(), env) == _normalise(seq.all_notes(), seq)


def test_archive_round_trip_and_incremental(env: Env) -> None:
    projects = lay_out(env, SMALL[:3])
    assert env.vv("archive").returncode == 0
    r = env.vv("archive", "--verify")
    assert r.returncode == 0, r.stderr
    main = sorted(p for p in projects.rglob("*.jsonl") if UUID.match(p.stem))[0]
    extra = b'{"type":"summary","summary":"later","leafUuid":"x"}\n'
    with open(main, "ab") as f:
        f.write(extra)
    assert env.vv("archive").returncode == 0
    r = env.vv("archive", "--verify")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"verified ")
    arch = next((env.state / "archive").glob(f"{main.stem}/{main.name}.gz"))
    assert gzip.decompress(arch.read_bytes()) == main.read_bytes()
    assert not (env.vault / ".vibe-vault").exists()
    for p in (env.state / "archive").rglob("*"):
        assert oct(p.stat().st_mode & 0o777) == ("0o700" if p.is_dir() else "0o600"), p


def test_reprocess_from_archive_after_transcript_deleted(env: Env) -> None:
    projects = lay_out(env, SMALL[:2])
    backfill(env, "--archive")
    path, note = next(iter(env.notes().items()))
    sid = str(frontmatter(note)["session_id"])
    with open(env.vault / path, "a", encoding="utf-8") as f:
        f.write("my own thoughts\n")
    before = (env.vault / path).read_text()
    for p in projects.rglob(f"{sid}*"):
        if p.is_file():
            p.unlink()
        else:
            shutil.rmtree(p)
    r = env.vv("reprocess", sid)
    assert r.returncode == 0, r.stderr
    assert b"from the archive" in r.stdout
    assert (env.vault / path).read_text() == before


def test_reprocess_from_transcript_keeps_user_section(env: Env) -> None:
    lay_out(env, SMALL[:1])
    backfill(env)
    path = next(iter(env.notes()))
    with open(env.vault / path, "a", encoding="utf-8") as f:
        f.write("keep me\n")
    r = env.vv("reprocess")
    assert r.returncode == 0, r.stderr
    assert (env.vault / path).read_text().endswith("keep me\n")


def test_daily_notes_when_enabled(env: Env) -> None:
    env.configure("daily_notes = true\n")
    lay_out(env, SMALL[:3])
    backfill(env)
    daily = list((env.vault / "Daily").glob("*.md"))
    assert daily
    listed = sum(frontmatter(p.read_text())["sessions"] for p in daily)  # type: ignore[misc]
    assert listed == len(env.notes())


def test_session_end_updates_registry_and_indexes(env: Env) -> None:
    projects = lay_out(env, SMALL[:1])
    main = next(p for p in projects.rglob("*.jsonl") if UUID.match(p.stem))
    r = env.hook({"hook_event_name": "SessionEnd", "session_id": main.stem,
                  "transcript_path": str(main), "reason": "logout"})
    assert r.returncode == 0 and not r.stdout
    assert (env.vault / "index.md").exists()
    assert any((env.vault / "Projects").glob("*/*.md"))
    s = backfill(env)
    assert s["written"] == 0 and s["unchanged"] == 1


def test_sessions_whose_transcripts_are_deleted_stay_findable(env: Env) -> None:
    """Claude Code deletes transcripts after 30 days: the note, the state (what
    the search index is built from) and the index entry stay; the lock and
    journal files, which only a hook would use, go."""
    projects = lay_out(env, SMALL[:3])
    backfill(env)
    gone = next(p for p in projects.rglob("*.jsonl") if UUID.match(p.stem))
    (env.state / "journal" / f"{gone.stem}.jsonl").write_text("")
    (env.state / "locks" / f"{gone.stem}.lock").write_text("")
    notes_before = env.notes()
    gone.unlink()
    s = backfill(env)
    assert s["files_pruned"] == 2
    assert (env.state / "sessions" / f"{gone.stem}.state").exists()
    assert not (env.state / "journal" / f"{gone.stem}.jsonl").exists()
    assert not (env.state / "locks" / f"{gone.stem}.lock").exists()
    assert env.notes() == notes_before  # the note stays
    assert backfill(env)["files_pruned"] == 0
    r = env.vv("search", "--reindex")
    assert r.returncode == 0 and b"3 sessions" in r.stdout, r.stdout


def test_old_sessions_are_idle_after_one_backfill(env: Env) -> None:
    projects = lay_out(env, SMALL[:2])
    old = time.time() - 5 * 3600
    for p in projects.rglob("*.jsonl"):
        os.utime(p, (old, old))
    backfill(env)
    for n in env.notes().values():
        assert (frontmatter(n)["status"], frontmatter(n)["end_reason"]) == ("ended", "idle")
    again = backfill(env)
    assert again["written"] == 0 and again["bytes"] == 0


def test_same_vault_serial_forked_or_spawned(env: Env, tmp_path: Path) -> None:
    """The worker pool (fork where there is one, spawn elsewhere) changes nothing."""
    mains = SMALL[:12]
    lay_out(env, mains)
    vaults = {}
    for how in ("serial", "forked", "spawned"):
        env.env["VV_VAULT"] = str(tmp_path / how / "vault")
        env.env["VV_STATE_DIR"] = str(tmp_path / how / "state")
        env.vault = tmp_path / how / "vault"
        if how == "spawned":  # as on Windows, which has no fork
            r = subprocess.run(
                [sys.executable, "-c", "import sys; from vibe_vault import workers; "
                 "workers.available = lambda: False; from vibe_vault.cli import main; "
                 "sys.exit(main(['backfill', '--json', '-j', '2']))"],
                capture_output=True, env=env.env, timeout=120, check=False)
            assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
            s = json.loads(r.stdout)
        else:
            s = backfill(env, "-j", "1" if how == "serial" else "2")
        assert s["failed"] == 0 and s["written"] >= 8
        vaults[how] = env.all_notes()
    assert vaults["forked"] == vaults["serial"] == vaults["spawned"]


def test_the_cycle_collector_is_back_as_it_was_after_a_backfill(env: Env) -> None:
    """Backfill turns the collector off while it plans the jobs and keeps the
    plan out of collections while they run; whoever called it in-process
    (a script, a test) gets the collector back on, with nothing left frozen."""
    lay_out(env, SMALL[:6])
    code = ("import gc, sys; from vibe_vault.cli import main; "
            "codes = [main(['backfill', '--json', '-j', str(j)]) for j in (1, 2)]; "
            "print(codes, gc.isenabled(), gc.get_freeze_count(), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env.env,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    codes, enabled, frozen = r.stderr.decode().strip().splitlines()[-1].rsplit(" ", 2)
    assert codes == "[0, 0]"
    assert (enabled, frozen) == ("True", "0")


def test_a_backfill_stopped_by_ctrl_c_keeps_what_it_finished(tmp_path: Path) -> None:
    """Every session finished when Ctrl-C came has its registry row (the one in
    hand may have its state saved and not yet its row); the next run does the
    rest without reading those again, and the vault ends as one run leaves it."""
    import signal

    # A backfill can finish every session between the first state and the signal
    # (a fast machine, a lucky schedule): then nothing was interrupted, and it is
    # tried again in a new home; a run that ends any other way fails at once.
    for attempt in range(5):
        env = Env(tmp_path / f"attempt-{attempt}")
        lay_out(env, SMALL)
        proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", "backfill", "--jobs", "1"],
                                env=env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        # Once a session is done (its state saved, after its note), not before:
        # a note alone can be a session caught between the two.
        while (not list((env.state / "sessions").glob("*.state"))
               and time.monotonic() < deadline and proc.poll() is None):
            time.sleep(0.002)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        states = {p.stem for p in (env.state / "sessions").glob("*.state")}
        if proc.returncode == 0 and len(states) == len(SMALL):
            continue  # it had finished: no Ctrl-C to keep anything from
        break
    assert proc.returncode == 130 and b"interrupted" in err and b"Traceback" not in err
    assert 0 < len(states) < len(SMALL)  # stopped part way
    rows = set(env.registry().sessions)
    assert rows <= states and len(states - rows) <= 1  # --jobs 1: one session in hand
    s = backfill(env)
    assert s["unchanged"] >= len(states) and s["failed"] == 0
    one_run = Env(tmp_path / "one-run")
    lay_out(one_run, SMALL)
    backfill(one_run)
    assert _normalise(env.all_notes(), env) == _normalise(one_run.all_notes(), one_run)


def test_a_state_saved_without_its_row_gets_it_without_a_second_read(env: Env) -> None:
    """Ctrl-C between a session's saved state and its registry row: the next
    backfill writes the row from the state (the transcript is not read again,
    the note not rewritten)."""

    lay_out(env, SMALL[:3])
    backfill(env)
    notes = env.all_notes()
    sid = sorted(env.registry().sessions)[0]
    from vibe_vault import registry, vaultdb

    # As if its row had never been written: the row, its stamps and its share
    # of the per-project sums (written in one transaction with the row) absent.
    with registry.opened(env.config()) as db, vaultdb.transaction(db):
        registry.delete(db, sid)
    assert sid not in env.registry().sessions
    s = backfill(env)
    assert sid in env.registry().sessions
    assert s["bytes"] == 0 and s["written"] == 0 and s["unchanged"] == 3
    assert env.all_notes() == notes
