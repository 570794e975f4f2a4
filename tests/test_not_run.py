"""Review 19 #2: a call Claude Code cancelled unrun is no error.

When one of the calls Claude makes in one message fails, Claude Code cancels
the others still to run and answers each with `<tool_use_error>Sibling tool
call errored</tool_use_error>`. Such a call ran nothing: the story says it
was not run, and it is neither listed under Errors nor counted among the
session's errors (063071b3 listed two clippy runs as failed, the last error
of the note, though clippy passed later). Checked on every corpus session
against the JSON, and on generated messages of parallel calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, json_objects, main_files, session_files
from test_headlines import SID, Transcript, phrase, words

SIBLING = "Sibling tool call errored"


def _is_sibling(content: object) -> bool:
    said = json.dumps(content)
    return SIBLING in said and len(re.sub(r"</?tool_use_error>", "", said)) < len(SIBLING) + 40


@pytest.mark.corpus
def test_no_corpus_call_cancelled_unrun_is_an_error(tmp_path: Path) -> None:
    """Corpus, every session through `vv backfill`: no line under Errors is a
    cancelled call's, and each cancelled command of a session's own file is
    told in the story by its description as not run."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {frontmatter(n).get("session_id"): n for n in env.all_notes().values()
             if "\ntype: session\n" in n}
    cancelled = told = 0
    for main in main_files():
        described: dict[str, str] = {}
        unrun: list[str] = []
        for p in [main, *session_files(main)]:
            for o in json_objects(p):
                content = (o.get("message") or {}).get("content")
                for b in content if isinstance(content, list) else []:
                    if not isinstance(b, dict):
                        continue
                    inp = b.get("input") if isinstance(b.get("input"), dict) else {}
                    if b.get("type") == "tool_use" and b.get("name") == "Bash" and p == main \
                            and isinstance(inp.get("description"), str):
                        described[str(b.get("id"))] = inp["description"]
                    if b.get("type") == "tool_result" and b.get("is_error") \
                            and _is_sibling(b.get("content")):
                        cancelled += 1
                        if str(b.get("tool_use_id")) in described:
                            unrun.append(described[str(b.get("tool_use_id"))])
        sid = next((o["sessionId"] for o in json_objects(main) if o.get("sessionId")), None)
        note = notes.get(sid)
        if note is None:
            continue
        errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0] \
            if "\n## Errors\n" in note else ""
        assert SIBLING not in errors, main
        for said in unrun:
            lines = [ln for ln in note.splitlines() if ln.startswith(f"- {said.rstrip('.')}: `")]
            assert lines and all("not run" in ln for ln in lines), (main, said, lines)
            told += 1
    assert cancelled >= 2 and told >= 2, (cancelled, told)  # (063071b3's two clippy runs)


@settings(max_examples=examples(30, 200), deadline=None)
@given(first=st.sampled_from(["cargo fmt --check", "npm run lint"]),
       others=st.lists(st.tuples(st.sampled_from(["Bash", "Read"]), words, phrase),
                       min_size=1, max_size=3),
       later=st.booleans())
def test_a_call_cancelled_beside_a_failure_is_not_run(
        tmp_path_factory: Any, first: str, others: list[tuple[str, str, str]],
        later: bool) -> None:
    """One message of parallel calls: the first fails, Claude Code cancels
    the rest. Errors holds the one failure, the note counts one error, and
    each cancelled command's story line says it was not run, never failed."""
    t = Transcript()
    t.prompt("check it")
    calls = [{"type": "tool_use", "id": "toolu_first", "name": "Bash",
              "input": {"command": first, "description": "Check formatting"}}]
    for n, (tool, word, said) in enumerate(others):
        inp = ({"command": f"cargo {word}", "description": said.capitalize()} if tool == "Bash"
               else {"file_path": f"/work/app/{word}.rs"})
        calls.append({"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": inp})
    t.raw({"type": "assistant", "message": {
        "id": "msg_par", "role": "assistant", "model": "claude-sonnet-4-5", "content": calls,
        "usage": {"input_tokens": 1, "output_tokens": 1}}})
    t.raw({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_first", "is_error": True,
         "content": "Exit code 1\nDiff in src/main.rs at line 3"}]},
        "toolUseResult": "Error: Exit code 1\nDiff in src/main.rs at line 3"})
    for n in range(len(others)):
        t.raw({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "is_error": True,
             "content": f"<tool_use_error>{SIBLING}</tool_use_error>"}]},
            "toolUseResult": f"Error: {SIBLING}"})
    if later:
        t.bash("cargo fmt --check", "", "Check formatting again")
    t.say("Fixed.")
    note = t.note(tmp_path_factory, "test_a_call_cancelled_beside_a_failure_is_not_run")
    assert t.sid == SID
    assert frontmatter(note).get("errors") == 1, note
    assert SIBLING not in note, note
    for tool, word, _ in others:
        if tool == "Bash":
            line = next(ln for ln in note.splitlines() if f"`cargo {word}`" in ln)
            assert "— not run" in line and "— failed" not in line, line
            assert not re.search(r", \d+s$", line), line  # (no time of a run it never had)
