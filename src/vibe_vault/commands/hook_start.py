"""SessionStart: optionally tell Claude what the project's last session left open.

Only with `inject_context = true`: this is the one event where the hook writes
stdout, in the JSON form Claude Code documents for SessionStart
(`hookSpecificOutput.additionalContext`), at most 2,000 characters.
"""

from __future__ import annotations

import sys
from typing import Any

MAX_CONTEXT = 2000
RECALL = ("Earlier sessions can be searched: `vv search --json WORDS` (or `vv files --json "
          "PATH` for a file's history); the recall skill says how.")


def context_for(cfg: Any, cwd: str, session_id: str) -> str:
    import sqlite3

    from vibe_vault import registry
    from vibe_vault.project import project_name
    from vibe_vault.times import started_line

    project = project_name(cwd)
    try:
        conn = registry.connect(cfg, timeout=0.5, fill=False)  # a hook builds no registry
    except (registry.NotReady, sqlite3.Error, OSError):
        return ""  # being built, or busy (a backfill): no context this time, as at SessionEnd
    try:
        last = registry.latest_of_project(conn, project, session_id)
    except sqlite3.Error:
        return ""
    finally:
        conn.close()
    if last is None:
        return ""
    lines = [f"vibe-vault: the previous Claude Code session in {project} "
             f"({started_line(last.started)}) was “{last.title}”"
             + ("" if last.title.endswith((".", "!", "?", "…")) else "."),
             f"Summary: {last.summary}"]
    if last.open_tasks:
        lines.append("Left open:")
        lines.extend(f"- {t}" for t in last.open_tasks[:15])
    lines.append(f"Its note: {last.note} in the vault {cfg.vault}")
    text = "\n".join(lines)
    if len(text) > MAX_CONTEXT - len(RECALL) - 1:
        text = text[: MAX_CONTEXT - len(RECALL) - 2] + "…"
    return text + "\n" + RECALL


def run(event: dict[str, Any], cfg: Any) -> None:
    if not cfg.get("inject_context"):
        return
    cwd = event.get("cwd")
    sid = event.get("session_id")
    if not isinstance(cwd, str) or not cwd:
        return
    from vibe_vault.hook_input import session_id_problem

    # (the id only leaves this session out of the lookup: a bad one is no id)
    text = context_for(cfg, cwd, sid if isinstance(sid, str) and session_id_problem(sid) is None
                       else "")
    if not text:
        return
    import msgspec

    out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    sys.stdout.write(msgspec.json.encode(out).decode() + "\n")
    sys.stdout.flush()
