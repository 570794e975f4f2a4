"""Secret forms an attacker found passing the gate (attack 24, section 2), by
class: a literal given by its place to a call whose name says it logs in,
authenticates, makes a credential or signs (`client.Authenticate(u, X)`,
`jwt.sign(p, X)`, `Fernet(b'X')`), a typed constant named for a secret
(`API_KEY: str = "X"`, `const API_KEY: &str = "X";`), a bytes literal after a
secret's name (`pwd=b'X'`), what a script types after a password's prompt,
a `user:password` base64-encoded, a signing tool's secret key file; a config
line whose place says the secret (Cisco, Postfix, pppd, XML); a password or
a key named in any of the language table's languages.

Generated: each class's spellings (callees, arguments before, quotes, names,
languages) x values drawn at random x surroundings. Oracle: no run of 6
characters of the value (which the test drew) is left in what the gate
returns, nor in the note and the state folded from a session that says it in
each place a transcript holds text; one case end to end through `vv`. And the
same spellings with a variable, a lookup or a placeholder where the value was
are left whole.
"""

from __future__ import annotations

import base64
import random
import re
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import Env, examples, in_process
from test_secret_forms import PLACES, _entries, _fold
from test_secret_forms_more import CONTROL, drawn, leaked
from vibe_vault.redact import DEFAULT

_ALNUM = string.ascii_letters + string.digits
# A password's value: letters and digits, or with the punctuation people use.
# (not `%NAME%`: a Windows variable, left as one)
PASSWORDS = st.one_of(drawn(_ALNUM, 10, 32), drawn(_ALNUM + "!#%^*_-.@", 10, 24)).filter(
    lambda v: not (v.startswith("%") and v.endswith("%")))


def name_shaped(v: str) -> bool:
    """Letters, digits, '_' and '.' with a '_' or '.' ('_0000._abc', drawn by
    CI): written bare after a name and a colon, an arrow or a language's
    "is" (`пароль: a_b.c`), it reads as a name in code (`config.password`)
    and is left as one; quoted, or after `=`, it is a value."""
    return bool(re.fullmatch(r"[A-Za-z0-9_.]+", v)) and ("_" in v or "." in v)
KEYS = drawn(_ALNUM, 20, 48)

BEFORE = st.sampled_from(["", "use this:\n", "```python\n", "> ", "    ", "fix: "])
AFTER = st.sampled_from(["", "\n", "\n```", " # TODO move to env", "\nthen run it"])

# (callee as written, how many arguments before the secret, the value's kind)
CALLEES = (
    ("client.Authenticate", 1, "p"), ("smtp.Authenticate", 1, "p"),
    ("Credentials::new", 1, "p"), ("db.changeUserPassword", 1, "p"),
    ("MongoCredential.createCredential", 2, "p"),
    ("MongoCredential.createScramSha256Credential", 2, "p"),
    ("Transport.send", 2, "p"), ("gomail.NewDialer", 3, "p"), ("mail.NewDialer", 3, "p"),
    ("Net::SMTP.start", 4, "p"), ("PG.connect", 6, "p"), ("PG::Connection.new", 6, "p"),
    ("jenkins.Jenkins", 2, "p"), ("hmac.new", 0, "p"), ("Fernet", 0, "k"),
    ("crypto.createHmac", 1, "p"), ("createHmac", 1, "p"), ("jwt.sign", 1, "p"),
    ("jwt.encode", 1, "p"), ("gitlab.Gitlab", 1, "k"), ("Minio", 2, "k"),
)
# Arguments before the secret: literals, names, numbers, calls, objects.
ARGS = st.sampled_from(["'smtp.example.io'", '"bob@example.io"', "587", "user", "cfg.host",
                        "payload", "{ id: user.id }", "'sha256'", "nil", '"app".to_owned()',
                        "message", "b'app'"])
# What may follow the secret in the call.
TAILS = st.sampled_from([")", ", :plain)", ", algorithm='HS256')", ", { expiresIn: '1h' })",
                         ".to_owned())", ".encode())", ", hashlib.sha256)"])


