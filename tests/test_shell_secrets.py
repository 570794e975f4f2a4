"""Secrets a shell command printed (a secrets file read with `cat`, the
environment dumped, a secret store asked) or wrote into a `.env` file (echo,
printf, tee, sed -i) are learned: the value is in no text
of the session, said before the command or after it, in any place.

Generated: secrets files and stores x the commands that read them x where the
value comes back (prompt, answer, another command, an error, the title) x
before or after. Oracle: the value's bytes, which the test chose, are nowhere
in the note or the state (in process, many cases) and nowhere in the vault,
the state dir, `vv search` or `vv show` (end to end through the hook).
"""

from __future__ import annotations

import base64
import json
import string
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# What each reading command prints when the secret is `v`: (command, output).
# Decoys (PATH, HOME, LANG, a region) sit beside it, as a real dump has them.
def _sources(v: str) -> dict[str, tuple[str, str]]:
    return {
        "cat .env": ("cat .env", f"# app\nAPP_SETTING={v}\nDEBUG=1\n"),
        "cat .env.local": ("cat .env.local", f"export DATABASE_PASS='{v}'\n"),
        "less .env": ("less /srv/app/.env", f"MAIL_PASS={v}\n"),
        "head .env.production": ("head -n 5 .env.production", f"STRIPE_KEY=\"{v}\"\n"),
        "tail .env": ("tail .env | cat", f"SOME_VALUE={v}\n"),
        "bat .env": ("bat --plain .env", f"SESSION_SALT={v}\n"),
        "cat -n .env": ("cat -n .env", f"     1\tFIRST=plain\n     2\tWEBHOOK={v}\n"),
        "aws credentials": ("cat ~/.aws/credentials",
                            f"[default]\naws_access_key_id = AKIAEXAMPLE\n"
                            f"aws_secret_access_key = {v}\n"),
        "docker config": ("cat ~/.docker/config.json",
                          json.dumps({"auths": {"registry.example.com": {
                              "auth": _b64(f"deployer:{v}")}}}, indent=2)),
        "kubectl yaml": ("kubectl get secret db-creds -o yaml",
                         f"apiVersion: v1\ndata:\n  password: {_b64(v)}\n  user: {_b64('app')}\n"
                         "kind: Secret\nmetadata:\n  name: db-creds\n  namespace: default\n"
                         "type: Opaque\n"),
        "kubectl json": ("kubectl get secrets db-creds -o json",
                         json.dumps({"apiVersion": "v1", "data": {"pw": _b64(v)},
                                     "kind": "Secret", "metadata": {"name": "db-creds"}})),
        "kubectl jsonpath": ("kubectl get secret db -o jsonpath='{.data.pw}' | base64 -d", v),
        "printenv": ("printenv", f"PATH=/usr/bin:/bin\nHOME=/home/u\nLANG=en_GB.UTF-8\n"
                                 f"DB_PASSWORD={v}\n"),
        "env": ("env | sort", f"HOME=/home/u\nSTRIPE_SECRET_KEY={v}\nLANG=en_GB.UTF-8\n"),
        "set": ("set", f"BASH=/bin/bash\nAPI_TOKEN={v}\nLANG=en_GB.UTF-8\n"),
        "docker inspect": ("docker inspect web", json.dumps([{"Config": {"Env": [
            "PATH=/usr/bin", f"POSTGRES_PASSWORD={v}", "LANG=en_GB.UTF-8"]}}], indent=2)),
        "heroku config": ("heroku config -a shop",
                          f"=== shop Config Vars\nLANG: en_GB.UTF-8\nSECRET_KEY_BASE: {v}\n"),
        "gh auth token": ("gh auth token", v),
        "aws configure get": ("aws configure get aws_secret_access_key", v),
        "op read": ("op read op://Private/db/password", v),
        "vault kv get": ("vault kv get secret/app",
                         "====== Metadata ======\nKey              Value\n---              -----\n"
                         "created_time     2026-01-01T00:00:00Z\nversion          3\n\n"
                         f"====== Data ======\nKey         Value\n---         -----\n"
                         f"db_pass     {v}\n"),
        "vault kv get json": ("vault kv get -format=json secret/app",
                              json.dumps({"data": {"data": {"pass": v}, "metadata": {
                                  "version": 3}}}, indent=2)),
        "vault -field": ("vault kv get -field=pass secret/app", v),
        # Commands that write a .env file: the value is in the command itself.
        "echo >> .env": (f"echo 'APP_SETTING={v}' >> .env", ""),
        "printf > .env": (f"printf 'QUUX={v}\\n' > .env.local", ""),
        "tee .env": (f"echo \"W={v}\" | tee -a .env", f"W={v}\n"),
        "sed -i .env": (f"sed -i 's/^QUUX=.*/QUUX={v}/' .env", ""),
        "sed -i '' .env": (f"sed -i '' 's|^TOKEN=.*|TOKEN={v}|' config/.env.production", ""),
    }


SOURCES = sorted(_sources("x"))
PLACES = ("prompt", "answer", "command", "error", "title", "description")

# A value made of letters and digits, as random as a real one, yet one the
# shape rules need not know: only learning takes it out.
values = st.builds(
    lambda head, body: head + body,
    st.sampled_from(["Qz", "Wm", "Pk", "Zr"]),
    st.text(string.ascii_letters + string.digits, min_size=10, max_size=22),
).filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v[2:]))


