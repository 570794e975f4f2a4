"""Secret forms a black-box attacker found passing the gate, by family: each
form's value is in no text of the session, in any place it is said, and the
ordinary texts that look like them redact nothing.

Generated: for each family, its forms (`FAMILIES`) x values drawn from the
form's own alphabet and length (a password's printable characters, a token's
base32 or hex, as the form's quoting allows) x spellings (case, spacing,
quoting) x surroundings (ordinary lines before and after) x places (the
prompt, an answer, a Bash command, a tool's output, a file written, an error,
the title). Oracle: the value's bytes, which the test chose, are nowhere in
the note or the state (in process, many cases) and nowhere under the vault,
the state dir, `vv search` or `vv show` (`Env.traces`, end to end through
`vv hook`). Look-alikes (`LOOK_ALIKES`: prose about passwords, placeholders,
variables, paths) are generated the same way and must redact nothing.
"""

from __future__ import annotations

import re
import string
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import Env, examples, in_process

_ALNUM = string.ascii_letters + string.digits
# What a value may hold, by how it is written: bare (no space, quote, `$`,
# backslash or shell punctuation), in '…' (no `'`), in "…" (no `"`, `$`,
# backslash or backquote).
BARE = _ALNUM + "!%+-.:=@^_~#*?,/"
SINGLE = BARE + "&|;()<>[]{}\" "
DOUBLE = BARE + "&|;()<>[]{}' "

Values = st.SearchStrategy[str]
# Some words of BIP39's English list (a seed phrase is 12 to 24 of its 2048).
BIP39_SOME = ("abandon", "ability", "absurd", "access", "actor", "adapt", "agent", "alarm",
              "album", "anchor", "apple", "arena", "armor", "asset", "autumn", "avocado",
              "bacon", "banana", "barrel", "basket", "beach", "bicycle", "blanket", "bronze",
              "cabin", "cactus", "canyon", "carbon", "castle", "cherry", "cliff", "coconut",
              "dragon", "eagle", "elbow", "engine", "fossil", "galaxy", "giraffe", "harbor",
              "island", "jungle", "kitten", "lemon", "magnet", "meadow", "noodle", "orbit",
              "oyster", "pencil", "planet", "quantum", "rabbit", "saddle", "tomato", "umbrella",
              "velvet", "walnut", "wisdom", "yellow", "zebra", "zoo")


def _bip39() -> list[str]:
    """BIP-39's English list, as the package keeps it (checked against the
    list's published SHA-256 in test_seed_list_is_bip39s)."""
    return (Path(__file__).resolve().parent.parent / "src" / "vibe_vault" / "data"
            / "bip39-english.txt").read_text().split()


BIP39 = _bip39()


def mnemonic(entropy: bytes) -> str:
    """BIP-39's encoding of `entropy` (16-32 bytes): its bits and the first
    len/32 bits of its SHA-256, read as 11-bit numbers into the list."""
    import hashlib

    bits = len(entropy) * 8
    check = bits // 32
    value = int.from_bytes(entropy, "big") << check | hashlib.sha256(entropy).digest()[0] >> (
        8 - check)
    size = (bits + check) // 11
    return " ".join(BIP39[value >> (11 * (size - 1 - i)) & 2047] for i in range(size))


def seed_written(words: list[str], how: str) -> str:
    """The words as written from the first word on (`numbered_from` puts the
    first number before them)."""
    if how == "lines":
        return "\n".join(words)
    if how == "numbered":
        return "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words))[3:]
    if how == "grid":
        return "\n".join("  ".join(f"{i + j + 1}) {w}" for j, w in enumerate(words[i:i + 4]))
                         for i in range(0, len(words), 4))[3:]
    return " ".join(words)


def numbered_from(v: str) -> str:
    return ("1. " if "\n2. " in v else "1) " if " 2) " in v else "") + v


# A seed phrase as a wallet makes it (entropy of 128-256 bits), or any 12 to
# 24 of the list's words, written on a line, one a line, numbered or in a grid.
seeds = st.one_of(
    st.sampled_from([16, 20, 24, 28, 32]).flatmap(lambda n: st.binary(min_size=n, max_size=n))
    .map(mnemonic).map(str.split),
    st.integers(12, 24).flatmap(lambda n: st.lists(st.sampled_from(BIP39), min_size=n,
                                                   max_size=n))).flatmap(
    lambda words: st.sampled_from(["line", "lines", "numbered", "grid"]).map(
        lambda how: seed_written(words, how)))


# Passwords people choose that are words (from published lists of the
# commonest passwords), and other words of the kind.
COMMON_PASSWORDS = (
    "sunshine", "dragon", "monkey", "football", "baseball", "letmein", "shadow", "master",
    "superman", "batman", "princess", "flower", "hunter", "ranger", "buster", "tigger",
    "soccer", "hockey", "summer", "winter", "cookie", "banana", "pepper", "ginger", "orange",
    "diamond", "thunder", "silver", "jordan", "charlie", "freedom", "starwars", "pokemon",
    "computer", "soleil", "gato", "hallo", "passwort", "bonjour", "mariposa",
    "tesoro", "chocolate", "iloveyou", "qwerty", "trustno", "welkom", "sommar")


# The README leaves a variable's name in capitals alone (`YOUR_API_KEY`): parts that
# are words, a version's digit or two after one. A drawn password of that shape would
# be such a name, so none is drawn; anything else in capitals and `_` is a password
# (`AA_0000000`, drawn by this test on a fresh clone, was once left as a "name").
_NAME_IN_CAPITALS = re.compile(r"[A-Z]+\d{0,2}(?:_[A-Z]+\d{0,2})+")


