"""Usage and the models behind it: every API message counted once.

Feeds the note's tokens and cost (`figures.tokens_by_model` merges the main
file's, the subagent files' and the streamed subagents' usage).
"""

from __future__ import annotations

from typing import Any

from vibe_vault.entries import Entry, agent_progress
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted
from vibe_vault.state import AgentFold, Tokens

USAGE_WINDOW = 256  # message ids kept for dedup; older ones settle into totals
# Prompts over this many tokens are totalled apart: Sonnet 4 and 4.5 bill such a
# request at long-context rates (see data/pricing.json).
LONG_CONTEXT = 200_000
SYNTHETIC = "<synthetic>"
AGENT_USAGE_WINDOW = 64  # many subagent files may hang off one session
MAX_STREAMED_AGENTS = 200


def tokens_of(model: Redacted, u: Any) -> Tokens:
    """One message's usage snapshot, as kept for its message id."""
    cc = u.cache_creation
    creation = u.cache_creation_input_tokens or 0
    t = Tokens(
        model=model,
        input=u.input_tokens or 0,
        output=u.output_tokens or 0,
        cache_read=u.cache_read_input_tokens or 0,
        cache_creation=creation,
        cache_5m=(cc.ephemeral_5m_input_tokens or 0) if cc else creation,
        cache_1h=(cc.ephemeral_1h_input_tokens or 0) if cc else 0,
    )
    if t.input + t.cache_read + t.cache_creation > LONG_CONTEXT:
        t.context = LONG_CONTEXT
    return t


def total_key(t: Tokens) -> str:
    """What a snapshot adds up under: its model, and long prompts apart."""
    model = t.model or "unknown"
    return f"{model} (prompts over {t.context // 1000}k)" if t.context else model


def add_tokens(totals: dict[str, Tokens], t: Tokens, key: str | None = None) -> None:
    """Add `t` to its running total (by `total_key`, unless `key` is given)."""
    key = total_key(t) if key is None else key
    acc = totals.get(key)
    if acc is None:
        acc = totals[key] = Tokens(model=t.model, context=t.context)
    acc.input += t.input
    acc.output += t.output
    acc.cache_read += t.cache_read
    acc.cache_creation += t.cache_creation
    acc.cache_5m += t.cache_5m
    acc.cache_1h += t.cache_1h


def note_usage(usage: dict[str, Tokens], settled: dict[str, Tokens], models: list[Redacted],
               model: Redacted, u: Any, key: str | None, window: int | None = None) -> bool:
    """Record an API message's usage; True when the message id is new.

    Streaming writes several snapshots of one message (one per content block);
    the one with the most output is kept, so each message counts once. Snapshots
    of one message are written close together, so only the last `window` ids
    are kept for dedup; older messages are added to per-model totals, which
    keeps the state (and every Stop) the same size however long the session grows.
    `<synthetic>` marks a local notice, not an API call.
    """
    if u is None or model == "<synthetic>":
        return False
    if model and model not in models:
        models.append(model)
    if key is None:
        return False
    old = usage.get(key)
    if old is None:
        usage[key] = tokens_of(model, u)
        if len(usage) > (USAGE_WINDOW if window is None else window):
            add_tokens(settled, usage.pop(next(iter(usage))))
        return True
    if (u.output_tokens or 0) > old.output:
        usage[key] = tokens_of(model, u)
    return False


def note_entry_usage(ctx: Context, usage: dict[str, Tokens], settled: dict[str, Tokens],
                     models: list[Redacted], e: Entry, window: int | None = None) -> bool:
    """`note_usage` for an assistant entry (keyed by message id, request id, uuid)."""
    m = e.message
    if m is None:
        return False
    model = _model(ctx, m.model)
    raw = m.id or e.requestId or e.uuid
    # A checksum: the state keeps no transcript text.
    return note_usage(usage, settled, models, model, m.usage, ctx.key(raw) if raw else None,
                      window)


def _model(ctx: Context, raw: str | None) -> Redacted:
    """A model's name as the facts hold it (`<synthetic>` marks no API call)."""
    if not raw or raw == SYNTHETIC:
        return Redacted(raw or "")  # nothing, or vibe-vault's own marker
    return ctx.name(raw, 100)


def on_progress(ctx: Context, e: Entry) -> None:
    """Usage of a subagent message streamed into the main file (2.0/2.1): real
    API spend, which some versions record nowhere else. Kept per agent, so the
    note can prefer the agent's own file when there is one."""
    p = agent_progress(e.data)
    if p is None or p.message is None or p.message.message is None:
        return
    streamed = ctx.facts.progress
    agent = ctx.name(p.agentId or "?")
    af = streamed.get(agent)
    if af is None:
        if len(streamed) >= MAX_STREAMED_AGENTS:
            return
        af = streamed[agent] = AgentFold(agent_id=agent)
    m = p.message.message
    model = _model(ctx, m.model)
    raw = m.id or e.uuid
    note_usage(af.usage, af.settled, af.models, model, m.usage, ctx.key(raw) if raw else None,
               AGENT_USAGE_WINDOW)
