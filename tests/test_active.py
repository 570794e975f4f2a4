"""Active time never holds more than the transcript does (review 4, finding 5).

A file can open with the end of a turn that began before it (an "Entire"
checkpoint, a compaction's continuation: d1423492 opens with a 404 s
turn_duration, and the note said "9 active" where the work in the file spans
3.3 minutes); a local command after a pause (`/model` 4 minutes after Claude's
last words, 4379d1bf) does not make the pause work. The bounds are checked on
every corpus session from its JSON, and end to end through `vv backfill`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process, main_files
from vibe_vault.entries import decode_line
from vibe_vault.fold import active, fold
from vibe_vault.state import Fold

SID = "0b1c2d3e-0000-4000-8000-00000000bbbb"


def _stamp(obj: dict[str, Any]) -> float | None:
    ts = obj.get("timestamp")
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() \
            if isinstance(ts, str) else None
    except ValueError:
        return None


def _is_prompt(o: dict[str, Any]) -> bool:
    """A line the user typed (words, not a tool's result), from the JSON."""
    if o.get("type") != "user" or o.get("isSidechain") or o.get("isMeta"):
        return False
    content = (o.get("message") or {}).get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


@pytest.mark.corpus
def test_no_corpus_session_is_active_longer_than_it_lasted_or_its_turns_span() -> None:
    """Every corpus session: active time at most the time from its first
    stamped line to its last; the turns Claude Code timed at most the sum,
    over its turn_duration lines, of the time from the line after the last
    turn_duration (or the file's first) to it: what the file holds of them."""
    checked = 0
    for path in main_files():
        raw = [x for x in path.read_bytes().split(b"\n") if x.strip()]
        objs = []
        for x in raw:
            try:
                o = json.loads(x)
            except ValueError:
                continue
            if isinstance(o, dict):
                objs.append(o)
        stamps = [s for s in map(_stamp, objs) if s is not None]
        if not stamps:
            continue
        facts = fold(Fold(), (decode_line(x) for x in raw))
        first = next(s for s in map(_stamp, objs) if s is not None)
        latest = max(stamps)
        assert active.active_ms(facts) <= (latest - first) * 1000 + 1, path
        held, since = 0.0, None
        for o in objs:
            s = _stamp(o)
            if since is None:
                since = s
            if o.get("type") == "system" and o.get("subtype") == "turn_duration" and s:
                held += max(0.0, s - (since or s))
                since = None
        assert facts.turn_ms <= held * 1000 + 1, path
        checked += 1
    assert checked > 20


T0 = datetime(2026, 1, 12, 15, 49, 49, tzinfo=UTC).timestamp()


def _line(at: float, n: int, obj: dict[str, Any]) -> dict[str, Any]:
    iso = datetime.fromtimestamp(T0 + at, UTC).isoformat(timespec="milliseconds")
    return {"uuid": f"00000000-0000-4000-8000-{n:012d}", "sessionId": SID,
            "cwd": "/work/app", "version": "2.1.5", "timestamp": iso.replace("+00:00", "Z"),
            **obj}


@settings(max_examples=examples(4, 8), deadline=None)
@given(leftover_s=st.integers(1, 3000), before_s=st.integers(0, 900),
       work=st.lists(st.integers(1, 120), min_size=1, max_size=8),
       idle_s=st.integers(0, 299))
def test_a_file_opening_mid_turn_counts_only_its_own_work(
        tmp_path_factory: pytest.TempPathFactory, leftover_s: int, before_s: int,
        work: list[int], idle_s: int) -> None:
    """Through `vv backfill`: a file that opens with a leftover turn_duration
    and its stop hook, then a prompt, Claude's work in steps of generated
    seconds (no turn_duration: the file ends), a pause, and `/model`: its
    active minutes are the work's seconds alone (the sum put in, in whole
    minutes)."""
    env = Env(tmp_path_factory.mktemp("home"))
    env.here = in_process("active bounds mid turn")  # (the first as a process)
    lines = [_line(0, 1, {"type": "system", "subtype": "turn_duration",
                          "durationMs": leftover_s * 1000, "isMeta": False}),
             _line(0, 2, {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
                          "isMeta": False})]
    at = float(before_s)
    lines.append(_line(at, 3, {"type": "user", "message": {
        "role": "user", "content": "rename the logger"}}))
    for k, s in enumerate(work):
        at += s
        lines.append(_line(at, 4 + k, {"type": "assistant", "message": {
            "id": f"msg_{k}", "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "text", "text": f"Step {k} done."}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}}))
    at += idle_s
    n = 10 + len(work)
    lines.append({**_line(at, n, {"type": "user", "message": {"role": "user", "content": (
        "Caveat: The messages below were generated by the user while running local "
        "commands. DO NOT respond to these messages or otherwise consider them in your "
        "response unless the user explicitly asks you to.")}}), "isMeta": True})
    lines.append(_line(at, n + 1, {"type": "user", "message": {"role": "user", "content": (
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args></command-args>")}}))
    path = env.claude / "projects" / "-work-app" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert frontmatter(note)["active_minutes"] == (sum(work) + 30) // 60  # (to the nearest minute)

