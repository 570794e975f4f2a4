"""`vv hook` never hurts Claude Code: exit 0, silent stdout, no traceback,
nothing written outside the vault and state directory, whatever the input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, frontmatter, in_process

SESSION = CORPUS / "DRMacIver__claude-reliability/snapshot-tests/python-to-rust-port/transcript.jsonl"
SID = "c7d3d95c-0000-4000-8000-000000000001"


def place(env: Env, src: Path = SESSION, sid: str = SID) -> Path:
    slug = env.claude / "projects" / "-tmp-proj"
    slug.mkdir(parents=True, exist_ok=True)
    target = slug / f"{sid}.jsonl"
    shutil.copyfile(src, target)
    return target


def stop(sid: str = SID, path: Path | str | None = None, **extra: object) -> dict[str, object]:
    ev: dict[str, object] = {"session_id": sid, "hook_event_name": "Stop", "cwd": "/tmp"}
    if path is not None:
        ev["transcript_path"] = str(path)
    ev.update(extra)
    return ev


def assert_harmless(r: subprocess.CompletedProcess[bytes]) -> None:
    assert r.returncode == 0
    assert r.stdout == b""
    assert b"Traceback" not in r.stderr
    assert r.stderr.count(b"\n") <= 1, r.stderr


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")} if root.exists() else set()


@pytest.mark.parametrize(
    "stdin",
    [b"", b"   \n", b"not json", b"\x00\xff\xfe binary \x80", b"[1, 2, 3]", b"42", b"null",
     b'"a string"', b"{", b'{"hook_event_name": 5}', b'{"hook_event_name": "Stop"}',
     b'{"hook_event_name": "Stop", "session_id": 12}',
     b'{"hook_event_name": "Stop", "session_id": ""}',
     b'{"hook_event_name": "Stop", "session_id": "x", "transcript_path": 7}',
     b'{"hook_event_name": ["Stop"], "session_id": {}}',
     b'{"hook_event_name": "PreToolUse"}', b'{"hook_event_name": "PostToolUse", "tool_use_id": 3}',
     b'{"hook_event_name": "Nonsense", "session_id": "x"}'],
    ids=repr,
)
def test_bad_stdin_is_harmless(env: Env, stdin: bytes) -> None:
    env.here = in_process("hook bad stdin")  # (the first as a process)
    r = env.hook(stdin)
    assert_harmless(r)
    assert not env.vault.exists() or not any(env.vault.rglob("*.md"))


def test_huge_stdin_is_harmless(env: Env) -> None:
    big = json.dumps(stop(last_assistant_message="x" * (80 << 20))).encode()
    r = env.hook(big, timeout=120)
    assert_harmless(r)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(
    st.binary(max_size=300),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                      max_size=3),
                 max_leaves=10).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({
        "hook_event_name": st.sampled_from(["Stop", "SessionEnd", "SubagentStop",
                                            "PreCompact", "PostToolUse", "PreToolUse"]),
        "session_id": st.one_of(st.text(max_size=40), st.integers(), st.none()),
        "transcript_path": st.one_of(st.text(max_size=40), st.none(), st.integers()),
        "cwd": st.one_of(st.text(max_size=40), st.none()),
        "reason": st.one_of(st.text(max_size=10), st.none(), st.integers()),
    }).map(lambda v: json.dumps(v).encode()),
))
def test_fuzzed_stdin_is_harmless(tmp_path_factory: pytest.TempPathFactory,
                                  payload: bytes) -> None:
    env = Env(tmp_path_factory.mktemp("fuzz"))
    env.here = in_process("hook fuzzed stdin")  # (the first as a process)
    home = files_under(env.root)  # (its config)
    r = env.hook(payload)
    assert_harmless(r)
    outside = files_under(env.root) - files_under(env.state) - files_under(env.vault) - home
    outside -= {env.state, env.vault}
    assert not outside, outside


@pytest.mark.corpus
def test_stop_writes_the_note(env: Env) -> None:
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    notes = env.notes()
    assert len(notes) == 1
    fm = frontmatter(next(iter(notes.values())))
    assert fm["session_id"] == SID and fm["status"] == "active"
    r = env.hook({**stop(path=target), "hook_event_name": "SessionEnd", "reason": "clear"})
    assert_harmless(r)
    fm = frontmatter(next(iter(env.notes().values())))
    assert fm["status"] == "ended" and fm["end_reason"] == "clear"


@pytest.mark.corpus
def test_missing_transcript_path_falls_back_to_projects_dir(env: Env) -> None:
    place(env)
    assert_harmless(env.hook(stop()))
    assert len(env.notes()) == 1
    env2 = Env(env.root / "two")
    place(env2)
    assert_harmless(env2.hook(stop(path="~/nowhere/" + SID + ".jsonl")))
    assert len(env2.notes()) == 1


@pytest.mark.corpus
def test_tilde_in_transcript_path_is_expanded(env: Env) -> None:
    """Claude Code's default folder (no CLAUDE_CONFIG_DIR), named from `~`."""
    del env.env["CLAUDE_CONFIG_DIR"]
    home = Path(env.env["HOME"])
    (home / ".claude" / "projects" / "-t").mkdir(parents=True)
    shutil.copyfile(SESSION, home / ".claude" / "projects" / "-t" / "s.jsonl")
    assert_harmless(env.hook(stop(path="~/.claude/projects/-t/s.jsonl")))
    assert len(env.notes()) == 1


