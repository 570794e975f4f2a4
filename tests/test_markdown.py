"""markdown.py: the frontmatter's YAML strings, read back by a YAML parser."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vibe_vault.markdown import yaml_str


@given(st.text())
@example("A\n")  # `$` also matches before a final newline: this once went out plain
@example("12\n")
def test_yaml_str_round_trips(s: str) -> None:
    loaded = yaml.safe_load(f"k: {yaml_str(s)}\n")
    expected = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 or ord(c) in (0xFFFE, 0xFFFF)
                       else c for c in s)
    assert loaded == {"k": expected}


# Every plain scalar a YAML reader turns into something else (PyYAML's own
# implicit resolvers: bool, int, float, null, timestamp, merge, value): strings
# drawn from each rule's pattern, with characters a title could hold beside it.
_RESOLVED = [rx.pattern for rules in yaml.resolver.Resolver.yaml_implicit_resolvers.values()
             for _tag, rx in rules]


@given(st.sampled_from(sorted(set(_RESOLVED))).flatmap(
    lambda rx: st.from_regex(rx, fullmatch=True)),
    st.sampled_from(["", "\u2066", "\u200b", "\ufeff", " "]))
@example("0x1f___", "")  # YAML 1.1 reads 31: it once went out plain
@example("2024-01-02", "")
def test_yaml_str_never_leaves_a_number_or_date_plain(s: str, beside: str) -> None:
    for text in (s, s + beside, beside + s):
        assert yaml.safe_load(f"k: {yaml_str(text)}\n") == {"k": text}


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab :<&[]!^#%`\\(-*_~=/")) | st.characters(),
               max_size=40))
@example("javascript:alert(1)")
@example("a ![x](y) [^1] [[w]] <b> &amp; `c` %%d%% e::f #tag ^id \\")
def test_inline_skips_the_pattern_only_where_it_finds_nothing(s: str) -> None:
    """`_inline` passes over a text with none of the characters a markup
    escape begins at (most labels) without running the escaping pattern:
    the same text as the pattern makes of it, whatever the text."""
    from vibe_vault.markdown import _INLINE, _inline, _inline_escape

    assert _inline(s) == _INLINE.sub(_inline_escape, s)


_MARKUP_TOKENS = {"html_inline", "html_block", "link_open", "image"}
_FENCE_LINE = st.builds(
    lambda indent, mark, info: indent + mark + info,
    st.sampled_from(["", " ", "   ", "- ", "1. ", "  - "]),
    st.sampled_from(["```", "````", "~~~", "~~~~"]),
    st.text(alphabet="`~ <>/ab*[]()!:", max_size=24))


@settings(deadline=None)
@given(lines=st.lists(st.one_of(_FENCE_LINE, st.text(alphabet="`~ <>/ab*[]()!:\\-1.", max_size=24)),
                      min_size=1, max_size=5),
       labelled=st.booleans())
@example(lines=["``` <script>alert(1)</script> `code` and ``"], labelled=True)
@example(lines=["``` <script>alert(1)</script>"], labelled=True)
def test_a_quoted_line_opening_like_a_fence_makes_no_markup(lines: list[str],
                                                           labelled: bool) -> None:
    """Quoted transcript text, any of its lines opening like a code fence
    (with an info string CommonMark may or may not accept), is text or code in
    the note: never HTML, a link or an image, as a CommonMark reader parses it."""
    from markdown_it import MarkdownIt

    from vibe_vault.markdown import labelled_quote, quote

    text = "\n".join(lines)
    block = labelled_quote("**Claude:**", text) if labelled else quote(text)
    for token in MarkdownIt("commonmark").parse(block):
        assert token.type not in _MARKUP_TOKENS, (token.type, block)
        for child in token.children or []:
            assert child.type not in _MARKUP_TOKENS, (child.type, block)
