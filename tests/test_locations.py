"""The state directory's layout (locations): whatever a session id holds, every
path it names is inside the state directory, one file per session, and the
layout is the one older versions wrote (states, journals, tombstones and staged
records keep their places across an upgrade)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from vibe_vault import locations

ROOT = "/state"
PER_SESSION = (locations.state_file, locations.journal_file, locations.session_lock_file,
               locations.staged_file, locations.tombstone, locations.archive_pending_file)


@given(sid=st.text(min_size=1, max_size=200))
def test_every_session_path_is_one_file_inside_its_folder(sid: str) -> None:
    for place in PER_SESSION:
        path = place(ROOT, sid)
        folder, name = os.path.split(path)
        assert os.path.dirname(folder) == ROOT, (place.__name__, path)
        assert name and name not in (".", "..") and "/" not in name and "\x00" not in name


def test_the_layout_is_the_one_on_disk_before() -> None:
    sid = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
    rel = {place.__name__: Path(place(ROOT, sid)).relative_to(ROOT).as_posix()
           for place in PER_SESSION}
    assert rel == {"state_file": f"sessions/{sid}.state", "journal_file": f"journal/{sid}.jsonl",
                   "session_lock_file": f"locks/{sid}.lock",
                   "staged_file": f"registry.d/{sid}.msgpack", "tombstone": f"forgotten/{sid}",
                   "archive_pending_file": f"archive-pending/{sid}"}
    shared = {locations.database: "vault.db", locations.legacy_registry: "registry.msgpack",
              locations.log_file: "vv.log", locations.old_log_file: "vv.log.1",
              locations.last_run: "last-run", locations.archive_dir: "archive",
              locations.tmp_dir: "tmp"}
    for place, name in shared.items():
        assert place(ROOT) == os.path.join(ROOT, name)
    assert locations.lock_file(ROOT, "backfill") == os.path.join(ROOT, "locks", "backfill.lock")


def test_a_sessions_subagent_files_are_where_claude_code_writes_them() -> None:
    """The layouts in the recorded sessions: 2.1 clients write `agent-*.jsonl`
    under `<session id>/subagents/` beside the transcript."""
    fixtures = Path(__file__).parent / "fixtures"
    agents = sorted(fixtures.glob("claude-*/projects/*/*/subagents/agent-*.jsonl"))
    assert agents
    for agent in agents:
        main = agent.parent.parent.parent / f"{agent.parent.parent.name}.jsonl"
        assert main.exists()
        assert locations.subagents_dir(str(main)) == str(agent.parent)
        assert locations.in_subagents_dir(str(agent)) and locations.is_agent_file(agent.name)
        assert not locations.in_subagents_dir(str(main)) and not locations.is_agent_file(main.name)
    assert locations.in_subagents_dir("subagents/agent-a1.jsonl")  # an archive's name
    assert not locations.in_subagents_dir("agent-a1.jsonl")  # a legacy one, beside the transcript
