"""A word that leaves the search index leaves its file too (issue 27).

FTS5 deletes by a tombstone: the old segment, and the WAL's copies of its
pages, keep the bytes until a merge. A secret learned late (its session was
indexed before `export DB_PASSWORD=<it>` taught it) and a session forgotten
must leave no byte sequence of it in any file under the vault and state
directories, vault.db, its -wal and -shm included. Generated: the secret, the
place it was first said, which indexing saw it, and learned late or forgotten.
"""

from __future__ import annotations

import json
import string
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process

ALNUM = string.ascii_letters + string.digits
SID = "5ec7e700-0000-4000-8000-0000000000f7"
# Random-looking and long: not a word, a number or a placeholder.
_ONE_ON = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                        "bcdefghijklmnopqrstuvwxyzaBCDEFGHIJKLMNOPQRSTUVWXYZA1234567890")
secrets = st.text(alphabet=ALNUM, min_size=20, max_size=32).filter(
    lambda s: len(set(s)) >= 12 and any(c.isdigit() for c in s)
    and any(c.isupper() for c in s) and any(c.islower() for c in s))


class Transcript:
    def __init__(self, path: Path) -> None:
        self.path, self.n = path, 0

    def add(self, kind: str, content: object, **extra: object) -> None:
        self.n += 1
        entry = {"type": kind, "uuid": f"e{self.n}", "parentUuid": f"e{self.n - 1}" if self.n > 1
                 else None, "sessionId": SID, "cwd": "/srv/app", "version": "2.1.200",
                 "timestamp": f"2026-05-01T10:{self.n:02d}:00.000Z", "isSidechain": False,
                 "message": {"role": kind, "content": content}, **extra}
        if kind == "assistant":
            entry["message"] = {"id": f"msg_{self.n}", "role": "assistant",
                                "model": "claude-sonnet-4-5", "content": content,
                                "usage": {"input_tokens": 3, "output_tokens": 2}}
        with self.path.open("a") as f:
            f.write(json.dumps(entry) + "\n")

    def says(self, place: str, value: str) -> None:
        """The value, bare, where nothing tells it is a secret."""
        if place == "prompt":
            self.add("user", f"deploy with {value} on the staging box")
            self.add("assistant", [{"type": "text", "text": "Will do."}])
        else:
            self.add("user", "what did the log say")
            self.add("assistant", [{"type": "text", "text": f"It printed {value} twice."}])

    def teaches(self, value: str) -> None:
        self.add("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                                "input": {"command": f"export DB_PASSWORD={value}"}}])
        self.add("user", [{"type": "tool_result", "tool_use_id": "t1", "content": ""}])
        self.add("assistant", [{"type": "text", "text": "Exported."}])


def raw_traces(env: Env, value: str) -> list[str]:
    """Files under the vault and state directories holding the value's bytes,
    as written or in lower case (as the search index's tokens keep it)."""
    needles = (value.encode(), value.lower().encode())
    found = []
    for root in (env.vault, env.state):
        for p in sorted(root.rglob("*")) if root.exists() else ():
            if p.is_file() and not p.is_symlink():
                data = p.read_bytes()
                if any(n in data for n in needles):
                    found.append(str(p))
    return found



def index_alone(env: Env, here: bool) -> None:
    """`vv index`, run when no other one is (one SessionEnd started may be)."""
    for _ in range(300):
        r = env.vv_here("index") if here else env.vv("index")
        assert r.returncode == 0, r.stderr
        if b"another vv index is running" not in r.stderr:
            return
        time.sleep(0.1)
    raise AssertionError("vv index stayed busy")


@settings(max_examples=examples(5, 30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(secrets, st.sampled_from(["prompt", "answer"]),
       st.sampled_from(["search", "session end"]), st.sampled_from(["learned", "forgotten"]),
       st.integers(0, 3))
def test_a_secret_leaves_every_file(value: str, place: str, indexed_by: str, how: str,
                                    others: int) -> None:
    here = in_process("index_purge")
    # (a `vv index` SessionEnd started may still be writing when the folder goes)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env = Env(Path(tmp))
        vv, hook = (env.vv_here, env.hook_here) if here else (env.vv, env.hook)
        # The archive is a raw copy of the transcripts by design (README, Safety).
        env.configure("archive = false\n")
        folder = env.claude / "projects" / "-srv-app"
        folder.mkdir(parents=True)
        # Other sessions in the index: the secret's segment is not the only one.
        for i in range(others):
            sid = f"5ec7e700-0000-4000-8000-00000000000{i}"
            other = Transcript(folder / f"{sid}.jsonl")
            other.add("user", f"unrelated work number {i} on the parser")
            other.add("assistant", [{"type": "text", "text": "Done."}])
            other.path.write_text(other.path.read_text().replace(SID, sid))
            hook({"hook_event_name": "SessionEnd", "session_id": sid,
                      "transcript_path": str(other.path), "reason": "exit"})
        t = Transcript(folder / f"{SID}.jsonl")
        t.says(place, value)
        event = {"session_id": SID, "transcript_path": str(t.path), "cwd": "/srv/app"}
        assert hook({**event, "hook_event_name": "Stop"}).returncode == 0
        if indexed_by == "search":
            found = vv("search", "--json", value)
        else:
            assert hook({**event, "hook_event_name": "SessionEnd",
                             "reason": "exit"}).returncode == 0
            found = vv("search", "--json", value)
        assert SID in found.stdout.decode(), found  # indexed with the value in it
        if how == "learned":
            t.teaches(value)
            assert hook({**event, "hook_event_name": "Stop"}).returncode == 0
            assert hook({**event, "hook_event_name": "SessionEnd",
                             "reason": "exit"}).returncode == 0
            index_alone(env, here)  # (what SessionEnd starts in the background)
            assert vv("search", "--json", "staging").returncode == 0
        else:
            r = vv("forget", SID)
            assert r.returncode == 0, r.stderr
        assert raw_traces(env, value) == []
        assert env.traces(value, SID, here=here) == []


def _detached_index_runs(env: Env) -> list[int]:
    """The `vv index` processes started for this Env's state (by a hook, detached)."""
    import os

    state = f"VV_STATE_DIR={env.state}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"vibe_vault" in cmd and b"index" in cmd and state in environ:
            found.append(int(pid))
    return found


def _purge_owed(env: Env) -> bool:
    import sqlite3

    conn = sqlite3.connect(f"file:{env.state / 'vault.db'}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'purge'").fetchone()
    finally:
        conn.close()
    return row is not None and row[0] == "1"


def _wait(until: object, seconds: float = 120) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if until():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
@settings(max_examples=examples(2, 8), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(secrets, st.sampled_from(["search", "session end", "index"]))
def test_a_purge_the_hook_leaves_to_the_background_is_done(value: str, next_run: str) -> None:
    """SessionEnd leaves the purge a late-learned secret owes to a `vv index`
    it starts detached. That one runs on after the hook has exited and does
    it; when it cannot (another `vv index` holds the lock, or it is killed),
    the purge stays owed in the database and the next run does it: a `vv
    search`, the next SessionEnd (of another session) or `vv index`."""
    from vibe_vault import locations
    from vibe_vault.lock import SessionLock

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env = Env(Path(tmp))
        # The hooks and commands of a case but the first in this process (the
        # `vv index` a SessionEnd starts is a process of its own either way).
        env.here = in_process("index purge background")
        env.configure("archive = false\n")
        folder = env.claude / "projects" / "-srv-app"
        folder.mkdir(parents=True)
        t = Transcript(folder / f"{SID}.jsonl")
        event = {"session_id": SID, "transcript_path": str(t.path), "cwd": "/srv/app"}

        def hooks() -> None:
            for name in ("Stop", "SessionEnd"):
                assert env.hook({**event, "hook_event_name": name,
                                 "reason": "exit"}).returncode == 0

        t.says("answer", value)
        hooks()
        assert SID in env.vv("search", "--json", value).stdout.decode()
        assert raw_traces(env, value)  # indexed: the bytes are in the file
        # 1. The hook exits; the detached `vv index` does the purge after it.
        t.teaches(value)
        hooks()
        assert _wait(lambda: not _purge_owed(env) and not _detached_index_runs(env))
        assert raw_traces(env, value) == []
        # 2. Another secret said, then learned late, its background run kept
        # from the lock (as by another `vv index`, or killed): still owed.
        # (another secret: not the first backwards, which is now one of its
        # spellings kept out, 5831326; each letter and digit one further on)
        value = value.translate(_ONE_ON)
        t.says("answer", value)
        hooks()
        assert raw_traces(env, value)
        with SessionLock(locations.lock_file(env.state, "index"), 30):
            t.add("assistant", [{"type": "tool_use", "id": "t2", "name": "Bash",
                                 "input": {"command": f"export API_TOKEN={value}"}}])
            hooks()
            assert _wait(lambda: not _detached_index_runs(env))  # it gave up
            assert _purge_owed(env)
        # (whether the index's file still holds the bytes depends on FTS5's own
        # merges of small segments: the purge owed is what must stand)
        assert _purge_owed(env)
        # 3. The next run does it.
        if next_run == "search":
            assert env.vv("search", "--json", "staging").returncode == 0
        elif next_run == "index":
            index_alone(env, env.here)
        else:
            other = "5ec7e700-0000-4000-8000-0000000000aa"
            o = Transcript(folder / f"{other}.jsonl")
            o.add("user", "unrelated work on the parser")
            o.path.write_text(o.path.read_text().replace(SID, other))
            assert env.hook({"hook_event_name": "SessionEnd", "session_id": other,
                             "transcript_path": str(o.path), "reason": "exit"}).returncode == 0
        assert _wait(lambda: not _purge_owed(env) and not _detached_index_runs(env))
        assert raw_traces(env, value) == []
        assert env.traces(value, SID) == []
