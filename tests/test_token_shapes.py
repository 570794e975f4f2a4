"""bench/trufflehog_data.shape writes a token's format out again in this
project's notation (trufflehog's detectors are AGPL-3.0: their regexes' text
is not kept, the formats they state are). The written shape must mean what
the pattern meant.

Generated: the patterns of gitleaks' default rules (MIT, bench/data), each a
format of the same kind, and texts drawn from each (bench's sampler).
Oracle: Python's engine: a text drawn from the pattern matches its shape
whole, and one drawn from the shape matches the pattern; the shape is its
own shape (written once, the same when written again); the groups are the
pattern's, in their order.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from re import _parser as P  # type: ignore[attr-defined]  # noqa: E402

import secret_coverage as coverage  # noqa: E402
import trufflehog_data  # noqa: E402


def _patterns() -> list[str]:
    out = []
    for rule in json.loads(coverage.DATA.read_text())["rules"]:
        pattern = coverage.go_to_python(rule["regex"])
        try:
            re.compile(pattern)
            trufflehog_data.shape(pattern)
        except (re.error, ValueError, KeyError):
            continue  # (one Python cannot read, or a construct no token format has)
        out.append(pattern)
    return out


PATTERNS = _patterns()


def _draws(pattern: str, seed: int, n: int = 5) -> list[str]:
    rng = random.Random(f"{seed}:{pattern}")
    parsed = P.parse(pattern)
    out: list[str] = []
    for _ in range(n * 10):
        s = coverage.Sampler(rng, least_open=4)
        s.draw(parsed)
        text = "".join(s.out)
        if re.fullmatch(pattern, text):
            out.append(text)
        if len(out) == n:
            break
    return out


def test_most_of_gitleaks_patterns_are_read() -> None:
    assert len(PATTERNS) >= 150, len(PATTERNS)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_shape_means_its_pattern(pattern: str) -> None:
    shape = trufflehog_data.shape(pattern)
    assert trufflehog_data.shape(shape) == shape
    assert re.compile(shape).groups == re.compile(pattern).groups
    for text in _draws(pattern, 1):
        assert re.fullmatch(shape, text), (pattern, shape, text)
    for text in _draws(shape, 2):
        assert re.fullmatch(pattern, text), (pattern, shape, text)


def test_the_kept_shapes_are_written_by_shape() -> None:
    data: dict[str, Any] = json.loads(coverage.TRUFFLEHOG.read_text())
    assert "regex" not in json.dumps(data["rules"])
    assert [r["id"] for r in data["rules"] if trufflehog_data.shape(r["shape"]) != r["shape"]] == []
