"""No line of a transcript is lost because of another line's time or place.

Review 28, finding 10: Claude Desktop (2.1.21x) writes a session's file with
its `queue-operation` rows (and `mode`, titles) first, stamped hours after the
conversation lines that follow them; vv took the earlier conversation for a
fork's copies and dropped it (030df228 lost 8 hours: 2 of 4 prompts, a commit
and 2/3 of its tokens; 9ccc706b its first prompt, so its title).

Generated: sessions of prompts, each answered by a `git commit` (its sha and
subject printed) and a reply, every API message with its own usage; into them
go rows of every other type Claude Code writes (queue-operation, mode, summary,
titles, file-history-snapshot, attachment, system, progress, last-prompt,
permission-mode) at any place, stamped before, after or at the time of the
conversation, and a conversation line may carry a time out of order. The
oracle is the JSON: every prompt's words and every commit's sha are in the
note; its tokens are the sum of each message id's usage; it starts at the
earliest time of a conversation line (one with a uuid). The fold read in two
parts, cut anywhere, equals the fold of the whole; `vv hook` Stops while the
file grows give the note `vv backfill` gives.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, strip_status
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

SID = "5e55a0aa-1111-4222-8333-944455556666"
BASE = datetime(2026, 7, 28, 21, 9, tzinfo=UTC)
WORDS = ["alpha", "brick", "cedar", "delta", "ember", "fjord", "gravel", "harbor",
         "indigo", "juniper", "kettle", "lantern", "meadow", "nickel", "orchid"]


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _usage(draw: st.DrawFn) -> dict[str, int]:
    return {"input_tokens": draw(st.integers(0, 500)),
            "output_tokens": draw(st.integers(1, 5000)),
            "cache_read_input_tokens": draw(st.integers(0, 90000)),
            "cache_creation_input_tokens": draw(st.integers(0, 9000))}


@st.composite
def sessions(draw: st.DrawFn, noisy: bool = True,
             least: int = 1) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A session's lines, and what the JSON says of it (before the noise)."""
    n = draw(st.integers(least, 4))
    # (Claude Desktop's lines, as it writes them: a file the command line wrote
    # that opens with a queue row stamped after the lines that follow is a
    # fork's, whose earlier lines are copies: tests/test_forks.py)
    base = {"sessionId": SID, "cwd": "/srv/app", "version": "2.1.219",
            "gitBranch": "main", "isSidechain": False, "userType": "external",
            "entrypoint": "claude-desktop"}
    lines: list[dict[str, Any]] = []
    prompts, shas = [], []
    t = BASE
    parent: str | None = None

    def add(kind: str, **fields: Any) -> None:
        nonlocal parent, t
        t += timedelta(seconds=draw(st.integers(1, 4000)))
        uuid = f"00000000-0000-4000-8000-{len(lines):012d}"
        lines.append({**base, "type": kind, "uuid": uuid, "parentUuid": parent,
                      "timestamp": iso(t), **fields})
        parent = uuid

    for i in range(n):
        words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5)))
        prompt = f"please build part {i} {words}"
        sha = f"{draw(st.integers(0x1000000, 0xfffffff)):07x}"
        subject = f"feat: part {i} {words}"
        prompts.append(prompt)
        shas.append(sha)
        add("user", message={"role": "user", "content": prompt})
        add("assistant", requestId=f"req_{i}a", message={
            "id": f"msg_{i}a", "model": "claude-sonnet-4-5", "role": "assistant",
            "type": "message", "usage": _usage(draw),
            "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                         "input": {"command": f'git commit -m "{subject}"'}}]})
        out = f"[main {sha}] {subject}\n 1 file changed, 3 insertions(+)"
        add("user", toolUseResult={"stdout": out, "stderr": "", "interrupted": False},
            message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": out,
                 "is_error": False}]})
        add("assistant", requestId=f"req_{i}b", message={
            "id": f"msg_{i}b", "model": "claude-sonnet-4-5", "role": "assistant",
            "type": "message", "usage": _usage(draw),
            "content": [{"type": "text", "text": f"Committed part {i}."}]})
    if not noisy:
        return lines, {"prompts": prompts, "shas": shas}
    if draw(st.booleans()):
        # a conversation line stamped out of order, hours before or after
        k = draw(st.integers(0, len(lines) - 1))
        hours = draw(st.sampled_from([-30, -3, 3, 30]))
        lines[k]["timestamp"] = iso(datetime.fromisoformat(
            lines[k]["timestamp"].replace("Z", "+00:00")) + timedelta(hours=hours))
    first, last = BASE, t
    noise = draw(st.lists(_noise(first, last, prompts), max_size=8))
    for row in noise:
        lines.insert(draw(st.integers(0, len(lines))), row)
    return lines, {"prompts": prompts, "shas": shas}


