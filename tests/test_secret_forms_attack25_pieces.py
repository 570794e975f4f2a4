"""Attack 25's leftovers in pieces and encodings, by class:

- `user:password` base64-encoded with no word for it: a bare run (`echo -n
  u:p | base64`'s output), an `Authorization:` value without `Basic`, a
  line of a config; the password a new one or one the session learned
  (`YWRtaW46…` repeated a learned password everywhere: note, state, index);
- a learned value cut in three or more pieces (`Ab3x Yz9q Kp2m`, one a
  line, `"Ab3x" + "Yz9q" + "Kp2m"`, Python's implicit concatenation, `A="…";
  B="…"; C="…"`, `''.join([…])`, dashes): each piece too short to be kept out
  alone, the run of them together is.

Generated: user x password x spelling x surroundings x place; value x cut
points x glue x teaching form x place x order. Oracle: no run of 6 of the
encoded run, nor of the value, in what the gate returns, the note or the
state (beyond what the same session with the value swapped for a control
holds), nor (end to end) in any file, database table, search term or `vv`
output. Look-alikes (base64 of text that is no credential; pieces of other
values) are left.
"""

from __future__ import annotations

import base64
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import examples, in_process
from test_secret_forms_more import CONTROL, leaked
from test_secret_forms_output import PLACES, _without_digests, rng_of, run
from test_secret_forms_output import _entries as _said_in
from test_secret_forms_small_leaks import _folded_nowhere, _hidden, token
from test_secret_learned_variants import TEACHERS, _teach
from test_secret_positional import _home_seen
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]
_ALNUM = string.ascii_letters + string.digits


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# -- user:password in base64, bare ------------------------------------------------------------


USERS = ("admin", "bob", "deploy", "u", "root", "ci-bot", "jane.doe", "svc_api", "me@example.com")


@st.composite
def encoded(draw: st.DrawFn) -> Case:
    """A pair whose password is drawn at random (with nothing to say what the
    run is, only such a pair is surely one: `admin:a0000Aaabl` reads as a
    name and a number)."""
    rng = rng_of(draw)
    password = rng.choice(string.ascii_letters) + run(rng, _ALNUM + "!@#*^_-", rng.randint(9, 31))
    pair = draw(st.sampled_from(USERS)) + ":" + password
    e = b64(pair + draw(st.sampled_from(["", "\n"])))  # (`echo` without -n adds the newline)
    if draw(st.booleans()):
        e = e.rstrip("=")
    spelling = draw(st.sampled_from([
        "{e}", "Authorization: {e}", "auth = \"{e}\"", "$ echo -n x | base64\n{e}\n$ ",
        "  credentials: {e}\n", '{{"auth": "{e}"}}', "the header was {e} then",
        "proxy_set_header Authorization {e};",
    ]))
    return spelling.replace("{e}", e).replace("{{", "{").replace("}}", "}"), [e]


@settings(max_examples=examples(100, 1000), deadline=None)
@given(encoded())
def test_the_gate_leaves_no_run_of_six_of_a_bare_encoded_user_and_password(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(25, 250), deadline=None)
@given(encoded(), PLACES)
def test_folded_a_bare_encoded_user_and_password_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@st.composite
def encoded_look_alikes(draw: st.DrawFn) -> str:
    """base64 of text that is no user and password: prose, a URL, a path,
    a time, a placeholder pair, a word or a number after a colon; and names
    in code long enough to be a run."""
    plain = draw(st.sampled_from([
        "hello world", "https://example.com/a/b?c=1", "mailto:someone@example.com",
        "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", "C:\\Users\\bob\\file.txt",
        "time:2024-01-01T00:00:00Z", "db:5432/app", "user:password", "admin:changeme",
        "color:blue", "key:value_pair", "a:b:c:d:e:f", "Content-Type: application/json",
        "bob:hunter22", "localhost:8080", "note: see the docs please", "ns:Element",
        "admin:your-password-here", "user:<password>", "x:12345678",
    ]))
    # (no word for it: after `Authorization:` the generic key's rule reads a
    # random run, beside `base64` or `basic` a pair that decodes is one)
    text = draw(st.sampled_from(["{e}", "value {e} ok", "- {e}\n", "x = '{e}'"]))
    return draw(st.sampled_from([
        text.replace("{e}", b64(plain)),
        "getElementById AbstractSingletonProxyFactoryBean ReadWriteLockImpl",
        "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 and 9f86d081884c7d659a2feaa0c55ad015",
    ]))


@settings(max_examples=examples(80, 800), deadline=None)
@given(encoded_look_alikes())
def test_base64_of_no_user_and_password_is_left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found


# -- a learned value in pieces ---------------------------------------------------------------

