"""Usage and the models behind it: every API message counted once.

Feeds the note's tokens and cost (`figures.tokens_by_model` merges the main
file's, the subagent files' and the streamed subagents' usage).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import msgspec

from vibe_vault import state
from vibe_vault.entries import Entry, agent_progress
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted
from vibe_vault.state import AgentFold, ClientCost, ModelCost, ModelSwitch, Tokens, add_cost

USAGE_WINDOW = 256  # message ids kept for dedup; older ones settle into totals
# Prompts over these many tokens are totalled apart: some models bill such a
# request at long-context rates (see data/pricing.json: Sonnet 4 and 4.5 above
# 200k, Haiku 5.5 above 100k, as Claude Code 2.1.332 prices them).
LONG_CONTEXTS = (200_000, 100_000)  # the largest first
LONG_CONTEXT = LONG_CONTEXTS[0]
MAX_CLIENT_MODELS = 50
MAX_SWITCHES = 50
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
    prompt = t.input + t.cache_read + t.cache_creation
    t.context = next((c for c in LONG_CONTEXTS if prompt > c), 0)
    t.fast = getattr(u, "speed", None) == "fast"
    t.us_only = getattr(u, "inference_geo", None) == "us"
    return t


def total_key(tokens: Tokens) -> str:
    """What a snapshot adds up under: its model, and apart the requests priced
    otherwise (long prompts, fast mode, US-only inference)."""
    model = tokens.model or "unknown"
    if not (tokens.fast or tokens.us_only or tokens.context):
        return model  # (most snapshots: no lists made for nothing to put apart)
    apart = [*(["fast"] if tokens.fast else []), *(["US only"] if tokens.us_only else []),
             *([f"prompts over {tokens.context // 1000}k"] if tokens.context else [])]
    return f"{model} ({', '.join(apart)})" if apart else model


def add_tokens(totals: dict[str, Tokens], tokens: Tokens, key: str | None = None) -> None:
    """Add `tokens` to its running total (by `total_key`, unless `key` is given)."""
    state.add_tokens(totals, total_key(tokens) if key is None else key, tokens)


_FIELDS = Tokens.__struct_fields__


def sum_tokens(parts: list[Tokens]) -> dict[str, Tokens]:
    """The running totals `add_tokens` makes of `parts` one by one, in the
    same order: each total the first part's model and kind, its counts the
    sums of all its parts' (summed a column at a time: a Stop adds up
    hundreds of snapshots, and a call for each was a fortieth of it)."""
    groups: dict[str, list[Tokens]] = {}
    for t in parts:
        # (total_key's common case inline: a call for each was a fifth of the sum)
        key = total_key(t) if t.fast or t.us_only or t.context else t.model or "unknown"
        group = groups.get(key)
        if group is None:
            groups[key] = [t]
        else:
            group.append(t)
    totals: dict[str, Tokens] = {}
    for key, group in groups.items():
        first = group[0]
        c = dict(zip(_FIELDS, zip(*map(msgspec.structs.astuple, group), strict=True),
                     strict=True))
        totals[key] = Tokens(
            model=first.model, input=sum(c["input"]), output=sum(c["output"]),
            cache_read=sum(c["cache_read"]), cache_creation=sum(c["cache_creation"]),
            cache_5m=sum(c["cache_5m"]), cache_1h=sum(c["cache_1h"]),
            context=first.context, fast=first.fast, us_only=first.us_only,
            written=sum(c["written"]), short=sum(c["short"]),
            unrecorded=sum(c["unrecorded"]))
    return totals


# A reply of at least this many characters whose recorded output is under one
# token per `SHORT_RATIO` characters (a quarter of the usual ~4) was recorded
# before it ended. (2000, as it was, left out most such replies: 2.0.5 records
# 1 token for replies of 1,200 to 1,600 characters, 9e953218.)
SHORT_MIN_CHARS = 200
SHORT_RATIO = 16
CHARS_PER_TOKEN = 4


def written_chars(content: Any) -> int:
    """About how many characters a message's content blocks wrote: text,
    thinking and the strings of tool inputs (JSON-escaped where kept raw)."""
    if isinstance(content, str):
        return len(content)
    count = 0
    for block in content or ():
        if isinstance(block, str):
            count += len(block)
            continue
        count += len(block.text or "") + len(block.thinking)
        i = block.input
        if isinstance(i, str):
            count += len(i)
        elif i is not None and not isinstance(i, (list, int, float, bool)):
            count += (len(i.content) + len(i.new_source) + len(i.old_string)
                      + len(i.new_string))
            for value in (i.command, i.prompt, i.plan, i.description, i.file_path, i.url,
                          i.query, i.question, i.subject, i.todos, i.edits, i.questions):
                if value is not None:
                    count += _chars(value)
    return count


def _chars(value: Any) -> int:
    """The characters of a tool input's value: its strings, however nested
    (a TodoWrite's list, a MultiEdit's edits)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(_chars(v) for v in value)
    if isinstance(value, dict):
        return sum(len(str(k)) + _chars(v) for k, v in value.items())
    return 0


