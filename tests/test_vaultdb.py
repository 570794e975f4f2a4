"""Many processes meeting a missing database at once: each must end with the
one database the first made, none deleting it from under the others."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
from pathlib import Path

from vibe_vault import vaultdb


def _open_and_write(state_dir: str, start: multiprocessing.synchronize.Event,
                    key: str) -> None:
    start.wait()
    conn = vaultdb.connect(state_dir, timeout=30)
    with vaultdb.transaction(conn):
        vaultdb.set_meta(conn, key, "written")
    conn.close()


def test_processes_creating_the_database_together_keep_every_write(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for trial in range(5):
        state_dir = str(tmp_path / f"state{trial}")
        os.makedirs(state_dir)
        start = ctx.Event()
        keys = [f"writer{i}" for i in range(6)]
        procs = [ctx.Process(target=_open_and_write, args=(state_dir, start, k)) for k in keys]
        for p in procs:
            p.start()
        start.set()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0] * len(procs)
        conn = vaultdb.connect(state_dir)
        # Every writer's row is in the database that stands: none was deleted.
        assert [vaultdb.meta(conn, k) for k in keys] == ["written"] * len(keys)
        conn.close()
