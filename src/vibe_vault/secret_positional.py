"""Secrets given by their place rather than by a name beside them: a
library call whose Nth argument is a password or a key
(`pymysql.connect('db', 'root', '…', 'app')`, `server.login('bob', '…')`,
`tweepy.OAuthHandler('…', '…')`), a command whose Nth bare word or an
unusual flag is one (`cargo login …`, `mc alias set NAME URL ACCESS …`,
`jenkins-cli -auth bob:…`, `xfreerdp /p:…`, `swaks --auth-password …`), and a
database address with no scheme (`root:…@tcp(db:3306)/app`,
`jdbc:oracle:thin:scott/…@db`).

Data, as secret_rules is: each rule is (id, triggers, pattern, samples,
look-alike), turned into `secret_rules.Rule`s there. Only a literal is ever
a value: a call's argument in quotes (a variable, `os.environ[…]`, an
f-string is code), a command's word that is no `$VAR` or `${{ … }}`. The
value's group says how it is judged (`judged`, called by redact with its
judge of a table's cell): `vk…` a key's (no word, number, name in code or
run of under 8 characters, unless it is `user:password`), else any value but
a placeholder or a variable (and in a command, a path, an option, a file).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# The markers' kinds.
CALL, COMMAND, ADDRESS, PAIR = "call-secret", "cli-secret", "dsn-password", "key-value-secret"
KINDS = frozenset({CALL, COMMAND, ADDRESS, PAIR})

RuleData = tuple[str, tuple[str, ...], str, tuple[str, ...], str]


class _Names:
    """Fresh value groups of one judge for one pattern (vp1, vp2…)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, judge: str) -> str:
        self.n += 1
        return f"{judge}{self.n}"


# --- 1. Calls whose Nth argument is a secret ---------------------------------------------

# An argument before the secret: a literal, a number, a name (`$conn`, `self.host`,
# `Context.X`, `&cfg`), a call without arguments, an object literal on one line.
_ARG = (r"(?:(?:[rbu]{0,2}'[^'\n]*'|[rbu]{0,2}\"[^\"\n]*\")(?:\.\w{1,20}\(\))?"
        r"|[\w$.&*:\[\]\->]+(?:\(\))?"
        r"|\{[^{}\n]{0,200}\})")  # (or an object's literal: `jwt.sign({ id: u.id }, …)`)


# What ends a literal: its quote, then a `,` or `)` (or Java's
# `.toCharArray()`, `.encode()`), or a statement's or a line's end (Ruby's
# `fill_in "Password", with: "…"`); or the text's end, where a text was cut
# (a subagent's description, a title), an ellipsis after it or not.
_ENDS = (r"(?:{q}(?=\s*(?:[,)]|\.(?:tochararray|encode|getbytes|to_owned|to_string|into"
         r"|as_bytes)\()|[ \t]*(?:;|\r?\n|\Z))|…?\Z)")


# What may wrap a literal (twice at most) to make bytes of it: Go's
# `[]byte("…")`, C#'s `Encoding.UTF8.GetBytes("…")`, Node's `Buffer.from("…")`,
# Rust's `*b"…"`
# (its `)` then ends the argument, as a literal's quote does).
_WRAP = (r"(?:\[\]byte\(\s*|buffer\.from\(\s*|(?:encoding\.\w{1,20}\.)?getbytes\(\s*"
         # (vendor) Python's `bytes("…", "utf-8")`, a key made base64 of a
         # literal (`Fernet(base64.urlsafe_b64encode(b"…"))`)
         r"|bytes\(\s*|(?:base64\.)?(?:urlsafe_|standard_)?b64(?:en|de)code\(\s*"
         r"|\*(?=b[\"'])){0,2}")


def _literal(names: _Names, judge: str) -> str:
    """A quoted literal argument (Python's b'' and r'' too, and a literal
    made bytes, `_WRAP`) that ends an argument, or the text."""
    return (_WRAP + rf"(?:[rbu]{{0,2}}'(?P<{names(judge)}>[^'\n…]{{1,200}})" + _ENDS.format(q="'")
            + rf"|[rbu]{{0,2}}\"(?P<{names(judge)}>[^\"\n…]{{1,200}})" + _ENDS.format(q='"')
            + ")")


# Callee (as written before its `(`, lower case; a dotted name holds its
# module) -> the places of its arguments that are secrets, and how a value
# there is judged ("vl" a password's literal, "vk" a key's). Python, PHP, JS,
# Go, Java, C#, Ruby; a method's name matches after any object (`.login(`).
CALLS: tuple[tuple[str, tuple[int, ...], str], ...] = (
    # Python DB-API and mail, FTP, LDAP clients
    ("pymysql.connect mysqldb.connect pymssql.connect _mssql.connect mysql.connect", (2,), "vl"),
    ("cx_oracle.connect oracledb.connect ibm_db.connect", (1,), "vl"),
    ("ftplib.ftp ftp ftp_tls ftplib.ftp_tls net::ftp.new net::ftp.open", (2,), "vl"),
    ("login", (1,), "vl"),  # smtplib, imaplib, ftplib; Java's FTPClient, Ruby's Net::IMAP
    ("pass_", (0,), "vl"),  # poplib
    ("simple_bind_s simple_bind bind_s sasl_non_interactive_bind_s", (1,), "vl"),
    ("ldap3.connection", (2,), "vl"),
    ("redis.redis redis.strictredis strictredis", (3,), "vl"),  # Redis(host, port, db, password)
    ("pika.plaincredentials plaincredentials", (1,), "vl"),
    ("pysftp.connection", (2,), "vl"),
    ("smbconnection", (1,), "vl"),  # pysmb: SMBConnection(user, password, me, server)
    # OAuth 1 (Tweepy, requests-oauthlib, Go's oauth1): every one of them a secret
    ("oauthhandler tweepy.oauthhandler oauth1userhandler tweepy.oauth1userhandler oauth1 "
     "oauth1session", (0, 1, 2, 3), "vk"),
    ("set_access_token oauth1.newconfig oauth1.newtoken", (0, 1), "vk"),
    ("hvac.client", (1,), "vk"),
    # A password given to be set, checked or hashed
    ("set_password setpassword check_password make_password generate_password_hash "
     "crypt.crypt bcrypt.hashpw bcrypt.hash bcrypt.hashsync password_hash "
     "password_verify bcrypt::password.create ssh.password", (0,), "vl"),
    ("check_password_hash", (1,), "vl"),
    # PHP
    ("mysqli_connect mysqli mysql_connect mysql_pconnect mssql_connect pdo", (2,), "vl"),
    ("mysqli_real_connect ftp_login ldap_bind ssh2_auth_password imap_open", (2,), "vl"),
    ("oci_connect oci_pconnect oci_new_connect", (1,), "vl"),
    # JS
    ("sequelize", (2,), "vl"),
    # Go
    ("smtp.plainauth", (2,), "vl"),
    ("smtp.crammd5auth setbasicauth basic_auth", (1,), "vl"),
    ("credentials.newstaticv4 credentials.newstaticcredentials", (1, 2), "vk"),
    # Java, C#, Ruby
    ("drivermanager.getconnection", (2,), "vl"),
    ("passwordauthentication usernamepasswordcredentials networkcredential "
     "basicawscredentials awsbasiccredentials.create", (1,), "vl"),
    # A call whose name says it logs in, authenticates or makes a credential,
    # its password after the user (MailKit, lettre, JavaMail's static send,
    # the Mongo shell and Java driver, gomail, Ruby's Net::SMTP and PG,
    # python-jenkins)
    ("authenticate credentials::new changeuserpassword", (1,), "vl"),
    ("jenkins.jenkins transport.send createcredential mongocredential.createcredential "
     "createscramsha1credential createscramsha256credential createplaincredential", (2,), "vl"),
    ("newdialer gomail.newdialer mail.newdialer", (3,), "vl"),
    ("net::smtp.start", (4,), "vl"),
    ("pg.connect pg::connection.new pg::connection.open", (6,), "vl"),
    # A key that signs or encrypts, given as a literal (HMAC, JWT, Fernet);
    # a client's token or secret key by its place (MinIO, python-gitlab)
    ("hmac.new fernet", (0,), "vl"),
    ("createhmac crypto.createhmac jwt.sign jwt.encode", (1,), "vl"),
    # (attack 25) A key or a password given to a cipher, a MAC, a KDF or a
    # signer: Go's jwt and x/crypto, Java's JCA and jjwt and auth0's JWT,
    # .NET's, Node's crypto and CryptoJS, PHP's openssl and hash, Python's
    # cryptography, PyNaCl and hashlib, SQLCipher, the MySQL C API. (Go's
    # hmac.New(hash, key): its key second, judged as a key's, Python's
    # hmac.new(key, msg) having its message there.)
    ("signedstring generatefrompassword bcrypt.generatefrompassword aes.newcipher des.newcipher "
     "secretkeyspec hmacshakeyfor keys.hmacshakeyfor algorithm.hmac256 algorithm.hmac384 "
     "algorithm.hmac512 symmetricsecuritykey jwtsigner jose.jwtsigner secretbox "
     "nacl.secret.secretbox algorithms.aes aesgcm aesccm chacha20poly1305 aes.new "
     "pbkdf2sync crypto.pbkdf2sync crypto.pbkdf2 scryptsync crypto.scryptsync crypto.scrypt "
     "argon2.hash cookieparser scrypt", (0,), "vl"),
    ("decrypt encrypt", (0,), "vk"),  # (a PDF's, a document's password: `reader.decrypt("…")`)
    ("createcipheriv createdecipheriv crypto.createcipheriv crypto.createdecipheriv "
     "cryptojs.hmacsha256 cryptojs.hmacsha512 cryptojs.hmacsha1 cryptojs.hmacmd5 "
     "cryptojs.aes.encrypt cryptojs.aes.decrypt cryptojs.tripledes.encrypt "
     "cryptojs.tripledes.decrypt mcrypt_encrypt mcrypt_decrypt pbkdf2_hmac hashlib.pbkdf2_hmac "
     "sqlite3_key sqlite3_rekey openssl_pkey_get_private", (1,), "vl"),
    ("hmac.new", (1,), "vk"),
    # (vendor, attack 25's leftovers) more ciphers, MACs and signers given
    # their key first: Python's cryptography (AES-SIV, OCB3, ChaCha20 and
    # the others of `algorithms`, its HMAC) and PyCryptodome (`X.new(key,
    # …)`), PyNaCl's Aead, itsdangerous, Rails' message verifier and
    # encryptor, Plug's, Go's chacha20poly1305, .NET's HMACs, Ruby's
    # OpenSSL::HMAC.new. Those whose name may be anything's (`Signer`,
    # `PrivateKey`, `from_slice`) judged as a key's: a word there is left.
    # (Judged "vp" and "vkc", as "vl" and "vk" are, but their own rules: a
    # rule's callees are each looked back for at every `(` of a text its
    # words are in, and these have words of their own.)
    ("aessiv aesocb3 aessiv.new aesgcmsiv chacha20.new chacha20_poly1305.new salsa20.new "
     "xchacha20.new des3.new des.new blowfish.new arc4.new cast.new rc2.new "
     "algorithms.chacha20 algorithms.tripledes algorithms.camellia algorithms.blowfish "
     "algorithms.cast5 algorithms.sm4 algorithms.idea algorithms.seed hmac.hmac "
     "nacl.secret.aead urlsafetimedserializer urlsafeserializer timedserializer "
     "timestampsigner jsonwebsignatureserializer messageverifier.new messageencryptor.new "
     "plug.crypto.sign plug.crypto.encrypt plug.crypto.verify plug.crypto.decrypt "
     "chacha20poly1305.new chacha20poly1305.newx hmacsha1 hmacsha256 hmacsha384 hmacsha512 "
     "hmacmd5 openssl::hmac.new", (0,), "vp"),
    ("signer signingkey privatekey from_private_bytes new_from_slice from_slice hmac",
     (0,), "vkc"),
    # Phoenix's tokens (`Phoenix.Token.sign(conn, "salt", data)`) and Plug's
    # verifier: the salt or the secret second; judged as a key's ("user
    # auth", the salt of Phoenix's guides, is left).
    ("phoenix.token.sign phoenix.token.verify phoenix.token.encrypt phoenix.token.decrypt "
     "messageverifier.sign messageverifier.verify messageencryptor.encrypt "
     "messageencryptor.decrypt", (1,), "vk"),
    ("openssl::hmac.hexdigest openssl::hmac.digest openssl::hmac.base64digest crypto.hmac "
     "jwt.decode", (1,), "vl"),
    ("crypto.mac", (2,), "vl"),
    ("openssl_encrypt openssl_decrypt hash_hmac", (2,), "vl"),
    ("mysql_real_connect", (3,), "vl"),
    # Firebase's sign-in (the modular API gives `auth` first: an e-mail
    # there is judged as a key is, and left)
    ("signinwithemailandpassword createuserwithemailandpassword", (1,), "vk"),
    ("signinwithemailandpassword createuserwithemailandpassword", (2,), "vl"),
    # Base64 of `user:password` or of a key (the value of a Basic header)
    ("b64encode base64.b64encode encode64 base64.encode64 strict_encode64 "
     "base64.strict_encode64 btoa tobase64string convert.tobase64string", (0,), "vk"),
    ("gitlab.gitlab", (1,), "vk"),
    ("minio", (2,), "vk"),
)


