"""Vendors' tokens by their shape: every detector of trufflehog's that finds a
token by its own prefix (`bench/data/trufflehog_rules.json`, made from its
pkg/detectors by `bench/trufflehog_data.py`: 116 shapes, `lin_api_`,
`dp.st.`, `hcaik_`…) is the class; attack 26 found 51 vendors' tokens the gate
did not know (class 4).

Generated: a token drawn from each detector's token format (its shape:
bench/trufflehog_data.shape; bench's sampler, an
open repeat at least 16 long, as a real token's run is; the detector's
secret group, else its largest), in the places a transcript holds text: a
command, its output, a file's content, JSON, a prompt.
Oracle: the drawn token (and any run of 6 of it the same text with the token
swapped out does not hold) is nowhere in what the gate returns, nor in the
note or the state folded from a session saying it, nor (end to end) in any
file, table or search term, or what `vv` prints. Look-alikes are left.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms import _fold
from test_secret_forms_more import CONTROL, leaked
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import secret_coverage as coverage  # noqa: E402

DATA = json.loads(coverage.TRUFFLEHOG.read_text())
RULES: list[dict[str, Any]] = DATA["rules"]

# Where a token is written, as a transcript holds it: `{}` is the token.
CONTEXTS = (
    "{}",
    "run {} now",
    "curl -s -H 'Authorization: Bearer {}' https://api.example.com/v1/me",
    "./deploy.sh --region eu {} --dry-run",
    "HTTP/1.1 200 OK\ncontent-type: text/plain\n\n{}\n",
    "Created.\n\n    {}\n\nStore it somewhere safe.",
    "# settings\nregion = \"eu\"\nvalue = \"{}\"\ndebug = false\n",
    "{{\"ok\": true, \"data\": {{\"items\": [{{\"id\": 3, \"value\": \"{}\"}}]}}}}",
    "| name | value |\n|---|---|\n| prod | {} |",
)


def _token(rule: dict[str, Any], seed: int) -> tuple[str, str]:
    pairs = coverage.token_samples(rule, 1, seed)
    assert pairs, rule["id"]  # every shape is drawn: none is skipped as coverage
    return pairs[0]


def _body(token: str, prefixes: list[str]) -> str:
    """The token's random part: what follows its literal prefix, which the
    gate may leave (`ghp_[REDACTED]`) and words may hold."""
    head = max((p for p in prefixes if token.startswith(p)), key=len, default="")
    return token[len(head):]


def _hidden(text: str, token: str, prefixes: list[str]) -> None:
    out, n = DEFAULT.redact(text)
    control = DEFAULT.redact(text.replace(token, CONTROL))[0]
    assert token not in out, (text, out)
    # (a marker's own words are no leak: `webhook` of `[REDACTED:discord-webhook]`)
    out = re.sub(r"\[REDACTED:[^\]\n]*\]", "[REDACTED]", out)
    assert not leaked(out, control, _body(token, prefixes)), (text, out)
    assert n >= 1


def test_the_list_is_trufflehogs_shapes_each_with_its_prefix() -> None:
    # (the data file as bench/trufflehog_data.py makes it: a prefix each,
    # none of those it leaves out)
    assert len(RULES) >= 100
    assert all(r["prefixes"] and all(len(p) >= 3 for p in r["prefixes"]) for r in RULES)
    assert not {r["id"] for r in RULES} & set(DATA["left_out"])


def test_each_shapes_sample_is_a_token_of_its_own_pattern() -> None:
    """A sample of secret_vendors.SHAPES drawn from an alphabet its pattern
    does not take (`phx_«w45»`, whose `-` posthog's run lacks) is hidden by
    no rule under some seeds, so test_secrets' seed failed on it: every
    draw's secret is one whole match of its pattern."""
    from vibe_vault.secret_rules import expand
    from vibe_vault.secret_vendors import FIRST_SHAPES, SHAPES, WORD_SHAPES

    for rid, _, pattern, samples, _ in (*SHAPES, *FIRST_SHAPES, *WORD_SHAPES):
        for template in samples:
            for seed in range(examples(20, 100)):
                secret = expand(template, random.Random(seed)).secret
                assert re.fullmatch(pattern, secret), (rid, template, secret)


@pytest.mark.parametrize("rule", RULES, ids=[r["id"] for r in RULES])
def test_every_trufflehog_token_shape_is_hidden_where_a_transcript_holds_text(
        rule: dict[str, Any]) -> None:
    @settings(max_examples=examples(4, 25), deadline=None)
    @given(st.integers(0, 2 ** 32), st.sampled_from(CONTEXTS))
    def check(seed: int, context: str) -> None:
        match, token = _token(rule, seed)
        _hidden(context.format(match), token, rule["prefixes"])

    check()


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.sampled_from(RULES), st.integers(0, 2 ** 32),
       st.lists(st.sampled_from(["prompt", "command", "output", "file", "error"]),
                min_size=1, max_size=3, unique=True))