def password(alphabet: str, low: int = 10, high: int = 24) -> Values:
    """A password: a letter or digit, then any of `alphabet`, with a digit and a letter."""
    return st.builds(lambda a, b: a + b, st.sampled_from(_ALNUM),
                     st.text(alphabet, min_size=low - 1, max_size=high - 1)).filter(
        lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
        and v.strip() == v and "  " not in v and not _NAME_IN_CAPITALS.fullmatch(v))


def said(alphabet: str) -> Values:
    """A password said bare in a sentence: its last character is no stop,
    comma or colon (a sentence's own, read as one)."""
    return password(alphabet).filter(lambda v: v[-1].isalnum())


def token(prefix: str, alphabet: str, size: int, suffix: str = "") -> Values:
    """A token of a fixed shape: prefix, `size` characters of `alphabet`, suffix."""
    def random_enough(body: str) -> bool:  # a digit and a letter, where the alphabet has them
        return all(any(test(c) for c in body) or not any(test(c) for c in alphabet)
                   for test in (str.isdigit, str.isalpha))

    return st.text(alphabet, min_size=size, max_size=size).filter(random_enough).map(
        lambda body: prefix + body + suffix)


def _crypt(size: int) -> Values:
    return st.text("./" + _ALNUM, min_size=size, max_size=size)


def _b64(size: int) -> Values:
    return st.text(_ALNUM + "+/", min_size=size, max_size=size)


class Form:
    """Spellings of one form (`{v}` where the value goes) and its values.
    `title`: the text as a title would hold it (one line); by default the
    form's own line, or the whole run into one line when it spans lines."""

    def __init__(self, spellings: tuple[str, ...], values: Values, one_line: bool = True,
                 quote: Callable[[str], str] = lambda v: v,
                 title: Callable[[str], str] | None = None) -> None:
        self.spellings, self.values, self.one_line = spellings, values, one_line
        self.quote, self.title = quote, title


class Disguised(str):
    """A value as written with characters that disguise it; `pieces`: its
    runs of letters and digits, each of which must be gone too (a marker that
    stopped at the disguise would leave the rest)."""

    pieces: list[str]


def disguised(values: Values) -> Values:
    def make(v: str) -> str:
        out = Disguised(v)
        out.pieces = [v, *re.findall(r"[A-Za-z0-9]{8,}", v)]
        return out
    return values.map(make)


def pieces(v: str) -> list[str]:
    return v.pieces if isinstance(v, Disguised) else [v]


# Characters that show nothing: zero-width space, soft hyphen, word joiner,
# zero-width non-joiner and joiner, BOM.
INVISIBLE = "\u200b\u00ad\u2060\u200c\u200d\ufeff"


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _cyrillic(text: str) -> str:
    return text.replace("a", "\u0430", 1).replace("o", "\u043e", 1).replace("e", "\u0435", 1)


def _sq(v: str) -> str:
    return f"'{v}'"


def _dq(v: str) -> str:
    return f'"{v}"'


def quoted(spellings: tuple[str, ...], low: int = 10) -> list[Form]:
    """The spellings with the value bare, in '…' and in "…"."""
    return [Form(spellings, password(BARE.replace(",", ""), low)),
            Form(spellings, password(SINGLE, low), quote=_sq),
            Form(spellings, password(DOUBLE, low), quote=_dq)]


