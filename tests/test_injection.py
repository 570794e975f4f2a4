"""Every interpolated value is escaped for where it lands: no field can forge a
heading, the user's section, a link, a table column, HTML or a terminal line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import Env, frontmatter

SID = "1a2b3c4d-0000-4000-8000-000000000001"
HOSTILE = "x\n## My notes\nforged | col ]] [[evil]] #tag ^block <script>alert(1)</script>\u202e\x9b"
USER_HEADING = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*$", re.IGNORECASE | re.MULTILINE)


def hostile_session(env: Env) -> Path:
    one = HOSTILE.replace("\n", " ")
    base = {"sessionId": SID, "cwd": "/tmp/proj" + one, "gitBranch": HOSTILE,
            "version": HOSTILE}
    entries: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", **base,
         "message": {"role": "user", "content": HOSTILE}},
        {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z", **base,
         "message": {"id": "m1", "model": HOSTILE, "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash",
              "input": {"command": HOSTILE}},
             {"type": "tool_use", "id": "t2", "name": "mcp__a__b" + HOSTILE, "input": {}},
             {"type": "tool_use", "id": "t3", "name": "Edit",
              "input": {"file_path": "/tmp/proj/" + HOSTILE, "old_string": "a",
                        "new_string": "b"}}],
             "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "user", "uuid": "u2", "timestamp": "2026-01-01T00:00:02Z", **base,
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": HOSTILE, "is_error": True},
             {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
             {"type": "tool_result", "tool_use_id": "t3", "content": "ok"}]}},
        {"type": "assistant", "uuid": "a2", "timestamp": "2026-01-01T00:00:03Z", **base,
         "message": {"id": "m2", "model": "claude-x", "role": "assistant",
                     "content": [{"type": "text", "text": HOSTILE}]}},
        {"type": "ai-title", "aiTitle": HOSTILE, "sessionId": SID},
    ]
    path = env.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_no_field_can_forge_structure(env: Env) -> None:
    path = hostile_session(env)
    end = {"hook_event_name": "SessionEnd", "session_id": SID, "transcript_path": str(path),
           "reason": HOSTILE, "cwd": "/tmp"}
    assert env.hook(end).returncode == 0
    assert env.vv("backfill").returncode == 0
    notes = env.all_notes()
    note = next(v for k, v in notes.items() if "/sessions/" in k)
    assert len(USER_HEADING.findall(note)) == 1
    fm = frontmatter(note)
    assert fm["session_id"] == SID
    for text in notes.values():
        body = text.split("\n---\n", 1)[1]  # YAML strings are quoted, never rendered
        shown = re.sub(r"(?s)```.*?```|`[^`\n]*`", "", body)
        assert "<script" not in shown, shown
        assert "\u202e" not in text and "\x9b" not in text
        # Every table row has as many cells as its header.
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("|---") or line.startswith("|--"):
                width = _cells(lines[i - 1])
                for row in lines[i + 1:]:
                    if not row.startswith("|"):
                        break
                    assert _cells(row) == width, row
        # Every wikilink names a note that exists.
        for target in re.findall(r"\[\[([^\]|#^\\]+)(?:\\?\|[^\]]*)?\]\]",
                                 shown.replace("\\[\\[", "")):
            assert (env.vault / (target + ".md")).exists(), target


def _cells(row: str) -> int:
    """Cells of a table row: `|` that are not escaped, and not in a code span."""
    row = re.sub(r"`[^`]*`", "", row.replace("\\|", ""))
    return row.count("|")


def test_terminal_output_holds_no_control_or_bidi(env: Env) -> None:
    hostile_session(env)
    assert env.vv("backfill").returncode == 0
    for args in (["stats"], ["stats", "--csv"], ["doctor"]):
        r = env.vv(*args)
        out = (r.stdout + r.stderr).decode()
        assert "\u202e" not in out and "\x9b" not in out and "\x1b" not in out, args


@pytest.mark.corpus
def test_a_project_named_like_a_yaml_word_stays_a_string_tag(env: Env) -> None:
    """`null`, `yes`, `0x1f`: a tag YAML would read as null, a bool or a number
    is quoted, so the note's tags are the project's name as written."""
    from test_hook_contract import SESSION

    for i, name in enumerate(["null", "yes", "0x1f", "1_000"]):
        sid = f"1a2b3c4d-0000-4000-8000-00000000010{i}"
        lines = [json.loads(line) for line in SESSION.read_text().splitlines() if line]
        for entry in lines:
            if "cwd" in entry:
                entry["cwd"] = f"/work/{name}"
            if "sessionId" in entry:
                entry["sessionId"] = sid
        path = env.claude / "projects" / f"-work-{name}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert env.vv("backfill").returncode == 0
    tags = {str(frontmatter(n)["project"]): frontmatter(n)["tags"]
            for n in env.notes().values()}
    assert set(tags) == {"null", "yes", "0x1f", "1_000"}
    for name, got in tags.items():
        assert got[1] == name and all(isinstance(t, str) for t in got), (name, got)
