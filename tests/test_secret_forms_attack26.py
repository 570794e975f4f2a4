"""Attack 26's structured and prose forms, by class:

- structured configuration: a YAML block scalar under a secret's name,
  nested in a mapping (`secrets:⏎  db_password: |⏎    X`, `token: >-` and
  its lines), a list's `value:` under a key naming secrets (`secrets:⏎  -
  name: DB⏎    value: X`), a Terraform variable marked `sensitive = true`
  whatever its name, Make's `API_KEY ?= X` (`+=`, `::=`);
- prose: the word `secret` alone, said set to a value (`I set the secret
  to "X"`, `the secret is now X`).

Generated: name x form x indentation x value shape x place. Oracle: no run
of 6 of the drawn value in what the gate returns, the note and state folded,
nor (end to end) any file, table or output; the whole value is learned.
Look-alikes (the same structures holding ordinary values) are left.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import _folded_nowhere, _hidden, token
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]

SECRET_KEYS = ("password", "db_password", "api_key", "token", "client_secret", "auth_token",
               "secret_key", "smtp_pass")
PLAIN_KEYS = ("name", "host", "port", "image", "region", "mode")


@st.composite
def yaml_block(draw: st.DrawFn) -> Case:
    """A block scalar under a secret's key, the key at any depth, and a
    key after it or none."""
    v = draw(token(12, 32))
    indent = draw(st.sampled_from(["", "  ", "    "]))
    inner = indent + draw(st.sampled_from(["  ", "    "]))
    parents = draw(st.lists(st.sampled_from((*PLAIN_KEYS, "secrets", "auth", "db")),
                            max_size=2)) if indent else []
    head = "".join(f"{' ' * (2 * i)}{p}:\n" for i, p in enumerate(parents[: len(indent) // 2]))
    indicator = draw(st.sampled_from(["|", ">", "|-", ">-", "|+"]))
    key = draw(st.sampled_from(SECRET_KEYS))
    lines = [v]
    if indicator.startswith(">") and draw(st.booleans()):
        lines.append(draw(token(12, 20)))  # (a folded value's next line)
    after = draw(st.sampled_from(["", f"{indent}other: 1\n", "\n"]))
    text = (head + f"{indent}{key}: {indicator}\n" + "".join(f"{inner}{line}\n" for line in lines)
            + after)
    return text, [v]


@st.composite
def secrets_list(draw: st.DrawFn) -> Case:
    """A list under a key naming secrets: each entry's `value:`."""
    v = draw(token(12, 32))
    parent = draw(st.sampled_from(["secrets", "credentials"]))
    name = draw(st.sampled_from(["DB", "smtp", "main", "STRIPE"]))
    dash = draw(st.sampled_from(["  - ", "- "]))
    pad = " " * len(dash)
    value = draw(st.sampled_from(["{v}", '"{v}"', "'{v}'"])).replace("{v}", v)
    extra = draw(st.sampled_from(["", f"{pad}type: string\n"]))
    return f"{parent}:\n{dash}name: {name}\n{extra}{pad}value: {value}\n", [v]


@st.composite
def terraform(draw: st.DrawFn) -> Case:
    """A variable Terraform is told is sensitive, its default before or after."""
    v = draw(token(12, 32))
    name = draw(st.sampled_from(["db", "admin", "x", "signing"]))
    body = [f'  default = "{v}"', "  sensitive = true",
            *draw(st.lists(st.sampled_from(["  type = string", '  description = "db"']),
                           max_size=2))]
    body = draw(st.permutations(body))
    return f'variable "{name}" {{\n' + "\n".join(body) + "\n}", [v]


@st.composite
def make(draw: st.DrawFn) -> Case:
    v = draw(token(12, 32))
    name = draw(st.sampled_from(["API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "SECRET_KEY"]))
    op = draw(st.sampled_from(["?=", "+=", "::=", ":="]))
    sp = draw(st.sampled_from([" ", ""]))
    return f"{name}{sp}{op}{sp}{v}", [v]


@st.composite
def prose(draw: st.DrawFn) -> Case:
    v = draw(token(12, 32))
    said = draw(st.sampled_from([
        "I set the secret to {q}", "set the secret to {q}", "I reset the webhook secret to {q}",
        "the secret is now {q}", "The secret was changed to {q}", "the secret has been rotated to {q}",
    ]))
    q = draw(st.sampled_from(["{v}", '"{v}"', "'{v}'", "`{v}`"]))
    end = draw(st.sampled_from(["", ".", "\n", " — thanks", ", use it"]))
    return said.replace("{q}", q).replace("{v}", v) + end, [v]


CLASSES = {"yaml block": yaml_block(), "secrets list": secrets_list(), "terraform": terraform(),
           "make": make(), "prose": prose()}


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_a_structured_or_said_value(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_a_structured_or_said_value_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(*CLASSES.values()), min_size=2, max_size=4))
def test_end_to_end_a_structured_or_said_value_is_in_no_file_table_or_output(
        cases: list[Case]) -> None:
    in_no_output([(text, values[0]) for text, values in cases],
                 in_process("attack26 structured end to end"))


# -- what is left -------------------------------------------------------------------------------


@st.composite
def look_alikes(draw: st.DrawFn) -> str:
    """The same structures holding what is no secret."""
    plain = draw(st.sampled_from(PLAIN_KEYS))
    return draw(st.sampled_from([
        f"config:\n  {plain}: |\n    hello world\n  other: 1\n",
        "secrets:\n  db_password:\n    valueFrom: vault\n",
        "auth:\n  token_ttl: 3600\n  token_type: bearer\n",
        "class TokenUsage:\n    input_tokens: int\n    output_tokens: int\n",
        f"env:\n  - name: {plain.upper()}\n    value: production\n",
        "secrets:\n  - name: DB\n    valueFrom:\n      secretKeyRef: {}\n",
        'variable "region" {\n  default = "eu-west-1"\n  sensitive = false\n}',
        'variable "db" {\n  sensitive = true\n}',
        "CFLAGS += -O2 -Wall", "TOKENS ?= $(shell cat tokens.txt)", "total_tokens += usage",
        "the secret is now stored in the vault", "set the secret to expire in 30 days",
        "the secret was changed to something stronger", "I set the secret to \"changeme\"",
    ]))


@settings(max_examples=examples(100, 1000), deadline=None)
@given(look_alikes())
def test_look_alikes_are_left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found
