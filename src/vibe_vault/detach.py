"""Start a `vv` command detached from the hook that asks for it: its own
session, no stdin, stdout or stderr of Claude Code's, so the hook returns at once."""

from __future__ import annotations

import os
import subprocess
import sys

from vibe_vault.config import Config


def run_detached(cfg: Config, *args: str) -> None:
    """`vv ARGS...` in the background, on this config's state and vault."""
    kwargs: dict[str, object] = {}
    if os.name == "nt":  # pragma: no cover - Windows
        kwargs["creationflags"] = 0x00000008 | 0x00000200  # DETACHED, NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    env = dict(os.environ, VV_STATE_DIR=cfg.state_dir, VV_VAULT=cfg.vault)
    subprocess.Popen(
        [sys.executable, "-m", "vibe_vault", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=True, env=env, **kwargs)  # type: ignore[call-overload]
