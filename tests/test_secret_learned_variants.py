"""A secret caught once in a session (`export DB_PASSWORD=X`, a .env written
or printed) is learned, and kept out wherever it comes back in the session:
written another way too. An attacker repeated a learned value in capitals,
as base64 (standard and URL-safe, padded or not), as hex, URL-encoded, and
cut in two with each half in another place; each reached the state and the
search database. (Attack 25 also: base32, backwards, rot13.)

Generated: values of letters, digits and punctuation, each of two halves
mixing letters and digits as a random value's do (the README's rule: a
piece of 8 or more that is a word, a number or a date is left, as ordinary
text holds it) x the forms that teach them x each spelling x each place a
transcript holds text (a prompt, Claude's words, a command, its output, a
file written), before or after the value is learned. Oracle: no run of 6 of
the value, nor of the spelling as written, in any case of letters, is in the
note or the state (in process), nor in any file, database table (its texts
decompressed) or output of `vv` (end to end); but the runs a session with
the value swapped for a control holds too.
"""

from __future__ import annotations

import base64
import codecs
import json
import re
import string
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import Env, examples, in_process
from test_secret_forms_more import CONTROL, runs_of_six
from test_secret_forms_output import _without_digests
from test_secret_positional import _database_texts

_ALNUM = string.ascii_letters + string.digits
# Punctuation a password has; `!`, `*`, `@`, `+` are URL-encoded.
_PUNCT = "-_.!*@+"


@st.composite
def halves(draw: st.DrawFn) -> tuple[str, str]:
    """Two pieces of 8 to 30 characters, each with a letter and a digit."""
    def half() -> str:
        body = draw(st.text(_ALNUM + _PUNCT, min_size=6, max_size=28))
        letter = draw(st.sampled_from(string.ascii_letters))
        digit = draw(st.sampled_from(string.digits))
        at = draw(st.integers(0, len(body)))
        return body[:at] + letter + digit + body[at:]
    return half(), half()


# The forms that teach a value (each caught by the gate): (where, text).
TEACHERS = ("export", "prompt", "dotenv write", "cat .env", "sentence")

# How a value comes back: its spellings, each a function of the value.
SPELLINGS: dict[str, Any] = {
    "as written": str,
    "upper": str.upper,
    "lower": str.lower,
    "swapped case": str.swapcase,
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "base64 unpadded": lambda v: base64.b64encode(v.encode()).decode().rstrip("="),
    "base64url": lambda v: base64.urlsafe_b64encode(v.encode()).decode(),
    "base64url unpadded": lambda v: base64.urlsafe_b64encode(v.encode()).decode().rstrip("="),
    "hex": lambda v: v.encode().hex(),
    "HEX": lambda v: v.encode().hex().upper(),
    "url-encoded": lambda v: quote(v, safe=""),
    "url-encoded plus": quote_plus,
    # (attack 25, root cause 4)
    "base32": lambda v: base64.b32encode(v.encode()).decode(),
    "base32 unpadded": lambda v: base64.b32encode(v.encode()).decode().rstrip("="),
    "reversed": lambda v: v[::-1],
    "rot13": lambda v: codecs.encode(v, "rot13"),
}
PLACES = ("prompt", "answer", "command", "output", "write")


def _teach(v: str, how: str, n: int) -> list[dict[str, Any]]:
    tid = f"teach{n}"
    if how == "prompt":
        return [{"type": "user", "message": {"role": "user",
                                             "content": f"run it with export DB_PASSWORD='{v}'"}}]
    if how == "sentence":  # (a rule reads the value to the stop: `X.` is hidden)
        return [{"type": "user", "message": {"role": "user",
                                             "content": f"I set password={v}. Thanks"}}]
    if how == "export":
        return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
            "command": f"export DB_PASSWORD='{v}' && ./migrate"}}),
            shell._result(tid, "ok", stdout="ok")]
    if how == "dotenv write":
        return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Write", "input": {
            "file_path": "/srv/app/.env", "content": f"DEBUG=1\nDB_PASSWORD={v}\n"}}),
            shell._result(tid, "File created successfully at: /srv/app/.env")]
    out = f"DEBUG=1\nDB_PASSWORD={v}\n"
    return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                 "input": {"command": "cat .env"}}),
            shell._result(tid, out, stdout=out)]


def _say(text: str, place: str, n: int) -> list[dict[str, Any]]:
    tid = f"say{n}"
    if place == "prompt":
        return [{"type": "user", "message": {"role": "user", "content": f"try {text} again"}}]
    if place == "answer":
        return [shell._assistant(n, {"type": "text", "text": f"The login used {text} there."})]
    if place == "command":
        return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
            "command": f"curl -H 'X-Login: {text}' localhost:8080", "description": "Try it"}}),
            shell._result(tid, "ok", stdout="ok")]
    if place == "output":
        out = f"login ok\nsent {text}\n"
        return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                     "input": {"command": "./check.sh"}}),
                shell._result(tid, out, stdout=out)]
    return [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Write", "input": {
        "file_path": f"/srv/app/notes{n}.md", "content": f"# Notes\n\nlogin: {text}\n"}}),
        shell._result(tid, f"File created successfully at: /srv/app/notes{n}.md")]


Case = tuple[tuple[str, str], str, str, list[str], bool]


def _entries(v: str, case: Case) -> tuple[list[dict[str, Any]], list[str]]:
    """A session teaching `v` and saying it spelt another way; and the texts
    that spelling wrote (the halves: each alone)."""
    (h1, _), how, spelling, places, first = case
    written = [v[:len(h1)], v[len(h1):]] if spelling == "halves" else [SPELLINGS[spelling](v)]
    said: list[dict[str, Any]] = []
    for i, place in enumerate(places):
        said += _say(written[i % len(written)], place, 10 + i)
    teach = _teach(v, how, 1)
    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "set up the box"}}]
    out += teach + said if first else said + teach
    out.append(shell._assistant(99, {"type": "text", "text": "All set."}))
    return out, written


