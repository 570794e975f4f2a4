"""Warm `vv backfill` runs catch every change, however cheaply they pass over
what did not change (issue 31: folders passed over on their marks).

Generated histories of a Claude Code home between warm runs: sessions added,
appended to (some with their file's time put back as it was), subagent files
added and appended to, sessions deleted, empty files, notes deleted from the
vault, sessions forgotten. Oracle: after the last run, the vault equals the
one a first backfill of the final home makes (with the same tombstones), and
`vv backfill --json`'s counts equal those of the files on disk.
"""

from __future__ import annotations

import json
import os
import shutil
from itertools import count
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process

PROJECTS = ("alpha", "beta", "gamma")
WORDS = ("fix", "the", "parser", "add", "tests", "docs")  # few: titles repeat


class Home:
    """The transcripts of a generated home, and how to change them."""

    def __init__(self, root: Path) -> None:
        self.root = root / "claude" / "projects"
        self.sessions: dict[str, tuple[str, int]] = {}  # sid -> (project, lines so far)
        self.agents: dict[str, list[str]] = {}  # sid -> its subagent files
        self.numbers = count(1)
        self.touched: set[str] = set()  # sessions changed since the last run
        self.attic = root / "attic"  # deleted sessions' files, as the last run read them

    def folder(self, project: str) -> Path:
        return self.root / f"-work-{project}"

    def path(self, sid: str) -> Path:
        return self.folder(self.sessions[sid][0]) / f"{sid}.jsonl"

    def _lines(self, sid: str, project: str, first: int, turns: list[str],
               agent: str = "") -> bytes:
        n = int(sid[-6:])
        # message ids of their own: shared ones would link unrelated sessions
        stem = f"{sid[-8:]}-{len(agent):04d}-4000-8000-{int(agent[1:] or 0):04d}"
        out = []
        for i, prompt in enumerate(turns, start=first):
            at = f"2026-0{1 + n % 8}-{10 + n % 17:02d}T{10 + i // 60:02d}:{i % 60:02d}:00.000Z"
            base: dict[str, Any] = {
                "sessionId": sid, "cwd": f"/work/{project}", "version": "2.1.50",
                "timestamp": at, "parentUuid": None if i == 0 else f"{stem}{i * 2 - 1:08d}"}
            if agent:
                base.update(isSidechain=True, agentId=agent)
            out.append({**base, "type": "user", "uuid": f"{stem}{i * 2:08d}",
                        "message": {"role": "user", "content": prompt}})
            out.append({**base, "type": "assistant", "uuid": f"{stem}{i * 2 + 1:08d}",
                        "parentUuid": f"{stem}{i * 2:08d}",
                        "message": {"id": f"msg_{sid[-6:]}{agent}{i}", "role": "assistant",
                                    "model": "claude-sonnet-4-5",
                                    "content": [{"type": "text", "text": "done: " + prompt}],
                                    "usage": {"input_tokens": 3 + i, "output_tokens": 5}}})
        return b"".join(json.dumps(line).encode() + b"\n" for line in out)

    def new(self, project: str, turns: list[str]) -> None:
        k = next(self.numbers)
        sid = f"{k:08d}-5e7a-4000-8000-{k:012d}"  # its note's name ends in the first 8
        self.sessions[sid] = (project, len(turns))
        self.touched.add(sid)
        self.folder(project).mkdir(parents=True, exist_ok=True)
        self.path(sid).write_bytes(self._lines(sid, project, 0, turns))

    def append(self, sid: str, turns: list[str], keep_time: bool) -> None:
        path = self.path(sid)
        project, had = self.sessions[sid]
        before = path.stat()
        with path.open("ab") as f:
            f.write(self._lines(sid, project, had, turns))
        self.sessions[sid] = (project, had + len(turns))
        self.touched.add(sid)
        if keep_time:  # grown, with the time it had: only its size tells
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    def subagent(self, sid: str, turns: list[str]) -> None:
        project, _ = self.sessions[sid]
        agents = self.agents.setdefault(sid, [])
        name = f"a{len(agents)}"
        path = self.folder(project) / sid / "subagents" / f"agent-{name}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self._lines(sid, project, 0, turns, agent=name))
        agents.append(str(path))
        self.touched.add(sid)

    def agent_append(self, sid: str, turns: list[str]) -> None:
        path = Path(self.agents[sid][-1])
        project, _ = self.sessions[sid]
        with path.open("ab") as f:
            f.write(self._lines(sid, project, 50, turns, agent=path.stem[6:]))
        self.touched.add(sid)

    def delete(self, sid: str) -> None:
        """Its files gone, as Claude Code's cleanup takes them: vv keeps the
        session as last read (so only one unchanged since the last run)."""
        for path in (self.path(sid), self.path(sid).with_suffix("")):
            if path.exists():
                dest = self.attic / path.relative_to(self.root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                path.rename(dest)
        del self.sessions[sid]
        self.agents.pop(sid, None)

    def restore(self) -> None:
        """The deleted sessions' files back where they were: the home whose
        first backfill is the oracle."""
        if self.attic.exists():
            shutil.copytree(self.attic, self.root, dirs_exist_ok=True)

    def empty(self, project: str) -> None:
        self.folder(project).mkdir(parents=True, exist_ok=True)
        (self.folder(project) / f"empty-{next(self.numbers)}.jsonl").write_bytes(b"")


prompt = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
turns = st.lists(prompt, min_size=1, max_size=3)
change = st.one_of(
    st.tuples(st.just("new"), st.sampled_from(PROJECTS), turns),
    st.tuples(st.just("append"), st.integers(0, 99), turns, st.booleans()),
    st.tuples(st.just("subagent"), st.integers(0, 99), turns),
    st.tuples(st.just("agent_append"), st.integers(0, 99), turns),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("empty"), st.sampled_from(PROJECTS)),
    st.tuples(st.just("drop_note"), st.integers(0, 99)),
    st.tuples(st.just("forget"), st.integers(0, 99)),
)
# each round's changes, then a warm run; an empty round is a run with nothing new
history = st.lists(st.lists(change, max_size=3), min_size=1, max_size=4)


