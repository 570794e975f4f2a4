"""Review of issue 29, N3: a `#` is escaped only where it would be markup.

"#47 has been merged" read `\\#47` in every viewer that shows Markdown as
text. Obsidian reads `#word` as a tag only when the word holds a character
that is not a digit (`#47` is no tag, `#y1984` is); CommonMark reads `#` as a
heading only at a line's start, before a space or the line's end. Generated
lines mix both kinds; the oracle here is those two rules (and a CommonMark
parser), not the escaper.
"""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from conftest import examples
from vibe_vault.markdown import quote, text

_PIECES = st.sampled_from([
    "#47", "#1984", "#y1984", "#tag", "#nested/tag", "#a_b", "#_", "#-", "#47b", "#47/x",
    "#", "##", "# ", "#47.", "#47,", "#47)", "(#47)", "issue", "merged", "a#b", "PR", "x"])
_LINE = st.lists(st.one_of(_PIECES, st.sampled_from([" ", " ", "  "])),
                 min_size=1, max_size=8).map("".join).filter(lambda s: s.strip())


def tags(shown: str) -> list[str]:
    """Obsidian's tags in a line: a `#` at a word's start (not escaped) and
    the run of word characters, `/` and `-` after it, holding a non-digit."""
    found = []
    for m in re.finditer(r"(?<![^\s])#([\w/-]*)", shown):
        run = m.group(1)
        if run and not all(c in "0123456789" for c in run):
            found.append(m.group(0))
    return found


def plain_numbers(line: str) -> Counter[str]:
    """The `#<digits>` words of a line that are neither tag nor heading, as
    people write them: alone, or before a sentence's punctuation."""
    return Counter(w for w in line.split() if re.fullmatch(r"#[0-9]+[.,:!?)]*", w))


@settings(max_examples=examples(150, 600), deadline=None)
@given(line=_LINE)
@example(line="looks good. close the right panel. #47 has been merged")
@example(line="#47 has been merged")
def test_a_hash_is_escaped_only_where_it_would_be_a_tag_or_a_heading(line: str) -> None:
    for shown, body in ((text(line), str(text(line))),
                        (quote(line), str(quote(line)).removeprefix("> "))):
        assert not tags(body), (line, shown)
        kinds = {t.type for t in MarkdownIt("commonmark").parse(shown)}
        assert "heading_open" not in kinds, (line, shown)
        # What is neither reads as typed: no backslash before it.
        said = plain_numbers(line)
        assert plain_numbers(body) & said == said, (line, shown)
