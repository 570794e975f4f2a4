"""SessionEnd never waits: not for a neighbour's lock, not for a large registry.
It writes its registry row and its project's and the home note from indexed
reads; when the database is busy or still to be built, its record is staged
and a background `vv index` does the rest."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
import uuid
from pathlib import Path

import msgspec
import pytest

from conftest import CORPUS, Env, frontmatter
from test_hook_contract import SESSION, SID, assert_harmless, place, stop
from vibe_vault import registry
from vibe_vault.records import FileStamp, Record
from vibe_vault.registry import Registry
from vibe_vault.session import Store

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus


def session_end(sid: str, path: Path) -> dict[str, object]:
    return dict(stop(sid=sid, path=path), hook_event_name="SessionEnd", reason="exit")


def wait_for(check, seconds: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def test_neighbours_locked_do_not_hold_session_end(env: Env) -> None:
    # Three sessions of one project starting at the same minute: ordered by id,
    # so the middle one, ending last, changes both neighbours' links.
    sids = [f"0000000{i}-0000-4000-8000-00000000000{i}" for i in range(3)]
    # (SessionEnd's own budget, not the home's five minutes: what is timed is a
    # SessionEnd as Claude Code runs it, which stops reading at 1.2 s)
    env.configure("session_end_deadline = 1.2\n")
    targets = [place(env, SESSION, sid) for sid in sids]
    for i in (0, 2):
        assert_harmless(env.hook(session_end(sids[i], targets[i])))
    fds = []
    for i in (0, 2):
        fd = os.open(Store(env.state).lock_path(sids[i]), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        fds.append(fd)
    try:
        t0 = time.monotonic()
        assert_harmless(env.hook(session_end(sids[1], targets[1])))
        assert time.monotonic() - t0 < 2.0  # the old code waited 2 s per held lock
    finally:
        for fd in fds:
            os.close(fd)
    assert env.registry().sessions[sids[1]].status == "ended"
    # The next run that can take the locks writes the neighbours' new links.
    assert env.vv("index").returncode == 0
    assert env.vv("backfill").returncode == 0
    notes = env.notes()
    assert sum("next session" in n for n in notes.values()) == 2


def big_registry(state: Path, n: int) -> None:
    reg = Registry()
    for i in range(n):
        sid = str(uuid.UUID(int=i + 1, version=4))
        project = f"p{i % 40}"
        reg.sessions[sid] = Record(
            session_id=sid, project=project, has_note=True, status="ended",
            note=f"Projects/{project}/sessions/2025-01-01-0000-{sid[:8]}.md",
            title=f"old session {i}", started=f"2025-01-{1 + i % 28:02d}T10:00:00+00:00",
            files=[FileStamp(path=f"/gone/{sid}.jsonl", size=1, mtime_ns=1, inode=i)],
            tail_uuids=[str(uuid.UUID(int=10**9 + i, version=4))])
    state.mkdir(parents=True, exist_ok=True)
    # as versions before the database kept it
    Path(registry.legacy_path(state)).write_bytes(msgspec.msgpack.encode(reg))


def test_the_first_session_end_after_an_upgrade_leaves_the_registry_to_a_background_run(
        env: Env) -> None:
    big_registry(env.state, 7000)
    target = place(env)
    assert_harmless(env.hook(session_end(SID, target)))
    note = next(iter(env.notes().values()))
    assert frontmatter(note)["status"] == "ended"
    # Staged at once: every reader of the registry sees the session.
    assert env.registry().sessions[SID].status == "ended"
    home = env.vault / "index.md"
    assert wait_for(lambda: home.exists() and "7001 sessions" in home.read_text())
    assert wait_for(lambda: not list((env.state / "registry.d").iterdir()))
    assert SID in env.registry().sessions
    assert len(env.registry().sessions) == 7001
    # the old registry file was taken in once, and kept aside
    assert not Path(registry.legacy_path(env.state)).exists()
    assert Path(registry.legacy_path(env.state) + ".imported").exists()


def test_session_end_on_a_large_vault_updates_its_project_and_the_home_note_itself(
        env: Env) -> None:
    big_registry(env.state, 7000)
    assert env.vv("index").returncode == 0  # the old registry taken in
    target = place(env)
    assert_harmless(env.hook(session_end(SID, target)))
    # no background run: done when the hook returns
    assert "7001 sessions" in (env.vault / "index.md").read_text()
    project = frontmatter(next(iter(env.notes().values())))["project"]
    project_note = (env.vault / "Projects" / str(project) / f"{project}.md").read_text()
    assert SID[:8] in project_note
    assert not (env.state / "registry.d").exists() or not list(
        (env.state / "registry.d").iterdir())
    # an old project's note was not rewritten
    assert not (env.vault / "Projects" / "p1" / "p1.md").exists()


def test_index_command_folds_staged_records(env: Env) -> None:
    target = place(env)
    big_registry(env.state, 10)
    rec = Record(session_id=SID, project="staged", has_note=True, title="staged one",
                 note="Projects/staged/sessions/x.md", started="2026-01-01T00:00:00+00:00")
    registry.stage(env.state, rec)
    r = env.vv("stats", "--json")
    assert r.returncode == 0 and b"staged" in r.stdout
    r = env.vv("index")
    assert r.returncode == 0, r.stderr
    assert not list((env.state / "registry.d").iterdir())
    assert "staged one" in (env.vault / "Projects" / "staged" / "staged.md").read_text()
    assert target.exists()


def test_a_subagent_file_growing_after_session_end_is_no_resume(env: Env) -> None:
    """Only the main transcript growing means the user came back: a subagent's
    file written after SessionEnd (its last lines flushed late) leaves the
    session ended; new lines in the main transcript make it active again."""
    src = (CORPUS / "iansherr__claude-code-log/real_projects/-experiments-worktrees"
           / "ef958aa1-0e93-49f0-bb71-150f63befcd1")
    slug = env.claude / "projects" / "-experiments-worktrees"
    shutil.copytree(src, slug / src.name)
    main = slug / f"{src.name}.jsonl"
    shutil.copyfile(src.with_suffix(".jsonl"), main)
    assert_harmless(env.hook(session_end(src.name, main)))

    def status() -> str:
        (note,) = env.notes().values()
        return str(frontmatter(note)["status"])

    assert status() == "ended"
    agent = sorted((slug / src.name / "subagents").glob("agent-*.jsonl"))[0]
    last = agent.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    with agent.open("ab") as f:
        f.write(last.replace(b'"uuid":"', b'"uuid":"f') + b"\n")
    assert_harmless(env.hook(stop(sid=src.name, path=main)))
    assert status() == "ended"
    assert env.vv("backfill").returncode == 0
    assert status() == "ended"
    # The user comes back: a new prompt after the file's last line (ef958aa1
    # ends with /exit, so a copy of that line would still read as ended by it).
    last = msgspec.json.decode(main.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    prompt = {**last, "parentUuid": last["uuid"], "uuid": str(uuid.uuid4()),
              "message": {"role": "user", "content": "one more thing, please"}}
    with main.open("ab") as f:
        f.write(msgspec.json.encode(prompt) + b"\n")
    assert_harmless(env.hook(stop(sid=src.name, path=main)))
    assert status() == "active"
