"""Secrets an outside attack (attack 25) still found passing the gate after
its first fixes, taken as classes, not as the instances it tried:

- commands: Samba's `user%password` (smbclient, rpcclient, net, smbcacls,
  smbget, wbinfo, samba-tool, winexe…, to -U, -Uglued, --user=, wbinfo's
  -a); smbclient's password by its place (`smbclient //h/share PASSWORD`);
  a here-string or a pipe into a command that reads a secret on stdin
  (age, openssl's `-pass stdin`, sshpass, pass, secret-tool, keyring,
  `password=-`, `/dev/stdin`, a platform's secret command, ssh-add,
  mkpasswd…, and `cat <<< X | reader`); a secret in a shell comment (`#
  key X`, `… reset-windows-password … # got X`); what an expect script
  sends (`send -s`, `exp_send`, a bare word in `expect -c "…"`, pexpect
  after `expect('assword')`);
- code: a key given to a cipher's, a MAC's or a signer's constructor, by
  place or by keyword, as bytes (`b"…"`, `bytes("…", "utf-8")`,
  `"…".encode()`) or a string (cryptography, PyCryptodome, PyNaCl, hmac,
  jwt, itsdangerous, Rails, Phoenix and Plug, Go, Rust, .NET, Ruby,
  Erlang); a secret's default where its variable is read
  (`env("SECRET", default="…")`, decouple's `config("KEY", default=…)`,
  `setdefault`, Ruby's `ENV.fetch(…) { "…" }`, Rust's `unwrap_or`, .NET's
  and Deno's `??`).

Generated: each class's tools or callees x spellings x quoting x values
drawn at random (the characters their quoting lets through) x where a
transcript holds text. Oracle: the value the test drew; no run of 6 of it
in what the gate returns (and the gate hands it whole to learning), in the
note or the state folded from a session saying it, nor, end to end through
`vv`, in any file of the vault or the state, any table of vault.db
(decompressed), its search terms (lower case, as the index keeps them) or
what `vv` printed. Look-alikes of the same shapes (variables, options,
words, a comment's prose, a library's other arguments) are left whole.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_attack24_commands import _BARE, quoted, value
from test_secret_forms_more import CONTROL, leaked
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import Case, _folded_nowhere, _hidden, token
from test_secret_positional import _home
from vibe_vault.redact import DEFAULT

_ALNUM = string.ascii_letters + string.digits
# A value judged as a key's (a word, a name in code, is left there): no `.` or `_`.
_KEYLIKE = _ALNUM + "!%+@^~"


# -- commands ----------------------------------------------------------------------------------

# A Samba tool and where its -U goes: (before the flag, after the value).
SAMBA = (
    ("smbclient //fs01/share ", " -c 'ls'"), ("smbclient -L fs01 ", ""),
    ("rpcclient ", " 10.0.0.5 -c enumdomusers"), ("net ads join ", ""),
    ("net rpc user ", " -S dc01"), ("net ", " rpc info -S dc01"),
    ("smbcacls //fs01/share dir/f.txt ", ""), ("smbget ", " smb://fs01/share/f.txt"),
    ("smbtree ", ""), ("smbcquotas //fs01/share ", ""), ("samba-tool user list ", " -H ldap://dc"),
    ("winexe ", " //10.0.0.9 cmd.exe"), ("pth-winexe ", " //10.0.0.9 cmd"),
    ("smbpasswd -r dc01 ", ""),
)
SAMBA_FLAGS = ("-U ", "-U", "--user=", "--user ")


@st.composite
def samba(draw: st.DrawFn) -> Case:
    before, after = draw(st.sampled_from(SAMBA))
    flag = draw(st.sampled_from(SAMBA_FLAGS))
    user = draw(st.sampled_from(["bob", "CORP\\bob", "CORP/admin", "svc_backup"]))
    how = draw(st.sampled_from(["bare", "single", "double"]))
    # (no `{`: `{{` reads as a template's)
    v = draw(value(_BARE if how == "bare" else _BARE + "#*?[] "))
    word = {"bare": f"{user}%{v}", "single": f"'{user}%{v}'", "double": f'"{user}%{v}"'}[how]
    if draw(st.booleans()) and how == "bare":  # wbinfo's own spelling
        return f"wbinfo {draw(st.sampled_from(['-a ', '--authenticate=']))}{word}", [v]
    return before + flag + word + after, [v]


@st.composite
def smbclient_place(draw: st.DrawFn) -> Case:
    """smbclient SERVICE PASSWORD, options before and after either."""
    v = draw(value(_KEYLIKE))
    written = draw(st.sampled_from(["{}", "'{}'", '"{}"'])).format(v)
    service = draw(st.sampled_from(["//fs01/share", "//10.0.0.5/c$", "'\\\\fs01\\share'",
                                    '"//fs01/team docs"']))
    head = draw(st.sampled_from(["", "-U bob ", "-W CORP -U bob ", "-m SMB3 "]))
    middle = draw(st.sampled_from(["", " -W CORP", " -U bob", " -N -m SMB3"]))
    tail = draw(st.sampled_from(["", " -U bob", " -c 'get report.pdf'", " -W CORP -D docs"]))
    return f"smbclient {head}{service}{middle} {written}{tail}", [v]


# A command that reads a secret on stdin.
READERS = (
    "age -d -i key.txt", "age --decrypt -i k.txt -o out.tar", "age -p -o f.age",
    "openssl enc -d -aes-256-cbc -pass stdin -in f.enc", "openssl rsa -in k.pem -passin stdin",
    "sshpass -d 0 ssh bob@h", "pass insert -e db/pw", "gopass insert -f db/pw",
    "secret-tool store --label=db service db user bob", "keyring set corp bob",
    "vault kv put secret/db password=-", "docker secret create db_pw -",
    "vercel env add TOKEN production", "firebase functions:secrets:set API_KEY",
    "ansible-vault decrypt --vault-password-file /dev/stdin f.yml",
    "mysql_config_editor set --login-path=x --password", "ssh-add -", "mkpasswd -s",
    "openssl passwd -6 -stdin", "passwd --stdin bob", "kinit bob@CORP.IO",
    "cryptsetup luksOpen /dev/sdb1 c", "sudo -S systemctl restart nginx", "vncpasswd -f",
    "htpasswd -i -c .htpasswd bob", "podman login -u bob --password-stdin quay.io",
    "wrangler secret put API_KEY", "gh secret set TOKEN",
)


@st.composite
def stdin_secret(draw: st.DrawFn) -> Case:
    reader = draw(st.sampled_from(READERS))
    how = draw(st.sampled_from(["here", "echo", "printf", "cat"]))
    written, v = quoted(draw)
    assume("{{" not in v and "${" not in v)  # (a template's, a variable's: left by design)
    if how == "here":
        return f"{reader} <<< {written}", [v]
    if how == "cat":
        return f"cat <<< {written} | {reader}", [v]
    lead = "echo -n" if how == "echo" else "printf '%s\\n'"
    return f"{lead} {written} | {reader}", [v]


COMMENTED = ("aws s3 ls --profile prod", "psql -h db -U app", "ssh admin@10.0.0.5",
             "curl https://api.corp.io/v1/me", "kubectl get pods -n prod", "")
SECRET_WORDS = ("key", "password", "pw", "pass", "token", "secret", "api key", "passphrase",
                "the new password", "root pw")
MAKERS = ("gcloud compute reset-windows-password vm1 --user bob",
          "doctl databases user reset db1 app", "aws iam create-access-key --user-name bob",
          "az ad sp create-for-rbac --name app", "wg genkey", "argocd admin initial-password")


@st.composite
def comment(draw: st.DrawFn) -> Case:
    v = draw(value(_KEYLIKE))
    if draw(st.booleans()):
        command = draw(st.sampled_from(COMMENTED))
        # (a line's own comment names it with a separator: `# Key Ideas` is a heading)
        sep = draw(st.sampled_from([" ", ": ", "=", " = ", " is ", " -> "] if command
                                   else [": ", "=", " = ", " is ", " -> "]))
        # (`#` begins a comment at a word's start only: `prod#x` is a word)
        text = (command + draw(st.sampled_from(["  # ", " # "] if command else ["# ", "#"]))
                + draw(st.sampled_from(SECRET_WORDS)) + sep + v)
    else:
        said = draw(st.sampled_from(["", "got ", "-> ", "= ", "new: ", "returned "]))
        text = draw(st.sampled_from(MAKERS)) + " # " + said + v
    return text + draw(st.sampled_from(["", "\n", "\nls -la"])), [v]


@st.composite
def expect_send(draw: st.DrawFn) -> Case:
    v = draw(value(_ALNUM + "!%+-:=@^~,"))
    prompt = draw(st.sampled_from(["password:", "*assword*", "Enter passphrase*", "PIN:",
                                   "passwd:"]))
    end = draw(st.sampled_from(["\\r", "\\n"]))
    return draw(st.sampled_from([
        f'expect "{prompt}"\nsend -s "{v}{end}"',
        f'expect "{prompt}"\nexp_send "{v}{end}"',
        f'expect "{prompt}" {{ send -- "{v}{end}" }}',
        f'expect -c "spawn ssh h; expect pass*; send {v}{end}; interact"',
        f"child.expect('assword')\nchild.send(\"{v}\\n\")",
        f"p.expect('assword:')\np.sendline('{v}')",
    ])), [v]


# -- code --------------------------------------------------------------------------------------

# (a callee's call with {k} where the keyword goes, or none; {lit} the literal)
CONSTRUCTORS = (
    "ChaCha20Poly1305({k}{lit})", "AESGCM({k}{lit})", "AESCCM({k}{lit})", "AESSIV({k}{lit})",
    "AESOCB3({k}{lit})", "Fernet({k}{lit})", "MultiFernet([Fernet({k}{lit})])",
    "nacl.secret.SecretBox({k}{lit})", "SecretBox({k}{lit})", "nacl.secret.Aead({lit})",
    'hmac.new({k}{lit}, msg=body, digestmod="sha256")', "hmac.HMAC({k}{lit}, hashes.SHA256())",
    "HMAC({lit}, hashes.SHA256())", "AES.new({k}{lit}, AES.MODE_GCM)",
    "ChaCha20.new({k}{lit}, nonce=n)", "ChaCha20_Poly1305.new({k}{lit})",
    "DES3.new({lit}, DES3.MODE_CBC)", "Blowfish.new({lit}, Blowfish.MODE_ECB)",
    "Cipher(algorithms.ChaCha20({lit}, nonce), mode=None)",
    'jwt.encode(payload, {k}{lit}, algorithm="HS256")',
    "Fernet(base64.urlsafe_b64encode({lit}))", "URLSafeTimedSerializer({lit})",
    "TimestampSigner({lit})", "Ed25519PrivateKey.from_private_bytes({lit})",
)
OTHER_LANGUAGES = (
    'aead, _ := chacha20poly1305.New([]byte("{v}"))', 'Aes256Gcm::new_from_slice(b"{v}")',
    'Hmac::<Sha256>::new_from_slice(b"{v}")', 'Key::from_slice(b"{v}")',
    'var h = new HMACSHA256(Encoding.UTF8.GetBytes("{v}"));',
    'OpenSSL::HMAC.hexdigest("SHA256", "{v}", data)', ':crypto.mac(:hmac, :sha256, "{v}", data)',
    ':crypto.hmac(:sha256, "{v}", data)', 'ActiveSupport::MessageVerifier.new("{v}")',
    'ActiveSupport::MessageEncryptor.new("{v}")', 'Phoenix.Token.sign(conn, "{v}", user.id)',
    'Phoenix.Token.verify(MyAppWeb.Endpoint, "{v}", token, max_age: 86400)',
    'Plug.Crypto.MessageVerifier.sign(msg, "{v}")', 'jwt.decode(token, "{v}", algorithms=["HS256"])',
)


@st.composite
def crypto_key(draw: st.DrawFn) -> Case:
    v = draw(token(12, 32))
    if draw(st.booleans()):
        return draw(st.sampled_from(OTHER_LANGUAGES)).format(v=v), [v]
    q = draw(st.sampled_from(["'", '"']))
    lit = draw(st.sampled_from(["b{q}{v}{q}", "rb{q}{v}{q}", "{q}{v}{q}.encode()",
                                'bytes({q}{v}{q}, "utf-8")'])).format(q=q, v=v)
    k = draw(st.sampled_from(["", "key="]))
    return draw(st.sampled_from(["", "    ", "self.box = "])) + draw(
        st.sampled_from(CONSTRUCTORS)).format(k=k, lit=lit), [v]


LOOKUPS = (
    'env({q}{name}{q}, default={q}{v}{q})', 'env.str({q}{name}{q}, default={q}{v}{q})',
    'env.str({q}{name}{q}, {q}{v}{q})', 'config({q}{name}{q}, default={q}{v}{q})',
    'config({q}{name}{q}, default={q}{v}{q}, cast=str)', 'os.getenv({q}{name}{q}, {q}{v}{q})',
    'os.getenv({q}{name}{q}, default={q}{v}{q})', 'os.environ.get({q}{name}{q}, default={q}{v}{q})',
    'os.environ.setdefault({q}{name}{q}, {q}{v}{q})',
    'app.config.setdefault({q}{name}{q}, {q}{v}{q})', 'ENV.fetch({q}{name}{q}) {{ {q}{v}{q} }}',
    'ENV.fetch({q}{name}{q}, {q}{v}{q})', 'env::var("{name}").unwrap_or("{v}".to_string())',
    'std::env::var("{name}").unwrap_or_else(|_| "{v}".into())',
    'Environment.GetEnvironmentVariable("{name}") ?? "{v}"', 'Deno.env.get("{name}") ?? "{v}"',
    'System.get_env("{name}") || "{v}"', 'getEnv("{name}", "{v}")',
)
SECRET_VARS = ("SECRET", "SECRET_KEY", "X_SECRET", "API_TOKEN", "DB_PASSWORD", "JWT_SECRET",
               "DJANGO_SECRET_KEY", "stripe_api_key", "SECRET_KEY_BASE")


@st.composite
def secret_default(draw: st.DrawFn) -> Case:
    v = draw(token(12, 32, _ALNUM + "!#%^*+=_-"))
    template = draw(st.sampled_from(LOOKUPS))
    # (decouple's `config("KEY", …)` names the key so)
    names = SECRET_VARS + (("KEY",) if template.startswith("config(") else ())
    text = template.format(q=draw(st.sampled_from(["'", '"'])), name=draw(st.sampled_from(names)),
                           v=v)
    return draw(st.sampled_from(["", "SECRET_KEY = ", "    key: str = "])) + text, [v]


CLASSES = {"samba": samba(), "smbclient": smbclient_place(), "stdin": stdin_secret(),
           "comment": comment(), "expect": expect_send(), "crypto": crypto_key(),
           "default": secret_default()}


@pytest.mark.parametrize("kind", sorted(CLASSES))
def test_the_gate_hides_each_value_whole(kind: str) -> None:
    @settings(max_examples=examples(60, 600), deadline=None)
    @given(CLASSES[kind])
    def check(case: Case) -> None:
        _hidden(*case)
    check()


@settings(max_examples=examples(40, 400), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_each_value_is_in_no_note_or_state(case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


# -- what is left ------------------------------------------------------------------------------

LOOK_ALIKES = (
    # commands
    "smbclient //h/share -U bob -c 'ls'", "smbclient //h/share -N 2>&1", "smbclient -L //h -N",
    "smbclient //h/share -U bob%$SMB_PW", "smbclient //h/share lists the files",
    "run smbclient //fileserver/public and list it", "rpcclient -U bob h",
    "net ads join -U admin", "smbclient -U %USERNAME% //h/s -N", "date -u +%Y%m%d",
    'grep -c age <<< "hello world"', "echo hello | grep age", "echo hello | age -r age1xyz",
    'cat <<< "hello" | wc -c', "jq . <<< '{\"a\": 1}'", 'read -r line <<< "hello world"',
    'echo "$PW" | pass insert -e db/pw', "keyring set system me <<< $PW",
    "ssh h # key points: use the bastion", "git reset --hard # undo the merge",
    "git reset --hard HEAD~1  # back to the last release", "# Password reset flow",
    "# token refresh happens here", "x = 1  # key lookup in cache",
    "kubectl rollout restart deploy/api # rotate pods", "# pin numpy to 1.26",
    "### Key Improvements", "## Token usage v2", "ls -la  # key files first",
    'expect -c "spawn ssh h; expect $ ; send exit\\r; interact"',
    'expect -c "spawn ssh h; expect yes/no; send yes\\r; interact"', 'send -- "$env(PW)\\r"',
    "child.expect('assword')\nchild.sendline(password)",
    "child.expect('classname')\nchild.sendline('MyClass')",
    # code
    'Phoenix.Token.sign(MyAppWeb.Endpoint, "user auth", user.id)',
    'Phoenix.Token.verify(socket, "user socket", token, max_age: 1209600)', 'Signer("Alice")',
    'serializer = URLSafeTimedSerializer(app.config["SECRET_KEY"])', "AESGCM(key)",
    "AESGCM(key=key)", "AESGCM.generate_key(bit_length=128)", "hmac.new(key, msg, hashlib.sha256)",
    "hmac.new(key=secret, msg=b'hello')", "AES.new(key, AES.MODE_GCM)",
    'jwt.decode(token, options={"verify_signature": False})', "sorted(xs, key=len)",
    'st.text_input("Password", key="pw_input", type="password")', "cache.get(key=b'user:1')",
    'data = bytes("hello", "utf-8")', 'env("DEBUG", default=False)',
    'env("SECRET_KEY", default=None)', 'config("DEBUG", default=False, cast=bool)',
    'config("KEY_PREFIX", default="app")',
    'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")',
    'ENV.fetch("RAILS_MAX_THREADS") { 5 }', 'ENV.fetch("SECRET_KEY_BASE") { raise "missing" }',
    'env::var("API_KEY").unwrap_or_default()', 'settings.get("theme", "dark")',
    'config.get("secret", "")', "Key::from_slice(&key_bytes)",
    ":crypto.mac(:hmac, :sha256, key, data)", 'OpenSSL::HMAC.hexdigest("SHA256", secret, data)',
)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), DEFAULT.redact(text)


# -- end to end --------------------------------------------------------------------------------

@settings(max_examples=examples(3, 10), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.one_of(*CLASSES.values()), min_size=3, max_size=7))
def test_end_to_end_no_run_of_six_anywhere(cases: list[Case]) -> None:
    here = in_process("attack 25 leftovers end to end")
    seen, terms, printed = _home([(text, values[0]) for text, values in cases], here)
    # (the control: each value swapped for CONTROL; a run the sessions hold
    # anyway is no leak)
    control = [(text.replace(values[0], CONTROL), CONTROL) for text, values in cases]
    control_seen, control_terms, control_printed = _home(control, True)
    for text, values in cases:
        v = values[0]
        assert not leaked(seen, control_seen, v), (text, v)
        assert not leaked(printed, control_printed, v), (text, v)
        assert not leaked(terms, control_terms, v.lower()), (text, v)
