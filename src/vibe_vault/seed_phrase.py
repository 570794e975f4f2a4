"""BIP-39 seed phrases written with no label: 12 to 24 words of its list.

A wallet's seed is 12, 15, 18, 21 or 24 words of BIP-39's English list (2048
words, `data/bip39-english.txt`, the list as BIP-39 publishes it), shown one
after another, numbered or not. English prose does not run so long on that
list alone: its commonest words (the, a, to, of, and, is, it, in) are not on
it, so a run of twelve is all but never prose. What is taken for a seed:

- a run of 12 to 26 list words with only spaces, line breaks and numbering
  ("1. ", "2) ") between them, the way a seed is written out (a quote or a
  stop may close it); or
- in a longer run (up to 48: a longer one is a word list), each run of
  12/15/18/21/24 words whose last word carries BIP-39's checksum of the rest
  (one in 16 to one in 256 of such runs by chance).

Joined by other glue (`"word", "word"`: a list in code) it is not taken.
"""

from __future__ import annotations

import os
import re
from functools import cache

from vibe_vault import patterns
from vibe_vault.text import rx

SEED_SIZES = (24, 21, 18, 15, 12)
PLAIN_RUN_MAX = 26  # a run this long at most is taken whole (a label word or two)
CHECKED_RUN_MAX = 48  # a longer run is a word list, not a seed: not searched
# A number before a word of a seed written out (`1.`, `2)`, `3:`, `4`).
_NUMBERING = r"\d{1,2}[.):]?\Z"
_GLUE = "\"'`([{<,.;:!?)]}>"
_FLAGS: list[re.Pattern[bytes]] = []


@cache
def words() -> dict[str, int]:
    """BIP-39's English list: each word with its number (0-2047)."""
    # A plain path beside the module, as pricing's table: importlib.resources
    # (pathlib, tempfile, zipfile...) was a ninth of a Stop's instructions.
    with open(os.path.join(os.path.dirname(__file__), "data", "bip39-english.txt"),
              encoding="utf-8") as f:
        listed = f.read()
    return {w: i for i, w in enumerate(listed.split())}


def checksum_holds(numbers: list[int]) -> bool:
    """Whether the words' numbers are a BIP-39 mnemonic: their 11-bit
    numbers end in the first bits of SHA-256 of the entropy before them."""
    import hashlib

    size = len(numbers)
    bits = 0
    for n in numbers:
        bits = bits << 11 | n
    check = size // 3  # bits of checksum
    entropy_bits = size * 11 - check
    entropy = (bits >> check).to_bytes(entropy_bits // 8, "big")
    digest = int.from_bytes(hashlib.sha256(entropy).digest(), "big")
    return bits & ((1 << check) - 1) == digest >> (256 - check)


def spans(low: str) -> list[tuple[int, int]]:
    """Where the seed phrases are in a lower-cased text.

    First, in C: which of its words are on the list, as bytes, searched for
    twelve list words with at most one other word (a number) between each
    (the first and last words may have glue on them: ten); only a text that
    has them is read word by word."""
    tokens = low.split()
    if len(tokens) < SEED_SIZES[-1] - 1:
        return []
    listed = words()
    if not _FLAGS:
        _FLAGS.append(patterns.compile(rb"(?:\x01\x00?){9}\x01"))
    if not _FLAGS[0].search(bytes(map(listed.__contains__, tokens))):
        return []
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int, int]] = []  # (start, end, number) of each word
    for m in rx(r"\S+").finditer(low):
        token = m.group(0)
        core = token.strip(_GLUE)
        number = listed.get(core)
        if number is None:
            if not rx(_NUMBERING).match(token):
                out += _seeds(run)
                run = []
            continue
        if core != token and token[0] in _GLUE:  # glue before it: a run begins
            out += _seeds(run)
            run = []
        start = m.start() + token.index(core)
        run.append((start, start + len(core), number))
        if core != token and token[-1] in _GLUE:  # glue after it: the run ends
            out += _seeds(run)
            run = []
    return out + _seeds(run)


def _seeds(run: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The seeds in a run of list words: all of it, when not too long; else
    its runs that carry the checksum."""
    if len(run) < SEED_SIZES[-1] or len(run) > CHECKED_RUN_MAX:
        return []
    if len(run) <= PLAIN_RUN_MAX:
        return [(run[0][0], run[-1][1])]
    found: list[tuple[int, int]] = []
    i = 0
    while i + SEED_SIZES[-1] <= len(run):
        for size in SEED_SIZES:
            if i + size <= len(run) and checksum_holds([n for _, _, n in run[i:i + size]]):
                found.append((run[i][0], run[i + size - 1][1]))
                i += size
                break
        else:
            i += 1
    return found