@st.composite
def call(draw: st.DrawFn, value: str | None = None) -> tuple[str, str]:
    callee, before, kind = draw(st.sampled_from(CALLEES))
    v = value if value is not None else draw(KEYS if kind == "k" else PASSWORDS)
    q = draw(st.sampled_from(["'", '"']))
    prefix = draw(st.sampled_from(["", "b"])) if q == "'" else ""
    args = [draw(ARGS) for _ in range(before)]
    sep = draw(st.sampled_from([", ", ",", " , "]))
    literal = v if value is not None else f"{prefix}{q}{v}{q}"  # (no value: as it is written)
    text = f"{callee}(" + "".join(a + sep for a in args) + literal + draw(TAILS)
    lhs = draw(st.sampled_from(["", "x = ", "let c = ", "const t = ", "err := "]))
    return draw(BEFORE) + lhs + text + draw(AFTER), v


NAMES = ("API_KEY", "apiKey", "DB_PASSWORD", "dbPassword", "CLIENT_SECRET", "clientSecret",
         "AUTH_TOKEN", "authToken", "STRIPE_SECRET_KEY", "access_key", "SMTP_PASS")


@st.composite
def typed_constant(draw: st.DrawFn) -> tuple[str, str]:
    name, v = draw(st.sampled_from(NAMES)), draw(KEYS)
    form = draw(st.sampled_from([
        '{n}: str = "{v}"', "{n}: str = '{v}'", "{n}: bytes = b'{v}'",
        'const {n}: &str = "{v}";', "static {n}: &'static str = \"{v}\";",
        'pub const {n}: &str = "{v}";', 'const {n}: string = "{v}";',
        "export const {n}: string = '{v}';", 'let {n}: string = "{v}";',
        'private readonly {n}: string = "{v}";']))
    return draw(BEFORE) + form.format(n=name, v=v) + draw(AFTER), v


@st.composite
def bytes_literal(draw: st.DrawFn) -> tuple[str, str]:
    v = draw(PASSWORDS)
    q = draw(st.sampled_from(["'", '"']))
    form = draw(st.sampled_from([
        "creds = {{'user': b'app', '{n}': b{q}{v}{q}}}", "zf.extractall(path='out', pwd=b{q}{v}{q})",
        "zf.extract(name, pwd=b{q}{v}{q})", "connect({n}=b{q}{v}{q})", "{n} = b{q}{v}{q}"]))
    name = draw(st.sampled_from(["password", "passwd", "secret", "db_password", "token"]))
    return draw(BEFORE) + form.format(n=name, q=q, v=v) + draw(AFTER), v


@st.composite
def after_prompt(draw: st.DrawFn) -> tuple[str, str]:
    """What a script types after a password's prompt (pexpect, telnetlib)."""
    v = draw(PASSWORDS.filter(lambda s: "\\" not in s))
    prompt = draw(st.sampled_from(["Password:", "Password: ", "password for bob:",
                                   "Enter passphrase", "[sudo] password"]))
    wait = draw(st.sampled_from(["child.expect('{p}')", 'tn.read_until(b"{p}")',
                                 "p.expect_exact('{p}')", "conn.expect(r'{p}')"]))
    send = draw(st.sampled_from(["child.sendline('{v}')", 'tn.write(b"{v}\\n")',
                                 "p.sendline('{v}\\r')", 'conn.sendline("{v}")']))
    between = draw(st.sampled_from(["\n", "\ntime.sleep(1)\n", "  # wait\n"]))
    return (draw(BEFORE) + wait.format(p=prompt) + between + send.format(v=v)
            + draw(AFTER)), v


@st.composite
def encoded_pair(draw: st.DrawFn) -> tuple[str, str]:
    """`user:password` in base64: an nginx header, a note in prose."""
    v = draw(PASSWORDS)
    user = draw(st.sampled_from(["bob", "admin", "deploy@example.io", "svc_ci"]))
    encoded = base64.b64encode(f"{user}:{v}".encode()).decode()
    form = draw(st.sampled_from([
        'proxy_set_header Authorization "Basic {e}";', "creds (base64 of user:pass): {e}",
        "the basic auth value is {e}", "B64 creds: `{e}`", "credentials, base64: {e}"]))
    # (the value's runs are in no text but the encoded one: the oracle is
    # the encoded run, which holds the value's bytes)
    return draw(BEFORE) + form.format(e=encoded) + draw(AFTER), encoded.rstrip("=")


