"""markdown.py: the frontmatter's YAML strings, read back by a YAML parser."""

from __future__ import annotations

import yaml
from hypothesis import example, given
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
