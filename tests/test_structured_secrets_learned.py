"""A value under a secret's name in ANY command's output is learned: the
value is kept out wherever it comes back in the session. Attack 25 (R5):
`terraform output -json`, a kubeconfig's `token:` / `client-key-data:`,
`git credential fill` (`password=…`), `aws iam create-access-key` JSON,
`jq`/`yq`/`grep` of secrets files were not learned, so a later `was it X ?`
showed the value in the note, the state and vault.db.

Generated: commands (none of them in a table of secret printers) x output
shapes (JSON on one line or indented, YAML, `key=value`, `key = "value"`,
`export KEY=value`, `key: value` among other lines) x secret key names x value
alphabets; the value then said in a prompt and an answer. Oracle: no run of
six of the value in the note or the state (in process), nor in the vault, the
state dir (not its archive of raw transcripts) or any table of vault.db, its
compressed blobs opened (end to end through the hook); runs a control
session (another value) holds are not counted.

The other way: ordinary structured output (`"token_count": 12`, `password:
${DB_PASSWORD}`, `password: TODO`, a cache's `key:` in a CI log) teaches
nothing: the same words said later come back whole.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import string
import tempfile
import zlib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState, encode_state

COMMANDS = [
    "terraform output -json", "tofu output -json db", "./scripts/show-config.sh",
    "git credential fill <<< 'host=github.com'", "aws iam create-access-key --user-name bob",
    "curl -s localhost:8080/debug/config", "make print-config", "python manage.py dumpconfig",
    "sudo cat /etc/rancher/k3s/k3s.yaml", "jq . settings.json", "yq . values.yaml",
    "grep -A2 db config.ini", "kubectl config view --raw", "op item get db --format json",
    "vault read -format=json secret/app", "docker inspect app",
]
KEYS = [
    "password", "db_password", "DB_PASSWORD", "token", "access_token", "secret",
    "client_secret", "private_key", "client-key-data", "SecretAccessKey", "api_key",
    "apiKey", "auth-token", "passphrase", "refresh_token", "AUTH_TOKEN",
]
SHAPES = {
    "json": lambda k, v: json.dumps({"name": "app", k: v, "port": 5432}),
    "json-nested": lambda k, v: json.dumps(
        {"db": {"sensitive": True, "value": {"host": "db.internal", k: v}}}, indent=2),
    "yaml": lambda k, v: f"apiVersion: v1\nusers:\n- name: app\n  user:\n    {k}: {v}\n",
    "pairs": lambda k, v: f"protocol=https\nhost=github.com\nusername=bob\n{k}={v}\n",
    "ini": lambda k, v: f"[client]\nhost = db.internal\n{k} = \"{v}\"\n",
    "export": lambda k, v: f"export HOME=/home/bob\nexport {k}={v}\n",
    "among": lambda k, v: f"Loading config...\nhost: db.internal\n{k}: {v}\nDone in 0.2 s\n",
}
ALPHABETS = {
    "alnum": string.ascii_letters + string.digits,
    "base64": string.ascii_letters + string.digits + "+/",
    "urlsafe": string.ascii_letters + string.digits + "-_",
}
CONTROL = "Zx9Kq2Wm7Pv4Rt8N"  # (what a session holds whatever the value is no leak)


def _value(alphabet: str) -> st.SearchStrategy[str]:
    # A value as random as a secret is: both cases and digits, shuffled,
    # ten characters or more of them different.
    parts = st.tuples(st.text(string.ascii_uppercase, min_size=3, max_size=6),
                      st.text(string.ascii_lowercase, min_size=3, max_size=6),
                      st.text(string.digits, min_size=3, max_size=6),
                      st.text(alphabet, min_size=7, max_size=22))
    return parts.flatmap(lambda p: st.permutations(list("".join(p)))).map("".join).filter(
        lambda v: len(set(v)) >= 10 and v[0].isalnum() and v[-1].isalnum())


def _transcript(command: str, output: str, said: str) -> Transcript:
    t = Transcript()
    t.prompt("show me the app's settings")
    t.bash(command, output, "Show settings")
    t.prompt(said)
    t.say(said)
    return t


def _session(command: str, output: str, said: str) -> tuple[str, str]:
    t = _transcript(command, output, said)
    state = SessionState(session_id="s", project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    return render(state), encode_state(state).decode("utf-8", "replace")


def _runs(value: str, *texts: str) -> set[str]:
    return {value[i:i + 6] for i in range(len(value) - 5) if any(value[i:i + 6] in t for t in texts)}


cases = st.tuples(st.sampled_from(COMMANDS), st.sampled_from(sorted(SHAPES)),
                  st.sampled_from(KEYS), st.sampled_from(sorted(ALPHABETS)).flatmap(_value))


@settings(max_examples=examples(80, 600), deadline=None)
@given(cases)
def test_a_value_under_a_secret_name_in_any_output_is_learned(
        case: tuple[str, str, str, str]) -> None:
    command, shape, key, value = case
    output = SHAPES[shape](key, value)
    note, kept = _session(command, output, f"was it {value} ?")
    control = "".join(_session(command, SHAPES[shape](key, CONTROL), f"was it {CONTROL} ?"))
    leaked = _runs(value, note, kept) - _runs(value, control)
    assert not leaked, (command, shape, key, value, leaked)


def _db_text(db: Path) -> str:
    """Every value of every table of vault.db, compressed blobs opened."""
    out: list[str] = []
    con = sqlite3.connect(db)
    try:
        tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        for table in tables:
            try:
                rows = con.execute(f'select * from "{table}"').fetchall()
            except sqlite3.OperationalError:
                continue  # (a full-text index: its shadow tables hold its data)
            for row in rows:
                for cell in row:
                    if isinstance(cell, bytes):
                        with contextlib.suppress(zlib.error):
                            cell = zlib.decompress(cell)
                        cell = cell.decode("utf-8", "replace")
                    out.append(str(cell))
    finally:
        con.close()
    return "\n".join(out)


def _everything(env: Env) -> str:
    """The vault's files, the state dir's (not its archive of raw transcripts:
    by design) and vault.db's tables."""
    texts = [p.read_bytes().decode("utf-8", "replace")
             for root in (env.vault, env.state) if root.exists()
             for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()
             and "archive" not in p.relative_to(root).parts and p.suffix != ".db"]
    # (the search index keeps words in lower case)
    texts += [_db_text(p).lower() for p in env.state.rglob("*.db")]
    return "\n".join(texts)


