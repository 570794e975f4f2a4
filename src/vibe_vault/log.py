"""One-line diagnostics: to stderr and appended to `<state>/vv.log`.

Never a traceback: hooks run inside Claude Code, where noise costs the user.
"""

from __future__ import annotations

import os
import sys
import time

from vibe_vault import locations

MAX_LOG = 1 << 20  # rotate past 1 MiB so the log never grows without bound
# Set by the command line for a command (never for a hook): notices that a
# command shows on stderr, a hook keeps to the log.
IN_COMMAND = False


def _clean(msg: str) -> str:
    """One line, through the redaction gate: a path or an id a message quotes
    may come from a transcript or a hook's input; and no newline, control
    character or bidi override can forge another line or reorder this one."""
    from vibe_vault.redact import DEFAULT
    from vibe_vault.text import cut, terminal_safe

    # Cut at whitespace before the gate (a token cut in two would pass it), and
    # to its length after it.
    # (Gated before and after the escape: what it drops could unbound a token.)
    return DEFAULT.redact_escaped(cut(msg, 2000),
                                  lambda text: " ".join(terminal_safe(text).split()))[0][:500]


def log_to_file(state_dir: str | os.PathLike[str] | None, level: str, msg: str) -> None:
    if state_dir is None:
        return
    try:
        os.makedirs(state_dir, mode=0o700, exist_ok=True)
        path = locations.log_file(state_dir)
        try:
            if os.lstat(path).st_size > MAX_LOG:
                os.replace(path, locations.old_log_file(state_dir))
        except FileNotFoundError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        line = f"{stamp} {level} pid={os.getpid()} {_clean(msg)}\n"
        # Never through a symlink, never into a FIFO (open_append refuses both).
        from vibe_vault.regular import open_append

        fd = open_append(path)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def warn(state_dir: str | os.PathLike[str] | None, msg: str, *, stderr: bool = True) -> None:
    """A problem the user should know of: one line on stderr and in the log."""
    if stderr:
        try:
            sys.stderr.write(f"vv: {_clean(msg)}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    log_to_file(state_dir, "WARN", msg)


def info(state_dir: str | os.PathLike[str] | None, msg: str) -> None:
    log_to_file(state_dir, "INFO", msg)
