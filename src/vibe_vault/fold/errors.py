"""Errors: failed tool calls and API errors, and whether the same thing later
succeeded. Feeds the note's Errors section."""

from __future__ import annotations

from vibe_vault import text as tx
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted
from vibe_vault.state import ErrorRec

MAX_ERRORS = 50  # as many as the note shows
ERROR_CHARS = 400
ERROR_LINES = 4  # "Task failed due to the following issue:" says nothing on its own
MAX_FAILED_KEYS = 100
API = Redacted("API")  # the "tool" of an API error
NO_KEY = Redacted("")


def error(ctx: Context, tool: Redacted, text: str, ts: str, key: Redacted = NO_KEY) -> None:
    """Record an error; `key` (a command, a file) is what a later success must repeat."""
    facts = ctx.facts
    facts.errors.append(ErrorRec(tool=tool, text=error_text(ctx, text), ts=ts,
                                 seq=facts.seq, key=key))
    if len(facts.errors) > MAX_ERRORS:
        del facts.errors[0]
        facts.errors_dropped += 1
    if key and (key in facts.failed_keys or len(facts.failed_keys) < MAX_FAILED_KEYS):
        facts.failed_keys[key] = facts.seq


def error_text(ctx: Context, text: str) -> Redacted:
    """An error's first non-empty lines, each collapsed, up to the limits."""
    lines: list[str] = []
    for raw in tx.cut(text, ERROR_CHARS * 4).splitlines():
        line = " ".join(raw.split())
        if line:
            lines.append(line)
        if len(lines) == ERROR_LINES:
            break
    return ctx.text(tx.trim("\n".join(lines), ERROR_CHARS))


def mended(ctx: Context, key: Redacted) -> None:
    """A success of what failed before: those errors later succeeded."""
    facts = ctx.facts
    if not key or key not in facts.failed_keys:
        return
    del facts.failed_keys[key]
    for err in facts.errors:
        if err.key == key:
            err.later_ok = True