FAMILIES: dict[str, list[Form]] = {
    "config": [
        *[Form(sp, password(alpha), quote=q) for alpha, q in ((SINGLE, _sq), (DOUBLE, _dq))
          for sp in (("define('DB_PASSWORD', {v});", "define( \"AUTH_KEY\" , {v} );",
                      "<?php\ndefine('SECURE_AUTH_SALT', {v});\n"),)],
        *quoted(("ENV DB_PASSWORD {v}", "ENV POSTGRES_PASSWORD  {v}\n", "env api_token {v}",
                 "FROM node:20\nARG NPM_TOKEN {v}\nRUN npm ci\n")),
        *[Form(("variable \"db_password\" {{\n  type    = string\n  default = {v}\n}}",
                "variable \"api_key\" {{ default = {v} }}",
                "variable \"admin_secret\" {{\n  sensitive = true\n  default   = {v}\n}}"),
               password(DOUBLE), one_line=False, quote=_dq)],
        *[Form(("$pw = ConvertTo-SecureString {v} -AsPlainText -Force",
                "convertto-securestring -String {v} -AsPlainText -Force",
                "ConvertTo-SecureString -AsPlainText -Force {v}",
                "{v} | ConvertTo-SecureString -AsPlainText -Force"),
               password(alpha), quote=q) for alpha, q in ((SINGLE, _sq), (DOUBLE, _dq))],
        *[Form(("[Environment]::SetEnvironmentVariable({n}, {v}, 'User')",),
               password(alpha), quote=q) for alpha, q in ((SINGLE, _sq), (DOUBLE, _dq))],
        *quoted(("setx API_KEY {v}", "SETX DB_PASSWORD {v} /m", "setx GITHUB_TOKEN {v}")),
        *quoted(("set -x API_KEY {v}", "set -gx GITHUB_TOKEN {v}", "set -Ux DB_PASSWORD {v}",
                 "set --export STRIPE_SECRET {v}")),
    ],
    "protocol": [
        Form(("USER deploy\r\nPASS {v}\r\n230 Logged in", "ftp> PASS {v}", "PASS {v}",
              "+OK POP3 ready\nUSER me\n+OK\nPASS {v}\n+OK", "  PASS {v}  "),
             password(BARE.replace("/", "").replace(".", ""))),
        Form(("a001 LOGIN bob {v}\na001 OK", "A1 LOGIN \"me@example.com\" {v}"),
             password(BARE.replace("/", ""))),
        Form(("A1 LOGIN \"me\" {v}",), password(SINGLE.replace("\"", "")), quote=_dq),
        Form(("127.0.0.1:6379> AUTH {v}\nOK", "AUTH {v}", "AUTH default {v}",
              "redis> AUTH app-user {v}"), password(BARE)),
        Form(("EHLO me\n250 AUTH PLAIN LOGIN\nAUTH PLAIN {v}\n235 ok", "AUTH XOAUTH2 {v}"),
             token("AG", string.ascii_letters + string.digits + "+/", 22, "==")),
        # An exchange over lines: a title holds it as one line, `AUTH PLAIN <it>`.
        Form(("C: AUTH PLAIN\nS: 334\nC: {v}",
              "AUTH LOGIN\n334 VXNlcm5hbWU6\nZGVwbG95\n334 UGFzc3dvcmQ6\n{v}\n235 ok"),
             token("AG", string.ascii_letters + string.digits + "+/", 22, "=="), one_line=False,
             title=lambda text: "AUTH PLAIN " + text.split("\n")[-1 if "C: " in text else -2]
             .removeprefix("C: ")),
        Form(('Authorization: Digest username="bob", realm="api", nonce="0a4f113b", '
              'uri="/x", response={v}, qop=auth',
              'proxy-authorization: digest username="u", response={v}',
              '> Authorization: Digest username="me", response={v}, algorithm=MD5'),
             token("", "0123456789abcdef", 32), quote=_dq),
        Form(("Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/"
              "us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature={v}",
              "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
              "&X-Amz-Signature={v}&X-Amz-Date=20260101T000000Z"),
             token("", "0123456789abcdef", 64)),
        Form(("Proxy-Authorization: Basic {v}",), token("", string.ascii_letters + "+/", 30, "=")),
        Form(("curl --proxy-user bob:{v} -x http://proxy:3128 https://x",
              "curl -U bob:{v} https://x"), password(BARE.replace(",", ""))),
    ],
    "shapes": [
        Form(("SLACK_COOKIE={v}", "curl -b 'd={v}' https://app.slack.com", "cookie d: {v}"),
             token("xoxd-", _ALNUM + "%", 60)),
        Form(('"refresh_token": "{v}"', "REFRESH={v}", "gcloud gave {v} as the refresh token"),
             token("1//0" + "g", _ALNUM + "_-", 95)),
        Form(("AZURE_DEVOPS_EXT_PAT={v}", "git clone https://me:{v}@dev.azure.com/org/p/_git/r",
              "az devops login, PAT {v}", "ado pat: {v}", "VSTS token {v} expires soon"),
             token("", "abcdefghijklmnopqrstuvwxyz234567", 52)),
        Form(("my wallet's xprv: {v}", "m/44'/0'/0' {v}", "BIP32 root key {v}"),
             token("xprv9s21ZrQH143K", "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
                   95)),
        Form(("eth private key: {v}", "PRIVATE_KEY=0x{v}", "the wallet key is {v} (keep it)",
              "privkey = {v}", "Private Key: 0x{v}"), token("", "0123456789abcdef", 64)),
        Form(('{{"kty":"RSA","n":"x1","e":"AQAB","d":"{v}","p":"{v}2"}}',
              '{{"kty": "oct", "k": "{v}", "alg": "HS256"}}',
              '{{\n  "kty": "EC",\n  "crv": "P-256",\n  "dq": "{v}"\n}}',
              "{{'kty': 'RSA', 'qi': '{v}'}}"),
             token("", _ALNUM + "_-", 43), one_line=False),
        Form(("-----BEGIN OpenVPN Static key V1-----\n{v}\n0011223344556677\n"
              "-----END OpenVPN Static key V1-----",
              "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{v}\n"
              "-----END OpenVPN Static key V1-----\n</tls-auth>"),
             token("", "0123456789abcdef", 32), one_line=False),
        Form(("[Interface]\nPrivateKey = {v}\nAddress = 10.0.0.2/32",
              "[Peer]\nPresharedKey={v}", "privatekey = {v}"),
             token("", string.ascii_letters + string.digits + "+/", 43, "=")),
        Form(('network={{\n  ssid="home"\n  psk={v}\n}}', "psk={v}"),
             password(DOUBLE.replace(" ", ""), 8, 30), quote=_dq),
        Form(("psk={v}", "wpa_psk={v}"), password(BARE.replace("$", ""), 8, 30)),
        Form(("psk={v}", "nmcli con modify home wifi-sec.psk {v}"),
             token("", "0123456789abcdef", 64)),
        Form(("admin:{v}", "root:{v}:19000:0:99999:7:::", "hash = '{v}'", "stored {v} for bob"),
             st.one_of(
                 st.builds(lambda a, b: f"$apr1${a}${b}", _crypt(8), _crypt(22)),
                 st.builds(lambda a, b: f"$6$rounds=5000${a}${b}", _crypt(16), _crypt(86)),
                 st.builds(lambda a, b: f"$6${a}${b}", _crypt(16), _crypt(86)),
                 st.builds(lambda a: f"$2b$12${a}", _crypt(53)),
                 st.builds(lambda a, b: f"$argon2id$v=19$m=65536,t=3,p=4${a}${b}",
                           _b64(22), _b64(43)),
                 st.builds(lambda a, b: f"pbkdf2_sha256$600000${a}${b}=", _b64(22),
                           _b64(43)))),
        Form(("seed phrase: {v}", 'MNEMONIC="{v}"', "my recovery phrase is {v}.",
              "Secret Recovery Phrase: {v}\n", "mnemonic = '{v}'"),
             st.integers(0, 4).flatmap(lambda n: st.lists(
                 st.sampled_from(BIP39_SOME), min_size=12 + 3 * n, max_size=12 + 3 * n)).map(
                 " ".join)),
    ],
    "prose": [
        Form(("my password is {v}", "the password is: {v}", "The password for bob was {v}.",
              "pw is {v}, thanks", "Your new password is {v} - change it soon",
              "PASSWORD IS {v}", 'git commit -m "the password is {v}"',
              "echo 'pw is {v}!' > note.txt"), said(BARE.replace("$", ""))),
        Form(("the password is {v}", "my passphrase was {v}"), password(DOUBLE), quote=_dq),
        Form(("the password is {v}", "password is {v}!"), password(SINGLE), quote=_sq),
        Form(("Passwort: {v}", "Kennwort = {v}", "mot de passe : {v}", "contraseña: {v}",
              "パスワード: {v}", "密码：{v}", "пароль: {v}", "Das Passwort ist {v}.",
              "La contraseña es {v}", "パスワードは {v} です", "senha: {v}",
              'git commit -m "密码：{v}"', "echo 'le mot de passe est «{v}»'"),
             said(BARE.replace("$", ""))),
        Form(("password = {v}", "DB_PASSWORD = {v}", "passphrase: {v}", "db_pass = {v}"),
             st.text(string.ascii_lowercase, min_size=20, max_size=30)),
        # A word said to be the password, at the end of its clause, in the
        # languages of PROSE_WORDS: `the password is sunshine`, `Passwort: geheim`.
        Form(("the password is {v}", "my password is {v}.", "The password was {v}",
              "my password: {v}", "password: {v}\n", "Your new password is {v}, change it soon",
              "Das Passwort ist {v}.", "Passwort: {v}", "Kennwort = {v}", "mot de passe : {v}",
              "le mot de passe est {v}", "contraseña: {v}", "La contraseña es {v}.",
              "la password è {v}", "het wachtwoord is {v}", "senha: {v}", "pw is {v}!",
              "the passphrase is {v}"), st.sampled_from(COMMON_PASSWORDS).flatmap(
                  lambda w: st.sampled_from([w, w.capitalize(), w.upper()]))),
        # A word calling a password secret is one after `:` (`Passwort: geheim`);
        # after "is" it says what the password is (`Das Passwort ist geheim`).
        Form(("Passwort: {v}", "Kennwort = {v}", "mot de passe : {v}", "my password: {v}"),
             st.sampled_from(["geheim", "Geheim"])),
        Form(("the PIN is {v}", "my pin: {v}", "PIN: {v}\n", "mein PIN-Code ist {v}.",
              "le code PIN est {v}", "PIN = {v}"),
             st.text(string.digits, min_size=4, max_size=8).filter(lambda v: len(set(v)) >= 3)),
    ],
    "unicode": [
        # A token's letters in full width (all or its prefix), or with a
        # character that shows nothing inside it.
        Form(("GH_TOKEN={v}", "use {v} to push", "{v}"), disguised(st.builds(
            lambda body, whole: _fullwidth("ghp_" + body) if whole else _fullwidth("ghp_") + body,
            st.text(_ALNUM, min_size=36, max_size=36), st.booleans()))),
        Form(("GH_TOKEN={v}", "use {v} to push", "export OPENAI_API_KEY={v}"), disguised(st.builds(
            lambda prefix, body, at, ch: prefix + body[:at] + ch + body[at:],
            st.sampled_from(["ghp_", "sk-proj-", "glpat-", "xoxb-1234567890-"]),
            st.text(_ALNUM, min_size=36, max_size=40), st.integers(1, 35),
            st.sampled_from(INVISIBLE)))),
        # A name that means a secret, with Cyrillic look-alike letters in it.
        Form(tuple(_cyrillic(sp) for sp in ("password={v}", "DB_PASSWORD: {v}",
                                            "secret_key = {v}", "api_token={v}")),
             password(BARE.replace(",", ""))),
        # %-escaped: the token's `_`, or the `=` after the name.
        Form(("https://x/?t={v}", "token {v}"), disguised(st.builds(
            lambda body: "ghp%5F" + body, st.text(_ALNUM, min_size=36, max_size=36)))),
        Form(("https://x/login?password%3D{v}", "q=db_password%3d{v}&x=1"),
             password(_ALNUM + "-_.~")),
    ],
    # Glued after letters or digits: a token whose prefix is its own, a URL's
    # scheme; a URL with one slash (a folder that holds one: paths normalise `//`).
    "glued": [
        Form(("abc{v}", "key{v}", "TOKEN{v} used", "export X=key{v}", "9{v}", "use x{v}"),
             st.one_of(token("ghp_", _ALNUM, 36), token("sk-ant-api03-", _ALNUM + "_-", 93, "AA"),
                       token("glpat-", _ALNUM + "_-", 20), token("sk-proj-", _ALNUM + "_-", 48),
                       token("xoxb-1234567890-", _ALNUM, 24), token("npm_", _ALNUM, 36),
                       token("github_pat_", _ALNUM + "_", 82))),
        Form(("cd /home/u/https:/{u}@git.example.com/repo", "/srv/x/postgres:/{u}@db:5432/app",
              "xhttps://{u}@host/x", "1https://{u}@host", "see redis:/{u}@cache:6379/0",
              "git clone abcssh://{u}@host/r.git"),
             password(_ALNUM + "-_.~!")),
    ],
    # A seed phrase with no label: its words alone say what it is.
    "seed": [
        Form(("{v}", "here:\n{v}\n", "write these down: {v}.", "got it: {v}", "\"{v}\"",
              "my words are {v}. keep them", "words:\n\n{v}\n\nthat is all"),
             seeds, one_line=False, quote=numbered_from,
             title=lambda text: " ".join(text.split())),
    ],
    "private": [
        Form(('<private reason="{r}">{v}</private>', "<private class='x'>{v}</private>",
              "<PRIVATE reason=door>{v}</PRIVATE>", '<private\n  reason="x">{v}</private >',
              "note this <private id=1>{v}</private> then go on"),
             st.lists(st.text(_ALNUM + "-", min_size=8, max_size=14), min_size=1,
                      max_size=4).map(" ".join).filter(
                 lambda v: any(c.isalpha() for c in v) and any(c.isdigit() for c in v)),
             one_line=False),
    ],
    "continued": [
        Form(("mysql -u root --password \\\n  {v} shop",
              "docker login -u me \\\n  -p {v} registry.example.com",
              "sshpass -p \\\n    {v} ssh deploy@host",
              "curl -u \\\n  bob:{v} https://x", "psql \\\n --password={v} -h db"),
             said(BARE.replace(",", "").replace(":", "")), one_line=False,
             title=lambda text: " ".join(text.replace("\\\n", " ").split())),
        *[Form(("sshpass -p {v} ssh host", "curl -u {u} https://x",
                "aws configure set aws_secret_access_key {v}", "net use Z: \\\\srv\\s {v} /user:me",
                "net use \\\\srv\\s {v} /user:dom\\me"),
               password(alpha).filter(lambda v: " " in v), quote=q)
          for alpha, q in ((DOUBLE.replace("/", ""), _dq), (SINGLE.replace("/", ""), _sq))],
    ],
}