@st.composite
def signing_key_file(draw: st.DrawFn) -> tuple[str, str]:
    body = draw(drawn(string.ascii_letters + string.digits + "+/", 100, 160))
    head = draw(st.sampled_from(["minisign encrypted secret key", "signify secret key",
                                 "minisign secret key"]))
    return (draw(BEFORE) + f"untrusted comment: {head}\n" + "RWRTY0Iy" + body
            + draw(AFTER)), body


CODE = st.one_of(call(), typed_constant(), bytes_literal(), after_prompt(), encoded_pair(),
                 signing_key_file())


def _check_gate(case: tuple[str, str]) -> None:
    text, v = case
    out, n = DEFAULT.redact(text)
    control = DEFAULT.redact(text.replace(v, CONTROL))[0]
    assert n >= 1 and not leaked(out, control, v), (text, out)


@settings(max_examples=examples(300, 3000), deadline=None)
@given(CODE)
def test_the_gate_hides_a_secret_given_in_code(case: tuple[str, str]) -> None:
    _check_gate(case)


WHERE = st.lists(st.sampled_from(PLACES), min_size=1, max_size=3, unique=True)


@settings(max_examples=examples(25, 250), deadline=None)
@given(CODE, WHERE)
def test_folded_a_secret_given_in_code_is_in_no_note_or_state(case: tuple[str, str],
                                                               where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


# -- config files (attack 24, W70-W77) ----------------------------------------------------

@st.composite
def config_line(draw: st.DrawFn) -> tuple[str, str]:
    """A device's or a daemon's config line whose place says the secret:
    Cisco's enable/username/snmp-server/tacacs key, Postfix's sasl_passwd,
    pppd's chap-secrets, an XML element naming a secret (CDATA or not,
    Hibernate's <property name=…>), nginx's Basic header."""
    v = draw(PASSWORDS.filter(lambda s: not s.startswith(("-", "."))))
    user = draw(st.sampled_from(["admin", "bob", "svc-backup", "bob@example.io"]))
    host = draw(st.sampled_from(["smtp.gmail.com", "mail.example.io", "relay.corp.example"]))
    form = draw(st.sampled_from([
        "enable secret {t}{v}", "enable password {t}{v}", "enable secret level 15 {t}{v}",
        "username {u} privilege 15 password {t}{v}", "username {u} secret {t}{v}",
        "tacacs-server host 10.0.0.2 key {t}{v}", "radius-server key {t}{v}",
        "snmp-server community {v} RO", "snmp-server community {v} RW 10",
        "[{h}]:587 {u}:{v}", "[{h}]:465 {u}:{v}", "[{h}] {u}:{v}",
        "# client server secret IP addresses\n{u} * {v} *",
        "# Secrets for authentication using CHAP\n# client\tserver\tsecret\tIP\n"
        '"{u}" pptpd "{v}" *', "# client\tserver\tsecret\tIP\n{u}\t*\t{v}\t10.0.0.5",
        "<password><![CDATA[{v}]]></password>", "<db><pass><![CDATA[{v}]]></pass></db>",
        '<property name="hibernate.connection.password">{v}</property>',
        "<property name='javax.persistence.jdbc.password'>{v}</property>",
        '<property name="password" value="{v}"/>', '<entry key="db.password">{v}</entry>',
        '<param name="apiKey"><![CDATA[{v}]]></param>']))
    indent = draw(st.sampled_from(["", " ", "  "]))
    t = draw(st.sampled_from(["", "0 ", "7 "]))
    text = "\n".join(indent + line for line in form.format(
        u=user, v=v, h=host, t=t).split("\n"))
    return draw(BEFORE) + text + draw(AFTER), v


@settings(max_examples=examples(300, 3000), deadline=None)
@given(config_line())
def test_the_gate_hides_a_secret_in_a_config_line(case: tuple[str, str]) -> None:
    _check_gate(case)


@settings(max_examples=examples(25, 250), deadline=None)
@given(config_line(), WHERE)
def test_folded_a_secret_in_a_config_line_is_in_no_note_or_state(case: tuple[str, str],
                                                                 where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


CONFIG_LEFT = st.sampled_from([
    "snmp-server community public RO", "snmp-server community private RW",
    "enable secret is stronger than enable password",
    "username admin privilege 15", "relayhost = [smtp.gmail.com]:587",
    "# client server secret IP\n", "a * b * c", "x * 42 *", "issues: * found 1",
    '<property name="hibernate.connection.password">${DB_PASSWORD}</property>',
    '<property name="password_length">12</property>',
    '<property name="passwordEncoder" ref="encoder"/>',
    "<password><![CDATA[${DB_PASSWORD}]]></password>",
    '<property name="hibernate.connection.username">app</property>',
    "- [x] docs: fixed", "[smtp.gmail.com]:587 is the relay",
])


@settings(max_examples=examples(100, 600), deadline=None)
@given(CONFIG_LEFT, BEFORE, AFTER)
def test_config_with_no_secret_in_it_is_left(text: str, before: str, after: str) -> None:
    whole = before + text + after
    found: list[str] = []
    assert DEFAULT.redact(whole, found) == (whole, 0), whole
    assert not found


# -- what is left whole --------------------------------------------------------------------

# Where code gives no literal, or a placeholder.
NO_SECRET = st.sampled_from(["password", "os.environ['SMTP_PASSWORD']", "cfg.secret",
                             "process.env.JWT_SECRET", "getenv(\"PW\")", "'changeme'",
                             "'${SMTP_PASSWORD}'", "'<password>'", "\"{{ password }}\"",
                             "'your-password-here'", "''"])


@st.composite
def call_without_a_literal(draw: st.DrawFn) -> str:
    return draw(call(value=draw(NO_SECRET)))[0]


@st.composite
def named_about_a_secret(draw: st.DrawFn) -> str:
    """A constant about a secret (its length, its name, its path), typed."""
    name = draw(st.sampled_from(["PASSWORD_LENGTH", "password_min_length", "API_KEY_HEADER",
                                 "tokenType", "SECRET_NAME", "api_key_path"]))
    value = draw(st.sampled_from(['12', '"X-Api-Key"', '"Bearer"', '"db-credentials"',
                                  '"~/.config/key"', 'os.environ["API_KEY"]']))
    form = draw(st.sampled_from(["{n}: int = {v}", "const {n}: &str = {v};",
                                 "const {n}: string = {v};", "{n}: str = {v}"]))
    return form.format(n=name, v=value)


LEFT = st.one_of(
    call_without_a_literal(), named_about_a_secret(),
    st.sampled_from([
        "fn.bind(this, 'hello')", "l.Bind(\"cn=admin,dc=example,dc=io\", password)",
        "for (char c : \"aeiou\".toCharArray())", "sig = hmac.new(key, msg, hashlib.sha256)",
        "child.expect('Password:')\nchild.sendline(password)",
        "base64 of hello world: aGVsbG8gd29ybGQ=", "base64 pair dXNlcjpwYXNzd29yZA== decoded", "basic YWRtaW46Y2hhbmdlbWU= (b64)",
        "untrusted comment: minisign public key E7620F1842B4E81F\n"
        "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
        "jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: '1h' })",
        "Minio('minio:9000', access_key, secret_key)", "password: Optional[str] = None",
    ]))


@settings(max_examples=examples(200, 1500), deadline=None)
@given(LEFT, BEFORE, AFTER)
def test_code_with_no_secret_in_it_is_left(text: str, before: str, after: str) -> None:
    whole = before + text + after
    found: list[str] = []
    assert DEFAULT.redact(whole, found) == (whole, 0), whole
    assert not found


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(CODE, config_line()))
def test_end_to_end_a_secret_in_code_is_in_no_file_search_or_show(case: tuple[str, str]) -> None:
    text, v = case
    here = in_process("attack24 code end to end")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000124"
        env.stop(sid, env.transcript(sid, shell._lines(sid, _entries(text, list(PLACES), v))),
                 here=here)
        assert env.notes()
        for i in range(0, len(v) - 5, 3):
            leaks = env.traces(v[i:i + 6], sid, here=here)
            assert not leaks, (text, v[i:i + 6], leaks)


# -- a password or a key named in any of the table's languages (W78-W97) -------------------

def _spellings(column: int) -> list[tuple[str, str]]:
    """(language, spelling) of every name of a column of the language table
    (0 a password's, 1 a key's or a token's), each form its grammar gives."""
    from vibe_vault.secret_prose import _MORE_NAMES, _NAMES, forms

    return sorted({(lang, f) for lang, names in (*_NAMES.items(), *_MORE_NAMES.items())
                   for n in names[column] for f in forms(n)})


PASSWORD_SPELLINGS, KEY_SPELLINGS = _spellings(0), _spellings(1)


def test_the_table_reads_many_languages() -> None:
    # (the class, not the 20 an attacker named: a language no one named yet
    # is read as well; 80 or more, as the brief of attack 24's fix asks)
    from vibe_vault.secret_prose import _MORE_NAMES, _NAMES

    assert len(_NAMES) + len(_MORE_NAMES) >= 80
    assert {"af", "cy", "et", "eu", "gl", "hy", "is", "ka", "kk", "lt", "lv", "mn", "sl", "sq",
            "sw", "ta", "ur", "eo"} <= set(_MORE_NAMES)


# How a name is joined to its value in any language: a colon (also the
# full-width one), an arrow; quoted after a colon.
JOINS = st.sampled_from([": {v}", ":{v}", " : {v}", "：{v}", " → {v}", ": '{v}'", ': "{v}"',
                         " -> {v}"])


@st.composite
def named_in_a_language(draw: st.DrawFn) -> tuple[str, str]:
    column = draw(st.sampled_from([PASSWORD_SPELLINGS, KEY_SPELLINGS]))
    _, name = draw(st.sampled_from(column))
    v = draw(KEYS if column is KEY_SPELLINGS else PASSWORDS)
    # (capitalised too, where lower-casing it gives the name back: not
    # Turkish's dotless ı, whose capital is I)
    case = draw(st.sampled_from([str, str.capitalize]
                                if name.capitalize().lower() == name else [str]))
    before = draw(st.sampled_from(["", "my ", "- ", "> ", "db ", "new "]))
    join = draw(JOINS)
    assume(not name_shaped(v) or join[-2] in "'\"")
    return (draw(BEFORE) + before + case(name) + join.format(v=v) + draw(AFTER)), v


@settings(max_examples=examples(400, 4000), deadline=None)
@given(named_in_a_language())
def test_the_gate_hides_a_value_named_in_any_language(case: tuple[str, str]) -> None:
    _check_gate(case)


@pytest.mark.parametrize("lang,name", PASSWORD_SPELLINGS + KEY_SPELLINGS)
def test_every_spelling_of_the_table_is_read(lang: str, name: str) -> None:
    # (each spelling once, with a value drawn from a seed of its own: a
    # spelling the triggers miss would leave it)
    rng = random.Random(f"{lang}{name}")
    v = "".join(rng.choice(_ALNUM) for _ in range(20)) + "7q"
    _check_gate((f"{name}: {v}", v))


# The language's own "is" after its name (`slaptažodis yra X`, `密碼係 X`).
OWN_IS = (("lt", "slaptažodis yra {v}"), ("lv", "parole ir {v}"), ("et", "parool on {v}"),
          ("sq", "fjalëkalimi është {v}"), ("eo", "la pasvorto estas {v}"),
          ("cy", "y cyfrinair yw {v}"), ("sw", "nenosiri ni {v}"), ("is", "lykilorðið er {v}"),
          ("yue", "密碼係 {v}"), ("yue", "密碼係{v}"))
# (a key's name: its value as random as a key)
KEY_IS = (("de", "Der Zugangsschlüssel ist {v}"), ("de", "Zugangsschlüssel: {v}"),
          ("lt", "prieigos raktas yra {v}"), ("lv", "API atslēga ir {v}"))


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.one_of(st.tuples(st.sampled_from(OWN_IS), PASSWORDS),
                 st.tuples(st.sampled_from(KEY_IS), KEYS)))
