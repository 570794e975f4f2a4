"""Messages from an agent team's members (Claude Code 2.1.2xx): the client
hands the lead session `Another Claude session sent a message:` with a
`<teammate-message teammate_id=…>` (a JSON notice, `idle_notification` and
its summary, or a teammate's words) and its own advice on trusting peers.
Review 29 found them shown as the user's prompts, raw JSON and advice
included, and counted as prompts.

Generated: sessions of typed prompts and answers with 1-3 teammate
messages between them, and maybe before the first prompt (ids, notice kinds,
summaries, plain words; with or without the client's lead-in and advice; one
or several in one message). Oracle: the generated JSON: the note counts only
the typed prompts, is titled by the first, heads a turn "Prompt" only for
each typed one (quoting it: none empty), names each teammate with what it
said, and holds no tag, no JSON notice and no advice; the first case through
`vv backfill` as a process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process
from test_headlines import Transcript

ADVICE = ("This came from another Claude session — not typed by your user, but very likely "
          "working on their behalf. Treat it as a teammate's request and act on it within "
          "this session's own permission settings.")
word = st.sampled_from(["review", "design", "tests", "docs", "api", "impl", "critic", "lint"])
teammate_id = st.builds(lambda a, b: f"{a}-{b}", word, word)
summary = st.lists(st.sampled_from(["migration", "review", "complete", "VERDICT:", "REVISE",
                                    "all", "tests", "pass", "found", "two", "issues"]),
                   min_size=2, max_size=7).map(" ".join)


@st.composite
def message(draw: st.DrawFn) -> tuple[str, str, str]:
    """(id, what it said, the state it reported) and the tag that carries them."""
    who = draw(teammate_id)
    said = draw(summary)
    kind = draw(st.sampled_from(["idle_notification", "shutdown_notification", ""]))
    if kind:
        body = json.dumps({"type": kind, "from": who, "timestamp": "2026-08-19T09:08:54.292Z",
                           "idleReason": "available", "summary": "[to main] " + said})
        said = "[to main] " + said
    else:
        body = said
    color = draw(st.sampled_from(["blue", "green", "red"]))
    tag = f'<teammate-message teammate_id="{who}" color="{color}">\n{body}\n</teammate-message>'
    return who, said, tag


@st.composite
def session(draw: st.DrawFn) -> tuple[Transcript, list[str], list[tuple[str, str]]]:
    t = Transcript(sid="7ea77ea7-0000-4000-8000-00000000a7e1")
    typed = ["Migrate the client to the SDK's version 2",
             "Ask a teammate to review the design first",
             "Go ahead with the plan"][:draw(st.integers(1, 3))]
    told: list[tuple[str, str]] = []

    def teammates() -> None:
        sent = draw(st.lists(message(), min_size=1, max_size=2))
        lead = draw(st.sampled_from(["Another Claude session sent a message:\n", ""]))
        advice = draw(st.sampled_from(["\n\n" + ADVICE, ""]))
        t.prompt(lead + "\n".join(tag for _, _, tag in sent) + advice)
        told.extend((who, said) for who, said, _ in sent)
        t.say("The teammate's notice is noted.")

    for _ in range(draw(st.integers(0, 1))):  # before anything the user typed
        teammates()
    for n, prompt in enumerate(typed):
        t.prompt(prompt)
        t.say(f"Working on step {n}.")
        for _ in range(draw(st.integers(0, 2))):
            teammates()
    return t, typed, told


def _backfill(env: Env, t: Transcript) -> str:
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    (note,) = env.notes().values()
    return note


@settings(max_examples=examples(10, 40), deadline=None)
@given(session())
def test_a_teammates_message_is_told_as_theirs_not_as_a_prompt(
        tmp_path_factory: Any, case: tuple[Transcript, list[str], list[tuple[str, str]]]) -> None:
    t, typed, told = case
    env = Env(Path(str(tmp_path_factory.mktemp("teammates"))))
    env.here = in_process("teammate messages")
    note = _backfill(env, t)
    fm = frontmatter(note)
    assert fm["prompts"] == len(typed), (fm["prompts"], typed)
    assert str(fm["title"]).startswith(typed[0][:20]), fm["title"]
    # (the line under a turn's heading quotes its prompt: `>` alone, an empty one)
    quoted = re.findall(r"(?m)^### [^\n]*· Prompt[^\n]*\n>(.*)$", note)
    assert [q.strip() for q in quoted] == typed, (quoted, note)
    for who, said in told:
        assert f"Teammate *{who}*" in note, (who, note)
        assert said.replace("[", "\\[") in note or said in note, (said, note)
    for leak in ("teammate-message", "teammate_id", "idle_notification", "idleReason",
                 "Another Claude session", "not typed by your user"):
        assert leak not in note, (leak, note)
