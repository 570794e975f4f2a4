"""A title that ends in `#` keeps it (CI's draw on 324c0b5: a prompt titled
`[Image #` showed "[Image" as the note's heading: Markdown drops a heading's
closing `#`s after a space). Generated: words, then `#`s after a space or
not; the oracle is what markdown-it shows of `# <title>`, the words as typed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from conftest import examples
from vibe_vault.markdown import text

words = st.lists(st.text("abcxyzC[]", min_size=1, max_size=6), min_size=1, max_size=3).map(" ".join)


@settings(max_examples=examples(100, 400), deadline=None)
@given(head=words, sep=st.sampled_from([" ", "  ", "\t", ""]), hashes=st.integers(1, 4))
def test_a_title_ending_in_hashes_keeps_them(head: str, sep: str, hashes: int) -> None:
    title = head + sep + "#" * hashes
    tokens = MarkdownIt("commonmark").parse(f"# {text(title)}\n")
    shown = "".join(t.content for t in tokens[1].children or [])
    assert " ".join(shown.split()) == " ".join(title.strip().split()), (title, str(text(title)))