def test_folded_a_token_is_in_no_note_or_state(rule: dict[str, Any], seed: int,
                                               where: list[str]) -> None:
    match, token = _token(rule, seed)
    text = random.Random(seed).choice(CONTEXTS).format(match)
    note, state = _fold(text, where, token)
    control_note, control_state = _fold(text.replace(token, CONTROL), where, CONTROL)
    assert token not in note and token.encode() not in state, (rule["id"], text)
    body = _body(token, rule["prefixes"])
    note = re.sub(r"\[REDACTED:[^\]\n]*\]", "[REDACTED]", note)
    state = re.sub(rb"\[REDACTED:[^\]\n]*\]", b"[REDACTED]", state)
    assert not leaked(note, control_note, body), (rule["id"], text, where)
    assert not leaked(state, control_state, body), (rule["id"], text, where)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(RULES), st.integers(0, 2 ** 32)),
                min_size=3, max_size=5))
def test_end_to_end_a_token_is_in_no_file_table_or_output(
        drawn: list[tuple[dict[str, Any], int]]) -> None:
    cases = []
    for rule, seed in drawn:
        match, token = _token(rule, seed)
        # (its longest run of letters and digits: the words of a webhook's
        # URL are those of its marker, `[REDACTED:teams-webhook]`)
        part = max(re.findall(r"[A-Za-z0-9]+", _body(token, rule["prefixes"])), key=len)
        cases.append((f"use {match} for the deploy", part))
    in_no_output(cases, in_process("vendor tokens end to end"))


