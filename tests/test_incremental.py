"""Incremental processing gives exactly the note a one-shot parse gives."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import (
    CORPUS,
    Env,
    examples,
    main_files,
    session_files,
    share_line_key,
    strip_status,
)
from test_corpus import UUID, expected_sid
from vibe_vault import state as state_module
from vibe_vault.config import Config
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.reader import Cursor, LineReader
from vibe_vault.render import render
from vibe_vault.session import Store, Update, update_session
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

MAINS = [p for p in main_files() if p.stat().st_size > 0 and expected_sid(p)]
SMALL_MAINS = [p for p in MAINS if p.stat().st_size < 1_500_000]


def fold_bytes(data: bytes) -> Fold:
    return fold(Fold(), (decode_line(line) for line in data.split(b"\n")))


@pytest.mark.corpus
def test_fold_of_parts_equals_fold_of_whole_on_every_corpus_file() -> None:
    for path in corpus_all():
        data = path.read_bytes()
        lines = data.split(b"\n")
        whole = fold_bytes(data)
        half = len(lines) // 2
        a = fold(Fold(), (decode_line(x) for x in lines[:half]))
        # Through a save/load round trip, as between two hook events.
        a = decode_state(encode_state(SessionState(fold=a))).fold  # type: ignore[union-attr]
        ab = fold(a, (decode_line(x) for x in lines[half:]))
        assert encode_state(SessionState(fold=ab)) == encode_state(SessionState(fold=whole)), path


def corpus_all() -> list[Path]:
    return sorted(CORPUS.rglob("*.jsonl"))


@pytest.mark.corpus
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_reader_and_fold_any_byte_cuts(data: st.DataObject) -> None:
    """Reading a growing file at arbitrary byte cuts folds exactly the whole file."""
    path = data.draw(st.sampled_from(SMALL_MAINS))
    blob = path.read_bytes()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(blob)), max_size=8)))
    state = Fold()
    offset = 0
    import io

    for cut in [*cuts, len(blob)]:
        f = io.BytesIO(blob[:cut])
        reader = LineReader(f, offset)
        fold(state, (decode_line(x) for x in reader))
        offset = reader.end
        assert offset <= cut
        # Only whole lines are consumed: the offset sits after a newline, or at
        # the end of the data when the unterminated tail is a whole JSON object.
        assert offset == 0 or blob[offset - 1 : offset] == b"\n" or (
            offset == cut and _is_object(blob[blob.rfind(b"\n", 0, cut) + 1 : cut]))
        state = decode_state(encode_state(SessionState(fold=state))).fold  # type: ignore[union-attr]
    lines = blob.split(b"\n")
    whole = lines[:-1] + ([lines[-1]] if _is_object(lines[-1]) else [])
    assert encode_state(SessionState(fold=state)) == encode_state(
        SessionState(fold=fold(Fold(), (decode_line(x) for x in whole)))
    )


def _is_object(raw: bytes) -> bool:
    import json

    try:
        return isinstance(json.loads(raw), dict)
    except ValueError:
        return False


def _config(root: Path) -> Config:
    share_line_key(root / "state")  # (the folds of two vaults are compared)
    return Config(vault=root / "vault", state_dir=root / "state",
                  projects_root=root / "claude" / "projects", config_file=root / "none.toml")


def _layout(main: Path, root: Path) -> tuple[Path, list[tuple[Path, Path]]]:
    """Where a corpus session lives in a fake Claude home, and its subagent files."""
    slug = root / "claude" / "projects" / "-home-user-proj"
    slug.mkdir(parents=True)
    target = slug / main.name
    agents = []
    if UUID.match(main.stem):
        for a in session_files(main):
            rel = a.relative_to(main.parent)
            agents.append((a, slug / rel))
    return target, agents


@pytest.mark.corpus
@settings(max_examples=examples(20, 60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_session_grown_in_steps_equals_one_shot(tmp_path_factory: pytest.TempPathFactory,
                                                data: st.DataObject) -> None:
    """In process: the hook's pipeline fed a growing session (main and subagent
    files, cut mid-line) renders the same note as one read of the whole."""
    main = data.draw(st.sampled_from(MAINS))
    sid = expected_sid(main)
    assert sid
    root = tmp_path_factory.mktemp("grow")
    target, agents = _layout(main, root)
    fractions = sorted(data.draw(st.lists(st.floats(0, 1), max_size=5)))
    cfg = _config(root / "inc")
    blobs = [(main.read_bytes(), target)] + [(a.read_bytes(), t) for a, t in agents]
    # Small, so that most sessions' states are saved split.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(state_module, "SAID_SPILL_CHARS", data.draw(st.sampled_from([0, 200, 5000])))
        _grow_and_compare(main, sid, target, cfg, root, blobs, fractions)


def _grow_and_compare(main: Path, sid: str, target: Path, cfg: Config, root: Path,
                      blobs: list[tuple[bytes, Path]], fractions: list[float]) -> None:
    for frac in [*fractions, 1.0]:
        for blob, dest in blobs:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(blob[: int(len(blob) * frac)])
        update_session(cfg, Update(session_id=sid, transcript=str(target)))
    one = _config(root / "one")
    update_session(one, Update(session_id=sid, transcript=str(target), fresh=True))
    inc_state = Store(cfg.state_dir).load(sid)
    one_state = Store(one.state_dir).load(sid)
    assert inc_state is not None and one_state is not None
    # Saved split (the early `said` in the side file, at different points for
    # the two): whole again, they are the same fold.
    Store(cfg.state_dir).load_said(inc_state)
    Store(one.state_dir).load_said(one_state)
    assert inc_state.cursor.offset == one_state.cursor.offset
    assert render(inc_state) == render(one_state)
    assert encode_state(inc_state.fold) == encode_state(one_state.fold)  # type: ignore[arg-type]


@pytest.mark.corpus
@settings(max_examples=examples(5, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hook_stops_then_session_end_equal_backfill(tmp_path_factory: pytest.TempPathFactory,
                                                    data: st.DataObject) -> None:
    """Through `vv hook` as Claude Code runs it: Stop events while the transcript
    grows (cut anywhere), then SessionEnd, give the note `vv backfill` writes."""
    main = data.draw(st.sampled_from(SMALL_MAINS))
    sid = expected_sid(main)
    root = tmp_path_factory.mktemp("hook")
    target, agents = _layout(main, root)
    hook_env = Env(root / "hook")
    hook_env.claude = root / "claude"
    hook_env.env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
    blob = main.read_bytes()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(blob)), min_size=1, max_size=3)))
    for a, t in agents:
        t.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(a, t)
    event = {"session_id": sid, "transcript_path": str(target), "cwd": "/tmp",
             "hook_event_name": "Stop", "stop_hook_active": False}
    for cut in cuts:
        target.write_bytes(blob[:cut])
        r = hook_env.hook(event)
        assert r.returncode == 0 and r.stdout == b"" and b"Traceback" not in r.stderr
    target.write_bytes(blob)
    r = hook_env.hook({**event, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
    assert r.returncode == 0 and r.stdout == b""
    one_env = Env(root / "one")
    r = one_env.vv_here("backfill", str(target.parent))  # (the oracle: in this process)
    assert r.returncode == 0, r.stderr
    hook_notes, one_notes = hook_env.notes(), one_env.notes()
    assert hook_notes.keys() == one_notes.keys()
    for key, note in hook_notes.items():
        assert "status: ended" in note
        # (", mid-turn" when the transcript ends after a tool call, as backfill says too)
        assert re.search(r'\nend_reason: "?prompt_input_exit(, mid-turn")?\n', note), note
        assert strip_status(note) == strip_status(one_notes[key])


def test_cursor_survives_round_trip() -> None:
    c = Cursor(offset=10, inode=5, size=20, mtime_ns=7, head_len=3, head_crc=99)
    s = SessionState(cursor=c)
    back = decode_state(encode_state(s))
    assert back is not None and back.cursor == c


@pytest.mark.corpus
def test_note_name_does_not_depend_on_how_much_was_read(tmp_path: Path) -> None:
    """A transcript whose line 59 carries an earlier time than line 58: the note's
    name (and `started`) come from the first entry in file order."""
    main = next(p for p in MAINS if p.stem.startswith("0d3a8e6f"))
    blob = main.read_bytes()
    target, _ = _layout(main, tmp_path)
    cut = sum(len(x) + 1 for x in blob.split(b"\n")[:58])
    cfg, one = _config(tmp_path / "inc"), _config(tmp_path / "one")
    target.write_bytes(blob[:cut])
    update_session(cfg, Update(session_id=main.stem, transcript=str(target)))
    target.write_bytes(blob)
    update_session(cfg, Update(session_id=main.stem, transcript=str(target)))
    update_session(one, Update(session_id=main.stem, transcript=str(target), fresh=True))
    a, b = Store(cfg.state_dir).load(main.stem), Store(one.state_dir).load(main.stem)
    assert a is not None and b is not None
    assert a.note == b.note and render(a) == render(b)


def _long_session(path: Path, copies: int) -> None:
    """A session far past the turn cap and the usage window: corpus sessions
    concatenated, each copy with fresh uuids and message ids."""
    import re

    src = [p for p in SMALL_MAINS if UUID.match(p.stem)][:6]
    out = []
    for i in range(copies):
        blob = src[i % len(src)].read_bytes()
        blob = re.sub(rb'"(msg_|req_|toolu_)([A-Za-z0-9]+)"',
                      lambda m, i=i: b'"%s%dx%s"' % (m.group(1), i, m.group(2)), blob)
        blob = re.sub(rb"([0-9a-f]{8})-([0-9a-f]{4})-",
                      lambda m, i=i: b"%08x-%s-" % ((int(m.group(1), 16) + i) % (1 << 32),
                                                    m.group(2)), blob)
        out.append(blob if blob.endswith(b"\n") else blob + b"\n")
    path.write_bytes(b"".join(out))


@pytest.mark.corpus
def test_long_session_grown_in_chunks_equals_one_shot(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import independent_tokens
    from vibe_vault.fold import HEAD_TURNS, TAIL_TURNS
    from vibe_vault.fold import usage as usage_module

    # A small window, so this file (about 1,500 messages) settles most of them.
    monkeypatch.setattr(usage_module, "USAGE_WINDOW", 64)
    USAGE_WINDOW = 64

    path = tmp_path / "long.jsonl"
    _long_session(path, 40)
    blob = path.read_bytes()
    cfg, one = _config(tmp_path / "inc"), _config(tmp_path / "one")
    grow = tmp_path / "grow.jsonl"
    for frac in (0.13, 0.5, 0.77, 1.0):
        grow.write_bytes(blob[: int(len(blob) * frac)])
        update_session(cfg, Update(session_id="long", transcript=str(grow)))
    update_session(one, Update(session_id="long", transcript=str(grow), fresh=True))
    a, b = Store(cfg.state_dir).load("long"), Store(one.state_dir).load("long")
    assert a is not None and b is not None
    # Its search text is over SAID_SPILL_CHARS: saved apart, in the side file,
    # and a Stop's state holds one entry of it.
    assert a.fold.said_from > 0 and len(a.fold.said) == 1
    Store(cfg.state_dir).load_said(a)
    Store(one.state_dir).load_said(b)
    assert a.fold.said_from == 0 and len(a.fold.said) > 1
    assert a.fold.turns_dropped > 0 and len(a.fold.turns) == HEAD_TURNS + TAIL_TURNS
    assert a.fold.settled, f"more than {USAGE_WINDOW} messages should have settled"
    assert render(a) == render(b)
    assert encode_state(a.fold) == encode_state(b.fold)  # type: ignore[arg-type]
    note = render(a)
    assert "turns in between are not shown" in note
    import yaml

    fm = yaml.safe_load(note.split("---\n")[1])
    assert {k: fm[k] for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                               "cache_creation_tokens")} == independent_tokens(path, [])


def test_secrets_in_todo_lists_count_once_whatever_the_chunking() -> None:
    """A todo list is replaced by each TodoWrite: the note counts the secrets of
    the list it shows, not how many times the list was written or read."""
    import json

    key = "ghp_" + "a1B2" * 9
    lines = []
    for i in range(4):
        todos = [{"content": f"rotate {key}", "status": "pending"},
                 {"content": f"step {i}", "status": "completed"}]
        lines.append(json.dumps({
            "type": "assistant", "uuid": f"u{i}", "timestamp": f"2025-01-01T00:00:0{i}.000Z",
            "message": {"id": f"m{i}", "role": "assistant", "model": "claude-x",
                        "content": [{"type": "tool_use", "id": f"t{i}", "name": "TodoWrite",
                                     "input": {"todos": todos}}]}}).encode())
        lines.append(json.dumps({
            "type": "user", "uuid": f"r{i}", "timestamp": f"2025-01-01T00:00:0{i}.500Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{i}",
                 "content": "Todos have been modified successfully"}]}}).encode())
    whole = fold(Fold(), (decode_line(x) for x in lines))
    assert whole.redactions == 1
    assert [t.text for t in whole.todos] == ["rotate [REDACTED:github-token]", "step 3"]
    for cut in range(1, len(lines)):
        a = fold(Fold(), (decode_line(x) for x in lines[:cut]))
        a = decode_state(encode_state(SessionState(fold=a))).fold  # type: ignore[union-attr]
        ab = fold(a, (decode_line(x) for x in lines[cut:]))
        assert encode_state(SessionState(fold=ab)) == encode_state(SessionState(fold=whole))


@pytest.mark.corpus
@pytest.mark.parametrize("damage", ["gone", "cut", "longer"])
def test_state_whose_side_file_is_damaged_is_rebuilt(tmp_path: Path, damage: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A long session's early search text is saved beside its state: that file
    lost, cut short by a crash, or with bytes a killed run appended past what
    the state counts, the next Stop still gives the note and the fold of one
    read of the whole."""
    import os

    from vibe_vault.state import said_path

    monkeypatch.setattr(state_module, "SAID_SPILL_CHARS", 100)
    main = max(MAINS, key=lambda p: p.stat().st_size)
    sid = expected_sid(main)
    assert sid
    blob = main.read_bytes()
    target = tmp_path / "t.jsonl"
    target.write_bytes(blob[: len(blob) // 2])
    cfg = _config(tmp_path / "inc")
    update_session(cfg, Update(session_id=sid, transcript=str(target)))
    store = Store(cfg.state_dir)
    side = said_path(store.state_path(sid))
    saved = store.load(sid)
    assert saved is not None and saved.fold.said_from > 0 and os.path.getsize(side)
    if damage == "gone":
        os.remove(side)
    elif damage == "cut":
        os.truncate(side, os.path.getsize(side) - 1)
    else:
        with open(side, "ab") as f:
            f.write(b"\0\0\0\x09half a fr")
    target.write_bytes(blob)
    update_session(cfg, Update(session_id=sid, transcript=str(target)))
    one = _config(tmp_path / "one")
    update_session(one, Update(session_id=sid, transcript=str(target), fresh=True))
    a, b = store.load(sid), Store(one.state_dir).load(sid)
    assert a is not None and b is not None
    store.load_said(a)
    Store(one.state_dir).load_said(b)
    assert render(a) == render(b)
    assert encode_state(a.fold) == encode_state(b.fold)  # type: ignore[arg-type]