# Ciphers, MACs and signers whose key may be given by its keyword.
_KEYWORD_CALLEES = (
    "hmac.new hmac.hmac hmac fernet multifernet aesgcm aesccm aessiv aesocb3 aesgcmsiv "
    "chacha20poly1305 secretbox nacl.secret.secretbox nacl.secret.aead aes.new des3.new des.new "
    "blowfish.new arc4.new cast.new chacha20.new chacha20_poly1305.new xchacha20.new salsa20.new "
    "algorithms.aes algorithms.chacha20 algorithms.tripledes jwt.encode jwt.decode "
    "urlsafetimedserializer urlsafeserializer timedserializer timestampsigner signer "
    "signing.dumps signing.loads signingkey privatekey")


def _callee(names: str) -> str:
    """Lookbehinds (each of fixed width) for a `(` right after one of the
    names, not inside a longer name: the pattern begins with its `(`, a
    literal the engine skips ahead to."""
    # (not a template's filter, `{{ pw | password_hash('sha512') }}`: its
    # arguments come after the value piped to it)
    return "(?:" + "|".join(
        rf"(?<![a-z0-9_]{re.escape(n)}\()(?<={re.escape(n)}\()(?<!\|{re.escape(n)}\()"
        rf"(?<!\| {re.escape(n)}\()" for n in names.split()) + ")"


def _field_rules() -> tuple[RuleData, ...]:
    """What a test types into a field named for a password (Capybara's
    fill_in, Playwright's and Puppeteer's fill/type, Cypress' type,
    Selenium's send_keys, jQuery's val, a terminal driver's type after its
    prompt): any literal but a placeholder."""
    word = r"(?:password|passwd|passphrase|passcode|pwd|pw|pin|secret|token)(?![a-z])"
    words = ("password", "passwd", "passphrase", "passcode", "pwd", "pw", "pin", "secret",
             "token")
    first, then = _Names(), _Names()
    return (
        # the field first, the value after it in the call (`fill(sel, value)`)
        (CALL, ("fill_in", "fill(", "type(", "setvalue(", "sendkeys("),
         r"(?i)(?<!\w)(?:fill_in|fill|type|setvalue|sendkeys)(?:\(\s*|[ \t]+)[:\"']"
         r"[^\"'\n,]{0,60}?(?<![a-z])" + word + r"[^\"'\n,]{0,60}[\"']?\s*,\s*"
         # (a quoted literal whole, whatever follows it: Ruby's call has no brackets)
         r"(?:with:\s*|:with\s*=>\s*)?" + _WRAP + r"[rbu]{0,2}(?:'(?P<" + first("vl")
         + r">[^'\n…]{1,200})'|\"(?P<" + first("vl") + r">[^\"\n…]{1,200})\")",
         ('fill_in "Password", with: "⟦«a16»⟧"', "await page.fill('#password', '⟦«a16»⟧')",
          'await page.type("#password", "⟦«a16»⟧")', "fill_in :user_password, with: '⟦«a16»⟧'"),
         'fill_in "Email", with: "bob@example.com"; fill_in "Password", with: password; '
         'page.fill("#password", "")'),
        # the field named in a selector, then typed into (`get(sel).type(value)`)
        (CALL, words,
         r"(?i)(?<![a-z])" + word + r"[^\"'\n]{0,60}[\"']\s*\]?\s*\)"
         r"(?:\s*;?\s*(?:await\s+)?[\w$.]{0,40}?)?\s*\.\s*"
         r"(?:type|fill|send_?keys|setvalue|val|presssequentially)\(\s*" + _literal(then, "vl"),
         ('cy.get("input[name=password]").type("⟦«a16»⟧")',
          "driver.find_element(By.ID, \"pw\").send_keys(\"⟦«a16»⟧\")",
          "await page.getByLabel('Password').fill('⟦«a16»⟧')",
          "await term.waitFor('Password:'); await term.type('⟦«a16»⟧')"),
         'cy.get("#search").type("hello"); cy.get("#password").type(password)'),
    )


# What a test types into a field, or a script into a prompt, with no
# password's name in sight (Selenium, Cypress, Playwright, pexpect, jQuery),
# and a token as a client's one argument (discord.js' `client.login(…)`, a
# Redis client's `auth(…)`): the call's one argument, judged as a key's
# (`.type("hello")`, `login('bob')` are left; `page.type("#user", "bob")` has a
# selector first, no value alone).
_TYPING = "sendkeys send_keys type fill val sendline login auth"


def _typing_rule() -> RuleData:
    names = _Names()
    return (CALL, tuple(f"{c}(" for c in _TYPING.split()),
            r"(?i)\(" + _callee(_TYPING) + r"\s*[rbu]{0,2}(?:'(?P<" + names("vk")
            + r">[^'\n…]{1,200})'|\"(?P<" + names("vk") + r">[^\"\n…]{1,200})\")\s*\)",
            ('element.sendKeys("⟦«a16»⟧");', "child.sendline('⟦«a16»⟧')",
             "client.login('⟦«a24»⟧')", 'red:auth("⟦«a16»⟧")'),
            'cy.get("#q").type("hello world"); child.sendline("yes"); page.type("#user", "bob")')


# Words a callee's trigger is one of when it holds it: most are the gate's
# triggers already, and each new one is a search of every text (see
# redact._word_tree), so callees share them.
_CALL_WORDS = ("pass", "login", "auth", "mysql", "token", "credential", "ldap", "conn", "ftp",
               "crypt", "redis", "bind_s", "simple_bind", "hmac", "jwt", "dialer")


def _trigger(callee: str) -> str:
    return next((w for w in _CALL_WORDS if w in callee), callee + "(")


