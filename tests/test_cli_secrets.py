"""Secrets handed to a command as an argument (`zip -P X`, `ldapsearch -w X`,
`sqlplus scott/X@orcl`), piped in on stdin (`echo X | docker login
--password-stdin`), set by SQL (`ALTER USER … PASSWORD 'X'`) or put in the
environment by code are caught where they are said, and learned: the value
is in no text of the session, said there or bare later.

Generated: every form x random values (letters, digits and the punctuation a
password may hold, bare, single- or double-quoted where the shell allows) x
places (a Bash command, the prompt). Oracle: the value's bytes, which the
test chose, are nowhere in the note or the state (in process) and nowhere in
the vault, the state dir, `vv search` or `vv show` (end to end through the
hook). Ordinary uses of the same commands redact nothing.
"""

from __future__ import annotations

import re
import string
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import Env, examples, in_process

# What a value may hold, by how it is written in the command. Bare: what the
# shell passes through unquoted. In '…': anything but a quote. In "…": no `$`,
# backquote or backslash (the shell would read them). Inside SQL or Python
# quotes that sit in a shell's "…": neither quote.
_ALNUM = string.ascii_letters + string.digits
BARE = _ALNUM + "!%+-./:=@^_~"
SINGLE = BARE + "#$&*?|;()<>[]{}\" ,"
DOUBLE = BARE + "#&*?|;()<>[]{}' ,"
INNER = BARE + "#&*?|;()<>[]{} ,"

Quote = Callable[[str], str]


def _bare(v: str) -> str:
    return v


def _single(v: str) -> str:
    return f"'{v}'"


def _double(v: str) -> str:
    return f'"{v}"'


QUOTES: dict[str, tuple[Quote, str]] = {
    "bare": (_bare, BARE), "single": (_single, SINGLE), "double": (_double, DOUBLE)}

# Each form: the command, with {v} where the (quoted) value goes, and the
# quotings it is tried with (a value in SQL or Python quotes: "inner").
FORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ssh-keygen -N": ("ssh-keygen -t ed25519 -N {v} -f k", ("bare", "single", "double")),
    "zip -P": ("zip -P {v} s.zip a", ("bare", "single", "double")),
    "unzip -P": ("unzip -P {v} a.zip", ("bare", "single", "double")),
    "7z -p": ("7z a -p{v} a.7z d", ("bare", "single", "double")),
    "htpasswd -b": ("htpasswd -b -c .htpasswd admin {v}", ("bare", "single", "double")),
    "smbclient -U": ("smbclient //srv/share -U admin%{v}", ("bare", "single", "double")),
    "ldapsearch -w": ("ldapsearch -x -D cn=admin -w {v} -b dc=ex", ("bare", "single", "double")),
    "sqlcmd -P": ("sqlcmd -S db -U sa -P {v} -Q 'select 1'", ("bare", "single", "double")),
    "sqlplus": ("sqlplus scott/{v}@orcl", ("sqlplus", "double")),
    "gpg --passphrase": ("gpg --batch --passphrase {v} -d f.gpg", ("bare", "single", "double")),
    "openssl enc -k": ("openssl enc -aes-256-cbc -k {v} -in a -out b",
                       ("bare", "single", "double")),
    "httpie -a": ("http -a bob:{v} https://x", ("bare", "single", "double")),
    "rabbitmqctl": ("rabbitmqctl add_user admin {v}", ("bare", "single", "double")),
    "net user": ("net user admin {v} /add", ("bare", "single", "double")),
    "npm _authToken": ("npm config set //registry.npmjs.org/:_authToken {v}",
                       ("bare", "single", "double")),
    "ssm put-parameter": ("aws ssm put-parameter --name /a --type SecureString --value {v}",
                          ("bare", "single", "double")),
    "secretsmanager": ("aws secretsmanager create-secret --name x --secret-string {v}",
                       ("bare", "single", "double")),
    "docker --password-stdin": ("echo {v} | docker login -u bob --password-stdin",
                                ("bare", "single", "double")),
    "sudo -S": ("echo {v} | sudo -S apt update", ("bare", "single", "double")),
    "gh --with-token": ("echo {v} | gh auth login --with-token", ("bare", "single", "double")),
    "wrangler secret put": ("echo {v} | wrangler secret put API_KEY",
                            ("bare", "single", "double")),
    "vercel env add": ("echo {v} | vercel env add STRIPE_KEY production",
                       ("bare", "single", "double")),
    "gcloud --data-file=-": ("echo -n {v} | gcloud secrets create x --data-file=-",
                             ("bare", "single", "double")),
    "psql ALTER USER": ("psql -c \"ALTER USER app WITH PASSWORD '{v}'\"", ("inner",)),
    "mysql IDENTIFIED BY": ("mysql -e \"CREATE USER 'a'@'%' IDENTIFIED BY '{v}'\"", ("inner",)),
    "os.environ": ("python -c \"import os; os.environ['API_KEY']='{v}'\"", ("inner",)),
}
ALPHABETS = {"bare": BARE, "single": SINGLE, "double": DOUBLE, "inner": INNER,
             # sqlplus user/pass@db: a bare password holds no `@` or `/`
             "sqlplus": BARE.replace("@", "").replace("/", "")}
WRAP: dict[str, Quote] = {"bare": _bare, "single": _single, "double": _double,
                          "inner": _bare, "sqlplus": _bare}

