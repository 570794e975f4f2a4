"""Secret forms an attacker found passing the gate (attack 22, rows 16-20,
32-35, 37), by class: a table whose column is a password, a token or a key
(CSV, TSV, Markdown); an SQL INSERT naming such a column; a name then a tab
then its value; csh's setenv; a setter's call (`setProperty("password", …)`);
`SALT=`; `dotnet user-secrets set`; `credentials user:…` in prose; a URL's
query parameter named for a key; GitHub's `::add-mask::`; what an expect
script sends; a value of letters at random after an inline label or in a
quoted header; a passphrase of words, a password of words joined by hyphens.

Generated: each class's spellings (names from real-world lists, in their
casings) x values of four alphabets (letters only, lower case only, letters
and digits, with the punctuation the form allows) x surroundings. Oracle: no
run of 6 characters of the drawn value is left in the gate's output, nor in
the note and the state folded from a session that says it in several places
(against the same output with the value swapped out: runs the note holds
anyway are no leak). Look-alikes (prose naming a password with no value, code
naming a secret's variable with no literal, a column of counts or words) are
generated the same way and must redact nothing.
"""

from __future__ import annotations

import random
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms import _fold
from test_secret_forms_more import CONTROL, PLACES, drawn, leaked

_ALNUM = string.ascii_letters + string.digits
Values = st.SearchStrategy[str]


def uniform(alphabet: str, low: int, high: int) -> Values:
    """A run of `alphabet` drawn uniformly, as a password generator draws it
    (hypothesis' own text draws favour runs of one character, `AAAAAabAcd`,
    which no generator makes)."""
    def draw(n: int, seed: int) -> str:
        rng = random.Random(seed)
        return "".join(rng.choice(alphabet) for _ in range(n))

    # (a seed, not hypothesis' own random: that shrinks towards `aaaa…` too)
    return st.builds(draw, st.integers(low, high), st.integers(0, 2**32))


def _random_enough(v: str) -> bool:
    """No placeholder: five different characters or more, no doubled
    punctuation, beginning and ending with a letter or a digit."""
    return (len(set(v)) >= 5 and v.strip() == v and "  " not in v and ".." not in v
            and v[0].isalnum() and v[-1].isalnum())


def values(punctuation: str, low: int = 10, high: int = 24) -> Values:
    """Values of the four alphabets: letters only, lower case only, letters
    and digits, letters and digits with `punctuation`."""
    # (letters alone from 14, lower case from 16: one in ten thousand shorter
    # runs reads as a name of words, `TvStuarljIqe`, or as a word, which the
    # README leaves)
    return st.one_of(uniform(string.ascii_letters, max(low, 14), high),
                     uniform(string.ascii_lowercase, max(low, 16), high),
                     drawn(_ALNUM, low, high), drawn(_ALNUM + punctuation, low, high),
                     uniform(_ALNUM + punctuation, low, high)).filter(_random_enough)


# A column's name that means a secret, as exports and tables spell it, and the
# other columns beside it.
PASSWORD_COLUMNS = ("password", "Password", "PASSWORD", "db_password", "Login Password",
                    "passwd", "pwd", "user_password", "passphrase")
KEY_COLUMNS = ("token", "Token", "access_token", "api_key", "API Key", "apiKey", "secret",
               "client_secret", "Secret Key", "auth_token", "credentials")
OTHER_COLUMNS = ("username", "user", "Name", "email", "url", "host", "login_uri", "note",
                 "Account", "Web Site", "role")
USERS = ("bob", "alice", "admin", "deploy", "svc-ci", "root", "jane.doe@example.com")


@st.composite
def table(draw: st.DrawFn) -> tuple[str, str]:
    """A CSV (`,` or `;`), TSV or Markdown table with a secret's column; the
    value in one of its rows, other drawn secrets in the others."""
    kind = draw(st.sampled_from(["csv", "csv-quoted", "semicolon", "tsv", "markdown",
                                 "markdown-bare"]))
    secret = draw(st.sampled_from(PASSWORD_COLUMNS + KEY_COLUMNS))
    others = draw(st.lists(st.sampled_from(OTHER_COLUMNS), min_size=1, max_size=3, unique=True))
    at = draw(st.integers(0, len(others)))
    header = [*others[:at], secret, *others[at:]]
    delimiter = {"csv": ",", "csv-quoted": ",", "semicolon": ";", "tsv": "\t"}.get(kind, " | ")
    # (what a cell may hold as written: no delimiter; in "…" any but `"`)
    punctuation = {"csv": "!%+-.:=@^_~#*?/&", "csv-quoted": "!%+-.:=@^_~#*?/&,;",
                   "semicolon": "!%+-.:=@^_~#*?/&,", "tsv": "!%+-.:=@^_~#*?/&,;"}.get(
        kind, "!%+-.:=@^_~#*?/&,;")
    v = draw(values(punctuation))
    rows = draw(st.integers(1, 4))
    planted = draw(st.integers(0, rows - 1))
    body = []
    for r in range(rows):
        cells = [draw(st.sampled_from(USERS)) if c != secret else
                 v if r == planted else draw(values("-_.@"))
                 for c in header]
        if kind == "markdown" and draw(st.booleans()):
            cells = [f"`{c}`" if c == v else c for c in cells]
        body.append(cells)

    def line(cells: list[str]) -> str:
        if kind == "csv-quoted":
            return ",".join(f'"{c}"' for c in cells)
        if kind == "markdown":
            return "| " + delimiter.join(cells) + " |"
        return delimiter.join(cells)

    lines = [line(header)]
    if kind.startswith("markdown"):
        lines.append(line(["---"] * len(header)))
    lines += [line(cells) for cells in body]
    before = draw(st.sampled_from(["", "Here is the export:\n\n", "$ cat users.csv\n"]))
    after = draw(st.sampled_from(["", "\n", "\n\nImport it into the new vault."]))
    return before + "\n".join(lines) + after, v