def _call_rules() -> tuple[RuleData, ...]:
    rules: list[RuleData] = list(_field_rules())
    by_place: dict[tuple[int, str], list[str]] = {}
    for callee_names, places, judge in CALLS:
        for place in places:
            by_place.setdefault((place, judge), []).extend(callee_names.split())
    for (place, judge), callees in sorted(by_place.items()):
        names = _Names()
        pattern = (r"(?i)\(" + _callee(" ".join(callees)) + r"\s*(?:" + _ARG + r"\s*,\s*)"
                   + f"{{{place}}}" + _literal(names, judge))
        rules.append((CALL, tuple(sorted({_trigger(c) for c in callees})), pattern, (), ""))
    # (vendor, attack 25's leftovers) A cipher's, a MAC's or a signer's key
    # given by its keyword (`ChaCha20Poly1305(key=b"…")`, `hmac.new(key=…)`,
    # `AES.new(key=b"…", mode=…)`, `jwt.encode(payload, key=b"…")`).
    names = _Names()
    rules.append((CALL, tuple(sorted({_trigger(c) for c in _KEYWORD_CALLEES.split()})),
                  r"(?i)\(" + _callee(_KEYWORD_CALLEES) + r"(?:\s*(?:\w{1,30}\s*=\s*)?" + _ARG
                  + r"\s*,){0,6}?\s*(?:key|secret_key|secret|signing_key|password|passphrase"
                  r"|private_key)\s*=\s*" + _literal(names, "vl"),
                  ('ChaCha20Poly1305(key=b"⟦«a16»⟧")', "hmac.new(key=b'⟦«a16»⟧', msg=body)",
                   'AES.new(key=b"⟦«a16»⟧", mode=AES.MODE_EAX)',
                   'jwt.encode(payload, key="⟦«a16»⟧", algorithm="HS256")'),
                  "AESGCM(key=key); hmac.new(key=secret, msg=b'hello'); sorted(xs, key=len)"))
    # A bytes literal given as any call's `key=`: judged as a key's.
    names = _Names()
    rules.append((CALL, ("key=b", "key = b", "key=rb", "key=br"),
                  r"(?i)\bkey\s*=\s*(?=[rb]{1,2}[\"'])" + _literal(names, "vk"),
                  ('box = SecretBox(key=b"⟦«a24»⟧")', "make_cipher(key=b'⟦«a16»⟧')"),
                  "cache.get(key=b'user:1'); st.text_input('Password', key='pw_input')"))
    # Any other `connect(host, user, password…)` (a port after the host:
    # `connect(host, 22, user, password)`, paramiko and javax.mail's); not
    # Oracle's and DB2's (user, password, dsn: above), nor Ruby PG's (its
    # password seventh: above).
    names = _Names()
    rules.append((CALL, ("conn",),
                  r"(?i)\((?<=connect\()(?<![a-z0-9_]connect\()(?<!oracle\.connect\()(?<!oracledb\.connect\()"
                  r"(?<!ibm_db\.connect\()(?<!pg\.connect\()\s*" + _ARG
                  + r"\s*,\s*(?:(?!\d+\s*,)" + _ARG
                  + r"|\d+\s*,\s*" + _ARG + r")\s*,\s*" + _literal(names, "vl"),
                  ("conn = pymysql.connect('db.example.io', 'root', '⟦«a16»⟧', 'app')",
                   "ssh.connect('10.0.0.5', 22, 'deploy', '⟦«a14»⟧')",
                   "$conn = mysqli_connect('db', 'root', '⟦«a16»⟧', 'app');",
                   "transport.connect(\"smtp.example.com\", \"bob\", \"⟦«a12»⟧\");"),
                  "conn = pymysql.connect(host, user, password, db); "
                  "s.connect(('example.com', 80)); mysqli_connect($h, $u, getenv('DB_PASS'))"))
    # Twilio: Client('AC…', token), TwilioRestClient('AC…', token).
    names = _Names()
    rules.append((CALL, ("client(",),
                  r"(?i)\((?<=client\()\s*[\"']ac[0-9a-f]{32}[\"']\s*,\s*"
                  + _literal(names, "vk"),
                  ("client = Client('AC«h32»', '⟦«h32»⟧')",
                   "const client = new Client(\"AC«h32»\", \"⟦«h32»⟧\");"),
                  "client = Client(account_sid, auth_token); Client('AC' + sid, token)"))
    # Any LDAP client's bind(dn, password): a distinguished name first (Go's
    # ldap `l.Bind`, Java's, .NET's).
    names = _Names()
    rules.append((CALL, ("bind(",),
                  r"(?i)\((?<=bind\()\s*[\"'](?:cn|uid|ou|dc|o|mail|samaccountname)=[^\"'\n]{0,200}"
                  r"[\"']\s*,\s*" + _literal(names, "vl"),
                  ('err = l.Bind("cn=admin,dc=example,dc=io", "⟦«a16»⟧")',),
                  'l.Bind("cn=admin,dc=example,dc=io", password); fn.bind(this, "x")'))
    # A literal made a Java char[] as an argument after the first (a key
    # store's, a credential's password: `ks.load(in, "…".toCharArray())`).
    names = _Names()
    rules.append((CALL, ("tochararray",),
                  r"(?i),\s*\"(?P<" + names("vl") + r">[^\"\n…]{1,200})\"\.tochararray\(\)",
                  ('ks.load(new FileInputStream("k.jks"), "⟦«a16»⟧".toCharArray());',),
                  'ks.load(in, password.toCharArray()); for (char c : "aeiou".toCharArray())'))
    # Any literal made a Java char[] (`"…".toCharArray()`): judged as a key's
    # (`"aeiou".toCharArray()` is left).
    names = _Names()
    rules.append((CALL, ("tochararray",),
                  r"(?i)\"(?P<" + names("vk") + r">[^\"\n…]{1,200})\"\.tochararray\(\)",
                  ('char[] pw = "⟦«a16»⟧".toCharArray();',),
                  'for (char c : "aeiou".toCharArray()); "HelloWorld".toCharArray()'))
    # libcurl's user and password (`CURLOPT_USERPWD, "u:…"`), its key's password.
    names = _Names()
    rules.append((CALL, ("curlopt_",),
                  r"(?i)curlopt_(?:userpwd|password|proxyuserpwd|proxypassword|keypasswd"
                  r"|sslkeypasswd|xoauth2_bearer|tlsauth_password)\s*,\s*" + _literal(names, "vk"),
                  ('curl_easy_setopt(c, CURLOPT_USERPWD, "bob:⟦«a16»⟧");',
                   "curl_setopt($ch, CURLOPT_PASSWORD, '⟦«a16»⟧');"),
                  'curl_easy_setopt(c, CURLOPT_USERPWD, userpwd); '
                  'curl_setopt($ch, CURLOPT_URL, "https://example.com/api")'))
    # pexpect.run's events: {'password:': '…\n'}
    names = _Names()
    rules.append((CALL, ("events",),
                  r"(?i)events\s*=\s*\{[^{}\n]{0,200}?[\"'][^\"'\n]{0,40}"
                  r"(?:password|passphrase|passwort|pass code|pass phrase|\bpin\b)"
                  r"[^\"'\n]{0,40}[\"']\s*:\s*[rbu]{0,2}(?:'(?P<" + names("vl")
                  + r">[^'\n\\…]{1,200})(?:\\[rn])*'|\"(?P<" + names("vl")
                  + r">[^\"\n\\…]{1,200})(?:\\[rn])*\")",
                  ("pexpect.run('ssh h', events={'password:': '⟦«a16»⟧\\n'})",),
                  "pexpect.run('ssh h', events={'password:': pw})"))
    # What a script types after a password's prompt (pexpect's sendline,
    # telnetlib's write) within 300 characters after `expect('Password:')`
    # (or a pattern for one, `r'[Pp]assword'`, or a PIN's prompt).
    names = _Names()
    # (it begins with its `(`, the call's name looked back for: the engine
    # skips ahead to a literal)
    rules.append((CALL, ("read_until", "sendline", "expect(", "expect_exact(", "waitfor(",
                         "wait_for("),
                  r"(?i)\((?:(?<=expect\()|(?<=expect_exact\()|(?<=read_until\()|(?<=waitfor\()"
                  r"|(?<=wait_for\())\s*[rbu]{0,2}[\"']"
                  r"[^\"'\n]{0,40}(?:(?:\[pP]{1,2}\]|p|\b)ass"
                  r"(?:word|phrase|wort|[ ]?code|[ ]phrase)"
                  r"|\bpin\b)[^\"'\n]{0,40}[\"']"
                  r"[\s\S]{0,300}?\.(?:sendline|send|write|type|fill)\(\s*"
                  + r"[rbu]{0,2}(?:'(?P<" + names("vl") + r">[^'\n\\…]{1,200})(?:\\[rn])*'"
                  r"|\"(?P<" + names("vl") + r">[^\"\n\\…]{1,200})(?:\\[rn])*\")",
                  ("child.expect('Password:')\nchild.sendline('⟦«a16»⟧')",
                   'tn.read_until(b"Password: ")\ntn.write(b"⟦«a16»⟧\\n")'),
                  "child.expect('Password:')\nchild.sendline(password)"))
    rules.append(_typing_rule())
    samples = {
        "login(": ("server.login('bob@example.com', '⟦«a16»⟧')",
                   'imap.login("me@example.org", "⟦«a12»⟧")'),
        "ftp(": ("ftp = FTP('ftp.example.io', 'bob', '⟦«a16»⟧')",),
        "simple_bind_s(": ("conn.simple_bind_s('cn=admin,dc=example,dc=io', '⟦«a16»⟧')",),
        "oauthhandler(": ("auth = tweepy.OAuthHandler('⟦«a25»⟧', 'x«a49»')",
                          "auth = tweepy.OAuthHandler('x«a24»', '⟦«a50»⟧')"),
        "smtp.plainauth(": ('auth := smtp.PlainAuth("", "bob@example.com", "⟦«a16»⟧", '
                            '"smtp.x.io")',),
        "set_password(": ("user.set_password('⟦«a14»⟧')",),
        "pdo(": ("$db = new PDO('mysql:host=db;dbname=app', 'root', '⟦«a14»⟧');",),
        "passwordauthentication(": ('new PasswordAuthentication("bob", "⟦«a14»⟧".toCharArray())',),
    }
    look_alikes = {
        "login(": "server.login(user, password); client.login(email, os.environ['PW']); "
                  "login('bob', 'password')",
        "oauthhandler(": "auth = tweepy.OAuthHandler(consumer_key, consumer_secret)",
        "set_password(": "user.set_password(form.cleaned_data['password'])",
    }
    out: list[RuleData] = []
    for rid, triggers, pattern, ss, la in rules:
        for t in triggers:  # (each sample with the first rule of its trigger)
            ss = ss + samples.pop(t, ())
            la = la or look_alikes.pop(t, "")
        out.append((rid, triggers, pattern, ss, la))
    return tuple(out)


# --- 2. Commands whose Nth word or a given flag is a secret ---------------------------------

# A shell word skipped before the secret (quoted, or bare).
_WORD = r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"|;&<>]+)"
# Options before it, each with or without a value (`--registry corp`).
_OPTIONS = r"(?:\s+--?[\w\-.]+(?:[ =](?!-)" + _WORD + r")?)*?"
# Where a command begins: the text's or a line's start, or after a prompt, a
# `;`, `&&`, `|`, `(`, `:`, a backtick or a quote (and `sudo`). For a command
# whose name is a word prose may hold before any word (`mkpasswd`, `nmcli`):
# in "then mkpasswd qkyedcoer" its words are no command's.
_CMD = r"(?<![^\n;&|(`'\"$>{:])[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?"
# What is left of the command's line after its name.
_REST = r"[^\n|;&]{0,400}?\s"


def _value(names: _Names, judge: str, bare: str = r"[^\s'\"|;&<>()`\\…]+") -> str:
    """A shell word that is the secret: '…', "…" or bare, not a `$VAR`, an
    option or a `name=value` argument (`username=bob`)."""
    return (rf"(?:'(?P<{names(judge)}>[^'\n…]+)(?:'|…?\Z)"
            rf"|\"(?P<{names(judge)}>(?!\$)[^\"\n…]+)(?:\"|…?\Z)"
            rf"|(?P<{names(judge)}>(?![$-])(?![A-Za-z_]+=[^\s=]){bare}))")


def _after(names: _Names, judge: str, sep: str) -> str:
    """The part after `sep` of a `user<sep>secret` word."""
    return (rf"(?:'[^\s'{sep}]{{1,256}}{sep}(?P<{names(judge)}>[^'\n]+)'"
            rf"|\"[^\s\"{sep}]{{1,256}}{sep}(?P<{names(judge)}>(?!\$)[^\"\n]+)\""
            rf"|[^\s'\"{sep}]{{1,256}}{sep}(?P<{names(judge)}>(?!\$)[^\s'\"|;&<>()`\\]+))")


