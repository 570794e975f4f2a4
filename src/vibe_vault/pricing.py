"""Cost of tokens: Claude Code's own count when the transcript has one
(`cost-state`), else the price table shipped in `data/pricing.json`.

Prices are matched by the longest model-name prefix, so dated snapshots
(`claude-sonnet-4-5-20250929`) find their family. A model with no price is
reported as unpriced instead of guessed.
"""


import os
from typing import Any

import msgspec
from msgspec import Struct

from vibe_vault.redact import Redacted
from vibe_vault.state import ClientCost, ModelCost, Tokens, add_cost, add_tokens

US_ONLY = 1.1  # the premium on requests served in the US only (`inference_geo: "us"`)


class LongContext(Struct):
    """Rates for a request whose prompt is over `threshold` tokens."""

    threshold: int
    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


class Rates(Struct):
    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


class Price(Struct):
    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float
    long_context: LongContext | None = None
    fast: Rates | None = None  # fast mode (`usage.speed: "fast"`), where the model has it
    window: int = 200_000  # the context window, for the record: 1M models say so


class _Table(Struct):
    models: dict[str, Price]


_table: dict[str, Price] | None = None


def table(overrides: dict[str, Any] | None = None) -> dict[str, Price]:
    global _table
    if _table is None:
        # A plain path beside the module: importlib.resources costs the hook ~4 ms.
        with open(os.path.join(os.path.dirname(__file__), "data", "pricing.json"), "rb") as f:
            data = f.read()
        _table = msgspec.json.decode(data, type=_Table).models
    if not overrides:
        return _table
    merged = dict(_table)
    for model, spec in overrides.items():
        try:
            merged[model] = msgspec.convert(spec, Price)
        except msgspec.ValidationError:
            continue
    return merged


def price_for(model: str, prices: dict[str, Price], context: int = 0,
              fast: bool = False) -> Price | None:
    """The price of `model` (longest matching prefix); in fast mode, its fast
    rates when it has them; for requests whose prompt was over `context`
    tokens, its long-context rates when it has them (as Claude Code prices a
    fast request, fast rates win)."""
    best = None
    for prefix, price in prices.items():
        if model.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, price)
    if best is None:
        return None
    price = best[1]
    if fast and price.fast is not None:
        r = price.fast
        return Price(input=r.input, output=r.output, cache_write_5m=r.cache_write_5m,
                     cache_write_1h=r.cache_write_1h, cache_read=r.cache_read)
    long = price.long_context
    if context and long is not None and context >= long.threshold:
        return Price(input=long.input, output=long.output, cache_write_5m=long.cache_write_5m,
                     cache_write_1h=long.cache_write_1h, cache_read=long.cache_read)
    return price


def _rates(price: Price) -> tuple[float, ...]:
    return (price.input, price.output, price.cache_write_5m, price.cache_write_1h, price.cache_read)


def cost(tokens: Tokens, price: Price) -> float:
    cache_1h = min(tokens.cache_1h, tokens.cache_creation)
    cache_5m = max(tokens.cache_creation - cache_1h, 0)
    return (
        tokens.input * price.input
        + tokens.output * price.output
        + cache_5m * price.cache_write_5m
        + cache_1h * price.cache_write_1h
        + tokens.cache_read * price.cache_read
    ) / 1_000_000 * (US_ONLY if tokens.us_only else 1.0)


class SessionCost(Struct):
    rows: dict[str, Tokens]  # the tokens table: by model, apart where priced otherwise
    costs: dict[str, float]  # USD by row, for the rows with a price
    unpriced: list[str]  # rows (models) with tokens and no price
    by_client: bool  # Claude Code's own count gave the cost


def _has_tokens(tokens: Tokens | ModelCost) -> bool:
    return bool(tokens.input or tokens.output or tokens.cache_read or tokens.cache_creation)


def _without_copies(counted: dict[Redacted, ModelCost], copied: dict[str, Tokens],
                    prices: dict[str, Price]) -> None:
    """Take out of the client's count what a fork copied from the session it
    was forked from. A client that carries the earlier total on into the fork
    (2.1.332 does; its count then holds the copied messages' tokens) counted
    them there, and that session's note has them; a model whose count holds
    fewer tokens than the copies was counted for this run alone (2.1.197's
    way) and is left as it is. The copies are priced from the table, as the
    client prices them."""
    by_model: dict[Redacted, list[Tokens]] = {}
    for t in copied.values():
        by_model.setdefault(t.model, []).append(t)
    for model, parts in by_model.items():
        mc = counted.get(model)
        if mc is None:
            continue
        inp, out = sum(t.input for t in parts), sum(t.output for t in parts)
        read, made = sum(t.cache_read for t in parts), sum(t.cache_creation for t in parts)
        if mc.input < inp or mc.output < out or mc.cache_read < read or \
                mc.cache_creation < made:
            continue
        prices_of = [price_for(model, prices, t.context, t.fast) for t in parts]
        if any(p is None for p in prices_of):
            continue  # no price to take out: the count stays the client's
        less = sum(cost(t, p) for t, p in zip(parts, prices_of, strict=True) if p is not None)
        counted[model] = ModelCost(cost=max(mc.cost - less, 0.0), input=mc.input - inp,
                                   output=mc.output - out, cache_read=mc.cache_read - read,
                                   cache_creation=mc.cache_creation - made)


