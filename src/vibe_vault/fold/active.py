"""Active time: how long Claude worked, turn by turn, true for every client.

A turn runs from a prompt (typed, a slash command, a `!` command, a
background task's notification) to the last entry before the next one. Its
time is Claude Code's own `turn_duration` where the client writes one (2.1.x,
most turns); else the span of the turn's entries from its prompt on, without
the pauses that are not work: a gap of IDLE_GAP_S or more between two
consecutive entries. Either way the waits for the user the transcript shows
are left out: the user's answer to a permission prompt (refused, or granted
where the call's result shows the wait: an edit's, a command's on a client
that writes progress lines) or to a question Claude asked (AskUserQuestion,
ExitPlanMode). A `turn_duration` counts only the part of its turn the file
holds: never more than the time from the turn's first entry in the file (its
prompt, or the file's first line when the turn began before the file) to the
`turn_duration` line. The time between turns (the user reading, typing, away)
is never counted.

Kept in the facts as it goes (fold law): the timed turns' sum, the untimed
turns' sum, the turn under way's time so far (which its `turn_duration`, when
it comes, replaces), where it began in the file and the waits in it so far.
"""

from __future__ import annotations

from vibe_vault.fold.context import IDLE_GAP_S, Context
from vibe_vault.state import Fold


def spent(ctx: Context) -> None:
    """The current entry's share of active time (main transcript only)."""
    facts = ctx.facts
    if ctx.is_work and not facts.in_turn and not ctx.begins_turn and _opens_mid_turn(facts):
        facts.in_turn = True  # the file opens with Claude at work: a turn begun before it
    if ctx.begins_turn:
        # (time up to queue lines that stamp this prompt was the user's typing)
        facts.untimed_ms += facts.open_ms
        facts.open_ms = facts.wait_ms = facts.agents_ms = facts.queued_ms = 0
        facts.agents_until = 0.0
        facts.in_turn = True
        facts.turn_from = ctx.entry_epoch
    elif ctx.entry_gap > 0:
        gap = ctx.entry_gap
        # (a command that began to run after a permission prompt: the pause
        # until it began was the user's)
        waited = gap if ctx.user_waited else \
            min(gap, max(0.0, ctx.waited_until - (ctx.entry_epoch - gap)))
        facts.wait_ms += round(waited * 1000)
        if facts.in_turn and gap < IDLE_GAP_S:
            if ctx.is_queue:
                facts.queued_ms += round((gap - waited) * 1000)
            else:
                facts.open_ms += round((gap - waited) * 1000)
    if facts.queued_ms and not ctx.is_queue and not ctx.begins_turn:
        facts.open_ms += facts.queued_ms  # Claude worked on past them: the turn's time
        facts.queued_ms = 0
    if ctx.waited_until and not ctx.begins_turn:
        # The wait's part before this entry's pause (other lines came while
        # the prompt was up: a queue operation, another call's result), taken
        # back from the work those pauses counted; one of IDLE_GAP_S or more
        # counted none, so a wait that long is not taken back.
        before = ctx.entry_epoch - ctx.entry_gap
        earlier = min(before, ctx.waited_until) - max(ctx.waited_from, facts.turn_from)
        if 0 < earlier < IDLE_GAP_S:
            ms = round(earlier * 1000)
            facts.wait_ms += ms
            facts.open_ms -= min(facts.open_ms, ms)
    if not facts.turn_from:
        facts.turn_from = ctx.entry_epoch  # the file's first time, or the first after a turn ended
    ctx.begins_turn = ctx.user_waited = ctx.is_work = ctx.is_queue = False
    ctx.waited_until = ctx.waited_from = 0.0


def _opens_mid_turn(facts: Fold) -> bool:
    """Nothing timed yet, and the one turn is the one the file opens in."""
    return (len(facts.turns) == 1 and facts.turns[0].kind == "continued"
            and not (facts.turn_ms or facts.untimed_ms or facts.open_ms))


def timed(ctx: Context, ms: int) -> None:
    """A `turn_duration`: the client's time for the turn under way (ends it),
    at most the turn's span in this file less the waits for the user in it
    (2.1.58's own time already leaves them out: then it is the lesser)."""
    facts = ctx.facts
    now = ctx.entry_epoch
    if now:  # (a line without a time can be checked against nothing)
        span = round((now - (facts.turn_from or now)) * 1000)
        if ms < facts.agents_ms:
            # Shorter than the time its subagents worked while Claude waited
            # on them (2.1.114 leaves that out): that time is the turn's too.
            ms += facts.agents_ms
        ms = min(ms, max(0, span - facts.wait_ms))
    facts.turn_ms += ms
    facts.open_ms = facts.wait_ms = facts.agents_ms = facts.queued_ms = 0
    facts.agents_until = 0.0
    facts.turn_from = 0.0
    facts.in_turn = False


def waited_on_agent(ctx: Context, called_at: float) -> None:
    """A subagent's result: Claude waited on it from its call till now (in
    the turn under way; a time two subagents ran at once counted once)."""
    facts = ctx.facts
    now = ctx.entry_epoch
    if not now or not called_at or now <= called_at:
        return
    since = max(called_at, facts.agents_until, facts.turn_from)
    if now > since:
        facts.agents_ms += round((now - since) * 1000)
    facts.agents_until = max(facts.agents_until, now)


def active_ms(facts: Fold) -> int:
    return facts.turn_ms + facts.untimed_ms + facts.open_ms