def _command_rules() -> tuple[RuleData, ...]:
    """(triggers, pattern builder, samples, look-alike): the pattern of each
    from a fresh set of value groups."""
    table: tuple[tuple[tuple[str, ...], Callable[[_Names], str], tuple[str, ...], str], ...] = (
        # MinIO: mc alias set NAME URL ACCESS SECRET (old: config host add); admin user add.
        (("mc ",),
         lambda n: r"\bmc(?:\.exe)?\s+(?:alias\s+set|config\s+host\s+add)" + _OPTIONS
         + r"(?:\s+" + _WORD + r"){3}" + _OPTIONS + r"\s+" + _value(n, "vp")
         + r"|\bmc(?:\.exe)?\s+admin\s+user\s+add" + _OPTIONS + r"(?:\s+" + _WORD + r"){2}"
         + r"\s+" + _value(n, "vp"),
         ("mc alias set myminio https://minio.example.io minioadmin ⟦«a40»⟧",
          "mc config host add s3 https://s3.example.com AKIA«u16» '⟦«a40»⟧' --api S3v4",
          "mc admin user add myminio alice ⟦«a16»⟧"),
         "mc alias set myminio https://minio.example.io $ACCESS $SECRET; mc alias list"),
        # A token as the one bare word: cargo login, ngrok authtoken, snyk auth,
        # vault login, wandb login.
        (("cargo login", "authtoken", "snyk auth", "vault login", "wandb login"),
         lambda n: r"\b(?:cargo\s+login|ngrok\s+(?:config\s+add-)?authtoken|snyk\s+auth"
         r"|vault\s+login|wandb\s+login)" + _OPTIONS + r"\s+" + _value(n, "vk"),
         ("cargo login ⟦«a32»⟧", "cargo login --registry corp ⟦«a32»⟧",
          "ngrok config add-authtoken ⟦«a40»⟧", "snyk auth ⟦«l36»⟧",
          "wandb login ⟦«h40»⟧"),
         "cargo login; cargo login --registry corp; vault login -method=userpass username=bob"),
        # rclone obscure PASSWORD (what it prints goes in rclone.conf).
        (("rclone obscure",),
         lambda n: r"\brclone\s+obscure" + _OPTIONS + r"\s+" + _value(n, "vp"),
         ("rclone obscure ⟦«a16»⟧", "rclone obscure '⟦«a12»⟧'"),
         "rclone obscure -; rclone obscure --help"),
        # Bitwarden: bw unlock PASSWORD, bw login EMAIL PASSWORD.
        (("unlock", "bw login"),
         lambda n: r"\bbw\s+(?:unlock|login(?:\s+(?!-)" + _WORD + r"))" + _OPTIONS + r"\s+"
         + _value(n, "vp"),
         ("bw unlock ⟦«a16»⟧", "bw login bob@example.com '⟦«a16»⟧'"),
         "bw unlock --check; bw login --apikey"),
        # poetry / composer: http-basic.NAME USER PASSWORD; a repository's token.
        (("http-basic.",),
         lambda n: r"\b(?:poetry|composer)\s+config\b" + _OPTIONS + r"\s+http-basic\.\S+\s+"
         + _WORD + r"\s+" + _value(n, "vp"),
         ("poetry config http-basic.corp bob ⟦«a16»⟧",
          "composer config --global http-basic.repo.example.com bob \"⟦«a16»⟧\""),
         "poetry config http-basic.corp bob; poetry config --unset http-basic.corp"),
        (("pypi-token.", "github-oauth.", "gitlab-oauth.", "gitlab-token.", "bearer."),
         lambda n: r"\b(?:poetry|composer)\s+config\b" + _OPTIONS
         + r"\s+(?:pypi-token|github-oauth|gitlab-oauth|gitlab-token|bearer)\.\S+\s+"
         + _value(n, "vk"),
         ("poetry config pypi-token.corp ⟦«a40»⟧",
          "composer config -g github-oauth.github.com ⟦«h40»⟧"),
         "composer config --unset github-oauth.github.com"),
        # bundle config [set] [--global] HOST USER:PASSWORD
        (("config",),  # (the trigger of `git config`, `config set`: no new search)
         lambda n: r"bundle\s+config(?:\s+set)?" + _OPTIONS + r"\s+(?!-)\S+\s+"
         + _after(n, "vp", ":"),
         ("bundle config set --global rubygems.pkg.github.com bob:⟦«a40»⟧",),
         "bundle config set --local path vendor/bundle"),
        # Wi-Fi: wpa_passphrase SSID PASSPHRASE; nmcli … password X; wpa_cli psk.
        (("wpa_passphrase",),
         lambda n: r"\bwpa_passphrase\s+" + _WORD + r"\s+" + _value(n, "vp"),
         ("wpa_passphrase CorpWiFi ⟦«a16»⟧", "wpa_passphrase \"Home Net\" '⟦«a12»⟧'"),
         "wpa_passphrase CorpWiFi < pass.txt; wpa_passphrase CorpWiFi"),
        (("nmcli",),
         lambda n: _CMD + r"nmcli\b" + _REST
         + r"(?:password|802-1x\.password|(?:vpn|pppoe|gsm|cdma)\.password"
         r"|wifi-sec\.(?:psk|wep-key\d|leap-password))\s+" + _value(n, "vp"),
         # (no samples: the table's are hidden anywhere, this only where a
         # command begins; tests/test_secret_positional.py draws it there)
         (),
         "nmcli dev wifi connect CorpWiFi --ask; nmcli dev wifi list"),
        (("set_network",),
         lambda n: r"set_network\s+\d+\s+(?:psk|password)\s+(?:'\"|\")?"
         + _value(n, "vp", r"[^\s'\"|;&<>()`\\]+"),
         ("wpa_cli set_network 0 psk '\"⟦«a16»⟧\"'",), "wpa_cli set_network 0 ssid '\"home\"'"),
        # Hashing a password on the command line: htpasswd -n, openssl passwd, mkpasswd.
        (("htpasswd", "mosquitto_passwd"),
         lambda n: r"\bhtpasswd\b(?=[^\n|;&]{0,400}\s-[a-zA-Z]*n)(?=[^\n|;&]{0,400}\s-[a-zA-Z]*b)"
         r"(?:\s+-[a-zA-Z]+)*\s+(?!-)" + _WORD + r"\s+" + _value(n, "vp")
         + r"|\bmosquitto_passwd\b(?=[^\n|;&]{0,400}\s-b)(?:\s+-[a-zA-Z]+)*\s+(?!-)" + _WORD
         + r"\s+(?!-)" + _WORD + r"\s+" + _value(n, "vp"),
         ("htpasswd -nb admin ⟦«a16»⟧", "htpasswd -nbB admin '⟦«a16»⟧'",
          "mosquitto_passwd -b passwd bob ⟦«a14»⟧"),
         "htpasswd -n admin; htpasswd -c .htpasswd admin"),
        (("openssl passwd", "mkpasswd", "slappasswd"),
         lambda n: r"\bopenssl\s+passwd\b"
         r"(?:\s+-(?!stdin\b|in\b)(?:salt\s+\S+|(?!salt\b)[\w\-]+))*\s+"
         + _value(n, "vp")
         + r"|" + _CMD + r"mkpasswd\b"
         r"(?:\s+(?:-[mSRP]\s*|--(?:method|salt|rounds|password-fd)[ =])\S+"
         r"|\s+-(?![mSRP]\b)[a-zA-Z]\b)*\s+" + _value(n, "vp")
         + r"|\bslappasswd\b" + _REST + r"-s\s+" + _value(n, "vp"),
         ("openssl passwd -6 ⟦«a16»⟧", "openssl passwd -1 -salt xyz '⟦«a16»⟧'",
          "slappasswd -s ⟦«a14»⟧"),
         "openssl passwd -6 -stdin < pw.txt; openssl passwd -help"),
        # A literal piped to base64 (not to be decoded): a key or `user:password`.
        (("base64",),
         lambda n: r"\b(?:echo|printf)(?:\s+-[neE]+)*(?:\s+'%s')?\s+" + _value(n, "vk")
         + r"\s*\|\s*(?:base64|openssl\s+(?:base64|enc\s+-base64)|basenc\b)"
         r"(?![^\n|;&]{0,400}\s(?:-d|--decode|-D|-d\w*)\b)",
         ("echo -n '⟦«a16»⟧' | base64", "printf '%s' \"⟦bob:«a14»⟧\" | base64 -w0"),
         "echo -n 'hello world' | base64; echo $TOKEN | base64; echo 'aGVsbG8=' | base64 -d"),
        # macOS keychain: add-*-password -w X; unlock-keychain / create-keychain -p X.
        (("-password", "unlock"),
         lambda n: r"\bsecurity\s+(?:add-(?:generic|internet)-password" + _REST + r"-w"
         r"|unlock-keychain" + _REST + r"-p|set-keychain-password" + _REST + r"-[op])"
         r"\s+" + _value(n, "vp"),
         ("security add-generic-password -a bob -s corp-api -w ⟦«a16»⟧",
          "security unlock-keychain -p '⟦«a14»⟧' login.keychain"),
         "security find-generic-password -a bob -s corp-api -w"),
        # FTP and remote desktop clients: lftp -u user,pw; rdesktop/psexec/ncftp -p pw;
        # xfreerdp /p:pw; net use … /user:DOM\\u pw; twine/doveadm -p; Windows /password:.
        (("ftp",),
         lambda n: r"\b(?:lftp|open)\b" + _REST + r"-u\s+" + _after(n, "vp", ","),
         ("lftp -u bob,⟦«a16»⟧ sftp://files.example.io",
          "lftp -e 'open -u bob,⟦«a16»⟧ ftp.example.io; mirror'"),
         "lftp -u bob sftp://files.example.io"),
        (("-p ",),
         lambda n: r"\b(?:rdesktop|psexec(?:64)?(?:\.exe)?|ncftp\w*|twine\s+upload"
         r"|doveadm\s+pw)\b" + _REST + r"-p\s+" + _value(n, "vp"),
         ("rdesktop -u Administrator -p ⟦«a16»⟧ 10.0.0.9",
          "psexec \\\\srv -u CORP\\bob -p ⟦«a16»⟧ cmd", "twine upload -u bob -p ⟦«a16»⟧ dist/*"),
         "rdesktop -u Administrator -p - 10.0.0.9; psexec \\\\srv cmd"),
        (("/p:",),
         lambda n: r"\b\w*freerdp\d?\b" + _REST + r"['\"]?[/+](?:p|password|gp|gateway-password):"
         + _value(n, "vp"),
         ("xfreerdp /v:10.0.0.9 /u:Administrator /p:⟦«a16»⟧",
          "xfreerdp /u:bob '/p:⟦«a14»⟧' /v:host"),
         "xfreerdp /v:10.0.0.9 /u:Administrator /cert:ignore"),
        (("/password:", "/pass:", "/pwd:"),
         lambda n: r"(?<=\s)/(?i:password|pass|pwd):" + _value(n, "vp"),
         ("wmic /node:srv /user:bob /password:⟦«a14»⟧ os get caption",
          "cmdkey /add:srv /user:bob /pass:⟦«a14»⟧"), "cmdkey /list; cmdkey /delete:srv"),
        (("net use",),
         lambda n: r"\bnet\s+use\b" + _REST + r"/u(?:ser)?:\S+\s+(?![/*])" + _value(n, "vp"),
         ("net use \\\\fs\\share /user:CORP\\bob ⟦«a16»⟧",
          "net use Z: \\\\fs\\share /user:bob '⟦«a12»⟧' /persistent:no"),
         "net use \\\\fs\\share /user:CORP\\bob /persistent:no; net use Z: /delete"),
        # -auth user:token (Jenkins' CLI); -token=X (Consul, Nomad).
        (("-auth",),
         lambda n: r"(?<=\s)-auth[ =](?!@)" + _after(n, "vl", ":"),
         ("java -jar jenkins-cli.jar -s https://ci.example.io -auth bob:⟦«h34»⟧ build job",),
         "java -jar jenkins-cli.jar -auth @creds.txt build job"),
        (("-token", "-secret", "-apikey", "-api-key"),
         lambda n: r"(?<=\s)-(?:token|secret|apikey|api-key|auth-token)[ =]" + _value(n, "vl"),
         ("consul acl policy list -token=⟦«l8»-«l4»-«l4»-«l4»-«l12»⟧",
          "nomad job run -token ⟦«a36»⟧ job.hcl"), "go test -run Token -token-file ~/t"),
        # A long option named for a secret after a word (`--auth-password`,
        # `--ftp-password`, `--github-token`, `--db-pass`), and `--auth X`.
        (("password", "passwd", "-pass", "-pwd", "passphrase", "-secret", "-token", "-apikey",
          "-api-key", "requirepass", "masterauth"),
         # (it begins with its literal `--`: the engine skips ahead to it)
         lambda n: r"(?i)--(?<![\w\-]--)(?:(?!no-|ask-|prompt-|require-|skip-|show-|print-"
         r"|generate-|random-|read-|reset-|change-|new-line)(?:[a-z0-9]+[\-_])+"
         r"(?:password|passwd|pass|pwd|passphrase)[ =]" + _value(n, "vp")
         + r"|(?!no-)(?:[a-z0-9]+[\-_])+(?:secret|token|api[\-_]?key|apikey)[ =]"
         + _value(n, "vl")
         + r"|(?:requirepass|masterauth)[ =]" + _value(n, "vp") + ")",
         ("swaks --to a@b.c --server smtp.example.io --auth-user bob --auth-password ⟦«a16»⟧",
          "wget --ftp-password=⟦«a14»⟧ ftp://x/f", "travis login --github-token ⟦«a40»⟧",
          "redis-server --requirepass ⟦«a20»⟧"),
         "docker login --password-stdin; psql --no-password; ssh --ask-password; "
         "--token-file ~/t --auth-password $PW"),
        (("--auth",),
         lambda n: r"--(?<![\w\-]--)auth[ =](?:" + _after(n, "vp", ":") + "|"
         + _value(n, "vk") + ")",
         ("netlify deploy --prod --auth ⟦«a24»⟧",), "mongod --auth --port 27017"),
        # Redis' config: requirepass / masterauth X, sentinel auth-pass NAME X; CONFIG SET.
        (("requirepass", "masterauth", "auth-pass"),
         # (not a word the sentence goes on after: `requirepass must be set …`)
         lambda n: r"(?i)(?<![\w\-])(?:requirepass|masterauth|sentinel\s+auth-pass\s+\S+)"
         r"[ \t]+(?![a-z]+[ \t]+[a-z])" + _value(n, "vp"),
         ("bind 0.0.0.0\nrequirepass ⟦«a20»⟧\n", "masterauth ⟦«a20»⟧",
          "redis-cli CONFIG SET requirepass '⟦«a16»⟧'", "sentinel auth-pass mymaster ⟦«a16»⟧"),
         "# requirepass foobared\nrequirepass $REDIS_PASSWORD\n"
         "requirepass must be set in redis.conf for production"),
        # An askpass script that echoes the password.
        (("askpass",),
         lambda n: r"#!\s*/\S*sh(?:\\n|\r?\n)[ \t]*(?:exec\s+)?(?:echo|printf)(?:\s+-[neE]+)*"
         r"\s+" + _value(n, "vl", r"[^\s'\"|;&<>()`\\]+"),
         ("printf '#!/bin/sh\\necho ⟦«a16»⟧\\n' > /tmp/askpass && GIT_ASKPASS=/tmp/askpass "
          "git push", "cat > askpass.sh <<EOF\n#!/bin/sh\necho '⟦«a16»⟧'\nEOF"),
         "printf '#!/bin/sh\\necho \"$GIT_PASSWORD\"\\n' > /tmp/askpass"),
    )
    rules: list[RuleData] = []
    for triggers, build, samples, look_alike in table + _MORE_COMMANDS:
        rules.append((COMMAND, triggers, build(_Names()), samples, look_alike))
    for tools, flags, judge, samples, look_alike in TOOL_FLAGS:
        # (each tool's name; snmp's tools by their common head, rar's with its space:
        # `library` holds "rar")
        triggers = ("snmp",) if tools.startswith("snmp") else ("rar ", "unrar", "winrar") \
            if tools.startswith("rar") else tuple(t.lower() for t in tools.split())
        rules.append((COMMAND, triggers, _tool_flag(tools, flags, judge), samples, look_alike))
        if tools.startswith("snmp"):
            rules.append((COMMAND, triggers, _tool_flag(tools, flags, judge, second=True),
                          ("snmpget -v3 -u m -A «a16» -X ⟦«a16»⟧ 10.0.0.1 sysName.0",), ""))
    return tuple(rules)


