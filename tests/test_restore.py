"""`vv restore` puts back, byte for byte, what SessionEnd hooks archived, even
when they were killed part way; it refuses what the archive cannot give whole,
and never replaces a newer file. The oracle is the bytes the test wrote."""

from __future__ import annotations

import ctypes
import json
import os
import random
import re
import shutil
import string
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples
from vibe_vault.folder_names import project_folder_name

# Real lines to build transcripts from: a corpus session with answers.
SOURCE = CORPUS / "DRMacIver__claude-reliability/snapshot-tests/coverage-test-fix/transcript.jsonl"


def lines_for(sid: str, cwd: str) -> list[bytes]:
    """The corpus session's lines, as if it had run as `sid` in `cwd`."""
    out = []
    for raw in SOURCE.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            if "sessionId" in obj:
                obj["sessionId"] = sid
            if "cwd" in obj:
                obj["cwd"] = cwd
        out.append(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
    return out


def folder_oracle(cwd: str) -> str:
    """The documented rule, for cwds of at most 200 UTF-16 units: each unit
    outside [A-Za-z0-9] is a `-` (a character beyond the BMP is two)."""
    keep = set(string.ascii_letters + string.digits)
    return "".join(c if c in keep else "-" * (len(c.encode("utf-16-le")) // 2) for c in cwd)


def java_hash(text: str) -> int:
    h = ctypes.c_int32(0)
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h = ctypes.c_int32(31 * h.value + int.from_bytes(data[i:i + 2], "little"))
    return h.value


class Home:
    """A Claude Code home with one session being written."""

    def __init__(self, env: Env, cwd: str = "/home/me/proj") -> None:
        self.env = env
        self.sid = str(uuid.uuid4())
        self.cwd = cwd
        self.folder = env.claude / "projects" / folder_oracle(cwd)
        self.main = self.folder / f"{self.sid}.jsonl"
        self.own = self.folder / self.sid
        self.lines = lines_for(self.sid, cwd)
        self.at = 0
        self.folder.mkdir(parents=True, exist_ok=True)
        # (a SessionEnd past its deadline leaves the archive to the next run,
        # and its kill points are never met: the home's deadlines are five minutes;
        # its hooks wait 30 s for a lock, unless the test said otherwise)
        config = (env.root / "config.toml").read_text()
        if "lock_timeout" not in config:
            env.configure("lock_timeout = 30\n" + config)

    def grow(self, rng: random.Random) -> None:
        """A turn more: main lines, and now and then an agent, a workflow
        agent's files or a tool result (bytes of any kind)."""
        n = rng.randint(1, max(1, len(self.lines) // 4))
        with open(self.main, "ab") as f:
            for line in self.lines[self.at:self.at + n] or self.lines[:1]:
                f.write(line)
        self.at += n
        kind = rng.randrange(4)
        if kind == 1:
            p = self.own / "subagents" / f"agent-a{rng.randrange(4)}.jsonl"
        elif kind == 2:
            p = (self.own / "subagents" / "workflows" / f"wf_{rng.randrange(2)}"
                 / rng.choice(["agent-w1.jsonl", "journal.jsonl", "agent-w1.meta.json"]))
        elif kind == 3:
            p = self.own / "tool-results" / f"toolu_{rng.randrange(3)}.txt"
        else:
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "ab") as f:
            f.write(rng.randbytes(rng.randint(1, 5000)) if kind == 3
                    else b"".join(rng.sample(self.lines, 2)))

    def files(self) -> dict[str, bytes]:
        """Every file of the session, by path from the projects folder."""
        root = self.env.claude / "projects"
        return {p.relative_to(root).as_posix(): p.read_bytes()
                for p in sorted(root.rglob("*")) if p.is_file()}

    def end_event(self) -> dict[str, object]:
        return {"hook_event_name": "SessionEnd", "session_id": self.sid,
                "transcript_path": str(self.main), "cwd": self.cwd, "reason": "exit"}

    def session_end(self, kill_at: int = 0) -> subprocess.CompletedProcess[bytes]:
        env = dict(self.env.env, VV_TEST_ARCHIVE_KILL=str(kill_at))
        return subprocess.run([sys.executable, "-m", "vibe_vault", "hook"],
                              input=json.dumps(self.end_event()).encode(), env=env,
                              capture_output=True, timeout=120, check=False)

    def cleanup(self) -> None:
        """What Claude Code's cleanup deletes: the transcript and its folder."""
        self.main.unlink()
        shutil.rmtree(self.own, ignore_errors=True)


@pytest.mark.corpus
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(2, 5), finisher=st.sampled_from(
    ["session-end", "archive --pending", "backfill"]))
def test_a_session_end_archive_killed_anywhere_is_finished_by_the_next_run(
        tmp_path_factory: pytest.TempPathFactory, seed: int, steps: int, finisher: str) -> None:
    env = Env(tmp_path_factory.mktemp("home"))
    rng = random.Random(seed)
    home = Home(env)
    kills = 0
    for step in range(steps):
        home.grow(rng)
        home.grow(rng)
        r = home.session_end(kill_at=1 if step == 0 else rng.randint(1, 8))
        kills += r.returncode == -9
        assert r.returncode in (0, -9), r.stderr
    if finisher == "session-end":
        assert home.session_end().returncode == 0
    else:
        r = env.vv(*finisher.split())
        assert r.returncode == 0, r.stderr
    assert env.vv("archive", "--verify").returncode == 0
    assert not list((env.state / "archive-pending").iterdir())
    saved = home.files()
    home.cleanup()
    r = env.vv("restore", home.sid)
    assert r.returncode == 0, r.stderr
    assert home.files() == saved
    assert f"claude --resume {home.sid}".encode() in r.stdout
    assert home.cwd.encode() in r.stdout
    assert kills >= 1  # the first run always dies: its first kill point is always met


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=300))
def test_the_project_folder_follows_claude_codes_rule(cwd: str) -> None:
    name = project_folder_name(cwd)
    units = len(cwd.encode("utf-16-le")) // 2
    if units <= 200:
        assert name == folder_oracle(cwd)
    else:
        h = abs(java_hash(cwd))
        digits = ""
        while True:
            h, r = divmod(h, 36)
            digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
            if not h:
                break
        assert name == folder_oracle(cwd)[:200] + "-" + digits


@pytest.mark.corpus
def test_restore_refuses_what_the_archive_cannot_give_whole(env: Env) -> None:
    home = Home(env)
    rng = random.Random(7)
    for _ in range(3):
        home.grow(rng)
        assert home.session_end().returncode == 0
    home.cleanup()
    unknown = str(uuid.uuid4())
    r = env.vv("restore", unknown)
    assert r.returncode == 1 and r.stderr.count(b"\n") == 1
    assert b"no copy" in r.stderr and unknown.encode() in r.stderr
    gz = env.state / "archive" / home.sid / f"{home.sid}.jsonl.gz"
    data = bytearray(gz.read_bytes())
    data[len(data) // 2] ^= 0xFF
    gz.write_bytes(bytes(data))
    r = env.vv("restore", home.sid[:8])
    assert r.returncode == 1 and r.stderr.count(b"\n") == 1, r.stderr
    assert b"damaged" in r.stderr and b"vv archive --verify" in r.stderr
    assert not home.main.exists() and not home.own.exists()


def settled(env: Env, timeout: float = 120) -> None:
    """Wait for what the SessionEnd hook handed to a detached `vv archive
    --pending` (on a busy machine its time ran out): the test's next bytes
    must come after the archive run, as the session's would."""
    import time

    pending = env.state / "archive-pending"
    give_up = time.monotonic() + timeout
    while pending.exists() and any(pending.iterdir()) and time.monotonic() < give_up:
        time.sleep(0.05)


@pytest.mark.corpus
def test_restore_never_replaces_a_newer_file(env: Env) -> None:
    home = Home(env)
    rng = random.Random(11)
    home.grow(rng)
    assert home.session_end().returncode == 0
    settled(env)
    archived = home.main.read_bytes()
    home.grow(rng)  # the session went on after the archive run
    newer = home.main.read_bytes()
    assert newer != archived
    r = env.vv("restore", home.sid)
    assert r.returncode == 0 and b"kept" in r.stderr
    assert home.main.read_bytes() == newer
    home.main.write_bytes(archived[: len(archived) // 3])  # an older, cut copy
    r = env.vv("restore", home.sid)
    assert r.returncode == 0 and home.main.read_bytes() == archived
    r = env.vv("restore", home.sid)
    assert b"already in place" in r.stdout and home.main.read_bytes() == archived


@pytest.mark.corpus
def test_restore_by_project_and_since(env: Env) -> None:
    homes = [Home(env, "/work/alpha"), Home(env, "/work/beta"), Home(env, "/work/alpha")]
    rng = random.Random(3)
    for h in homes:
        h.grow(rng)
        assert h.session_end().returncode == 0
    saved = {h.sid: h.files() for h in homes}
    for h in homes:
        h.cleanup()
    r = env.vv("restore", "--project", "alpha")
    assert r.returncode == 0, r.stderr
    assert homes[0].main.exists() and homes[2].main.exists() and not homes[1].main.exists()
    r = env.vv("restore", "--since", "2000-01-01")
    assert r.returncode == 0, r.stderr
    assert homes[1].files() == saved[homes[1].sid] | saved[homes[0].sid] | saved[homes[2].sid]
    r = env.vv("restore", "--since", "2999-01-01")
    assert r.returncode == 1 and b"no archived session" in r.stderr


@pytest.mark.corpus
def test_the_archive_is_private_and_never_written_through_a_symlink(env: Env,
                                                                   tmp_path: Path) -> None:
    home = Home(env)
    home.grow(random.Random(5))
    assert home.session_end().returncode == 0
    root = env.state / "archive"
    assert root.stat().st_mode & 0o777 == 0o700
    for p in root.rglob("*"):
        assert p.stat().st_mode & 0o777 == (0o700 if p.is_dir() else 0o600), p
    shutil.rmtree(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    root.symlink_to(outside, target_is_directory=True)
    home.grow(random.Random(6))
    r = home.session_end()
    assert r.returncode == 0 and r.stdout == b""
    assert list(outside.iterdir()) == []
    assert b"symlink" in (env.state / "vv.log").read_bytes()
    os.unlink(root)
    assert env.vv("archive").returncode == 0
    assert env.vv("forget", home.sid).returncode == 0
    assert not (root / home.sid).exists()


@pytest.mark.corpus
@pytest.mark.parametrize("answer", ["y\n", "\n", "n\n", ""])
def test_resume_exec_offers_to_restore_a_deleted_session(env: Env, answer: str) -> None:
    work = env.root / "my project"
    work.mkdir()
    home = Home(env, str(work))
    home.grow(random.Random(9))
    assert home.session_end().returncode == 0
    assert env.vv("index").returncode == 0
    saved = home.files()
    home.cleanup()
    bin_dir = env.root / "bin"
    bin_dir.mkdir()
    seen = env.root / "claude-saw"
    fake = bin_dir / "claude"  # what the real client would be asked, and what it finds
    fake.write_text(f"#!/bin/sh\n{{ pwd; echo \"$@\"; test -f '{home.main}' && echo found; }}"
                    f" > '{seen}'\n")
    fake.chmod(0o755)
    env.env["PATH"] = f"{bin_dir}{os.pathsep}{env.env['PATH']}"
    r = env.vv("resume", home.sid[:10], "--exec", stdin=answer.encode())
    assert b"Restore it first?" in r.stderr
    if answer in ("y\n", "\n"):
        assert r.returncode == 0, r.stderr
        assert seen.read_text().split("\n")[:3] == [str(work), f"--resume {home.sid}", "found"]
        assert home.files() == saved
    else:
        assert r.returncode == 1 and not seen.exists() and not home.main.exists()
        assert f"vv restore {home.sid}".encode() in r.stderr


@pytest.mark.corpus
def test_a_restored_session_that_goes_on_is_archived_on_from_where_it_was(env: Env) -> None:
    """The restored files are the archive's own bytes: the resumed session's
    new turns are appended, not the whole transcript copied again."""
    home = Home(env)
    rng = random.Random(21)
    for _ in range(2):
        home.grow(rng)
    assert home.session_end().returncode == 0
    home.cleanup()
    assert env.vv("restore", home.sid).returncode == 0
    archived = {p: p.stat().st_size for p in (env.state / "archive").rglob("*.gz")}
    home.grow(rng)  # resumed
    assert home.session_end().returncode == 0
    grown = {p: p.stat().st_size for p in (env.state / "archive").rglob("*.gz")}
    assert set(archived) <= set(grown)
    assert all(".1." not in p.name for p in grown)  # no second copy started
    main_gz = env.state / "archive" / home.sid / f"{home.sid}.jsonl.gz"
    assert grown[main_gz] - archived[main_gz] < home.main.stat().st_size // 2
    saved = home.files()
    home.cleanup()
    assert env.vv("restore", home.sid).returncode == 0
    assert home.files() == saved


_ALNUM = string.ascii_letters + string.digits


@st.composite
def folder_secrets(draw: st.DrawFn) -> tuple[str, str]:
    """(a working directory whose name holds a token, the token)."""
    body = "".join(draw(st.lists(st.sampled_from(_ALNUM), min_size=36, max_size=36)))
    token = draw(st.sampled_from([
        "ghp_" + body,
        "github_pat_" + body[:22] + "_" + body[:30] + body[:29],
        "AKIA" + "".join(c for c in body.upper() if c.isalnum())[:16].ljust(16, "Q"),
        "xoxb-" + "1" * 11 + "-" + "2" * 12 + "-" + body[:24],
    ]))
    before = draw(st.sampled_from(["/home/dev/", "/srv/", "/Users/me/work/"]))
    after = draw(st.sampled_from(["", "/app", "-copy/src"]))
    return before + token + after, token


@pytest.mark.corpus
@settings(max_examples=examples(3, 20), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=folder_secrets())
def test_a_secret_in_the_sessions_folder_name_is_hidden_in_state_note_and_terminal(
        tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str]) -> None:
    """Claude Code names the transcript's folder after the working directory,
    each character outside [A-Za-z0-9] a `-` (`ghp_x…` reads `ghp-x…`, a form
    no rule knows): the state keeps the transcript's path with what the gate
    hid in the directory hidden in that name too, and `vv restore` prints the
    folder and the resume line as `vv resume` does. (The database's record of
    which files were read is keyed by a digest: test_folder_keys.)"""
    cwd, token = case
    env = Env(tmp_path_factory.mktemp("home"))
    home = Home(env, cwd)
    home.main.write_bytes(b"".join(home.lines))
    assert env.vv("backfill").returncode == 0
    assert env.vv("hook", stdin=json.dumps(home.end_event()).encode()).returncode == 0
    r = env.vv("restore", home.sid, "--dry-run")
    assert r.returncode == 0, r.stderr
    # (the value past its kind's public prefix: `github` is also in the marker
    # and the project name made of it, `REDACTED-github-token`)
    value = token.split("_")[-1] if "_" in token else token[4:]
    forms = {value, folder_oracle(value)}
    runs = {f[i:i + 6] for f in forms for i in range(len(f) - 5)}
    shown = (r.stdout + r.stderr).decode()
    assert f"--resume {home.sid}" in shown and "[REDACTED" in shown, shown
    shown = re.sub(r"\[REDACTED:[^\]]*\]", "\n", shown)  # (`github` is in a marker)
    assert not [g for g in runs if g in shown], shown
    kept = [p for p in sorted(env.state.rglob("*")) + sorted(env.vault.rglob("*"))
            if p.is_file() and "archive" not in p.parts and p.name != "vault.db"
            and not p.name.startswith("vault.db")]
    for p in kept:
        data = re.sub(r"\[REDACTED:[^\]]*\]", "\n", p.read_bytes().decode("utf-8", "replace"))
        assert not [g for g in runs if g in data], p
