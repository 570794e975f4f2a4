"""discover.py: sniffing a transcript's start (its first time, its folder, and
whether Claude answered) without reading it all."""

from __future__ import annotations

import json
from pathlib import Path


def test_sniffing_a_transcript_tells_whether_it_is_worth_a_note(tmp_path: Path) -> None:
    """Claude answered, or the user asked something (a prompt never answered
    has a note too); Claude Code's own lines, a bare `/model` or a tool's
    result alone are nothing asked."""
    from vibe_vault.discover import sniff_start

    prompt = {"type": "user", "timestamp": "2026-01-21T07:00:00Z", "cwd": "/w/p",
              "message": {"role": "user", "content": "hi"}}
    answer = {"type": "assistant", "timestamp": "2026-01-21T07:00:01Z", "cwd": "/w/p",
              "message": {"model": "claude-x", "role": "assistant", "content": []}}
    synthetic = dict(answer, message={"model": "<synthetic>", "role": "assistant",
                                      "content": []})
    side = dict(answer, isSidechain=True)
    meta = dict(prompt, isMeta=True)
    bare = dict(prompt, message={"role": "user", "content": (
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args></command-args>")})
    given = dict(prompt, message={"role": "user", "content": (
        "<command-name>/plan</command-name>\n<command-args>add a CSV export</command-args>")})
    output = dict(prompt, message={"role": "user", "content": (
        "<local-command-stdout>Set model to Opus</local-command-stdout>")})
    result = dict(prompt, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]})
    selected = dict(prompt, message={"role": "user", "content": [
        {"type": "text", "text": "<ide_selection>a line</ide_selection>"},
        {"type": "text", "text": "why is this here?"}]})
    only_selected = dict(prompt, message={"role": "user", "content": [
        {"type": "text", "text": "<ide_selection>a line</ide_selection>"}]})
    image = dict(prompt, message={"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "data": "iVBO"}}]})

    def start(*lines: dict[str, object], limit: int = 1 << 20) -> tuple[str, str, bool]:
        path = tmp_path / "t.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        got = sniff_start(path, limit)
        return got.first_ts, got.cwd, got.answered

    assert start(prompt, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(prompt) == ("2026-01-21T07:00:00Z", "/w/p", True)  # asked, never answered
    for asked in (given, selected, image):
        assert start(meta, asked)[2] is True, asked
    for nothing in ((meta, synthetic, side), (meta, bare, output), (result,), (only_selected,),
                    (dict(side, type="user", message=prompt["message"]),)):
        assert start(*nothing)[2] is False, nothing
    assert start(meta, meta, answer, limit=300)[2] is True  # not read to the end
    # A first line longer than one block read: the next, larger block tells.
    long_meta = dict(output, message={"role": "user", "content": (
        f"<local-command-stdout>{'x' * 100_000}</local-command-stdout>")})
    assert start(long_meta, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(long_meta, long_meta) == ("2026-01-21T07:00:00Z", "/w/p", False)
    assert start(long_meta, answer, limit=50_000)[2] is True  # not read to the end