# A flag that is a password's or a key's for one tool (attack 24): (tools,
# flags, judge, samples, look-alike). The flags are the tool's own, case
# kept (ipmitool's and mosquitto's -P is the password, -p the port); a flag
# ending in no space or `=` takes its value glued (`rar a -pX`).
TOOL_FLAGS: tuple[tuple[str, str, str, tuple[str, ...], str], ...] = (
    ("ipmitool", "-P+", "vp", ("ipmitool -I lanplus -H 10.0.0.50 -U ADMIN -P ⟦«a16»⟧ power status",
                              "ipmitool -H bmc -U root -P\"⟦«a16»⟧\" power on"),
     "ipmitool -I lanplus -H 10.0.0.50 -U ADMIN -P \"$IPMI_PW\" power status; ipmitool -E"),
    ("racadm", "-p", "vp", ("racadm -r 10.0.0.51 -u root -p ⟦«a16»⟧ getsysinfo",),
     "racadm -r 10.0.0.51 -u root getsysinfo"),
    ("cqlsh", "-p --password", "vp", ("cqlsh cass.corp.io -u cassandra -p ⟦«a16»⟧",),
     "cqlsh cass.corp.io 9042 -u cassandra"),
    ("mosquitto_pub mosquitto_sub mosquitto_rr", "-P --pw", "vp",
     ("mosquitto_pub -h mqtt.corp.io -u bob -P ⟦«a16»⟧ -t sensors/1 -m 42",),
     "mosquitto_sub -h mqtt.corp.io -p 8883 -t sensors/#"),
    ("vsce ovsx", "-p --pat", "vk", ("vsce publish -p ⟦«a52»⟧",), "vsce publish -p $VSCE_PAT"),
    ("altool notarytool", "-p --password", "vp",
     ("xcrun altool --upload-app -f app.ipa -u bob@corp.io -p ⟦«L4»-«L4»-«L4»-«L4»⟧",),
     "xcrun altool --upload-app -f app.ipa -u bob@corp.io -p @keychain:AC_PASSWORD"),
    ("doctl", "-t --access-token", "vk", ("doctl auth init -t ⟦«h64»⟧",),
     "doctl auth init --context work"),
    ("nuget", "-k -ApiKey --api-key", "vk",
     ("dotnet nuget push app.1.0.0.nupkg -k ⟦«a46»⟧ -s https://api.nuget.org/v3/index.json",),
     "dotnet nuget push app.1.0.0.nupkg -k $NUGET_KEY -s nuget.org"),
    ("choco", "-k --key --api-key --apikey", "vk",
     ("choco apikey -k ⟦«h8»-«h4»-«h4»-«h4»-«h12»⟧ -s https://push.chocolatey.org/",),
     "choco apikey -k $env:CHOCO_KEY -s https://push.chocolatey.org/"),
    # (snmp's `-c public` / `private`: the default communities, no secret)
    ("snmpwalk snmpget snmpset snmpbulkwalk snmpbulkget snmpgetnext snmptable snmptrap "
     "snmpdelta snmpstatus", "-c -A -X", "vp",
     ("snmpwalk -v2c -c ⟦«a16»⟧ 10.0.0.1 system",
      "snmpwalk -v3 -l authPriv -u monitor -a SHA -A ⟦«a16»⟧ -x AES 10.0.0.1"),
     "snmpwalk -v2c -c public 10.0.0.1 system; snmpget -v2c -c private 10.0.0.1 sysName.0"),
    ("schtasks", "/rp /RP", "vp",
     ("schtasks /create /tn Backup /tr backup.bat /sc daily /ru CORP\\svc /rp ⟦«a16»⟧",),
     "schtasks /create /tn Backup /tr backup.bat /sc daily /ru SYSTEM"),
    ("keyvault", "--value", "vp",
     ("az keyvault secret set --vault-name corp-kv --name db-password --value ⟦«a16»⟧",),
     "az keyvault secret set --vault-name corp-kv --name db-password --file pw.txt"),
    ("rar unrar winrar", "-p -hp", "vp", ("rar a -p⟦«a16»⟧ backup.rar data/",
                                          "rar a -hp⟦«a16»⟧ out.rar dir"),
     "rar a -p backup.rar data/; unrar x -p- a.rar"),
    # (attack 25) a flag ending in `+` takes its value glued or spaced, one in
    # `:` glued (`winrs -p:X`)
    ("isql osql bcp", "-P+", "vp",
     ("isql -U sa -P ⟦«a16»⟧", "bcp t out f -S h -U sa -P⟦«a16»⟧"),
     "isql -U sa -S db; bcp t out f -T -S h"),
    ("hydra medusa nxc netexec crackmapexec cme evil-winrm", "-p --password", "vp",
     ("hydra -l admin -p ⟦«a16»⟧ ssh://h", "nxc smb h -u a -p ⟦«a16»⟧",
      "evil-winrm -i h -u a -p ⟦«a16»⟧", "medusa -u a -p ⟦«a16»⟧ -h h -M ssh"),
     "hydra -l admin -P rockyou.txt ssh://h; evil-winrm -i h -u a -H aad3b435b51404eeaad3b435b"),
    ("winrs", "-p: /p: -password: /password:", "vp", ("winrs -r:h -u:a -p:⟦«a16»⟧ cmd",),
     "winrs -r:h -u:a cmd"),
    ("ssh-keygen", "-N", "vp", ("ssh-keygen -t ed25519 -N ⟦«a16»⟧ -f key",
                                "ssh-keygen -p -f k -N '⟦«a16»⟧'"),
     "ssh-keygen -t ed25519 -N '' -f key"),
    ("codecov", "-t --token", "vk", ("codecov -t ⟦«h8»-«h4»-«h4»-«h4»-«h12»⟧",),
     "codecov -t $CODECOV_TOKEN"),
    ("certutil", "-p", "vp", ("certutil -f -p ⟦«a16»⟧ -importpfx cert.pfx",),
     "certutil -f -importpfx cert.pfx"),
    ("osslsigncode", "-pass", "vp",
     ("osslsigncode sign -pkcs12 c.pfx -pass ⟦«a16»⟧ -in a.exe -out b.exe",),
     "osslsigncode sign -pkcs12 c.pfx -readpass pw.txt -in a.exe"),
    ("pdftk", "input_pw owner_pw user_pw", "vp", ("pdftk in.pdf input_pw ⟦«a16»⟧ output out.pdf",),
     "pdftk in.pdf cat 1-3 output out.pdf"),
    # (attack 25, rounds 1, 2 and 16) PuTTY's tools; databases' and brokers'
    # clients whose -p is the password; pentest tools; Windows' signtool.
    ("plink pscp psftp putty kitty", "-pw", "vp",
     ("plink -ssh bob@h -pw ⟦«a16»⟧", "pscp -pw ⟦«a16»⟧ f bob@h:"), "plink -ssh bob@h -i key.ppk"),
    ("mongoexport mongoimport mongodump mongorestore mongostat mongotop mongofiles "
     "cypher-shell couchbase-cli cbq rabbitmqadmin smbmap enum4linux enum4linux-ng snowsql "
     "influx", "-p --password", "vp",
     ("mongodump -u u -p ⟦«a16»⟧ -d db", "cypher-shell -u neo4j -p ⟦«a16»⟧",
      "influx setup -u admin -p ⟦«a16»⟧ -o o -b b -f",
      "smbmap -H h -u u -p ⟦«a16»⟧"), "mongodump -u u -d db; influx setup --force"),
    ("tsql", "-P", "vp", ("tsql -S h -U sa -P ⟦«a16»⟧",), "tsql -S h -U sa"),
    ("signtool", "/p -p", "vp", ("signtool sign /f c.pfx /p ⟦«a16»⟧ app.exe",),
     "signtool sign /a /fd SHA256 app.exe"),
    ("x11vnc", "-storepasswd -passwd -viewpasswd", "vp",
     ("x11vnc -storepasswd ⟦«a16»⟧ ~/.vnc/passwd", "x11vnc -display :0 -passwd ⟦«a16»⟧"),
     "x11vnc -storepasswd ~/.vnc/passwd; x11vnc -rfbauth ~/.vnc/passwd"),
    # (a WEP key: hex or `s:` and its text; `key off`, `key open` are none)
    ("iwconfig", "key", "vk", ("iwconfig wlan0 key s:⟦«a13»⟧", "iwconfig wlan0 key ⟦«h26»⟧"),
     "iwconfig wlan0 key off; iwconfig wlan0 key open"),
    ("security", "-P", "vp", ("security import k.p12 -k login.keychain -P ⟦«a16»⟧",),
     "security import k.p12 -k login.keychain"),
    ("ldappasswd", "-s", "vp", ("ldappasswd -x -D cn=a -w o -s ⟦«a16»⟧ uid=u",),
     "ldappasswd -x -D cn=a -W -S uid=u"),
    ("nuget", "-p --password", "vp", ("dotnet nuget add source url -u u -p ⟦«a16»⟧",),
     "dotnet nuget add source url -n corp"),
    ("gem", "--key", "vk", ("gem push x.gem --key ⟦«a16»⟧",), "gem push x.gem --key rubygems_api"),
    ("kerbrute", "-p --password", "vp", ("kerbrute passwordspray -d corp -p ⟦«a16»⟧ users.txt",),
     "kerbrute userenum -d corp users.txt"),
)