@pytest.mark.corpus
def test_missing_and_directory_transcripts(env: Env) -> None:
    # Not there yet is normal for a Stop (`claude -p` writes the file later).
    projects = env.claude / "projects" / "-tmp-proj"
    r = env.hook(stop(path=projects / "nope.jsonl"))
    assert_harmless(r)
    assert r.stderr == b""
    # Gone, for a session that had one, is worth a line at SessionEnd.
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    target.unlink()
    r = env.hook(dict(stop(path=target), hook_event_name="SessionEnd", reason="other"))
    assert_harmless(r)
    assert b"not found" in r.stderr
    d = projects / "dir.jsonl"
    d.mkdir()
    r = env.hook(stop(path=d))
    assert_harmless(r)
    assert b"directory" in r.stderr
    loop = projects / "loop.jsonl"
    loop.symlink_to(loop)
    assert_harmless(env.hook(stop(path=loop)))
    assert "vv.log" in os.listdir(env.state)


@pytest.mark.corpus
@pytest.mark.parametrize("sid", ["../../../escape", "/etc/passwd", "..", "a/../../b", "CON",
                                 "x\x01y", "C:\\Windows\\evil", "é" * 300, "a" * 250])
def test_traversal_in_session_id(env: Env, sid: str) -> None:
    target = place(env)
    home = files_under(env.root)  # (its config, the transcript)
    r = env.hook(stop(sid=sid, path=target, cwd="../../../../tmp/evil"))
    assert_harmless(r)
    outside = files_under(env.root) - files_under(env.state) - files_under(env.vault) - home
    outside -= {env.state, env.vault} | files_under(env.claude) | {env.claude}
    assert not outside, outside
    for p in files_under(env.vault) | files_under(env.state):
        assert env.root in p.resolve().parents


@pytest.mark.corpus
def test_traversal_in_transcript_cwd(env: Env, tmp_path: Path) -> None:
    """A hostile cwd inside the transcript only changes the project's name."""
    lines = SESSION.read_bytes().replace(b'"cwd":"/tmp/tmpqwh7888i"',
                                         b'"cwd":"/../../../../etc/..\\\\..\\\\x"')
    src = tmp_path / "hostile.jsonl"
    src.write_bytes(lines)
    target = place(env, src)
    assert_harmless(env.hook(stop(path=target)))
    notes = env.notes()
    assert len(notes) == 1
    for p in files_under(env.vault):
        assert env.vault in p.resolve().parents


