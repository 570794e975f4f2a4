"""The names that mean a secret: one table, which every rule that reads a
name then a value makes its names from (an assignment or a configuration's
key, `TOTP_SEED=…`, `"recoveryCodes": …`; an environment variable; a flag,
`--pin-code …`; prose, `the seed phrase is …`).

A name is written here as words apart (`totp seed`); the rules read it in
every style a name is spelled in: snake, kebab, dotted, spaced, run
together (camel, Pascal and capitals are that, the gate matching in lower
case): `totp_seed`, `totp-seed`, `totp.seed`, `totp seed`, `totpSeed`,
`TotpSeed`, `TOTP_SEED`.

Families (attack 26 found each of them passing): one-time-password seeds,
backup and recovery codes and seed phrases, PINs, database addresses and
connection strings, session cookies, keys and secrets said by their use
(signing, encryption, master, webhook…), invitation codes.

Two strengths. A STRONG name says a secret wherever it is the end of a
name (`wallet_mnemonic`, `DB_DSN`... the value is judged as a password's
name's is: no placeholder, code, word or number). A WEAK name is a word
code uses for other things too (`private: true`, `pin = 13`, `access:
public`, `sig = inspect.signature(f)`): only at a name's end, and only a
value as random as a key is taken after it (redact._Replacer).

This module imports nothing of the package: secret_rules, secret_prose and
redact all read it.
"""

from __future__ import annotations

import re
from functools import cache

# What a secret's name is made of, by family (words apart, lower case).
STRONG: dict[str, tuple[str, ...]] = {
    "otp": tuple(f"{who} {what}" for who in ("totp", "hotp", "otp", "mfa", "2fa",
                                             "two factor", "authenticator")
                 for what in ("seed", "secret", "key")),
    "recovery": ("recovery code", "recovery codes", "backup code", "backup codes",
                 "scratch code", "scratch codes", "recovery phrase", "recovery key",
                 "seed phrase", "secret phrase", "mnemonic", "mnemonic phrase", "wallet seed",
                 "master seed"),
    "pin": ("pin code", "pin number", "puk code", "unlock code", "unlock pin", "sim pin"),
    "connection": ("connection string", "conn string", "conn str", "connstr",
                   "database dsn", "db dsn"),
    "session": ("session cookie", "auth cookie", "cookie secret", "session secret"),
    "key": ("signing key", "encryption key", "decryption key", "master key", "hmac key",
            "kms key", "license key", "licence key", "serial key", "product key",
            "activation key", "activation code", "unlock key", "pre shared key",
            "wifi key", "wpa key", "network key", "webhook secret", "signing secret"),
    "invite": ("invite code", "invitation code", "invite token", "referral secret"),
    # (a tool's variable holding a password: `SSHPASS=… sshpass -e ssh host`)
    "password": ("sshpass",),
}
# Words that name a secret when the whole name, or its end, and the value a key.
WEAK = ("pin", "psk", "dsn", "private", "sig", "mima", "motdepasse")
# Weak in prose only (`the access is X`): in code they are names of other
# things (`access_level`, `auth_method`) that the assignment rules judge already.
PROSE_WEAK = (*WEAK, "access", "auth", "pwd", "pass", "credentials", "creds", "salt",
              "passkey")

# A URL's query parameters that carry a secret (`?token=…`, `&sig=…`, a
# signed URL's `X-Goog-Signature=…`, a magic link's `&t=…`): the value taken
# when as random as a key (redact._cell_hides), so `?code=200` or `?t=42s` is left.
QUERY_NAMES = ("key", "api_key", "api-key", "apikey", "token", "access_token", "auth_token",
               "id_token", "refresh_token", "jwt", "ticket", "otp", "code", "sas", "sid",
               "hash", "appid", "app_id", "t", "sig", "signature", "secret", "client_secret",
               "password", "passwd", "pwd", "x-goog-signature", "x-amz-signature",
               "x-amz-security-token", "x-goog-credential", "magic", "login_token",
               "invite", "invite_token", "session", "session_id", "sessionid", "auth")

# Between a name's words: nothing (camel case, run together), `_`, `-`, `.` or a space.
GLUE = "[ _.\\-]?"


def spelled(name: str) -> str:
    """A name's regex (lower case): its words, `GLUE` between them. Written
    with literal characters, `[…]` and `?` only (secret_prose.forms expands it)."""
    return GLUE.join(name.split())


def strong_names() -> list[str]:
    return sorted({n for names in STRONG.values() for n in names}, key=lambda n: (-len(n), n))


def _first_bounded(name: str) -> str:
    """`spelled`, a short first word (`pin`, `otp`, `db`) not the end of
    another (`spin code`, `hotp` is `totp`'s kin, not `otp`'s end)."""
    words = name.split()
    head = words[0]
    if len(head) <= 4:
        head += f"(?<![a-z0-9]{head})"
    return GLUE.join([head, *words[1:]])


def assignment_names() -> str:
    """The families' alternatives for secret_rules.SECRET_NAME (lower case, as
    the assignment rules read a text): a strong name ending a part of a name
    (`totp_seed_b32` too: redact's `_ABOUT` says which ends name something
    about a secret, `_length`, `_path`); a weak word whole, ending the name
    (`db_pin`, not `pin_mode` or `spinner`)."""
    strong = "|".join(_first_bounded(n) + ("" if n.endswith("s") else "s?")
                      for n in strong_names())
    weak = "|".join(f"{w}(?<![a-z0-9]{w})(?![a-z0-9])(?![_.\\-]{{1,8}}[a-z0-9])"
                    for w in WEAK)
    return f"(?:{strong})(?![a-z0-9])|{weak}"


def name_triggers() -> tuple[str, ...]:
    """Words one of which a text must hold for a strong name to be read: its
    first two words in each style (`pin code`, `pin_code`, `pincode`…), a
    name of one word whole."""
    out: set[str] = set()
    for name in strong_names():
        words = name.split()
        if len(words) == 1:
            out.add(words[0])
            continue
        out.update(words[0] + glue + words[1] for glue in (" ", "_", "-", ".", ""))
    return tuple(sorted(out))


def assignment_triggers() -> tuple[str, ...]:
    """`name_triggers`, and a weak word with what may follow it in `name=value`."""
    return tuple(sorted({*name_triggers(), *(w + after for w in WEAK
                                              for after in ("=", ":", "\"", "'", " ", "\t"))}))


def flag_names() -> tuple[str, ...]:
    """The names a flag may give (`--totp-secret X`, `--connection-string X`):
    kebab case; the weak words are flags of other things (`--private`,
    `--pin 3`), all but `--dsn`."""
    return tuple(sorted({"-".join(n.split()) for n in strong_names()} | {"dsn", "psk"}))


def prose_names() -> tuple[str, ...]:
    """The strong names as secret_prose's English names (a plural too)."""
    return tuple("[ _\\-]?".join(n.split()) + ("" if n.endswith("s") else "s?")
                 for n in strong_names())


@cache
def _weak_test() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (re.compile("|".join(spelled(n) for n in strong_names())),
            re.compile(r"pass|pw|secret|token|key|cred|auth|salt|psw"),
            re.compile("|".join(f"(?<![a-z0-9]){w}(?![a-z0-9])" for w in WEAK)))


def is_weak_name(name: str) -> bool:
    """Whether a name given a value (as written) holds no word that says a
    secret but weak ones (`private`, `db_pin`): then its value must look like a key."""
    low = name.lower()
    strong, words, weak = _weak_test()
    return not strong.search(low) and not words.search(low) and bool(weak.search(low))