def test_the_gate_hides_a_value_after_a_languages_own_is(
        case: tuple[tuple[str, str], str]) -> None:
    (_, form), v = case
    assume(not name_shaped(v))
    _check_gate((form.format(v=v), v))


@settings(max_examples=examples(25, 250), deadline=None)
@given(named_in_a_language(), WHERE)
def test_folded_a_value_named_in_any_language_is_in_no_note_or_state(
        case: tuple[str, str], where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


# What a sentence says about a password in those languages, with no value:
# words (no digit, under 12 letters) after the name. (Not a copula then one
# word ending the sentence: `the password is sunshine.` says a password.)
ABOUT = st.lists(st.sampled_from(["moet", "verander", "word", "nuwe", "gebruik", "kort", "sterk",
                                  "vergessen", "reset", "ändern", "neu", "olvidé", "cambiar"]),
                 min_size=1, max_size=4).map(" ".join)


@settings(max_examples=examples(200, 1500), deadline=None)
@given(st.sampled_from(PASSWORD_SPELLINGS + KEY_SPELLINGS), ABOUT)
def test_prose_about_a_password_in_any_language_is_left(spelling: tuple[str, str],
                                                        words: str) -> None:
    text = f"{spelling[1]} {words}."
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), text
    assert not found


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(named_in_a_language())
def test_end_to_end_a_value_named_in_any_language_is_in_no_file_search_or_show(
        case: tuple[str, str]) -> None:
    text, v = case
    here = in_process("attack24 languages end to end")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000224"
        env.stop(sid, env.transcript(sid, shell._lines(sid, _entries(text, list(PLACES), v))),
                 here=here)
        assert env.notes()
        for i in range(0, len(v) - 5, 3):
            leaks = env.traces(v[i:i + 6], sid, here=here)
            assert not leaks, (text, v[i:i + 6], leaks)