_NOT_DEFAULT = r"(?!(?:public|private)(?![^\s'\"|;&<>]))"


def _tool_flag(tools: str, flags: str, judge: str, second: bool = False) -> str:
    """A tool's name, then on its line one of its flags and the value."""
    names = _Names()
    tool = "|".join(re.escape(t) for t in tools.split())
    glued = [f for f in flags.split() if not f.startswith("--") and len(f) <= 3
             and tools.split()[0] in ("rar", "unrar", "winrar")]
    glued += [f.rstrip("+") for f in flags.split() if f.endswith(("+", ":"))]
    spaced = [f.rstrip("+") for f in flags.split() if f not in glued and not f.endswith(":")]

    def flag() -> str:
        parts = []
        if spaced:
            parts.append(r"(?:" + "|".join(re.escape(f) for f in spaced) + r")(?:[ \t]+|=)"
                         + _NOT_DEFAULT + _value(names, judge))
        if glued:
            parts.append(r"(?:" + "|".join(re.escape(f) for f in glued) + r")"
                         + _value(names, judge))
        return r"[^\n|;&]{0,400}?(?<=\s)(?:" + "|".join(parts) + ")"

    start = r"\b(?:" + tool + r")(?:\.exe)?\b"
    if not second:
        return start + flag()
    # (a match hides one value: this one the second of two flags' on the line,
    # snmp's -X privacy pass phrase after its -A auth one)
    first = flag()
    return start + re.sub(r"\(\?P<v\w*>", "(?:", first) + flag()


# Commands that read a password on stdin (a here-string or a pipe into one
# gives it a literal).
_READS_A_PASSWORD = (
    r"\bsudo\s+(?:-\w+\s+)*-\w*S\b|--with-token\b|--password-stdin\b|--passphrase-fd[ =]?0\b"
    r"|--token-stdin\b|--stdin\b|\b(?:sudo\s+)?(?:chpasswd|passwd|vncpasswd|smbpasswd|kinit"
    r"|cryptsetup|adduser|htpasswd)\b|\bsecrets?\s+(?:put|set|create)\b|\bop\s+signin\b"
    r"|\bbw\s+(?:unlock|login)\b|\bvault\s+login\b"
    # (attack 25) more that read one: here-strings and pipes into them
    r"|\bkeepassxc-cli\b|\bcreateuser\b[^\n|;&]{0,400}?\s-\w*P|\b(?:tiger)?vncpasswd\b"
    r"|\bvncserver\b|password_stdin\b|--passwd-on-stdin\b|\bnpm\s+(?:login|adduser)\b"
    r"|\bdatabricks\s+configure\b|\bterraform\s+login\b|\bgem\s+signin\b"
    r"|\bsu\b(?:\s+-\w*){0,4}(?:\s+\w+)?\s+-c\b|\btrino\b[^\n|;&]{0,400}?--password\b"
    # (vendor, attack 25's leftovers) a secret store's or a cipher's input
    # read on stdin: age, openssl's `-pass stdin`, sshpass, pass and gopass,
    # secret-tool, keyring, a value `-` or `/dev/stdin`, a platform's
    # secret command, MySQL's login paths, ssh-add, a password's hasher
    r"|\bage[ \t]+--?(?:d|decrypt|p|passphrase|i|identity)\b|-pass(?:in|out)?[ \t]+stdin\b"
    r"|\bsshpass\b|\b(?:go)?pass[ \t]+(?:insert|add|edit)\b"
    r"|\bsecret-tool[ \t]+store\b|\bkeyring[ \t]+set\b|\b\w+=-(?![^\s|;&])|/dev/stdin\b"
    r"|\bsecrets?:set\b|\benv[ \t]+add\b|\bmysql_config_editor\b|\bssh-add\b|\bmkpasswd\b"
    r"|\bopenssl[ \t]+passwd\b|\bsecret[ \t]+(?:put|set|create)\b")

# A shell comment's words before a secret's name (`# the new password`), and
# the name; a value that holds a digit.
_COMMENT_WORDS = (r"(?:[\w'\-]{1,30}[ \t]+){0,3}?(?:passwords?|passwd|passphrase|pass|pwd|pw"
                  r"|tokens?|secrets?|keys?|api[ _\-]?key|pin|credentials?)")
_HAS_A_DIGIT = r"(?=['\"]?[^\s'\"]*\d)"
# Words of a command that makes or resets a secret (which it prints).
_MAKERS = ("reset", "rotate", "genkey", "gen-key", "initial-password", "create-access-key",
           "create-for-rbac", "create-key", "new-password", "regenerate")