def session_cost(by_model: dict[str, Tokens], prices: dict[str, Price],
                 client: ClientCost | None = None,
                 copied: dict[str, Tokens] | None = None) -> SessionCost:
    """Rows of the tokens table and their cost.

    Where Claude Code counted a model's cost itself (`client`), that is its
    cost (calls the transcript does not show, such as a compaction's summary,
    included): tokens the transcript shows beyond what the client counted
    (usage from before it wrote a cost, or after its last count) are added at
    the model's standard rates. A model only the client counted gets a row
    of its own, with its count. Elsewhere each row is priced from the table; rows
    apart for long prompts, fast mode or US-only inference stay apart only
    where that changes the price. `copied`: the messages a fork copied from
    the session it was forked from (by `total_key`), which are not this
    session's cost."""
    counted: dict[Redacted, ModelCost] = {}
    if client is not None:
        for part in (client.settled, client.models):
            for model, mc in part.items():
                add_cost(counted, model, mc)
        if copied:
            _without_copies(counted, copied, prices)
    rows: dict[str, Tokens] = {}
    costs: dict[str, float] = {}
    unpriced: list[str] = []
    for key, t in by_model.items():
        if t.model in counted:
            add_tokens(rows, t.model, Tokens(model=t.model, input=t.input, output=t.output,
                                       cache_read=t.cache_read, cache_creation=t.cache_creation,
                                       cache_5m=t.cache_5m, cache_1h=t.cache_1h))
            continue
        price = price_for(t.model, prices, t.context, t.fast)
        base = price_for(t.model, prices)
        row = key
        if price is not None and base is not None and not t.us_only and \
                _rates(price) == _rates(base):
            row = t.model or key  # priced as the model's other requests: one row
        add_tokens(rows, row, t)
        if price is None:
            if _has_tokens(t) and row not in unpriced:
                unpriced.append(row)
        else:
            costs[row] = costs.get(row, 0.0) + cost(t, price)
    for model, mc in counted.items():
        ours = rows.get(model)
        if ours is None:  # requests the transcript does not show (the client's own)
            rows[model] = Tokens(model=model, input=mc.input, output=mc.output,
                                 cache_read=mc.cache_read, cache_creation=mc.cache_creation,
                                 cache_5m=mc.cache_creation)
            costs[model] = mc.cost
            continue
        # The row keeps the transcript's tokens (the API messages it holds):
        # the client's count may hold calls the transcript does not show
        # (a compaction's summary), which are in its cost.
        beyond = Tokens(model=model, input=max(ours.input - mc.input, 0),
                        output=max(ours.output - mc.output, 0),
                        cache_read=max(ours.cache_read - mc.cache_read, 0),
                        cache_creation=max(ours.cache_creation - mc.cache_creation, 0))
        beyond.cache_5m = beyond.cache_creation
        price = price_for(model, prices)
        if _has_tokens(beyond) and price is None:
            unpriced.append(model)
        extra = cost(beyond, price) if price is not None and _has_tokens(beyond) else 0.0
        costs[model] = mc.cost + extra
        if client is not None and client.unknown and not mc.cost and _has_tokens(mc) \
                and model not in unpriced:
            unpriced.append(model)  # the client had no price for it either
    return SessionCost(rows=dict(sorted(rows.items())), costs=costs, unpriced=unpriced,
                       by_client=bool(counted))


def unpriced_names(rows: list[str]) -> list[str]:
    """The models of unpriced token rows, once each: a row is a model or a
    model with its price tier ("glm-5 (prompts over 100k)"); "unknown" rows
    (a subagent's answer whose model Claude Code did not record) are
    "models not named"."""
    names = sorted({r.split(" (", 1)[0] for r in rows} - {"unknown"})
    return names + (["models not named"] if any(r.split(" (", 1)[0] == "unknown"
                                                for r in rows) else [])
