"""A secret in a table Claude prints, beside or under a label naming it: a
Markdown row `| password | X |` (alone, or in a `| name | value |` table),
``| API key | `X` |``, an ASCII box's `| api_key  | X |` between `+---+`
lines, a command's table whose header names a secret's column (`NAME  TOKEN`
then `builder   X`). Attack 26 found each whole in the note, the state, the
database and its search terms.

Generated: label (several secret names, cases, spellings) x table style x
value (random letters and digits, as a password or token has). Oracle: no run
of six of the value in the gate's output; end to end, nowhere in the note,
the state, vault.db's tables and terms or what vv prints. Look-alikes: the
same tables of ordinary values (a word, a sentence, a host, a number, a
placeholder) stay whole.
"""

from __future__ import annotations

import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_more import CONTROL, leaked, runs_of_six, shown_beyond
from test_secret_positional import _home
from vibe_vault.redact import Redactor

_ALNUM = string.ascii_letters + string.digits
LABELS = ["password", "Password", "PASSWORD", "db_password", "admin password", "passwd",
          "passphrase", "secret", "Secret", "client secret", "token", "Token", "access token",
          "api_token", "API key", "api_key", "apikey", "Access key", "private key",
          "master key", "credentials", "auth token"]


def _md(label: str, v: str, width: int) -> str:
    return f"| name | value |\n|---|---|\n| host | db.example.com |\n| {label} | {v} |"


def _md_alone(label: str, v: str, width: int) -> str:
    return f"| {label} | {v} |"


def _md_code(label: str, v: str, width: int) -> str:
    return f"| Setting | Value |\n|---|---|\n| {label} | `{v}` |\n| port | 5432 |"


def _box(label: str, v: str, width: int) -> str:
    a, b = max(len(label), 4) + 2, max(len(v), 5) + 2
    rule = f"+{'-' * a}+{'-' * b}+"
    return "\n".join([rule, f"| {'key'.ljust(a - 2)} | {'value'.ljust(b - 2)} |", rule,
                      f"| {label.ljust(a - 2)} | {v.ljust(b - 2)} |", rule])


def _aligned(label: str, v: str, width: int) -> str:
    head = label.upper().replace(" ", "_")
    pad = " " * width
    return (f"NAME{' ' * 8}{head}{pad}AGE\nbuilder     {v}{pad}{' ' * (len(head) - len(v))}  3d"
            if len(head) >= len(v) else
            f"NAME{' ' * 8}{head.ljust(len(v))}{pad}AGE\nbuilder     {v}{pad}3d")


STYLES = {"md": _md, "md alone": _md_alone, "md code": _md_code, "box": _box,
          "aligned": _aligned}


@st.composite
def secret_values(draw: st.DrawFn) -> str:
    body = draw(st.text(_ALNUM, min_size=10, max_size=36))
    return body + draw(st.sampled_from("ABCDEFGHJKQXZ")) + draw(st.sampled_from("23456789"))


@settings(max_examples=examples(80, 600), deadline=None)
@given(label=st.sampled_from(LABELS), style=st.sampled_from(sorted(STYLES)),
       v=secret_values(), width=st.integers(2, 6))
def test_a_value_beside_or_under_a_secret_label_is_hidden(
        label: str, style: str, v: str, width: int) -> None:
    table = STYLES[style](label, v, width)
    out, _ = Redactor().redact(table)
    left = re.sub(r"\[REDACTED:[^\]]*\]", "", out)  # (`secret0000A2`'s run is a marker's word)
    # (a run the table shows without the value is the table's own: CI drew
    # `0000assworA2` beside the label `password`)
    assert not shown_beyond(left, table, v, runs_of_six(v)), (table, out)


# What a secret's cell holds that is no secret: a word saying what it is, a
# sentence, a placeholder. (In a password's cell a host or a number may be
# the password: it is hidden there, as in a CSV's password column.)
ORDINARY = ["required", "hidden", "see the vault", "at least 8 characters",
            "your-api-key-here", "n/a", "<token>", "-", "none", "set in CI",
            "rotated monthly", "optional", "YOUR_TOKEN_HERE"]


@settings(max_examples=examples(60, 400), deadline=None)
@given(label=st.sampled_from(LABELS), style=st.sampled_from(sorted(STYLES)),
       v=st.sampled_from(ORDINARY), width=st.integers(2, 6))
def test_a_table_of_ordinary_values_stays_whole(label: str, style: str, v: str,
                                                width: int) -> None:
    if style == "aligned" and " " in v:
        v = "required"  # (a cell of an aligned table is one word: `see-the-vault` is a password)
    table = STYLES[style](label, v, width)
    assert Redactor().redact(table) == (table, 0)


def test_tables_without_a_secret_label_stay_whole() -> None:
    for table in ["| name | value |\n|---|---|\n| host | db.example.com |\n| key | Ctrl+S |",
                  "| Token | Meaning |\n|---|---|\n| `ghp_` | GitHub |",
                  "NAME      READY   STATUS\nweb-7d9f   1/1     Running",
                  "| password | required |", "| Password | Token |\n|---|---|",
                  "| host | db.example.com |\n| port | 5432 |\n| user | admin |",
                  "NAME   HOST             PORT\nprod   db.example.com   5432",
                  "+------+-------+\n| key  | value |\n+------+-------+\n| mode | fast  |"]:
        assert Redactor().redact(table) == (table, 0), table


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(sorted(STYLES)),
                          secret_values()), min_size=2, max_size=4))
def test_end_to_end_a_table_row_value_is_nowhere(rows: list[tuple[str, str, str]]) -> None:
    here = in_process("table rows end to end")
    cases = [(STYLES[style](label, v, 3), v) for label, style, v in rows]
    seen, terms, printed = _home(cases, here)
    base_seen, base_terms, base_printed = _home(
        [(text.replace(v, CONTROL), CONTROL) for text, v in cases], True)
    for text, v in cases:
        assert not leaked(seen, base_seen, v), (text, v)
        assert not leaked(terms, base_terms, v), (text, v)
        assert not leaked(printed, base_printed, v), (text, v)
