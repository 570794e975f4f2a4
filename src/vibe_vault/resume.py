"""How to pick a session up again: `cd <its folder> && claude --resume <id>`.

The line is pasted into a shell, so every part of it is quoted for one: the
folder exactly as the transcript recorded it (spaces, tabs, quotes, `$(…)`,
backticks, a Windows path), never run and never changed. A folder holding a
newline, a tab or another control character is written `$'…'` (bash, zsh,
ksh and POSIX sh since 2024 read it), so the line stays one line.
"""

from __future__ import annotations

import re

from vibe_vault import patterns

# What shlex.quote leaves unquoted: a word of these characters alone. (Its
# test, not shlex: importing shlex compiled this pattern anew at every Stop,
# ~1.3 M instructions, for the note's one resume line.)
_UNSAFE = patterns.compile(r"[^\w@%+=:,./-]", re.ASCII)
# What `$'…'` writes with a backslash; any other control character as its bytes.
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def shell_quote(text: str) -> str:
    """`text` as one word for a POSIX shell, on one line."""
    if text.isprintable():
        # (shlex.quote, word for word)
        if not text:
            return "''"
        if _UNSAFE.search(text) is None:
            return text
        return "'" + text.replace("'", "'\"'\"'") + "'"
    return "$'" + "".join(_ESCAPES.get(c) or _escaped(c) for c in text) + "'"


def _escaped(char: str) -> str:
    """A character as `$'…'` writes it: itself when printable, else its UTF-8
    bytes (what the folder's name is made of, whatever the shell's locale)."""
    if char.isprintable():
        return char
    return "".join(f"\\x{b:02x}" for b in char.encode("utf-8", "surrogateescape"))


def resume_command(cwd: str, session_id: str) -> str:
    """The shell command that resumes the session where it ran."""
    resume = f"claude --resume {shell_quote(session_id)}"
    if not cwd:
        return resume
    # A folder named like an option (`-experiments/worktrees`) is not one: `--`.
    return f"cd {'-- ' if cwd.startswith('-') else ''}{shell_quote(cwd)} && {resume}"
