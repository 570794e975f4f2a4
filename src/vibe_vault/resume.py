"""How to pick a session up again: `cd <its folder> && claude --resume <id>`."""

from __future__ import annotations

import re
import shlex


def resume_command(cwd: str, session_id: str) -> str:
    """The shell command that resumes the session where it ran."""
    resume = f"claude --resume {shlex.quote(session_id)}"
    if not cwd:
        return resume
    folder = f'"{cwd}"' if re.match(r"^[A-Za-z]:[\\/]", cwd) else shlex.quote(cwd)
    return f"cd {folder} && {resume}"
