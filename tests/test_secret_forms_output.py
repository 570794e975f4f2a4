"""Secret forms an attacker found passing the gate (attack 23), by class: root
secrets in command output, key material in new shapes, a token written
another way (secret_keys).

Generated: each class's labels, spellings and separators x values drawn at
random in the alphabets the form has (base64, hex, UUIDs, base32, letters,
bytes) x surroundings. Oracle: no run of 6 characters of the value (which
the test drew) is left in what the gate returns, nor in the note and the
state folded from a session that says it in several places (a prompt, an
answer, a command, its output, a failing command's error, a `!` command's
output). And generated look-alikes (request ids, digests, base64 data,
lists of numbers, words in groups) are left whole.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import examples
from test_secret_forms_more import CONTROL, leaked
from vibe_vault.redact import DEFAULT

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_HEXDIGITS = "0123456789abcdef"
_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
Case = tuple[str, str]


def rng_of(draw: st.DrawFn) -> random.Random:
    return random.Random(draw(st.integers(0, 2**64)))


def run(rng: random.Random, alphabet: str, n: int) -> str:
    """n characters of `alphabet` at random, a letter and a digit in it
    where the alphabet has both (as a key has)."""
    while True:
        out = "".join(rng.choice(alphabet) for _ in range(n))
        if not (set(alphabet) & set(string.digits)) or not (set(alphabet) & set(
                string.ascii_letters)) or (any(c.isdigit() for c in out)
                                           and any(c.isalpha() for c in out)):
            return out


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# -- key material ----------------------------------------------------------------------------


_KEY_NAMES = ("id_rsa", "id_ed25519", "id_ecdsa", "deploy.pem", "server.key")


@st.composite
def key_body(draw: st.DrawFn) -> Case:
    """A key's body without its BEGIN line, wrapped at any width a tool wraps
    at (60 to 76: PEM's 64, OpenSSH's 70, 76 said to be a key's), two or more
    whole lines, with or without the last shorter one, indented or not."""
    rng = rng_of(draw)
    width = draw(st.integers(60, 76))
    data = rng.randbytes(draw(st.integers(width * 2, 1400)))
    if draw(st.booleans()):
        data = b"openssh-key-v1\0" + data
    text = b64(data)
    lines = [text[i:i + width] for i in range(0, len(text), width)]
    full = len(lines) - 1
    start = draw(st.integers(0, max(0, full - 2)))
    stop = draw(st.integers(min(start + 2, len(lines)), len(lines)))
    part = lines[start:stop]
    indent = draw(st.sampled_from(["", "    ", "\t", "> "]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    name = draw(st.sampled_from(_KEY_NAMES))
    before = draw(st.sampled_from([f"$ sed -n 2,9p ~/.ssh/{name}\n", f"the rest of {name}:\n",
                                   f"cat {name} | tail -n +2\n", "my private key body:\n"]
                                  + ([""] if width < 76 else [])))
    after = draw(st.sampled_from(["", "\n", "\nthanks", "\n```", "\n-----END"]))
    return before + newline.join(indent + line for line in part) + after, "".join(part)


@st.composite
def openssh_start(draw: st.DrawFn) -> Case:
    """An OpenSSH key's body from its first line (`b3BlbnNzaC1rZXktdjE`), at
    any width, one line or several, or with its newlines escaped in JSON."""
    rng = rng_of(draw)
    text = b64(b"openssh-key-v1\0" + rng.randbytes(draw(st.integers(60, 600))))
    width = draw(st.sampled_from([64, 70, 76, 80, 100, len(text)]))
    lines = [text[i:i + width] for i in range(0, len(text), width)]
    part = lines[:draw(st.integers(1, len(lines)))]
    if draw(st.booleans()):
        return '{"key": "' + "\\n".join(part) + '"}', "".join(part)
    return draw(st.sampled_from(["", "key:\n", "here: "])) + "\n".join(part), "".join(part)


@st.composite
def byte_array(draw: st.DrawFn) -> Case:
    """A keypair as a JSON array of 64 bytes (Solana's id.json), as `cat`,
    `json.dumps` or a code's literal writes it."""
    rng = rng_of(draw)
    values = [rng.randrange(256) for _ in range(64)]
    sep = draw(st.sampled_from([",", ", ", ",\n  "]))
    body = sep.join(map(str, values))
    text = draw(st.sampled_from(["cat ~/.config/solana/id.json\n[{b}]", "[{b}]",
                                 "Keypair.fromSecretKey(new Uint8Array([{b}]))",
                                 "key = [ {b} ]\n"])).replace("{b}", body)
    # (each value a run of 6: one number and its neighbours, as written)
    return text, "\u2063".join(sep.join(map(str, values[i:i + 3])) for i in range(0, 62, 3))


@st.composite
def ansible_vault(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    lines = ["".join(rng.choice(_HEXDIGITS) for _ in range(80))
             for _ in range(draw(st.integers(1, 6)))]
    head = draw(st.sampled_from(["$ANSIBLE_VAULT;1.1;AES256", "$ANSIBLE_VAULT;1.2;AES256;prod"]))
    indent = draw(st.sampled_from(["", "  ", "          "]))
    before = draw(st.sampled_from(["", "db_password: !vault |\n", "ERROR! Decryption failed\n"]))
    joined = ("\n" + indent).join(lines)
    return before + indent + head + "\n" + indent + joined, "\u2063".join(lines)


@st.composite
def maven_master(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    v = "{" + run(rng, _B64, draw(st.integers(20, 44))) + "=}"
    return draw(st.sampled_from([
        "<settingsSecurity>\n  <master>{v}</master>\n</settingsSecurity>",
        "<server>\n  <id>corp</id>\n  <password>{v}</password>\n</server>",
        "<master>{v}</master>"])).replace("{v}", v), v[1:-2]


@st.composite
def jwt_split(draw: st.DrawFn) -> Case:
    """A JWT broken at its dots across lines (each dot at a line's end or the
    next one's start)."""
    rng = rng_of(draw)
    head = b64(json.dumps({"alg": draw(st.sampled_from(["HS256", "RS256"])),
                           "typ": "JWT"}).encode()).rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps(
        {"sub": run(rng, _ALNUM, 12), "exp": rng.randrange(10**9, 2 * 10**9)}).encode()
    ).decode().rstrip("=")
    sig = run(rng, _ALNUM + "-_", 43)
    cut = draw(st.sampled_from([".\n", "\n.", ".\n  ", ".\r\n"]))
    last = draw(st.sampled_from([cut, "."]))
    before = draw(st.sampled_from(["token:\n", "", "Authorization: Bearer "]))
    return before + head + cut + body + last + sig, body + "\u2063" + sig


# -- root secrets in command output ---------------------------------------------------------


def uuid_of(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


ROOT_LABELS = ("Unseal Key {n}", "Recovery Key {n}", "Initial Root Token", "Root Token",
               "Secret ID", "SecretID", "secret_id", "unseal_key", "Session Key",
               "Certificate Key", "certificate-key")
SEPARATORS = (": ", " = ", "    ", "\t", ":\n", "=", ":  ")


@st.composite
def root_label(draw: st.DrawFn) -> Case:
    """A root secret under its tool's label, in the value's shapes those
    tools print (base64 of 32 bytes, hex, a UUID, an `s.` token)."""
    rng = rng_of(draw)
    label = draw(st.sampled_from(ROOT_LABELS)).replace("{n}", str(draw(st.integers(1, 5))))
    if label.lower().replace("_", " ").replace("id", " id").split()[0] == "secret":
        v = draw(st.sampled_from([uuid_of(rng), run(rng, _HEXDIGITS, 32)]))
    else:
        v = draw(st.sampled_from([b64(rng.randbytes(32)), run(rng, _HEXDIGITS, 64),
                                  uuid_of(rng), "s." + run(rng, _ALNUM, 24),
                                  b64(rng.randbytes(33))]))
    line = label + draw(st.sampled_from(SEPARATORS)) + v
    before = draw(st.sampled_from(["", f"Accessor ID  = {uuid_of(rng)}\n",
                                   "$ vault operator init\n", "[upload-certs] Using "]))
    after = draw(st.sampled_from(["", "\n", "\nName         = Bootstrap Token",
                                  "\n\nVault initialized with 5 key shares"]))
    return before + line + after, v


@st.composite
def session_key(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    v = b64(rng.randbytes(draw(st.sampled_from([33, 64, 66]))))
    v = draw(st.sampled_from([v, v.rstrip("=")]))
    return draw(st.sampled_from([
        'export BW_SESSION="{v}"', "export BW_SESSION={v}", "$env:BW_SESSION = '{v}'",
        "bw list items --session {v}", "bw get item x --session={v}",
        'To unlock your vault, set your session key to the `BW_SESSION` environment '
        'variable. ex:\n$ export BW_SESSION="{v}"', "export OP_SESSION_my={v}",
    ])).replace("{v}", v), v.rstrip("=")


@st.composite
def flag_key(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    v = draw(st.sampled_from([run(rng, _HEXDIGITS, 64), b64(rng.randbytes(32))]))
    flag = draw(st.sampled_from(["--certificate-key", "--encryption-key", "--master-key",
                                 "--unseal-key"]))
    sep = draw(st.sampled_from([" ", "=", " '"]))
    end = "'" if sep == " '" else ""
    return draw(st.sampled_from([
        "kubeadm join 10.0.0.1:6443 --control-plane {f}{s}{v}{e}",
        "sudo kubeadm init phase upload-certs --upload-certs {f}{s}{v}{e} --v=5",
        "tool {f}{s}{v}{e}"])).replace("{f}", flag).replace("{s}", sep).replace(
        "{v}", v).replace("{e}", end), v


@st.composite
def escaped_json(draw: st.DrawFn) -> Case:
    """A secret's key and value inside JSON escaped in a string (AWS's
    SecretString), at one depth of escaping or two."""
    rng = rng_of(draw)
    v = run(rng, draw(st.sampled_from([_ALNUM, _ALNUM + "!#%*+-_"])), draw(st.integers(12, 32)))
    name = draw(st.sampled_from(["password", "client_secret", "apiKey", "token", "db_password"]))
    inner = json.dumps({"username": "app", name: v, "port": 5432},
                       separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
    once = json.dumps({"Name": "prod/db", "SecretString": inner})
    text = draw(st.sampled_from([once, json.dumps({"out": once})]))
    return text, v


# -- cookies and session ids ---------------------------------------------------------------


@st.composite
def cookies(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    v = run(rng, draw(st.sampled_from([_ALNUM, _HEXDIGITS.upper(), _ALNUM + "-_"])),
            draw(st.integers(16, 48)))
    name = draw(st.sampled_from(["session", "sid", "_app_session", "auth"]))
    form = draw(st.sampled_from([
        'curl -b "{n}={v}" https://app.example.com/api/me',
        "curl -s --cookie '{n}={v}; theme=dark' https://x",
        "curl -b {n}={v} https://x", "curl --cookie={n}={v} -L https://x",
        "GET /app;jsessionid={v} HTTP/1.1", "https://h/x?PHPSESSID={v}&a=1",
        "https://b.s3.amazonaws.com/k?X-Amz-Security-Token={v}&X-Amz-Signature=" + "ab" * 32,
        "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t0\t{n}\t{v}",
        ".example.com\tTRUE\t/\tFALSE\t1893456000\t{n}\t{v}\n",
        # (a one-line field's collapse: its tabs made spaces)
        "# Netscape HTTP Cookie File .example.com TRUE / TRUE 0 {n} {v}",
    ]))
    return form.replace("{n}", name).replace("{v}", v), v


# -- what a command that prints a secret printed --------------------------------------------

PRINTERS = ("heroku auth:token", "op read op://Private/GitHub/password",
            "bw get password github.com", "pass show corp/db", "gh auth token",
            "gcloud auth print-access-token", "aws ecr get-login-password --region eu-west-1",
            "security find-generic-password -s corp -w", "openssl rand -base64 32",
            "keyring get system me", "vault kv get -field=password secret/db")


@st.composite
def printed(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    v = draw(st.sampled_from([uuid_of(rng), run(rng, _ALNUM, draw(st.integers(12, 40))),
                              run(rng, _ALNUM + "!#%+-_", 20), b64(rng.randbytes(32))]))
    prompt = draw(st.sampled_from(["$ ", "% ", "dev@box:~$ ", "❯ ", "  $ "]))
    after = draw(st.sampled_from(["", "\n", f"\n{prompt}ls"]))
    return prompt + draw(st.sampled_from(PRINTERS)) + "\n" + v + after, v


# -- codes under their label ----------------------------------------------------------------


@st.composite
def app_password(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    groups = ["".join(rng.choice(string.ascii_lowercase) for _ in range(4)) for _ in range(4)]
    v = draw(st.sampled_from([" ".join(groups), "".join(groups), "-".join(groups)]))
    form = draw(st.sampled_from([
        "Here is the Gmail app password Google gave me: {v}", "GMAIL_APP_PASSWORD={v}",
        "app-specific password: {v}", "my application password is {v}",
        'imap.login("bob@gmail.com", "{v}")', "server.login('bob@corp.io', '{v}')",
    ]))
    if ".login(" in form:
        v = " ".join(groups)
    return form.replace("{v}", v), "\u2063".join(groups[i] + groups[i + 1][:2]
                                                 for i in range(3))


@st.composite
def setup_key(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    groups = ["".join(rng.choice(_BASE32) for _ in range(4)) for _ in range(draw(
        st.integers(4, 8)))]
    v = " ".join(groups)
    v = draw(st.sampled_from([v, v.upper(), "".join(groups).upper()]))
    label = draw(st.sampled_from(["Authenticator setup key", "Your 2FA key", "TOTP secret",
                                  "MFA secret", "Setup key", "Manual entry key"]))
    return label + draw(st.sampled_from([": ", " - ", " is "])) + v, v


@st.composite
def recovery_codes(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    n = draw(st.integers(2, 10))
    shape = draw(st.sampled_from(["github", "google", "dashed"]))
    if shape == "github":
        codes = ["".join(rng.choice(_HEXDIGITS) for _ in range(5)) + "-"
                 + "".join(rng.choice(_HEXDIGITS) for _ in range(5)) for _ in range(n)]
    elif shape == "google":
        codes = [f"{rng.randrange(10**4):04d} {rng.randrange(10**4):04d}" for _ in range(n)]
    else:
        codes = ["-".join(run(rng, string.ascii_uppercase + string.digits, 4)
                          for _ in range(3)) for _ in range(n)]
    label = draw(st.sampled_from(["Here are my GitHub recovery codes:", "Backup codes",
                                  "recovery codes:", "Your 2FA backup codes are:"]))
    listed = draw(st.sampled_from(["plain", "dashes", "numbers", "inline"]))
    if listed == "inline":
        return label + " " + ", ".join(codes), "\u2063".join(codes)
    marks = {"plain": lambda i: "", "dashes": lambda i: "- ", "numbers": lambda i: f"{i + 1}. "}
    body = "\n".join(marks[listed](i) + c for i, c in enumerate(codes))
    gap = draw(st.sampled_from(["\n", "\n\n"]))
    after = draw(st.sampled_from(["", "\n\nKeep them somewhere safe."]))
    # (a Google code's two halves are runs of 4: each whole code is the value)
    return label + gap + body + after, "\u2063".join(codes)


# -- a known token written another way --------------------------------------------------------


@st.composite
def token_other_ways(draw: st.DrawFn) -> Case:
    rng = rng_of(draw)
    prefix = draw(st.sampled_from(["ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "npm_",
                                   "sk-ant-api03-", "AKIA"]))
    body = run(rng, string.ascii_uppercase + "234567" if prefix == "AKIA" else _ALNUM,
               16 if prefix == "AKIA" else 36)
    token = prefix + body
    how = draw(st.sampled_from(["hex", "HEX", "reversed", "vars", "keyring"]))
    if how in ("hex", "HEX"):
        h = token.encode().hex()
        h = h.upper() if how == "HEX" else h
        return draw(st.sampled_from(["echo {h} | xxd -r -p", "{h}", "TOKEN_HEX={h}"])).replace(
            "{h}", h), h[len(prefix) * 2:]
    if how == "reversed":
        return draw(st.sampled_from(["{r}", "echo {r} | rev"])).replace(
            "{r}", token[::-1]), body[::-1]
    if how == "keyring":
        v = run(rng, _ALNUM, draw(st.integers(10, 24)))
        return f"keyring set system me {v}", v
    if not prefix.startswith("gh"):
        prefix, token = "ghp_", "ghp_" + body
    cut = draw(st.integers(12, 24))
    a, b = token[:len(prefix) + cut], body[cut:]
    quote = draw(st.sampled_from(["", '"', "'"]))
    use = draw(st.sampled_from(['curl -H "Authorization: token $A$B"', 'echo "${A}${B}"',
                                'T="$A""$B"']))
    return f"A={quote}{a}{quote}; B={quote}{b}{quote}; {use}", body[:cut] + "\u2063" + b


CLASSES: dict[str, Any] = {
    "key-body": key_body(), "openssh-start": openssh_start(), "byte-array": byte_array(),
    "ansible-vault": ansible_vault(), "maven-master": maven_master(), "jwt-split": jwt_split(),
    "root-label": root_label(), "session-key": session_key(), "flag-key": flag_key(),
    "escaped-json": escaped_json(), "cookies": cookies(), "printed": printed(),
    "app-password": app_password(), "setup-key": setup_key(),
    "recovery-codes": recovery_codes(), "token-other-ways": token_other_ways(),
}


def _pieces(v: str) -> list[str]:
    return [p for p in v.split("\u2063") if p]


def _control(text: str, pieces: list[str]) -> str:
    for piece in sorted(pieces, key=len, reverse=True):
        text = text.replace(piece, CONTROL)
    return text


def _check_gate(case: Case) -> None:
    text, v = case
    out, n = DEFAULT.redact(text)
    pieces = _pieces(v)
    control = DEFAULT.redact(_control(text, pieces))[0]
    assert n >= 1, (text, out)
    assert not [p for p in pieces if leaked(out, control, p)], (text, out)


@settings(max_examples=examples(300, 3000), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_key_material_or_a_root_secret(case: Case) -> None:
    _check_gate(case)


# -- folded: the note and the state --------------------------------------------------------

PLACES = st.lists(st.sampled_from(["prompt", "answer", "command", "output", "error", "bang"]),
                  min_size=1, max_size=3, unique=True)


def _entries(text: str, places: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "set up the box"}}]
    for n, place in enumerate(places):
        tid = f"t{n}"
        if place == "prompt":
            out.append({"type": "user", "message": {"role": "user", "content": text}})
        elif place == "answer":
            out.append(shell._assistant(n, {"type": "text", "text": text}))
        elif place == "command":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": text, "description": "Run it"}}),
                    shell._result(tid, "ok", stdout="ok")]
        elif place == "output":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": "./show.sh"}}),
                    shell._result(tid, text, stdout=text)]
        elif place == "error":
            out += [shell._assistant(n, {"type": "tool_use", "id": tid, "name": "Bash",
                                         "input": {"command": "./deploy"}}),
                    shell._result(tid, "Exit code 1\n" + text, error=True)]
        else:  # a `!` command's output, as Claude Code writes it
            out += [{"type": "user", "message": {"role": "user",
                                                 "content": "<bash-input>cat notes</bash-input>"}},
                    {"type": "user", "message": {"role": "user", "content":
                     f"<bash-stdout>{text}</bash-stdout><bash-stderr></bash-stderr>"}}]
    out.append(shell._assistant(99, {"type": "text", "text": "All set."}))
    return out


def _fold(text: str, places: list[str]) -> tuple[str, bytes]:
    import msgspec

    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in shell._lines("s" * 8, _entries(text, places))])
    # (the digests of what was learned are hex: one of a hex value's runs of 6
    # is in one of them by chance, a value of the control's not)
    return render(state), msgspec.json.encode(_without_digests(msgspec.to_builtins(state)))


def _without_digests(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_digests(v) for k, v in value.items() if k != "learned"}
    if isinstance(value, list):
        return [_without_digests(v) for v in value]
    return value


@settings(max_examples=examples(40, 400), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_key_material_or_a_root_secret_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    text, v = case
    pieces = _pieces(v)
    note, state = _fold(text, places)
    control_note, control_state = _fold(_control(text, pieces), places)
    for piece in pieces:
        assert not leaked(note, control_note, piece), (text, places, piece)
        assert not leaked(state, control_state, piece), (text, places, piece)


# -- what is left whole ----------------------------------------------------------------------


@st.composite
def look_alikes(draw: st.DrawFn) -> str:
    """Ids, digests, base64 data, lists of numbers and words in groups that
    are no secret, under the labels and in the places of the forms above."""
    rng = rng_of(draw)
    u = uuid_of(rng)
    digest = rng.randbytes(32).hex()
    name = draw(st.text(string.ascii_lowercase, min_size=3, max_size=12))
    kind = draw(st.sampled_from(["ids", "digests", "mime", "numbers", "words", "commands",
                                 "sha", "json"]))
    if kind == "ids":
        return draw(st.sampled_from([
            "Accessor ID  = {u}\nName         = Bootstrap Token", "request id: {u}",
            "x-request-id: {u}", "secret_id_accessor    {u}", "Correlation ID = {u}",
            "aws secretsmanager get-secret-value --secret-id prod/db/main",
            "session {u} resumed", "Secret ID    = <none>"])).replace("{u}", u)
    if kind == "digests":
        lines = [rng.randbytes(32).hex() for _ in range(draw(st.integers(2, 5)))]
        return draw(st.sampled_from(["", "sha256sum:\n", "$ sha256sum *\n"])) + "\n".join(
            f"{h}  file{i}.tar.gz" if draw(st.booleans()) else h for i, h in enumerate(lines))
    if kind == "mime":  # base64 data as mail and `base64` wrap it: 76 columns
        data = b64(rng.randbytes(draw(st.integers(160, 800))))
        return "Content-Transfer-Encoding: base64\n\n" + "\n".join(
            data[i:i + 76] for i in range(0, len(data), 76))
    if kind == "numbers":
        count = draw(st.sampled_from([8, 32, 63, 65, 100]))
        values = [rng.randrange(256) for _ in range(count)]
        if draw(st.booleans()):
            values = [rng.randrange(256, 10**5) for _ in range(64)]
        return "data = " + json.dumps(values)
    if kind == "words":
        return draw(st.sampled_from([
            "an app password must have been made for this account",
            "the setup key will be shown here once", "recovery codes are stored in the vault",
            "Backup codes\nYou can use these codes to sign in.\n"])).replace("{u}", u)
    if kind == "commands":
        return draw(st.sampled_from([
            "curl -b cookies.txt -c cookies.txt https://x",
            "$ op read op://x/y/password\n[ERROR] 2026/01/01 could not read secret",
            "$ pass show corp/db\nError: corp/db is not in the password store.",
            "$ heroku auth:token\n ›   Warning: token will expire today",
            "kubeadm init --upload-certs --certificate-key $CERT_KEY",
            "export BW_SESSION=$(bw unlock --raw)", "git checkout -b feature/login-{d}",
            # (a Rust field of a reference type, as rustc quotes it in an error)
            "238 |     tokenizer: &{T},\n    |     ^^^ not found in this scope",
            "    secret_key: &[{T}],", "token = &mut self.{t}",
        ])).replace("{d}", digest[:8]).replace("{T}", name.capitalize()).replace("{t}", name)
    if kind == "sha":
        return draw(st.sampled_from([
            "integrity sha512-{b}", "image@sha256:{h}", "commit {g}", "etag: \"{h}\"",
            "h1:{b}", "checksum: {h}"])).replace("{h}", digest).replace(
            "{g}", digest[:40]).replace("{b}", b64(rng.randbytes(48)))
    return json.dumps({"output": json.dumps({"status": "ok", "id": u, "count": 3})})


@settings(max_examples=examples(200, 2000), deadline=None)
@given(look_alikes())
def test_look_alikes_of_key_material_and_root_secrets_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), text