SQL_TABLES = ("users", "public.accounts", "`service_users`", '"Admins"')


@st.composite
def sql_insert(draw: st.DrawFn) -> tuple[str, str]:
    """An INSERT naming a secret's column among others; the value in one of
    its rows' literals."""
    secret = draw(st.sampled_from(("password", "PASSWORD", "passwd", "password_plain",
                                   "api_key", "token", "access_token", "secret", "`password`",
                                   '"password"')))
    others = draw(st.lists(st.sampled_from(("name", "email", "id", "role", "created_at")),
                           min_size=1, max_size=3, unique=True))
    at = draw(st.integers(0, len(others)))
    columns = [*others[:at], secret, *others[at:]]
    quote = draw(st.sampled_from(["'", '"']))
    v = draw(values("!%+-.:=@^_~#*?/&,;()"))
    rows = draw(st.integers(1, 3))
    planted = draw(st.integers(0, rows - 1))
    literals = {"name": "'bob'", "email": "'b@example.com'", "id": "42", "role": "'admin'",
                "created_at": "NOW()"}
    tuples = []
    for r in range(rows):
        value = v if r == planted else draw(values("-_."))
        tuples.append("(" + ", ".join(literals.get(c, f"{quote}{value}{quote}")
                                      for c in columns) + ")")
    keyword = draw(st.sampled_from(["INSERT INTO", "insert into", "INSERT IGNORE INTO"]))
    gap = draw(st.sampled_from([" ", "\n  ", "\n"]))
    text = (f"{keyword} {draw(st.sampled_from(SQL_TABLES))} ({', '.join(columns)}){gap}VALUES "
            + ("," + gap).join(tuples) + ";")
    before = draw(st.sampled_from(["", "psql -c \"", "Run this:\n\n"]))
    return before + text + ('"' if before.startswith("psql") else ""), v


# Forms that name a secret some other way: (spelling, punctuation its value may hold).
_SHELL = "%+-.:=@^_~/"
_QUOTED = "!%+-.:=@^_~#*?,/&|;()[]{} "
_URL = "-._~%+="
_PROSE = "%+-=@^_~#*&!"
# (A quoted assignment's value is a string, whatever its brackets: `AUTH_SALT='A01(2'`
# was read as a call, `'A01[2'` as a subscript, and left, until 2026-11-28.)
NAMED: tuple[tuple[str, str], ...] = (
    ("PASSWORD\t{v}", _SHELL), ("user\tbob\ndb_password\t{v}\nurl\thttps://x", _SHELL),
    ("API_TOKEN\t{v}", _SHELL), ("  Secret\t{v}\n", _SHELL),
    ("setenv API_TOKEN {v}", _SHELL), ("setenv DB_PASSWORD '{v}'", _QUOTED.replace("'", "")),
    ('setenv GITHUB_TOKEN "{v}"', _QUOTED), ('setenv("API_KEY", "{v}", 1);', _QUOTED),
    ("SALT={v}", _SHELL), ("export PASSWORD_SALT={v}", _SHELL), ("AUTH_SALT='{v}'", _QUOTED),
    ("DB_PASSWORD='{v}'", _QUOTED), ('{"api_key": "{v}"}', _QUOTED),
    ('const authToken = "{v}";', _QUOTED), ("secret_key = '{v}'", _QUOTED),
    ('  client_secret: "{v}"', _QUOTED), ('{"passcode": "{v}"}', _QUOTED), ("PASSCODE={v}", _SHELL),
    ('props.setProperty("password", "{v}");', _QUOTED),
    ("localStorage.setItem('authToken', '{v}')", _QUOTED),
    ('System.setProperty("db.password", "{v}")', _QUOTED),
    ("os.environ.setdefault('DB_PASSWORD', '{v}')", _QUOTED),
    ('dotnet user-secrets set "Api:Key" "{v}"', _QUOTED),
    ("dotnet user-secrets set Stripe:SecretKey {v} --project src/Web", _SHELL),
    ("credentials bob:{v}", _PROSE), ("the creds are admin:{v}.", _PROSE),
    ("use credentials deploy:{v} for the staging box", _PROSE),
    ("curl https://maps.example.com/api?key={v}", _URL),
    ("GET /v1/items?limit=5&api_key={v}&page=2", _URL),
    ("wget 'https://api.example.com/q?apikey={v}'", _URL),
    # (a SAS signature is base64, percent-encoded: no `.`, `-`, `_` or `~`)
    ("https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig={v}", "%+="),
    ("curl 'https://h.example.com/x?token={v}&x=1'", _URL),
    ('echo "::add-mask::{v}"', _QUOTED.replace(" ", "")), ("echo ::add-mask::{v}", _SHELL),
    ("expect -c 'send \"{v}\\r\"'", "!%+=@^_~#*?,&|;()[]{}"),
    ('spawn ssh me@host\nexpect "password:"\nsend "{v}\\r"\ninteract', "!%+-.:=@^_~#*?,/&|;()"),
    ("The user has password: {v} in the file.", _PROSE),
    ('curl -H "X-Api-Key: {v}" https://x.example.com', _PROSE),
    ('curl --header "PRIVATE-TOKEN: {v}" https://gitlab.example.com/api/v4', _PROSE),
    ("my token: {v} is the one to use", _PROSE), ("set secret: {v} and restart", _PROSE),
)


