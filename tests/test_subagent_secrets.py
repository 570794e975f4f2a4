"""A secret learned in one file of a session (the main transcript or any
subagent's: `export DB_PASSWORD=…`, a `.env` read) leaves every text of the
session: the main agent's and every sibling subagent's, whichever file is read
first and however the reads are split.

Generated: the secret, which file teaches it and how, and the order in which
the files appear between `vv hook` runs (a subprocess each). Oracle: the value
the test planted never appears in the vault, the state dir (vault.db too),
`vv search` or `vv show`; and the note made by hooks between the files is the
one a single read of all of them makes (the fold law at those splits)."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process, strip_status

SID = "0badc0de-0000-4000-8000-0000000000a7"
CWD = "/tmp/subsecret"
FILES = ("main", "agent-a1", "agent-b2")


def _line(name: str, i: int, e: dict[str, Any]) -> str:
    extra: dict[str, Any] = {} if name == "main" else {
        "isSidechain": True, "agentId": name.removeprefix("agent-")}
    return json.dumps({"uuid": f"{name}-{i:04d}", "sessionId": SID, "cwd": CWD,
                       "timestamp": f"2026-01-01T00:{FILES.index(name):02d}:{i:02d}Z",
                       **extra, **e})


def _assistant(tag: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"id": f"m-{tag}", "model": "claude-x",
            "role": "assistant", "content": list(blocks),
            "usage": {"input_tokens": 1, "output_tokens": 1}}}


def _result(tid: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid, "content": content}]}, **extra}


def _teach(name: str, how: str, secret: str) -> list[dict[str, Any]]:
    """Entries by which file `name` learns the secret."""
    tid = f"teach-{name}"
    if how == "export":
        return [_assistant(tid, {"type": "tool_use", "id": tid, "name": "Bash",
                                 "input": {"command": f"export DB_PASSWORD={secret}"}}),
                _result(tid, "", toolUseResult={"stdout": "", "stderr": ""})]
    return [_assistant(tid, {"type": "tool_use", "id": tid, "name": "Read",
                             "input": {"file_path": f"{CWD}/.env"}}),
            _result(tid, f"     1\tAPP_DB_PASSWORD={secret}\n", toolUseResult={
                "type": "text", "file": {"filePath": f"{CWD}/.env",
                                         "content": f"APP_DB_PASSWORD={secret}\n"}})]


def _mention(name: str, secret: str) -> list[dict[str, Any]]:
    """Entries of file `name` that say the secret bare, in prose and in a
    command's description."""
    tid = f"say-{name}"
    return [_assistant(f"{tid}-t", {"type": "text", "text": f"Now {secret} is set up."}),
            _assistant(tid, {"type": "tool_use", "id": tid, "name": "Bash",
                             "input": {"command": "true",
                                       "description": f"check {secret} works"}}),
            _result(tid, "ok", toolUseResult={"stdout": "ok", "stderr": ""})]


def _contents(teacher: str, how: str, secret: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for name in FILES:
        entries = [{"type": "user", "message": {"role": "user", "content": "set the db up"}}] \
            if name == "main" else []
        entries += _teach(name, how, secret) if name == teacher else _mention(name, secret)
        if name == "main":
            entries.append(_assistant("end", {"type": "text", "text": "Done."}))
        out[name] = entries
    return out


def _path(env: Env, name: str) -> Path:
    slug = env.claude / "projects" / "-tmp-subsecret"
    if name == "main":
        return slug / f"{SID}.jsonl"
    return slug / SID / "subagents" / f"{name}.jsonl"


def _write(env: Env, name: str, entries: list[dict[str, Any]]) -> None:
    path = _path(env, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(_line(name, i, e) + "\n" for i, e in enumerate(entries)))


def _hook(env: Env, here: bool) -> None:
    event = {"hook_event_name": "Stop", "session_id": SID, "cwd": CWD,
             "transcript_path": str(_path(env, "main"))}
    r = env.hook_here(event) if here else env.hook(event)
    assert r.returncode == 0 and not r.stdout, r


# Each example runs ~12 vv commands (as processes in the first): shrinking a
# failure would take minutes, and the failing case is printed as drawn.
_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)

secrets = st.text(string.ascii_letters + string.digits, min_size=10, max_size=30).filter(
    lambda s: any(c.isdigit() for c in s)).map(lambda s: "Qz7" + s)


@settings(max_examples=examples(4, 30), deadline=None, phases=_NO_SHRINK,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=secrets, teacher=st.sampled_from(FILES),
       how=st.sampled_from(("export", "env-file")),
       order=st.permutations(FILES))
def test_a_secret_learned_in_any_file_leaves_every_file(
        tmp_path_factory: Any, secret: str, teacher: str, how: str,
        order: list[str]) -> None:
    contents = _contents(teacher, how, secret)
    here = in_process("subagent_secrets")
    # Split: the files appear one by one in the drawn order, a hook after each
    # (the main transcript's first line is there from the start).
    split = Env(tmp_path_factory.mktemp("split"))
    _write(split, "main", contents["main"][:1])
    for name in order:
        _write(split, name, contents[name])
        _hook(split, here)
    # Whole: everything at once, one hook.
    whole = Env(tmp_path_factory.mktemp("whole"))
    for name in FILES:
        _write(whole, name, contents[name])
    _hook(whole, here)
    for env in (split, whole):
        assert (env.vv_here("index") if here else env.vv("index")).returncode == 0
        found = env.traces(secret, SID, here=here)
        assert not found, (teacher, how, order, found)
    assert [strip_status(n) for n in split.notes().values()] == \
        [strip_status(n) for n in whole.notes().values()]
