"""Plan mode as Claude Code 2.1.197-2.1.332 writes it: the model writes its
plan to the plan file (`~/.claude/plans/<name>.md`), then calls ExitPlanMode
with no plan of its own; an approval's result carries the plan as the client
read it from the file (the user may have edited it there), a refusal's result
is an error. The story tells the plan and the answer.

Generated: the plan's lines, rewrites of the file, the answer and whether the
approval carries an edited plan. The oracle is the generator's record of what
the user saw last.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vibe_vault.entries import decode_lines
from vibe_vault.fold import fold
from vibe_vault.state import Fold

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=30).map(
    str.strip).filter(bool)
plans = st.lists(words, min_size=1, max_size=4).map(
    lambda steps: "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))


def _line(k: int, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"msg_{k}", model="claude-opus-5-5",
                       usage={"input_tokens": 1, "output_tokens": 1})
    return {"type": kind, "uuid": f"u{k}", "sessionId": "s",
            "timestamp": f"2026-11-26T10:00:{k:02d}.000Z", "message": message, **extra}


@settings(max_examples=60, deadline=None)
@given(drafts=st.lists(plans, min_size=1, max_size=3), approved=st.booleans(),
       edited=st.none() | plans, cut=st.floats(0, 1))
def test_the_plan_the_user_answered_is_told(drafts: list[str], approved: bool,
                                            edited: str | None, cut: float) -> None:
    lines = [_line(0, "user", "plan the fix")]
    path = "/home/me/.claude/plans/plan-the-fix-brave-otter.md"
    for i, draft in enumerate(drafts):
        tid = f"toolu_w{i}"
        lines.append(_line(len(lines), "assistant", [{"type": "tool_use", "id": tid,
                                                      "name": "Write", "input": {
                                                          "file_path": path, "content": draft}}]))
        lines.append(_line(len(lines), "user", [{"type": "tool_result", "tool_use_id": tid,
                                                 "content": "File created"}],
                           toolUseResult={"type": "create", "filePath": path}))
    lines.append(_line(len(lines), "assistant", [{"type": "tool_use", "id": "toolu_x",
                                                  "name": "ExitPlanMode", "input": {}}]))
    shown = drafts[-1]
    if approved:
        final = edited if edited is not None else shown
        lines.append(_line(len(lines), "user", [{"type": "tool_result", "tool_use_id": "toolu_x",
                                                 "content": "User has approved your plan."}],
                           toolUseResult={"plan": final, "filePath": path}))
        shown = final
    else:
        lines.append(_line(len(lines), "user", [{
            "type": "tool_result", "tool_use_id": "toolu_x", "is_error": True,
            "content": "The user doesn't want to proceed with this tool use."}],
            toolUseResult="User rejected tool use"))
    raw = [json.dumps(o).encode() for o in lines]
    at = int(cut * len(raw))
    facts = fold(fold(Fold(), decode_lines(raw[:at])), decode_lines(raw[at:]))
    told = [a for t in facts.turns for a in t.actions if a.kind == "plan"]
    assert len(told) == 1
    assert told[0].status == ("approved" if approved else "rejected")
    assert told[0].detail == shown
