"""Secrets given by their place, not by a name beside them (attack 23, rows
N7-N22, N25, N32-N42), by class: (1) a library call whose Nth argument is a
password or a key, in Python, PHP, JS, Go, Java, C# and Ruby; (2) a command
whose Nth bare word or an unusual flag is one; (3) a database address with
no scheme, and a JSON pair that names a secret by its "key".

Generated: each class's spellings (written here, as users write them, not
read from the rules) x values of several alphabets (letters only, lower case,
letters and digits, with punctuation where the spelling's quotes allow) x
quoting x surroundings. Oracle: no run of 6 characters of the drawn value in
what the gate returns, nor in the note and the state folded from a session
saying it in several places, nor (end to end) in any file of the vault or the
state, the database's decompressed texts and search terms included, nor in
`vv search` or `vv show`. Look-alikes (the same spellings with a variable, an
environment lookup or a placeholder in the value's place) are left whole.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import string
import tempfile
import zlib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_secret_forms import _fold
from test_secret_forms_more import CONTROL, drawn, leaked, runs_of_six

_ALNUM = string.ascii_letters + string.digits
_SID = "AC" + "0123456789abcdef" * 2  # a Twilio account SID (an id, not the secret)

# (spelling, how the value is written there, whose value it is). How:
# "single"/"double" inside the spelling's own quotes, "shell" a shell word
# (bare or quoted by the test), "glued" a bare word glued to its flag or user,
# "address" inside a database address. Whose: "password" takes any random
# value; "key" one as random as a key (a letter and a digit, 12 or more).
CALLS: tuple[tuple[str, str, str], ...] = (
    ("conn = pymysql.connect('db.corp.io', 'root', '{v}', 'app')", "single", "password"),
    ('db = MySQLdb.connect("localhost", "root", "{v}", "shop")', "double", "password"),
    ("conn = pymssql.connect(server, 'sa', '{v}', 'master')", "single", "password"),
    ("conn = connect('db', 'app', '{v}', 'app')", "single", "password"),
    ("ssh.connect('10.0.0.5', 22, 'deploy', '{v}')", "single", "password"),
    ("conn = cx_Oracle.connect('scott', '{v}', 'db.corp/ORCL')", "single", "password"),
    ("client = TwilioRestClient('" + _SID + "', '{v}')", "single", "key"),
    ("ftp = FTP('ftp.corp.io', 'bob', '{v}')", "single", "password"),
    ("ftps = ftplib.FTP_TLS('ftp.corp.io', 'bob', '{v}')", "single", "password"),
    ("server = smtplib.SMTP('smtp.gmail.com', 587)\nserver.starttls()\n"
     "server.login('bob@corp.io', '{v}')", "single", "password"),
    ('mail = imaplib.IMAP4_SSL("imap.corp.io")\nmail.login("bob", "{v}")', "double", "password"),
    ("pop.pass_('{v}')", "single", "password"),
    ("conn.simple_bind_s('cn=admin,dc=corp,dc=io', '{v}')", "single", "password"),
    ('l.bind_s("uid=bob,ou=people,dc=corp", "{v}")', "double", "password"),
    ("r = redis.Redis('localhost', 6379, 0, '{v}')", "single", "password"),
    ("creds = pika.PlainCredentials('guest', '{v}')", "single", "password"),
    ("user.set_password('{v}')", "single", "password"),
    ("hashed = crypt.crypt('{v}', salt)", "single", "password"),
    ("auth = tweepy.OAuthHandler('{v}', consumer_secret)", "single", "key"),
    ("auth = tweepy.OAuthHandler(consumer_key, '{v}')", "single", "key"),
    ("auth.set_access_token(access_token, '{v}')", "single", "key"),
    ("client = Client('" + _SID + "', '{v}')", "single", "key"),
    ("$conn = mysqli_connect('db', 'root', '{v}', 'app');", "single", "password"),
    ('$m = new mysqli("localhost", "root", "{v}", "shop");', "double", "password"),
    ("$pdo = new PDO('mysql:host=db;dbname=app', 'root', '{v}');", "single", "password"),
    ("ldap_bind($ds, 'cn=admin,dc=corp', '{v}');", "single", "password"),
    ("ftp_login($conn, 'bob', '{v}');", "single", "password"),
    ("ssh2_auth_password($c, 'root', '{v}');", "single", "password"),
    ("$c = oci_connect('scott', '{v}', 'orcl');", "single", "password"),
    ("const db = new Sequelize('app', 'root', '{v}', { dialect: 'mysql' });", "single",
     "password"),
    ("const hash = await bcrypt.hash('{v}', 10);", "single", "password"),
    ('auth := smtp.PlainAuth("", "bob@corp.io", "{v}", "smtp.corp.io")', "double", "password"),
    ('req.SetBasicAuth("bob", "{v}")', "double", "password"),
    ('creds := credentials.NewStaticV4("AKIDEXAMPLE", "{v}", "")', "double", "key"),
    ('config := &ssh.ClientConfig{Auth: []ssh.AuthMethod{ssh.Password("{v}")}}', "double",
     "password"),
    ('Connection c = DriverManager.getConnection("jdbc:mysql://db/app", "root", "{v}");',
     "double", "password"),
    ('return new PasswordAuthentication("bob", "{v}".toCharArray());', "double", "password"),
    ('var cred = new NetworkCredential("bob", "{v}");', "double", "password"),
    ('dataSource.setPassword("{v}");', "double", "password"),
    ('client.login("bob", "{v}");', "double", "password"),
    ("ftp = Net::FTP.new('ftp.corp.io', 'bob', '{v}')", "single", "password"),
)

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("mc alias set myminio https://minio.corp.io minioadmin {v}", "shell", "password"),
    ("mc config host add s3 https://s3.corp.io admin {v} --api S3v4", "shell", "password"),
    ("mc admin user add myminio alice {v}", "shell", "password"),
    ("java -jar jenkins-cli.jar -s https://ci.corp.io -auth bob:{v} build job", "glued",
     "password"),
    ("cargo login {v}", "shell", "key"),
    ("cargo login --registry corp {v}", "shell", "key"),
    ("ngrok config add-authtoken {v}", "shell", "key"),
    ("netlify deploy --prod --auth {v}", "shell", "key"),
    ("swaks --to a@b.c --server smtp.corp.io --auth-user bob --auth-password {v}", "shell",
     "password"),
    ("wget --ftp-password={v} ftp://files.corp.io/f", "glued", "password"),
    ("travis login --github-token {v}", "shell", "key"),
    ("lftp -u bob,{v} sftp://files.corp.io", "glued", "password"),
    ("xfreerdp /v:10.0.0.9 /u:Administrator /p:{v}", "glued", "password"),
    ("net use \\\\fs\\share /user:CORP\\bob {v}", "shell", "password"),
    ("net use Z: \\\\fs\\share /user:bob {v} /persistent:no", "shell", "password"),
    ("rdesktop -u Administrator -p {v} 10.0.0.9", "shell", "password"),
    ("nmcli dev wifi connect CorpWiFi password {v}", "shell", "password"),
    ("wpa_passphrase CorpWiFi {v}", "shell", "password"),
    ("htpasswd -nb admin {v}", "shell", "password"),
    ("htpasswd -nbB admin {v}", "shell", "password"),
    ("openssl passwd -6 {v}", "shell", "password"),
    ("openssl passwd -1 -salt xyz {v}", "shell", "password"),
    ("mkpasswd -m sha-512 {v}", "shell", "password"),
    ("echo -n {v} | base64", "shell", "key"),
    ("printf '%s' {v} | base64 -w0", "shell", "key"),
    ("security add-generic-password -a bob -s corp-api -w {v}", "shell", "password"),
    ("security unlock-keychain -p {v} login.keychain", "shell", "password"),
    ("poetry config http-basic.corp bob {v}", "shell", "password"),
    ("composer config --global http-basic.repo.corp.io bob {v}", "shell", "password"),
    ("poetry config pypi-token.corp {v}", "shell", "key"),
    ("printf '#!/bin/sh\\necho {v}\\n' > /tmp/askpass && GIT_ASKPASS=/tmp/askpass git push",
     "glued", "password"),
    ("redis-cli CONFIG SET requirepass {v}", "shell", "password"),
    ("bind 0.0.0.0\nrequirepass {v}\nmasterauth {v}\n", "glued", "password"),
    ("bw unlock {v}", "shell", "password"),
)

ADDRESSES: tuple[tuple[str, str, str], ...] = (
    ('db, err := sql.Open("mysql", "root:{v}@tcp(db:3306)/app")', "address", "password"),
    ('dsn := "app:{v}@unix(/tmp/mysql.sock)/app?parseTime=true"', "address", "password"),
    ("spring.datasource.url=jdbc:oracle:thin:scott/{v}@db.corp:1521/ORCL", "address",
     "password"),
    ("conn = cx_Oracle.connect('scott/{v}@db.corp:1521/ORCL')", "address", "password"),
    ("SQL> connect system/{v}@orcl", "address", "password"),
    ("export http_proxy=bob:{v}@proxy.corp.io:3128", "address", "password"),
    ('{"auth":{"type":"apikey","apikey":[{"key":"value","value":"{v}","type":"string"},'
     '{"key":"key","value":"X-API-Key","type":"string"}]}}', "double", "key"),
    ('{"key": "api_token", "value": "{v}", "enabled": true}', "double", "key"),
    ('[{"ParameterKey": "DbPassword", "ParameterValue": "{v}"}]', "double", "password"),
)

SPELLINGS = CALLS + COMMANDS + ADDRESSES

# Characters a value may hold where it is written, besides letters and digits.
_PUNCT = {"single": "!#%+-.:=@^_~*?,/&|;()[]{} \"", "double": "!#%+-.:=@^_~*?,/&|;()[]{} '",
          "shell": "%+-.:=@^_~!,", "glued": "%+.^_~!", "address": "!%+-.^_~*"}


def _random_enough(v: str) -> bool:
    """No reader takes it for a word, a template, a variable, an option or a
    placeholder (README: `your…`, `…here`, `…`, `xxx`), nor a shell's
    `name=value` argument."""
    return (len(set(v)) >= 5 and v.strip() == v and "  " not in v and v[0].isalpha()
            and "{" not in v and "$" not in v and ".." not in v
            and not re.search(r"(?i)^your|here$|xxx|\*\*\*|^my|pass|secret|token|foo|changeme"
                              r"|example|sample|dummy|fake|test|placeholder|hidden|masked", v)
            and not re.match(r"(?i:[a-z_]+=[^=])|(?i:env|file|fd|pass|stdin|prompt)", v))


def _a_key(v: str) -> bool:
    """A key (README): no name in code (`snake_case_12`)."""
    return not re.fullmatch(r"[a-z0-9_.]*_[a-z0-9_.]*", v)


def value(how: str, whose: str) -> st.SearchStrategy[str]:
    if whose == "key":  # (a key: letters and a digit, or with `_` and `-`)
        return st.one_of(drawn(_ALNUM, 12, 40), drawn(_ALNUM + "_-", 12, 40),
                         drawn(string.ascii_lowercase + string.digits, 12, 40)).filter(
            lambda v: _random_enough(v) and _a_key(v))
    return st.one_of(drawn(string.ascii_letters, 10, 24), drawn(string.ascii_lowercase, 10, 24),
                     drawn(_ALNUM, 8, 24), drawn(_ALNUM + _PUNCT[how], 8, 24)).filter(
        _random_enough)


@st.composite
def planted(draw: st.DrawFn, spellings: tuple[tuple[str, str, str], ...] = SPELLINGS
            ) -> tuple[str, str]:
    spelling, how, whose = draw(st.sampled_from(spellings))
    v = draw(value(how, whose))
    written = v
    if how == "shell":  # a shell word: bare, or quoted either way
        written = draw(st.sampled_from([v, f"'{v}'", f'"{v}"']))
    before = draw(st.sampled_from(["", "run this:\n", "$ ", "I ran `"]))
    after = draw(st.sampled_from(["", "\n", "\nthen it worked", "` and it failed"]))
    if before == "I ran `" and "\n" in spelling:
        before = "run this:\n"
    return before + spelling.replace("{v}", written) + after, v


def _check_gate(case: tuple[str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    text, v = case
    found: list[str] = []
    out, n = DEFAULT.redact(text, found)
    control = DEFAULT.redact(text.replace(v, CONTROL))[0]
    assert n >= 1 and not leaked(out, control, v), (text, out)
    assert any(v in f for f in found), (text, found)  # handed to learning


@settings(max_examples=examples(300, 3000), deadline=None)
@given(planted())
def test_the_gate_leaves_no_run_of_six_of_the_value(case: tuple[str, str]) -> None:
    _check_gate(case)


def test_every_spelling_is_caught() -> None:
    """Each spelling once, with a value of each alphabet (the generated test
    above may leave a few spellings undrawn in a quick run)."""
    for spelling, how, whose in SPELLINGS:
        for v in ("Xk29vQmT7pLa4Rz", "qmvtzkpwrxhdjc", "Kp2_x7-Qm9Tz4w", "Hq7!Rm2.Zx~p"):
            if whose == "key" and not any(c.isdigit() for c in v):
                continue
            if any(c not in _ALNUM + _PUNCT[how] for c in v):
                continue
            _check_gate((spelling.replace("{v}", v), v))


@settings(max_examples=examples(100, 1000), deadline=None)
@given(st.sampled_from([c for c in SPELLINGS if c[1] in ("single", "double", "shell")
                        and "base64" not in c[0]]),  # (`| base64` after it is its form)
       st.data())
def test_a_text_cut_inside_the_value_hides_what_is_left(
        spelling: tuple[str, str, str], data: st.DataObject) -> None:
    """A text cut short inside its value (a subagent's description, a title
    cut to its length; attack 23 saw the state keep `login('bob', 'ZayWjuaB`),
    an ellipsis after it or not: what is left of the value is hidden."""
    from vibe_vault.redact import DEFAULT

    form, how, whose = spelling
    v = data.draw(value(how, whose))
    quote = data.draw(st.sampled_from(["'", '"'])) if how == "shell" else ""
    head = form[:form.index("{v}")].replace("{v}", v) + quote
    # (a key's piece is one when it is as random as a key: 12 or more, a digit)
    cut = data.draw(st.integers(6 if whose == "password" else 12, len(v)))
    assume(whose == "password" or any(c.isdigit() for c in v[:cut]))
    text = head + v[:cut] + data.draw(
        st.sampled_from(["", "…"]))
    out, _ = DEFAULT.redact(text)
    left = v[:cut]
    assert not leaked(out, DEFAULT.redact(text.replace(left, CONTROL))[0], left), (text, out)


PLACES = st.lists(st.sampled_from(["prompt", "answer", "command", "output", "error"]),
                  min_size=1, max_size=3, unique=True)


@settings(max_examples=examples(40, 400), deadline=None)
@given(planted(), PLACES)
def test_folded_the_value_is_in_no_note_or_state(case: tuple[str, str],
                                                 where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


# -- look-alikes: what is no literal, or a placeholder, is left -------------------------------

# What stands in a value's place in code (the spelling's quotes taken off)
# and in a shell, that is no secret.
_CODE = ("password", "self.password", "os.environ['DB_PASSWORD']", 'os.getenv("API_KEY")',
         "$password", "process.env.DB_PASS", "ENV['SMTP_PASSWORD']", 'System.getenv("PW")',
         "config.secret", "creds[1]", "get_password()")
_LITERAL_PLACEHOLDERS = ("${DB_PASSWORD}", "<password>", "your-password-here", "changeme",
                         "${{ secrets.DB_PASSWORD }}", "{{ smtp_password }}", "xxxxxxxx",
                         "password", "YOUR_API_KEY", "$SECRET")
_SHELL = ("$SECRET", '"$DB_PASS"', "${TOKEN}", '"${{ secrets.TOKEN }}"', "'<password>'",
          '"$(cat ~/.token)"', "$(pass show corp)")


@st.composite
def look_alike(draw: st.DrawFn) -> str:
    spelling, how, _ = draw(st.sampled_from(SPELLINGS))
    if how in ("single", "double"):
        quote = "'" if how == "single" else '"'
        if draw(st.booleans()) and quote + "{v}" + quote in spelling:
            return spelling.replace(quote + "{v}" + quote, draw(st.sampled_from(_CODE)))
        return spelling.replace("{v}", draw(st.sampled_from(_LITERAL_PLACEHOLDERS)))
    if how == "shell":
        return spelling.replace("{v}", draw(st.sampled_from(_SHELL)))
    return spelling.replace("{v}", draw(st.sampled_from(("$SECRET", "${DB_PASSWORD}"))))


@settings(max_examples=examples(200, 2000), deadline=None)
@given(look_alike())
def test_look_alikes_are_left_whole(text: str) -> None:
    from vibe_vault.redact import DEFAULT

    assert DEFAULT.redact(text) == (text, 0)


def test_code_and_commands_that_hold_no_secret_are_left() -> None:
    from vibe_vault.redact import DEFAULT

    for text in ("server.login(user, password)", "login(request, user)",
                 "conn = pymysql.connect(host, user, password, db)",
                 "s.connect(('example.com', 80))", "client.connect('mqtt.example.io', 1883, 60)",
                 "ftp = FTP('ftp.example.io')",
                 "client = Client(account_sid, auth_token)", "cargo login",
                 "cargo login --registry corp", "mc alias list", "openssl passwd -6 -stdin",
                 "echo -n 'hello world' | base64", "echo $TOKEN | base64",
                 "echo 'aGVsbG8gd29ybGQK' | base64 -d", "psql --no-password app",
                 "docker login --password-stdin", "mongod --auth --port 27017",
                 "security find-generic-password -a bob -s corp -w",
                 "net use Z: /delete", "htpasswd -c .htpasswd admin",
                 "go get github.com/go-sql-driver/mysql@v1.8.1",
                 "jdbc:oracle:thin:@db.example.io:1521/ORCL", "proxy: user@proxy.example.io:3128",
                 '{"key": "tokenType", "value": "Bearer"}', '{"key": "baseUrl", "value": "x"}',
                 "# requirepass foobared", "image: redis:7@sha256:abcdef0123456789",
                 "xfreerdp /v:10.0.0.9 /u:Administrator /cert:ignore",
                 "we need to connect frontend/backend services", "connect src/app.py first",
                 "gy mkpasswd qkyedcoer vcszpwqai", "then nmcli ok password qkyedcoerxz",
                 "echo \"Hello, World\" | base64", "net use Z: \\\\srv\\share /user:me and restart"):
        assert DEFAULT.redact(text) == (text, 0), text


# -- end to end: files, the database's texts and terms, what vv prints ------------------------

def _database_texts(state: Path) -> bytes:
    """Every value of every table of each database under `state`, blobs
    decompressed where they are zlib's, and the search index's terms."""
    out: list[bytes] = []
    for db in state.rglob("*.db"):
        con = sqlite3.connect(db)
        try:
            tables = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
            for table in tables:
                try:
                    rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
                except sqlite3.DatabaseError:
                    continue
                for row in rows:
                    for cell in row:
                        if isinstance(cell, bytes):
                            out.append(cell)
                            for wbits in (15, -15):
                                with contextlib.suppress(zlib.error):
                                    out.append(zlib.decompress(cell, wbits))
                        elif cell is not None:
                            out.append(str(cell).encode())
        finally:
            con.close()
    return b"\n".join(out)


def _lines(sid: str, text: str) -> list[bytes]:
    """A session saying `text` in a prompt, a command, its output, an error
    and the last answer."""
    entries: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": text}},
        _assistant(1, {"type": "tool_use", "id": "t1", "name": "Bash",
                       "input": {"command": text, "description": "Run it"}}),
        _result("t1", text),
        _assistant(2, {"type": "tool_use", "id": "t2", "name": "Bash",
                       "input": {"command": "./deploy"}}),
        _result("t2", "Exit code 1\n" + text, error=True),
        _assistant(3, {"type": "text", "text": "Done: " + text}),
    ]
    return [json.dumps({"uuid": f"{sid[:8]}-{i}", "sessionId": sid, "cwd": "/srv/app",
                        "timestamp": f"2026-01-01T00:00:{i:02d}Z", **e}).encode()
            for i, e in enumerate(entries)]


def _assistant(i: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"id": f"m{i}", "model": "claude-x",
            "role": "assistant", "content": list(blocks),
            "usage": {"input_tokens": 1, "output_tokens": 1}}}


def _result(tid: str, content: str, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if error:
        block["is_error"] = True
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def _search_terms(root: Path) -> bytes:
    """The search index's terms of each database under `root` (lower case,
    as the index keeps them)."""
    terms: list[str] = []
    for db in root.rglob("*.db"):
        con = sqlite3.connect(db)
        try:
            with contextlib.suppress(sqlite3.DatabaseError):
                con.execute("CREATE VIRTUAL TABLE temp.vv_terms USING fts5vocab(main, 'search', 'row')")
                terms += [r[0] for r in con.execute("SELECT term FROM temp.vv_terms")]
        finally:
            con.close()
    return "\n".join(terms).encode()


def _home(cases: list[tuple[str, str]], here: bool) -> tuple[bytes, bytes, bytes]:
    """What a home holds and what vv prints after the hooks and a backfill
    of one session a case: every file under the vault and the state with
    every database value (decompressed); the search index's terms; what
    `vv backfill`, `index`, `search` (a run of each value) and `show` of each
    session printed."""
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sids = [f"5ec7e700-0000-4000-8000-0000000000{i:02d}" for i in range(len(cases))]
        for sid, (text, _) in zip(sids, cases, strict=True):
            env.stop(sid, env.transcript(sid, _lines(sid, text)), here=here)
        run = env.vv_here if here else env.vv
        outputs = [run("backfill"), run("index")]
        files = b"\n".join(p.read_bytes() for root in (env.vault, env.state) if root.exists()
                           for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        seen = files + _database_texts(env.state) + _database_texts(env.vault)
        for sid, (_, v) in zip(sids, cases, strict=True):
            outputs += [run("search", *runs_of_six(v)[:1]), run("show", sid[:8])]
        terms = _search_terms(env.state) + _search_terms(env.vault)
        return seen, terms, b"".join(r.stdout + r.stderr for r in outputs)


def _home_seen(cases: list[tuple[str, str]], here: bool) -> tuple[bytes, bytes]:
    """`_home`'s files and tables, and what vv printed."""
    seen, _, printed = _home(cases, here)
    return seen, printed


def in_no_output(cases: list[tuple[str, str]], here: bool) -> None:
    """No run of six of each case's value is in `_home`'s files, tables or
    what vv printed. The control: the same sessions with each value swapped
    for CONTROL (a run of a value that is in them anyway, `passwd`, is no
    leak)."""
    seen, printed = _home_seen(cases, here)
    control_seen, control_printed = _home_seen(
        [(text.replace(v, CONTROL), CONTROL) for text, v in cases], True)
    for text, v in cases:
        assert not leaked(seen, control_seen, v), (text, v)
        assert not leaked(printed, control_printed, v), (text, v)


@settings(max_examples=examples(3, 10), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(planted(), min_size=3, max_size=6))
def test_end_to_end_no_run_of_six_in_any_file_table_or_output(
        cases: list[tuple[str, str]]) -> None:
    in_no_output(cases, in_process("positional secrets end to end"))
