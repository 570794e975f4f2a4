"""Each extractor of the fold on real transcript lines from the corpus.

Every expectation is read from the JSON of those lines by the test itself, not
taken from the fold's output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

Line = tuple[Path, int, dict[str, Any], bytes]


def corpus_lines() -> Iterator[Line]:
    for path in sorted(CORPUS.rglob("*.jsonl")):
        for i, raw in enumerate(path.read_bytes().split(b"\n")):
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield path, i, obj, raw


def first(pred: Callable[[dict[str, Any]], bool]) -> Line:
    for line in corpus_lines():
        if pred(line[2]):
            return line
    pytest.fail("no such line in the corpus")


def blocks(obj: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content or [] if isinstance(b, dict) and b.get("type") == kind] \
        if isinstance(content, list) else []


def tool_pair(pred: Callable[[dict[str, Any]], bool]) -> tuple[list[bytes], dict[str, Any],
                                                              dict[str, Any]]:
    """The first tool_use block matching `pred`, its result line, and the lines of a
    tiny transcript: a prompt, the call, the result."""
    for path, _, obj, raw in corpus_lines():
        for b in blocks(obj, "tool_use"):
            if not pred(b):
                continue
            for _, _, res, res_raw in ((p, j, o, r) for p, j, o, r in corpus_lines()
                                       if p == path):
                if any(r.get("tool_use_id") == b["id"] for r in blocks(res, "tool_result")):
                    prompt = json.dumps({"type": "user", "uuid": "p0", "timestamp":
                                         obj["timestamp"], "message": {"role": "user",
                                                                       "content": "go"}})
                    return [prompt.encode(), raw, res_raw], b, res
    pytest.fail("no such tool call in the corpus")


def fold_lines(lines: list[bytes]) -> Fold:
    return fold(Fold(), (decode_line(x) for x in lines))


def test_edit_lines_added_and_removed_from_structured_patch() -> None:
    lines, use, res = tool_pair(lambda b: b.get("name") == "Edit")
    patch = res["toolUseResult"]["structuredPatch"]
    plus = sum(1 for h in patch for x in h["lines"] if x.startswith("+"))
    minus = sum(1 for h in patch for x in h["lines"] if x.startswith("-"))
    f = fold_lines(lines)
    change = f.files[use["input"]["file_path"]]
    assert (change.added, change.removed) == (plus, minus)
    assert change.ops == ["modified"]


def test_write_of_a_new_file_counts_its_lines() -> None:
    lines, use, res = tool_pair(
        lambda b: b.get("name") == "Write")
    f = fold_lines(lines)
    result = res.get("toolUseResult")
    change = f.files[use["input"]["file_path"]]
    if isinstance(result, dict) and result.get("type") == "create":
        content = result["content"]
        expected = content.count("\n") + (0 if content.endswith("\n") else 1)
        assert change.ops == ["created"] and change.added == expected


def test_bash_failure_exit_code_and_error() -> None:
    for _path, _, obj, _raw in corpus_lines():
        for r in blocks(obj, "tool_result"):
            content = r.get("content")
            if r.get("is_error") and isinstance(content, str) and content.startswith("Exit code"):
                code = int(content.split()[2])
                lines, _use, _ = tool_pair(lambda b, t=r["tool_use_id"]: b.get("id") == t)
                f = fold_lines(lines)
                action = f.turns[-1].actions[-1]
                assert action.kind == "bash" and action.code == code
                assert action.status == "failed"
                assert f.errors and f.errors[-1].tool == "Bash"
                assert f.commands[-1].code == code
                return
    pytest.fail("no failed command in the corpus")


def test_git_commit_hash_and_subject() -> None:
    lines, _use, res = tool_pair(
        lambda b: b.get("name") == "Bash" and "git commit" in b["input"].get("command", ""))
    stdout = res["toolUseResult"]["stdout"]
    head = next(x for x in stdout.splitlines() if x.startswith("["))
    branch_sha, subject = head[1:].split("] ", 1)
    sha = branch_sha.split()[-1]
    f = fold_lines(lines)
    assert [(c.sha, c.subject) for c in f.commits] == [(sha, subject)]


def test_test_runs_are_recognised() -> None:
    lines, _use, res = tool_pair(
        lambda b: b.get("name") == "Bash" and "pytest" in b["input"].get("command", ""))
    f = fold_lines(lines)
    assert f.commands[-1].kind == "test"
    ok = not any(r.get("is_error") for r in blocks(res, "tool_result"))
    assert f.commands[-1].status == ("ok" if ok else "failed")


def test_todo_list_is_the_last_todowrite() -> None:
    lines, use, _ = tool_pair(lambda b: b.get("name") == "TodoWrite")
    f = fold_lines(lines)
    assert [(t.text, t.status) for t in f.todos] == [
        (t["content"], t["status"]) for t in use["input"]["todos"]]


def test_ask_user_question_and_answer() -> None:
    lines, use, res = tool_pair(lambda b: b.get("name") == "AskUserQuestion")
    f = fold_lines(lines)
    action = f.turns[-1].actions[-1]
    assert action.text == use["input"]["questions"][0]["question"]
    answers = res["toolUseResult"]["answers"]
    assert action.detail == next(iter(answers.values()))


def test_subagent_call_and_its_totals() -> None:
    lines, use, res = tool_pair(lambda b: b.get("name") in ("Task", "Agent"))
    f = fold_lines(lines)
    sub = f.subagents[-1]
    assert sub.description == use["input"]["description"]
    result = res["toolUseResult"]
    if isinstance(result, dict) and "totalTokens" in result:
        assert sub.tokens == result["totalTokens"]
        assert sub.tool_calls == result["totalToolUseCount"]


def test_compaction_boundary_and_summary() -> None:
    path, _i, obj, raw = first(lambda o: o.get("subtype") == "compact_boundary"
                              and isinstance(o.get("compactMetadata"), dict)
                              and o["compactMetadata"].get("trigger") == "auto")
    summary = next(r for p, _, o, r in corpus_lines()
                   if p == path and o.get("isCompactSummary"))
    f = fold_lines([raw, summary])
    turn = f.turns[0]
    assert turn.kind == "compact" and turn.text == "auto"
    assert turn.tokens == obj["compactMetadata"]["preTokens"]
    assert turn.detail and f.compactions == 1


def test_pr_link_entry() -> None:
    _, _, obj, raw = first(lambda o: o.get("type") == "pr-link")
    f = fold_lines([raw])
    assert [(p.url, p.number) for p in f.prs] == [(obj["prUrl"], obj["prNumber"])]


def test_ai_title_and_summary_entries() -> None:
    _, _, title, raw = first(lambda o: o.get("type") == "ai-title")
    assert fold_lines([raw]).ai_title == title["aiTitle"]
    # Summaries: see test_trust.py (only a session's own summary may title it).


def test_turn_durations_sum() -> None:
    path, _, _, _ = first(lambda o: o.get("subtype") == "turn_duration")
    lines = [r for p, _, o, r in corpus_lines() if p == path]
    total = sum(int(o["durationMs"]) for p, _, o, _ in corpus_lines()
                if p == path and o.get("subtype") == "turn_duration")
    assert fold_lines(lines).turn_ms == total


def test_api_errors_are_recorded() -> None:
    _, _, _, raw = first(lambda o: o.get("subtype") == "api_error")
    f = fold_lines([raw])
    assert f.api_errors == 1 and f.errors[0].tool == "API"


def test_slash_command_is_a_command_not_a_title() -> None:
    _, _, obj, raw = first(lambda o: o.get("type") == "user" and not o.get("isMeta")
                           and isinstance(o["message"].get("content"), str)
                           and "<command-name>" in o["message"]["content"])
    name = obj["message"]["content"].split("<command-name>")[1].split("</command-name>")[0]
    f = fold_lines([raw])
    assert f.turns[0].kind == "command" and f.turns[0].text.startswith(name.strip())
    # A plugin's command (`/superpowers:brainstorm`) opening the session is its
    # request, and titles it (review 15); a bare built-in or custom one does not.
    content = obj["message"]["content"]
    argless = "<command-args>" not in content or "<command-args></command-args>" in content
    plugin = ":" in name and argless
    # (by the command's own name, the plugin's before it left out: review 26)
    assert f.first_prompt_title == (name.strip().rsplit(":", 1)[-1] if plugin else "")
    assert f.prompts == 0


def test_interruption_is_not_a_prompt() -> None:
    _, _, _, raw = first(lambda o: o.get("type") == "user" and any(
        str(b.get("text", "")).startswith("[Request interrupted by user")
        for b in blocks(o, "text")))
    f = fold_lines([raw])
    assert f.interruptions == 1 and f.prompts == 0


def test_streaming_snapshots_count_one_message_once() -> None:
    for path in sorted(CORPUS.rglob("*.jsonl")):
        by_id: dict[str, list[bytes]] = {}
        for raw in path.read_bytes().split(b"\n"):
            try:
                o = json.loads(raw)
            except ValueError:
                continue
            if isinstance(o, dict) and o.get("type") == "assistant" and o["message"].get("id"):
                by_id.setdefault(o["message"]["id"], []).append(raw)
        many = next((v for v in by_id.values() if len(v) >= 3), None)
        if many:
            out = max(json.loads(x)["message"]["usage"]["output_tokens"] for x in many)
            f = fold_lines(many)
            assert len(f.usage) == 1
            assert next(iter(f.usage.values())).output == out
            return
    pytest.fail("no multi-line message in the corpus")


def test_ask_user_question_in_its_early_single_question_form() -> None:
    lines, use, _ = tool_pair(lambda b: b.get("name") == "AskUserQuestion"
                              and "question" in b.get("input", {}))
    f = fold_lines(lines)
    first_line = use["input"]["question"].strip().splitlines()[0]
    assert f.turns[-1].actions[-1].text.rstrip("…") in first_line
    assert f.turns[-1].actions[-1].text