# More commands (attack 24): a secret as a bare word after a subcommand, a
# database tool's user/password@db, a secret written to a file named for one,
# a here-string or a pipe into a command that reads a password on stdin, a
# literal given to a template's password filter.
_MORE_COMMANDS: tuple[tuple[tuple[str, ...], Callable[[_Names], str], tuple[str, ...], str],
                      ...] = (
    (("encrypt_string",),
     # (its options that take a value named: `--stdin-name NAME` reads the secret on stdin)
     lambda n: r"\bansible-vault\s+encrypt_string(?:\s+(?:--(?:name|vault-id|encrypt-vault-id"
     r"|vault-password-file|vault-pass-file|output|stdin-name)|-n)[ =]" + _WORD
     + r"|\s+--?(?!-)(?!(?:name|vault-id|encrypt-vault-id|vault-password-file"
     r"|vault-pass-file|output|stdin-name|n)\b)[\w\-]+)*?\s+" + _value(n, "vp"),
     ("ansible-vault encrypt_string '⟦«a16»⟧' --name db_password",
      "ansible-vault encrypt_string --vault-id prod@prompt ⟦«a16»⟧ --name x"),
     "ansible-vault encrypt_string --stdin-name db_password; ansible-vault encrypt_string"),
    (("env:set",),
     lambda n: r"\bnetlify\s+env:set" + _OPTIONS + r"\s+(?!-)" + _WORD + r"\s+"
     + _value(n, "vk"),
     ("netlify env:set STRIPE_SECRET ⟦«a32»⟧",), "netlify env:set NODE_VERSION 20"),
    (("setapikey",),
     lambda n: r"\bnuget(?:\.exe)?\s+setapikey\s+" + _value(n, "vk"),
     ("nuget setapikey ⟦«a46»⟧ -Source https://api.nuget.org/v3/index.json",),
     "nuget setapikey $NUGET_KEY -Source nuget.org"),
    (("pulumi config",),
     # (its options named: `--secret` takes no value, the name and the value after)
     lambda n: r"\bpulumi[ \t]+config[ \t]+set"
     r"(?=(?:'[^'\n]*'|\"[^\"\n]*\"|[^\n;&|'\"]){0,400}?\s--secret\b)"
     r"(?:[ \t]+--?(?:secret|plaintext|path)\b|[ \t]+(?:-s|--stack|-C|--cwd|--config-file)"
     r"[ =]\S+)*[ \t]+(?!-)" + _WORD + r"[ \t]+" + _value(n, "vp"),
     ("pulumi config set --secret dbPassword ⟦«a16»⟧",
      "pulumi config set dbPassword ⟦«a16»⟧ --secret"),
     "pulumi config set aws:region eu-west-1; pulumi config set --secret dbPassword < pw.txt"),
    (("setuser",),
     lambda n: r"(?i)\bacl\s+setuser\s+\S+[^\n|;&]{0,400}?(?<=\s)>"
     + _value(n, "vp"),
     ("redis-cli ACL SETUSER app on >⟦«a16»⟧ ~* +@all",),
     "redis-cli ACL SETUSER app on #«h64» ~* +@all; ACL SETUSER app off"),
    # Oracle's tools: user/password@db (or userid=user/password).
    (("expdp", "impdp", "sqlldr", "rman ", "dgmgrl", "userid=", "exp ", "imp "),
     lambda n: r"(?i)\b(?:expdp|impdp|sqlldr|rman|dgmgrl|exp|imp)\b[^\n|;&]{0,400}?"
     r"(?<=[\s=])(?:userid=|target\s+|auxiliary\s+|catalog\s+)?[\w$#]{1,30}/"
     + _value(n, "vp", r"[^\s'\"|;&<>()`\\@/…]+") + r"(?=@|\s|\Z)",
     ("expdp system/⟦«a16»⟧@ORCL schemas=APP directory=DP dumpfile=app.dmp",
      "sqlldr userid=scott/⟦«a14»⟧ control=load.ctl", "rman target sys/⟦«a14»⟧@prod"),
     "expdp schemas=APP directory=DP dumpfile=app/dump.dmp; rman target /"),
    # (attack 25) impacket's scripts: [domain/]user:password@host.
    (("impacket", "exec.py", "secretsdump", "gettgt", "getst.py", "getuserspns", "getnpusers",
      "lookupsid", "mssqlclient", "addcomputer", "changepasswd", "smbclient.py"),
     # (the script's name read at most 40 long: `impacket-impacket-…` ran to its end)
     lambda n: r"(?i)\b(?:impacket-[\w\-]{1,40}+|(?:psexec|smbexec|wmiexec|atexec|dcomexec"
     r"|secretsdump|gettgt|getst|getuserspns|getnpusers|lookupsid|mssqlclient|smbclient|addcomputer"
     r"|changepasswd|getadusers|finddelegation|rbcd|dacledit)\.py)\b[^\n|;&]{0,400}?"
     r"(?<=\s)[\"']?(?:[\w.\-]{1,64}/)?[\w.\-$]{1,64}:(?P<" + n("vp")
     + r">[^\s'\"@]{1,200}?)[\"']?(?=@|\s|\Z)",
     ("impacket-psexec CORP/admin:⟦«a16»⟧@10.0.0.1", "wmiexec.py bob:⟦«a16»⟧@h",
      'psexec.py "CORP/u:⟦«a16»⟧"@h', "getTGT.py corp.local/u:⟦«a16»⟧"),
     "impacket-psexec -k -no-pass CORP/admin@dc; secretsdump.py -just-dc-ntlm corp/admin@dc"),
    # A backup tool's password command that echoes a literal (`--password-command
    # "echo X"`), or a password file that is one (`--password-file=<(echo X)`).
    (("password-command", "passcommand", "<(echo", "<(printf", "passcommand="),
     lambda n: r"(?i)(?:--(?:password-command|passcommand|pass-command)[ =]|passcommand=)"
     r"[\"']?[ \t]*(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+'%s(?:\\n)?')?[ \t]+"
     + _value(n, "vp") + r"|--(?:password-file|passwd-file|passfile|auth-user-pass)[ =]<\("
     r"[ \t]*(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+" + _value(n, "vp"),
     ('restic -r r --password-command "echo ⟦«a16»⟧" backup .',
      'borg list --passcommand "printf ⟦«a16»⟧"',
      "rsync --password-file=<(echo ⟦«a16»⟧) a h::m"),
     'restic --password-command "pass show restic" backup .; '
     'borg list --passcommand "echo $BORG_PW"'),
    # RabbitMQ: authenticate_user NAME PASSWORD; kerbrute passwordspray USERS PASSWORD.
    (("authenticate_user",),
     lambda n: r"\brabbitmqctl\b" + _REST + r"authenticate_user\s+" + _WORD + r"\s+"
     + _value(n, "vp"),
     ("rabbitmqctl authenticate_user bob ⟦«a16»⟧",), "rabbitmqctl authenticate_user bob"),
    (("kerbrute",),
     # (`--user-as-pass`: each user's name its password, none given)
     lambda n: r"\bkerbrute\s+passwordspray(?![^\n|;&]{0,400}--user-as-pass)" + _OPTIONS
     + r"\s+(?!-)" + _WORD + r"\s+"
     + _value(n, "vp"),
     ("kerbrute passwordspray -d corp.local users.txt ⟦«a16»⟧",),
     "kerbrute passwordspray -d corp.local users.txt --user-as-pass"),
    # A literal written to a file named for a secret (`echo X > ~/.vault-token`).
    (("echo ", "printf "),
     lambda n: r"\b(?:echo|printf)(?:\s+-[neE]+)*(?:\s+'%s(?:\\n)?')?\s+"
     + _value(n, "vp") + r"[ \t]*>>?[ \t]*['\"]?[^\s'\"|;&<>]{0,200}?"
     # (the file's name ends with the secret's: not `token_refresh.log`)
     r"(?i:token|passw(?:or)?d|secrets?|pgpass|credentials?|api[_\-]?key|pwd)s?(?:\.txt)?"
     r"['\"]?(?=\s|\Z|[;&|])",
     ("echo \"⟦«a24»⟧\" > ~/.vault-token", "printf '%s' ⟦«a16»⟧ > /run/secrets/db_password"),
     "echo \"$VAULT_TOKEN\" > ~/.vault-token; echo done > token_refresh.log"),
    # (vendor, attack 25's leftovers) Samba's tools and those made after
    # them take `[DOMAIN\\]user%password` to -U / --user (wbinfo's -a too).
    (("smb", "rpcclient", "net ", "samba-tool", "wbinfo", "winexe", "ldb", "regshell",
      "sharesec", "dcerpc", "polenum"),
     lambda n: r"\b(?:smb[\w.\-]{0,20}|rpcclient|net|samba-tool|wbinfo|winexe|pth-[\w\-]{1,20}"
     r"|ldb\w{1,10}|regshell|sharesec|dcerpc\w{0,20}|polenum)(?:\.exe)?\b[^\n|;&]{0,400}?(?<=\s)"
     r"(?:-U|--user(?:name)?|-a|--authenticate)(?:[ \t]+|=|(?=[^\s=]))" + _after(n, "vp", "%"),
     ('rpcclient -U "bob%⟦«a16»⟧" 10.0.0.5', "net ads join -U admin%⟦«a16»⟧",
      "smbget -U 'CORP\\bob%⟦«a16»⟧' smb://h/s/f", "wbinfo -a bob%⟦«a16»⟧",
      "samba-tool user list -U admin%⟦«a16»⟧ -H ldap://dc", "smbcacls //h/s f -Ubob%⟦«a16»⟧"),
     "rpcclient -U bob h; net ads join -U admin; smbclient -U %USERNAME% //h/s -N"),
    # smbclient's password by its place: the word after the service
    # (`smbclient //host/share PASSWORD`), its options skipped (those of
    # no value named); judged as a key's, since prose goes on after a
    # command's name as well ("smbclient //h/share lists the files").
    (("smbclient",),
     lambda n: r"\bsmbclient(?:\.exe)?\b[^\n|;&]{0,400}?(?<=\s)(?:'(?://|\\\\)[^'\n]{1,400}'"
     r"|\"(?://|\\\\)[^\"\n]{1,400}\"|(?://|\\\\)[^\s'\"]{1,400})"
     r"(?:[ \t]+(?:-[NPegqkBEC](?![^\s])|-[A-Za-z](?:[ \t]+(?!-)" + _WORD
     + r"|[^\s-]\S*)|--[\w\-]+(?:=" + _WORD + r")?)){0,20}?[ \t]+" + _value(n, "vk")
     + r"(?![^\s;&|)])",
     ("smbclient //h/share ⟦«a16»⟧ -U bob", "smbclient -U bob '\\\\h\\share' '⟦«a16»⟧'",
      "smbclient //h/share -W CORP ⟦«a16»⟧ -c 'ls'"),
     "smbclient //h/share -U bob -c 'ls'; smbclient //h/share -N 2>&1; smbclient -L //h -N"),
    # (vendor, attack 25's leftovers) A secret written in a shell comment:
    # after a word naming one and a separator (`# pw = X`, `# token: X`);
    # after the word alone in a comment that ends a command (`… # key X`;
    # at a line's start, `## Key Improvements` is a heading); alone after a
    # command that makes or resets one (`… reset-windows-password v # got
    # X`, `doctl databases user reset d u # X`). Judged as a key's, and with
    # no separator only a value holding a digit: a comment's words are left.
    # (each begins with its literal, `#` or the command's word, which the
    # engine skips ahead to; the places before a `#` are looked back at)
    (("#",),
     lambda n: r"(?i)#(?:(?<![^\s]#)#*[ \t]*" + _COMMENT_WORDS
     + r"[ \t]*(?:[:=]|->|=>|\bis\b|\bwas\b)[ \t]*" + _value(n, "vk")
     + r"|(?:(?<=[^\s#][ \t]#)|(?<=[^\s#][ \t][ \t]#))#*[ \t]*" + _COMMENT_WORDS + r"[ \t]+"
     + _HAS_A_DIGIT + _value(n, "vk") + ")",
     ("aws s3 ls --profile p # key ⟦«a16»⟧", "psql -h db -U app  # pw ⟦«a16»⟧",
      "# password: ⟦«a16»⟧"),
     "ssh h # key points: use the bastion\n### Key Improvements\n## Token usage"),
    ((*_MAKERS,),
     lambda n: r"(?i)(?:" + "|".join(_MAKERS) + r")[^\n#]{0,400}?[ \t]#+[ \t]*(?:(?:got|returned"
     r"|prints?|printed|output|new|->|=>|=|:)[ \t]*:?[ \t]*)?" + _HAS_A_DIGIT + _value(n, "vk")
     + r"(?![^\s])",
     ("gcloud compute reset-windows-password v --user u # got ⟦«a16»⟧",
      "doctl databases user reset d u # ⟦«a16»⟧"),
     "az ad sp create-for-rbac # returns the app id\ngit reset --hard # undo the merge"),
    # A here-string into a command that reads a password on stdin.
    (("<<<",),
     lambda n: r"(?:" + _READS_A_PASSWORD + r"|\bread\s+(?:-\w+\s+)*-\w*s\w*\b)"
     r"[^\n|;&]{0,400}?<<<[ \t]*" + _value(n, "vp"),
     ("gh auth login --with-token <<< ⟦«a40»⟧", "sudo -S systemctl restart nginx <<< \"⟦«a16»⟧\"",
      "gpg --batch --passphrase-fd 0 -d secrets.gpg <<< \"⟦«a16»⟧\"",
      "read -rs DB_PASS <<< \"⟦«a16»⟧\"", "passwd <<< \"⟦«a16»⟧\"",
      "cryptsetup luksOpen /dev/sdb1 c <<< \"⟦«a16»⟧\"", "vncpasswd -f <<< \"⟦«a16»⟧\""),
     "read -r line <<< \"hello world\"; gh auth login --with-token <<< \"$GH_TOKEN\""),
    # A literal echoed or printed into such a command (`echo X | kinit bob`,
    # `printf '%s\n' X | docker login --password-stdin`, `yes X | passwd`):
    # attack 25 (R1, R2 class 3).
    (("kinit", "passwd", "cryptsetup", "signin", "unlock", "login", "secret create", "-stdin",
      "--with-token", "-fd", "sudo", "htpasswd", "adduser", "keepassxc", "createuser", "vnc",
      "password_stdin", "-on-stdin", "configure", "su ", "trino",
      # (vendor: the readers added above, and `cat <<< X | reader`)
      "| age", "|age", "stdin", "sshpass", "pass ", "secret-tool", "keyring", "=-", "ssh-add",
      "mkpasswd", "openssl", "secrets:set", "env add", "mysql_config_editor", "secret "),
     lambda n: r"(?:\b(?:echo|printf|yes)(?:\s+-[neE]+)*(?:\s+(?:'%s(?:\\n)*'|\"%s(?:\\n)*\"))?"
     r"\s+|\bcat[ \t]*<<<[ \t]*)" + _value(n, "vp") + r"(?:\\n\S*)*['\"]?[ \t]*\|[ \t]*(?:"
     + _READS_A_PASSWORD
     # (a flag that says it reads one on stdin, anywhere on the command)
     + r"|[^\n|;&]{0,400}?(?:-pass(?:in|out)?[ \t]+stdin\b|/dev/stdin\b|--password-stdin\b"
     r"|--passwd-on-stdin\b|--passphrase-fd[ =]?0\b|--with-token\b|--token-stdin\b"
     # (or a subcommand that sets a secret, `firebase functions:secrets:set X`,
     # or a value read from stdin, `vault kv put k password=-`)
     r"|\bsecrets?[: \t]+(?:put|set|create|add)\b|\benv[ \t]+add\b|\b\w+=-(?![^\s|;&])))",
     ("echo ⟦«a16»⟧ | kinit bob@CORP.IO",
      "printf '%s\\n' '⟦«a16»⟧' | docker login -u bob --password-stdin",
      "echo -n ⟦«a16»⟧ | cryptsetup luksFormat /dev/sdb1 -", "yes ⟦«a16»⟧ | passwd bob",
      "echo ⟦«a16»⟧ | bw unlock --raw", "echo ⟦«a16»⟧ | vault login -"),
     "echo $PW | kinit bob; echo \"$TOKEN\" | gh auth login --with-token; echo done | tee log"),
    # A literal given to a template's password filter (Jinja: `'X' | password_hash`).
    (("password_hash",),
     lambda n: r"(?:'(?P<" + n("vp") + r">[^'\n]{1,200})'|\"(?P<" + n("vp")
     + r">[^\"\n]{1,200})\")[ \t]*\|[ \t]*password_hash\b",
     ("ansible all -m user -a \"name=bob password={{ '⟦«a16»⟧' | password_hash('sha512') }}\"",),
     "password: \"{{ user_password | password_hash('sha512') }}\""),
    # curl's client certificate and its password (`-E cert.pem:X`).
    (("curl",),
     lambda n: r"\bcurl\b[^\n|;&]{0,400}?(?<=\s)(?:-E|--cert)(?:[ \t]+|=)['\"]?"
     r"[^\s'\":]*\.(?:pem|crt|cer|p12|pfx|key):(?P<" + n("vp")
     + r">(?!\$)[^\s'\"|;&<>()`\\]+)",
     ("curl -E client.pem:⟦«a16»⟧ https://mtls.corp.io/",
      "curl --cert ./certs/me.p12:⟦«a16»⟧ https://x"),
     "curl -E client.pem https://mtls.corp.io/; curl --cert C:\\certs\\me.pem https://x"),
)


# --- 3. A database's address with no scheme ------------------------------------------------

