"""What a session is called, and Claude Code's own recaps of it.

Feeds the note's title (`figures.title_of`: custom-title > ai-title > the
session's own summary > recap > first real prompt > opening slash command)
and its summary line.
"""

from __future__ import annotations

from vibe_vault import text as tx
from vibe_vault.entries import Entry, decode_raw
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted

MAX_FOREIGN_SUMMARIES = 20
RECAP_CHARS = 400
TITLE_CHARS = 80
# Built-in slash commands that say nothing of what a session is about: never a title.
TOPICLESS_COMMANDS = frozenset(
    {"/clear", "/exit", "/quit", "/compact", "/cost", "/help", "/status", "/config",
     "/model", "/resume", "/login", "/logout", "/doctor", "/memory", "/permissions",
     "/hooks", "/mcp", "/context", "/usage", "/statusline", "/theme", "/vim", "/ide",
     "/terminal-setup", "/add-dir", "/agents", "/bashes", "/export", "/release-notes",
     "/rewind", "/todos", "/upgrade", "/privacy-settings", "/output-style", "/plugin",
     "/fast", "/effort", "/keybindings", "/feedback", "/bug", "/rename", "/tasks"})
RECAP_HINT = "(disable recaps in /config)"


def on_summary(ctx: Context, e: Entry) -> None:
    """Resumed 1.0 sessions start with summaries of *other* sessions: one is
    this session's only when the entry it ends at is in this file."""
    facts = ctx.facts
    leaf = ctx.uuid(e.leafUuid) if e.leafUuid else Redacted("")
    if leaf and not facts.conversational and len(facts.leaf_refs) < 10:
        facts.leaf_refs.append(leaf)
    if not e.summary:
        return
    text = ctx.line(e.summary, 200)
    if leaf and leaf in facts.tail_uuids:
        facts.own_summary = text
    elif leaf and len(facts.foreign_summaries) < MAX_FOREIGN_SUMMARIES:
        facts.foreign_summaries[leaf] = text


def claim_summary(ctx: Context, uuid: Redacted) -> None:
    """An entry whose uuid a summary named earlier: that summary was this session's."""
    facts = ctx.facts
    facts.own_summary = facts.foreign_summaries.pop(uuid)


def on_ai_title(ctx: Context, e: Entry) -> None:
    if e.aiTitle:
        ctx.facts.ai_title = ctx.line(e.aiTitle, TITLE_CHARS)


def on_custom_title(ctx: Context, e: Entry) -> None:
    if e.customTitle:
        ctx.facts.custom_title = ctx.line(e.customTitle, TITLE_CHARS)


def on_task_summary(ctx: Context, e: Entry) -> None:
    if e.summary:
        ctx.facts.recap = ctx.line(e.summary, RECAP_CHARS)


def on_away_summary(ctx: Context, e: Entry) -> None:
    content = decode_raw(e.content)
    if isinstance(content, str) and content.strip():
        text = content.strip()
        text = text.removesuffix(RECAP_HINT).rstrip()
        ctx.facts.recap = ctx.line(text, RECAP_CHARS)


def note_prompt(ctx: Context, words: str, shown: Redacted) -> None:
    """The first real prompt (not a filler like "continue") may title the session."""
    facts = ctx.facts
    if not facts.first_prompt_title and not tx.is_filler(words) and words != "[image]":
        title = Redacted(tx.one_line(shown, TITLE_CHARS))  # cut from a gated text
        if title and not title.startswith("/"):
            facts.first_prompt_title = title


def note_command(ctx: Context, command: str, shown: Redacted) -> None:
    """The slash command that opened the session (with its arguments) may title it."""
    facts = ctx.facts
    if not facts.first_command_title and command.split(" ", 1)[0] not in TOPICLESS_COMMANDS:
        facts.first_command_title = Redacted(tx.one_line(shown, TITLE_CHARS))
