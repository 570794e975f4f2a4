"""Review 15, finding 10: sums that include a session whose output tokens
Claude Code under-recorded are shown as lower bounds ("≥"), in the home note,
the project notes and `vv stats`, never as exact figures.

Each generated vault has sessions in a few projects; some have a reply of
thousands of characters that Claude Code recorded with 3 output tokens (its
usage written before the reply ended: no tokenizer makes so few tokens of so
much text), the others only short replies recorded in full. The oracle is
that JSON: which projects hold such a reply.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process

PROJECTS = ["alpha", "beta", "gamma"]


def session(n: int, project: str, short: bool) -> tuple[str, list[bytes]]:
    sid = f"{n:08x}-0000-4000-8000-00000000000b"
    base = {"sessionId": sid, "cwd": f"/work/{project}", "version": "2.1.50"}
    text = ("A long explanation of what was done. " * 160) if short else "Done."
    lines: list[dict[str, Any]] = [
        {**base, "type": "user", "uuid": f"{n}-u", "timestamp": f"2026-03-0{1 + n % 7}T10:00:00Z",
         "message": {"role": "user", "content": "explain the change"}},
        {**base, "type": "assistant", "uuid": f"{n}-a", "timestamp":
         f"2026-03-0{1 + n % 7}T10:01:00Z",
         "message": {"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": text}],
                     "usage": {"input_tokens": 10, "output_tokens": 3 if short else 2}}}]
    return sid, [json.dumps(x).encode() for x in lines]


@settings(max_examples=examples(3, 6), deadline=None)
@given(plan=st.lists(st.tuples(st.sampled_from(PROJECTS), st.booleans()), min_size=1,
                     max_size=6))
def test_under_recorded_sums_are_marked_as_lower_bounds(
        tmp_path_factory: Any, plan: list[tuple[str, bool]]) -> None:
    env = Env(tmp_path_factory.mktemp("bounds"))
    env.here = in_process("lower bounds")
    for n, (project, short) in enumerate(plan):
        sid, lines = session(n, project, short)
        env.transcript(sid, lines, folder=f"-work-{project}")
    assert env.vv("backfill").returncode == 0
    low = {p for p, short in plan if short}
    used = {p for p, _ in plan}
    home = (env.vault / "index.md").read_text()
    for project in used:
        row = next(x for x in home.splitlines() if x.startswith(f"| [[Projects/{project}/"))
        assert (row.rstrip(" |").rsplit("| ", 1)[1].startswith("≥")) == (project in low), row
        note = (env.vault / "Projects" / project / f"{project}.md").read_text()
        totals = next(x for x in note.splitlines()
                      if x.startswith("**") and ("sessions**" in x or " session**" in x))
        assert ("≥$" in totals and "≥" in totals.split("tokens")[0]) == (project in low), totals
        assert ("lower" in note or "≥ Claude Code recorded" in note) == (project in low)
    assert ("· **≥$" in home) == bool(low)
    stats = env.vv("stats").stdout.decode()
    for project in used:
        row = next(x for x in stats.splitlines() if x.strip().startswith(project + " "))
        assert ("≥$" in row) == (project in low), row
    assert ("lower bounds" in stats) == bool(low)
    js = json.loads(env.vv("stats", "--json").stdout)
    assert js["total"]["under_recorded"] == sum(1 for _, s in plan if s)


def test_a_database_of_schema_9_gets_the_under_recorded_sums_from_its_records(
        tmp_path: Any) -> None:
    """Schema 9 had no under-recorded sums: taken up to 10, the rows are kept
    and the sums made from the records (their own fields the oracle)."""
    from vibe_vault import aggregates, registry, vaultdb
    from vibe_vault.config import Config
    from vibe_vault.records import Record

    cfg = Config(vault=str(tmp_path / "vault"), state_dir=str(tmp_path / "state"),
                 projects_root=str(tmp_path / "claude"), config_file=str(tmp_path / "c.toml"))
    recs = [Record(session_id=f"s{i}", project=PROJECTS[i % 3], has_note=True,
                   started=f"2026-01-0{1 + i % 5}T00:00:00+00:00", output_short=i % 2,
                   output_unrecorded=100 * i if i % 2 else 0) for i in range(9)]
    with registry.opened(cfg) as conn:
        with vaultdb.transaction(conn):
            for r in recs:
                registry.put(conn, r)
        with vaultdb.transaction(conn):
            conn.execute("DROP TABLE agg_short")
        conn.execute("PRAGMA user_version = 9")
    with registry.opened(cfg) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == vaultdb.SCHEMA_VERSION
        got = aggregates.under_recorded_by_project(conn)
    want: dict[str, tuple[int, int]] = {}
    for r in recs:
        if r.output_short:
            n, u = want.get(r.project, (0, 0))
            want[r.project] = (n + 1, u + r.output_unrecorded)
    assert {p: (s.sessions, s.unrecorded) for p, s in got.items()} == want