@st.composite
def _noise(draw: st.DrawFn, first: datetime, last: datetime,
           prompts: list[str]) -> dict[str, Any]:
    """A row of a type that is not a prompt or an answer, stamped anywhere."""
    when = draw(st.sampled_from([
        first - timedelta(hours=9), first, first + (last - first) / 2, last,
        last + timedelta(hours=8)]))
    ts = iso(when)
    uuid = f"11111111-0000-4000-8000-{draw(st.integers(0, 10**9)):012d}"
    kind = draw(st.sampled_from([
        "enqueue", "dequeue", "mode", "summary", "custom-title", "ai-title",
        "file-history-snapshot", "attachment", "system", "progress", "last-prompt",
        "permission-mode"]))
    own = {"sessionId": SID, "entrypoint": "claude-desktop"}  # (Desktop writes it on its rows)
    if kind == "enqueue":
        # the words of one of the session's prompts (as Claude Desktop's rows
        # carry them), or others
        content = draw(st.sampled_from([*prompts, "a prompt typed while Claude worked"]))
        return {**own, "type": "queue-operation", "operation": "enqueue",
                "timestamp": ts, "content": content}
    if kind == "dequeue":
        return {**own, "type": "queue-operation", "operation": "dequeue", "timestamp": ts}
    if kind == "mode":
        return {**own, "type": "mode", "mode": "normal"}
    if kind == "summary":
        return {"type": "summary", "summary": "Work on the parts", "leafUuid": uuid}
    if kind == "custom-title":
        return {**own, "type": "custom-title", "customTitle": "Parts of the app"}
    if kind == "ai-title":
        return {**own, "type": "ai-title", "aiTitle": "Building the parts"}
    if kind == "file-history-snapshot":
        return {"type": "file-history-snapshot", "messageId": uuid, "isSnapshotUpdate": False,
                "snapshot": {"messageId": uuid, "trackedFileBackups": {}, "timestamp": ts}}
    if kind == "attachment":
        return {**own, "type": "attachment", "uuid": uuid, "parentUuid": None,
                "timestamp": ts, "cwd": "/srv/app", "isSidechain": False,
                "attachment": {"type": "hook_success", "hookName": "SessionStart:startup",
                               "hookEvent": "SessionStart", "content": "", "exitCode": 0}}
    if kind == "system":
        return {**own, "type": "system", "subtype": "informational", "uuid": uuid,
                "parentUuid": None, "timestamp": ts, "content": "note", "level": "info",
                "isMeta": False, "cwd": "/srv/app", "isSidechain": False}
    if kind == "progress":
        return {**own, "type": "progress", "uuid": uuid, "parentUuid": None,
                "timestamp": ts, "cwd": "/srv/app", "isSidechain": False,
                "data": {"type": "hook_progress", "hookEvent": "Stop", "hookName": "Stop",
                         "command": "true"}, "toolUseID": "x", "parentToolUseID": "x"}
    if kind == "last-prompt":
        return {**own, "type": "last-prompt", "lastPrompt": "please"}
    return {**own, "type": "permission-mode", "permissionMode": "default"}


def encoded(lines: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(o).encode() for o in lines]


def _stamp(o: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(o["timestamp"].replace("Z", "+00:00"))


def check_note(note: str, lines: list[dict[str, Any]], told: dict[str, Any]) -> None:
    """The oracle, from the JSON."""
    fm = frontmatter(note)
    for prompt in told["prompts"]:
        assert prompt in note, prompt
    for sha in told["shas"]:
        assert sha in note, sha
    want = dict.fromkeys(("input_tokens", "output_tokens", "cache_read_tokens",
                          "cache_creation_tokens"), 0)
    names = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
             "cache_read_tokens": "cache_read_input_tokens",
             "cache_creation_tokens": "cache_creation_input_tokens"}
    for o in lines:
        if o.get("type") == "assistant":
            for k, raw in names.items():
                want[k] += o["message"]["usage"][raw]
    for k, v in want.items():
        assert int(fm.get(k) or 0) == v, (k, fm.get(k), v)
    assert int(fm["prompts"]) >= len(told["prompts"])  # type: ignore[call-overload]
    earliest = min(_stamp(o) for o in lines if o.get("uuid") and "timestamp" in o)
    started = datetime.fromisoformat(str(fm["started"]))
    assert started.replace(microsecond=0) == earliest.replace(microsecond=0), (started, earliest)


