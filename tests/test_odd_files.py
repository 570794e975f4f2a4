"""Nothing hangs and nothing is written astray: FIFOs, symlinks, broken or
misplaced state, relative state directories, reads cut by the deadline."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import CORPUS, Env, strip_status
from test_hook_contract import SESSION, SID, assert_harmless, files_under, place, stop
from vibe_vault.session import Store

SUBAGENT_SESSION = next((
    p for p in sorted(CORPUS.rglob("*.jsonl"))
    if p.parent.name != "subagents" and (p.parent / p.stem / "subagents").is_dir()), None)
ORIGINAL_CWD = b"/tmp/tmpqwh7888i"  # the cwd SESSION's entries carry


def with_cwd(env: Env, cwd: Path) -> Path:
    """SESSION placed in the home, its entries saying they ran in `cwd`."""
    target = place(env)
    target.write_bytes(SESSION.read_bytes().replace(ORIGINAL_CWD, str(cwd).encode()))
    return target


def timed_hook(env: Env, event: dict[str, object]) -> float:
    """How long a Stop took, with Claude Code's own 3 s deadline (not the test
    home's five minutes): a file that never ends must not hold it past that."""
    env.configure("hook_deadline = 3.0\n")
    t0 = time.monotonic()
    r = env.hook(event, timeout=20)
    elapsed = time.monotonic() - t0
    assert_harmless(r)
    return elapsed


# -- non-regular files never block ---------------------------------------------------


@pytest.mark.corpus
def test_fifo_as_the_transcript(env: Env) -> None:
    fifo = env.claude / "projects" / "-tmp" / "t.jsonl"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    assert timed_hook(env, stop(path=fifo)) < 5
    assert "not a regular file" in (env.state / "vv.log").read_text()


@pytest.mark.corpus
def test_fifo_as_the_state_file_is_set_aside(env: Env) -> None:
    target = place(env)
    (env.state / "sessions").mkdir(parents=True)
    os.mkfifo(env.state / "sessions" / f"{SID}.state")
    assert timed_hook(env, stop(path=target)) < 5
    assert len(env.notes()) == 1
    assert Store(env.state).load(SID) is not None


@pytest.mark.corpus
def test_fifo_as_git_config(env: Env) -> None:
    project = env.root / "proj"
    (project / ".git").mkdir(parents=True)
    os.mkfifo(project / ".git" / "config")
    target = with_cwd(env, project)
    assert timed_hook(env, stop(path=target)) < 5
    assert [p.split("/")[1] for p in env.notes()] == ["proj"]


@pytest.mark.corpus
@pytest.mark.parametrize("which", ["agent", "meta"])
def test_fifo_as_a_subagent_file_or_its_meta(env: Env, which: str) -> None:
    slug = env.claude / "projects" / "-tmp-sub"
    shutil.copytree(SUBAGENT_SESSION.parent, slug)
    main = slug / SUBAGENT_SESSION.name
    agents = sorted((slug / main.stem / "subagents").glob("agent-*.jsonl"))
    victim = agents[0] if which == "agent" else agents[0].with_suffix(".meta.json")
    victim.unlink(missing_ok=True)
    os.mkfifo(victim)
    assert timed_hook(env, stop(sid=main.stem, path=main)) < 5
    assert len(env.notes()) == 1
    r = env.vv("backfill", str(slug), timeout=20)
    assert r.returncode in (0, 1) and b"Traceback" not in r.stderr


@pytest.mark.corpus
def test_fifo_in_the_transcripts_folder_is_skipped_by_backfill(env: Env) -> None:
    target = place(env)
    os.mkfifo(target.parent / "0000aaaa-0000-4000-8000-000000000009.jsonl")
    t0 = time.monotonic()
    r = env.vv("backfill", timeout=20)
    assert time.monotonic() - t0 < 5
    assert r.returncode == 0, r.stderr
    assert len(env.notes()) == 1


@pytest.mark.corpus
def test_device_as_the_transcript(env: Env) -> None:
    assert timed_hook(env, stop(path="/dev/zero")) < 5
    assert timed_hook(env, stop(path="/proc/self/status")) < 5
    assert not env.notes()


# -- symlinks never lead writes out -----------------------------------------------------