# Ordinary texts of each family's kind: no secret, nothing to redact. `{n}`
# stands for a name that means a secret.
LOOK_ALIKES: dict[str, tuple[str, ...]] = {
    "config": (
        "define('DB_PASSWORD', getenv('DB_PASSWORD'));", "define('DB_PASSWORD', '');",
        "define('AUTH_KEY', 'put your unique phrase here');",
        "define('DB_PASSWORD', $_ENV['DB_PASSWORD']);",
        "ENV DB_PASSWORD_FILE /run/secrets/db_password", "ENV API_KEY ${API_KEY}",
        "ENV API_KEY=$API_KEY", "ARG NPM_TOKEN", "ENV NODE_ENV production",
        "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}",
        "variable \"api_key\" { default = \"\" }", "variable \"region\" { default = \"eu-west-2\" }",
        "ConvertTo-SecureString $plain -AsPlainText -Force",
        "ConvertTo-SecureString -String $env:DB_PASSWORD -AsPlainText -Force",
        "Read-Host -AsSecureString | ConvertFrom-SecureString",
        "[Environment]::SetEnvironmentVariable('API_KEY', $key, 'User')",
        "setx PATH \"%PATH%;C:\\tools\"", "setx API_KEY %API_KEY%",
        "set -x PATH $PATH ~/bin", "set -gx API_KEY $API_KEY", "set -x EDITOR vim",
        "set -gx GITHUB_TOKEN (gh auth token)", "set -x DB_PASSWORD changeme",
        "setx DB_PASSWORD \"your-password-here\"", "ENV DB_PASSWORD <password>",
    ),
    "protocol": (
        " PASS  src/components/App.test.tsx (2.1 s)", "PASS src/a.test.js",
        "PASS\nok  \tgithub.com/me/pkg\t0.012s", "--- PASS: TestLogin (0.00s)",
        "all tests PASS today", "PASS: test-suite.sh", "USER bob\nPASS <password>",
        "250-AUTH PLAIN LOGIN CRAM-MD5", "## AUTH SETUP", "AUTH failures are logged here",
        "AUTH LOGIN", "AUTH PLAIN", "LOGIN with your account", "see docker login --help",
        "LOGIN FAILED", "Digest authentication sends a response hash, not the password",
        'WWW-Authenticate: Digest realm="api", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c0"',
        "SignedHeaders=host;x-amz-date, Signature=<signature>",
        "Proxy-Authorization: Basic realm", "curl -U bob https://x", "curl --proxy-user $PROXY",
    ),
    "prose": (
        "the password is stored in the vault", "the password is correct.",
        "Password is required", "the password was changed yesterday",
        "the password is 'changeme'", "the password is at least 12 characters",
        "password: required", "password = user_password", "password = hashed",
        "self.password = password", "password: str", "password: Optional[str] = None",
        "Passwort: erforderlich", "Le mot de passe est obligatoire.", "пароль: обязательно",
        "the pwd is /home/me", "the password is in ~/.pgpass", "the password is well-known",
        "your password is your-password-here", "the password is <password>",
        "the password is ${DB_PASSWORD}", "the password is set via PGPASSWORD",
        "password = generatepassword", "my password is too short",
        "The password is the same as before.", "password is not set", "the pw is fine",
        "the password for the admin account is in 1Password", "pw: str",
        "the password is hashed with bcrypt (cost 12)", "password = getpass()",
        "the password is weird sometimes", "the password is now set", "Das Passwort ist geheim.",
        "Das Passwort ist falsch", "le mot de passe est incorrect", "la contraseña es incorrecta",
        "la contraseña es obligatoria", "Password: Enter your password below",
        "password: must be 8 characters", "the PIN is required", "pin 13 is the LED",
        "PIN: required", "la password è sbagliata", "het wachtwoord is onjuist",
        "the password is expired.", "my password is forgotten", "the password is different",
        "password: hashed", "the password is case-sensitive", "password: Optional",
        "mot de passe : requis", "Kennwort: ungültig", "contraseña: vacía",
        "Passwort: gespeichert", "the password is generated, then stored",
        # (a name alone after "password:" on its line is now a value: 9bdf0f0;
        # in an object or followed by a comma it is code)
        "{ password: user_password }", "password: user_password,",
        "the password is visible", "password is invalid.",
        "the password is incorrect, try again", "Your password is expiring",
        "password: none", "PIN code: 4 digits", "the pin is 3.3V", "set the PIN to high",
        "passwords: required", "Passwörter: erforderlich",
    ),
    "unicode": (
        "Пароль нужно хранить в хранилище, а не в коде.", "密码已更新，请重新登录。",
        "Ο κωδικός πρόσβασης αποθηκεύεται με ασφάλεια.", "ＦＵＬＬ ＷＩＤＴＨ ｔｅｘｔ ｈｅｒｅ",
        "https://example.com/search?q=caf%C3%A9&page=2&sort=asc", "100%25 done, 0%20left",
        "printf '%s %d\\n' \"$user\" 42", "%2Fhome%2Fuser%2Fproject", "a%3Db%26c%3Dd",
        "commit 4f2c1a9e\u200b8b7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b", "zero\u200bwidth in prose",
        "soft\u00adhyphen\u00adated words", "the token%20count is 4096",
        "key%3Dvalue&password%3D", "password%3D%24%7BPASSWORD%7D",
    ),
    "continued": (
        "make \\\n  build", "docker run \\\n  -p 8080:80 nginx", "ssh -p 2222 \\\n  host",
        "mysql -u root -p \\\n  shop", "curl -u \\\n  bob https://x",
        "psql \\\n  --password \\\n  -h db", "./configure \\\n  --prefix=/usr",
        "sshpass -p \"$SSHPASS\" ssh host", "curl -u \"$USER:$PASS\" https://x",
        "net use Z: \\\\srv\\share /user:me", "net use Z: /delete",
        "aws configure set region \"eu west\"",
    ),
    "glued": (
        "the_api-key-rotation-schedule-document", "monkey-patching-the-module-loader-again",
        "latest_release_candidate_build_number_x", "see /srv/https:/example.com/users",
        "C:/x/ssh:/git@host/repo", "compat.somethinglongerthan16chars",
        "taskghp_ is not a token", "mytoolsk-ant- is cut", "/home/u/https:/example.com/a:b/c",
        "cd ~/src/https:/github.com/o/r", "mailto:bob@example.com", "user@host:/srv/app",
        "scp me@host:/x/y .", "git@github.com:o/r.git", "pkg:/npm/x@1.2.3",
    ),
    "seed": (
        "you can also use this tool to find the best way to build your own local model",
        "abandon the plan, then move the whole project into a new folder and start over",
        "the quick brown fox jumps over the lazy dog and then runs away into the forest",
        '["apple", "banana", "cherry", "lemon", "mango", "orange", "grape", "melon", '
        '"olive", "peanut", "potato", "tomato", "onion"]',
        "fruits = apple, banana, cherry, lemon, mango, orange, grape, melon, olive, peanut,"
        " potato, tomato",
        "\n".join(BIP39),  # the list itself is no seed
        " ".join(BIP39[:200]),
        "please review the pull request and check that every test passes before merge",
    ),
    "shapes": (
        "xoxd- is the prefix of Slack's d cookie", "see 1//0 in the docs",
        "https://dev.azure.com/org/project/_apis/build/builds?api-version=7.1",
        "onion address abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx.onion",
        "xprv is the prefix of an extended private key; xpub of a public one",
        "private key fingerprint SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU",
        "the private key is in ~/.ssh/id_ed25519", "commit 4f2c1a9e8b7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
        '{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7",'
        '"e":"AQAB","alg":"RS256","kid":"2011-04-29"}',
        "-----BEGIN PUBLIC KEY-----", "tls-auth ta.key 1", "PublicKey = the peer's public key",
        "key_mgmt=WPA-PSK", "psk=${WIFI_PSK}", 'psk="<your-passphrase>"',
        "echo $1$2 and awk '{print $1$3}'", "price: $5$ or $6$?",
        "the seed phrase is the only way to restore the wallet if you lose the device",
        "seed the database with some fake users then run the tests again before merging",
        "mnemonic: a pattern of letters that helps you remember something",
    ),
}

