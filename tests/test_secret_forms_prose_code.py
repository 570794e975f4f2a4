"""Prose and code forms of a secret an outside attack found the gate missing
(attack 25: root causes 10 and 11, rounds 13, 14 and 16), by class:

- code: a literal given to a cipher, a MAC, a KDF or a signer (Go's
  `SignedString([]byte("…"))`, `createCipheriv(…, "…", iv)`, PHP's
  `openssl_encrypt` and `hash_hmac`, Java's `SecretKeySpec("…".getBytes())`,
  auth0's `Algorithm.HMAC256`, `pbkdf2Sync`, SQLCipher's `sqlite3_key`); typed
  into a password's field by a test (Capybara's `fill_in`, Playwright's and
  Cypress' `fill`/`type`, Selenium's `send_keys`) or into a prompt by a script
  (pexpect after a prompt's pattern); a secret's name given a literal in
  Visual Basic, Rust (`*b"…"`), R (`<-`) or Haskell (`::`), or by a
  subscript (`app.config['SECRET_KEY']`); the default of a secret's
  variable (`${DB_PASSWORD:-…}`, `process.env.DB_PASS || "…"`, Helm's
  `| default "…"`);
- commands: impacket's `domain/user:…@host`, restic's `--password-command
  "echo …"`, PuTTY's `-pw`, `IDENTIFIED BY …` unquoted (and GRANT's),
  `iwconfig … key s:…`, `x11vnc -storepasswd …`, `az … --account-key`,
  `gem push --key`, kerbrute's `-p`; a prompt naming what it asks for
  (`Enter passphrase for key '/…/id_ed25519': …`) or glued to the value
  (`Enter PEM pass phrase:…`);
- prose: the value before its name (`… is my password`, `set … as my
  password`), the name mistyped or disguised (`passwrd`, `pasword`,
  `P@ssw0rd`, `pword`), `PIN code is …` of letters and digits, `pass phrase:`,
  the colons `∶` `﹕` `꞉` and the ideographic space.

Generated: each class's spellings x values drawn at random x surroundings.
Oracle: the value the test drew; no run of 6 of it is left in what the gate
returns, nor in the note and the state folded from a session that says it
in several places; the gate hands it whole to learning. Ordinary code and
prose of the same shapes (a field that is no password's, a variable where
the literal was, a placeholder, a word of the sentence) are left whole.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import Case, _folded_nowhere, _hidden, token
from vibe_vault.redact import DEFAULT

_SYMBOLS = string.ascii_letters + string.digits + "!#%^*+=_-"


def _value(draw: st.DrawFn, symbols: bool = False) -> str:
    return draw(token(12, 32, _SYMBOLS if symbols else string.ascii_letters + string.digits))


# -- code ----------------------------------------------------------------------------------------

CALLS = (
    'token.SignedString([]byte({q}{v}{q}))',
    'hash, _ := bcrypt.GenerateFromPassword([]byte({q}{v}{q}), 10)',
    'block, _ := aes.NewCipher([]byte({q}{v}{q}))',
    'crypto.createCipheriv("aes-256-cbc", {q}{v}{q}, iv)',
    'const d = crypto.createDecipheriv(algo, {q}{v}{q}, iv);',
    'openssl_encrypt($data, "aes-256-cbc", {q}{v}{q});',
    '$plain = openssl_decrypt($d, $method, {q}{v}{q}, 0, $iv);',
    'hash_hmac("sha256", $payload, {q}{v}{q});',
    'mac.init(new SecretKeySpec({dq}{v}{dq}.getBytes(), "HmacSHA256"));',
    'Keys.hmacShaKeyFor({dq}{v}{dq}.getBytes(StandardCharsets.UTF_8))',
    'Algorithm alg = Algorithm.HMAC256({dq}{v}{dq});',
    'crypto.pbkdf2Sync({q}{v}{q}, salt, 100000, 64, "sha512")',
    'sqlite3_key(db, {dq}{v}{dq}, 16);',
    'mysql_real_connect(conn, "db", "app", {dq}{v}{dq}, "shop", 0, NULL, 0);',
    'curl_easy_setopt(c, CURLOPT_USERPWD, {dq}bob:{v}{dq});',
    'char[] pw = {dq}{v}{dq}.toCharArray();',
    'var key = new SymmetricSecurityKey(Encoding.UTF8.GetBytes({dq}{v}{dq}));',
    'CryptoJS.HmacSHA256(message, {q}{v}{q})',
    'hashlib.pbkdf2_hmac("sha256", b{q}{v}{q}, salt, 100000)',
    'Cipher(algorithms.AES(b{q}{v}{q}), modes.GCM(iv))',
    'client.login({q}{v}{q})',
    'element.sendKeys({dq}{v}{dq});',
    'child.sendline({q}{v}{q})',
    'base64.b64encode(b{q}admin:{v}{q})',
)
FIELDS = (
    'fill_in "{field}", with: {q}{v}{q}',
    "await page.fill('#{field}', {q}{v}{q})",
    'await page.type("input[name={field}]", {q}{v}{q})',
    'cy.get("input[name={field}]").type({q}{v}{q})',
    "driver.find_element(By.ID, \"{field}\").send_keys({q}{v}{q})",
    "await page.getByLabel('{field}').fill({q}{v}{q})",
    "child.expect('{prompt}')\nchild.sendline({q}{v}{q})",
    "p.expect(r'[Pp]assword')\np.sendline({q}{v}{q})",
    "await term.waitFor('{prompt}'); await term.type({q}{v}{q})",
    "pexpect.run('ssh h', events={{'{prompt}': {q}{v}\\n{q}}})",
)
NAMED = (
    'Dim {name} As String = "{v}"',
    'const {upper}: [u8; 16] = *b"{v}";',
    'static {upper}: &[u8] = b"{v}";',
    '{name} <- "{v}"',
    '{name} :: "{v}"',
    "app.config['{upper}'] = '{v}'",
    'password: ${{{upper}:-{v}}}',
    'docker run -e PGPASSWORD=${{{upper}:-{v}}} postgres',
    'const pw = process.env.{upper} || "{v}";',
    "pw = os.getenv('{upper}') or '{v}'",
    '<%= ENV["{upper}"] || "{v}" %>',
    '{{{{ .Values.{name} | default "{v}" }}}}',
    "{{{{ {name} | default('{v}') }}}}",
)
SECRET_NAMES = ("password", "db_password", "apiSecret", "auth_token", "dbPassword", "secret_key")


@st.composite
def code(draw: st.DrawFn) -> Case:
    v = _value(draw)
    q = draw(st.sampled_from(["'", '"']))
    kind = draw(st.sampled_from(["call", "field", "named"]))
    if kind == "call":
        template = draw(st.sampled_from(CALLS))
    elif kind == "field":
        template = draw(st.sampled_from(FIELDS))
    else:
        template = draw(st.sampled_from(NAMED))
    name = draw(st.sampled_from(SECRET_NAMES))
    upper = "".join("_" + c if c.isupper() else c for c in name).upper().strip("_")
    text = template.format(
        q=q, dq='"', v=v, name=name, upper=upper,
        field=draw(st.sampled_from(["Password", "password", "user_password", "pw", "passwd"])),
        prompt=draw(st.sampled_from(["Password:", "password: ", "Enter PIN", "Passphrase"])))
    return draw(st.sampled_from(["", "    ", "> "])) + text, [v]


# -- commands and prompts ------------------------------------------------------------------------

COMMANDS = (
    "impacket-psexec CORP/admin:{v}@10.0.0.1",
    "impacket-secretsdump corp.local/{user}:{v}@dc01",
    "wmiexec.py {user}:{v}@10.0.0.5 whoami",
    'psexec.py "CORP/{user}:{v}"@h',
    'restic -r s3:bucket --password-command "echo {v}" backup .',
    "borg list --passcommand 'printf {v}'",
    "rsync --password-file=<(echo {v}) a h::m",
    "plink -ssh {user}@h -pw {v}",
    "pscp -pw {v} f {user}@h:",
    "CREATE USER {user} IDENTIFIED BY {v};",
    "GRANT ALL ON *.* TO '{user}'@'%' IDENTIFIED BY '{v}';",
    "ALTER USER {user} IDENTIFIED BY {v}",
    "iwconfig wlan0 key s:{v}",
    "x11vnc -storepasswd {v} ~/.vnc/passwd",
    "az storage blob upload --account-key {v} -f f -c c",
    "az storage share list --account-key={v}",
    "gem push x.gem --key {v}",
    "kerbrute passwordspray -d corp.local users.txt {v}",
    "mongodump -u {user} -p {v} -d db",
    "smbmap -H h -u {user} -p {v}",
    "mycli -u root -p{v}",
    "trino --user {user} --password <<< {v}",
    'echo "{v}" | openconnect --passwd-on-stdin vpn.corp.io',
    "echo {v} | docker secret create db_pw -",
    "Enter passphrase for key '/home/{user}/.ssh/id_ed25519': {v}",
    "Enter PIN for 'PIV card': {v}",
    "Enter PEM pass phrase:{v}",
    'Enter new password for user "{user}": {v}',
)


@st.composite
def command(draw: st.DrawFn) -> Case:
    v = _value(draw)
    user = draw(st.sampled_from(["bob", "admin", "svc_backup", "u"]))
    text = draw(st.sampled_from(COMMANDS)).format(v=v, user=user)
    return draw(st.sampled_from(["", "$ ", "sudo "])) * (not text.startswith("Enter")) + text, [v]


# -- prose ---------------------------------------------------------------------------------------

BEFORE = ("{v} is my password", "set {v} as my password", "use {v} as the password",
          "`{v}` is the new token", "{v} was the old password, rotate it",
          "ok, {v} is the root password.", "the token's {v}")
MISTYPED = ("passwrd", "pasword", "pword", "passw0rd", "P@ssword", "p@ssw0rd", "paswoord",
            "passowrd", "pswd", "pass phrase", "pass code", "Pass Word", "PASSWRD")
SEPARATORS = (": ", ":", " = ", "∶", "﹕", "꞉", "\u3000", "：")
PIN = ("PIN code is {v}", "PIN-Code: {v}", "PIN: {v}", "the PIN is {v}.")


@st.composite
def prose(draw: st.DrawFn) -> Case:
    v = _value(draw)
    kind = draw(st.sampled_from(["before", "mistyped", "separator", "pin"]))
    if kind == "before":
        text = draw(st.sampled_from(BEFORE)).format(v=v)
    elif kind == "mistyped":
        text = draw(st.sampled_from(MISTYPED)) + draw(st.sampled_from([": ", " is ", "="])) + v
    elif kind == "separator":
        text = draw(st.sampled_from(["password", "Password", "db_password"])) + draw(
            st.sampled_from(SEPARATORS)) + v
    else:
        text = draw(st.sampled_from(PIN)).format(v=v)
    return draw(st.sampled_from(["", "fyi: ", "Note — "])) + text + draw(
        st.sampled_from(["", "\n", " thanks"])), [v]


CLASSES = {"code": code(), "command": command(), "prose": prose()}


@settings(max_examples=examples(300, 3000), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_hides_each_value_whole(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(40, 400), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_each_value_is_in_no_note_or_state(case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


# -- what is left -------------------------------------------------------------------------------

LOOK_ALIKES = (
    # code of the same shapes: a field that is no password's, a variable where
    # the literal was, a word typed
    'cy.get("#search").type("hello")', "await page.fill('#email', 'bob@example.com')",
    'fill_in "Email", with: "bob@example.com"', 'fill_in "Password", with: password',
    "hash_hmac('sha256', $data, $key)", "openssl_encrypt($d, $method, $key, 0, $iv)",
    'crypto.createCipheriv("aes-256-cbc", key, iv)', 'for (char c : "aeiou".toCharArray())',
    "token.SignedString([]byte(secret))", "mac.init(new SecretKeySpec(key, \"HmacSHA256\"))",
    "child.sendline('yes')", "server.login('bob@corp.io', password)", "client.login(token)",
    "password <- readline(); password :: String", "password: ${DB_PASSWORD:-}",
    "${API_TOKEN:-$DEFAULT_TOKEN} ${DB_PASSWORD:?unset}", 'process.env.DB_PASS || ""',
    '{{ .Values.password | default "" }}', "base64.b64encode(b'hello world')",
    # commands
    "iwconfig wlan0 key off", "gem push x.gem --key rubygems_api",
    "x11vnc -storepasswd ~/.vnc/passwd", "redis-cli -p 6379 ping",
    "impacket-psexec -k -no-pass CORP/admin@dc", "CREATE USER u IDENTIFIED BY :pw;",
    "ALTER USER u IDENTIFIED BY VALUES 'x';", "CREATE USER bob IDENTIFIED EXTERNALLY;",
    'restic --password-command "pass show restic" backup .',
    "kerbrute passwordspray -d corp.local users.txt --user-as-pass",
    # prose and placeholders
    "this is my password", "which is the token?", "$GITHUB_TOKEN is the token",
    "PIN: required", "pin 13 is the LED", "password=TODO", "credentials: include",
    "example: `mysql -u root -pPASSWORD`", "use the --token flag to pass your token",
    "pass the --api-key option", "Password: (none)", "JWT_SECRET=change-me-in-production",
    "password={password}", "PASSWORD=$(cat /run/secrets/pw)",
    'export PASSWORD="$(pass show db)"', "Enter passphrase for key '/home/bob/.ssh/id_ed25519':",
)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), DEFAULT.redact(text)
