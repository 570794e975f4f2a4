"""A token bounded only by a character that shows nothing is still a token on
every way out. Escaping a text for a note or a terminal drops some of those
characters (bidi controls) and escape sequences: done before the gate, that
glued the token to the letters around it (`q\u202enpm_…\u202eRZ` read
`qnpm_…RZ`, which no rule matches) and `vv doctor`, the log and the notes
showed it. The tokens are every shaped rule's samples from the gate's own
table; the characters, every one of Unicode's format (Cf), control (Cc) and
separator (Zs, Zl, Zp) characters."""

from __future__ import annotations

import functools
import string
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.commands.doctor import shown
from vibe_vault.fold.context import note_text
from vibe_vault.log import _clean
from vibe_vault.redact import Redactor
from vibe_vault.secret_rules import RULES, SHAPED, samples

GATE = Redactor()


@functools.cache
def shows_nothing() -> list[str]:
    """Every format, control and separator character (all of Unicode read: half
    a second, paid where these tests run rather than in every worker's collection)."""
    return [c for c in map(chr, range(0x110000))
            if unicodedata.category(c) in ("Cf", "Cc", "Zs", "Zl", "Zp")]


SHOWS_NOTHING = st.deferred(lambda: st.sampled_from(shows_nothing()))

# The sample tokens the gate catches standing alone (the rest are caught in
# their context only, which this test does not build).
TOKENS = [(rule.id, s.secret) for rule in RULES if rule.how == SHAPED
          for seed in (7, 27) for s in samples(rule, seed)
          if s.secret not in GATE.redact(s.secret)[0]]
ALNUM = st.text(alphabet=string.ascii_letters + string.digits, min_size=0, max_size=6)

WAYS_OUT = {
    "doctor": lambda text: shown(text, GATE),
    "log": _clean,
    "note": lambda text: note_text(text, None, GATE)[0],
}


def test_the_table_gives_tokens_of_many_rules() -> None:
    assert len({rule for rule, _ in TOKENS}) >= 30


@settings(max_examples=examples(100, 300), deadline=None)
@given(st.sampled_from(TOKENS), ALNUM, SHOWS_NOTHING,
       SHOWS_NOTHING, ALNUM)
def test_a_token_between_characters_that_show_nothing_is_redacted_everywhere(
        token: tuple[str, str], before: str, left: str, right: str, after: str) -> None:
    rule, secret = token
    text = before + left + secret + right + after
    for way, out in WAYS_OUT.items():
        assert secret not in out(text), (way, rule, ascii(text))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TOKENS), SHOWS_NOTHING, ALNUM)
def test_a_token_glued_after_one_is_redacted(token: tuple[str, str], left: str,
                                             after: str) -> None:
    rule, secret = token
    for text in (left + secret, left + secret + " " + after):
        for way, out in WAYS_OUT.items():
            assert secret not in out(text), (way, rule, ascii(text))
        assert secret not in GATE.redact(text)[0], (rule, ascii(text))


# (no deadline: the first example compiles the patterns of the rules its text
# meets, ~1 s on a loaded machine; how a rule's time grows is test_gate_worst's)
@settings(deadline=None)
@given(st.sampled_from(TOKENS),
       st.sampled_from(["\x1b[0m", "\x1b]0;x\x07", "\u202e", "\u2066"]))
def test_a_token_joined_only_by_the_escape_is_redacted(token: tuple[str, str],
                                                       cut: str) -> None:
    """The other way round: a token whose pieces an escape joins."""
    rule, secret = token
    half = len(secret) // 2
    text = "x " + secret[:half] + cut + secret[half:] + " y"
    for way, out in WAYS_OUT.items():
        assert secret not in out(text), (way, rule, ascii(text))
