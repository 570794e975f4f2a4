"""A vendor's token glued after a letter or a digit (minified text, a space
left out: `keysk-…`, `xAKIA…`, `tokenhf_…`) is hidden. The gate took a
token after a letter only where its prefix is one no word ends in (`ghp_`,
`glpat-`); a prefix a word may end in (`sk-`: `desk-`, `risk-`; `AKIA`;
`re_`: `store_`) glued after one now counts when what follows it reads as
a token: 16 characters or more holding a digit and a capital, no hex, no
name of words and numbers.

Generated: the table's own token forms (secret_rules.RULES' SHAPED samples
whose value begins with the rule's prefix, filled from a drawn seed), the
value glued after a drawn run of ASCII letters or digits, in the sample's
own text or a minified line. Oracle: no run of six of the value in what the
gate gives, beyond what the text with the value swapped for marks gives; a
value with no digit or no capital after its prefix is not drawn (such a
run after a word is the word's: `task-3fa85f64…`), nor one whose prefix
words and names end in (`key-`, `api-`, `live_`: `monkey-…`, redact's
_GLUE_PRONE), nor base64 of a token's prefix (`Z2hw`, which any base64
text may hold). Look-alikes: words
ending in a prefix's letters, then names of words and numbers or hex, are
left whole.
"""

from __future__ import annotations

import random
import string
from functools import cache

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_overlaps import leaked


@cache
def _glued_forms() -> list[tuple[int, int, str]]:
    """(rule, sample, prefix) of the table's token forms whose value begins
    with one of the rule's triggers."""
    from vibe_vault.redact import _GLUE_PRONE
    from vibe_vault.secret_rules import RULES, SHAPED, samples

    out = []
    for i, rule in enumerate(RULES):
        if rule.how != SHAPED or rule.id == "encoded-token":
            continue
        for j, sample in enumerate(samples(rule)):
            low = sample.secret.lower()
            prefixes = [t for t in rule.triggers if low.startswith(t) and len(t) >= 3]
            if set(prefixes) & _GLUE_PRONE:
                continue
            if prefixes and not any(c.isspace() or c == "\\" for c in sample.secret):
                out.append((i, j, max(prefixes, key=len)))
    return out


def _token_body(body: str) -> bool:
    return len(body) >= 16 and any(c.isdigit() for c in body) and any(
        c.isupper() for c in body) and not all(c in string.hexdigits + "-" for c in body)


@st.composite
def glued_tokens(draw: st.DrawFn) -> tuple[str, str]:
    from vibe_vault.secret_rules import RULES, expand

    i, j, prefix = draw(st.sampled_from(_glued_forms()))
    sample = expand(RULES[i].samples[j], random.Random(draw(st.integers(0, 2**32))))
    value = sample.secret
    assume(_token_body(value[len(prefix):]))
    glue = draw(st.text(string.ascii_letters + string.digits, min_size=1, max_size=8))
    where = draw(st.sampled_from(["sample", "minified", "json", "plain"]))
    glued = glue + value
    text = {
        "sample": sample.text.replace(value, glued),
        "minified": f'var a="x",b={glued},c=1;',
        "json": f'{{"k":"{glued}"}}',
        "plain": glued,
    }[where]
    return text, value


@settings(max_examples=examples(150, 1500), deadline=None)
@given(glued_tokens())
def test_a_token_glued_after_a_letter_or_digit_is_hidden(case: tuple[str, str]) -> None:
    from test_secret_forms_more import CONTROL
    from vibe_vault.redact import Redactor

    text, value = case
    gate = Redactor()
    out, n = gate.redact(text)
    control, _ = gate.redact(text.replace(value, CONTROL))
    assert n >= 1 and not leaked(out, control, value), (text, out)


# Words that end in a prefix's letters, then what a word goes on to: names of
# words and numbers, hex ids, a version.
_ENDINGS = ["desk", "task", "risk", "ask", "disk", "mask", "kiosk", "whisk", "store", "are",
            "compare", "share", "pre", "rehf", "chef", "SLOVAKIA", "MALAYSIA", "KSG", "jsg",
            "Dapi", "handsl", "ecsl", "wasfc"]
_PREFIXES = ["sk-", "AKIA", "ASIA", "re_", "hf_", "SG.", "sl.", "fc-", "dapi", "AIza", "r8_"]


@st.composite
def look_alikes(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from(_ENDINGS))
    prefix = draw(st.sampled_from(_PREFIXES))
    rng = random.Random(draw(st.integers(0, 2**32)))
    words = ["management", "system", "final", "review", "user", "table", "Handler",
             "Config", "assessment", "report", "Version", "Q3"]
    body = draw(st.sampled_from([
        "-".join(rng.sample(words, 3)) + f"-{rng.randrange(2000, 2030)}",
        "_".join(rng.sample(words, 3)) + f"_v{rng.randrange(1, 9)}",
        "".join(rng.choice("0123456789abcdef") for _ in range(32)),
        "".join(w.capitalize() for w in rng.sample(words, 4)) + str(rng.randrange(1, 99)),
        f"{rng.randrange(1, 9)}.{rng.randrange(0, 20)}.{rng.randrange(0, 50)}-beta",
    ]))
    lead = draw(st.sampled_from(["", "the ", "see ", "- ", "`", "id: "]))
    return f"{lead}{word}{prefix}{body} done"


@settings(max_examples=examples(150, 1500), deadline=None)
@given(look_alikes())
def test_words_ending_in_a_prefix_s_letters_are_left(text: str) -> None:
    from vibe_vault.redact import Redactor

    assert Redactor().redact(text) == (text, 0)
