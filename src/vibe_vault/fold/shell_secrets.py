"""Commands whose output is secrets: a secrets file read through a shell
(`cat .env`, `tail ~/.aws/credentials`), the environment printed (`env`,
`printenv`, `docker inspect`, `heroku config`), a secret store asked for one
(`gh auth token`, `op read`, `vault kv get`, `kubectl get secret -o yaml`).

What such a command printed is learned: its values are kept out of every text
of the session, before and after (the state keeps digests, never values).
Only the values that are secrets are learned from a dump of many (`env`
prints PATH and HOME too): those under a name that means a secret, or that
look random; a secrets file and a secret store's data are secrets whole.
"""

from __future__ import annotations

from typing import Any

from vibe_vault.fold.context import Context
from vibe_vault.fold.tools import is_secrets_file, learn_file
from vibe_vault.redact import a_name, about_a_secret, token_value
from vibe_vault.secret_printers import NAMES_A_SECRET, PRINTS_A_SECRET_CALL
from vibe_vault.text import rx

FILE = "file"  # a secrets file's text: every value
DUMP = "dump"  # NAME=value lines or JSON: secret-named or random values
WHOLE = "whole"  # the output is the secret
STORE = "store"  # a secret store's data section (kubectl secret, vault kv): every value
# A command the gate knows prints a secret: each line that is one word of 6 or
# more with a letter and a digit, or a UUID (as the gate reads the line after
# one pasted; `cat src/password_check.py` matches too, and its code is no secret).
PRINTED = "printed"
# `terraform output -json` (tofu, terragrunt): a sensitive output's every string.
OUTPUTS = "outputs"
# A command that names a secret (`jq -r .password creds.json`, `git config --get
# user.password`, `printenv DB_PASSWORD`, `vault token create -field=token`):
# each line that is one word and as random as a token (the gate's test).
NAMED = "named"

# Cheap first look: most commands name none of these programs.
_TRIGGER = (r"\b(?:cat|less|more|head|tail|bat|batcat|tac|nl|kubectl|printenv|env|set|docker"
            r"|podman|heroku|gh|aws|op|vault|echo|printf|security|pass|gcloud|az)\b")
_READERS = frozenset({"cat", "less", "more", "head", "tail", "bat", "batcat", "tac", "nl"})
_SEGMENTS = r"&&|\|\||[;|&\n]|\$\(|`|\)"
_WORD = r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\S+"
_PREFIXES = frozenset({"sudo", "command", "exec", "time", "nohup", "doas"})
_ASSIGN = r"[A-Za-z_]\w*=\S*\Z"
_VAR = r"\$\{?([A-Za-z_]\w*)\}?\Z"
# NAME=value, NAME: value, "name": "value" (a line of a dump).
_LINE_VALUE = (r"(?m)^\s*(?:export\s+|declare\s+-x\s+)?[\"']?([A-Za-z_][\w.\-]*)[\"']?"
               r"\s*(?:=|:)\s*[\"']?([^\s\"',][^\n]*?)[\"']?,?\s*$")
_NUMBERED = r"(?m)^\s*\d+(?:\t|\s*[│|→]\s?)"  # `cat -n`, `bat -n`
_BASE64 = r"[A-Za-z0-9+/]{8,}={0,2}\Z"
_UUID = r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\Z"
_PRINTED_VALUE = (r"(?=\S*[A-Za-z])(?=\S*[0-9])\S{6,300}\Z"
                  r"|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\Z")
MAX_OUTPUT = 200_000
# A secret's name in a command, as the gate's printed-secret rules read one
# (with a key's: `wg show wg0 private-key`, `client-key-data`).
_NAMES_A_SECRET = NAMES_A_SECRET + r"|(?i:private[_\-]?key|key-data)"
# Where an output may hold `name: value` under a secret's name; the gate reads
# such lines (and the one after each) and what it hides there is learned.
# A bare `key:` before a value, and a secret's key named so (`API key:`).
_BARE_KEY = r"(?i:(?<![\w.\-])key\s*[:=]\s*[\"']?\Z)"
_SECRET_KEY = (r"(?i:(?:api|access|secret|private|auth|signing|encryption|master|account"
               r"|storage|license)[\s_\-]*key\s*[:=]\s*[\"']?\Z)")
