"""The note's header names what the session ran on: one model as `**Model**`,
several as `**Models**`, the main conversation's first and in the order first
used, a model only subagents used marked so, past four "and N more" (the
frontmatter lists them all). Generated sessions: turns answered by models
drawn from a list (a /model switch, a fallback); the oracle is the models of
the JSON's assistant lines, in order of first use."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, examples, frontmatter
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import SessionState

NAMES = ["claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5-20251001",
         "claude-opus-4-5-20251101", "claude-sonnet-4-20250514", "claude-3-7-sonnet-20250219"]


def _session(models: list[str]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for i, model in enumerate(models):
        ts = f"2026-03-01T09:{i:02d}:00Z"
        lines.append({"type": "user", "uuid": f"u{i}", "sessionId": "s", "timestamp": ts,
                      "message": {"role": "user", "content": f"question {i}"}})
        lines.append({"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}",
                      "sessionId": "s", "timestamp": ts.replace(":00Z", ":05Z"),
                      "message": {"id": f"m{i}", "role": "assistant", "model": model,
                                  "content": [{"type": "text", "text": f"answer {i}"}],
                                  "usage": {"input_tokens": 10, "output_tokens": 5}}})
    return lines


def _header(note: str) -> str:
    return next(line for line in note.splitlines() if line.startswith("**Project**"))


@settings(max_examples=examples(60, 600), deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=8))
def test_the_header_names_every_model_in_order_of_first_use(models: list[str]) -> None:
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(json.dumps(o).encode()) for o in _session(models)])
    header = _header(render(state))
    distinct = list(dict.fromkeys(models))
    if len(distinct) == 1:
        assert f"**Model** {distinct[0]} ·" in header, header
        assert "**Models**" not in header
        return
    shown = ", ".join(distinct[:4]) + (f" and {len(distinct) - 4} more" if len(distinct) > 4 else "")
    assert f"**Models** {shown} ·" in header, (header, distinct)
    assert "(subagents)" not in header and "**Model** " not in header


@pytest.mark.corpus
def test_every_corpus_session_with_models_names_them() -> None:
    """Each note of a corpus session names a model in its header when its
    frontmatter lists any, and the header's names are the frontmatter's."""
    from conftest import main_files

    for path in main_files():
        state = SessionState(session_id="s")
        fold(state.fold, [decode_line(raw) for raw in path.read_bytes().splitlines() if raw.strip()])
        note = render(state)
        listed = frontmatter(note).get("models") or []
        assert isinstance(listed, list)
        header = _header(note)
        named = re.findall(r"\*\*Models?\*\* ([^·]*?) ·", header)
        if not listed:
            assert not named, (path, header)
            continue
        assert named, (path, header)
        for model in listed[:4]:
            assert str(model) in named[0], (path, header, listed)
    assert CORPUS.exists()
