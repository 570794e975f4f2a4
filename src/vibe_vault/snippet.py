"""A line of a note that shows why it matched a search, the matches marked.

The index keeps no copy of the text (see vaultdb), so the snippet comes from
the note itself: the line above the user's section that holds the most of the
query's words (the first such line).
"""

from __future__ import annotations

import re

from vibe_vault.search_query import TOKEN, fold, matches
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
    # accents and other scripts: token by token, as the index compares them
    return [m.span() for m in TOKEN.finditer(line) if matches(m.group(), terms)]


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
