"""Line fingerprints in the state are keyed with the vault's own random key
(issue 27): an unkeyed 64-bit checksum of a short line (a password's) is
found again by trying lines, so the state keeps blake2b of each line under a
key made once in `<state>/line-key` (0600), never in a state.

Oracle: the fingerprints the state holds, computed by the test itself from
the lines it wrote (blake2b with the key file's bytes, as the docstring of
linediff says): they are there, and no unkeyed checksum of those lines is.
"""

from __future__ import annotations

import hashlib
import os
import stat
import string
import subprocess
import sys
import tempfile
import zlib
from array import array
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_shell_secrets import _assistant, _lines, _result

SID = "5ec7e700-0000-4000-8000-00000000006b"


def _session(path: str, content: str) -> list[dict[str, Any]]:
    return [{"type": "user", "message": {"role": "user", "content": "write the config"}},
            _assistant(1, {"type": "tool_use", "id": "w1", "name": "Write",
                           "input": {"file_path": path, "content": content}}),
            _result("w1", "File created successfully"),
            _assistant(2, {"type": "text", "text": "Written."})]


def _unkeyed(line: bytes) -> bytes:
    return array("Q", [zlib.crc32(line) << 32 | zlib.adler32(line)]).tobytes()


def _keyed(key: bytes, line: bytes) -> bytes:
    return hashlib.blake2b(line, key=key[:64], digest_size=8).digest()


short_lines = st.text(string.ascii_letters + string.digits + "!@#%", min_size=4,
                      max_size=12).map(lambda v: f"pw={v}")


@settings(max_examples=examples(3, 12), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(short_lines, min_size=1, max_size=4, unique=True))
def test_the_states_fingerprints_are_keyed_with_the_vaults_key(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        env.here = in_process("line_key states")  # (the first case's hooks as processes)
        slug = env.claude / "projects" / "-srv-app"
        slug.mkdir(parents=True)
        transcript = slug / f"{SID}.jsonl"
        content = "\n".join(lines) + "\n"
        transcript.write_bytes(b"\n".join(_lines(SID, _session("/srv/app/app.ini", content)))
                               + b"\n")
        r = env.hook({"hook_event_name": "Stop", "session_id": SID,
                      "transcript_path": str(transcript), "cwd": "/srv/app"})
        assert r.returncode == 0, r.stderr
        key_file = env.state / "line-key"
        mode = os.lstat(key_file).st_mode
        assert stat.S_ISREG(mode) and stat.S_IMODE(mode) == 0o600
        key = key_file.read_bytes()
        assert len(key) == 32
        states = [p.read_bytes() for p in env.state.rglob("*.state")]
        assert states
        for line in lines:
            raw = (line + "\n").encode()
            assert any(_keyed(key, raw) in s for s in states), line  # the oracle's own
            assert not any(_unkeyed(raw) in s for s in states), line
            assert not any(key in s for s in states)
        # The key is made once: a second hook keeps it.
        assert env.hook({"hook_event_name": "Stop", "session_id": SID,
                         "transcript_path": str(transcript), "cwd": "/srv/app"}).returncode == 0
        assert key_file.read_bytes() == key


def test_processes_racing_to_make_the_key_agree() -> None:
    """Eight processes meeting no key at once all end up with the one key."""
    with tempfile.TemporaryDirectory() as tmp:
        code = ("import sys; from vibe_vault import line_key; "
                "sys.stdout.write(line_key.load(sys.argv[1]).hex())")
        procs = [subprocess.Popen([sys.executable, "-c", code, tmp], stdout=subprocess.PIPE,
                                  env=dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", "")))
                 for _ in range(8)]
        keys = {p.communicate(timeout=60)[0] for p in procs}
        assert len(keys) == 1 and len(keys.pop()) == 64
        assert sorted(os.listdir(tmp)) == ["line-key"]  # nothing made aside is left


def test_a_state_of_another_key_keeps_its_counts_and_drops_its_fingerprints() -> None:
    """A state whose fingerprints were made unkeyed (an older version) is
    folded on under the vault's key: its files' net lines stay what they
    were, and none of its old fingerprints is compared or kept."""
    from vibe_vault import linediff
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold

    content = "a = 1\nb = 2\npw=hunter22\n"
    first = [decode_line(x) for x in _lines("s" * 8, _session("/srv/app/app.ini", content))]
    facts = Fold()
    fold(facts, first)
    before = {p: (c.added, c.removed) for p, c in facts.files.items()}
    assert before and facts.lines_key == linediff.key_id()
    old_id = linediff.key_id()
    try:
        linediff.use_key(os.urandom(32))
        assert linediff.key_id() != old_id
        fold(facts, [])
        assert {p: (c.added, c.removed) for p, c in facts.files.items()} == before
        assert all(not c.known and not c.base and not c.now for c in facts.files.values())
        assert facts.lines_key == linediff.key_id()
    finally:
        linediff.use_key(b"")