@pytest.mark.corpus
def test_truncated_then_rewritten_transcript(env: Env) -> None:
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    full = env.notes()
    # Truncated in place: read again from the start, same note.
    data = SESSION.read_bytes()
    with open(target, "r+b") as f:
        f.truncate(len(data) // 3)
    assert_harmless(env.hook(stop(path=target)))
    shorter = env.notes()
    assert shorter != full
    # Rewritten (a new file at the same path with other first bytes).
    other = CORPUS / "DRMacIver__claude-reliability/snapshot-tests/coverage-test-fix/transcript.jsonl"
    tmp = target.with_suffix(".new")
    shutil.copyfile(other, tmp)
    os.replace(tmp, target)
    assert_harmless(env.hook(stop(path=target)))
    fresh = Env(env.root / "fresh")
    place(fresh, other)
    assert_harmless(fresh.hook(stop(path=fresh.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl")))
    # The note keeps its path and project (links never break); the rest is the new file's.
    a, b = next(iter(env.notes().values())), next(iter(fresh.notes().values()))
    assert a[a.index("## Story"):] == b[b.index("## Story"):]


@pytest.mark.corpus
def test_concurrent_stops_converge(env: Env) -> None:
    target = place(env)
    data = SESSION.read_bytes()
    target.write_bytes(data[: len(data) // 2])
    results: list[subprocess.CompletedProcess[bytes]] = []

    def run() -> None:
        results.append(env.hook(stop(path=target)))

    threads = [threading.Thread(target=run) for _ in range(8)]
    for i, t in enumerate(threads):
        t.start()
        if i == 3:
            target.write_bytes(data)  # the transcript grows while hooks run
    for t in threads:
        t.join()
    for r in results:
        assert_harmless(r)
    assert_harmless(env.hook(stop(path=target)))
    clean = Env(env.root / "clean")
    place(clean)
    assert_harmless(clean.hook(stop(path=clean.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl")))
    assert list(env.notes().values()) == list(clean.notes().values())


def test_pre_and_post_tool_use_only_append_a_journal(env: Env) -> None:
    ev = {"session_id": SID, "hook_event_name": "PreToolUse", "tool_name": "Bash",
          "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}
    assert_harmless(env.hook(ev))
    assert_harmless(env.hook({**ev, "hook_event_name": "PostToolUse", "duration_ms": 1234,
                              "tool_response": {"stdout": "x"}}))
    journal = list((env.state / "journal").iterdir())
    assert len(journal) == 1
    lines = journal[0].read_text().splitlines()
    assert [json.loads(x)["e"] for x in lines] == ["pre", "post"]
    assert not env.vault.exists()


def test_hook_does_not_import_msgspec_for_tool_events(env: Env) -> None:
    code = ("import sys, io; sys.stdin = io.TextIOWrapper(io.BytesIO(b'{\"hook_event_name\":"
            "\"PreToolUse\",\"session_id\":\"s\",\"tool_use_id\":\"t\"}'));"
            "from vibe_vault.commands import hook; hook.read_stdin = lambda: sys.stdin.buffer.read();"
            "hook.run(); print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('msgspec', 'filelock')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env.env, check=False)
    assert r.stdout.strip() == b"[]", r.stderr


def modules_a_stop_loads(env: Env, target: Path, names: tuple[str, ...]) -> list[str]:
    """Which of `names` are imported once a Stop hook for `target` has run,
    in a process of its own (the hook's module set, as Claude Code runs it)."""
    code = ("import sys, io, json; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            f"{stop(path=target)!r}).encode()));"
            "from vibe_vault.commands import hook; hook.read_stdin = lambda: sys.stdin.buffer.read();"
            f"hook.run(); print(json.dumps(sorted(m for m in {list(names)!r} if m in sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env.env, check=False)
    assert r.returncode == 0, r.stderr
    loaded: list[str] = json.loads(r.stdout)
    return loaded


@pytest.mark.corpus
def test_a_stop_leaves_the_record_and_search_document_to_session_end(env: Env) -> None:
    """A Stop writes the note and the state; the registry record and the
    search document are made at SessionEnd only, so a Stop does not import
    their modules (~1% of what it runs) - and still writes the note."""
    target = place(env)
    loaded = modules_a_stop_loads(env, target, ("vibe_vault.records", "vibe_vault.document",
                                                "vibe_vault.session"))
    assert loaded == ["vibe_vault.session"]
    assert len(env.notes()) == 1


def test_a_stop_of_prose_loads_neither_shlex_nor_fnmatch(env: Env) -> None:
    """The resume line is quoted without shlex, and the globs of
    `exclude_projects` need fnmatch only when the config names some: a Stop
    of a turn that runs no command imports neither (~1.4 M instructions of
    every such Stop) - and writes its note, resume line and all."""
    slug = env.claude / "projects" / "-tmp-proj"
    slug.mkdir(parents=True)
    target = slug / f"{SID}.jsonl"
    lines = [{"type": "user", "uuid": "u1", "sessionId": SID, "cwd": "/tmp/a b's",
              "timestamp": "2026-11-27T10:00:00.000Z",
              "message": {"role": "user", "content": "Say hello"}},
             {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": SID,
              "cwd": "/tmp/a b's", "timestamp": "2026-11-27T10:00:05.000Z",
              "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                          "content": [{"type": "text", "text": "Hello."}],
                          "usage": {"input_tokens": 3, "output_tokens": 2}}}]
    target.write_text("".join(json.dumps(x) + "\n" for x in lines))
    loaded = modules_a_stop_loads(env, target, ("shlex", "fnmatch", "vibe_vault.session"))
    assert loaded == ["vibe_vault.session"]
    [note] = env.notes().values()
    assert f"cd '/tmp/a b'\"'\"'s' && claude --resume {SID}" in note


@pytest.mark.corpus
def test_session_end_is_quick(env: Env) -> None:
    """SessionEnd after Stops only folds what is new (well inside Claude Code's 1.5 s).
    Its CPU time is measured: its wall time on a loaded machine says more of the
    machine than of the hook, and the home's deadline (five minutes) does not cut it
    short; less than the Stop that read the whole session took (~0.45 s to ~0.8 here)."""
    import resource

    def cpu_of(event: dict[str, object]) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert_harmless(env.hook(event))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    target = place(env)
    whole = cpu_of(stop(path=target))
    took = cpu_of({**stop(path=target), "hook_event_name": "SessionEnd", "reason": "other"})
    assert took < min(1.5, whole), (took, whole)


@pytest.mark.corpus
def test_stop_uses_last_assistant_message_until_transcript_catches_up(env: Env) -> None:
    data = SESSION.read_bytes()
    lines = data.split(b"\n")
    # Cut before the final assistant text line: the transcript lags the hook.
    last = max(i for i, x in enumerate(lines) if b'"type":"assistant"' in x and b'"text"' in x)
    target = place(env)
    target.write_bytes(b"\n".join(lines[:last]) + b"\n")
    final = json.loads(lines[last])["message"]["content"][0]["text"]
    assert_harmless(env.hook(stop(path=target, last_assistant_message=final + " (from hook)")))
    note = next(iter(env.notes().values()))
    assert "provisional" in note and "(from hook)" in note
    target.write_bytes(data)
    assert_harmless(env.hook(stop(path=target)))
    note = next(iter(env.notes().values()))
    assert "provisional" not in note and "(from hook)" not in note


@pytest.mark.corpus
def test_thinking_is_hidden_unless_configured(env: Env) -> None:
    """Thinking is neither shown nor kept in the state unless configured; switching
    it on shows it at the next event, for the whole session."""
    from vibe_vault.session import Store

    src = CORPUS / "iansherr__claude-code-log/real_projects/-Users-dain-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
    target = place(env, src)
    assert_harmless(env.hook(stop(path=target)))
    assert "Thinking" not in next(iter(env.notes().values()))
    state = Store(env.state).load(SID)
    assert state is not None and not any(t.thinking for t in state.fold.turns)
    env.configure("show_thinking = true\n")
    assert_harmless(env.hook({**stop(path=target), "hook_event_name": "SessionEnd"}))
    # The transcript did not change: the state was read again because of the setting.
    assert "> [!quote]- Thinking" in next(iter(env.notes().values()))


@pytest.mark.corpus
@pytest.mark.parametrize("ids", [("session-1", "session-2"),
                                 ("abcdef12-0000-4000-8000-000000000001",
                                  "abcdef12-0000-4000-8000-000000000002")])
def test_sessions_alike_in_id_and_minute_get_their_own_notes(env: Env, ids: tuple[str, str]
                                                             ) -> None:
    """Same start minute, ids that begin alike: two notes, neither overwritten."""
    for sid in ids:
        target = place(env, SESSION, sid)
        assert_harmless(env.hook(stop(sid=sid, path=target)))
        assert_harmless(env.hook(stop(sid=sid, path=target)))
    notes = env.notes()
    assert len(notes) == 2
    assert {frontmatter(n)["session_id"] for n in notes.values()} == set(ids)


@pytest.mark.corpus
def test_relative_vault_is_under_home_not_the_hooks_directory(env: Env, tmp_path: Path) -> None:
    env.env["VV_VAULT"] = "notes/vault"
    target = place(env)
    elsewhere = tmp_path / "some-project"
    elsewhere.mkdir()
    r = subprocess.run([sys.executable, "-m", "vibe_vault", "hook"], cwd=elsewhere,
                       input=json.dumps(stop(path=target)).encode(), capture_output=True,
                       env=env.env, check=False)
    assert_harmless(r)
    home = Path(env.env["HOME"])
    assert list((home / "notes" / "vault").rglob("*.md"))
    assert not list(elsewhere.rglob("*.md"))


@pytest.mark.corpus
def test_journal_durations_stay_bounded(env: Env) -> None:
    """Thousands of tool calls recorded by the tool hooks: the state keeps a bounded
    number of durations, so Stop does not slow down as a session ages."""
    target = place(env)
    journal = env.state / "journal"
    journal.mkdir(parents=True)
    lines = []
    for i in range(3000):
        lines.append(json.dumps({"e": "pre", "id": f"t{i}", "t": 1.0}))
        lines.append(json.dumps({"e": "post", "id": f"t{i}", "t": 2.0, "ms": 5}))
    (journal / f"{SID}.jsonl").write_text("\n".join(lines) + "\n")
    assert_harmless(env.hook(stop(path=target)))
    from vibe_vault.session import MAX_DURATIONS, Store

    state = Store(env.state).load(SID)
    assert state is not None and len(state.durations) == MAX_DURATIONS
    assert "t2999" in state.durations and "t0" not in state.durations
