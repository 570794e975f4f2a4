"""Secret names the gate missed (attack 26, 63 leaks), by class, and the
harmless text it hid.

- Names: a one-time password's seed (`totp_seed`, `otp secret`), backup and
  recovery codes, seed phrases and mnemonics, PINs, database addresses and
  connection strings (`dsn`, `conn_str`), session cookies, keys and secrets
  said by their use (`serial key`, `webhook secret`), invitation codes; and
  words code uses for other things too (`private`, `sig`, `psk`, `pin`,
  `the pwd is`, `the access is`). Each in every spelling a name has
  (snake, kebab, dotted, camel, Pascal, capitals, spaced), in every place a
  name gives a value (an assignment, `export`, YAML, JSON, TOML, a flag,
  prose), with values of several shapes.
- False positives: a placeholder where a secret would be (`Bearer
  YOUR_TOKEN_HERE`, `<token>`, `xxxxxxxx`, `${VAR}`, `changeme`), a name
  with no value (`API_KEY=⏎SECRET=`), public material (a certificate's or a
  public key's body between its armour lines, WireGuard's `PublicKey = …`,
  `public_key: …`).

Generated: family x name x spelling x place x value shape. Oracle: no run of
6 of the value the test drew is in what the gate returns, nor in the note
and the state folded from a session that says it, nor (end to end) in any
file, table or output of `vv`; the gate hands the whole value to learning.
The names are the test's own list (attack 26's findings, and more of each
family), not the gate's table. Look-alikes (the names given code, a
number, a word, a placeholder; a flag of another use; public material) are
left whole.
"""

from __future__ import annotations

import base64
import random
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import _folded_nowhere, _hidden, shannon_bits, token
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]
_ALNUM = string.ascii_letters + string.digits

# Names that say a secret whatever value follows (words apart), by family.
STRONG = {
    "otp": ("totp seed", "totp secret", "otp secret", "otp seed", "mfa secret", "2fa secret",
            "mfa seed", "hotp secret", "authenticator secret"),
    "recovery": ("recovery code", "recovery codes", "backup codes", "backup code",
                 "recovery phrase", "seed phrase", "mnemonic", "wallet seed", "scratch codes"),
    "pin": ("pin code", "pin number", "puk code", "unlock pin"),
    "connection": ("connection string", "conn str", "conn string", "connstr", "db dsn"),
    "session": ("session cookie", "cookie secret", "session secret", "auth cookie"),
    "key": ("signing key", "encryption key", "master key", "hmac key", "kms key",
            "license key", "serial key", "product key", "activation key", "unlock key",
            "webhook secret", "pre shared key", "wifi key"),
    "invite": ("invite code", "invitation code", "invite token"),
}
# Words code uses for other things too: a value as random as a key after them.
WEAK = ("private", "pin", "psk", "dsn", "sig", "mima")
# And in prose only (`the pwd is X`).
PROSE_WEAK = (*WEAK, "pwd", "pass", "access", "auth", "credentials", "salt", "passkey")


def spellings(name: str) -> list[str]:
    """A name as code and configurations write it."""
    words = name.split()
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    return ["_".join(words), "-".join(words), ".".join(words), camel,
            "".join(w.capitalize() for w in words), "_".join(words).upper(), "".join(words)]


def key_value() -> st.SearchStrategy[str]:
    """A value as random as a key: 20 to 40 letters and digits (and `+`;
    not `_` or `-`, which join a name's parts), a letter and a digit in it,
    3.7 bits a character or more (gitleaks' measure of a generic key is 3.5)."""
    return token(20, 40, _ALNUM + "+").filter(
        lambda v: shannon_bits(v) >= 3.7 and v[-1].isalnum())


def values() -> st.SearchStrategy[str]:
    """Values of several shapes: letters and digits; base64 of random bytes;
    with symbols (quoted where a shell or YAML would need it)."""
    return st.one_of(
        token(12, 32),
        st.binary(min_size=12, max_size=30).map(lambda b: base64.b64encode(b).decode()).filter(
            lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and len(set(v)) * 2 >= len(v)),
        st.builds(lambda a, s, b: a + s + b, token(8, 16), st.sampled_from("!@#%^*~"),
                  token(4, 10)),
    )


def _quoted(v: str) -> bool:
    return not v.isalnum()


_CODE_PLACES = ("{n}={v}", "export {n}={v}", "{n}: {v}", "  {n}: {v}\n", '"{n}": "{v}"',
                '{{"{n}": "{v}", "x": 1}}', "{n} = \"{v}\"", "{n}='{v}'", "set {n}={v}")


