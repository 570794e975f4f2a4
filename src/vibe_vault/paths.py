"""File names made safe, and writes kept inside their root.

Session ids, project names and titles come from transcripts and hook input, so
they may hold `..`, separators, NUL, control characters, drive letters or
Windows device names. Nothing derived from them may leave the vault or state
directory, whatever they contain.
"""

from __future__ import annotations

import os
import re
from functools import cache, lru_cache

from vibe_vault import patterns

# Characters no file name may hold on some OS, that would end or split an
# Obsidian link to it ([[ ]] | # ^), or that are controls or bidi overrides.
_UNSAFE = (r'[\x00-\x1f\x7f-\x9f<>:"/\\|?*\[\]#^\u2028\u2029\u061c\u200e\u200f'
           r"\u202a-\u202e\u2066-\u2069]+")
_UNSAFE_PRINTED = '<>:"/\\|?*[]#^'
# Windows device names, as a name or a stem.
_RESERVED = r"(?i)^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?$"
_RESERVED_STARTS = ("con", "prn", "aux", "nul", "com", "lpt")
_UUIDISH = patterns.compile(r"^[A-Za-z0-9_-]{1,128}$")


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compiled on first use: these cost 0.1-0.3 ms each to compile, and most
    runs never use them (a Stop names no new file and seldom meets a
    scratchpad path)."""
    return patterns.compile(pattern)


def _reserved(name: str) -> bool:
    return name[:3].lower() in _RESERVED_STARTS and bool(_compiled(_RESERVED).match(name))


def _cleaned(name: str) -> str:
    """`name` with each run of unsafe characters a dash, no dashes, dots or
    spaces at either end, and no two dashes in a row."""
    # (A name that prints whole and has none of the other characters, as a
    # project's name mostly is, needs no pattern compiled: every character
    # _UNSAFE names that is not one of those Python does not print.)
    if name.isprintable() and not any(c in name for c in _UNSAFE_PRINTED):
        cleaned = name.strip(" .-")
    else:
        cleaned = _compiled(_UNSAFE).sub("-", name).strip(" .-")
    while "--" in cleaned:
        cleaned = cleaned.replace("--", "-")
    return cleaned


def safe_name(name: str, limit: int = 80, fallback: str = "unknown") -> str:
    """A single path component that is valid on every OS and cannot traverse."""
    cleaned = _cleaned(name)
    if not cleaned:
        cleaned = fallback
    if _reserved(cleaned):
        cleaned = "_" + cleaned
    if len(cleaned.encode("utf-8")) > limit or (cleaned != name and len(name) > limit):
        digest = _digest(name, 8)
        cut = cleaned.encode("utf-8")[: limit - 9].decode("utf-8", "ignore").rstrip(" .-")
        cleaned = f"{cut}-{digest}"
    return cleaned


def safe_id(session_id: str) -> str:
    """The session id as a file stem: itself when harmless, else a safe variant."""
    if _UUIDISH.match(session_id) and not _reserved(session_id):
        return session_id
    digest = _digest(session_id, 12)
    return f"{safe_name(session_id, 60, 'session')}-{digest}"


def _digest(text: str, n: int) -> str:
    import hashlib  # only for unusual names: it costs the hook ~2 ms to import

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """True when `path` (resolved through any symlinks) stays under `root`."""
    try:
        real_root = os.path.realpath(root)
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def is_windows_path(path: str) -> bool:
    # (String tests, not re.match: a note asks it hundreds of times.)
    return (path[1:2] == ":" and path[2:3] in ("\\", "/") and path[:1].isascii()
            and path[:1].isalpha()) or path.startswith("\\\\")


def split_path(path: str) -> list[str]:
    """Components of a POSIX or Windows path."""
    return [c for c in path.replace("\\", "/").split("/") if c]


@lru_cache(maxsize=4096)  # a note names the same paths many times
def relative_to(path: str, base: str) -> str:
    """`path` relative to `base` when it lies under it, else `path` unchanged."""
    if not base:
        return path
    if path.startswith(base) and path[len(base) : len(base) + 1] == "/" and base.startswith("/"):
        return path[len(base) + 1 :]  # the common case, without splitting
    win = is_windows_path(path) or is_windows_path(base)
    # A path under `base` holds its last folder's name (most paths not under
    # it are told by that, without splitting either).
    tail = base.rstrip("/\\")
    last = tail[max(tail.rfind("/"), tail.rfind("\\")) + 1:]
    if last and (last.lower() not in path.lower() if win else last not in path):
        return path
    pc, bc = split_path(path), split_path(base)
    if win:
        same = [a.lower() for a in pc[: len(bc)]] == [b.lower() for b in bc]
    else:
        same = pc[: len(bc)] == bc and path.startswith("/") == base.startswith("/")
    if same and len(pc) > len(bc):
        return "/".join(pc[len(bc):])
    return path


# Claude Code's scratch folder for a session: /private/tmp/claude-501/<slug>/<id>/
# scratchpad/ on macOS, /tmp/claude-<uid>/… on Linux, under $TMPDIR elsewhere.
_SCRATCH = (r"""(?<![^\s'"`=(:])(?:[A-Za-z]:)?[/\\](?:[^\s'"`/\\]+[/\\])*?"""
            r"""claude[^\s'"`/\\]*[/\\](?:[^\s'"`/\\]+[/\\])*?scratchpad(?=[/\\])""")
_BOUNDARY = r"""(?<![^\s'"`=(:])"""


@lru_cache(maxsize=64)
def _under(base: str) -> re.Pattern[str]:
    flags = re.IGNORECASE if is_windows_path(base) else 0
    return re.compile(_BOUNDARY + re.escape(base.rstrip("/\\")) + r"[/\\](?=\S)", flags)


# What may come before a path of the folder's (`_BOUNDARY`), besides whitespace.
_BEFORE = frozenset("'\"`=(:")


def _left_out(text: str, base: str) -> str:
    """`_under(base).sub("", text)` for a POSIX folder (matched case by case),
    found with str.find: the pattern made of the folder's name was compiled
    by `re` in every process that showed a path (~0.7 M instructions of a
    Stop; a folder's name is no pattern the package keeps compiled)."""
    folder = base.rstrip("/\\")
    size = len(folder)
    kept: list[str] = []
    copied = 0  # text[:copied] is in `kept`, or left out
    at = text.find(folder)
    while at >= 0:
        end = at + size
        before = text[at - 1] if at else ""
        if (end + 1 < len(text) and text[end] in "/\\" and not text[end + 1].isspace()
                and (not before or before in _BEFORE or before.isspace())):
            kept.append(text[copied:at])
            copied = end + 1
            at = text.find(folder, copied)
        else:
            at = text.find(folder, at + 1)
    if not copied:
        return text
    kept.append(text[copied:])
    return "".join(kept)


def shown_path(path: str, base: str) -> str:
    """A path as a person recognises it: relative to the session's folder when
    under it, Claude Code's scratch folder as `scratchpad/…`."""
    path = relative_to(path, base)
    return readable(path, "") if "scratchpad" in path else path


def readable(text: str, base: str) -> str:
    """A command or message with the session's folder left out of the paths
    under it, and Claude Code's scratch folder shortened to `scratchpad`."""
    if base.rstrip("/\\") and (base in text or (is_windows_path(base)
                                                and base.lower() in text.lower())):
        text = _under(base).sub("", text) if is_windows_path(base) else _left_out(text, base)
    if "scratchpad" in text:
        text = _compiled(_SCRATCH).sub("scratchpad", text)
    return text


# Where a shell reads a word as the command to run: at the start, after an
# operator or a keyword that runs what follows (review 26 #22).
_COMMAND_AT = (r"(?:^|&&|\|\||[;|&(\n{]|\$\(|`|"
               r"(?<![\w-])(?:then|do|else|exec|sudo|time|nohup|xargs|env|!)[ \t])[ \t]*")


@lru_cache(maxsize=64)
def _run_here(folder: str) -> re.Pattern[str]:
    return re.compile(r"(" + _COMMAND_AT + r")" + re.escape(folder)
                      + r"""(?=/[^\s/;&|()<>'"`]+(?:[\s;&|)<>`]|$))""")


def runnable(command: str, base: str) -> str:
    """`readable` for a shell command: a program the session's folder holds,
    run by its path (`&& /tmp/x/hello.sh`), keeps `./` (`./hello.sh`): a bare
    `hello.sh` in command position is looked up on PATH, another command."""
    folder = base.rstrip("/\\")
    if folder and not is_windows_path(base) and folder in command:
        command = _run_here(folder).sub(r"\1.", command)
    return readable(command, base)
