"""What the real client showed that replayed transcripts do not: the Stop that
comes before the transcript exists, the events a client knows, and wording."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import Env, frontmatter
from test_hook_contract import SESSION, SID, assert_harmless


@pytest.mark.corpus
def test_a_stop_before_the_transcript_exists_writes_a_provisional_note(env: Env) -> None:
    """`claude -p`: the first Stop fires before the transcript file is written."""
    slug = env.claude / "projects" / "-tmp-proj"
    slug.mkdir(parents=True)
    path = slug / f"{SID}.jsonl"
    event = {"hook_event_name": "Stop", "session_id": SID, "transcript_path": str(path),
             "cwd": "/tmp/proj", "last_assistant_message": "Hello from the fake API."}
    r = env.hook(event)
    assert_harmless(r)
    assert r.stderr == b""
    [note] = env.notes().values()
    assert "Hello from the fake API." in note and "provisional" in note
    assert not (env.state / "vv.log").exists() or "WARN" not in (env.state / "vv.log").read_text()
    # The transcript arrives: the same note, now from it.
    shutil.copyfile(SESSION, path)
    assert_harmless(env.hook(dict(event, last_assistant_message="")))
    [note] = env.notes().values()
    assert frontmatter(note)["session_id"] == SID and "provisional" not in note
    r = env.vv("doctor", "--json")
    log_check = next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "last runs")
    assert log_check["status"] == "pass", log_check


def test_a_session_that_ended_before_any_transcript_is_no_problem(env: Env) -> None:
    event = {"hook_event_name": "SessionEnd", "session_id": SID, "reason": "other",
             "transcript_path": str(env.claude / "projects" / "-x" / f"{SID}.jsonl")}
    r = env.hook(event)
    assert_harmless(r)
    assert r.stderr == b""


def write_client_version(env: Env, version: str) -> None:
    slug = env.claude / "projects" / "-tmp-v"
    slug.mkdir(parents=True, exist_ok=True)
    (slug / "00000000-0000-4000-8000-0000000000aa.jsonl").write_text(json.dumps(
        {"type": "user", "version": version, "sessionId": "x",
         "message": {"role": "user", "content": "hi"}}) + "\n")


def test_install_registers_the_events_the_client_knows(env: Env) -> None:
    write_client_version(env, "2.0.77")
    assert env.vv("hook", "install").returncode == 0
    hooks = json.loads((env.claude / "settings.json").read_text())["hooks"]
    assert "StopFailure" not in hooks and "PostToolUseFailure" not in hooks
    assert {"Stop", "SessionEnd", "PostToolUse"} <= set(hooks)
    report = json.loads(env.vv("doctor", "--json").stdout)
    said = " ".join(c["detail"] for c in report["checks"])
    assert "2.0.77" in said and "does not know PostToolUseFailure, StopFailure" in said
    env2 = Env(env.root / "new")
    write_client_version(env2, "2.1.197")
    assert env2.vv("hook", "install").returncode == 0
    hooks = json.loads((env2.claude / "settings.json").read_text())["hooks"]
    assert {"StopFailure", "PostToolUseFailure"} <= set(hooks)


def test_no_double_punctuation_in_summaries() -> None:
    from vibe_vault.entries import decode_line
    from vibe_vault.figures import RenderOptions, figures
    from vibe_vault.fold import fold
    from vibe_vault.state import SessionState

    lines = [json.dumps({"type": "custom-title", "customTitle": "Print the greeting."}),
             json.dumps({"type": "assistant", "uuid": "a", "timestamp": "2026-01-01T00:00:00Z",
                         "message": {"id": "m", "model": "claude-x", "role": "assistant",
                                     "content": [{"type": "text", "text": "Hi."}]}})]
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x.encode()) for x in lines])
    summary = figures(state, RenderOptions()).summary
    # Issue 29: the facts lead (the title is right above them in the note).
    assert ".:" not in summary and ".." not in summary
    assert summary == "No files changed."  # (no prompt in it: none counted)
