"""Active time: how long Claude worked, turn by turn, true for every client.

A turn runs from a prompt (typed, a slash command, a `!` command, a
background task's notification) to the last entry before the next one. Its
time is Claude Code's own `turn_duration` where the client writes one (2.1.x,
most turns); else the span of the turn's entries from its prompt on, without
the pauses that are not work: a gap of IDLE_GAP_S or more between two
consecutive entries, and the wait for the user's answer to a permission
prompt they refused or to a question Claude asked (AskUserQuestion,
ExitPlanMode). The time between turns (the user reading, typing, away) is
never counted.

Kept in the facts as it goes (fold law): the timed turns' sum, the untimed
turns' sum, and the turn under way's time so far, which its `turn_duration`,
when it comes, replaces.
"""

from __future__ import annotations

from vibe_vault.fold.context import IDLE_GAP_S, Context
from vibe_vault.state import Fold


def spent(ctx: Context) -> None:
    """The current entry's share of active time (main transcript only)."""
    facts = ctx.facts
    if ctx.begins_turn:
        facts.untimed_ms += facts.open_ms
        facts.open_ms = 0
        facts.in_turn = True
    elif facts.in_turn and not ctx.user_waited and 0 < ctx.entry_gap < IDLE_GAP_S:
        facts.open_ms += round(ctx.entry_gap * 1000)
    ctx.begins_turn = ctx.user_waited = False


def timed(ctx: Context, ms: int) -> None:
    """A `turn_duration`: the client's time for the turn under way (ends it)."""
    facts = ctx.facts
    facts.turn_ms += ms
    facts.open_ms = 0
    facts.in_turn = False


def active_ms(facts: Fold) -> int:
    return facts.turn_ms + facts.untimed_ms + facts.open_ms
