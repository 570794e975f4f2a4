"""The shortcuts a Stop takes past a pattern or a call per item (issue 31)
give what the long way gives, on generated input: each is checked against
the pattern or the one-by-one sum it stands for."""

from __future__ import annotations

import array
import re
import sys

import msgspec
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vibe_vault import figures, hook_input, paths, redact
from vibe_vault import state as state_module
from vibe_vault.fold.usage import add_tokens, sum_tokens
from vibe_vault.state import (
    STATE_VERSION,
    SessionState,
    Subagent,
    Tokens,
    decode_state,
    encode_state,
)

# (decoded from their code points at once: a character at a time was a second of
# each worker's collection)
_EVERY_CHARACTER = "".join(array.array("I", codes).tobytes().decode("utf-32-le")
                           for codes in (range(0xD800), range(0xE000, sys.maxunicode + 1)))

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


class _Version(msgspec.Struct):
    version: int = 0


def _decoded_version(data: bytes) -> int | None:
    """A saved state's version the long way: a decoder's pass over all of
    it (None: not msgpack, or no map with an int version)."""
    try:
        return msgspec.msgpack.decode(data, type=_Version).version
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        return None


_ints = st.integers(-(2**63), 2**64 - 1)  # (what msgpack holds)
# Maps as a state's file may hold them: a version of any size or kind (or
# none), first or after other keys, beside values of any kind.
_values = st.none() | st.booleans() | _ints | st.floats(allow_nan=False) | st.text(
    max_size=5) | st.binary(max_size=5)
_saved_maps = st.builds(
    lambda before, version, after: {**before, **({"version": version}
                                                 if version is not ... else {}), **after},
    st.dictionaries(st.sampled_from(["session_id", "note", "x"]), _values, max_size=3),
    st.just(...) | st.just(STATE_VERSION) | _ints | _values,
    st.dictionaries(st.text(max_size=3), _values, max_size=20))


@settings(deadline=None)
@given(_saved_maps)
@example({"version": STATE_VERSION})
@example({"version": 2**64 - 1})
@example({"version": -1})
@example({"version": True})
@example({"version": STATE_VERSION, **{str(k): k for k in range(20)}})  # (a map16)
def test_a_saved_version_read_from_the_first_bytes_is_the_decoders(saved: dict[str, object]
                                                                    ) -> None:
    data = msgspec.msgpack.encode(saved)
    assert state_module.saved_version(data) == (_decoded_version(data) or 0)


@settings(deadline=None)
@given(st.builds(SessionState, session_id=st.text(max_size=8), note=st.text(max_size=8),
                 status=st.sampled_from(["active", "ended"])),
       st.integers(0, 1 << 12), st.binary(max_size=4))
def test_a_state_cut_or_damaged_after_its_version_is_refused_as_before(
        saved: SessionState, cut: int, junk: bytes) -> None:
    """A state of this version reads back whole; cut short, or with bytes
    after it, it is refused (None) exactly where the decoder refuses it (a
    string cut in a character's bytes too: read as no state, not raised)."""
    data = encode_state(saved)
    assert decode_state(data) == saved
    for damaged in (data[:cut], data[:cut] + junk, data + junk):
        try:
            whole = msgspec.msgpack.decode(damaged, type=SessionState)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
            whole = None
        expected = whole if _decoded_version(damaged) == STATE_VERSION else None
        assert decode_state(damaged) == expected


# Few prompts, agents and keys, so results meet messages of their prompt, of
# their agent and of others, and keys that are a result's ("result:t1").
_prompts = st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1))
_message = st.builds(lambda p, output, model: Tokens(
    model=model, input=p[0], cache_read=p[1], cache_creation=p[2], output=output),
    _prompts, st.integers(0, 5), st.sampled_from(["", "claude-a"]))
_keys = st.sampled_from(["m1", "m2", "m3", "m4", "result:t1", "result:t2"])
_agents = st.sampled_from(["", "a", "b"])


@settings(deadline=None)
@given(st.dictionaries(_keys, _message, max_size=6),
       st.lists(st.builds(Subagent, tool_id=st.sampled_from(["t1", "t2", "t3"]),
                          agent_id=_agents, usage=st.none() | _message), max_size=8),
       st.dictionaries(_agents.filter(bool), st.lists(_keys, max_size=6), max_size=2),
       st.dictionaries(_agents.filter(bool), st.lists(st.sampled_from(["m-a", "m-b"]),
                                                      max_size=2), max_size=2))
def test_task_results_found_by_prompt_are_those_a_scan_finds(
        recent: dict[str, Tokens], subs: list[Subagent], mine: dict[str, list[str]],
        models: dict[str, list[str]]) -> None:
    """A Task result counted by its agent's table of messages by prompt
    changes the same messages, in the same order, as the scan of the
    agent's messages (else the session's) from the last it stands for."""
    scanned = dict(recent)
    for sub in subs:
        figures._count_result(scanned, sub, mine.get(sub.agent_id) if sub.agent_id
                              else list(scanned), models.get(sub.agent_id, []))
    looked_up = dict(recent)
    figures._count_results(looked_up, subs, mine, models)
    assert list(looked_up.items()) == list(scanned.items())