GLUES = {
    "spaces": "{a} {b} {c}",
    "lines": "{a}\n{b}\n{c}",
    "plus": 'x = "{a}" + "{b}" + "{c}"',
    "implicit": 'x = ("{a}"\n     "{b}"\n     "{c}")',
    "variables": 'A="{a}"; B="{b}"; C="{c}"; echo $A$B$C',
    "join": "''.join(['{a}', '{b}', '{c}'])",
    "dashes": "{a}-{b}-{c}",
    "js": "const k = '{a}' +\n  '{b}' +\n  '{c}';",
}


Thirds = tuple[str, int, int, str, str, list[str]]  # value, cuts, glue, teacher, places


@st.composite
def thirds(draw: st.DrawFn) -> Thirds:
    """A random value (letters and digits, as the teaching forms take it
    whole), where it is cut in three, how the pieces are glued, the form
    that teaches it, and the places the pieces are said."""
    v = draw(token(12, 40, _ALNUM))
    i = draw(st.integers(3, len(v) - 6))
    j = draw(st.integers(i + 3, len(v) - 3))
    return (v, i, j, draw(st.sampled_from(sorted(GLUES))), draw(st.sampled_from(TEACHERS)),
            draw(PLACES))


def _in_pieces(value: str, case: Thirds) -> str:
    """`value` cut and glued as `case` says (the control's the same way)."""
    _, i, j, glue, _, _ = case
    return GLUES[glue].replace("{a}", value[:i]).replace("{b}", value[i:j]).replace(
        "{c}", value[j:])


def _fold_entries(entries: list[dict[str, Any]]) -> tuple[str, bytes]:
    """The note and the state (its learned digests left out) folded from a
    session of `entries`."""
    import msgspec

    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in shell._lines("s" * 8, entries)])
    return render(state), msgspec.json.encode(_without_digests(msgspec.to_builtins(state)))


def _session(v: str, text: str, how: str, places: list[str], first: bool) -> list[dict[str, Any]]:
    teach, said = _teach(v, how, 90), _said_in(text, places)
    return teach + said if first else said + teach


@settings(max_examples=examples(60, 600), deadline=None)
@given(thirds(), st.booleans())
def test_folded_a_learned_value_in_pieces_is_in_no_note_or_state(case: Thirds,
                                                                   first: bool) -> None:
    v, _, _, _, how, places = case
    if "\n" in _in_pieces(v, case):
        # (said on several lines before the value is learned, a command or a
        # line is kept as its first line only: the other pieces are gone when
        # the value is learned, and its first piece is no secret alone; a `!`
        # command's output is shown by its first line, the gate reading only
        # that. Left.)
        first = True
        places = [p for p in places if p != "bang"] or ["output"]
    note, state = _fold_entries(_session(v, _in_pieces(v, case), how, places, first))
    other = (CONTROL * 8)[:len(v)]
    control_note, control_state = _fold_entries(
        _session(other, _in_pieces(other, case), how, places, first))
    assert not leaked(note, control_note, v), (case, first, note)
    assert not leaked(state, control_state, v), (case, first)


def test_pieces_of_a_learned_value_are_hidden_together_only() -> None:
    """The pieces are hidden as a run: the value's letters in another
    order, a piece alone, and words around them are left."""
    from vibe_vault.fold.context import Context
    from vibe_vault.state import Fold

    ctx = Context(Fold(), DEFAULT)
    ctx.text("export DB_PASSWORD=Qz8abKd9XmP2")
    assert "[REDACTED" in ctx.text('x = "Qz8a" + "bKd9" + "XmP2"')
    for left in ("Qz8a is a piece", "bKd9 XmP2 Qz8a", "say Qz8a bKd9 and stop",
                 "the Postgres 2024 release"):
        assert ctx.text(left) == left, left


def _taught_in_pieces(value: str, case: Thirds) -> str:
    return f"export DB_PASSWORD='{value}' && ./migrate\n" + _in_pieces(value, case)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(encoded(), min_size=1, max_size=3), st.lists(thirds(), min_size=1, max_size=3))
def test_end_to_end_pieces_and_encodings_are_in_no_file_table_or_output(
        encodings: list[Case], pieces: list[Thirds]) -> None:
    here = in_process("attack25 pieces end to end")
    planted = [(text, values[0]) for text, values in encodings] + [
        (_taught_in_pieces(c[0], c), c[0]) for c in pieces]
    seen, printed = _home_seen(planted, here)
    control_seen, control_printed = _home_seen(
        [(text.replace(v, CONTROL), CONTROL) for text, values in encodings for v in values[:1]]
        + [(_taught_in_pieces((CONTROL * 8)[:len(c[0])], c), CONTROL) for c in pieces], True)
    for text, v in planted:
        assert not leaked(seen, control_seen, v), (text, v)
        assert not leaked(printed, control_printed, v), (text, v)
