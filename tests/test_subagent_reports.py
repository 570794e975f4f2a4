"""A finished subagent's report is in the note, as its words (review 23 #1:
df749439's subagent reported "I successfully debugged and fixed…", nowhere in
the note, a fix no Edit of its made); the trailer Claude Code appends to a
subagent's result (`agentId: … (for resuming …)`, `<usage>total_tokens: …`) is
in neither the note nor the search index (review 24 N4).

Each generated session hands work to subagents of the older layout (their
entries in the main file: the whole chain is in the JSON), each making some
edit calls or none and ending with a report whose first sentence is drawn, a
claim of a change or not; its Task's result (the report and Claude Code's
trailer) is in the file or not, its chain's last reply ending its turn or not.
The oracle is that JSON: the drawn sentence, the chain's edit calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, in_process, main_files
from conftest import json_objects as objects

SID = "5ab0e7a1-0000-4000-8000-0000000000a7"
CLAIMS = ("Fixed", "Updated", "Added", "Removed", "Implemented")
FINDINGS = ("Found", "Checked", "Traced", "Read", "Compared")
word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=4, max_size=8)

agent_of = st.fixed_dictionaries({
    "verb": st.sampled_from(CLAIMS + FINDINGS), "what": st.tuples(word, word),
    "edits": st.integers(0, 2), "result": st.booleans(), "ended": st.booleans(),
    "ready": st.booleans(), "tokens": st.integers(1000, 999_999)})


def report_of(spec: dict[str, Any]) -> tuple[str, str]:
    """The report's first sentence, and the whole report."""
    first = f"{spec['verb']} the {spec['what'][0]} handler in {spec['what'][1]}.py."
    ready = ("Excellent! Now I have enough information. Let me compile my findings:\n\n"
             "## Summary\n\n" if spec["ready"] else "")
    return first, f"{ready}{first} It now reads the settings once.\n\n- one detail\n- another"


