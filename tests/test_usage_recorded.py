"""Replies whose usage Claude Code recorded before they ended.

Some clients (1.0.x and 2.0.5-2.1.114 in the corpus) write each snapshot of a
reply with the output counted so far, so a 7,000-character Write can carry
`output_tokens: 3`. The note keeps the recorded figures (they are what the
transcript says, and what ccusage counts) and says how much output they leave
out. The oracle is the transcript as generated here: which replies were
written short, and their lengths.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, corpus_files, examples, in_process, json_objects

SID = "0a7ba7e5-0000-4000-8000-000000000001"


def transcript(replies: list[tuple[str, int, int]]) -> str:
    """One prompt, then each reply as its own message written in snapshots,
    one block each (as Claude Code writes them): (kind, characters, blocks)."""
    lines: list[dict[str, Any]] = []

    def entry(**fields: Any) -> None:
        i = len(lines)
        lines.append({"uuid": f"u-{i}", "parentUuid": f"u-{i - 1}" if i else None,
                      "sessionId": SID, "timestamp": f"2026-05-01T10:{i // 60:02d}:{i % 60:02d}Z",
                      "cwd": "/home/u/usage", "version": "2.1.30", **fields})

    entry(type="user", message={"role": "user", "content": "write the report"})
    for n, (kind, chars, blocks) in enumerate(replies):
        per = chars // blocks
        for k in range(blocks):
            # A short reply's every snapshot has the output of its start; a
            # reply recorded whole has its last snapshot's output at ~3.5
            # characters a token.
            final = k == blocks - 1 and kind == "whole"
            output = int(chars / 3.5) if final else 1 + k
            block = ({"type": "text", "text": "w" * per} if k % 2 == 0 else
                     {"type": "tool_use", "id": f"toolu_{n}_{k}", "name": "Write",
                      "input": {"file_path": f"/home/u/usage/f{n}_{k}.md",
                                "content": "c" * per}})
            entry(type="assistant", message={
                "id": f"msg_{n}", "model": "claude-sonnet-4-5", "role": "assistant",
                "content": [block],
                "usage": {"input_tokens": 10, "output_tokens": output}})
            if block["type"] == "tool_use":
                entry(type="user", message={"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{n}_{k}",
                     "content": "File created successfully"}]})
    return "".join(json.dumps(line) + "\n" for line in lines)


REPLY = st.tuples(st.sampled_from(["whole", "short"]), st.integers(40, 12_000),
                  st.integers(1, 4))


@settings(max_examples=examples(4, 8), deadline=None)
@given(st.lists(REPLY, min_size=1, max_size=6))
def test_the_note_says_how_much_output_replies_recorded_short_leave_out(
        tmp_path_factory: Any, replies: list[tuple[str, int, int]]) -> None:
    env = Env(tmp_path_factory.mktemp("usage"))
    env.here = in_process("usage recorded")
    slug = env.claude / "projects" / "-home-u-usage"
    slug.mkdir(parents=True)
    (slug / f"{SID}.jsonl").write_text(transcript(replies))
    assert env.vv("backfill").returncode == 0
    [note] = env.notes().values()
    # Replies recorded short are told (from a few hundred characters on: 2.0.5
    # records 1 token for 1,500); tiny ones and those recorded whole never are.
    short = [(chars // blocks) * blocks for kind, chars, blocks in replies
             if kind == "short" and (chars // blocks) * blocks >= 300]
    unclear = [1 for kind, chars, blocks in replies
               if kind == "short" and 150 <= (chars // blocks) * blocks < 300]
    line = re.search(r"\*Tokens and cost are a little low: Claude Code saved the token "
                     r"counts of (\d+) repl(?:y|ies) before they were finished, about "
                     r"([\d.]+)(k?) output tokens", note)
    # (said below, in plain words, never in the header's line of facts: review 26 #5)
    assert "under-recorded" not in note
    if not short and not unclear:
        assert line is None, note
        return
    if not line:
        assert not short, note
        return
    told = int(line.group(1))
    assert len(short) <= told <= len(short) + len(unclear), (told, replies)
    estimate = float(line.group(2)) * (1000 if line.group(3) else 1)
    # about a token per 4 characters of what they wrote, less the little recorded
    # (shown in whole thousands from 1k on: off by up to 500 more)
    slack = 500 if estimate >= 1000 else 0
    assert 0.7 * sum(short) / 4 - slack <= estimate
    assert estimate <= 1.3 * (sum(short) + 300 * len(unclear)) / 4 + 50 + slack
    # the recorded figures themselves are kept as the transcript has them
    recorded = sum(int(chars / 3.5) if kind == "whole" else blocks
                   for kind, chars, blocks in replies)
    assert f"output_tokens: {recorded}" in note


@pytest.mark.corpus
def test_corpus_replies_recorded_short_are_counted() -> None:
    """Every corpus transcript (each file on its own, main or subagent): the
    replies counted as recorded short lie between those the JSON shows
    plainly so (400 characters or more of text, thinking and tool input as
    JSON, over 32 of them a recorded output token, the most any snapshot of the
    message recorded) and those it shows so at all (100 or more, over 8 a
    token). 9e953218: most of its replies, not 1."""
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold
    for path in corpus_files():
        written: dict[str, list[int]] = {}
        for o in json_objects(path):
            m = o.get("message") if isinstance(o.get("message"), dict) else {}
            usage = m.get("usage")
            if o.get("type") != "assistant" or not isinstance(usage, dict) or \
                    m.get("model") == "<synthetic>":
                continue
            key = str(m.get("id") or o.get("requestId") or o.get("uuid"))
            chars = sum(len(str(b.get("text") or "")) + len(str(b.get("thinking") or ""))
                        + (len(json.dumps(b.get("input"))) if b.get("type") == "tool_use" else 0)
                        for b in m.get("content") or [] if isinstance(b, dict))
            seen = written.setdefault(key, [0, 0])
            seen[0] += chars
            seen[1] = max(seen[1], int(usage.get("output_tokens") or 0))
        plainly = sum(1 for c, out in written.values() if c >= 400 and c > 32 * out)
        at_all = sum(1 for c, out in written.values() if c >= 100 and c > 8 * out)
        lines = [x for x in path.read_bytes().split(b"\n") if x.strip()]
        f = fold(Fold(), (decode_line(x) for x in lines))
        told = sum(t.short for t in [*f.usage.values(), *f.settled.values()])
        assert plainly <= told <= at_all, (path, plainly, told, at_all)
        if path.name.startswith("9e953218"):
            assert told > len(written) // 2
