"""Stripe's publishable keys are public; its secret and restricted keys are not.

A publishable key (`pk_live_…`, `pk_test_…`) is written into every web page
that takes a payment (Stripe.js is given it in the browser, by Stripe's
design), so hiding it is a false fact in the note. A secret key (`sk_`) and a
restricted key (`rk_`: a secret key with fewer rights) give access to the
account. The public rulesets agree: gitleaks' stripe-access-token reads
`(sk|rk)_(test|live|prod)_…` (it once read `pk_` too and dropped it),
trufflehog's and detect-secrets' `[rs]k_live_…`.

Generated: a key of Stripe's shape in code, a page, an env line or prose.
Oracle: a publishable key comes back as typed; a secret or restricted one is
hidden and learned whole, wherever it is written.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_small_leaks import _hidden, shannon_bits, token
from vibe_vault.redact import DEFAULT

PLACES = ["const stripe = Stripe('{k}');", '<script data-key="{k}"></script>',
          "STRIPE_PUBLISHABLE_KEY={k}", "The checkout page loads Stripe.js with {k} now.",
          "publishableKey: '{k}',"]
SECRET_PLACES = ["const stripe = require('stripe')('{k}');", "STRIPE_SECRET_KEY={k}",
                 "use {k} for refunds", "curl https://api.stripe.com/v1/charges -u {k}:"]


@settings(max_examples=examples(100, 300), deadline=None)
@given(mode=st.sampled_from(["live", "test"]),
       body=token(24, 99).filter(lambda v: shannon_bits(v) >= 3.5),
       place=st.sampled_from(PLACES))
def test_a_publishable_key_is_left(mode: str, body: str, place: str) -> None:
    text = place.format(k=f"pk_{mode}_{body}")
    assert DEFAULT.redact(text) == (text, 0), text


@settings(max_examples=examples(100, 300), deadline=None)
@given(kind=st.sampled_from(["sk", "rk"]), mode=st.sampled_from(["live", "test", "prod"]),
       body=token(24, 99).filter(lambda v: shannon_bits(v) >= 3.5),
       place=st.sampled_from([*PLACES, *SECRET_PLACES]))
def test_a_secret_or_restricted_key_is_hidden(kind: str, mode: str, body: str,
                                              place: str) -> None:
    key = f"{kind}_{mode}_{body}"
    _hidden(place.format(k=key), [key])
