"""What the registry says of a session's files (issue 29) agrees with its
note: `files_changed` of its record (read by `vv stats`' most changed files,
the per-project sums and anything reading the registry) holds the files the
note counts as changed, the subagents' too and a worktree's file under its
path in the repository, never the main agent's alone.

The files expected are derived from the transcripts the test wrote (the
paths their Write and Edit calls name and the commands' targets), not from
the code's figures."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process
from test_headlines import Transcript
from test_worktree_files import _write_session


def _table_files(note: str, repo: Path) -> set[str]:
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    return {str(repo / rel) for rel, ops in re.findall(r"(?m)^\| `([^`]+)` \| ([^|]*) \|",
                                                       section)
            if "(no net change)" not in ops}


def test_the_registry_counts_the_subagents_files_as_the_note_does(tmp_path: Path) -> None:
    """Two subagents work in worktrees of the repository (one writes
    work/notes.md, the other edits src/app.py and writes VERSION by `echo`);
    the main agent writes main.txt. The record's files_changed, `vv stats`'
    most changed files and the note's table all hold exactly these four, by
    their paths in the repository."""
    env = Env(tmp_path)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sid = "5e551013-0000-4000-8000-000000000004"
    _write_session(env, repo, sid)
    # The main agent's own change, appended to its transcript.
    main = next(env.claude.rglob(f"{sid}.jsonl"))
    line = {"type": "assistant", "uuid": "m-own", "sessionId": sid, "cwd": str(repo),
            "timestamp": "2026-03-01T12:00:00.000Z",
            "message": {"id": "msg_own", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [{"type": "tool_use", "id": "toolu_own", "name": "Write",
                                     "input": {"file_path": str(repo / "main.txt"),
                                               "content": "hello\n"}}],
                        "usage": {"input_tokens": 1, "output_tokens": 1}}}
    result = {"type": "user", "uuid": "m-res", "parentUuid": "m-own", "sessionId": sid,
              "cwd": str(repo), "timestamp": "2026-03-01T12:00:01.000Z",
              "message": {"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": "toolu_own", "content": "ok"}]},
              "toolUseResult": {"type": "create", "filePath": str(repo / "main.txt"),
                                "content": "hello\n", "structuredPatch": []}}
    with open(main, "ab") as f:
        f.write(json.dumps(line).encode() + b"\n" + json.dumps(result).encode() + b"\n")
    expected = {str(repo / rel) for rel in ("work/notes.md", "src/app.py", "VERSION",
                                            "main.txt")}
    assert env.vv("backfill").returncode == 0
    note = next(iter(env.notes().values()))
    assert _table_files(note, repo) == expected
    assert frontmatter(note)["files_changed"] == len(expected)
    record = env.registry().sessions[sid]
    assert set(record.files_changed) == expected, record.files_changed
    # `vv stats` from the per-project sums, and from the records (--since).
    for extra in ((), ("--since", "2000-01-01")):
        stats = json.loads(env.vv("stats", "--json", *extra).stdout)
        assert {t["path"] for t in stats["top_files"]} == expected, (extra, stats["top_files"])


# -- a renamed file, found by either path ----------------------------------------------

@settings(max_examples=examples(4, 8), deadline=None)
@given(old=st.sampled_from(["notes.md", "docs/old name.md", "src/é.py"]),
       new=st.sampled_from(["moved.md", "archive/new name.md", "src/ü.py"]),
       how=st.sampled_from(["mv", "git mv"]), edited=st.booleans())
def test_a_renamed_file_is_found_by_its_old_and_new_path(
        tmp_path_factory: pytest.TempPathFactory, old: str, new: str, how: str,
        edited: bool) -> None:
    """A session edits a file (or only renames it) and renames it with `mv a
    b` or `git mv a b`: `vv files a` and `vv files b` both find the session,
    saying it was renamed, and --json says which way (as processes in the
    first case, in this process after it: test_in_process)."""
    env = Env(tmp_path_factory.mktemp("renamed"))
    env.here = in_process("registry_files renamed")
    sid = "5e551014-0000-4000-8000-000000000005"
    t = Transcript(sid=sid, cwd="/srv/app")
    t.prompt("tidy the docs")
    a, b = f"/srv/app/{old}", f"/srv/app/{new}"
    if edited:
        t.call("Edit", {"file_path": a, "old_string": "x", "new_string": "y"},
               {"filePath": a, "oldString": "x", "newString": "y", "originalFile": "x\n",
                "structuredPatch": []}, "ok")
    else:
        t.call("Read", {"file_path": a}, {"type": "text", "file": {"filePath": a}}, "x")
    t.bash(f"{how} {shlex.quote(old)} {shlex.quote(new)}")
    t.say("Moved.")
    env.transcript(sid, t.encoded())
    assert env.vv("backfill").returncode == 0
    for typed, other, word in ((a, b, "to"), (b, a, "from")):
        out = env.vv("files", typed).stdout.decode()
        # (in the note's words: "renamed from a by a command", "…, modified")
        assert re.search(re.escape(typed) + r" \((?:modified, )?" + re.escape(
            f"renamed {word} {other} by a command"), out), (typed, out)
        js = json.loads(env.vv("files", "--json", typed).stdout)
        assert len(js) == 1 and js[0]["session_id"] == sid, js
        assert js[0][f"renamed_{word}"] == other, js


# -- active time under a minute ---------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(turns=st.lists(st.tuples(st.integers(1, 40), st.integers(2, 12)), min_size=1,
                      max_size=4))
def test_a_session_with_seconds_of_work_says_so_not_0_min(
        turns: list[tuple[int, int]]) -> None:
    """Turns of a few seconds of work (a prompt, Claude's answer that many
    seconds later) with minutes between them: the duration line says the
    whole minutes Claude worked that the JSON's stamps give (the sum of each
    turn's prompt-to-answer seconds), and "<1 min" when that is under
    a minute but not none, never "0 min"."""
    from vibe_vault.render import render

    t = Transcript(cwd="/srv/app")
    for i, (work, gap) in enumerate(turns):
        t.prompt(f"step {i}")
        for _ in range(work - 1):
            next(t.clock)
        t.say("done")
        for _ in range(gap * 60):
            next(t.clock)
    t.prompt("one more")  # (a last prompt, unanswered: the session's end)
    active = sum(work for work, _ in turns)
    note = render(t.state())
    line = next(ln for ln in note.splitlines() if "**Duration**" in ln)
    want = f"(Claude worked {(active + 30) // 60} min" if active >= 30 else "(Claude worked <1 min"
    assert want in line, (active, line)
    assert "worked 0 min" not in line
