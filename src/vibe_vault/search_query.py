"""`vv search`'s query syntax, made into an SQLite FTS5 expression.

Words, `"phrases"`, `prefix*` and `-word` (also `-"a phrase"`); every part not
negated must match. A word is split the way the index splits text (letters and
digits; `auth.py` is the phrase "auth py"), and every token is quoted, so no
input is read as FTS5 syntax of its own.
"""

from __future__ import annotations

import re
import unicodedata

# The index's text columns, in the order the database declares them, with how
# much a match in each weighs when hits are ranked (bm25 weights).
COLUMNS: dict[str, float] = {
    "title": 10.0,
    "prompts": 5.0,
    "commits": 4.0,
    "files": 3.0,
    "actions": 2.0,
    "commands": 2.0,
    "errors": 2.0,
    "todos": 2.0,
    "answers": 1.0,
}

_PART = re.compile(r'(-?)"([^"]*)"?|(-?)(\S+)')
TOKEN = re.compile(r"[^\W_]+")


class Query:
    __slots__ = ("fts", "terms")

    def __init__(self, fts: str, terms: list[tuple[str, bool]]) -> None:
        self.fts = fts  # the FTS5 MATCH expression
        self.terms = terms  # (folded token, is a prefix) of the wanted parts


class BadQuery(ValueError):
    pass


def fold(text: str) -> str:
    """Lower case without diacritics: how the index compares tokens."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def parse(text: str) -> Query:
    wanted: list[str] = []
    unwanted: list[str] = []
    terms: list[tuple[str, bool]] = []
    for m in _PART.finditer(text):
        if m.group(2) is not None:
            negated, body, prefix = m.group(1) == "-", m.group(2), False
        else:
            negated, body = m.group(3) == "-", m.group(4)
            prefix = body.endswith("*")
        tokens = [fold(t) for t in TOKEN.findall(body)]
        if not tokens:
            continue
        phrase = '"' + " ".join(tokens) + '"' + ("*" if prefix else "")
        (unwanted if negated else wanted).append(phrase)
        if not negated:
            terms.extend((t, prefix and i == len(tokens) - 1) for i, t in enumerate(tokens))
    if not wanted:
        raise BadQuery("give at least one word to look for (a -word only leaves things out)")
    expr = " AND ".join(wanted)
    for phrase in unwanted:
        expr = f"({expr}) NOT {phrase}"
    return Query(fts=expr, terms=terms)


def matches(token: str, terms: list[tuple[str, bool]]) -> bool:
    folded = fold(token)
    return any(folded.startswith(t) if prefix else folded == t for t, prefix in terms)
