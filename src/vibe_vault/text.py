"""Cleaning transcript text for a note: wrapper tags, base64, length limits."""

from __future__ import annotations

import re

# Tags Claude Code wraps around context it injects into a user message.
_WRAPPERS = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-memory-input"
    r"|local-command-stdout|local-command-stderr|local-command-caveat|command-message"
    r"|bash-stdout|bash-stderr|task-notification|new-diagnostics|context)\b[^>]*>"
    r"[\s\S]*?(?:</\1>|\Z)"
)
_ANY_TAG = re.compile(r"</?[a-z][a-z0-9_-]*(?:\s[^<>]*)?>")
_COMMAND_NAME = re.compile(r"<command-name>\s*([^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>([\s\S]*?)</command-args>")
_DATA_URI = re.compile(r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]{16,}")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}={0,2}")
_SPACES = re.compile(r"[ \t]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u0085]")

# Prompts that carry no topic: never a title.
FILLER = frozenset(
    {
        "continue",
        "go on",
        "go ahead",
        "keep going",
        "yes",
        "y",
        "yep",
        "yeah",
        "no",
        "n",
        "ok",
        "okay",
        "k",
        "sure",
        "thanks",
        "thank you",
        "proceed",
        "do it",
        "done",
        "next",
        "please continue",
        "lgtm",
        "retry",
        "try again",
    }
)


def strip_base64(text: str) -> str:
    if len(text) < 200 and "base64," not in text:
        return text
    text = _DATA_URI.sub("[base64 data]", text)
    return _BASE64_RUN.sub("[base64 data]", text)


def clean(text: str) -> str:
    """Text safe to show: no base64 blobs, no control characters."""
    return _CONTROL.sub(" ", strip_base64(text))


def slash_command(text: str) -> str | None:
    """`/name args` when the text is a slash-command wrapper, else None."""
    m = _COMMAND_NAME.search(text)
    if not m:
        return None
    name = m.group(1).strip()
    if not name.startswith("/"):
        name = "/" + name
    a = _COMMAND_ARGS.search(text)
    args = a.group(1).strip() if a else ""
    return f"{name} {args}".strip()


def strip_wrappers(text: str) -> str:
    """The words a person typed, without the context blocks around them."""
    if "<" not in text:
        return text.strip()
    text = _WRAPPERS.sub("", text)
    text = _ANY_TAG.sub("", text)
    return text.strip()


def one_line(text: str, limit: int) -> str:
    """First non-empty line, collapsed and cut to `limit` characters."""
    for line in text.splitlines():
        line = _SPACES.sub(" ", line).strip()
        if line:
            return trim(line, limit)
    return ""


def trim(text: str, limit: int) -> str:
    """Cut to `limit` characters at a word boundary, marking the cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…"


def is_filler(text: str) -> bool:
    return text.strip().strip(".!?").lower() in FILLER
