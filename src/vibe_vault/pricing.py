"""Cost of tokens, from the price table shipped in `data/pricing.json`.

Prices are matched by the longest model-name prefix, so dated snapshots
(`claude-sonnet-4-5-20250929`) find their family. A model with no price is
reported as unpriced instead of guessed.
"""


import os
from typing import Any

import msgspec
from msgspec import Struct

from vibe_vault.state import Tokens


class LongContext(Struct):
    """Rates for a request whose prompt is over `threshold` tokens."""

    threshold: int
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


def price_for(model: str, prices: dict[str, Price], context: int = 0) -> Price | None:
    """The price of `model` (longest matching prefix); for requests whose prompt
    was over `context` tokens, its long-context rates when it has them."""
    best = None
    for prefix, price in prices.items():
        if model.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, price)
    if best is None:
        return None
    price = best[1]
    long = price.long_context
    if context and long is not None and context >= long.threshold:
        return Price(input=long.input, output=long.output, cache_write_5m=long.cache_write_5m,
                     cache_write_1h=long.cache_write_1h, cache_read=long.cache_read)
    return price


def cost(t: Tokens, price: Price) -> float:
    cache_1h = min(t.cache_1h, t.cache_creation)
    cache_5m = max(t.cache_creation - cache_1h, 0)
    return (
        t.input * price.input
        + t.output * price.output
        + cache_5m * price.cache_write_5m
        + cache_1h * price.cache_write_1h
        + t.cache_read * price.cache_read
    ) / 1_000_000