cases = st.tuples(
    halves(), st.sampled_from(TEACHERS), st.sampled_from([*SPELLINGS, "halves"]),
    st.lists(st.sampled_from(PLACES), min_size=2, max_size=4, unique=True), st.booleans(),
    # (a value ending in a stop, said before a sentence's stop, is read without it:
    # `password=X.` is X's)
).filter(lambda c: c[1] != "sentence" or c[0][1][-1].isalnum())


def _fold(v: str, case: Case) -> tuple[str, str, list[str]]:
    import msgspec

    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    entries, written = _entries(v, case)
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in shell._lines("s" * 8, entries)])
    saved = msgspec.json.encode(_without_digests(msgspec.to_builtins(state))).decode()
    # (JSON escapes nothing of these values but `\`; the state as written is searched)
    return render(state), saved, written


def leaked(out: str, control: str, value: str) -> list[str]:
    """The runs of 6 of `value` in `out`, in any case, that are not in
    `control` (the same session with the value swapped for CONTROL)."""
    out, control = out.lower(), control.lower()
    return [r for r in runs_of_six(value.lower()) if r in out and r not in control]


def _control_of(v: str) -> str:
    return CONTROL * (len(v) // len(CONTROL) + 1)


@settings(max_examples=examples(60, 600), deadline=None)
@given(cases)
def test_a_learned_value_spelt_another_way_is_in_no_note_or_state(case: Case) -> None:
    v = case[0][0] + case[0][1]
    note, state, written = _fold(v, case)
    control_note, control_state, _ = _fold(_control_of(v)[:len(v)], case)
    for shown in (v, *written):
        assert not leaked(note, control_note, shown), (case, shown, note)
        assert not leaked(state, control_state, shown), (case, shown)


# -- what is left --------------------------------------------------------------------------


def test_a_learned_values_word_pieces_and_its_urls_head_are_left() -> None:
    """A piece of a learned value that is a word, a number or a date, and a
    URL's head, are ordinary text: the session's other mentions of them stay
    (the value itself and its random pieces leave)."""
    from vibe_vault.fold.context import Context
    from vibe_vault.redact import DEFAULT
    from vibe_vault.state import Fold

    ctx = Context(Fold(), DEFAULT)
    ctx.text("export DB_PASSWORD=Postgres2024SecurePass")
    ctx.text("export SLACK_WEBHOOK=https://hooks.example.com/services/T0AB12CD3/B0XYZ9Q8R7W6")
    ctx.text("export API_TOKEN=20261128Kz")
    for ordinary in ("Postgres runs on 5432", "SecurePass is the vendor",
                     "see https://hooks.example.com/services for the list",
                     "built on 20261128 at noon", "getElementById and HTTPServer",
                     "POSTGRES is shouted"):
        assert ctx.text(ordinary) == ordinary, ordinary
    for secret_piece in ("Postgres2024", "2024SecurePass", "POSTGRES2024SECUREPASS"):
        assert "[REDACTED" in ctx.text(f"it was {secret_piece} then"), secret_piece


def test_random_letter_halves_are_kept_out_and_word_halves_left() -> None:
    """A value's half of letters only is hidden when random (a camel-case
    part with no vowel), left when shaped as words are."""
    from vibe_vault.fold.context import Context
    from vibe_vault.redact import DEFAULT
    from vibe_vault.state import Fold

    ctx = Context(Fold(), DEFAULT)
    ctx.text("export DB_PASSWORD=QzKbPwRtXw7b3k9m2L")
    assert "QzKbPwRt" not in ctx.text("first QzKbPwRt then")
    assert "Xw7b3k9m2L" not in ctx.text("then Xw7b3k9m2L")
    ctx.text("export DB_PASSWORD=Kubernetes4u7x9q2w")
    assert ctx.text("Kubernetes runs it") == "Kubernetes runs it"


# -- end to end ------------------------------------------------------------------------------


def _home_seen(v: str, case: Case, here: bool) -> str:
    """Every file under the vault and the state, every database value
    (decompressed), and what `vv index`, `search` and `show` print, after
    the Stop hook on a session of `case`, as text."""
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000251"
        entries, written = _entries(v, case)
        env.stop(sid, env.transcript(sid, shell._lines(sid, entries)), here=here)
        assert env.notes()
        run = env.vv_here if here else env.vv
        outputs = [run("index"), run("show", sid[:8]), run("search", "login")]
        for w in {v, *written}:
            outputs.append(run("search", runs_of_six(w)[0]))
        files = b"\n".join(p.read_bytes() for root in (env.vault, env.state) if root.exists()
                           for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        seen = files + _database_texts(env.state) + _database_texts(env.vault) + b"".join(
            r.stdout + r.stderr for r in outputs)
        text = seen.decode("utf-8", "replace")
        # The state's digests of what was learned are hex: a hex spelling's
        # run is in one of them by chance (the control's are other digests).
        text = re.sub(r"(?<![0-9a-f])(?:\d+[wm]\d+:)?[0-9a-f]{24}(?![0-9a-f])", "", text)
        return text + json.dumps(text)


@settings(max_examples=examples(4, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cases)
def test_end_to_end_a_learned_values_spellings_are_in_no_file_table_or_output(
        case: Case) -> None:
    here = in_process("learned variants end to end")
    v = case[0][0] + case[0][1]
    _, written = _entries(v, case)
    seen = _home_seen(v, case, here)
    control = _home_seen(_control_of(v)[:len(v)], case, True)
    for shown in (v, *written):
        assert not leaked(seen, control, shown), (case, shown)
