"""discover.py: sniffing a transcript's start (its first time, its folder, and
whether Claude answered) without reading it all."""

from __future__ import annotations

import json
from pathlib import Path


def test_sniffing_a_transcript_tells_whether_claude_answered(tmp_path: Path) -> None:
    from vibe_vault.discover import sniff_start

    prompt = {"type": "user", "timestamp": "2026-01-21T07:00:00Z", "cwd": "/w/p",
              "message": {"role": "user", "content": "hi"}}
    answer = {"type": "assistant", "timestamp": "2026-01-21T07:00:01Z", "cwd": "/w/p",
              "message": {"model": "claude-x", "role": "assistant", "content": []}}
    synthetic = dict(answer, message={"model": "<synthetic>", "role": "assistant",
                                      "content": []})
    side = dict(answer, isSidechain=True)

    def start(*lines: dict[str, object], limit: int = 1 << 20) -> tuple[str, str, bool]:
        path = tmp_path / "t.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        got = sniff_start(path, limit)
        return got.first_ts, got.cwd, got.answered

    assert start(prompt, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(prompt) == ("2026-01-21T07:00:00Z", "/w/p", False)
    assert start(prompt, synthetic, side)[2] is False  # no answer of Claude's own
    assert start(prompt, prompt, answer, limit=300)[2] is True  # not read to the end
    # A first line longer than one block read: the next, larger block tells.
    long_prompt = dict(prompt, message={"role": "user", "content": "x" * 100_000})
    assert start(long_prompt, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(long_prompt, long_prompt) == ("2026-01-21T07:00:00Z", "/w/p", False)
    assert start(long_prompt, answer, limit=50_000)[2] is True  # not read to the end