@st.composite
def named_in_code(draw: st.DrawFn) -> Case:
    family = draw(st.sampled_from(sorted(STRONG)))
    name = draw(st.sampled_from(STRONG[family]))
    written = draw(st.sampled_from(spellings(name)))
    written = draw(st.sampled_from(["", "app_", "APP_", "prod."])) + written
    v = draw(values())
    place = draw(st.sampled_from(_CODE_PLACES))
    if _quoted(v) and "\"{v}\"" not in place and "'{v}'" not in place:
        place = '{n} = "{v}"'
    return place.replace("{n}", written).replace("{v}", v), [v]


@st.composite
def flagged(draw: st.DrawFn) -> Case:
    name = draw(st.sampled_from([n for names in STRONG.values() for n in names]))
    v = draw(token(12, 32))
    sep = draw(st.sampled_from([" ", "="]))
    cmd = draw(st.sampled_from(["tool", "./deploy.sh --env prod", "app-cli login"]))
    return f"{cmd} --{'-'.join(name.split())}{sep}{v} --verbose", [v]


@st.composite
def weak_in_code(draw: st.DrawFn) -> Case:
    word = draw(st.sampled_from(WEAK))
    written = draw(st.sampled_from([word, word.upper(), word.capitalize(), "db_" + word,
                                    "APP_" + word.upper()]))
    v = draw(key_value())
    place = draw(st.sampled_from(_CODE_PLACES))
    return place.replace("{n}", written).replace("{v}", v), [v]


@st.composite
def said(draw: st.DrawFn) -> Case:
    """`the <name> is <value>` and its kin."""
    strong = draw(st.booleans())
    if strong:
        name = draw(st.sampled_from([n for names in STRONG.values() for n in names]))
        v = draw(token(12, 32))
    else:
        name = draw(st.sampled_from(PROSE_WEAK))
        v = draw(key_value().filter(lambda x: x[0].isalnum()))
    written = draw(st.sampled_from([name, name.upper(), name.capitalize()]
                                   + ([name.replace(" ", "_")] if strong else [])))
    sentence = draw(st.sampled_from(["the {n} is {v}", "The {n} is {v}.", "my {n} was {v}",
                                     "ok, the {n} is {v}, use it", "our {n} is: {v}",
                                     "the new {n} is `{v}`"]))
    return sentence.replace("{n}", written).replace("{v}", v), [v]


CLASSES = {"in code": named_in_code(), "flag": flagged(), "weak": weak_in_code(),
           "said": said()}


# (attack 26's own rows, each)
ATTACK_26 = (
    "pin_code={v}", "pin_code: {v}", "the otp secret is {v}", "totp_seed={v}", "totp_seed: {v}",
    "the totp seed is {v}", "recovery_code={v}", "recovery_code: {v}",
    "the recovery code is {v}", "backup_codes={v}", "backup_codes: {v}",
    "the backup codes is {v}", "mnemonic={v}", "mnemonic: {v}", "the mnemonic is {v}",
    "private={v}", "private: {v}", "the private is {v}", "the cookie secret is {v}",
    "the session key is {v}", "the signing key is {v}", "the hmac key is {v}", "the salt is {v}",
    "the license key is {v}", "the serial key is {v}", "the access is {v}",
    "the credentials is {v}", "the auth is {v}", "the pwd is {v}", "the pass is {v}",
    "the passkey is {v}", "sig={v}", "sig: {v}", "the sig is {v}", "the webhook secret is {v}",
    "the consumer secret is {v}", "the app secret is {v}", "the master key is {v}",
    "the encryption key is {v}", "the kms key is {v}", "dsn={v}", "dsn: {v}", "the dsn is {v}",
    "conn_str={v}", "conn_str: {v}", "the conn str is {v}", "connection_string={v}",
    "connection_string: {v}", "the connection string is {v}", "the jwt secret is {v}",
    "the csrf secret is {v}", "the shared secret is {v}", "psk: {v}", "the psk is {v}",
    "invite_code={v}", "invite_code: {v}", "the invite code is {v}", "the unlock key is {v}",
    "the admin pass is {v}", "the motdepasse is {v}", "mima={v}", "mima: {v}", "the mima is {v}",
)


def test_attack_26s_rows_are_hidden() -> None:
    rng = random.Random(26)
    for row in ATTACK_26:
        v = "".join(rng.choice(_ALNUM) for _ in range(18)) + rng.choice("0123456789") + "q"
        _hidden(row.replace("{v}", v), [v])


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_a_value_given_a_secrets_name(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_a_value_given_a_secrets_name_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(*CLASSES.values()), min_size=2, max_size=4))
def test_end_to_end_a_value_given_a_secrets_name_is_in_no_file_table_or_output(
        cases: list[Case]) -> None:
    in_no_output([(text, values[0]) for text, values in cases], in_process("secret names"))


# -- what is left -------------------------------------------------------------------------------


