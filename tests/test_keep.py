"""Nothing the user wrote is lost, whatever races or damage (issue 28):
`vv forget` against hooks, ids that are not session ids, bounded arguments."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Env
from test_hook_contract import SID, place, stop


def _traces(env: Env, sid: str) -> list[str]:
    """Files of the vault and state that name the session (the tombstone aside)."""
    hits = []
    for root in (env.vault, env.state):
        for p in root.rglob("*"):
            if not p.is_file() or p.parent.name == "forgotten":
                continue
            if sid.encode() in p.read_bytes() or sid[:8] in p.name:
                hits.append(str(p))
    return hits


def _background(env: Env, *args: str, stdin: bytes = b"") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", *args], env=env.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    return proc


@pytest.mark.corpus
def test_a_hook_waiting_for_the_lock_while_forget_runs_writes_nothing(env: Env) -> None:
    """A Stop that found no tombstone, then waited for the session's lock while
    `vv forget` ran, must not bring the note back (before: forget took no lock,
    the hook looked for the tombstone only before waiting)."""
    import json

    from vibe_vault.lock import SessionLock
    from vibe_vault.session import Store

    (env.root / "config.toml").write_text("lock_timeout = 30\nhook_deadline = 30\n")
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    assert len(env.notes()) == 1
    store = Store(str(env.state))
    with SessionLock(store.lock_path(SID), 5.0):
        hook = _background(env, "hook", stdin=json.dumps(stop(SID, target)).encode())
        time.sleep(1.0)  # the hook is past its first tombstone check, waiting
        forget = _background(env, "forget", SID)
        deadline = time.monotonic() + 10
        while not (env.state / "forgotten" / SID).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (env.state / "forgotten" / SID).exists()
    assert hook.wait(60) == 0 and forget.wait(60) == 0, forget.stderr.read()  # type: ignore[union-attr]
    assert env.hook(stop(SID, target)).returncode == 0
    assert env.notes() == {}
    assert _traces(env, SID) == []


@pytest.mark.corpus
@pytest.mark.parametrize("trial", range(3))
def test_forget_racing_a_stream_of_hooks_leaves_nothing(env: Env, trial: int) -> None:
    import json

    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    event = json.dumps(stop(SID, target)).encode()
    end = json.dumps({**stop(SID, target), "hook_event_name": "SessionEnd",
                      "reason": "other"}).encode()
    hooks = [_background(env, "hook", stdin=end if i % 2 else event) for i in range(4)]
    time.sleep(0.05 * trial)
    r = env.vv("forget", SID)
    hooks += [_background(env, "hook", stdin=event) for _ in range(2)]
    for h in hooks:
        assert h.wait(60) == 0
    assert r.returncode == 0, r.stderr
    assert env.notes() == {}
    assert _traces(env, SID) == []
    assert SID.encode() not in env.vv("stats", "--json").stdout


@pytest.mark.corpus
@pytest.mark.parametrize("given", ["..", "%", "*", "", "a/b", "../etc", "-x", ".hidden",
                                   "x" * 300, "abc\x01def"])
def test_forget_refuses_what_is_not_a_session_id(env: Env, given: str) -> None:
    place(env)
    assert env.vv("backfill").returncode == 0
    before = env.notes()
    r = env.vv("forget", "--", given)
    assert r.returncode == 2
    assert r.stderr.count(b"\n") == 1 and b"Traceback" not in r.stderr
    assert env.notes() == before
    assert not (env.state / "forgotten").exists() or not any((env.state / "forgotten").iterdir())


@pytest.mark.parametrize("args", [
    ("search", "x", "--limit", "99999999999999999999999"),
    ("search", "x", "--limit", "-5"),
    ("search", "--file", "a.py", "--limit", "0"),
    ("stats", "--top", "99999999999999999999999"),
    ("stats", "--top", "١٢"),  # digits, but not ASCII ones
    ("backfill", "--jobs", "99999999999999999999999"),
])
def test_numbers_out_of_range_are_one_line_of_usage(env: Env, args: tuple[str, ...]) -> None:
    r = env.vv(*args)
    assert r.returncode == 2, r.stderr
    assert b"Traceback" not in r.stderr and b"from " in r.stderr


@pytest.mark.corpus
@pytest.mark.parametrize("args", [
    ("files", b"caf\xe9.py"), ("show", b"\xff\xfe"), ("resume", b"\xc3"),
    ("search", b"\xff"), ("forget", b"\xffabc"), ("search", "x", "--project", b"\xff"),
    ("stats", "--since", b"2026\xff"),
])
def test_undecodable_arguments_are_one_line(env: Env, args: tuple[str | bytes, ...]) -> None:
    place(env)
    assert env.vv("backfill").returncode == 0
    r = subprocess.run([os.fsencode(sys.executable), b"-m", b"vibe_vault",
                        *[a if isinstance(a, bytes) else a.encode() for a in args]],
                       env=env.env, capture_output=True, timeout=60, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count(b"\n") == 1 and b"not valid UTF-8" in r.stderr


@pytest.mark.corpus
def test_a_transcript_path_that_is_not_utf8_is_one_line(env: Env) -> None:
    """The database keeps paths as text: a folder named with other bytes is
    refused in one line (it was a traceback from SQLite)."""
    import shutil

    from test_hook_contract import SESSION

    folder = Path(os.fsdecode(bytes(env.root) + b"/odd\xff"))
    folder.mkdir()
    shutil.copyfile(SESSION, folder / f"{SID}.jsonl")
    r = env.vv("backfill", str(folder))
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1, r.stderr
    assert b"PATHS is not valid UTF-8" in r.stderr