@st.composite
def named(draw: st.DrawFn) -> tuple[str, str]:
    spelling, punctuation = draw(st.sampled_from(NAMED))
    v = draw(values(punctuation))
    before = draw(st.sampled_from(["", "run this:\n", "# settings\n"]))
    after = draw(st.sampled_from(["", "\n", "\nthen restart the app"]))
    return before + spelling.replace("{v}", v) + after, v


# Words a passphrase is drawn from (Diceware's kind: nouns and adjectives,
# none a sentence's glue).
PASSPHRASE_WORDS = ("horse", "battery", "staple", "zebra", "lunar", "pickle", "oven", "velvet",
                    "cactus", "harbor", "maple", "quartz", "tundra", "violin", "walrus", "yonder",
                    "ember", "falcon", "glacier", "hazel", "igloo", "jasper", "kettle", "lemon")


@st.composite
def passphrase(draw: st.DrawFn) -> tuple[str, str]:
    """A passphrase of words (spaced, or joined by hyphens), or a password of
    two random lower-case runs joined by a hyphen, after its name."""
    name = draw(st.sampled_from(["passphrase", "Passphrase", "password", "PASSWORD",
                                 "db_password", "wifi password"]))
    sep = draw(st.sampled_from([": ", " = ", ":\t", "="]))
    how = draw(st.sampled_from(["words", "hyphens", "random"]))
    if how == "random":
        parts = draw(st.lists(uniform(string.ascii_lowercase, 10, 14), min_size=2, max_size=3))
        v = "-".join(parts)
    else:
        words = draw(st.lists(st.sampled_from(PASSPHRASE_WORDS), min_size=4, max_size=7,
                              unique=True))
        v = (" " if how == "words" else "-").join(words)
    after = draw(st.sampled_from(["", "\n", ".\n", "\nthen log in"]))
    return name + sep + v + after, v


# Where a provider's token begins (another rule finds it): inside a password
# drawn at random, that rule hides only from there.
TOKEN_HEADS = ("xoxa-", "xoxb-", "xoxp-", "ghp_", "gho_", "glpat-", "sk-", "AKIA", "hvs.", "npm_")


@st.composite
def holding_a_token(draw: st.DrawFn) -> tuple[str, str]:
    """A secret's value with a provider token's beginning inside it, after
    a head of its own (`passphrase: tgoqwpwqlxoxa-mynbiqpmzj`, found by CI's
    counts on 2026-11-28: the head was left)."""
    head = draw(uniform(string.ascii_lowercase + string.digits, 6, 14))
    tail = draw(uniform(_ALNUM, 16, 36))
    v = head + draw(st.sampled_from(TOKEN_HEADS)) + tail
    name = draw(st.sampled_from(PASSWORD_COLUMNS[:4] + KEY_COLUMNS[:4]))
    quote = draw(st.sampled_from(["", "'", '"']))
    sep = draw(st.sampled_from([": ", "=", " = "]))
    after = draw(st.sampled_from(["", "\n", " and restart"]))
    return f"{name.replace(' ', '_')}{sep}{quote}{v}{quote}{after}", v