@pytest.mark.corpus
def test_project_folder_symlinked_out_of_the_vault(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = with_cwd(env, env.root / "proj")
    (env.vault / "Projects").mkdir(parents=True)
    (env.vault / "Projects" / "proj").symlink_to(outside, target_is_directory=True)
    assert_harmless(env.hook(stop(path=target)))
    assert files_under(outside) == set()
    r = env.vv("backfill", "--force")
    assert b"Traceback" not in r.stderr
    assert r.returncode == 1 and b"outside" in r.stderr.lower()
    assert files_under(outside) == set()


@pytest.mark.corpus
@pytest.mark.parametrize("folder", ["sessions", "locks", "journal"])
def test_state_folder_symlinked_out(env: Env, tmp_path: Path, folder: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    env.state.mkdir(parents=True)
    (env.state / folder).symlink_to(outside, target_is_directory=True)
    target = place(env)
    assert_harmless(env.hook({"hook_event_name": "PostToolUse", "session_id": SID,
                              "tool_use_id": "t1", "tool_name": "Bash"}))
    assert_harmless(env.hook(stop(path=target)))
    assert files_under(outside) == set()
    assert len(env.notes()) == 1


@pytest.mark.corpus
def test_log_symlinked_out(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.log"
    outside.write_text("")
    env.state.mkdir(parents=True)
    (env.state / "vv.log").symlink_to(outside)
    assert_harmless(env.hook(stop(path=env.root / "missing.jsonl")))
    assert outside.read_text() == ""


# -- recovery -------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("kind", ["directory", "corrupt", "another session's", "symlink"])
def test_a_broken_state_is_set_aside_and_rebuilt(env: Env, kind: str) -> None:
    target = place(env)
    other = Env(env.root / "other")
    other_target = place(other, CORPUS / "DRMacIver__claude-reliability/snapshot-tests/coverage-test-fix/transcript.jsonl", "0ther000-0000-4000-8000-000000000000")
    assert_harmless(other.hook(stop(sid="0ther000-0000-4000-8000-000000000000",
                                    path=other_target)))
    state = env.state / "sessions" / f"{SID}.state"
    state.parent.mkdir(parents=True)
    if kind == "directory":
        state.mkdir()
    elif kind == "corrupt":
        state.write_bytes(b"\x93\x00garbage" * 50)
    elif kind == "symlink":
        state.symlink_to(env.root / "nowhere")
    else:
        shutil.copyfile(other.state / "sessions" / "0ther000-0000-4000-8000-000000000000.state",
                        state)
    for _ in range(2):
        r = env.hook(stop(path=target))
        assert_harmless(r)
        assert r.stderr == b""
    ref = Env(env.root / "ref")
    assert_harmless(ref.hook(stop(path=place(ref))))
    assert list(env.notes().values()) == list(ref.notes().values())
    # The state is a file of its own again; a link was replaced, not written through.
    assert state.is_file() and not state.is_symlink()
    assert not (env.root / "nowhere").exists()


@pytest.mark.corpus
def test_backfill_recreates_deleted_notes_and_vault(env: Env) -> None:
    target = place(env)
    assert env.vv("backfill").returncode == 0
    notes = env.notes()
    first = env.vault / next(iter(notes))
    first.write_text(first.read_text() + "mine\n")
    assert_harmless(env.hook(stop(path=target)))  # an update that sees the user's words
    first.unlink()
    assert env.vv("backfill").returncode == 0
    assert first.read_text().endswith("\nmine\n")
    shutil.rmtree(env.vault)
    assert env.vv("backfill").returncode == 0
    assert env.notes().keys() == notes.keys()
    assert (env.vault / "index.md").exists()


@pytest.mark.corpus
def test_same_size_rewrite_keeping_the_first_bytes_is_noticed(env: Env) -> None:
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    data = target.read_bytes()
    # Same length, same first 64 bytes: the last line is now another prompt.
    start = data.rindex(b"\n", 0, len(data) - 1) + 1
    last = data[start:]
    prompt = (b'{"type":"user","uuid":"u-last","parentUuid":null,"sessionId":"' + SID.encode()
              + b'","timestamp":"2026-01-21T06:30:00Z","message":{"role":"user","content":"')
    pad = len(last) - len(prompt) - len(b'"}}\n')
    changed = data[:start] + prompt + b"a different question " * (pad // 21) + b"?" * (
        pad % 21) + b'"}}\n'
    assert len(changed) == len(data) and changed[:64] == data[:64]
    st = target.stat()
    target.write_bytes(changed)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert_harmless(env.hook(stop(path=target)))
    ref = Env(env.root / "ref")
    ref_target = place(ref)
    ref_target.write_bytes(changed)
    assert_harmless(ref.hook(stop(path=ref_target)))
    assert list(env.notes().values()) == list(ref.notes().values())


@pytest.mark.corpus
@pytest.mark.parametrize("var", ["VV_STATE_DIR", "XDG_STATE_HOME"])
def test_relative_state_dir_is_under_home_for_every_hook(env: Env, tmp_path: Path,
                                                         var: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env.env.pop("VV_STATE_DIR")
    env.env[var] = "relstate"
    import subprocess
    import sys

    target = place(env)
    for event in ({"hook_event_name": "PreToolUse", "session_id": SID, "tool_use_id": "t1"},
                  stop(path=target)):
        r = subprocess.run([sys.executable, "-m", "vibe_vault", "hook"], cwd=project,
                           input=json.dumps(event).encode(), capture_output=True, env=env.env,
                           check=False)
        assert_harmless(r)
    assert files_under(project) == set()
    home = Path(env.env["HOME"])
    base = home / "relstate" if var == "VV_STATE_DIR" else home / "relstate" / "vibe-vault"
    assert (base / "journal" / f"{SID}.jsonl").exists()
    assert (base / "sessions" / f"{SID}.state").exists()


# -- a read cut by the deadline is finished later ---------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("finisher", ["Stop", "SessionEnd", "backfill"])
def test_a_read_cut_by_the_deadline_is_finished_by_the_next_event(env: Env,
                                                                  finisher: str) -> None:
    big = CORPUS / "fenv-org__mementor/checkpoints/0f/54ff53e6a4/0/full.jsonl"
    data = big.read_bytes()
    assert len(data) > 3 << 20  # several of the reader's chunks
    target = place(env, big)
    target.write_bytes(data[: data.index(b"\n", len(data) // 10) + 1])
    assert_harmless(env.hook(stop(path=target)))
    target.write_bytes(data)
    env.configure("hook_deadline = 0.0\n")
    assert_harmless(env.hook(stop(path=target)))
    state = Store(env.state).load(SID)
    assert state is not None and state.cursor.offset < len(data)
    # The finisher gets time enough whatever the machine's load (the home's
    # five minutes, not SessionEnd's 1.2 s: on a busy machine a 3 MB rest may need two events).
    env.configure()
    if finisher == "backfill":
        assert env.vv("backfill").returncode == 0
    else:
        assert_harmless(env.hook(dict(stop(path=target), hook_event_name=finisher,
                                      reason="other")))
    state = Store(env.state).load(SID)
    assert state is not None and state.cursor.offset == len(data)
    ref = Env(env.root / "ref")
    place(ref, big)
    assert ref.vv("backfill").returncode == 0
    assert ({k: strip_status(v) for k, v in env.notes().items()}
            == {k: strip_status(v) for k, v in ref.notes().items()})


# -- the user's own redaction patterns ---------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("pattern", ["([a-z", "(a+)+$", "(\\\\w+\\\\s?)*$"])
def test_a_bad_user_pattern_is_a_config_error_naming_it(env: Env, pattern: str) -> None:
    env.configure(f'[redact_patterns]\nmine = "{pattern}"\n')
    target = place(env)
    t0 = time.monotonic()
    r = env.hook(stop(path=target))
    assert_harmless(r)
    assert b"redact_patterns.mine" in r.stderr
    r = env.vv("backfill")
    assert time.monotonic() - t0 < 10
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert b"redact_patterns.mine" in r.stderr
    assert not env.notes()
    r = env.vv("config", "show")
    assert b"Traceback" not in r.stderr and b"redact_patterns.mine" in r.stderr


def test_a_user_pattern_too_slow_on_real_text_withholds_the_text() -> None:
    from vibe_vault.redact import Redactor

    # Passes the probes at load, backtracks without end on a run of x's.
    redactor = Redactor(extra=[("slowpoke", r"(x+x+)+y")])
    t0 = time.monotonic()
    out, n = redactor.redact("token " + "x" * 40)
    assert time.monotonic() - t0 < 3
    assert "xxxx" not in out and "slowpoke" in out and n == 1
    out, _ = redactor.redact("x" * 40 + " and more")
    assert "xxxx" not in out
    assert time.monotonic() - t0 < 3