PLACES = ("prompt", "answer", "command", "output", "file", "error", "title")


def test_a_random_lower_case_password_after_its_name_is_caught() -> None:
    """`password = <12-19 random lower-case letters>` passed a quarter of
    the time (read as a word by its vowels). Oracle: runs drawn uniformly
    (a fixed seed, so the test says the same every run), each caught."""
    import random

    from vibe_vault.redact import DEFAULT

    rng = random.Random(27)
    missed = []
    for _ in range(3000):
        v = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(12, 19)))
        for form in ("password = {v}", "DB_PASSWORD = {v}", "passphrase: {v}", "db_pass = {v}"):
            text = form.format(v=v)
            if v in DEFAULT.redact(text)[0]:
                missed.append(text)
    assert not missed, missed[:10]


def test_seed_list_is_bip39s() -> None:
    """The package's list is BIP-39's English list, byte for byte as published
    (bitcoin/bips bip-0039/english.txt, whose SHA-256 this is)."""
    import hashlib

    data = (Path(__file__).resolve().parent.parent / "src" / "vibe_vault" / "data"
            / "bip39-english.txt").read_bytes()
    assert hashlib.sha256(data).hexdigest() == (
        "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
    assert len(BIP39) == 2048


def test_bip39_test_vector_is_a_seed() -> None:
    """BIP-39's own test vector (entropy 00...00) and the encoder agree."""
    assert mnemonic(bytes(16)) == "abandon " * 11 + "about"
    assert mnemonic(b"\x7f" * 16).split()[-1] == "yellow"


@st.composite
def planted(draw: st.DrawFn, family: str) -> tuple[str, str]:
    """(a text holding the value, the value), spelled and surrounded at random."""
    form = draw(st.sampled_from(FAMILIES[family]))
    spelling = draw(st.sampled_from(form.spellings))
    v = draw(form.values)
    name = draw(st.sampled_from(["'API_KEY'", '"DB_PASSWORD"', "'GITHUB_TOKEN'"]))
    text = spelling.replace("{n}", name).replace("{{", "{").replace("}}", "}")
    text = text.replace("{r}", draw(st.sampled_from(["x", "door code", "my pin"])))
    text = text.replace("{u}", form.quote("bob:" + v)).replace("{v}", form.quote(v))
    before = draw(st.sampled_from(["", "run this:\n", "# settings\n", "Here it is:\n\n"]))
    after = draw(st.sampled_from(["", "\n", "\nthen restart the app", "\n# end\n"]))
    planted = Planted(before + text + after)
    planted.title = (form.title(text) if form.title else " ".join(text.split())
                     if not form.one_line else
                     next(line.strip() for line in text.splitlines() if v in line))
    return planted, v


class Planted(str):
    """A text holding a value, and the text as a title (one line): the form's
    own line, or the whole run into one line when the form spans lines."""

    title: str


def _entries(text: str, places: list[str], v: str) -> list[dict[str, Any]]:
    one_line = text.title if isinstance(text, Planted) else " ".join(text.split())
    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "set up the box"}}]
    for n, place in enumerate(places):
        tid = f"t{n}"
        if place == "prompt":
            out.append({"type": "user", "message": {"role": "user", "content": text}})
        elif place == "answer":
            out.append(shell._assistant(n, {"type": "text", "text": text}))
        elif place == "title":
            out.append({"type": "ai-title", "aiTitle": one_line})
        elif place == "command":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": text, "description": "Run it"}}),
                    shell._result(tid, "ok", stdout="ok")]
        elif place == "output":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": "cat settings"}}),
                    shell._result(tid, text, stdout=text)]
        elif place == "file":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Write",
                                         "input": {"file_path": "/srv/app/settings",
                                                   "content": text}}),
                    shell._result(tid, "File created successfully")]
        else:
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": "./deploy"}}),
                    shell._result(tid, "Exit code 1\n" + text, error=True)]
    out.append(shell._assistant(99, {"type": "text", "text": "All set."}))
    return out