def session(agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []

    def add(kind: str, parent: str | None, side: bool, message: dict[str, Any],
            **more: Any) -> str:
        n = len(lines)
        uuid = f"{SID[:8]}-0000-4000-8000-{n:012d}"
        lines.append({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": side,
                      "sessionId": SID, "cwd": "/work/app", "version": "1.0.35",
                      "userType": "external",
                      "timestamp": f"2025-07-03T15:{n // 60:02d}:{n % 60:02d}.000Z",
                      "message": message, **more})
        return uuid

    def assistant(content: list[dict[str, Any]], stop: str | None = None) -> dict[str, Any]:
        return {"id": f"msg_{len(lines)}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-20250514", "content": content,
                "stop_reason": stop, "usage": {"input_tokens": 3, "output_tokens": 5}}

    last = add("user", None, False, {"role": "user", "content": "Look into the failing tests"})
    for a, spec in enumerate(agents):
        tid, prompt = f"toolu_task{a}", f"Debug part {a} of the failing tests"
        last = add("assistant", last, False, assistant([{
            "type": "tool_use", "id": tid, "name": "Task",
            "input": {"description": f"Debug part {a}", "prompt": prompt}}]))
        chain = add("user", None, True, {"role": "user", "content": prompt})
        for c in range(spec["edits"]):
            cid = f"toolu_e{a}_{c}"
            chain = add("assistant", chain, True, assistant([{
                "type": "tool_use", "id": cid, "name": "Edit",
                "input": {"file_path": f"/work/app/p{a}_{c}.py", "old_string": "x = 1",
                          "new_string": "x = 2"}}]))
            chain = add("user", chain, True, {"role": "user", "content": [{
                "type": "tool_result", "tool_use_id": cid,
                "content": f"The file /work/app/p{a}_{c}.py has been updated."}]})
        _, report = report_of(spec)
        add("assistant", chain, True, assistant([{"type": "text", "text": report}],
                                                 "end_turn" if spec["ended"] else None))
        if spec["result"]:
            trailer = (f"agentId: a{a}f3c9 (for resuming to continue this agent's work if "
                       f"needed)\n<usage>total_tokens: {spec['tokens']}\ntool_uses: "
                       f"{spec['edits']}\nduration_ms: 5000</usage>")
            content = [{"type": "text", "text": report}, {"type": "text", "text": trailer}]
            last = add("user", last, False, {"role": "user", "content": [{
                "type": "tool_result", "tool_use_id": tid, "content": content}]},
                toolUseResult={"content": content, "totalDurationMs": 5000,
                               "totalTokens": spec["tokens"]})
    return lines


def edit_calls(lines: list[dict[str, Any]]) -> list[int]:
    """Per Task (in order), the Edit calls of the chain opening with its
    prompt (followed by parentUuid), from the JSON."""
    prompts = [b["input"]["prompt"] for o in lines if not o["isSidechain"]
               and o["type"] == "assistant" for b in o["message"]["content"]
               if b.get("name") == "Task"]
    side = [o for o in lines if o["isSidechain"]]
    out = []
    for prompt in prompts:
        members = {o["uuid"] for o in side if o["message"]["content"] == prompt}
        for o in side:
            if o["parentUuid"] in members:
                members.add(o["uuid"])
        out.append(sum(1 for o in side if o["uuid"] in members and o["type"] == "assistant"
                       for b in o["message"]["content"] if b.get("name") == "Edit"))
    return out


@settings(max_examples=examples(10, 40), deadline=None)
@given(agents=st.lists(agent_of, min_size=1, max_size=3))
def test_a_finished_subagents_report_is_told_as_its_words(
        tmp_path_factory: Any, agents: list[dict[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("reports"))
    env.here = in_process("subagent reports")
    lines = session(agents)
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0].splitlines()
    delegated = [k for k, ln in enumerate(story) if ln.startswith("- Delegated to subagent")]
    assert len(delegated) == len(agents)
    for k, spec, edits in zip(delegated, agents, edit_calls(lines), strict=True):
        first, _ = report_of(spec)
        below = story[k + 1] if k + 1 < len(story) else ""
        if not (spec["result"] or spec["ended"]):
            assert "report" not in below, below  # unfinished: it reported nothing
            continue
        assert below.startswith("  > *Its report"), (below, spec)
        assert first.replace("_", r"\_") in below, (first, below)
        claims = spec["verb"] in CLAIMS
        assert ("(it changed no file)" in below) == (claims and edits == 0), (below, edits)
    assert "total_tokens" not in note and "for resuming" not in note
    for planted in ("total_tokens", str(agents[0]["tokens"]), "resuming"):
        found = env.vv("search", "--json", planted)
        hits = json.loads(found.stdout) if found.returncode == 0 and found.stdout else []
        assert not hits, (planted, hits)


USAGE_TRAILER = re.compile(r"<usage>total_tokens: (\d+)")


@pytest.mark.corpus
def test_no_corpus_search_finds_claude_codes_usage_trailer(tmp_path: Path) -> None:
    """Every corpus session's subagent results: the usage figure Claude Code
    appends to each (from the JSON) is found by no search."""
    planted = sorted({m.group(1) for p in main_files()
                      for m in USAGE_TRAILER.finditer(p.read_text(errors="replace"))})
    assert planted, "the corpus has subagent results with Claude Code's usage trailer"
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    for value in ["total_tokens", *planted[:20]]:
        found = env.vv("search", "--json", value)
        hits = json.loads(found.stdout) if found.returncode == 0 and found.stdout else []
        assert not hits, (value, hits)


@pytest.mark.corpus
def test_the_corpus_subagent_that_claimed_a_fix_it_never_made(tmp_path: Path) -> None:
    """Every corpus session of the older layout whose subagent chain ended its
    turn with a report claiming a fix, and made no Edit or Write (by the
    JSON): its note gives the report as the subagent's, saying it changed no
    file."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {n.split("session_id: ", 1)[1].split("\n", 1)[0]: n for n in env.notes().values()}
    checked = 0
    for main in main_files():
        side = [o for o in objects(main) if o.get("isSidechain")]
        ended = [o for o in side if o.get("type") == "assistant"
                 and (o.get("message") or {}).get("stop_reason") == "end_turn"]
        edits = any(b.get("name") in ("Edit", "Write", "MultiEdit", "Bash") for o in side
                    for b in (o.get("message") or {}).get("content") or []
                    if isinstance(b, dict))
        if len(ended) != 1 or edits:
            continue
        words = " ".join(str(b.get("text") or "") for b in ended[0]["message"]["content"]
                         if isinstance(b, dict))
        if not re.search(r"\bfixed\b", words, re.I):
            continue
        sid = str(ended[0].get("sessionId"))
        assert "*Its report (it changed no file):*" in notes[sid], main
        checked += 1
    assert checked, "the corpus has such a subagent (df749439)"
