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
from vibe_vault.secret_printers import PRINTS_A_SECRET_CALL
from vibe_vault.text import rx

FILE = "file"  # a secrets file's text: every value
DUMP = "dump"  # NAME=value lines or JSON: secret-named or random values
WHOLE = "whole"  # the output is the secret
STORE = "store"  # a secret store's data section (kubectl secret, vault kv): every value
# A command the gate knows prints a secret: each line that is one word of 6 or
# more with a letter and a digit, or a UUID (as the gate reads the line after
# one pasted; `cat src/password_check.py` matches too, and its code is no secret).
PRINTED = "printed"

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


def _words(segment: str) -> list[str]:
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] and w[0] in "'\"" else w
            for w in rx(_WORD).findall(segment)]


def _secret_name(name: str) -> bool:
    from vibe_vault.secret_rules import SECRET_NAME  # (only here: see redact.rule_table)

    return bool(rx(r"(?i)" + SECRET_NAME).search(name))


def kind(command: str) -> str:
    """What a command's output holds for `learn_output`: FILE, DUMP, WHOLE,
    STORE, or "" (nothing to learn)."""
    if not rx(_TRIGGER).search(command):
        # One the gate knows prints a secret (`wg genkey`, `argocd admin
        # initial-password`, `terraform output -raw db_password`, `pwgen`):
        # 112 of 150 such commands taught nothing (attack 25, R5).
        return PRINTED if rx(PRINTS_A_SECRET_CALL).search(command[:4096]) else ""
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
        values = [ln.strip() for ln in output.splitlines()
                  if rx(_PRINTED_VALUE).match(ln.strip())]
    else:
        parsed = _json(output)
        if parsed is not None:
            _walk(parsed, what == STORE, False, values)
        elif what == STORE:
            values = _store_values(output)
        else:
            values = [v for n, v in _pairs(output) if _secret_name(n) or _random(v)]
    ctx.learn(_with_decoded([v for v in values if v]))


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


def _store_values(text: str) -> list[str]:
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
            if m and (_secret_name(m.group(1)) or _random(m.group(2))):
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
            and value.count("/") + value.count(":") < 3)


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
