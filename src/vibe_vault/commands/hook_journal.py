"""PreToolUse/PostToolUse: append a tiny record to the session's journal.

These run around every tool call, so they parse no transcript, take no lock and
import neither msgspec nor filelock: one small `O_APPEND` write, which POSIX
keeps whole even when several hooks append at once. The next Stop folds the
journal into the note (tool durations).
"""

from __future__ import annotations

import json
import os
import time

TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


def record(data: bytes) -> None:
    now = time.time()
    try:
        event = json.loads(data)
    except ValueError:
        return
    if not isinstance(event, dict):
        return
    sid = event.get("session_id")
    tid = event.get("tool_use_id")
    name = event.get("hook_event_name")
    if not (isinstance(sid, str) and isinstance(tid, str) and sid and tid):
        return
    from vibe_vault.hook_input import session_id_problem
    from vibe_vault.locations import journal_dir, journal_file, state_dir, tool_key

    problem = session_id_problem(sid)
    if problem is not None:  # (it would name the journal file)
        from vibe_vault.log import info

        info(state_dir()[0], f"hook {name if name in TOOL_EVENTS else 'tool event'}: "
             f"{problem}; nothing done")
        return

    rec: dict[str, object] = {"e": "pre" if name == "PreToolUse" else "post", "id": tool_key(tid),
                              "t": round(now, 3)}
    ms = event.get("duration_ms")
    if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms >= 0:
        rec["ms"] = int(ms)
    if name == "PostToolUseFailure":
        rec["fail"] = 1
    line = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
    root, _ = state_dir()
    journal = journal_dir(root)
    # makedirs gives `mode` to the last directory only: the state root is made
    # first, so it is private too when this is the first event ever seen.
    os.makedirs(root, mode=0o700, exist_ok=True)
    os.makedirs(journal, mode=0o700, exist_ok=True)
    if os.path.islink(journal):
        return  # never write outside the state directory; the next Stop sets it aside
    path = journal_file(root, sid)
    from vibe_vault.regular import open_append

    fd = open_append(path)  # (a FIFO or a symlink there is refused, never waited on)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
