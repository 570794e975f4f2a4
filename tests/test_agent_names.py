"""A session's legacy subagent files are found among a project folder's names
by searching them joined (session._agent_names): the names it gives are those
that begin as an agent's file does, each whole, whatever else the folder
holds (names that hold a newline, or `agent-` after one, included). The
oracle: each name tested alone."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import session

# Names made of pieces that meet the search's edges: the prefix, part of it,
# newlines (alone and before the prefix), the suffix, other characters.
_PIECES = st.sampled_from(["agent-", "agent", "\n", "\nagent-", ".jsonl", "a", "0", "-", "é"])
_NAMES = st.lists(st.lists(_PIECES, max_size=6).map("".join), max_size=12)


@settings(max_examples=examples(200, 2000), deadline=None)
@given(names=_NAMES)
def test_the_names_of_agents_files_are_those_each_tested_alone(names: list[str]) -> None:
    assert session._agent_names(names) == [n for n in names if n.startswith("agent-")]


def test_a_session_finds_its_legacy_agent_files_among_many() -> None:
    """In a folder of many transcripts, the session's own `agent-*.jsonl` beside
    its transcript are found (and another session's are not)."""
    sid, other = "s-1", "s-2"
    with tempfile.TemporaryDirectory() as folder:
        for i in range(300):
            open(os.path.join(folder, f"{i:04d}.jsonl"), "w").close()
        mine = os.path.join(folder, "agent-a1.jsonl")
        theirs = os.path.join(folder, "agent-b2.jsonl")
        for path, owner in ((mine, sid), (theirs, other)):
            with open(path, "w") as f:
                f.write(f'{{"type":"user","sessionId":"{owner}","isSidechain":true}}\n')
        transcript = os.path.join(folder, f"{sid}.jsonl")
        open(transcript, "w").close()
        assert session.discover_agents(transcript, sid, {}) == [mine]