# A password shaped as a name ('_0000._abc', 'my_pass.word') quoted after a
# password's name in any language, or given by `=` (a .env line, a shell's
# export), is a literal and hidden; written bare after a colon it reads as a
# name in code and is left, as `config.password` is.
def _name_shaped(rng: random.Random) -> str:
    """Two random runs of letters and digits joined by '_' or '.' (a
    password's, not a constant's `AA00_AAA00`, which reads as a placeholder)."""
    def run() -> str:
        return "".join(rng.choice(_ALNUM) for _ in range(rng.randint(4, 9)))
    return run() + rng.choice("_.") + run()


NAME_SHAPED = st.randoms(use_true_random=False).map(_name_shaped)


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from(PASSWORD_SPELLINGS), NAME_SHAPED,
       st.sampled_from([": '{v}'", ': "{v}"', " → \"{v}\"", ": «{v}»"]))
def test_a_quoted_password_shaped_as_a_name_is_hidden(
        spelling: tuple[str, str], v: str, join: str) -> None:
    _, name = spelling
    _check_gate((name + join.format(v=v), v))
    for form in ("DB_PASSWORD={v}", "export SMTP_PASSWORD={v}", 'password="{v}"'):
        _check_gate((form.format(v=v), v))


def test_a_name_in_code_after_a_password_s_name_is_left() -> None:
    # (`пароль: user_password` alone on its line is a value since 9bdf0f0,
    # attack 25's leftovers: a plain word names the secret, a name-shaped
    # value ends the line; a dotted name or an object's field stays code)
    for text in ("password = config.password", "password: user.password",
                 "пароль: user.password", "Passwort: self.db_password",
                 "{ пароль: user_password }"):
        assert DEFAULT.redact(text) == (text, 0), text
