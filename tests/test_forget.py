"""`vv forget` racing the writers of the same session (issue 28): real `vv hook`
subprocesses (Stop, SessionEnd) and a `vv backfill`, started around the forget
at moments drawn per trial. The oracle is outside the code under test: no file
of the vault or the state names the session (its tombstone aside), no row of
the database holds its id, and `vv search` for words of its first prompt (read
from the transcript's JSON) finds nothing of it."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Env
from test_hook_contract import SESSION, SID, place, stop

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus


def _prompt_words(transcript: Path) -> list[str]:
    """Words of the session's first prompt, from the JSON: what a search finds it by."""
    import re

    for line in transcript.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        msg = obj.get("message") if isinstance(obj, dict) else None
        if obj.get("type") != "user" or not isinstance(msg, dict):
            continue
        content = msg.get("content")
        text = content if isinstance(content, str) else " ".join(
            c.get("text", "") for c in content or [] if isinstance(c, dict))
        words = re.findall(r"[A-Za-z]{6,}", text)
        if len(words) >= 2:
            return words[:2]
    raise AssertionError("no prompt with words in the transcript")


def _background(env: Env, *args: str, stdin: bytes = b"") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", *args], env=env.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    return proc


def _files_naming(env: Env, sid: str) -> list[str]:
    hits = []
    for root in (env.vault, env.state):
        for p in root.rglob("*"):
            if not p.is_file() or p.parent.name == "forgotten" or p.name.startswith("vault.db"):
                continue
            if sid.encode() in p.read_bytes() or sid[:8] in p.name:
                hits.append(str(p))
    return hits


def _rows_naming(env: Env, sid: str) -> list[str]:
    """Tables of the database with a value holding the session's id."""
    db = env.state / "vault.db"
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        found = []
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            try:
                rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            except sqlite3.Error:
                continue  # an FTS shadow table the module reads itself
            for row in rows:
                if any(sid in v if isinstance(v, str) else
                       isinstance(v, bytes) and sid.encode() in v for v in row):
                    found.append(table)
                    break
        return found
    finally:
        conn.close()


def _found_by_search(env: Env, words: list[str], sid: str) -> bool:
    r = env.vv("search", *words, "--json")
    assert r.returncode == 0, r.stderr
    return any(sid in json.dumps(hit) or sid[:8] in json.dumps(hit)
               for hit in json.loads(r.stdout))


def _runs_on(env: Env) -> list[int]:
    """The `vv` processes still at work on this home (the detached `vv index` and
    `vv archive --pending` a hook starts among them), by the state folder in
    their environment (none where there is no /proc to list them)."""
    import os

    mark = f"VV_STATE_DIR={env.state}".encode() + b"\0"
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return []
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark in f.read():
                    found.append(pid)
        except OSError:
            continue  # (ended meanwhile, or not ours)
    return found


def _left_of(env: Env, sid: str, words: list[str]) -> dict[str, object]:
    """Everything of the session still anywhere, once the detached runs a
    SessionEnd starts (index, archive) are done (they too must leave nothing).
    They are waited for, not given a time: on a loaded machine one took longer
    than the 1.5 s this once slept (where there is no /proc to list them, 1.5 s still)."""
    import os

    if os.path.isdir("/proc/self"):
        give_up = time.monotonic() + 120
        while _runs_on(env) and time.monotonic() < give_up:
            time.sleep(0.1)
        assert not _runs_on(env), "a detached run still at work after 120 s"
    else:
        time.sleep(1.5)
    left = {"files": _files_naming(env, sid), "rows": _rows_naming(env, sid),
            "search": _found_by_search(env, words, sid)}
    return {k: v for k, v in left.items() if v}


