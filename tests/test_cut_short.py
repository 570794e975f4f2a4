"""A hook its deadline cut short never costs a session its note.

Claude Code gives SessionEnd 1.5 s; a loaded machine or a long transcript can
use it all before the note is written. What the hook folded is kept, and the
next `vv backfill` must finish the session: the note it writes is the one a
backfill that never saw the hooks writes. Deadlines are drawn from none at
all to plenty; the oracle is a second vault made by backfill alone.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, in_process, strip_status
from test_search import FILLER, conversation

SID = "c0751105-0000-4000-8000-000000000001"


@settings(max_examples=6, deadline=None)
@given(turns=st.integers(1, 30), stops=st.lists(st.floats(0.0, 1.0), max_size=3),
       end=st.sampled_from([0.0, 0.0001, 0.001, 0.01, 0.05, 2.0]))
def test_a_backfill_after_hooks_cut_short_writes_the_note_backfill_alone_would(
        tmp_path_factory: Any, turns: int, stops: list[float], end: float) -> None:
    text = " ".join(FILLER)
    blob = conversation(SID, [[f"{text} {n}"] for n in range(turns)],
                        [f"question {n} {text}" for n in range(turns)])
    hooked, alone = (Env(tmp_path_factory.mktemp(name)) for name in ("hooked", "alone"))
    hooked.here = alone.here = in_process("cut_short")
    for env in (hooked, alone):
        folder = env.claude / "projects" / "-home-u-conv"
        folder.mkdir(parents=True)
        (folder / f"{SID}.jsonl").write_text(blob)
    transcript = hooked.claude / "projects" / "-home-u-conv" / f"{SID}.jsonl"
    event: dict[str, object] = {"session_id": SID, "transcript_path": str(transcript),
                                "cwd": "/home/u/conv"}
    for budget in stops:
        hooked.configure(f"hook_deadline = {budget}\n")
        r = hooked.hook({**event, "hook_event_name": "Stop", "stop_hook_active": False})
        assert r.returncode == 0 and r.stdout == b""
    hooked.configure(f"session_end_deadline = {end}\n")
    r = hooked.hook({**event, "hook_event_name": "SessionEnd", "reason": "other"})
    assert r.returncode == 0 and r.stdout == b""
    hooked.configure()
    for env in (hooked, alone):
        r = env.vv("backfill")
        assert r.returncode == 0, r.stderr.decode()
    got, want = hooked.notes(), alone.notes()
    assert got.keys() == want.keys() and len(want) == 1
    for key, note in want.items():
        assert strip_status(got[key]) == strip_status(note)