def _entries(v: str, source: str, places: list[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A session: the value said in each place before the read (False) or
    after it (True), and the read of `source` between."""
    command, output = _sources(v)[source]
    n = 0

    def said(place: str) -> list[dict[str, Any]]:
        nonlocal n
        n += 1
        if place == "prompt":
            return [{"type": "user", "message": {"role": "user",
                                                 "content": f"use {v} for the login"}}]
        if place == "answer":
            return [_assistant(n, {"type": "text", "text": f"The password is {v}; en_GB.UTF-8"})]
        if place == "title":
            return [{"type": "ai-title", "aiTitle": f"Rotate {v} key"}]
        tid = f"p{n}"
        if place == "description":
            return [_assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
                "command": "ls", "description": f"check {v} works"}}),
                _result(tid, "ok", stdout="ok")]
        if place == "command":
            return [_assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
                "command": f"curl -H 'X-Login: {v}' localhost"}}), _result(tid, "ok", stdout="ok")]
        return [_assistant(n, {"type": "tool_use", "id": tid, "name": "Bash", "input": {
            "command": "psql -c 'select 1'"}}),
            _result(tid, f"Exit code 2\npsql: login rejected for {v}", error=True)]

    out: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user",
                                                              "content": "check the config"}}]
    for place, after in places:
        if not after:
            out += said(place)
    out += [_assistant(90, {"type": "tool_use", "id": "read", "name": "Bash",
                            "input": {"command": command}}),
            _result("read", output, stdout=output)]
    for place, after in places:
        if after:
            out += said(place)
    out.append(_assistant(99, {"type": "text", "text": "Done; LANG is en_GB.UTF-8."}))
    return out


def _assistant(i: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"id": f"m{i}", "model": "claude-x",
            "role": "assistant", "content": list(blocks),
            "usage": {"input_tokens": 1, "output_tokens": 1}}}


def _result(tid: str, content: str, error: bool = False, stdout: str = "") -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if error:
        block["is_error"] = True
    e: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]}}
    if not error:
        e["toolUseResult"] = {"stdout": stdout, "stderr": "", "interrupted": False}
    return e


def _lines(sid: str, entries: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps({"uuid": f"{sid[:8]}-{i}", "sessionId": sid, "cwd": "/srv/app",
                        "timestamp": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", **e}).encode()
            for i, e in enumerate(entries)]


cases = st.tuples(
    values, st.sampled_from(SOURCES),
    st.lists(st.tuples(st.sampled_from(PLACES), st.booleans()), min_size=1, max_size=4,
             unique=True),
)


@settings(max_examples=examples(30, 300), deadline=None)
@given(cases, st.integers(0, 1000))
def test_a_value_printed_by_a_secrets_reading_command_is_in_no_text(
        case: tuple[str, str, list[tuple[str, bool]]], cut: int) -> None:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    v, source, places = case
    lines = [decode_line(x) for x in _lines("s" * 8, _entries(v, source, places))]
    whole = SessionState(session_id="s")
    fold(whole.fold, lines)
    note = render(whole)
    assert v not in note, (source, places)
    assert v.encode() not in msgspec.json.encode(whole)
    if any(p == "answer" for p, _ in places):
        assert "en_GB.UTF-8" in note  # a dump's other values are not taken for secrets
    # The same in two reads, split anywhere (the fold law).
    at = cut % (len(lines) + 1)
    parts = SessionState(session_id="s")
    fold(parts.fold, lines[:at])
    fold(parts.fold, lines[at:])
    assert msgspec.json.encode(parts) == msgspec.json.encode(whole)


def test_no_false_learning_from_ordinary_commands() -> None:
    """Commands that print no secrets teach nothing; a dump teaches only the
    values that are secrets."""
    from vibe_vault.fold import shell_secrets

    for command in ("ls -la", "cat README.md", "cat .env.example", "env FOO=1 python x.py",
                    "aws configure get region", "echo $HOME", "printenv HOME",
                    "kubectl get pods", "git status", "head -n 3 src/env.py"):
        assert shell_secrets.kind(command) == "", command
    v = "Qz" + "a1" * 8
    values = _entries(v, "printenv", [("answer", True)])
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.fold.context import learned_keys, variant_keys
    from vibe_vault.state import SessionState

    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in _lines("s" * 8, values)])
    # The value (and its other spellings), not PATH, HOME, LANG.
    assert set(learned_keys(v)) <= set(state.fold.learned) <= {*learned_keys(v), *variant_keys(v)}
    for other in ("/usr/bin:/bin", "/usr/bin", "/home/u", "en_GB.UTF-8", "UTF-8"):
        assert not {*learned_keys(other), *variant_keys(other)} & set(state.fold.learned), other


@settings(max_examples=examples(6, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cases, st.booleans())
def test_end_to_end_the_value_is_in_no_file_search_or_show(
        case: tuple[str, str, list[tuple[str, bool]]], two_reads: bool) -> None:
    v, source, places = case
    here = in_process("shell_secrets end to end")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000027"
        lines = _lines(sid, _entries(v, source, places))
        if two_reads:  # the value said in one hook's read, the secret printed in the next
            env.stop(sid, env.transcript(sid, lines[:2]), here=here)
        env.stop(sid, env.transcript(sid, lines), here=here)
        assert env.notes()
        assert env.vv_here("index").returncode == 0
        leaks = env.traces(v, sid, here=here)
        assert not leaks, (source, places, leaks)