_KEY_WORDS = ("pass", "secret", "token", "key", "cred", "pwd", "auth", "://")
_NAME_THEN_VALUE = r"[^\n:=\t│|>]{0,40}?(?:[:=\t│|>]|[ \t]{2}|\n|\Z)"
_URL_PASSWORD = r"://[^\s/@:]{1,64}:[^\s/@]{1,128}@"
NAMED_LINES = 16  # places read per output (a test log says `token` often)
WINDOW_BEFORE = 60  # what is read around one (a longer value is cut: its pieces are learned)
WINDOW_AFTER = 240
_LIST_ITEM = r"\A\d{1,3}\)\s+"
_PLAIN_WORD = r"[A-Za-z0-9+/=_.\-]{8,300}\Z"
_TF_JSON = r"\b(?:terraform|tofu|terragrunt)[ \t]+output\b[^\n;&|]{0,200}-json"
_CRYPT = r"\$(?:2[aby]?|[156y]|argon2(?:id|i|d))\$[^\s$]{1,40}\$[./A-Za-z0-9]{16,}"


def _words(segment: str) -> list[str]:
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] and w[0] in "'\"" else w
            for w in rx(_WORD).findall(segment)]


def _secret_name(name: str) -> bool:
    from vibe_vault.secret_rules import SECRET_NAME  # (only here: see redact.rule_table)

    # (`SSH_AUTH_SOCK` is a socket's path, `DB_PASSWORD_FILE` a file's: what
    # `echo $SSH_AUTH_SOCK` prints, and ssh-add's words after it, are no secret)
    return bool(rx(r"(?i)" + SECRET_NAME).search(name)) and not about_a_secret(name)


def kind(command: str) -> str:
    """What a command's output holds for `learn_output`: FILE, DUMP, WHOLE,
    STORE, or "" (nothing to learn)."""
    if rx(_TF_JSON).search(command[:4096]):
        return OUTPUTS
    if not rx(_TRIGGER).search(command):
        # One the gate knows prints a secret (`wg genkey`, `argocd admin
        # initial-password`, `terraform output -raw db_password`, `pwgen`):
        # 112 of 150 such commands taught nothing (attack 25, R5).
        if rx(PRINTS_A_SECRET_CALL).search(command[:4096]):
            return PRINTED
        return NAMED if _names_a_secret(command) else ""
    found = ""
    for segment in rx(_SEGMENTS).split(command[:4096]):
        words = _words(segment)
        while words and (words[0] in _PREFIXES or rx(_ASSIGN).match(words[0])):
            words.pop(0)
        if not words:
            continue
        got = _segment_kind(words[0].rsplit("/", 1)[-1], words[1:])
        # A file or a store's data beats a dump (every value, not some).
        if got and (not found or got in (FILE, STORE)):
            found = got
    # (a dump's values are learned by their names; one the table knows prints
    # the secret alone, `az account get-access-token … -o tsv`)
    if found in ("", DUMP) and rx(PRINTS_A_SECRET_CALL).search(command[:4096]):
        found = PRINTED
    if not found and _names_a_secret(command):
        found = NAMED
    return found


