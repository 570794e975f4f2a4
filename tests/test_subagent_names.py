"""Issue 29 (review 17, finding 17): a subagent the call named ("alice", a
team's member: an Agent call's `name`) is called by that name, beside its type
and what it was asked, wherever the note names it: the story's "Delegated to"
line, the Subagents section, the Files and Commits rows it did.

The generated test writes Task/Agent calls with and without a name (names and
descriptions drawn); the corpus test reads every Task/Agent call of every
session's JSON (the main file's own calls) and checks the note's lines.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_corpus import expected_sid
from test_headlines import Transcript
from test_story_facts import corpus_notes  # noqa: F401
from vibe_vault.render import render

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
kinds = st.sampled_from(["general-purpose", "Explore", "Plan", "code-reviewer"])


def section(note: str, heading: str) -> str:
    return note.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0] if \
        f"\n## {heading}\n" in note else ""


def unescaped(md: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)


def expected_label(kind: str, name: str) -> str:
    return f"{name} ({kind})" if name else kind


@settings(max_examples=examples(40, 200), deadline=None)
@given(calls=st.lists(st.tuples(kinds, st.one_of(st.just(""), word),
                                st.lists(word, min_size=1, max_size=5).map(" ".join)),
                      min_size=1, max_size=4))
def test_a_named_subagent_is_called_by_its_name(calls: list[tuple[str, str, str]]) -> None:
    t = Transcript()
    t.prompt("split the research between teammates")
    for n, (kind, name, description) in enumerate(calls):
        inp: dict[str, Any] = {"description": description, "subagent_type": kind,
                               "prompt": f"do part {n}"}
        if name:
            inp["name"] = name
        t.call("Agent", inp, {"status": "completed", "agentId": f"a{n:06d}",
                              "totalToolUseCount": 0, "totalTokens": 10,
                              "totalDurationMs": 1000,
                              "content": [{"type": "text", "text": "done"}]}, "done")
    t.say("All done.")
    note = unescaped(render(t.state()))
    story, subagents = section(note, "Story"), section(note, "Subagents")
    for kind, name, description in calls:
        label = expected_label(kind, name)
        assert f"Delegated to subagent *{label}*: {description}" in story, (label, story)
        assert f"- *{label}*: {description} (" in subagents, (label, subagents)


def named_calls(main: Any) -> list[tuple[str, str, str]]:
    """The main file's own Task/Agent calls: (type, name, description)."""
    out = []
    for o in json_objects(main):
        if o.get("type") != "assistant" or o.get("isSidechain"):
            continue
        content = (o.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_use" \
                    and b.get("name") in ("Task", "Agent") and isinstance(b.get("input"), dict):
                inp = b["input"]
                name = inp.get("name") if isinstance(inp.get("name"), str) else ""
                out.append((str(inp.get("subagent_type") or "general-purpose"), name.strip(),
                            " ".join(str(inp.get("description") or "").split())))
    return out


@pytest.mark.corpus
def test_every_corpus_subagent_is_called_by_its_name(
        corpus_notes: dict[str, str]) -> None:  # noqa: F811
    checked = named = 0
    for main in main_files():
        note = corpus_notes.get(str(expected_sid(main)))
        calls = named_calls(main)
        if note is None or not calls:
            continue
        shown = unescaped(note)
        subagents = section(shown, "Subagents")
        for kind, name, description in calls:
            label = expected_label(kind, name)
            head = f"- *{label}*: {description[:40]}" if description else f"- *{label}* ("
            assert head in subagents, (main.name, head, subagents)
            if name:
                named += 1
                # Nowhere is it called by its type alone.
                assert f"*{kind}*: {description[:40]}" not in shown, (main.name, label)
                assert f"*{kind}: {description[:40]}" not in shown, (main.name, label)
        checked += 1
    # (ef958aa1: alice, bob, carol and round 2's alice2, bob2, carol2)
    assert checked > 5 and named >= 6, (checked, named)