def _judge(tokens: Tokens) -> None:
    """Mark a message's snapshot as recorded before the reply ended, or not."""
    short = tokens.written >= SHORT_MIN_CHARS and tokens.output * SHORT_RATIO < tokens.written
    tokens.short = int(short)
    tokens.unrecorded = max(tokens.written // CHARS_PER_TOKEN - tokens.output, 0) if short else 0


def with_output(tokens: Tokens, output: int) -> Tokens:
    """`tokens` with a later, larger output count for the same message, judged again."""
    tokens = msgspec.structs.replace(tokens, output=output)
    _judge(tokens)
    return tokens


def note_usage(usage: dict[str, Tokens], settled: dict[str, Tokens], models: list[Redacted],
               model: Redacted, u: Any, key: str | None, window: int | None = None,
               written: int = 0) -> bool:
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
        t = usage[key] = tokens_of(model, u)
        t.written = written
        _judge(t)
        if len(usage) > (USAGE_WINDOW if window is None else window):
            add_tokens(settled, usage.pop(next(iter(usage))))
        return True
    t = old
    if (u.output_tokens or 0) > old.output:
        t = usage[key] = tokens_of(model, u)
    # (each snapshot holds the blocks written since the one before)
    t.written = old.written + written
    _judge(t)
    return False


def note_entry_usage(ctx: Context, usage: dict[str, Tokens], settled: dict[str, Tokens],
                     models: list[Redacted], entry: Entry, window: int | None = None) -> bool:
    """`note_usage` for an assistant entry (keyed by message id, request id, uuid)."""
    m = entry.message
    if m is None:
        return False
    model = _model(ctx, m.model)
    raw = m.id or entry.requestId or entry.uuid
    # A checksum: the state keeps no transcript text.
    return note_usage(usage, settled, models, model, m.usage, ctx.key(raw) if raw else None,
                      window, written_chars(m.content) if m.usage is not None else 0)


def _model(ctx: Context, raw: str | None) -> Redacted:
    """A model's name as the facts hold it (`<synthetic>` marks no API call)."""
    if not raw or raw == SYNTHETIC:
        return Redacted(raw or "")  # nothing, or vibe-vault's own marker
    return ctx.name(raw, 100)


def on_progress(ctx: Context, entry: Entry) -> None:
    """Usage of a subagent message streamed into the main file (2.0/2.1): real
    API spend, which some versions record nowhere else. Kept per agent, so the
    note can prefer the agent's own file when there is one."""
    p = agent_progress(entry.data)
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
    raw = m.id or entry.uuid
    note_usage(af.usage, af.settled, af.models, model, m.usage, ctx.key(raw) if raw else None,
               AGENT_USAGE_WINDOW)  # (its content is not decoded: no length to judge)


class _ModelUsage(msgspec.Struct):
    """One model's line of a `cost-state`'s `modelUsage`; any JSON value is
    taken, and what is not a number counts as none."""

    inputTokens: Any = 0
    outputTokens: Any = 0
    cacheReadInputTokens: Any = 0
    cacheCreationInputTokens: Any = 0
    costUSD: Any = 0


@cache
def _model_usage() -> msgspec.json.Decoder[dict[str, _ModelUsage]]:
    """(made when first needed: only `cost-state` lines have these)"""
    return msgspec.json.Decoder(dict[str, _ModelUsage])


def _number(value: Any) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value < 0):
        return 0.0
    return float(value)


def on_cost_state(ctx: Context, entry: Entry) -> None:
    """The client's own running cost of the session (`cost-state`). A running
    total per process: a resumed session carries the earlier total on (same
    `startTime`), so the last line holds it all; a line with another start, or
    a smaller total, begins a new run, and the run before it is kept."""
    if not isinstance(entry.totalCostUSD, (int, float)) or isinstance(entry.totalCostUSD, bool):
        return
    total = _number(entry.totalCostUSD)
    try:
        usage = _model_usage().decode(entry.modelUsage) if entry.modelUsage else {}
    except (msgspec.DecodeError, msgspec.ValidationError):
        usage = {}
    facts = ctx.facts
    cc = facts.client_cost
    if cc is None:
        cc = facts.client_cost = ClientCost()
    start = _number(entry.startTime)
    if (cc.models or cc.total) and (start != cc.start or total < cc.total):
        cc.settled_total += cc.total
        for model, mc in cc.models.items():
            add_cost(cc.settled, model, mc)
    cc.start = start
    cc.total = total
    cc.models = {}
    for raw, mu in list(usage.items())[:MAX_CLIENT_MODELS]:
        add_cost(cc.models, _model(ctx, raw), ModelCost(
            cost=_number(mu.costUSD), input=int(_number(mu.inputTokens)),
            output=int(_number(mu.outputTokens)), cache_read=int(_number(mu.cacheReadInputTokens)),
            cache_creation=int(_number(mu.cacheCreationInputTokens))))
    if entry.hasUnknownModelCost is True:
        cc.unknown = True



def note_model(ctx: Context, entry: Entry, timestamp: str) -> None:
    """The main agent's model, and each change of it, as its answers show: a
    fact whatever told the client to switch (/model, a fallback, a hook)."""
    m = entry.message
    if m is None or not m.model or m.model == SYNTHETIC or entry.isSidechain or ctx.agent:
        return
    model = _model(ctx, m.model)
    facts = ctx.facts
    noticed, facts.model_notice = facts.model_notice, False
    if model == facts.model:
        return
    if facts.model and len(facts.model_switches) < MAX_SWITCHES:
        facts.model_switches.append(ModelSwitch(to=model, was=facts.model, ts=timestamp,
                                                noticed=noticed))
    facts.model = model