def _segment_kind(prog: str, args: list[str]) -> str:
    plain = [a for a in args if not a.startswith("-")]
    if prog in _READERS:
        return FILE if any(is_secrets_file(a) for a in plain) else ""
    if prog == "kubectl" and "get" in plain and any(
            a in ("secret", "secrets") or a.startswith(("secret/", "secrets/")) for a in plain):
        shaped = " ".join(args)
        return WHOLE if ("jsonpath" in shaped or "go-template" in shaped) else STORE
    if prog in ("env", "set") and not plain:
        return DUMP
    if prog == "printenv":
        return DUMP if not plain else WHOLE if any(_secret_name(a) for a in plain) else ""
    if prog in ("docker", "podman") and "inspect" in plain:
        return DUMP
    if prog == "heroku" and plain:
        if plain[0] == "config":
            return DUMP
        if plain[0] == "config:get":
            return WHOLE
    if prog == "gh" and plain[:2] == ["auth", "token"]:
        return WHOLE
    if prog == "aws" and plain[:2] == ["configure", "get"]:
        return WHOLE if any(_secret_name(a) for a in plain[2:]) else ""
    if prog == "aws" and (plain[:2] == ["configure", "export-credentials"]
                          or "get-session-token" in plain or "assume-role" in plain):
        return DUMP
    if prog == "op" and plain[:1] == ["read"]:
        return WHOLE
    if prog == "op" and plain[:2] == ["item", "get"]:
        return WHOLE if any(a.startswith("--field") for a in args) else DUMP
    if prog == "vault" and plain[:1] in (["read"], ["kv"]):
        return WHOLE if any(a.startswith("-field") for a in args) else STORE
    if prog in ("echo", "printf"):
        names = [m.group(1) for a in plain if (m := rx(_VAR).match(a))]
        return WHOLE if any(_secret_name(n) for n in names) else ""
    if prog == "security" and plain[:1] in (["find-generic-password"],
                                            ["find-internet-password"]) and "-w" in args:
        return WHOLE
    if prog == "pass" and plain[:1] != ["ls"]:
        return WHOLE if plain else ""
    if prog == "gcloud" and any(a.startswith("print-") and a.endswith("token") for a in plain):
        return WHOLE
    if prog == "az" and "get-access-token" in plain:
        return DUMP
    return ""


def learn_output(ctx: Context, what: str, output: str) -> None:
    """Learn the secrets a command of kind `what` printed."""
    output = output[:MAX_OUTPUT].strip()
    if not output or not what:
        return
    values: list[str] = []
    if what == FILE:
        text = rx(_NUMBERED).sub("", output)
        parsed = _json(text)
        if parsed is None:
            learn_file(ctx, text)
            return
        _walk(parsed, False, False, values)  # ~/.docker/config.json
    elif what == WHOLE:
        values = [output, *(ln.strip() for ln in output.splitlines())]
    elif what == PRINTED:
        # (not a name: `ls` of the file read prints its path, review 31 F13)
        values = [ln.strip() for ln in output.splitlines()
                  if rx(_PRINTED_VALUE).match(ln.strip()) and not a_name(ln)]
        # a short line's random words too (`bob * X *` of chap-secrets, `prod db: X`)
        # (words of letters or digits: a table's rules `│` are none)
        values += [w for ln in output.splitlines()[:1000]
                   if 1 < len(ws := [w for w in ln.split() if rx(r"\w").search(w)]) <= 4
                   for w in ws if rx(_PLAIN_WORD).match(w) and _a_secret(w)]
    elif what == OUTPUTS:
        parsed = _json(output)
        if parsed is not None:
            _outputs(parsed, values)
    elif what == NAMED:
        # (a line as redis-cli numbers and quotes it: `2) "X"`)
        values = [w for ln in output.splitlines()[:1000]
                  if len(w := rx(_LIST_ITEM).sub("", ln.strip()).strip("\"'")) <= 300
                  and _a_secret(w) and not rx(r"\s").search(w)]
    else:
        parsed = _json(output)
        if parsed is not None:
            _walk(parsed, what == STORE, False, values)
        elif what == STORE:
            values = _store_values(output, ctx)
        else:
            # (under a secret's name, what the gate calls one: not `${DB_PASSWORD}`)
            values = [v for n, v in _pairs(output)
                      if (_secret_name(n) and _gate_hides(ctx, v)) or _random(v)]
        if not values:
            # its data cut out and decoded (`… -o json | jq -r .data.token | base64 -d`)
            # (not a NAME=value line: its value was judged above, `RUN_ID=<a dated name>`)
            values = [w for ln in output.splitlines()[:1000]
                      if len(w := ln.strip()) <= 300 and not rx(r"\s").search(w) and _a_secret(w)
                      and not rx(_LINE_VALUE).match(w)]
    ctx.learn(_with_decoded([v for v in values if v]))


def learn_named(ctx: Context, output: str) -> None:
    """Learn what the gate hides in any command's output under a secret's
    name (`"password": "…"` of `terraform output -json`, `password=…` of `git
    credential fill`, `token: …` of a kubeconfig, `SecretAccessKey`): the
    lines that hold a secret's word, each with the line after it, go through
    the gate; a value it hides that is as random as a token is learned (a
    word, a placeholder, a time stays: `password: TODO`)."""
    output = output[:MAX_OUTPUT]
    lines = _key_windows(output)
    if not lines:
        return
    found: list[str] = []
    read = "\n\n".join(lines)
    ctx.redactor.redact(read, found)
    # (a UUID under a secret's name is one: consul's `SecretID`, nomad's `Secret ID`)
    values = [v.strip() for v in found if _named_before(read, v)
              and (_a_secret(v.strip()) or rx(_UUID).match(v.strip()))]
    if values:
        ctx.learn(_with_decoded(values))


