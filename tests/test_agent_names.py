"""A session's legacy subagent files are found among a project folder's names
by searching them joined (session._agent_names): the names it gives are those
that begin as an agent's file does, each whole, whatever else the folder
holds (names that hold a newline, or `agent-` after one, included). The
oracle: each name tested alone."""

from __future__ import annotations

import os
import tempfile

import pytest
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
        assert session.discover_agents(transcript, sid, {})[0] == [mine]


# -- the folder listed only when its names may have changed ------------------------

_OPS = st.lists(st.one_of(
    st.tuples(st.just("mine"), st.booleans()),  # a legacy agent file of the session (or empty yet)
    st.tuples(st.just("theirs"), st.just(False)),  # another session's
    st.tuples(st.just("fill"), st.integers(0, 5)),  # an empty one gets its first line
    st.tuples(st.just("remove"), st.integers(0, 5)),
    st.tuples(st.just("transcript"), st.just(False)),  # another session of the project
    st.tuples(st.just("settle"), st.just(False)),  # the folder's mtime an hour back
    st.tuples(st.just("stop"), st.just(False)),  # nothing changed
), max_size=14)


def _line(owner: str) -> str:
    return f'{{"type":"user","sessionId":"{owner}","isSidechain":true}}\n'


def _owned(folder: str, sid: str) -> list[str]:
    """The oracle: the folder's `agent-*.jsonl` whose first line names `sid`."""
    import json

    out = []
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name.startswith("agent-") and name.endswith(".jsonl"):
            with open(path) as f:
                first = f.readline()
            if first and json.loads(first).get("sessionId") == sid:
                out.append(path)
    return sorted(out)


@settings(max_examples=examples(100, 600), deadline=None)
@given(ops=_OPS)
def test_a_session_finds_its_legacy_agent_files_whatever_changed_since_the_last_stop(
        ops: list[tuple[str, object]]) -> None:
    """Agent files added, removed, written after they were made, other
    sessions' files, the folder's mtime settled or not, Stops with nothing
    new: every Stop finds exactly the session's own agent files in the
    folder (each read as the oracle reads it), whether it listed the folder
    or went by the stamp it kept."""
    from vibe_vault import locations
    from vibe_vault.state import AgentFile

    sid, other = "s-1", "s-2"
    with tempfile.TemporaryDirectory() as folder:
        transcript = os.path.join(folder, f"{sid}.jsonl")
        open(transcript, "w").close()
        known: dict[str, AgentFile] = {}
        stamp: tuple[int, ...] = ()
        made: list[str] = []
        back = 3600
        for n, (op, arg) in enumerate(ops):
            if op in ("mine", "theirs"):
                path = os.path.join(folder, f"agent-{n}.jsonl")
                with open(path, "w") as f:
                    f.write(_line(sid if op == "mine" else other) if op == "theirs" or arg else "")
                made.append(path)
            elif op == "fill" and made:
                path = made[int(str(arg)) % len(made)]
                if os.path.exists(path) and not os.path.getsize(path):
                    with open(path, "w") as f:  # (the folder's mtime unchanged)
                        f.write(_line(sid))
            elif op == "remove" and made:
                path = made[int(str(arg)) % len(made)]
                if os.path.exists(path):
                    os.remove(path)
            elif op == "transcript":
                open(os.path.join(folder, f"t-{n}.jsonl"), "w").close()
            elif op == "settle":
                back -= 1  # (each time another mtime, as the clock moves on)
                when = os.stat(folder).st_mtime - back
                os.utime(folder, (when, when))
            found, stamp = session.discover_agents(transcript, sid, known, stamp)
            assert found == _owned(folder, sid)
            for path in found:  # (as the session's read makes them known)
                known.setdefault(locations.agent_key(transcript, path), AgentFile())


def test_a_stop_lists_a_settled_project_folder_only_when_its_names_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A project folder of many sessions, settled (its mtime an hour back):
    the first Stop lists it, the next ones go by the stamp and do not, until
    a name is added."""
    sid = "s-1"
    listed: list[str] = []
    real = os.listdir

    def listdir(path: str) -> list[str]:
        listed.append(path)
        return real(path)

    with tempfile.TemporaryDirectory() as folder:
        for i in range(300):
            open(os.path.join(folder, f"{i:04d}.jsonl"), "w").close()
        mine = os.path.join(folder, "agent-a1.jsonl")
        with open(mine, "w") as f:
            f.write(_line(sid))
        transcript = os.path.join(folder, f"{sid}.jsonl")
        open(transcript, "w").close()
        when = os.stat(folder).st_mtime - 3600
        os.utime(folder, (when, when))
        monkeypatch.setattr(os, "listdir", listdir)
        from vibe_vault.state import AgentFile

        found, stamp = session.discover_agents(transcript, sid, {}, ())
        assert found == [mine] and stamp and listed == [folder]
        known = {"agent-a1.jsonl": AgentFile()}
        for _ in range(3):
            found, stamp = session.discover_agents(transcript, sid, known, stamp)
            assert found == [mine] and stamp and listed == [folder]
        theirs = os.path.join(folder, "agent-b2.jsonl")
        with open(theirs, "w") as f:
            f.write(_line("s-2"))
        found, stamp = session.discover_agents(transcript, sid, known, stamp)
        assert found == [mine] and listed == [folder, folder]
        assert stamp == ()  # (its mtime is now: too recent to vouch for the names)
