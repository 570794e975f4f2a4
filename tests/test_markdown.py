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