def _key_windows(output: str) -> list[str]:
    """The text around the first NAMED_LINES places holding a secret's word
    (or a URL's `://user:password@`): from a little before it to a little
    after, within its line, and the next line when the window reaches the
    line's end (YAML's `password:` then the value). Found word by word with
    str.find: a regex of seven words and no literal prefix took 0.1 s to
    read 200 kB that hold none (most outputs)."""
    low = output.lower()
    places: list[int] = []
    for word in _KEY_WORDS:
        at = low.find(word)
        found = 0
        while at >= 0 and found < NAMED_LINES:
            # (a name then its value: `:`, `=`, a column, a tag, the line's end;
            # not `the token was refreshed after …`)
            if rx(_URL_PASSWORD).match(low, at) if word == "://" else \
                    rx(_NAME_THEN_VALUE).match(low, at + len(word)):
                places.append(at)
                found += 1
            at = low.find(word, at + WINDOW_AFTER)
    windows: list[str] = []
    done = -1
    for at in sorted(places):
        if at < done:
            continue  # (in the window before)
        line_start = output.rfind("\n", 0, at) + 1
        line_end = output.find("\n", at)
        line_end = len(output) if line_end < 0 else line_end
        start, done = max(line_start, at - WINDOW_BEFORE), min(line_end, at + WINDOW_AFTER)
        window = output[start:done]
        if done == line_end and done < len(output):
            after = output.find("\n", done + 1)
            window += "\n" + output[done + 1:after if after >= 0 else len(output)][:WINDOW_AFTER]
        windows.append(window)
        if len(windows) >= NAMED_LINES:
            break
    return windows


def _gate_hides(ctx: Context, value: str) -> bool:
    """Whether the gate hides this value given to a password (not a
    placeholder, a variable, a type: `${DB_PASSWORD}`, `changeme`, `string`),
    and it is no word (`tokenizer: AutoTokenizer`) or path (`secret_ref:
    projects/app/secrets/db`) unless random."""
    return ctx.redactor.redact(f"password={value}")[1] > 0 and (
        _a_secret(value) or not (value.isalpha() or "/" in value))


def _named_before(read: str, value: str) -> bool:
    """Whether the value is not after a bare `key:` (the gate hides a random
    value after one in prose too: a cache's key in a CI log is no secret;
    an API key's is)."""
    at = read.find(value)
    if at < 0:
        return True  # (a value the gate found decoded or joined: its own judgement)
    before = read[max(0, at - 40):at]
    return not rx(_BARE_KEY).search(before) or bool(rx(_SECRET_KEY).search(before))