def _address_rules() -> tuple[RuleData, ...]:
    go, proxy = _Names(), _Names()
    user = r"[\w.\-]{1,64}"
    # A key whose name ends in a secret's (not one about it: `tokenType`,
    # `passwordPolicy` go on after it).
    password_key = r"[\w.\-]*(?:password|passwd|passphrase|pwd)"
    secret_key = (r"[\w.\-]*(?:secret|token|api[_\-]?key|apikey|access[_\-]?key"
                  r"|private[_\-]?key|credentials?|auth)")
    return (
        # Go's MySQL driver: user:pw@tcp(host:port)/db or @unix(/path)/db.
        (ADDRESS, (")/",),
         r"(?<![\w.\-/:@])" + user + r":(?P<" + go("vl") + r">[^\s@\"'`/]{1,200})"
         r"@(?:tcp6?|unix)\([^()\s]*\)/",
         ('db, err := sql.Open("mysql", "root:⟦«a16»⟧@tcp(db:3306)/app")',
          "DSN=app:⟦«a16»⟧@unix(/var/run/mysqld.sock)/app"),
         "go get github.com/x/y@tcp; user@tcp(host) and a:b@/c"),
        # Oracle: user/pw@db in a JDBC thin URL, `connect user/pw` (SQL*Plus),
        # cx_Oracle's or oracledb's connect('user/pw@db'). (Each begins with
        # its literal: the engine skips ahead to it.)
        *((ADDRESS, (trigger,), r"(?i)" + start + r"[\w$#]{1,30}/(?P<" + _Names()("vl")
           + r">[^\s@\"'/]{1,100})" + end, samples, look_alike)
          for trigger, start, end, samples, look_alike in (
              ("oracle", r"jdbc:oracle:(?:thin|oci8?|kprb):@?", r"(?=@|[\"'\s;]|$)",
               ("jdbc:oracle:thin:scott/⟦«a14»⟧@db.example.io:1521/ORCL",),
               "jdbc:oracle:thin:@db.example.io:1521/ORCL"),
              # (in prose, `connect frontend/backend`: a database's @ or sysdba after it)
              ("conn", r"conn(?<![^\s>]conn)(?:ect)?\s+", r"(?=@|\s+as\s+sys)",
               ("SQL> connect sys/⟦«a12»⟧ as sysdba", "conn scott/⟦«a12»⟧@orcl"),
               "connect to the db/api; connect frontend/backend services; conn refused"),
              ("oracle", r"oracle(?:db)?\.connect\(\s*[\"']", r"(?=@|[\"'])",
               ("cx_Oracle.connect('scott/⟦«a12»⟧@db/orcl')",),
               "cx_Oracle.connect(user, password, dsn)"))),
        # A proxy's user:pw@host without a scheme (`http_proxy=bob:pw@proxy:3128`).
        (ADDRESS, ("proxy",),
         r"(?i)proxy[\w\-]{0,64}[\"']?(?:[ \t]*[=:][ \t]*|[ \t]+)[\"']?" + user
         + r":(?P<" + proxy("vl") + r">[^\s@\"'`/]{1,200})@[\w\-]+(?:\.[\w\-]+)*:\d{2,5}\b",
         ("export http_proxy=bob:⟦«a14»⟧@proxy.example.io:3128",
          "pip install --proxy bob:⟦«a14»⟧@proxy:8080 x"), "proxy: user@proxy.example.io:3128"),
        # A JSON pair naming a secret by its key (Postman's variables and auth
        # arrays, CloudFormation's parameters, tags): {"key": "token", "value": "…"};
        # Postman's API key auth names its value "value".
        *((PAIR, ('"key"', '"parameterkey"', "'key'"),
           r"(?i)[\"'](?:key|parameterkey)[\"']\s*:\s*[\"'](?:" + names
           + r")[\"']\s*,\s*[\"'](?:value|parametervalue)[\"']\s*:\s*"
           r"(?:\"(?P<" + group + r"1>[^\"\n…]{1,200})(?:\"|…?\Z)"
           r"|'(?P<" + group + r"2>[^'\n…]{1,200})(?:'|…?\Z))",
           samples, look_alike)
          for names, group, samples, look_alike in (
              (password_key, "vp",
               ('[{"ParameterKey": "DbPassword", "ParameterValue": "⟦«a16»⟧"}]',
                '{"key": "password", "value": "⟦«a12»⟧", "type": "string"}'),
               '{"key": "password", "value": "{{password}}"}, '
               '{"key": "passwordPolicy", "value": "strong"}'),
              (r"(?!" + password_key + r"[\"'])" + secret_key + r"|value", "vk",
               ('{"auth":{"type":"apikey","apikey":[{"key":"value","value":"⟦«a24»⟧",'
                '"type":"string"},{"key":"key","value":"X-API-Key"}]}}',
                '{"key": "api_token", "value": "⟦«a32»⟧", "enabled": true}'),
               '{"key": "api_token", "value": "{{api_token}}"}, '
               '{"key": "tokenType", "value": "Bearer"}, '
               '{"key": "baseUrl", "value": "https://api.example.com"}'),
          )),
    )


# --- 4. A config line whose place says the secret -----------------------------------------

def _config_line_rules() -> tuple[RuleData, ...]:
    """Network devices' and daemons' config: the word after a keyword, a
    column of a table, a pair after a host in brackets."""
    table: tuple[tuple[tuple[str, ...], Callable[[_Names], str], tuple[str, ...], str], ...] = (
        # Cisco IOS: enable secret|password [0-9] X; username U [privilege N]
        # password|secret [0-9] X (type 0 plain, 7 reversible, 5/8/9 a hash);
        # tacacs-server/radius-server [host H] key [0|7] X.
        (("enable secret", "enable password", "username", "tacacs-server", "radius-server"),
         lambda n: r"(?i)(?<![\w\-])(?:enable[ \t]+(?:secret|password)(?:[ \t]+level[ \t]+\d+)?"
         r"|username[ \t]+\S{1,64}(?:[ \t]+privilege[ \t]+\d{1,2})?[ \t]+(?:password|secret)"
         r"|(?:tacacs|radius)-server(?:[ \t]+host[ \t]+\S{1,100})?[ \t]+key)"
         r"[ \t]+(?:\d[ \t]+)?" + _value(n, "vp"),
         ("enable secret 0 ⟦«a16»⟧", "username admin privilege 15 password 0 ⟦«a16»⟧",
          "username bob secret ⟦«a14»⟧", "tacacs-server host 10.0.0.2 key 7 ⟦«a16»⟧"),
         "enable secret is stronger than enable password; username admin privilege 15"),
        # Cisco: snmp-server community X [RO|RW] (not the defaults).
        (("snmp-server",),
         lambda n: r"(?i)snmp-server[ \t]+community[ \t]+(?!(?:public|private)\b)"
         + _value(n, "vp"),
         ("snmp-server community ⟦«a16»⟧ RO",),
         "snmp-server community public RO; snmp-server community private RW"),
        # Postfix's sasl_passwd: [host]:port user:password.
        (("]:", "] "),
         lambda n: r"\[[\w\-]+(?:\.[\w\-]+)+\](?::\d{1,5})?[ \t]+[^\s:\[\]]{1,100}:"
         r"(?P<" + n("vp") + r">[^\s]{4,200})(?=\s|$)",
         ("[smtp.gmail.com]:587 bob@gmail.com:⟦«a16»⟧", "[mail.example.io] bob:⟦«a16»⟧"),
         "relayhost = [smtp.gmail.com]:587; see [docs.example.io] note:here and there"),
        # pppd's chap-secrets/pap-secrets: client server secret IP, under
        # their header (a line of `bob * X *` alone is no secret's by its
        # shape: `issues: * x 1`).
        (("secret",),
         # (or all on one line, as a title flattens it)
         lambda n: r"(?i)#[ \t]*(?:client|user(?:name)?)[ \t]+server[ \t]+secret"
         r"(?:[ \t]+(?:ip|addresses|ip-addresses|acceptable|local|remote)){0,3}[ \t]*"
         r"(?:(?:\r?\n[ \t]*#[^\n]{0,200})*\r?\n[ \t]*|[ \t]+)(?!#)\S{1,64}[ \t]+\S{1,100}[ \t]+"
         + _value(n, "vp"),
         ("# client server secret IP addresses\nbob * ⟦«a16»⟧ *",
          '# Secrets for authentication using CHAP\n# client\tserver\tsecret\tIP\n'
          '"bob" pptpd "⟦«a16»⟧" *'),
         "# client server secret IP\n"),
        # The same line bare, its header left out (a `cat` of one line, an
        # `echo … >> chap-secrets`): `*` for any server or any address (one
        # at least: `vpn l2tpd X 10.0.0.2` alone is any four words), the
        # rest a name or an address; its secret judged as a key's cell is, so
        # a product over a line's end (`price * quantity *`) and a list's
        # line (`issues: * x 1`) are left.
        (("*",),
         lambda n: r"(?m)^[ \t]*(?=[^\n]*\*)\"?\w[\w.@\-]{0,63}\"?[ \t]+"
         r"(?:\*|\"?[A-Za-z][\w.\-]{0,63}\"?)[ \t]+" + _value(n, "vk")
         + r"[ \t]+(?:\*|\"?\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\"?)"
         r"(?:[ \t]+\"?\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\"?)*[ \t]*\r?$",
         # (a line of its own, as in the file: in running text it is no such line)
         ("\nbob * ⟦«a16»⟧ *\n", '\n"bob" pptpd "⟦«a16»⟧" *\n', "\nvpn\t*\t⟦«a16»⟧\t10.0.0.2\n"),
         "issues: * x 1\nprice * quantity *\nbob * hunter *\nx * y * z\n"),
    )
    return tuple((PAIR, triggers, build(_Names()), samples, look_alike)
                 for triggers, build, samples, look_alike in table)


def _literal_judge(secret: str, shell: bool) -> bool:
    """Whether a literal is no secret: a variable, a template, a placeholder
    word; in a command, also a path, an option, or a file or stream named
    for it (`-w -`, `-auth @file`, `-pass env:X`)."""
    low = secret.lower()
    return (len(secret) < 3 or secret.startswith("$") or "{{" in secret or "${" in secret
            or low in _PLACEHOLDER_WORDS or (shell and (
                secret.startswith(("-", "@", "/", "~/", "./", "../", "%"))
                or low.startswith(("env:", "file:", "fd:", "stdin", "pass:", "prompt")))))


_PLACEHOLDER_WORDS = frozenset((
    "pass", "pw", "pwd", "passwd", "pass123", "mypassword", "mypass", "yourpassword", "user",
    "username", "apikey", "api_key", "key", "value", "foobar", "foo", "bar", "xxxx", "none",
    "null", "secret", "token", "password", "stdin", "prompt", "ask", "required", "optional",
    "empty", "hidden", "unset", "foobared",
    # (a sentence going on after a command: `net use … /user:me and restart`)
    "and", "or", "then", "the", "to", "for", "with", "if", "but", "so", "on", "in", "at", "is",
    "was", "from", "by", "as", "again", "first", "here", "there", "now"))


def judged(kind: str, match: re.Match[str], secret: str,
           cell_hides: Callable[[str, bool], bool]) -> bool:
    """Whether a value of these rules is no secret (True: it is left). The
    group that holds it says how it is judged; `cell_hides` is redact's judge
    of a table's cell (password: bool)."""
    if _literal_judge(secret, kind == COMMAND):
        return True
    judge = next((name for name, value in match.groupdict().items()
                  if value is not None and name.startswith("v")), "v")
    if judge.startswith("vp"):  # (any value but a placeholder: judged after this)
        return False
    if judge.startswith("vk"):
        if ":" in secret and len(secret.split(":", 1)[1]) >= 3:  # user:password, encoded
            return _literal_judge(secret.split(":", 1)[1], False)
        return not cell_hides(secret, False)
    return False


RULES: tuple[RuleData, ...] = (_call_rules() + _command_rules() + _address_rules()
                               + _config_line_rules())
