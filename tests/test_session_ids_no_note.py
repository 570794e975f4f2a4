"""A session whose transcript is empty is known and said to have no note,
not "not known" (review 27 #15: `vv show 2c5941bd`, a 0-byte transcript in
the corpus, said "no session '2c5941bd' is known" while other sessions
without a note are answered precisely).

Oracle: the test writes the files itself: which transcript is empty (0
bytes), which holds only a bare `/model`, and which has subagent files
beside an empty transcript; the id is typed as people type it (any case, 8
characters or more). `vv backfill` and `vv show`/`vv resume` run as the user
runs them (the first case as processes).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript


def _typed(sid: str, length: int, upper: bool) -> str:
    shown = sid[:length]
    return shown.upper() if upper else shown


@settings(max_examples=examples(6, 20), deadline=None)
@given(ids=st.lists(st.uuids(version=4), min_size=3, max_size=3, unique_by=lambda u: str(u)[:8]),
       length=st.sampled_from([8, 9, 13, 36]), upper=st.booleans(), agents=st.booleans(),
       command=st.sampled_from(["show", "resume"]))
def test_an_empty_transcript_is_a_session_without_a_note(
        tmp_path_factory: Any, ids: list[uuid.UUID], length: int, upper: bool, agents: bool,
        command: str) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("empty"))))
    env.here = in_process("empty_transcript")  # (the first case: every `vv` a process)
    folder = env.claude / "projects" / "-work-app"
    empty, silent, asked = (str(u) for u in ids)
    folder.mkdir(parents=True)
    (folder / f"{empty}.jsonl").write_bytes(b"")
    if agents:  # (its subagents' files remain: review 27 #13's 6c2214d7)
        helper = Transcript(empty)
        helper.prompt("look around")
        helper.say("Looked.")
        helper.write(folder / empty / "subagents" / "agent-a1b2c3d.jsonl")
    quiet = Transcript(silent, hour=11)
    quiet.slash("model", "")
    quiet.write(folder / f"{silent}.jsonl")
    t = Transcript(asked, hour=12)
    t.prompt("hello")
    t.say("Hi.")
    t.write(folder / f"{asked}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr

    r = env.vv(command, _typed(empty, length, upper))
    err = r.stderr.decode()
    assert r.returncode == 2, (r.stdout, err)
    assert f"session {empty} has no note: its transcript is empty (0 bytes" in err, err
    assert ("only its subagents' files hold entries" in err) == agents, err
    assert "is known" not in err and "Traceback" not in err, err
    # The other kinds stay as they were: no request, and a note.
    r = env.vv(command, _typed(silent, length, upper))
    assert r.returncode == 2 and "holds no request of yours" in r.stderr.decode(), r.stderr
    r = env.vv("show", "--path", _typed(asked, length, upper))
    assert r.returncode == 0 and r.stdout.decode().strip().endswith(f"{asked[:8]}.md"), r