@settings(max_examples=examples(60, 300), deadline=None)
@given(got=sessions(), cut=st.floats(0, 1))
def test_fold_of_parts_equals_fold_of_whole(got: tuple[list[dict[str, Any]], dict[str, Any]],
                                            cut: float) -> None:
    lines, _ = got
    raw = encoded(lines)
    at = int(cut * len(raw))
    whole = fold(Fold(), (decode_line(x) for x in raw))
    a = fold(Fold(), (decode_line(x) for x in raw[:at]))
    a = decode_state(encode_state(SessionState(fold=a))).fold  # type: ignore[union-attr]
    ab = fold(a, (decode_line(x) for x in raw[at:]))
    assert encode_state(SessionState(fold=ab)) == encode_state(SessionState(fold=whole))
    assert whole.copied == 0  # (no line names another session: nothing is a copy)


def _only_note(env: Env) -> str:
    notes = [n for k, n in env.notes().items() if "/sessions/" in k]
    assert len(notes) == 1, list(env.notes())
    return notes[0]


@settings(max_examples=examples(25, 100), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(got=sessions())
def test_backfill_note_holds_every_prompt_commit_and_message(
        tmp_path_factory: pytest.TempPathFactory,
        got: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    lines, told = got
    env = Env(tmp_path_factory.mktemp("stamps"))
    path = env.transcript(SID, encoded(lines))
    r = env.vv_here("backfill", str(path.parent))
    assert r.returncode == 0, r.stderr
    check_note(_only_note(env), lines, told)


@settings(max_examples=examples(3, 8), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(got=sessions(), cuts=st.lists(st.floats(0, 1), min_size=1, max_size=3))
def test_hook_stops_give_the_backfill_note(tmp_path_factory: pytest.TempPathFactory,
                                           got: tuple[list[dict[str, Any]], dict[str, Any]],
                                           cuts: list[float]) -> None:
    """`vv hook` (Stop, then SessionEnd) and `vv backfill`, as processes."""
    lines, told = got
    raw = encoded(lines)
    root = tmp_path_factory.mktemp("stamps-hook")
    hook_env = Env(root / "hook")
    path = hook_env.transcript(SID, [])
    event = {"session_id": SID, "transcript_path": str(path), "cwd": "/srv/app",
             "hook_event_name": "Stop", "stop_hook_active": False}
    for cut in sorted(cuts):
        path.write_bytes(b"".join(x + b"\n" for x in raw[:int(cut * len(raw))]))
        r = hook_env.hook(event)
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    path.write_bytes(b"".join(x + b"\n" for x in raw))
    r = hook_env.hook({**event, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
    assert r.returncode == 0, r.stderr
    one_env = Env(root / "one")
    one = one_env.transcript(SID, raw)
    r = one_env.vv("backfill", str(one.parent))
    assert r.returncode == 0, r.stderr
    hooked, filled = _only_note(hook_env), _only_note(one_env)
    check_note(filled, lines, told)
    # (the note keeps the name it was first written under: a line stamped
    # earlier than all read before it moves its start, not its file)
    assert strip_status(hooked) == strip_status(filled)


@settings(max_examples=examples(10, 40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(got=sessions(noisy=False, least=2))
def test_a_desktop_file_whose_queue_rows_come_first_loses_nothing(
        tmp_path_factory: pytest.TempPathFactory,
        got: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """The shape of 030df228 and 9ccc706b: title and `mode` rows, then an
    enqueue and a dequeue stamped at the last prompt's time, then the
    conversation from hours before; the queued prompt is told once, where
    its own line is."""
    lines, told = got
    last_prompt = [o for o in lines if o["type"] == "user"
                   and isinstance(o["message"]["content"], str)][-1]
    head = [{"type": "custom-title", "customTitle": "Parts", "sessionId": SID},
            {"type": "mode", "mode": "normal", "sessionId": SID},
            {"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
             "timestamp": last_prompt["timestamp"], "content": last_prompt["message"]["content"]},
            {"type": "queue-operation", "operation": "dequeue", "sessionId": SID,
             "timestamp": last_prompt["timestamp"]}]
    lines = head + lines
    env = Env(tmp_path_factory.mktemp("desktop"))
    path = env.transcript(SID, encoded(lines))
    assert env.vv_here("backfill", str(path.parent)).returncode == 0
    note = _only_note(env)
    check_note(note, lines, told)
    assert int(frontmatter(note)["prompts"]) == len(told["prompts"])  # type: ignore[call-overload]
    for prompt in told["prompts"]:
        assert len(re.findall(re.escape(prompt), note)) == 1, prompt
