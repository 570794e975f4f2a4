"""A session whose transcript is missing, only its subagents' files left, is
answered by what is known of it, not "not known" (review 28 G: `vv show
5b97e2d4`, the session of the corpus's agent-1674bc8c.jsonl, said "no
session '5b97e2d4' is known").

Oracle: the test lays out the files itself, in each of Claude Code's
layouts (a legacy `agent-*.jsonl` beside the transcripts, carrying its
session's id in `sessionId`; `<session>/subagents/agent-*.jsonl`; a
workflow's `<session>/subagents/workflows/wf_*/agent-*.jsonl`), with the
session's own transcript absent, and a second session with its transcript
as a control. The id is typed as people type it (any case, 8 characters or
more). `vv backfill` and `vv show`/`vv resume` run as the user runs them
(the first case as processes).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript

layouts = st.sampled_from(["legacy", "subagents", "workflow"])


@settings(max_examples=examples(6, 20), deadline=None)
@given(ids=st.lists(st.uuids(version=4), min_size=2, max_size=2, unique_by=lambda u: str(u)[:8]),
       placed=st.lists(layouts, min_size=1, max_size=3), length=st.sampled_from([8, 11, 36]),
       upper=st.booleans(), command=st.sampled_from(["show", "resume"]))
def test_a_session_known_only_by_its_subagents_files_is_said_so(
        tmp_path_factory: Any, ids: list[uuid.UUID], placed: list[str], length: int,
        upper: bool, command: str) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("orphan"))))
    env.here = in_process("orphan_agents")  # (the first case: every `vv` a process)
    folder = env.claude / "projects" / "-work-app"
    orphan, whole = (str(u) for u in ids)
    for k, layout in enumerate(placed):
        agent = Transcript(orphan, hour=10 + k)
        agent.prompt("look around")
        agent.say("Looked.")
        for line in agent.lines:  # (a subagent's lines, as Claude Code writes them)
            line.update(isSidechain=True, agentId=f"a{k:06d}")
        name = f"agent-a{k:06d}.jsonl"
        agent.write(folder / name if layout == "legacy" else
                    folder / orphan / "subagents" / name if layout == "subagents" else
                    folder / orphan / "subagents" / "workflows" / f"wf_{k}" / name)
    t = Transcript(whole, hour=12)
    t.prompt("hello")
    t.say("Hi.")
    t.write(folder / f"{whole}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr

    typed = orphan[:length].upper() if upper else orphan[:length]
    r = env.vv(command, typed)
    err = r.stderr.decode()
    assert r.returncode == 2, (r.stdout, err)
    assert f"session {orphan} has no note: its transcript is missing" in err, err
    files = f"{len(placed)} file{'s' if len(placed) != 1 else ''}"
    assert f"only its subagents' files are here ({files} in " in err, err
    assert "is known" not in err and "Traceback" not in err, err
    # The control: a session with its transcript has its note; an id of none is not known.
    r = env.vv("show", "--path", whole[:length])
    assert r.returncode == 0 and r.stdout.decode().strip().endswith(f"{whole[:8]}.md"), r
    none = next(x for x in ("f" * length, "e" * length) if not orphan.startswith(x)
                and not whole.startswith(x))
    r = env.vv(command, none)
    assert r.returncode == 2 and "is known" in r.stderr.decode(), r.stderr