def _a_secret(value: str) -> bool:
    """A value the gate would call a token (a digit, or letters at random;
    no word, path, number or placeholder), or a long one of letters and
    digits (a key, a hash); not a name (a time, words around a date, a path
    of words: redact.a_name, the gate's judgement)."""
    if value.startswith("-----BEGIN") or rx(_CRYPT).search(value[:80]):
        return True  # a key block, a password's hash (`$6$salt$…`, htpasswd's `$2y$`)
    if rx(r"\s|\\[nrt]").search(value):
        return False  # (a value run on to the next line, `12\ntool_uses:`, escaped or not)
    return token_value(value, quoted=True) or (
        # (base64 has a slash or so; a path of words, several)
        len(value) >= 24 and value[0] != "/" and value.count("/") < 4
        and bool(rx(_BASE64).match(value)) and not a_name(value)
        and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _names_a_secret(command: str) -> bool:
    """Whether a command names a secret (not `pwd`, the shell's own)."""
    return any(m.group(0).lower() != "pwd" or not rx(r"(?<![\w\-])pwd(?![\w\-])").match(
        command, m.start()) for m in rx(_NAMES_A_SECRET).finditer(command[:4096]))


def _outputs(parsed: Any, out: list[str]) -> None:
    """Every string of a sensitive output's value (`terraform output -json`:
    `{"db": {"sensitive": true, "value": …}}`); a value not marked sensitive
    as a dump's (secret-named keys, random strings)."""
    if not isinstance(parsed, dict):
        return
    for item in parsed.values():
        if isinstance(item, dict) and "value" in item:
            _walk(item["value"], item.get("sensitive") is True, item.get("sensitive") is True, out)


def _json(text: str) -> Any:
    if text[:1] not in "{[":
        return None
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def _walk(value: Any, store: bool, in_data: bool, out: list[str], name: str = "") -> None:
    """The secrets of a JSON output: under a data key of a store every string;
    elsewhere a string under a secret name, a random one, and NAME=value
    strings (docker's Env) by the same test."""
    if isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            _walk(v, store, in_data or (store and key in ("data", "stringData")), out, key)
    elif isinstance(value, list):
        for v in value:
            _walk(v, store, in_data, out, name)
    elif isinstance(value, str) and value:
        # NAME=value (docker's Env), not a base64 text's padding.
        pair = None if rx(_BASE64).match(value) else rx(r"([A-Za-z_]\w*)=(.+)\Z").match(value)
        if pair and not in_data:
            if _secret_name(pair.group(1)) or _random(pair.group(2)):
                out.append(pair.group(2))
        elif in_data or _secret_name(name) or _random(value):
            out.append(value)


def _pairs(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).strip()) for m in rx(_LINE_VALUE).finditer(text)]


def _store_values(text: str, ctx: Context) -> list[str]:
    """Every value of a store's data section: `data:` in kubectl's YAML,
    `=== Data ===` in vault's table; outside it, what a dump would give."""
    values: list[str] = []
    in_data = False
    for line in text.splitlines():
        stripped = line.strip()
        if rx(r"^(?:data|stringData):\s*$").match(line) or rx(r"^=+ *Data *=+$").match(stripped):
            in_data = True
            continue
        if in_data and (not line.strip() or rx(r"^=+ .* =+$").match(stripped)
                        or (line[:1].isalpha() and ":" in line and "  " not in line)):
            in_data = False
        if not in_data:
            m = rx(_LINE_VALUE).match(line)
            if m and ((_secret_name(m.group(1)) and _gate_hides(ctx, m.group(2).strip()))
                      or _random(m.group(2))):
                values.append(m.group(2).strip())
            continue
        if rx(r"^(?:Key\s+Value|-+\s+-+)\s*$").match(stripped):
            continue
        m = rx(r"^\s*[\"']?[\w.\-/]+[\"']?\s*(?::\s*|\s{2,})(.+?)\s*$").match(line)
        if m:
            values.append(m.group(1).strip("'\""))
    return values


def _random(value: str) -> bool:
    """A value that looks made by a machine for a secret: long, letters and
    digits, no spaces; not a path list, a UUID or a hex digest (ids, shas)."""
    value = value.strip()
    return (len(value) >= 20 and not rx(r"\s").search(value)
            and bool(rx(r"[A-Za-z]").search(value)) and bool(rx(r"\d").search(value))
            and not value.startswith(("/", "~", "."))
            and not rx(r"^[0-9a-fA-F]+\Z").match(value) and not rx(_UUID).match(value)
            and value.count("/") + value.count(":") < 3 and not a_name(value))


def _with_decoded(values: list[str]) -> list[str]:
    """Values with what a base64 one decodes to (a Kubernetes Secret's data, a
    docker `auth`), and the password of a `user:password` pair."""
    import base64

    out = list(values)
    for v in values:
        if not rx(_BASE64).match(v) or len(v) % 4:
            continue
        try:
            text = base64.b64decode(v, validate=True).decode("utf-8")
        except ValueError:
            continue
        if not text.isprintable() and not all(c.isprintable() or c in "\n\t\r" for c in text):
            continue
        out.append(text)
        parsed = _json(text.strip())
        if parsed is not None:
            inner: list[str] = []
            _walk(parsed, False, False, inner)  # a docker config's `auth`
            out += _with_decoded(inner) if len(inner) < 50 else inner
        elif ":" in text and "\n" not in text.strip():
            out.append(text.split(":", 1)[1])
    return out
