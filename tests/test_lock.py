"""Session locks: one holder at a time (fcntl, or filelock without it), a
fixed set of shared lock files naming no session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


# Hiding fcntl hides it from filelock too, which then warns it has only a soft
# lock; on Windows it uses msvcrt and says nothing.
@pytest.mark.filterwarnings("ignore:only soft file lock")
def test_lock_falls_back_to_filelock_without_fcntl(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Where fcntl does not exist (Windows), filelock takes the same role:
    one holder at a time, a timeout, release on exit."""
    import sys

    from vibe_vault.lock import LockTimeout, SessionLock

    monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` now fails
    path = tmp_path / "s.lock"
    with SessionLock(path, 1.0) as held:
        assert held._fallback is not None
        with pytest.raises(LockTimeout), SessionLock(path, 0.05):
            pass
    with SessionLock(path, 0.05):
        pass  # released: free again


def test_a_session_lock_excludes_while_held_and_keeps_its_file(tmp_path: Path) -> None:
    import threading

    from vibe_vault.lock import LockTimeout, SessionLock

    path = tmp_path / "s.lock"
    with SessionLock(path, 1.0), pytest.raises(LockTimeout), SessionLock(path, 0.05):
        pass
    # kept for the next holder: a file deleted per session slows every later create
    assert path.exists()
    # many holders in turn: never two at once
    inside: list[int] = []
    overlaps: list[int] = []

    def worker() -> None:
        for _ in range(30):
            with SessionLock(path, 10.0):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(1)
                inside.pop()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not overlaps


def test_sessions_share_a_fixed_set_of_lock_files(tmp_path: Path) -> None:
    """One of 256 files per session id, the same every time, naming no session."""
    import uuid

    from vibe_vault.lock import SLOTS, slot_path

    sids = [str(uuid.UUID(int=i * 7919 + 1, version=4)) for i in range(5000)]
    paths = {slot_path(tmp_path, sid) for sid in sids}
    assert len(paths) == SLOTS == 256  # spread over every slot
    assert slot_path(tmp_path, sids[0]) == slot_path(str(tmp_path), sids[0])
    assert all(os.path.dirname(p) == str(tmp_path / "locks") for p in paths)
    assert not any(sid in p for p in paths for sid in sids[:50])
    assert slot_path(tmp_path, sids[0], "archive") != slot_path(tmp_path, sids[0])
    assert slot_path(tmp_path, "odd\udcff id")  # any string, even a lone surrogate