# A word as a learned secret is found again (context._TOKEN): a value said
# bare elsewhere is checked when it is one.
_WORD = re.compile(r"[^\s'\"`,;()\[\]{}<>]{6,}\Z")


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str, str]:
    """(form, the command with the value in it, the value)."""
    form = draw(st.sampled_from(sorted(FORMS)))
    template, quotings = FORMS[form]
    quoting = draw(st.sampled_from(quotings))
    first = draw(st.sampled_from(_ALNUM))  # a flag-like value (-x…) is not tried
    # (not the gate's own mark: a value holding "[REDACTED" is hidden but never
    # learned, as the gate's output is not taught back to it; drawn as 'a[REDACTED0000')
    rest = draw(st.text(ALPHABETS[quoting], min_size=13, max_size=23)
                .filter(lambda r: "[REDACTED" not in first + r))
    v = first + rest
    return form, template.replace("{v}", WRAP[quoting](v)), v


PLACES = ("command", "prompt", "again")


def _entries(command: str, v: str, places: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "set up the box"}}]
    if "prompt" in places:
        out.append({"type": "user", "message": {"role": "user",
                                                "content": f"please run: {command}\nthanks"}})
    if "command" in places:
        out += [shell._assistant(10, {"type": "tool_use", "id": "c1", "name": "Bash",
                                      "input": {"command": command,
                                                "description": "Set the secret"}}),
                shell._result("c1", "ok", stdout="ok")]
    if "again" in places and _WORD.match(v):
        out.append(shell._assistant(20, {"type": "text", "text": f"Done: the value is {v} now."}))
    out.append(shell._assistant(99, {"type": "text", "text": "All set."}))
    return out


cases = st.tuples(planted(), st.lists(st.sampled_from(PLACES), min_size=1, max_size=3,
                                      unique=True).filter(lambda p: p != ["again"]))


@settings(max_examples=examples(40, 400), deadline=None)
@given(cases)
def test_a_secret_given_to_a_command_is_in_no_text(
        case: tuple[tuple[str, str, str], list[str]]) -> None:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    (form, command, v), places = case
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in shell._lines("s" * 8, _entries(command, v, places))])
    note = render(state)
    assert v not in note, (form, command, places)
    assert v.encode() not in msgspec.json.encode(state), (form, command, places)


@given(planted())
@settings(max_examples=200, deadline=None)
def test_the_gate_hides_the_value_and_hands_it_to_learning(case: tuple[str, str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    form, command, v = case
    found: list[str] = []
    out, n = DEFAULT.redact(command, found)
    assert n >= 1 and v not in out, (form, out)
    assert v in found, (form, found)


# Ordinary uses of the same commands: no secret in them, nothing redacted.
ORDINARY = (
    "zip -r a.zip dir", "zip -r -q out.zip src -x '*.pyc'", "unzip a.zip -d out", "unzip -l a.zip",
    "7z x a.7z -oout", "7z a a.7z dir", "ssh-keygen -t ed25519 -f k",
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519", "ssh-keygen -lf k.pub",
    "psql -c 'select 1'", "psql -h db -U app -c '\\du'", "gpg -d f.gpg",
    "gpg --batch --passphrase-fd 0 -d f.gpg", "gpg --passphrase-file p.txt -c f",
    "openssl req -new -key k.pem -out c.csr", "openssl enc -d -aes-256-cbc -in a -out b -pass env:P",
    "http GET https://x Accept:application/json", "http -v POST https://x name=a",
    "htpasswd -c .htpasswd admin", "smbclient -L //srv -N", "ldapsearch -x -b dc=ex '(uid=a)'",
    "ldapsearch -x -W -D cn=admin -b dc=ex", "sqlcmd -S db -E -Q 'select 1'",
    "sqlplus / as sysdba", "sqlplus scott@orcl", "rabbitmqctl list_users", "net user admin",
    "net user admin /add", "npm config set registry https://registry.npmjs.org/",
    "npm config get //registry.npmjs.org/:_authToken",
    "aws ssm get-parameter --name /a --with-decryption",
    "aws secretsmanager get-secret-value --secret-id x", "docker login -u me --password-stdin",
    "echo hello | sudo tee /etc/x", "echo hi | grep -c x", "echo $TOKEN | gh auth login --with-token",
    "cat token.txt | docker login -u bob --password-stdin", "sudo -S apt update",
    "wrangler secret put API_KEY", "vercel env add STRIPE_KEY production",
    "gcloud secrets create x --data-file=secret.txt", "mysql -e 'select user from mysql.user'",
    "psql -c \"ALTER USER app WITH LOGIN\"", "os.environ['PATH'] = '/usr/bin'",
    "python -c \"import os; print(os.environ['API_KEY'])\"",
)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(ORDINARY), st.sampled_from(["", "cd /srv && ", "time "]),
       st.sampled_from(["", " && echo done", " | tee log.txt"]))
def test_ordinary_uses_of_these_commands_redact_nothing(command: str, before: str,
                                                        after: str) -> None:
    from vibe_vault.redact import DEFAULT

    text = before + command + after
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), text
    assert not found


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(planted())
def test_end_to_end_the_value_is_in_no_file_search_or_show(case: tuple[str, str, str]) -> None:
    form, command, v = case
    here = in_process("cli_secrets end to end")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000127"
        env.stop(sid, env.transcript(sid, shell._lines(sid, _entries(command, v, list(PLACES)))),
                 here=here)
        assert env.notes()
        leaks = env.traces(v, sid, here=here)
        assert not leaks, (form, command, leaks)
