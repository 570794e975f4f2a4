"""Subagents: the Task calls that start them, how they ended, and the work of
inline ones (older layout: `isSidechain` entries in the main file). Feeds the
note's Subagents section; their files, commands and commits join the session's
(see `work.py`)."""

from __future__ import annotations

from typing import Any

from vibe_vault.entries import ToolInput, result_usage
from vibe_vault.fold.context import CallEnd, Context
from vibe_vault.fold.usage import tokens_of
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, Fold, Pending, Subagent

AGENT_TOOLS = frozenset({"Task", "Agent"})
MAX_SUBAGENTS = 200


def on_call(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    facts = ctx.facts
    sub = Subagent(
        tool_id=call.tool_id,
        type=ctx.line(str(inp.subagent_type or "general-purpose"), 60),
        description=ctx.line(str(inp.description or ""), 120),
        ts=timestamp,
    )
    # Its instructions are found by search from the session that gave them,
    # whether or not the subagent's own file is still there (or ever was).
    if isinstance(inp.prompt, str):
        ctx.say("task", inp.prompt)
    if len(facts.subagents) < MAX_SUBAGENTS:
        facts.subagents.append(sub)
        call.sub_no = len(facts.subagents) - 1
    else:
        facts.subagents_dropped += 1
    return Action(kind="agent", text=sub.type, detail=sub.description, ts=timestamp), False


def on_result(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    facts = ctx.facts
    if not 0 <= call.sub_no < len(facts.subagents):
        return
    sub = facts.subagents[call.sub_no]
    sub.status = outcome.status if outcome.status != "ok" else "completed"
    if outcome.text:
        ctx.say("report", outcome.text)  # what it answered, for search
    result = outcome.result
    if result is not None:
        sub.agent_id = ctx.name(str(result.agentId or ""))
        sub.tokens = _int(result.totalTokens)
        sub.ms = _int(result.totalDurationMs)
        sub.tool_calls = _int(result.totalToolUseCount)
        if isinstance(result.status, str) and result.status:
            sub.status = ctx.name(result.status, 40)
        u = result_usage(result.usage)
        if u is not None:
            sub.usage = tokens_of(Redacted(""), u)  # (its model: figures.tokens_by_model)


def sidechain(ctx: Context) -> Context:
    """The context inline subagents' entries fold through, in this fold call."""
    if ctx.sidechain is None:
        facts = ctx.facts
        if facts.sidechain is None:
            facts.sidechain = Fold()
        ctx.sidechain = Context(facts.sidechain, ctx.redactor, agent=True)
        ctx.sidechain.memo = ctx.memo
    return ctx.sidechain


def _int(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
