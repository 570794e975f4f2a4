"""A line of a note that shows why it matched a search, the matches marked.

The index keeps no copy of the text (see vaultdb), so the snippet comes from
the note itself: the line above the user's section that shows the most of the
query's words within the width a snippet is cut to (the first such line), so
a long answer naming one word early and the rest far on does not win over a
line that holds them all together.
"""

from __future__ import annotations

import re

from vibe_vault.search_query import TOKEN, index_form, matches, paired, piece
from vibe_vault.vault import first_user_heading

TYPE_CHECKING = False  # (typing costs a search milliseconds to import)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

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
        folded = index_form(token)
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
    best = _best(lines, _Weigher(terms), finder, width)
    return _shown(best[1], best[2], best[3], width) if best else ""


def snippet_in(texts: dict[str, str], terms: list[tuple[str, bool]], width: int = WIDTH,
               roots: list[str] | None = None,
               weights: list[float] | None = None) -> tuple[str, str]:
    """The line of a session's texts (by column, as the index holds them) that
    shows the most of the query's words, cut and marked; and the column it is
    in (the first such, in the columns' order: the title before prompts before
    answers). Given the word each term stands for (`roots`: a word's forms are
    one) and its weight (`weights`: how rare it is), the line showing the
    heaviest words wins: `use pnpm instead of npm` shows the prompt "use
    pnpm", not a todo "use X instead of Y"."""
    if not terms:
        return "", ""
    finder = _finder(terms)
    weigher = _Weigher(terms, roots, weights)
    best: _Found | None = None
    where = ""
    for column, text in texts.items():
        lines: Iterable[str]
        if text.isascii():
            # only the lines where a term is (an answer may be pages long),
            # found as they are needed: the first holding every word ends it
            lines = _lines_holding(text, finder)
        else:
            lines = [line.strip() for line in text.split("\n")]
        found = _best(lines, weigher, finder, width)
        if found is not None and (best is None or found[0] > best[0]):
            best, where = found, column
            if best[0][1] >= weigher.wanted:
                break
    return (where, _shown(best[1], best[2], best[3], width)) if best else ("", "")


class _Weigher:
    """Which word of the query a matched token is, and what it weighs."""

    __slots__ = ("exact", "fallback", "prefixes", "terms", "wanted")

    def __init__(self, terms: list[tuple[str, bool]], roots: list[str] | None = None,
                 weights: list[float] | None = None) -> None:
        if roots is None:  # each term a word of its own, all weighing the same
            roots = [t for t, _ in terms]
        if weights is None:
            weights = [1.0] * len(terms)
        self.terms = terms
        self.fallback = min(weights, default=1.0)
        self.exact: dict[str, tuple[str, float]] = {}
        self.prefixes: list[tuple[str, str, float]] = []
        for (term, prefix), root, weight in zip(terms, roots, weights, strict=True):
            if prefix:
                self.prefixes.append((term, root, weight))
            else:
                self.exact.setdefault(term, (root, weight))
        self.wanted = len(set(roots))

    def of(self, folded: str) -> tuple[str, float]:
        """The word (its root) and weight of a matched token, folded."""
        found = self.exact.get(folded)
        if found is not None:
            return found
        for term, root, weight in self.prefixes:
            if folded.startswith(term):
                return root, weight
        return folded, self.fallback  # (not met: a match is its term, folded)


def _lines_holding(text: str, finder: re.Pattern[str]) -> Iterator[str]:
    """Each line of `text` where `finder` matches, once, in order."""
    end = -1
    for m in finder.finditer(text):
        if m.start() < end:
            continue  # (in the line just given)
        start = text.rfind("\n", 0, m.start()) + 1
        end = _line_end(text, start)
        yield text[start:end].strip()


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return end if end >= 0 else len(text)


# ((weight of the distinct words shown, how many), the line, where the terms
# are in it, where the window showing the most of them starts)
_Found = tuple[tuple[float, int], str, list[tuple[int, int]], int]


def _best(lines: Iterable[str], weigher: _Weigher, finder: re.Pattern[str],
          width: int) -> _Found | None:
    """The first line showing the heaviest distinct words in one cut of `width`."""
    best: _Found | None = None
    for line in lines:
        if not line:
            continue
        line = line.replace(MARK, "")  # the text's own bold: only the matches are marked
        spans = _spans(line, weigher.terms, finder)
        if not spans:
            continue
        found, first = _window(line, spans, weigher, width)
        if best is None or found > best[0]:
            best = (found, line, spans, first)
            if found[1] >= weigher.wanted:
                break
    return best


def _window(line: str, spans: list[tuple[int, int]], weigher: _Weigher,
            width: int) -> tuple[tuple[float, int], int]:
    """The heaviest distinct words that fit in one cut of `width` (their
    weight, rounded so that float sums compare alike, and how many), and the
    index of the first match of the first such cut."""
    keys = [weigher.of(index_form(line[a:b])) for a, b in spans]
    best: tuple[float, int] = (0.0, 0)
    first = 0
    counts: dict[str, int] = {}
    weight: dict[str, float] = {}
    j = 0
    for i, (a, _) in enumerate(spans):
        while j < len(spans) and spans[j][1] - a <= width:
            key, w = keys[j]
            counts[key] = counts.get(key, 0) + 1
            weight[key] = w
            j += 1
        found = (round(sum(weight[k] for k in counts), 9), len(counts))
        if found > best:
            best, first = found, i
        if j > i:  # the match at i leaves the window
            key = keys[i][0]
            counts[key] -= 1
            if not counts[key]:
                del counts[key]
        else:
            j = i + 1  # a match wider than the cut: alone
    return (best if best[1] else (keys[0][1], 1)), first


def _shown(line: str, spans: list[tuple[int, int]], first: int, width: int) -> str:
    """The line cut to `width` around its best window of matches (starting a
    little before its first match when they all fit), the matches marked."""
    a0 = spans[first][0]
    last_end = max((b for a, b in spans[first:] if b - a0 <= width), default=spans[first][1])
    lead = max(0, min(width // 3, width - (last_end - a0)))
    start = max(0, a0 - lead)
    end = min(len(line), start + width)
    if start and end - start < width:
        start = max(0, min(a0, end - width))
    out = []
    at = start
    for a, b in spans:
        if a < at or b > end:
            continue
        out.append(line[at:a] + MARK + line[a:b] + MARK)
        at = b
    out.append(line[at:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(line) else "")