CLASSES: dict[str, Any] = {"table": table(), "sql": sql_insert(), "named": named(),
                           "passphrase": passphrase(), "holding": holding_a_token()}


def _check_gate(case: tuple[str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    text, v = case
    out, n = DEFAULT.redact(text)
    assert n >= 1 and not leaked(out, DEFAULT.redact(text.replace(v, CONTROL))[0], v), (
        text, out)


@settings(max_examples=examples(200, 2000), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_the_value(case: tuple[str, str]) -> None:
    _check_gate(case)


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_the_value_is_in_no_note_or_state(case: tuple[str, str],
                                                 where: list[str]) -> None:
    text, v = case
    if "\t" in text:
        # (an error's lines are collapsed before the gate, tabs to spaces: a
        # tab's form is not one there; left, see docs/privacy.md)
        where = [w for w in where if w != "error"] or ["prompt"]
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


# Look-alikes: the same forms with no secret in them.
_SECRET_NAMES = ("password", "Password", "PASSWORD", "passwd", "secret", "token", "api_key",
                 "apiKey", "API_TOKEN", "private_key", "client_secret", "passphrase")
# Words that say what a password is, where it is, or that it is wanted.
_SAYING = ("required", "optional", "stored", "hidden", "missing", "expired", "changed", "wrong",
           "unchanged", "encrypted", "rotated", "needed", "set", "reset")
_NOUNS = ("file", "vault", "config", "keychain", "database", "manager", "settings")
_IDENTIFIERS = ("input_tokens", "output_tokens", "max_tokens", "token_count", "password_hash",
                "secret_arn", "api_key_id", "tokenType", "passwordField")


@st.composite
def look_alike(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_SECRET_NAMES))
    word = draw(st.sampled_from(_SAYING))
    noun = draw(st.sampled_from(_NOUNS))
    ident = draw(st.sampled_from(_IDENTIFIERS))
    cls = draw(st.sampled_from(["TokenUsage", "SecretStore", "PasswordPolicy", "Usage"]))
    other = draw(st.sampled_from(OTHER_COLUMNS))
    count = draw(st.integers(0, 99999))
    forms = [
        # prose naming a secret with no value
        f"The user has {name}: {word} in the {noun}.",
        f"the {name} is {word} in the {noun}",
        f"<description>the {name} is {word}</description>",
        f"{name}: must be {word} every {count % 90 + 1} days",
        f"{name}: " + draw(st.sampled_from(["read-only", "write-only", "one-time", "well-known",
                                            "auto-generated", "user-defined", "not-set",
                                            "environment-specific", "system-generated"])),
        f"{name.capitalize()}: set it in the {noun} file, then restart",
        f"credentials file: ~/.aws/credentials; credentials localhost:{count % 65536}",
        # code naming a secret's variable, no literal
        f"class {cls}:\n    {ident}: int = 0\n    {name}: str = ''",
        f"{name}_name = 'db-{noun}'",
        f"{name}_path = '~/.ssh/id_ed25519'",
        f"{name.upper()}_FILE=/run/secrets/{noun}",
        f"{ident} = {count}",
        f"setenv {name.upper()} $HOME/.{noun}",
        f'props.setProperty("{name}", {name});',
        f"INSERT INTO users (name, {name}) VALUES ($1, $2)",
        f"INSERT INTO usage (model, {ident}) VALUES ('opus', {count})",
        f"curl 'https://h.example.com/x?key={noun}&page={count}'",
        'send "exit\\r"\nsend "yes\\r"',
        # a quoted type or a reference to the environment, not a literal
        f'{name}: "{draw(st.sampled_from(["List", "Optional", "dict", "typing.Mapping"]))}[str]"',
        f'{{"{name}": "string", "{other}": "string"}}',
        f"{name} = \"os.environ.get('{name.upper()}')\"",
        f'echo "::add-mask::${{{{ secrets.{name.upper()} }}}}"',
        # tables with a secret's column of no secrets, and of counts
        f"| {other} | {name} |\n|---|---|\n| bob | {word} |\n| alice | *** |\n| root | - |",
        f"| model | input tokens | output tokens |\n|---|---|---|\n| opus | {count} | 12 |",
        f"| Token | Meaning |\n| --- | --- |\n| `LPAREN` | opening |\n| `IDENT` | a {noun} |",
        f"{other},{name}\nbob,<{name}>\nalice,${{{name.upper()}}}",
    ]
    return draw(st.sampled_from(forms))


@settings(max_examples=examples(200, 2000), deadline=None)
@given(look_alike())
def test_look_alikes_redact_nothing(text: str) -> None:
    from vibe_vault.redact import DEFAULT

    assert DEFAULT.redact(text) == (text, 0), text