@settings(max_examples=examples(4, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cases)
def test_end_to_end_the_value_is_in_no_note_state_or_vault_db(
        case: tuple[str, str, str, str]) -> None:
    command, shape, key, value = case
    here = in_process("structured secrets end to end")
    seen = []
    for v in (value, CONTROL):
        with tempfile.TemporaryDirectory() as tmp:
            env = Env(Path(tmp))
            sid = "5ec7e700-0000-4000-8000-000000000031"
            t = _transcript(command, SHAPES[shape](key, v), f"was it {v} ?")
            env.stop(sid, env.transcript(sid, t.encoded()), here=here)
            assert env.notes()
            assert env.vv_here("index").returncode == 0
            seen.append(_everything(env))
    leaked = _runs(value, seen[0]) - _runs(value, seen[1])
    leaked |= _runs(value.lower(), seen[0]) - _runs(value.lower(), seen[1])
    assert not leaked, (command, shape, key, value, leaked)


ORDINARY = [
    ('"token_count": 12', "token_count"), ("password: ${DB_PASSWORD}", "${DB_PASSWORD}"),
    ("password: TODO", "TODO"), ("api_key: YOUR_API_KEY", "YOUR_API_KEY"),
    ("token: string", "string"), ("secret: true", "true"), ("password: changeme", "changeme"),
    ("max_tokens: 4096", "4096"), ('"auth": "basic"', "basic"),
    ("tokenizer: AutoTokenizer", "AutoTokenizer"),
    ("token expires: 2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
    ("Trying to restore uv cache from GitHub Actions cache with key: "
     "setup-uv-1-x86_64-unknown-linux-gnu-0.7.13-f6c65b29c82e498115b3dc436b3a85fc04",
     "setup-uv-1-x86_64-unknown-linux-gnu-0.7.13-f6c65b29c82e498115b3dc436b3a85fc04"),
    ("password_file: /run/secrets/db_password", "/run/secrets/db_password"),
    ("secret_ref: projects/app/secrets/db/versions/3", "projects/app/secrets/db/versions/3"),
]


@settings(max_examples=examples(30, 200), deadline=None)
@given(st.sampled_from(COMMANDS), st.lists(st.sampled_from(ORDINARY), min_size=1, max_size=5,
                                           unique=True))
def test_ordinary_structured_output_teaches_nothing(
        command: str, lines: list[tuple[str, str]]) -> None:
    output = "\n".join(line for line, _ in lines) + "\n"
    said = "so it says " + " and ".join(word for _, word in lines) + " there"
    note, _ = _session(command, output, said)
    assert "[REDACTED:learned" not in note, (command, lines, note)
    for _, word in lines:
        assert word in note, (command, word)
