"""A line of a note that shows why it matched a search, the matches marked.

The index keeps no copy of the text (see vaultdb), so the snippet comes from
the note itself: the line above the user's section that holds the most of the
query's words (the first such line).
"""

from __future__ import annotations

import re

from vibe_vault.search_query import TOKEN, fold, matches, paired, piece
from vibe_vault.vault import first_user_heading

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
    runs = [t for t, _ in terms if paired(t)]
    words = [(t, prefix) for t, prefix in terms if not paired(t)]
    spans: list[tuple[int, int]] = []
    for m in TOKEN.finditer(line):
        token = m.group()
        folded = fold(token)
        if len(folded) != len(token):  # (ß, ligatures): the token as a whole
            if matches(token, terms):
                spans.append(m.span())
            continue
        if not paired(folded):  # a word of a spaced script, as a whole
            if words and matches(folded, words):
                spans.append(m.span())
            continue
        for p in piece().finditer(folded):
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
    """The line of a note's body that holds the most of the terms, cut and marked."""
    if not terms:
        return ""
    finder = _finder(terms)
    lines = []
    for raw in body_of(note).splitlines():
        line = raw.strip().lstrip(">-*|#").strip().rstrip("|").strip()
        if not line or line.startswith("<!--"):
            continue
        if "\\" in line:
            line = _ESCAPED.sub(r"\1", line)
        lines.append(line)
    best = _best(lines, terms, finder)
    return _shown(best[1], best[2], width) if best else ""


def snippet_in(texts: dict[str, str], terms: list[tuple[str, bool]],
               width: int = WIDTH) -> tuple[str, str]:
    """The line of a session's texts (by column, as the index holds them) that
    holds the most of the terms, cut and marked; and the column it is in (the
    first such, in the columns' order: the title before prompts before answers)."""
    if not terms:
        return "", ""
    finder = _finder(terms)
    wanted = len({t for t, _ in terms})
    best: tuple[int, str, list[tuple[int, int]]] | None = None
    where = ""
    for column, text in texts.items():
        if text.isascii():
            # only the lines where a term is (an answer may be pages long)
            starts = dict.fromkeys(text.rfind("\n", 0, m.start()) + 1
                                   for m in finder.finditer(text))
            lines = [text[a:_line_end(text, a)].strip() for a in starts]
        else:
            lines = [line.strip() for line in text.split("\n")]
        found = _best(lines, terms, finder)
        if found is not None and (best is None or found[0] > best[0]):
            best, where = found, column
            if best[0] >= wanted:
                break
    return (where, _shown(best[1], best[2], width)) if best else ("", "")


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return end if end >= 0 else len(text)


def _best(lines: list[str], terms: list[tuple[str, bool]],
          finder: re.Pattern[str]) -> tuple[int, str, list[tuple[int, int]]] | None:
    """The first line with the most distinct terms, and where they are in it."""
    wanted = len({t for t, _ in terms})
    best: tuple[int, str, list[tuple[int, int]]] | None = None
    for line in lines:
        if not line:
            continue
        line = line.replace(MARK, "")  # the text's own bold: only the matches are marked
        spans = _spans(line, terms, finder)
        if not spans:
            continue
        found = len({fold(line[a:b]) for a, b in spans})
        if best is None or found > best[0]:
            best = (found, line, spans)
            if found >= wanted:
                break
    return best


def _shown(line: str, spans: list[tuple[int, int]], width: int) -> str:
    """The line cut to `width` around its first match, the matches marked."""
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