def _hooks_race(env: Env, rng: random.Random, target: Path, words: list[str]) -> bool:
    """One trial: hooks before and after a forget, at moments drawn by `rng`;
    whether the forget found the session busy and was run again."""
    assert env.hook(stop(SID, target)).returncode == 0
    assert _found_by_search(env, words, SID)  # the oracle sees the session before
    stop_event = json.dumps(stop(SID, target)).encode()
    end_event = json.dumps({**stop(SID, target), "hook_event_name": "SessionEnd",
                            "reason": "other"}).encode()
    hooks = []
    for _ in range(rng.randint(2, 5)):
        hooks.append(_background(env, "hook", stdin=rng.choice([stop_event, end_event])))
        time.sleep(rng.uniform(0, 0.15))
    forget = _background(env, "forget", SID)
    for _ in range(rng.randint(1, 4)):
        time.sleep(rng.uniform(0, 0.2))
        hooks.append(_background(env, "hook", stdin=rng.choice([stop_event, end_event])))
    for h in hooks:
        assert h.wait(90) == 0
        assert h.stdout is not None and h.stdout.read() == b""
    code, err = forget.wait(90), forget.stderr.read()  # type: ignore[union-attr]
    busy = code == 1 and b"is busy" in err
    if busy:
        # On a loaded machine the hooks ahead of it (each waiting up to 30 s for
        # the lock, and holding it seconds) can outlast forget's own 30 s wait:
        # then it says so, its tombstone stays, and the user forgets again, as
        # it tells them to. What was written meanwhile is what the oracle reads.
        again = env.vv("forget", SID)
        code, err = again.returncode, again.stderr
    assert code == 0, err
    assert env.hook(stop(SID, target)).returncode == 0  # later events write nothing either
    return busy


def test_forget_racing_real_hooks_leaves_nothing(tmp_path: Path, thorough: bool) -> None:
    """Trials of `vv forget` amid 3 to 9 `vv hook` processes of the same
    session (4 here, 40 with --slow), each in a fresh home."""
    trials = 40 if thorough else 4
    words = _prompt_words(SESSION)
    busy = 0
    for seed in range(trials):
        env = Env(tmp_path / f"trial-{seed}")
        env.configure("lock_timeout = 30\n")
        target = place(env)
        busy += _hooks_race(env, random.Random(seed), target, words)
        assert _left_of(env, SID, words) == {}, seed
        assert env.notes() == {}, seed
    print(f"{trials} trials of forget racing hooks: nothing left "
          f"({busy} forgets found the session busy and were run again)")


def test_forget_racing_backfill_leaves_nothing(tmp_path: Path, thorough: bool) -> None:
    """A backfill over several sessions, the forget of one landing at a moment
    drawn per trial (2 here, 12 with --slow): nothing of it is written back,
    the others all are."""
    from test_backfill import SMALL, lay_out

    alone = Env(tmp_path / "alone")  # what a backfill of the others alone writes
    lay_out(alone, SMALL[:5])
    assert alone.vv("backfill").returncode == 0
    expected = len(alone.notes())
    assert expected > 0
    words = _prompt_words(SESSION)
    trials = 12 if thorough else 2
    for seed in range(trials):
        rng = random.Random(1000 + seed)
        env = Env(tmp_path / f"trial-{seed}")
        lay_out(env, SMALL[:5])
        env.configure("lock_timeout = 30\n")
        target = place(env)
        if rng.random() < 0.5:  # known already (a hook ran before), or not yet
            assert env.hook(stop(SID, target)).returncode == 0
        backfill = _background(env, "backfill", "--force")
        time.sleep(rng.uniform(0, 1.5))
        r = env.vv("forget", SID)
        assert r.returncode == 0, r.stderr
        assert backfill.wait(300) == 0, backfill.stderr.read()  # type: ignore[union-attr]
        assert env.vv("backfill").returncode == 0  # the tombstone keeps it out
        assert _left_of(env, SID, words) == {}, seed
        assert len(env.notes()) == expected, seed  # every other session kept its note
    print(f"{trials} trials of forget racing backfill: nothing left")
