"""`vv stats` with a filter that matches nothing says so in one line, naming
the projects there are when the project is unknown; it does not say "No
sessions yet" of a vault that holds sessions. Generated: project names and
filters; the oracle is the sessions the test wrote."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples

names = st.from_regex(r"[a-z]{2,6}(-[a-z]{2,6})?", fullmatch=True)


def _session(env: Env, project: str, n: int) -> None:
    sid = f"{n:08d}-0000-4000-8000-000000000000"
    cwd = f"/home/me/{project}"
    folder = env.claude / "projects" / cwd.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": sid, "cwd": cwd,
         "timestamp": "2026-03-01T09:00:00Z", "message": {"role": "user", "content": "fix it"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid, "cwd": cwd,
         "timestamp": "2026-03-01T09:00:05Z",
         "message": {"id": f"m{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}}]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(o) + "\n" for o in lines))


@settings(max_examples=examples(3, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(projects=st.lists(names, min_size=1, max_size=3, unique=True), asked=names)
def test_a_filter_that_matches_nothing_says_so(
        tmp_path_factory: pytest.TempPathFactory, projects: list[str], asked: str) -> None:
    env = Env(tmp_path_factory.mktemp("home"))
    for n, project in enumerate(projects):
        _session(env, project, n)
    assert env.vv("backfill").returncode == 0
    r = env.vv("stats", "--project", asked)
    err = r.stderr.decode()
    if asked in projects:
        assert r.returncode == 0 and "1 session" in r.stdout.decode(), (r.stdout, err)
    else:
        assert r.returncode == 1 and not r.stdout and err.count("\n") == 1, (r.stdout, err)
        assert f"no session matches --project {asked}" in err
        assert all(p in err for p in projects), err
        assert "No sessions yet" not in err
    r = env.vv("stats", "--since", "2099-01-01")
    assert r.returncode == 1 and b"no session matches --since 2099-01-01" in r.stderr
    assert b"No sessions yet" not in r.stdout + r.stderr
    r = env.vv("stats", "--json", "--since", "2099-01-01")  # (a script gets its zeros)
    assert r.returncode == 0 and json.loads(r.stdout)["total"]["sessions"] == 0
