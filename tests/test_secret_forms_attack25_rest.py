"""Attack 25's last leftovers, by class (session 29):

- a value split into strings after a secret's name (`password = "a" + "b"
  + "c"`, `.concat(`, `["a", "b"].join("")`, Python's implicit
  concatenation, a line continued, an f-string of pieces): every piece is
  the value's, not the first alone;
- a word saying what a password is, in another language, after its name
  and a colon (`wachtwoord: verplicht`, `hasło: wymagane`) is no value;
- a command that takes a secret as its argument, with none on its line: the
  next line (its output, the next command) is no argument, whatever ends
  the line (`\\n`, `\\r\\n`).

Generated: name x language x concatenation form x value shape x line end.
Oracle: no run of 6 of the value (which the test drew) in what the gate
returns, in the note and the state folded from a session that says it, nor
(end to end) in any file, database table or search term, or what `vv`
prints; look-alikes are left whole.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_more import PLACES, shown_beyond
from test_secret_forms_small_leaks import _folded_nowhere, _hidden, token
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]


def _left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found


# -- a word saying what a password is, in its language ------------------------------------------

# (the test's own table: each language's name for a password and its words for
# "required", "optional", "none", "unknown", "empty", "see below")
SAYING = {
    "wachtwoord": ("verplicht", "vereist", "optioneel", "geen", "onbekend", "leeg",
                   "zie hieronder"),
    "hasło": ("wymagane", "opcjonalne", "brak", "puste"),
    "adgangskode": ("påkrævet", "valgfri", "ingen", "ukendt"),
    "passord": ("påkrevd", "valgfritt", "ingen", "ukjent"),
    "salasana": ("pakollinen", "valinnainen", "tyhjä", "tuntematon"),
    "heslo": ("povinné", "volitelné", "žádné", "prázdné"),
    "jelszó": ("kötelező", "opcionális", "nincs", "üres"),
    "parola": ("obligatoriu", "opțional", "necunoscut"),
    "şifre": ("gerekli", "zorunlu", "yok", "boş", "bilinmiyor"),
    "contraseña": ("requerida", "obligatoria", "opcional", "ninguna", "desconocida"),
    "senha": ("obrigatória", "opcional", "nenhuma", "desconhecida"),
    "mot de passe": ("obligatoire", "requis", "facultatif", "aucun", "inconnu"),
    "Passwort": ("erforderlich", "optional", "keins", "unbekannt", "leer"),
    "lösenord": ("krävs", "valfri", "ingen", "okänt"),
    "kata sandi": ("wajib", "diperlukan", "opsional", "kosong"),
}


@st.composite
def saying_what_it_is(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(sorted(SAYING)))
    word = draw(st.sampled_from(SAYING[name]))
    if draw(st.booleans()):
        name = name[:1].upper() + name[1:]
    end = draw(st.sampled_from(["", ".", "\n", " (see docs)"]))
    return draw(st.sampled_from(["{n}: {w}", "- {n}: {w}", "**{n}:** {w}"])).replace(
        "{n}", name).replace("{w}", word) + end


@settings(max_examples=examples(100, 1000), deadline=None)
@given(saying_what_it_is())
def test_a_word_saying_what_a_password_is_in_its_language_is_left(text: str) -> None:
    _left(text)


@settings(max_examples=examples(60, 600), deadline=None)
@given(st.sampled_from(sorted(SAYING)), token(10, 24))
def test_a_value_after_the_same_names_is_hidden(name: str, v: str) -> None:
    out, _ = DEFAULT.redact(f"{name}: {v}")
    assert v not in out and v[:8] not in out, out


# -- a command's argument is on the command's line -----------------------------------------------

# Commands that take a secret as an argument (the value put after them on
# their line is hidden: tested below with each line end).
COMMANDS = ("bw unlock", "bw unlock --raw", "cargo login", "vault login", "snyk auth",
            "sshpass -p", "htpasswd -nb admin", "wpa_passphrase CorpWiFi",
            "security unlock-keychain -p", "openssl passwd -6", "mc alias set m https://x a",
            "ngrok config add-authtoken")
LINE_ENDS = ("\n", "\r\n")


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from(COMMANDS), st.sampled_from(LINE_ENDS), token(8, 20),
       st.sampled_from(["", "$ ", "PS> "]))
def test_the_line_after_a_command_with_no_argument_is_left(
        command: str, end: str, nxt: str, prompt: str) -> None:
    # (the next line: what the command printed, or another command)
    _left(f"{prompt}{command}{end}{nxt} is the session{end}")
    _left(f"{prompt}{command}{end}{prompt}ls -la{end}")


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from(COMMANDS), st.sampled_from(LINE_ENDS), token(12, 24))
def test_an_argument_on_the_command_line_is_hidden_whatever_ends_it(
        command: str, end: str, v: str) -> None:
    text = f"$ {command} {v}{end}$ ls{end}"
    out, n = DEFAULT.redact(text)
    assert n and not shown_beyond(out, text, v, [v[:6], v[-6:]]), out
    # (a line continued by a backslash is the command's still)
    text = f"$ {command} \\{end}  {v}{end}"
    out, n = DEFAULT.redact(text)
    assert n and not shown_beyond(out, text, v, [v[:6], v[-6:]]), out


# -- a value split into strings after a secret's name --------------------------------------------

# (names a value is given to, as code writes them, in English and others)
KEYS = ("password", "db_password", "DB_PASSWORD", "API_KEY", "api_key", "secret", "auth_token",
        "client_secret", "const password", "let apiKey", "var token", "$password", "self.password",
        "private_key", "wachtwoord", "пароль", "contraseña", "mot_de_passe", "passwort")


def _pieces(draw: st.DrawFn, v: str, least: int) -> list[str]:
    """`v` cut in 2 to 4 pieces of `least` characters or more."""
    n = draw(st.integers(2, min(4, len(v) // least)))
    cuts = sorted(draw(st.lists(st.integers(least, len(v) - least), min_size=n - 1,
                                max_size=n - 1, unique=True).filter(
        lambda cs: all(b - a >= least for a, b in pairwise(sorted(cs))))))
    bounds = [0, *cuts, len(v)]
    return [v[a:b] for a, b in pairwise(bounds)]


def _joined(draw: st.DrawFn, parts: list[str]) -> str:
    """The pieces joined as a language writes it (the test's own forms)."""
    q = draw(st.sampled_from(['"', "'"]))
    other = "'" if q == '"' else '"'
    lits = [q + p + q for p in parts]
    form = draw(st.sampled_from(["op", "concat", "list-join", "join-list", "implicit",
                                 "implicit-lines", "continued", "f-string", "template"]))
    if form == "op":
        glue = draw(st.sampled_from([" + ", "+", " . ", " .. ", " || ", " & ", " ~ ",
                                     " +\n    ", "\n    + "]))
        return glue.join(lits)
    if form == "concat":
        return lits[0] + ".concat(" + ", ".join(lits[1:]) + ")"
    if form == "list-join":
        return "[" + ", ".join(lits) + "].join(" + q + q + ")"
    if form == "join-list":
        return q + q + ".join([" + ", ".join(lits) + "])"
    if form == "implicit":
        return draw(st.sampled_from(["({})", "{}"])).format(" ".join(lits))
    if form == "implicit-lines":
        return "(\n    " + "\n    ".join(lits) + "\n)"
    if form == "continued":
        return " \\\n    ".join(lits)
    if form == "f-string":
        return "f" + q + "".join("{" + other + p + other + "}" for p in parts) + q
    return "`" + "".join("${" + q + p + q + "}" for p in parts) + "`"


@st.composite
def split_values(draw: st.DrawFn, least: int = 3) -> Case:
    """A value cut in pieces of `least` characters or more (6: each piece
    is a run the oracle of six finds, where the note or the state shows it)."""
    v = draw(token(max(12, 2 * least), 32))
    key = draw(st.sampled_from(KEYS))
    sep = draw(st.sampled_from([" = ", "=", ": ", " := "]))
    if key.startswith(("const ", "let ", "var ", "$", "self.")):
        sep = " = "
    written = draw(st.sampled_from(["{k}{s}{x}", "{k}{s}{x};", '"{k}"{s}{x},', "    {k}{s}{x}\n"]))
    if written.startswith('"') and " " in key:
        written = "{k}{s}{x}"
    return written.replace("{k}", key).replace("{s}", sep).replace(
        "{x}", _joined(draw, _pieces(draw, v, least))), [v]


def _no_piece_shown(text: str, values: list[str], out: str) -> None:
    for v in values:
        assert v[:6] not in out and v[-6:] not in out, (text, out)


@settings(max_examples=examples(150, 1500), deadline=None)
@given(split_values())
def test_a_value_split_into_strings_is_hidden_whole(case: Case) -> None:
    text, values = case
    _hidden(text, values)
    out, _ = DEFAULT.redact(text)
    # (every piece, those shorter than the oracle's run of six too)
    for piece in _pieces_of(text, values[0]):
        assert piece not in out, (text, out, piece)


def _pieces_of(text: str, v: str) -> list[str]:
    """The string literals of a text that are pieces of `v`, as written."""
    import re

    return [m.group(0) for m in re.finditer(r"\"[^\"\n]+\"|'[^'\n]+'", text)
            if m.group(0)[1:-1] in v]


@settings(max_examples=examples(30, 300), deadline=None)
@given(split_values(6), PLACES)
def test_folded_a_value_split_into_strings_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(split_values(6), min_size=2, max_size=4))
def test_end_to_end_a_value_split_into_strings_is_in_no_file_table_or_output(
        cases: list[Case]) -> None:
    in_no_output([(text, values[0]) for text, values in cases], in_process("attack25 rest end to end"))


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.data())
def test_strings_joined_that_are_no_secret_are_left(data: st.DataObject) -> None:
    """The same forms given to a name that is no secret's, or words joined
    after a secret's name (a message, not a value), are left whole."""
    parts = data.draw(st.lists(st.sampled_from(["Hello ", "world", "the ", "user ", "name", ", ",
                                                "config", ".json", "/tmp/", "app"]),
                               min_size=2, max_size=4))
    name = data.draw(st.sampled_from(["message", "label", "path", "greeting", "title",
                                      "print(", "console.log("]))
    text = name + ("" if name.endswith("(") else " = ") + _joined(data.draw, parts)
    _left(text)