# Attack 26's vendor rows (class 4) whose shapes the gate now knows, the
# values its generator planted: each is hidden (its random part nowhere).
ATTACK26 = (
    "dp.st.prd.yxo71vz9cxehscvsztvaytrmo0tcf8mgw8AieiVyjtTq",
    "lin_api_2UR5FUt80eqbvBX1pH5zlIueWlKl4TeNY69KSYfOZ6E",
    "fw_uZW1FvOxsZoJO6EFg1HW7gVHY1SicXM1MO6w",
    "cioL52Jp0kt8Je8LFLOSYfJrhGxKvUOjnkr",
    "fo1_juwyG2tZppCn9habT5k7P2h8eThpW9uAOasdwO8i",
    "vcp_NSAksGfnCQUyXQMqMCWv7B3pfjgZWzu1QAvjZDWcLGT4yTi7h5kkSYBG",
    "re_I54MHsmrw4HigAkjCQvuHc08kXMoMueE",
    "d7f47518ee3d2c5f8ffd506d3e21fe18-us21",
    "access_token$production$jekchnwprbe4ay8q$6ac10777e6333204b24a93ecaa28426d",
    "2/1441786235266638/0135162146394507:84ba74133912acb71f3e9c0ea0bdecbe",
    "hcaik_8jq10pbaq5gfdh183bkl8m5o89waio1anlo03u2kmlnnnq9ywpgrwg7lo0",
    "BQIAAABHAAIAC0VYQU1QTEUuQ09NAARIVFRQbmbkxBc7gWoF1oyH0101JNeczhoaJkbbBPRv9amIIuJ+T/m79hihGlBeD+KYtysI",
    "/u3+7QAAAAIAAAABAAAAAQAFbXlrZXkAAAGMm7krcI2Wq56C3uhVkxMTaS32KwsjvC4P7vfbImAIFykd0t4QGMVQvfwWbcQYFjUI",
    "eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.9dzoVvRySHpMxmNRo06Z9jjJEtFvoyg2j1EuNP7GJm6",
    "pnu_6YbRsdZixBODtk22nSBerQRcljyCJ3sM",
    "AQVNNB88eAOCU2jxErj2SAhWc910PeeagZ1ITqC3",
    "dG9rOjhHZp5K9LOt2y1T8sPk4nBPy8KvJaPBvtFWSF4o2SnXF0pkCJKWaAz9W3=",
    "bkua_0a5ee8e286f529355e656b5187f78c59498dab22",
    "squ_9c77d1dd32e3083e9c8827775b862f6414859cbc",
    "AKCp8NOVjXTQnM5nPm300XnSaBhdS6h9q2mx834xcidhdZ8aZlpS6Oi7T2LfKTDXQAJL1nf",
    "live_jFETaHNuA0LLxR2PyjTCAbBnTEgUDJ7mzex8ZMIX",
    "FLWSECK-47dfcda3326ee61837c3d62834306d98-X",
    "rzp_live_ftwqOGJ61gs7pf",
    "pat-na1-6e7d46fd-737c-f2e9-fb58-faab894da6f6",
    "00DkqW705VbJx37!adshSs3jHWGqWe8jMRpdrKiNTLwiTDZlTz1KL5YTfAfAz7tXQZD348kxrFod5pEN7Z3HwHy7"
    "uCtl80iVtbXxle",
    "mlsn.23e7cbddb34ce67106ef59a4e19c910b4465f2a40585a31b88104cace201b661",
    "y0_AgAAAAIrD4P4aTImZUTb0RPstvlc46zeGIWRBW0K2V",
    "t1.9euelZT6B3hx5ybaXCEGnTm4kgPzmHBiiAMAucG4Poxg6SjIDKREPqdP6Y35YR7fqNDYrOvH7zPgVrSFmyJj46yZ"
    "VJMevOmblSzb1U",
    "pk_16579996_3X8Z75V83Q8DBI8SZ6UHBKG9PRXUKR13",
    "pd_e0OB28lugHHeJYI6ef6yqSmmEACvyb3IFsgZ",
    "apify_api_uQswOC2Vg6FG0ymTIZ15997h2zFe3lv5J7Kh",
    "AAAAAAAAAAAAAAAAAAAAAMvtVWJQWIEAOSABZICR65YEUmdvBerR5MwVX%3Dw1MN2R2oEeUGgIM3MilyO0nRgxwEHR9Jt"
    "mAkNn34",
    "sfD10cnEf3QKiy.atlasv1.lsZLIZRVJNRSdl6qSx0oy2Z7c5iHRySHBUBZ",
    "ATTA6a1aac1357b4c46822194be7ae1ecead71c694685a1f31f33740f3f2fbb3ac56A9EFEC73",
    "tgp_v1_VfrHgQuFuxVK1dgfUkTHHnyTz45tkGuak7mp4U0JX0K",
    "pa-3xzPeYeex8dcMdtuazhmj7cjJAUTFu5INwi2xZeSCvy",
)


@pytest.mark.parametrize("token", ATTACK26)
def test_attack26s_vendor_tokens_are_hidden(token: str) -> None:
    for context in CONTEXTS:
        _hidden(context.format(token), token, [])


LOOK_ALIKES = (
    "re_compile_pattern and re_match_group", "fw_version_string fw_update2",
    "cioccolato al latte", "the pa-system-configuration file", "master-branch-protection",
    "account-settings-page-v2", "api_client_configuration_for_the_close_endpoint",
    "pk.objects.filter(name='x')", "1000.00 dollars", "t1.micro instance",
    "ATTACHMENT_LIMIT=5", "y0_axis_label", "web_application_configuration_x",
    "git checkout 1/2 done", "us-east-1 and eu-west-1", "see tskey-auth-docs",
)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_words_that_begin_as_a_token_does_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0)
