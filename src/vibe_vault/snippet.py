"""A line of a note that shows why it matched a search, the matches marked.

The index keeps no copy of the text (see vaultdb), so the snippet comes from
the note itself: the line above the user's section that holds the most of the
query's words (the first such line).
"""

from __future__ import annotations

import re

from vibe_vault.search_query import CJK, PIECE, TOKEN, fold, matches
from vibe_vault.text import first_user_heading

WIDTH = 160
MARK = "**"
# Markdown escapes the note needed, not wanted in a line shown alone.
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def body_of(note: str) -> str:
    """The note without its frontmatter and without the user's own section."""
    if note.startswith("---\n"):
        end = note.find("\n---\n", 4)
        note = note[end + 5:] if end >= 0 else note
    m = first_user_heading(note)  # as the user may have retyped it
    return note[:m.start()] if m else note


def _finder(terms: list[tuple[str, bool]]) -> re.Pattern[str]:
    """The terms as whole tokens (a prefix as a token's start), any case."""
    alternatives = sorted((re.escape(t) + (r"[^\W_]*" if prefix else "") for t, prefix in terms),
                          key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alternatives) + r")(?![^\W_])", re.IGNORECASE)


def _spans(line: str, terms: list[tuple[str, bool]],
           finder: re.Pattern[str]) -> list[tuple[int, int]]:
    if line.isascii():
        return [m.span() for m in finder.finditer(line)]
    # accents and other scripts: token by token, folded as the index folds them
    runs = [t for t, _ in terms if CJK.match(t)]
    words = [(t, prefix) for t, prefix in terms if not CJK.match(t)]
    spans: list[tuple[int, int]] = []
    for m in TOKEN.finditer(line):
        token = m.group()
        folded = fold(token)
        if len(folded) != len(token):  # (ß, ligatures): the token as a whole
            if matches(token, terms):
                spans.append(m.span())
            continue
        for p in PIECE.finditer(folded):
            at = m.start() + p.start()
            if p.group(1):  # a run of a paired script: where the terms are in it
                for run in runs:
                    i = p.group().find(run)
                    while i >= 0:
                        spans.append((at + i, at + i + len(run)))
                        i = p.group().find(run, i + 1)
            elif words and matches(p.group(), words):
                spans.append((at, at + len(p.group())))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def snippet(note: str, terms: list[tuple[str, bool]], width: int = WIDTH) -> str:
    if not terms:
        return ""
    finder = _finder(terms)
    wanted = len({t for t, _ in terms})
    best: tuple[int, str, list[tuple[int, int]]] | None = None
    for raw in body_of(note).splitlines():
        line = raw.strip().lstrip(">-*|#").strip().rstrip("|").strip()
        if not line or line.startswith("<!--"):
            continue
        if "\\" in line:
            line = _ESCAPED.sub(r"\1", line)
        line = line.replace(MARK, "")  # the note's own bold: only the matches are marked
        spans = _spans(line, terms, finder)
        if not spans:
            continue
        found = len({fold(line[a:b]) for a, b in spans})
        if best is None or found > best[0]:
            best = (found, line, spans)
            if found >= wanted:
                break
    if best is None:
        return ""
    _, line, spans = best
    start = max(0, spans[0][0] - width // 3)
    end = min(len(line), start + width)
    if start and end - start < width:
        start = max(0, end - width)
    out = []
    at = start
    for a, b in spans:
        if a < at or b > end:
            continue
        out.append(line[at:a] + MARK + line[a:b] + MARK)
        at = b
    out.append(line[at:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(line) else "")
