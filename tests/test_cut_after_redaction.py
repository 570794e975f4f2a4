"""Cut after redaction, everywhere: a text shortened anywhere on its way to
the state, the note or a log is redacted first, then cut. Generated: a secret
(a shaped token the rules know, or a value the session learned) placed at
every offset around each length a text is cut to, in filler with or without
spaces. Oracle: no run of 8 characters of the secret, which the test chose,
is in what comes out."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples

# Every length a transcript text is cut to before or after the gate (the
# limits the fold passes and the pre-cuts made from them).
LIMITS = (60, 80, 100, 120, 160, 200, 240, 300, 400, 700, 2000)


def _fragments(secret: str, out: str) -> list[str]:
    return [secret[i:i + 8] for i in range(len(secret) - 7) if secret[i:i + 8] in out]


secrets = st.one_of(
    st.text(string.ascii_letters + string.digits, min_size=36, max_size=36).map(
        lambda s: ("shaped", "ghp_" + s)),
    st.text(string.ascii_letters + string.digits, min_size=12, max_size=120).filter(
        lambda s: any(c.isdigit() for c in s)).map(lambda s: ("learned", "Qv" + s)),
)


def _text(filler: str, offset: int, secret: str) -> str:
    pad = (filler * (offset // len(filler) + 2))[:offset]
    return pad + " " + secret + " " + filler * 3  # a word of its own, as rules find it


cases = st.tuples(
    secrets,
    st.sampled_from(LIMITS),
    st.sampled_from((1, 2, 4, 8)),  # the cut lengths tried: limit × this
    st.integers(-130, 10),  # where the secret starts, relative to that length
    st.sampled_from(("x", "ab ", "word ", "-")),
)


@settings(max_examples=examples(40, 400), deadline=None)
@given(cases)
def test_no_fragment_of_a_secret_survives_any_cut(case: tuple) -> None:  # type: ignore[type-arg]
    from vibe_vault.fold.context import Context
    from vibe_vault.fold.errors import error_text
    from vibe_vault.log import _clean
    from vibe_vault.redact import DEFAULT
    from vibe_vault.session import gate
    from vibe_vault.state import Fold

    (kind, secret), limit, times, rel, filler = case
    at = max(0, limit * times + rel)
    raw = _text(filler, at, secret)
    facts = Fold()
    ctx = Context(facts, DEFAULT)
    if kind == "learned":
        ctx.learn([secret])
    outs = {
        "text": ctx.text(raw, limit), "stated": ctx.text(raw, limit, stated=True),
        "line": ctx.line(raw, limit), "name": ctx.name(raw, limit),
        "exact": ctx.exact(raw, limit * 2),
        "error": error_text(ctx, "Exit code 1\n" + raw) if limit >= 100 else "",
        "gate": gate(raw, limit, DEFAULT, list(facts.learned)),
    }
    if kind == "shaped":
        outs["log"] = _clean(raw)
    leaked = {k: _fragments(secret, v) for k, v in outs.items() if _fragments(secret, v)}
    assert not leaked, (kind, limit, times, at, leaked)