def apply(env: Env, home: Home, step: tuple[Any, ...], here: bool = False) -> None:
    kind = step[0]
    sids = sorted(home.sessions)
    if kind == "new":
        home.new(step[1], step[2])
    elif kind == "empty":
        home.empty(step[1])
    elif kind == "drop_note":
        notes = sorted(env.vault.glob("Projects/*/sessions/*.md"))
        if notes:
            notes[step[1] % len(notes)].unlink()
    elif sids:
        sid = sids[step[1] % len(sids)]
        if kind == "append":
            home.append(sid, step[2], step[3])
        elif kind == "subagent":
            home.subagent(sid, step[2])
        elif kind == "agent_append" and home.agents.get(sid):
            home.agent_append(sid, step[2])
        elif kind == "delete" and sid not in home.touched:
            home.delete(sid)
        elif kind == "forget":
            assert (env.vv_here if here else env.vv)("forget", sid).returncode == 0
            home.touched.add(sid)


def run(env: Env, here: bool = False) -> dict[str, Any]:
    """`vv backfill --json` (as a process, or `here` in this one), its summary."""
    r = (env.vv_here if here else env.vv)("backfill", "--json")
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    return out


@settings(max_examples=examples(6, 40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(first=st.lists(st.tuples(st.sampled_from(PROJECTS), turns), min_size=1, max_size=5),
       rounds=history)
# A session whose transcript Claude Code deleted, then its note deleted: the
# warm run writes the note again from the state, as a first backfill would.
@example(first=[("alpha", ["fix"])], rounds=[[("delete", 0), ("new", "beta", ["fix"]),
                                              ("drop_note", 0)]])
@example(first=[("alpha", ["fix"]), ("beta", ["add"])],
         rounds=[[("delete", 0)], [("drop_note", 0)]])
def test_warm_runs_equal_a_first_backfill_of_the_final_home(
        tmp_path_factory: Any, first: list[tuple[str, list[str]]],
        rounds: list[list[tuple[Any, ...]]]) -> None:
    root = tmp_path_factory.mktemp("warm")
    here = in_process("warm runs")
    env = Env(root)
    home = Home(root)
    for project, prompts in first:
        home.new(project, prompts)
    run(env, here)
    home.touched.clear()
    for changes in rounds:
        for step in changes:
            apply(env, home, step, here)
        summary = run(env, here)
        home.touched.clear()
        alive = {sid for sid in home.sessions
                 if not (env.state / "forgotten" / sid).exists()}
        assert summary["sessions"] == len(home.sessions)
        assert summary["failed"] == 0
        assert summary["sessions"] - summary["forgotten"] == len(alive)
    again = run(env, here)  # nothing changed: passed over, counted as before
    assert again["written"] == 0 and again["bytes"] == 0
    assert again["unchanged"] == len(home.sessions) - again["forgotten"]

    home.restore()
    fresh = Env(root / "fresh")
    fresh.env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
    if (env.state / "forgotten").exists():
        shutil.copytree(env.state / "forgotten", fresh.state / "forgotten")
    run(fresh, here)
    assert env.all_notes() == fresh.all_notes()


def test_a_warm_run_with_nothing_new_reads_no_session(tmp_path: Path) -> None:
    """Every folder passed over on its mark: the marks cover each folder, and
    the run's counts are those of the files."""
    from vibe_vault import folder_marks, vaultdb
    from vibe_vault.stored_paths import folder_key

    env = Env(tmp_path)
    home = Home(tmp_path)
    for i, project in enumerate(PROJECTS * 3):
        home.new(project, [WORDS[i % len(WORDS)]])
    home.empty("alpha")
    first = run(env)
    second = run(env)
    assert second["unchanged"] == first["sessions"] == len(home.sessions)
    assert second["skipped_files"] == first["skipped_files"] == {"empty": 1}
    conn = vaultdb.connect(str(env.state))
    try:
        marks = folder_marks.load(conn)
    finally:
        conn.close()
    assert sorted(marks.folders) == sorted(folder_key(str(home.folder(p))) for p in PROJECTS)
    assert sum(m.sessions for m in marks.folders.values()) == len(home.sessions)
