"""`vv backfill` over every corpus transcript, as a user would run it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import (
    CORPUS,
    Env,
    frontmatter,
    has_assistant,
    independent_tokens,
    json_objects,
    last_prompt_kind,
    main_files,
    session_files,
)
from test_unanswered import asks

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def expected_sid(path: Path) -> str | None:
    if UUID.match(path.stem):
        return path.stem
    for raw in path.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and isinstance(d.get("sessionId"), str):
            return d["sessionId"]
    return None


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Env, dict[str, str]]:
    env = Env(tmp_path_factory.mktemp("corpus"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    assert b"Traceback" not in r.stderr
    notes = env.notes()
    by_sid = {}
    for _rel, text in notes.items():
        sid = frontmatter(text)["session_id"]
        assert sid not in by_sid, f"two notes for {sid}"
        by_sid[str(sid)] = text
    return env, by_sid


def test_one_note_per_session_with_messages(backfilled: tuple[Env, dict[str, str]]) -> None:
    _, by_sid = backfilled
    # (a request never answered has its note too: test_unanswered)
    expected = {expected_sid(p) for p in main_files()
                if has_assistant(p) or any(asks(o) for o in json_objects(p))}
    assert set(by_sid) == expected


def test_no_subagent_file_becomes_a_session(backfilled: tuple[Env, dict[str, str]]) -> None:
    _, by_sid = backfilled
    for path in CORPUS.rglob("agent-*.jsonl"):
        assert path.stem not in by_sid
        assert path.stem.removeprefix("agent-") not in " ".join(by_sid)


@pytest.mark.parametrize("main", main_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_note_frontmatter_and_tokens(backfilled: tuple[Env, dict[str, str]], main: Path) -> None:
    _, by_sid = backfilled
    sid = expected_sid(main)
    if not has_assistant(main):
        asked = any(asks(o) for o in json_objects(main))
        assert (sid in by_sid) == asked  # (a request never answered: test_unanswered)
        return
    note = by_sid[str(sid)]
    fm = frontmatter(note)
    for key in ("type", "session_id", "title", "project", "started", "ended", "status",
                "end_reason", "cwd", "branch", "models", "claude_code_version",
                "input_tokens", "output_tokens", "cache_read_tokens",
                "cache_creation_tokens", "tool_calls", "files_changed", "prompts"):
        assert key in fm, key
    # A cost, unless no model of the session has a price (review 29 #3): then
    # every model it names is unpriced, and the header says so.
    unpriced = {str(m).split(" (", 1)[0] for m in fm.get("unpriced_models") or []}
    none_priced = bool(unpriced) and set(map(str, fm["models"] or [])) <= unpriced
    assert ("cost_usd" in fm) != none_priced, fm
    assert ("**Cost** not priced (" in note) == none_priced
    assert fm["type"] == "session"
    # No SessionEnd ever came: ended by the user's /exit when that is the last thing
    # typed (as Claude Code's SessionEnd says it), else active, or ended as idle once
    # the file is old enough. ", mid-turn": its last request got no answer
    # (test_answers checks when, from the JSON)
    mid_turn = any(said in str(fm["summary"]) for said in (
        "The last request got no answer", "The transcript ends mid-turn with no answer",
        "The transcript ends while Claude was still on the last request"))
    ended_by = {"exit": "prompt_input_exit", "quit": "prompt_input_exit", "clear": "clear",
                "logout": "logout"}.get(last_prompt_kind(main))
    if ended_by:  # (Claude Code's SessionEnd reason for it)
        assert (fm["status"], str(fm["end_reason"])) == ("ended", ended_by)
    else:
        assert (fm["status"], fm["end_reason"]) in (
            ("active", None), ("ended", "idle, mid-turn" if mid_turn else "idle"))
    want = independent_tokens(main, session_files(main) if UUID.match(main.stem) else [])
    got = {k: fm[k] for k in want}
    assert got == want
    assert "base64," not in note
    assert "\n## My notes\n" in note


def test_second_run_writes_nothing(backfilled: tuple[Env, dict[str, str]]) -> None:
    env, _ = backfilled
    before = {p: p.stat().st_mtime_ns for p in env.vault.rglob("*.md")}
    r = env.vv("backfill", str(CORPUS), "--json")
    assert r.returncode == 0
    summary = json.loads(r.stdout)
    assert summary["written"] == 0
    assert summary["bytes"] == 0
    assert {p: p.stat().st_mtime_ns for p in env.vault.rglob("*.md")} == before


def test_subagent_tokens_are_counted(backfilled: tuple[Env, dict[str, str]]) -> None:
    """A session with subagent files costs more than its main file alone."""
    _, by_sid = backfilled
    main = next(p for p in main_files() if p.stem == "ef958aa1-0e93-49f0-bb71-150f63befcd1")
    alone = independent_tokens(main, [])
    fm = frontmatter(by_sid[main.stem])
    assert fm["output_tokens"] > alone["output_tokens"]