places = st.lists(st.sampled_from(PLACES), min_size=1, max_size=4, unique=True)


def _fold(text: str, where: list[str], v: str) -> tuple[str, bytes]:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in shell._lines("s" * 8, _entries(text, where, v))])
    # (the state's digests of what was learned are hex: a hex value's run of
    # 6 is in one of them by chance, the control's are other digests)
    saved = msgspec.to_builtins(state)
    saved["fold"].pop("learned", None)
    return render(state), msgspec.json.encode(saved)


# `<private>` spans are hidden before the gate (text.hide_private), not by it.
GATED = sorted(set(FAMILIES) - {"private"})


@pytest.mark.parametrize("family", GATED)
def test_the_gate_hides_each_value_and_hands_it_to_learning(family: str) -> None:
    from vibe_vault.redact import DEFAULT

    @settings(max_examples=examples(40, 600), deadline=None)
    @given(planted(family))
    def check(case: tuple[str, str]) -> None:
        text, v = case
        found: list[str] = []
        out, n = DEFAULT.redact(text, found)
        assert n >= 1 and not any(p in out for p in pieces(v)), (text, out)
        assert any(v in f for f in found), (text, found)

    check()


def test_other_tags_named_private_are_not_private() -> None:
    from vibe_vault.text import hide_private

    for text in ("<private_key>abc</private_key>", "<privateKey/>", "a private> b",
                 "the <privacy> tag", "List<PrivateData> items"):
        assert hide_private(text) == (text, []), text


