"""Review 29 #3: a model with no known price has no cost.

A session of glm-5 (4.0M tokens) wrote `cost_usd: 0.0000` and "$0.00" in its
project's table: a Dataview sum reads it as free. Generated sessions answer
with models drawn from priced Claude models and made-up unpriced ones; the
oracle is the JSON's models. A session none of whose models is priced has no
`cost_usd` and says "not priced" (naming them) in its header, its tokens
table and its project's table; a project or home total that leaves a model
out says so. Each case runs `vv backfill` (the first as a process).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript

PRICED = ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5")
UNPRICED = ("glm-5", "qwen3-coder-plus", "local-llm-7b")


def _reply(t: Transcript, model: str, n: int, tokens: int) -> None:
    t.raw({"type": "assistant", "message": {
        "id": f"msg_{n}", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": f"Answer {n}."}],
        "usage": {"input_tokens": tokens, "output_tokens": tokens // 10 + 1}}})


@settings(max_examples=examples(10, 40), deadline=None)
@given(models=st.lists(st.sampled_from(PRICED + UNPRICED), min_size=1, max_size=5),
       tokens=st.integers(1, 4_000_000))
def test_a_session_with_no_priced_model_has_no_cost(
        tmp_path_factory: Any, models: list[str], tokens: int) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("unpriced"))))
    env.here = in_process("unpriced cost")
    t = Transcript(sid="5e5a1c0d-0000-4000-8000-00000000c057")
    for n, model in enumerate(models):
        t.prompt(f"Question {n}")
        _reply(t, model, n, tokens)
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    # The oracle: the models the JSON's replies name.
    used = {ln["message"]["model"] for ln in t.lines if ln["type"] == "assistant"}
    unpriced = sorted(used & set(UNPRICED))
    none_priced = not used & set(PRICED)
    notes = env.all_notes()
    (note,) = env.notes().values()
    front = note.split("\n---\n", 1)[0]
    header = next(ln for ln in note.splitlines() if ln.startswith("**Project**"))
    assert ("\ncost_usd: " in front) == (not none_priced), front
    if unpriced:
        assert re.search(r"^unpriced_models: \[(.*)\]$", front, re.M), front
        for m in unpriced:
            assert m in front.split("unpriced_models:", 1)[1].splitlines()[0], front
    if none_priced:
        assert "**Cost** not priced (" in header and "$" not in header.split("**Cost**")[1]
        for m in unpriced:
            assert m in header.split("**Cost** not priced (", 1)[1].split(")")[0], header
        assert "| **Total** |" not in note or "| not priced |" in note, note
    else:
        assert re.search(r"\*\*Cost\*\* \$\d+\.\d\d", header), header
        assert ("+ unpriced" in header) == bool(unpriced), header
    project = notes["Projects/app/app.md"]
    row = next(ln for ln in project.splitlines() if t.sid[:8] in ln and ln.startswith("| "))
    cost_cell = row.split(" | ")[-2]
    if none_priced:
        assert cost_cell == "not priced", row
    else:
        assert cost_cell.startswith("$") and cost_cell.endswith("+ unpriced") == bool(unpriced)
    totals = (next(ln for ln in project.splitlines() if ln.startswith("**1 session**")),
              next(ln for ln in notes["index.md"].splitlines() if ln.startswith("**1 session**")))
    for line in totals:
        said = re.search(r"\(not counting (.*): not priced\)", line)
        assert bool(said) == bool(unpriced), line
        if said:
            assert sorted(said.group(1).split(", ")) == unpriced, line
