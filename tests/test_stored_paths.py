"""A token in a transcript's path (a project folder named with it) reaches
no file vibe-vault writes (issue 27): the registry keeps each transcript's
path through the redaction gate (stored_paths), and a warm backfill still
knows the files it read. Tokens generated in forms the gate knows."""

from __future__ import annotations

import json
import os
import string
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_hook_input import transcript
from vibe_vault.stored_paths import stored_folder, stored_path

ALNUM = string.ascii_letters + string.digits
TOKENS = st.tuples(st.sampled_from(["ghp_", "npm_", "glpat-"]),
                   st.text(alphabet=ALNUM, min_size=36, max_size=36).filter(
                       lambda t: len(set(t[:20])) >= 12)).map(
    lambda t: t[0] + t[1][: 20 if t[0] == "glpat-" else 36])
plain_parts = st.text(alphabet=ALNUM + "-.", min_size=1, max_size=12).filter(
    lambda s: s not in (".", ".."))


@st.composite
def folders(draw: st.DrawFn) -> tuple[str, str | None]:
    """(a folder path, the token in one of its names or None)."""
    parts = draw(st.lists(plain_parts, min_size=1, max_size=5))
    token = draw(st.none() | TOKENS)
    if token is not None:
        at = draw(st.integers(0, len(parts) - 1))
        parts[at] = draw(st.sampled_from([token, "-home-u-" + token, token + "-x"]))
    return "/" + "/".join(parts), token


@given(folders(), st.lists(st.uuids().map(str), min_size=1, max_size=3))
def test_a_folders_files_keep_its_prefix_and_no_token(folder: tuple[str, str | None],
                                                     sids: list[str]) -> None:
    path, token = folder
    head = stored_folder(path)
    assert (head == path) == (token is None)
    for sid in sids:
        for f in (f"{path}/{sid}.jsonl", f"{path}/{sid}/subagents/agent-a{sid[:8]}.jsonl"):
            kept = stored_path(f)
            assert kept.startswith(head + "/")
            assert token is None or token not in kept
            assert kept == f or token is not None
    # Two folders stay two (a digest, not a placeholder).
    if token is not None:
        assert stored_folder(path + "x") != head


@settings(max_examples=examples(3, 20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(TOKENS, st.sampled_from(["{}", "-home-u-{}", "-home-u-{}-app"]), st.uuids().map(str))
def test_a_token_in_the_project_folder_is_kept_nowhere(token: str, shape: str,
                                                       sid: str) -> None:
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env = Env(Path(tmp))
        here = in_process("stored_paths token")
        vv, hook = (env.vv_here, env.hook_here) if here else (env.vv, env.hook)
        # The archive is a raw copy of the transcripts by design (README, Safety).
        env.configure("archive = false\n")
        folder = env.claude / "projects" / shape.format(token)
        folder.mkdir(parents=True)
        path = folder / f"{sid}.jsonl"
        path.write_bytes(transcript(sid, "/srv/app", "Fix the parser"))
        for event in ("Stop", "SessionEnd"):
            r = hook({"hook_event_name": event, "session_id": sid, "cwd": "/srv/app",
                          "transcript_path": str(path), "reason": "exit"})
            assert r.returncode == 0 and r.stdout == b"", r.stderr
        assert env.notes()
        first = vv("backfill", "--json")
        assert first.returncode == 0, first.stderr
        again = json.loads(vv("backfill", "--json").stdout)
        # The files read are still known by their kept paths: nothing read again.
        assert again["unchanged"] == 1 and again.get("written", 0) == 0, again
        assert env.traces(token, sid, here=here) == []
        assert not [p for p in env.state.rglob("*") if token in os.fspath(p)]


@settings(max_examples=examples(3, 20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(TOKENS, st.sampled_from(["{}", "-home-u-{}", "-home-u-{}-app"]), st.uuids().map(str))
def test_a_token_in_the_folder_is_in_no_owner_row_or_archive_manifest(
        token: str, shape: str, sid: str) -> None:
    """The registry's owners of legacy agent files (`<folder>/agent-*.jsonl`)
    and the archive's manifest keep paths as the database does (stored_paths):
    with the archive on (its copies are compressed) and a legacy agent file,
    the token is in no file written, by name or content."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env = Env(Path(tmp))
        env.here = in_process("stored_paths owner row")
        folder = env.claude / "projects" / shape.format(token)
        folder.mkdir(parents=True)
        path = folder / f"{sid}.jsonl"
        path.write_bytes(transcript(sid, "/srv/app", "Fix the parser"))
        agent = folder / "agent-a1b2c3d4.jsonl"
        agent.write_text(json.dumps({
            "type": "user", "uuid": "s1", "parentUuid": None, "sessionId": sid,
            "cwd": "/srv/app", "isSidechain": True, "timestamp": "2026-05-01T10:00:01.000Z",
            "message": {"role": "user", "content": "look at the parser"}}) + "\n")
        first = env.vv("backfill", "--json")
        assert first.returncode == 0, first.stderr
        assert env.notes()
        assert list(env.state.rglob("manifest.json")), "the archive was not written"
        import sqlite3

        conn = sqlite3.connect(env.state / "vault.db")
        try:
            owners = conn.execute("SELECT path, session_id FROM owners").fetchall()
        finally:
            conn.close()
        assert [s for _, s in owners] == [sid]  # the legacy file is known as its session's
        again = json.loads(env.vv("backfill", "--json").stdout)
        assert again["unchanged"] == 1 and again.get("written", 0) == 0, again
        assert env.traces(token, sid) == []
        assert not [p for p in env.state.rglob("*") if token in os.fspath(p)]
