"""Nothing the user wrote is lost, whatever races or damage (issue 28):
`vv forget` against hooks, ids that are not session ids, bounded arguments."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_hook_contract import SID, place, stop


def _traces(env: Env, sid: str) -> list[str]:
    """Files of the vault and state that name the session (the tombstone aside)."""
    hits = []
    for root in (env.vault, env.state):
        for p in root.rglob("*"):
            if not p.is_file() or p.parent.name == "forgotten":
                continue
            if sid.encode() in p.read_bytes() or sid[:8] in p.name:
                hits.append(str(p))
    return hits


def _background(env: Env, *args: str, stdin: bytes = b"") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", *args], env=env.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    return proc


@pytest.mark.corpus
def test_a_hook_waiting_for_the_lock_while_forget_runs_writes_nothing(env: Env) -> None:
    """A Stop that found no tombstone, then waited for the session's lock while
    `vv forget` ran, must not bring the note back (before: forget took no lock,
    the hook looked for the tombstone only before waiting)."""
    import json

    from vibe_vault.lock import SessionLock
    from vibe_vault.session import Store

    env.configure("lock_timeout = 30\n")
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    assert len(env.notes()) == 1
    store = Store(str(env.state))
    with SessionLock(store.lock_path(SID), 5.0):
        hook = _background(env, "hook", stdin=json.dumps(stop(SID, target)).encode())
        time.sleep(1.0)  # the hook is past its first tombstone check, waiting
        forget = _background(env, "forget", SID)
        deadline = time.monotonic() + 10
        while not (env.state / "forgotten" / SID).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (env.state / "forgotten" / SID).exists()
    assert hook.wait(60) == 0 and forget.wait(60) == 0, forget.stderr.read()  # type: ignore[union-attr]
    assert env.hook(stop(SID, target)).returncode == 0
    assert env.notes() == {}
    assert _traces(env, SID) == []


@pytest.mark.corpus
@pytest.mark.parametrize("trial", range(3))
def test_forget_racing_a_stream_of_hooks_leaves_nothing(env: Env, trial: int) -> None:
    import json

    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    event = json.dumps(stop(SID, target)).encode()
    end = json.dumps({**stop(SID, target), "hook_event_name": "SessionEnd",
                      "reason": "other"}).encode()
    hooks = [_background(env, "hook", stdin=end if i % 2 else event) for i in range(4)]
    time.sleep(0.05 * trial)
    r = env.vv("forget", SID)
    hooks += [_background(env, "hook", stdin=event) for _ in range(2)]
    for h in hooks:
        assert h.wait(60) == 0
    assert r.returncode == 0, r.stderr
    assert env.notes() == {}
    assert _traces(env, SID) == []
    assert SID.encode() not in env.vv("stats", "--json").stdout


@pytest.mark.corpus
@pytest.mark.parametrize("given", ["..", "%", "*", "", "a/b", "../etc", "-x", ".hidden",
                                   "x" * 300, "abc\x01def"])
def test_forget_refuses_what_is_not_a_session_id(env: Env, given: str) -> None:
    place(env)
    assert env.vv("backfill").returncode == 0
    before = env.notes()
    r = env.vv("forget", "--", given)
    assert r.returncode == 2
    assert r.stderr.count(b"\n") == 1 and b"Traceback" not in r.stderr
    assert env.notes() == before
    assert not (env.state / "forgotten").exists() or not any((env.state / "forgotten").iterdir())


@pytest.mark.parametrize("args", [
    ("search", "x", "--limit", "99999999999999999999999"),
    ("search", "x", "--limit", "-5"),
    ("search", "--file", "a.py", "--limit", "0"),
    ("stats", "--top", "99999999999999999999999"),
    ("stats", "--top", "١٢"),  # digits, but not ASCII ones
    ("backfill", "--jobs", "99999999999999999999999"),
])
def test_numbers_out_of_range_are_one_line_of_usage(env: Env, args: tuple[str, ...]) -> None:
    r = env.vv(*args)
    assert r.returncode == 2, r.stderr
    assert b"Traceback" not in r.stderr and b"from " in r.stderr


@pytest.mark.corpus
@pytest.mark.parametrize("args", [
    ("files", b"caf\xe9.py"), ("show", b"\xff\xfe"), ("resume", b"\xc3"),
    ("search", b"\xff"), ("forget", b"\xffabc"), ("search", "x", "--project", b"\xff"),
    ("stats", "--since", b"2026\xff"),
])
def test_undecodable_arguments_are_one_line(env: Env, args: tuple[str | bytes, ...]) -> None:
    place(env)
    assert env.vv("backfill").returncode == 0
    r = subprocess.run([os.fsencode(sys.executable), b"-m", b"vibe_vault",
                        *[a if isinstance(a, bytes) else a.encode() for a in args]],
                       env=env.env, capture_output=True, timeout=60, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count(b"\n") == 1 and b"not valid UTF-8" in r.stderr


@pytest.mark.corpus
def test_a_transcript_path_that_is_not_utf8_is_one_line(env: Env) -> None:
    """The database keeps paths as text: a folder named with other bytes is
    refused in one line (it was a traceback from SQLite)."""
    import shutil

    from test_hook_contract import SESSION

    folder = Path(os.fsdecode(bytes(env.root) + b"/odd\xff"))
    folder.mkdir()
    shutil.copyfile(SESSION, folder / f"{SID}.jsonl")
    r = env.vv("backfill", str(folder))
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1, r.stderr
    assert b"PATHS is not valid UTF-8" in r.stderr


# -- the user's heading, however it is typed (generated variants) --------------------------

_SPACES = st.sampled_from([" ", "  ", "\t", "\u00a0", "\u2009", "\u3000", " \t"])


def _cased(word: str) -> st.SearchStrategy[str]:
    """The word with each letter in either case, or full-width, or (for s) a long s."""
    def forms(c: str) -> list[str]:
        out = [c, c.upper(), chr(ord(c) - ord("a") + 0xFF41), chr(ord(c) - ord("a") + 0xFF21)]
        return out + (["ſ"] if c == "s" else [])
    return st.tuples(*[st.sampled_from(forms(c)) for c in word]).map("".join)


@st.composite
def typed_headings(draw: st.DrawFn) -> str:
    words = draw(_cased("my")) + draw(_SPACES) + draw(_cased("notes"))
    trail = draw(st.sampled_from(["", ":", "!", " ✍️", " 📝", "...", " —", " ", "\t", " :)"]))
    indent = " " * draw(st.integers(0, 3))
    if draw(st.booleans()):
        hashes = "#" * draw(st.integers(1, 6))
        return indent + hashes + draw(st.sampled_from(["", " ", "  ", "\t", "\u00a0"])) \
            + words + trail
    mark = draw(st.sampled_from(["**", "__"]))
    return indent + mark + words + mark + trail


_BODY = ("---\nsession_id: s\n---\n# A title\n> summary\n\n## Files\n| a | b |\n\n"
         "**Project** x · y\n\n## Tokens and cost\n| Model | Input |\n|---|--:|\n| m | 1 |\n\n")
_USER_LINES = st.lists(st.text(alphabet="abc xyz-[]#*.", min_size=1, max_size=20)
                       .filter(lambda t: t.strip() and t == t.strip()), max_size=6)


@settings(max_examples=examples(30, 300), deadline=None)
@given(typed_headings(), _USER_LINES)
def test_a_heading_typed_any_way_keeps_what_is_below_it(heading: str, lines: list[str]) -> None:
    from vibe_vault.note import _with_user_part, user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT, is_user_heading

    assert is_user_heading(heading), heading
    mine = "".join(line + "\n" for line in lines)
    existing = _BODY + heading + "\n" + mine
    part = user_part(existing)
    assert part is not None and part.endswith(mine) and part.startswith(heading.rstrip("\r"))
    rewritten = _with_user_part(_BODY.replace("| m | 1 |", "| m | 2 |") + USER_HEADING + "\n"
                                + USER_HINT + "\n", part)
    assert rewritten.endswith(mine) and user_part(rewritten) == part


@settings(max_examples=examples(20, 200), deadline=None)
@given(typed_headings(), st.sampled_from([" and more", " 2", " list", "s"]),
       st.sampled_from(["", "    ", "\\", "> ", "- "]))
def test_a_line_that_only_looks_like_it_is_not_the_heading(
        heading: str, more: str, before: str) -> None:
    from vibe_vault.vault import is_user_heading

    stripped = heading.lstrip(" ")
    if before:  # indented four spaces (code), escaped, quoted, a list item
        assert not is_user_heading(before + stripped)
    assert not is_user_heading(heading.rstrip("*_ \t:!.—)✍️📝") + more)


@settings(max_examples=examples(60, 200), deadline=None)
@given(_USER_LINES.filter(bool), st.booleans(), st.booleans())
def test_with_the_heading_deleted_what_follows_the_generated_text_is_kept(
        lines: list[str], keep_hint: bool, figures_changed: bool) -> None:
    """The heading deleted (and perhaps the hint below it): everything after
    the last line of vibe-vault's own text is the user's; lines that changed
    since may come along, never one of theirs left out."""
    from vibe_vault.note import _with_user_part, user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT

    mine = "".join(line + "\n" for line in lines)
    existing = _BODY + (USER_HINT + "\n" if keep_hint else "") + mine
    body = _BODY.replace("| m | 1 |", "| m | 2 |") if figures_changed else _BODY
    generated = body + USER_HEADING + "\n" + USER_HINT + "\n"
    part = user_part(existing, generated)
    assert part is not None and part.startswith(USER_HEADING + "\n") and part.endswith(mine)
    assert _with_user_part(generated, part).endswith(mine)


# -- through the hook: variants, a deleted heading, a renamed or moved note -----------------


_ONE_MORE = ('{"type":"user","message":{"role":"user","content":"one more"},'
             '"timestamp":"2026-01-21T07:00:00Z","uuid":"u-new","sessionId":"' + SID + '"}\n')


def _the_note(env: Env) -> Path:
    notes = sorted(env.vault.glob("Projects/*/sessions/*.md"))
    assert len(notes) == 1, notes
    return notes[0]


def _aged(path: Path, seconds: float = 5.0) -> None:
    """As if saved `seconds` ago (a save long over, not one landing now)."""
    old = time.time() - seconds
    os.utime(path, (old, old))


@pytest.mark.corpus
@settings(max_examples=8, deadline=None)
@given(typed_headings(), _USER_LINES.filter(bool))
def test_a_heading_typed_any_way_survives_the_next_event(
        tmp_path_factory: pytest.TempPathFactory, heading: str, lines: list[str]) -> None:
    env = Env(tmp_path_factory.mktemp("variant"))
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    note = _the_note(env)
    text = note.read_text(encoding="utf-8")
    at = text.index("\n## My notes\n")
    mine = "".join(line + "\n" for line in lines)
    note.write_text(text[:at + 1] + heading + "\n" + mine, encoding="utf-8")
    _aged(note)
    with target.open("a") as f:  # something new, so the note is rewritten
        f.write(_ONE_MORE)
    assert env.hook(stop(SID, target)).returncode == 0
    after = note.read_text(encoding="utf-8")
    assert after.endswith(mine), after[-400:]
    assert heading.rstrip("\r") + "\n" in after  # as the user typed it


@pytest.mark.corpus
@pytest.mark.parametrize("keep_hint", [True, False])
def test_with_the_heading_deleted_the_users_lines_stay(env: Env, keep_hint: bool) -> None:
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    note = _the_note(env)
    text = note.read_text(encoding="utf-8")
    from vibe_vault.vault import USER_HINT

    head = text[:text.index("\n## My notes\n") + 1]
    note.write_text(head + (USER_HINT + "\n" if keep_hint else "") + "mine one\nmine two\n",
                    encoding="utf-8")
    _aged(note)
    assert env.hook(stop(SID, target)).returncode == 0
    after = note.read_text(encoding="utf-8")
    assert after.endswith("mine one\nmine two\n")
    assert "\n## My notes\n" in after  # the heading is back


@pytest.mark.corpus
@pytest.mark.parametrize("where", ["Projects/elsewhere/renamed.md", "My talk with Claude.md",
                                   "Projects/{project}/sessions/renamed by me.md"])
def test_a_renamed_or_moved_note_is_followed(env: Env, where: str) -> None:
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    note = _the_note(env)
    project = note.parent.parent.name
    moved = env.vault / where.format(project=project)
    moved.parent.mkdir(parents=True, exist_ok=True)
    note.rename(moved)
    with moved.open("a", encoding="utf-8") as f:
        f.write("written after the move\n")
    _aged(moved)
    with target.open("a") as f:
        f.write(_ONE_MORE)
    assert env.hook(stop(SID, target)).returncode == 0
    assert not note.exists()  # not made again where it was
    text = moved.read_text(encoding="utf-8")
    assert text.endswith("written after the move\n") and "one more" in text
    r = env.vv("backfill")
    assert r.returncode == 0 and not note.exists()
    assert moved.read_text(encoding="utf-8").endswith("written after the move\n")


@pytest.mark.corpus
def test_a_note_deleted_into_the_trash_is_not_followed_there(env: Env) -> None:
    target = place(env)
    assert env.hook(stop(SID, target)).returncode == 0
    note = _the_note(env)
    trash = env.vault / ".trash" / note.name
    trash.parent.mkdir()
    note.rename(trash)
    assert env.hook(stop(SID, target)).returncode == 0
    assert note.exists()


def test_a_save_landing_in_the_instant_of_the_rename_is_kept_as_a_conflict_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor's temp-and-rename save between vibe-vault's check of the path
    and its own rename: the displaced save is kept beside the note, named in
    the log, its lines merged into the note; `vv doctor` names the copy."""
    from vibe_vault import atomic
    from vibe_vault.note import USER_HEADING, USER_HINT, write_note

    relpath = "Projects/p/sessions/n.md"
    path = tmp_path / "vault" / relpath
    gen = "# Note\n\n" + USER_HEADING + "\n" + USER_HINT + "\n"
    first = write_note(tmp_path / "vault", relpath, gen)
    path.write_text(path.read_text() + "mine 1\n")
    old = time.time() - 5
    os.utime(path, (old, old))
    real = atomic._exchange
    saves = []

    def save_first(fn: object, a: str, b: str) -> bool:
        if not saves:  # the editor's save lands now, once
            tmp = path.with_name(".n.md.swp")
            tmp.write_text(path.read_text() + "mine 2\n")
            os.replace(tmp, path)
            saves.append(1)
        return real(fn, a, b)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic, "_exchange", save_first)
    written = write_note(tmp_path / "vault", relpath, gen.replace("# Note", "# Note v2"),
                         first.user_part, log_dir=tmp_path / "state")
    assert written.changed
    text = path.read_text()
    assert text.startswith("# Note v2") and text.endswith("mine 1\nmine 2\n")
    copies = list(path.parent.glob("n (conflict *).md"))
    assert len(copies) == 1 and copies[0].read_text().endswith("mine 1\nmine 2\n")
    assert copies[0].name in (tmp_path / "state" / "vv.log").read_text()
    from vibe_vault.commands.doctor import _conflicts
    from vibe_vault.config import Config

    check = _conflicts(Config(vault=str(tmp_path / "vault"), state_dir=str(tmp_path / "state"),
                              projects_root=str(tmp_path), config_file=str(tmp_path / "c")))
    assert check.status == "warn" and copies[0].name in check.detail


def test_settings_changed_since_read_are_not_written_over(tmp_path: Path) -> None:
    """~/.claude/settings.json is the user's too: `vv hook install` writes it
    only while it still holds what was read."""
    from vibe_vault import install as inst

    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}\n')
    old = path.read_text()
    path.write_text('{"theme": "dark", "model": "mine"}\n')  # the user's edit meanwhile
    with pytest.raises(inst.SettingsError, match="changed"):
        inst.write(path, old, {"theme": "dark", "hooks": {}})
    assert "mine" in path.read_text()
    now = path.read_text()
    inst.write(path, now, {"theme": "dark", "model": "mine", "hooks": {}})
    assert '"hooks"' in path.read_text() and "mine" in path.read_text()
