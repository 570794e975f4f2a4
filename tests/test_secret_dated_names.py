"""A file or an id named with a date is not a password given in prose.

Review 31 (235cf379, a run of an earnings-call extractor): the files
`/tmp/extract_pass_guidance_primary_BURL_2023-03-02T08.30.json` were read as
`pass <value>`, the value `guidance_primary_BURL_2023-03-02T08` learned as a
secret, and the source id `BURL_2023-03-02T08` blanked through the whole
note, the headline too ("earnings call ([REDACTED:learned]:30)"). A date or a
time inside a name is one of its words; a random run holds none.

Generated: names of words (snake or kebab case, a ticker in capitals) around
`pass`, with an ISO date and maybe a time, as a file in a command, in an
answer, a path: left whole, nothing learned. Beside it, hidden: a password
given in prose whose random run has a date glued to it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_small_leaks import _hidden, shannon_bits, token
from vibe_vault.redact import DEFAULT

WORDS = ["extract", "guidance", "primary", "enrichment", "report", "call", "summary", "run",
         "batch", "result", "output", "quarter", "earnings", "check"]
TICKERS = ["BURL", "AAPL", "MSFT", "TSLA", "NVDA", "KO"]


@st.composite
def dated(draw: st.DrawFn) -> str:
    y, m, d = draw(st.integers(2000, 2029)), draw(st.integers(1, 12)), draw(st.integers(1, 28))
    day = f"{y}-{m:02d}-{d:02d}"
    if draw(st.booleans()):
        h, mi = draw(st.integers(0, 23)), draw(st.integers(0, 59))
        day += f"T{h:02d}" + draw(st.sampled_from([f".{mi:02d}", f"{mi:02d}", ""]))  # (a file name holds no ":")
    return day


@st.composite
def dated_name(draw: st.DrawFn) -> str:
    sep = draw(st.sampled_from(["_", "-"]))
    head = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=2))
    tail = draw(st.lists(st.sampled_from([*WORDS, "*"]), min_size=1, max_size=3))  # (a glob too)
    ticker = draw(st.sampled_from(TICKERS))
    return sep.join([*head, "pass", *tail, ticker, draw(dated())])


PLACES = ["rm -f /tmp/{n}.json /tmp/{n}.txt && ls /tmp", "cat /tmp/{n}.json | head",
          "Wrote `/tmp/{n}.json` (3 guidance items).", "Source: {n}", "- /tmp/{n}.json"]


@settings(max_examples=examples(150, 500), deadline=None)
@given(name=dated_name(), place=st.sampled_from(PLACES))
def test_a_name_with_a_date_is_left_whole(name: str, place: str) -> None:
    text = place.format(n=name)
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0)
    assert found == []


@settings(max_examples=examples(100, 300), deadline=None)
@given(value=token(10, 20).filter(lambda v: shannon_bits(v) >= 3.5), day=dated(),
       form=st.sampled_from(["use password {v} for it", "log in with password {v} now",
                             "db-password-{v} here"]))
def test_a_password_with_a_date_glued_is_still_hidden(value: str, day: str, form: str) -> None:
    v = value + "_" + day
    _hidden(form.format(v=v), [value])


def test_the_session_review_31_found() -> None:
    text = ("rm -f /tmp/extract_pass_guidance_primary_BURL_2023-03-02T08.30.json "
            "/tmp/extract_pass_guidance_enrichment_BURL_2023-03-02T08.30.json "
            "&& ls /tmp/extract_pass_*_BURL_2023-03-02T08.30.json")
    assert DEFAULT.redact(text) == (text, 0)