# -- in linear time ---------------------------------------------------------------------------------

# Texts built to be the joined reading's worst: each form's head repeated,
# never closed; literals of the longest piece; glues with no literal after.
_WORST_UNITS = ('"a" + ', '"a" "', "'a'.concat('b', ", '["a", ', '"".join(["a", ', "f\"{'a'}",
                '`${"a"}', '"' + "b" * 199 + '" + ', '"\n', "'" * 3, '" + + "', "(\n'a'\n")


def _joined_time(text: str) -> float:
    import time

    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        DEFAULT.redact(text)
        best = min(best, time.process_time() - start)
    return best


def test_the_joined_reading_grows_linearly_on_its_worst_texts() -> None:
    """Its time on a text sixteen times longer is under 64 times its time on
    the shorter (linear: 16; quadratic: 256), measured again before it fails."""
    slow = []
    for unit in _WORST_UNITS:
        texts = ["password = " + unit * (size // len(unit)) for size in (2_000, 32_000)]
        grew = _joined_time(texts[1]) / max(_joined_time(texts[0]), 1e-6)
        if grew > 64:
            grew = _joined_time(texts[1]) / max(_joined_time(texts[0]), 1e-6)
            if grew > 64:
                slow.append((unit, round(grew)))
    assert not slow, slow


# -- a name's shape said after a secret's word and a colon ------------------------------------------

# (the test's own: secret words of several languages, as people write them)
PROSE_NAMES = ("password", "Password", "PASSWORD", "passwort", "пароль", "Пароль", "wachtwoord",
               "contraseña", "mot de passe", "hasło", "senha", "my password", "the db password")


@st.composite
def name_shaped(draw: st.DrawFn) -> Case:
    """A value shaped as a name (words joined by `_`, a number after them,
    capitals inside), drawn fresh, after a secret's word and a colon."""
    words = draw(st.lists(st.sampled_from(["db", "admin", "user", "app", "prod", "bob", "corp",
                                           "main", "svc", "root"]), min_size=1, max_size=3))
    number = draw(st.integers(10, 99_999))
    tail = draw(st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=6))
    v = draw(st.sampled_from([
        "_".join([*words, tail]) + "_" + str(number), "_".join([*words, tail]) + str(number),
        "_".join([*words, tail]), tail.capitalize() + "_" + "_".join(words) + str(number)]))
    name = draw(st.sampled_from(PROSE_NAMES))
    end = draw(st.sampled_from(["", ".", "\n", " for the admin account", "\n- user: bob"]))
    lead = draw(st.sampled_from(["", "- ", "Here it is, ", "> "]))
    return f"{lead}{name}: {v}{end}", [v]


@settings(max_examples=examples(100, 1000), deadline=None)
@given(name_shaped())
def test_a_name_shaped_value_said_after_a_colon_is_hidden(case: Case) -> None:
    text, values = case
    out, n = DEFAULT.redact(text)
    assert n and values[0] not in out, (text, out)


@settings(max_examples=examples(20, 200), deadline=None)
@given(name_shaped(), PLACES)
def test_folded_a_name_shaped_value_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from(PROSE_NAMES), st.sampled_from([
    "required", "see vault", "${DB_PASSWORD}", "<redacted>", "config.password", "DB_PASSWORD",
    "str", "Optional[str]", "None", "$DB_PASS", "{{ db_password }}", "<your-password>"]))
def test_what_says_where_or_what_the_password_is_is_left(name: str, said: str) -> None:
    _left(f"{name}: {said}")


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from(["db_password", "dbPassword", "DB_PASSWORD", "app.password",
                        "db_пароль", "adminPasswort"]),
       st.sampled_from(["user_password", "db_password", "form.password"]),
       st.sampled_from(["", ",", "\n"]))
def test_a_name_in_code_given_a_name_is_left(key: str, value: str, end: str) -> None:
    """A key written as code's name, or an object's field given a variable."""
    _left(f"{key}: {value}{end}")
    _left(f"{{ password: {value} }}")
    _left(f"connect({{ password: {value}, user }})")
