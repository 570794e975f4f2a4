"""The shortcuts a Stop takes past a pattern or a call per item (issue 31)
give what the long way gives, on generated input: each is checked against
the pattern or the one-by-one sum it stands for."""

from __future__ import annotations

import re
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from vibe_vault import hook_input, paths, redact
from vibe_vault.fold.usage import add_tokens, sum_tokens
from vibe_vault.state import Tokens

_EVERY_CHARACTER = "".join(chr(c) for c in range(sys.maxunicode + 1)
                           if not 0xD800 <= c < 0xE000)

tokens = st.builds(
    Tokens, model=st.sampled_from(["", "unknown", "claude-a", "claude-b"]),
    input=st.integers(0, 10**9), output=st.integers(0, 10**6), cache_read=st.integers(0, 10**9),
    cache_creation=st.integers(0, 10**7), cache_5m=st.integers(0, 10**7),
    cache_1h=st.integers(0, 10**7), context=st.sampled_from([0, 100_000, 200_000]),
    fast=st.booleans(), us_only=st.booleans(), written=st.integers(0, 10**6),
    short=st.integers(0, 5), unrecorded=st.integers(0, 10**5))


@settings(deadline=None)
@given(st.lists(tokens, max_size=40))
def test_tokens_summed_by_column_are_the_running_totals(parts: list[Tokens]) -> None:
    one_by_one: dict[str, Tokens] = {}
    for t in parts:
        add_tokens(one_by_one, t)
    summed = sum_tokens(parts)
    assert list(summed) == list(one_by_one)
    assert summed == one_by_one


_CONTROL_CLASS = hook_input._CONTROL
_UNSAFE_CLASS = paths._UNSAFE.removesuffix("+")
_DISGUISE_CLASS = redact._DISGUISE.split("]+|")[0] + "]"


def test_every_control_a_path_is_refused_for_is_a_character_python_does_not_print() -> None:
    """hook_input and safe_name skip their patterns for a string that prints
    whole (and, for safe_name, holds none of _UNSAFE_PRINTED): sound only if
    every other character the patterns name does not print."""
    for pattern, printed in ((_CONTROL_CLASS, ""), (_UNSAFE_CLASS, paths._UNSAFE_PRINTED)):
        named = re.findall(pattern, _EVERY_CHARACTER)
        assert len(named) > 60
        assert all(not c.isprintable() or c in printed for c in named)
        assert all(re.fullmatch(pattern, c) for c in printed)


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ:/\\.- ")) | st.characters(), max_size=12))
@example("C:\\x")
@example("\\\\server\\share")
@example("é:/x")
def test_windows_paths_and_parts_are_told_as_the_patterns_tell_them(p: str) -> None:
    assert paths.is_windows_path(p) == (bool(re.match(r"^[A-Za-z]:[\\/]", p))
                                        or p.startswith("\\\\"))
    assert paths.split_path(p) == [c for c in re.split(r"[\\/]+", p) if c]


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list('ab-. :<|#\x07\u202e')) | st.characters(),
               max_size=30))
@example("a--b---c")
@example(" -.x.- ")
def test_a_name_is_cleaned_as_the_patterns_clean_it(name: str) -> None:
    assert paths._cleaned(name) == re.sub(r"-{2,}", "-",
                                          re.sub(paths._UNSAFE, "-", name).strip(" .-"))


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list("a%1F\\\n\r\t ")) | st.characters(), max_size=30))
@example("x\u200by")
@example("a%2Fb")
@example("line \\\r\n next")
def test_a_text_read_as_written_is_told_without_the_pattern(text: str) -> None:
    """`_view` says a text reads as written without compiling _DISGUISE only
    where the pattern finds nothing in it."""
    if not re.search(redact._DISGUISE, text):
        assert redact._view(text) is None
    assert set(re.findall(_DISGUISE_CLASS, _EVERY_CHARACTER)) == redact._disguising()
