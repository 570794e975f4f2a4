"""A value caught in its assignment that is a word (`POSTGRES_PASSWORD=postgres`,
`DB_PASSWORD=administrator`) is hidden there, and only there: learned, it hid
the word for the rest of the session, in the key's own name
(`[REDACTED:learned]_PASSWORD`), the image (`[REDACTED:learned]:16`), the
user (`psql -U …`) and the prose ("upgrade the … server"). Attack 26, f4.

Generated: a word (the BIP-39 list: a dictionary no code of the gate reads;
the usual default passwords and service names), a key spelt from it, taught
in a command, then the word said in a prompt, a command and Claude's answer.
Oracle: the word is in the note where the user wrote it as a word, and not
after `=` where it is the value. A random value (letters and digits, or
random letters) taught the same way is still kept out bare: the learned-value
tests (test_secret_learned_*.py) say so for every spelling.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.fold.context import plain_value
from vibe_vault.redact import Redactor
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

_WORDS = (Path(__file__).resolve().parents[1] / "src" / "vibe_vault" / "data"
          / "bip39-english.txt").read_text().split()
# Default passwords and names of services a compose file or a tutorial sets.
_DEFAULTS = ["postgres", "postgresql", "administrator", "mysql", "mariadb", "redis",
             "mongodb", "changeme", "password", "secret", "letmein", "welcome", "rabbitmq",
             "keycloak", "grafana", "jenkins", "elasticsearch", "kubernetes", "sonarqube",
             "PostgresAdmin", "DBAdmin", "Passwort", "пароль", "contraseña", "motdepasse"]
_ALNUM = string.ascii_letters + string.digits


def test_every_word_of_a_dictionary_and_every_usual_default_is_plain() -> None:
    assert [w for w in _WORDS + _DEFAULTS if len(w) >= 6 and not plain_value(w)] == []


def test_a_random_value_is_never_plain() -> None:
    rng = random.Random(26)
    mixed = ["".join(rng.choices(_ALNUM, k=n)) + str(rng.randrange(10)) for n in range(6, 40)
             for _ in range(200)]
    assert [v for v in mixed if plain_value(v)] == []
    # Random letters only: of 17 or more never; shorter, only when every part
    # of its camel case is a listed word (test_secrets planted `ApfwooCC`).
    long_letters = ["".join(rng.choices(string.ascii_letters, k=n)) for n in range(17, 40)
                    for _ in range(200)]
    assert [v for v in long_letters if plain_value(v)] == []
    short = ["".join(rng.choices(string.ascii_letters, k=12)) for _ in range(4000)]
    assert sum(map(plain_value, short)) < len(short) // 10


def _note(word: str, key: str) -> str:
    t = Transcript()
    t.prompt("start the database")
    t.bash(f"docker run -e {key}={word} {word}:16", "", "Start it")
    t.prompt(f"now upgrade the {word} server and check the {word} logs")
    t.bash(f"psql -U {word} -h localhost -c 'select 1'", "", f"Connect as {word}")
    t.say(f"The {word} server is up; {key} is set.")
    state = SessionState(session_id="s", project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    return render(state)


@settings(max_examples=examples(30, 200), deadline=None)
@given(word=st.sampled_from([w for w in _WORDS + _DEFAULTS if len(w) >= 6]),
       key=st.sampled_from(["{W}_PASSWORD", "DB_PASSWORD", "{W}_ROOT_PASSWORD", "PASSWORD",
                            "{W}_TOKEN", "{W}_SECRET"]))
def test_a_word_taught_as_a_password_stays_a_word_elsewhere(word: str, key: str) -> None:
    name = key.replace("{W}", word.upper()) if word.isascii() else key.replace("{W}", "APP")
    note = _note(word, name)
    assert f"upgrade the {word} server and check the {word} logs" in note
    assert f"psql -U {word} -h localhost" in note
    assert "REDACTED:learned" not in note
    # Where it was set it stays as the gate alone leaves it: hidden, unless
    # the gate reads it as a placeholder (`changeme`).
    command = f"docker run -e {name}={word} {word}:16"
    assert (f"{name}={word}" in note) == (f"{name}={word}" in Redactor().redact(command)[0])