@st.composite
def names_given_code(draw: st.DrawFn) -> str:
    """The names given code, a type, a number, a placeholder or nothing."""
    name = draw(st.sampled_from([n for names in STRONG.values() for n in names] + list(WEAK)))
    written = draw(st.sampled_from(spellings(name) if " " in name else [name, name.upper()]))
    given_ = draw(st.sampled_from([
        'request.form["pin"]', 'os.environ["DSN"]', "os.getenv('X')", "None", "null", "true",
        "false", "12", "Optional[str]", "self.config.value", "build_dsn(cfg)", "[]", "{}",
        "${SECRET}", "$SECRET", "<your-secret>", "YOUR_SECRET_HERE", "changeme", "xxxxxxxx",
        "{{ .Values.x }}", "your-key-here"]))
    sep = draw(st.sampled_from([" = ", ": "]))
    return written + sep + given_


@st.composite
def weak_words_of_code(draw: st.DrawFn) -> str:
    """The weak words where code and prose use them for other things."""
    return draw(st.sampled_from([
        "private: true", '"private": "readonly"', "LED_PIN = 13", "pin_mode=OUTPUT",
        "sig = inspect.signature(f)", "DSN=mydatasource", "dsn=production_db",
        "private = internal_only", "psk: required", "the access is restricted",
        "the pass is valid until Friday", "my pin is broken", "the auth is done by oauth",
        "the private is a soldier", "the salt is added per user", "mnemonic_length: 24",
        "recovery_codes_count = 10", "npm publish --access public",
        "gh repo create shop --private", "spin_code=abcdef", "the credentials are in vault",
        "pin: 3", "sig: none", "private: yes"]))


_PLACEHOLDERS = ("YOUR_TOKEN_HERE", "<token>", "<your-api-key>", "xxxxxxxxxxxxxxxx", "${TOKEN}",
                 "$API_TOKEN", "changeme", "your-token-here", "{{ .Values.token }}",
                 "REPLACE_ME", "********")


@st.composite
def placeholders(draw: st.DrawFn) -> str:
    ph = draw(st.sampled_from(_PLACEHOLDERS))
    return draw(st.sampled_from([
        "Authorization: Bearer {p}", "curl -H 'Authorization: Bearer {p}' https://x",
        "API_KEY={p}", "totp_seed: {p}", '"recoveryCodes": "{p}"', "DSN={p}",
        "the signing key is {p}"])).replace("{p}", ph)


def _b64_lines(rng: random.Random, n: int) -> str:
    alphabet = string.ascii_letters + string.digits + "+/"
    return "\n".join("".join(rng.choice(alphabet) for _ in range(64)) for _ in range(n))


@st.composite
def public_material(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 10**6)))
    kind = draw(st.sampled_from(["CERTIFICATE", "PUBLIC KEY", "CERTIFICATE REQUEST",
                                 "RSA PUBLIC KEY"]))
    body = "MII" + _b64_lines(rng, draw(st.integers(2, 6)))[3:]
    key = base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()
    return draw(st.sampled_from([
        f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----",
        f"cat cert.pem\n-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\ndone",
        f"[Peer]\nPublicKey = {key}\nAllowedIPs = 10.0.0.2/32",
        f"PUBLIC_KEY={key}", f'"publicKey": "{key}"', f"pubkey: {key}",
    ]))


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(names_given_code(), weak_words_of_code(), placeholders(), public_material()))
def test_look_alikes_placeholders_and_public_material_are_left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found


def test_a_name_with_no_value_is_no_value_for_the_line_before() -> None:
    for text in ("API_KEY=\nSECRET=", "TOKEN=\nPASSWORD=\nDEBUG=1", "api_key:\nsecret:"):
        assert DEFAULT.redact(text) == (text, 0), text
    v = "Xk29smPqa8d7f6s5d4f3"
    out = DEFAULT.redact(f"API_KEY=\nSECRET={v}")[0]
    assert out.startswith("API_KEY=\nSECRET=") and v not in out


def test_a_private_key_after_a_certificate_is_still_hidden() -> None:
    rng = random.Random(3)
    cert = "MII" + _b64_lines(rng, 3)[3:]
    key = "MII" + _b64_lines(rng, 3)[3:]
    text = (f"-----BEGIN CERTIFICATE-----\n{cert}\n-----END CERTIFICATE-----\n"
            f"-----BEGIN RSA PRIVATE KEY-----\n{key}\n-----END RSA PRIVATE KEY-----")
    out = DEFAULT.redact(text)[0]
    assert cert in out
    assert not any(line in out for line in key.splitlines())
    # the body of a private key under no armour, after a certificate's END
    out = DEFAULT.redact(f"-----BEGIN CERTIFICATE-----\n{cert}\n-----END CERTIFICATE-----\n"
                         f"and the key:\n{key}")[0]
    assert not any(line in out for line in key.splitlines())