@settings(max_examples=examples(40, 400), deadline=None)
@given(planted("private"))
def test_a_private_tag_with_attributes_hides_its_span(case: tuple[str, str]) -> None:
    from vibe_vault.text import PRIVATE_MARK, hide_private

    text, v = case
    out, spans = hide_private(text)
    assert v not in out and PRIVATE_MARK in out, (text, out)
    assert v in spans


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_value_is_in_no_text_of_the_session(family: str) -> None:
    @settings(max_examples=examples(20, 300), deadline=None)
    @given(planted(family), places)
    def check(case: tuple[str, str], where: list[str]) -> None:
        text, v = case
        note, state = _fold(text, where, v)
        for piece in pieces(v):
            assert piece not in note, (text, where, piece)
            assert piece.encode() not in state, (text, where, piece)

    check()


@pytest.mark.parametrize("family", sorted(LOOK_ALIKES))
def test_look_alikes_redact_nothing(family: str) -> None:
    from vibe_vault.redact import DEFAULT

    @settings(max_examples=examples(20, 100), deadline=None)
    @given(st.sampled_from(["", "run this:\n", "# settings\n", "so "]),
           st.sampled_from(["", "\n", " and restart", "\n# end\n"]))
    def check(before: str, after: str) -> None:
        for look in LOOK_ALIKES[family]:  # every one, in generated surroundings
            text = before + look + after
            found: list[str] = []
            assert DEFAULT.redact(text, found) == (text, 0), text
            assert not found

    check()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_end_to_end_the_value_is_in_no_file_search_or_show(family: str, thorough: bool) -> None:
    # (the first case runs `vv` as processes: of every family in CI and with
    # --slow, of the first family a worker takes in the quick run)
    first = f"secret_forms end to end {family}" if thorough else "secret_forms end to end"

    @settings(max_examples=examples(2, 6), deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(planted(family))
    def check(case: tuple[str, str]) -> None:
        text, v = case
        here = in_process(first)
        with tempfile.TemporaryDirectory() as tmp:
            env = Env(Path(tmp))
            sid = "5ec7e700-0000-4000-8000-000000000127"
            env.stop(sid, env.transcript(sid, shell._lines(sid, _entries(text, list(PLACES), v))),
                     here=here)
            assert env.notes()
            for piece in pieces(v):
                leaks = env.traces(piece, sid, here=here)
                assert not leaks, (text, piece, leaks)

    check()


@pytest.mark.parametrize("text", [
    "USER deploy\r\nPASS AA_0000000\r\n230 Logged in", "ftp> PASS ADMIN_2024",
    'password = "QA_1234567"', "AUTH default PROD_00_7",
])
def test_a_password_in_capitals_and_underscores_is_hidden(text: str) -> None:
    from vibe_vault.redact import DEFAULT

    out, n = DEFAULT.redact(text)
    assert n == 1 and "REDACTED" in out, out


@pytest.mark.parametrize("text", [
    "PASS YOUR_PASSWORD", 'password = "DB_PASSWORD"', 'api_key = "OPENAI_API_KEY"',
    'token = "OAUTH2_TOKEN"', 'secret = "MY_SECRET_V2"',
])
def test_a_variable_name_in_capitals_is_left_alone(text: str) -> None:
    from vibe_vault.redact import DEFAULT

    assert DEFAULT.redact(text) == (text, 0)


# A password given on a command line continued by `\` and a newline (or that
# newline already collapsed into a space) at any word boundary, its value
# %-escaped anywhere (`--password \⏎  a0%20b`): each reading alone (lines joined, escapes decoded) and both at once may end the
# value in another place, and the marker must cover it as written whichever
# does. The value's characters are ones no spelling and no marker holds.
_ESCAPES = ("%20", "%21", "%23", "%25", "%2B", "%2F", "%3A", "%3D", "%40", "%41", "%7E")
_VALUE_CHARS = "ABCDEFGHJKMNPQSTUVWXYZ" + "23456789"
_COMMANDS = (("mysql", "-u", "root", "--password", "{v}", "shop"),
             ("mysql", "-uroot", "--password={v}", "shop"),
             ("sshpass", "-p", "{v}", "ssh", "deploy@host"),
             ("docker", "login", "-u", "me", "-p", "{v}", "registry.example.com"),
             ("psql", "--password={v}", "-h", "db"),
             ("curl", "-u", "bob:{v}", "https://x"))


@st.composite
def continued_and_escaped(draw: st.DrawFn) -> tuple[str, str]:
    """(a command holding the value, the value as written)."""
    words = draw(st.sampled_from(_COMMANDS))
    chars = draw(st.lists(st.sampled_from(_VALUE_CHARS), min_size=8, max_size=16))
    for _ in range(draw(st.integers(1, 3))):
        chars.insert(draw(st.integers(0, len(chars))), draw(st.sampled_from(_ESCAPES)))
    v = "".join(chars)
    breaks = draw(st.lists(st.booleans(), min_size=len(words) - 1,
                           max_size=len(words) - 1).filter(any))
    indent = draw(st.sampled_from(["", " ", "  ", "    ", "\t"]))
    # The newline as written (LF, CRLF), or already a space or tab: a command
    # collapsed onto one line (`--password \ a0…`) as a title or a log shows it.
    newline = draw(st.sampled_from(["\n", "\r\n", " ", "\t"]))
    join = " \\" + newline + (indent if newline.endswith("\n") else "")
    text = words[0] + "".join((join if cut else " ") + w
                              for cut, w in zip(breaks, words[1:], strict=True))
    planted = Planted(text.replace("{v}", v))
    # (as the family's title: the whole run on one line)
    planted.title = " ".join(planted.replace("\\\r\n", " ").replace("\\\n", " ").split())
    return planted, v


def _shown(out: str, around: str, v: str) -> list[str]:
    """The runs of three characters of the value, as written or decoded, that
    `out` shows and `around` (what holds no value) does not. (Runs of digits
    alone are left out: a state's times and sizes hold any.)"""
    from urllib.parse import unquote

    bare = re.sub(r"\[REDACTED:[^\]]*\]", "\n", out)
    return [g for w in (v, unquote(v)) for g in (w[i:i + 3] for i in range(len(w) - 2))
            if g in bare and g not in around and not g.isdigit()]


@settings(max_examples=examples(200, 2000), deadline=None)
@given(continued_and_escaped())
def test_a_continued_and_escaped_value_is_hidden_whole(case: tuple[str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    text, v = case
    out, n = DEFAULT.redact(text)
    shown = _shown(out, text.replace(v, "\n"), v)
    assert n >= 1 and not shown, (text, out, shown)


@settings(max_examples=examples(20, 200), deadline=None)
@given(continued_and_escaped(), places)
def test_a_continued_and_escaped_value_is_in_no_text_of_the_session(
        case: tuple[str, str], where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    # What the same session holds with no value there: its times, counts, words.
    plain_note, plain_state = _fold(text.replace(v, "-" * len(v)), where, "-" * len(v))
    around = plain_note + plain_state.decode() + text.replace(v, "\n")
    assert not _shown(note, around, v), (text, where, _shown(note, around, v))
    # (the state holds the text JSON-escaped: a tab or newline there is `\t`, `\n`)
    assert not _shown(state.decode(), around, msgspec.json.encode(v).decode()[1:-1]), \
        (text, where)
