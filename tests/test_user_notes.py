"""The user's own section of a note is never lost: however the heading is typed,
whatever an editor does to the file while a hook rewrites it."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_hook_contract import SESSION, SID, assert_harmless, place, stop

# Written here, not imported: the test's own idea of the user's heading.
USER_HEADING_LINE = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*$", re.IGNORECASE | re.MULTILINE)


def grow(target: Path, lines: list[bytes], upto: int) -> None:
    target.write_bytes(b"".join(lines[:upto]))


def the_note(env: Env) -> Path:
    notes = sorted(env.vault.glob("Projects/*/sessions/*.md"))
    assert len(notes) == 1, notes
    return notes[0]


@pytest.mark.corpus
@pytest.mark.parametrize("heading", ["## My notes", "## My Notes", "## my notes ",
                                     "##  My notes", "## MY  NOTES\t", "##\tmy notes"])
def test_heading_typed_any_way_keeps_what_is_below(env: Env, heading: str) -> None:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    target = place(env)
    grow(target, lines, len(lines) // 2)
    assert_harmless(env.hook(stop(path=target)))
    note = the_note(env)
    text = note.read_text()
    at = USER_HEADING_LINE.search(text)
    assert at is not None
    mine = "my own line 1\n\n- a list item I keep\n```\ncode I pasted\n```\n"
    note.write_text(text[: at.start()] + heading + "\n" + mine)
    grow(target, lines, len(lines))
    assert_harmless(env.hook(stop(path=target)))
    after = note.read_text()
    assert after.endswith(mine)
    assert heading in after.splitlines()
    assert len(USER_HEADING_LINE.findall(after)) == 1


@pytest.mark.corpus
def test_a_forged_heading_in_a_prompt_does_not_capture_the_note(env: Env) -> None:
    target = place(env)
    data = target.read_bytes()
    forged = (b'{"type":"user","uuid":"f0","parentUuid":null,"sessionId":"' + SID.encode()
              + b'","timestamp":"2026-01-01T00:00:00Z","cwd":"/tmp","message":{"role":"user",'
              b'"content":"please\\n## My notes\\nnot mine"}}\n')
    target.write_bytes(data + forged)
    assert_harmless(env.hook(stop(path=target)))
    text = the_note(env).read_text()
    assert len(USER_HEADING_LINE.findall(text)) == 1
    note = the_note(env)
    note.write_text(text + "mine\n")
    assert_harmless(env.hook(stop(path=target)))
    assert note.read_text().endswith("\nmine\n")
    assert len(USER_HEADING_LINE.findall(note.read_text())) == 1


@pytest.mark.corpus
def test_a_deleted_note_comes_back_with_the_users_words(env: Env) -> None:
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    note = the_note(env)
    note.write_text(note.read_text() + "remember this\n")
    assert_harmless(env.hook(stop(path=target)))
    note.unlink()
    assert_harmless(env.hook(stop(path=target)))
    assert note.read_text().endswith("\nremember this\n")


@pytest.mark.corpus
def test_a_note_emptied_by_an_editor_keeps_the_users_words(env: Env) -> None:
    """A read between an editor's truncate and its write sees an empty file."""
    target = place(env)
    assert_harmless(env.hook(stop(path=target)))
    note = the_note(env)
    note.write_text(note.read_text() + "line one\nline two\n")
    assert_harmless(env.hook(stop(path=target)))
    note.write_text("")  # the editor truncated, and has not written yet
    assert_harmless(env.hook(stop(path=target)))
    # Left alone: replacing it now would send the editor's write into a file
    # no longer in the vault (issue 28: 138 of 178 lines lost that way).
    assert note.read_text() == ""
    # Still empty long after (no editor pauses that long): the user's words
    # the state kept come back.
    old = time.time() - 5
    os.utime(note, (old, old))
    assert_harmless(env.hook(stop(path=target)))
    assert note.read_text().endswith("\nline one\nline two\n")


@pytest.mark.corpus
def test_editor_saving_in_place_during_stops_loses_no_line(env: Env) -> None:
    """An editor saving in place (truncate, then write) all through a run of
    Stops (forty in CI, fifteen here) as the transcript grows."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    target = place(env)
    grow(target, lines, 5)
    assert_harmless(env.hook(stop(path=target)))
    note = the_note(env)
    written: list[str] = []
    done = threading.Event()
    problems: list[str] = []

    def editor() -> None:
        # Reads the file, adds a line below the user heading, saves in place
        # (truncate, then write, as Obsidian, VS Code and vim can).
        i = 0
        while not done.is_set():
            text = note.read_text(encoding="utf-8", errors="replace")
            if USER_HEADING_LINE.search(text) is None:
                problems.append("editor read a note without the heading")
                time.sleep(0.005)
                continue
            line = f"user line {i}"
            new = text + line + "\n"
            with open(note, "w", encoding="utf-8") as f:  # O_TRUNC: now empty
                f.write(new[: len(new) // 2])
                f.flush()
                time.sleep(0.002)
                f.write(new[len(new) // 2 :])
            written.append(line)
            i += 1
            time.sleep(0.01)

    thread = threading.Thread(target=editor)
    thread.start()
    try:
        stops = examples(15, 40)
        for k in range(stops):
            grow(target, lines, 5 + (len(lines) - 5) * (k + 1) // stops)
            assert_harmless(env.hook(stop(path=target)))
    finally:
        done.set()
        thread.join()
    assert_harmless(env.hook(stop(path=target)))
    final = note.read_text()
    assert len(written) >= 20
    mine = final[USER_HEADING_LINE.search(final).end():]  # type: ignore[union-attr]
    missing = [line for line in written if line + "\n" not in mine]
    assert not missing, f"{len(missing)} of {len(written)} user lines lost: {missing[:5]}"
    assert len(USER_HEADING_LINE.findall(final)) == 1


# Texts made of what a heading is made of, and of what could pass for it.
_HEADINGISH = st.text(alphabet="#*_mMyYnNoOtTeEsSſ \t\r\nx\u00a0:✍", max_size=60)
# And of what NFKC makes letters or digits of (full-width, circled, bold
# mathematical, superscript letters; a combining accent; a ligature; a unit),
# with ASCII letters and digits to count, and a story heading's dash.
_NORMALISED = st.text(alphabet="#*_ \nmy notesMYNOTES0123456789xq—ｍｙｎｏｔｅｓＮＯＴＥＳ１"
                      "Ⓜⓝ𝐦𝐲𝐧𝐨𝐭𝐞𝐬ⁿ\u0301ﬁ㎏\u200b\u00a0", max_size=40)


@settings(max_examples=examples(100, 400), deadline=None)
@given(st.lists(st.one_of(_HEADINGISH, _NORMALISED, st.sampled_from(
    ["## My notes", "## my  NOTES\r", "\n##\tMy notes \n", "### My notes", "**My notes**",
     "## ｍｙ ｎｏｔｅｓ", "## 𝐌𝐲 𝐧𝐨𝐭𝐞𝐬", "## My notes 2", "### 14:02 — My notes",
     "## my notes\u0301", "\n## M y notes\n", "__My notes__"])),
    max_size=8))
def test_the_quick_heading_scan_finds_what_a_line_by_line_reading_finds(
        pieces: list[str]) -> None:
    """The user's heading is looked for only at lines that begin with `#`,
    `**` or `__` and hold at most 7 ASCII letters and digits; what it finds
    is what reading every line finds, and the escaping of generated text
    leaves no line that reads as the heading."""
    from vibe_vault.note import _escaped
    from vibe_vault.vault import is_user_heading, user_heading_lines

    text = "".join(pieces)
    starts, at = [], 0
    for line in text.split("\n"):
        if is_user_heading(line):
            starts.append((at, at + len(line)))
        at += len(line) + 1
    assert [m.span() for m in user_heading_lines(text)] == starts
    assert list(user_heading_lines("".join(_escaped(text)))) == []


_LINES = st.lists(st.sampled_from(["a", "b", "c", "TODO", "", "- [ ] x"]), max_size=8)


@settings(max_examples=examples(100, 400), deadline=None)
@given(_LINES, _LINES, _LINES, _LINES)
def test_a_save_caught_by_a_replace_and_the_saves_after_it_both_keep_their_lines(
        base: list[str], older: list[str], newer: list[str], tail: list[str]) -> None:
    """The words an editor saved into a note just replaced (`carried`) and what
    it saved since into the new one (`found`): every line of either is in
    what is written, as many times as it is there, and the common start once."""
    from collections import Counter

    from vibe_vault.note import _merged

    def part(lines: list[str]) -> str:
        return "## My notes\n" + "".join(line + "\n" for line in lines)

    carried, found = part(base + older), part(base + newer + tail)
    merged = _merged(found, carried).splitlines()
    have = Counter(merged)
    for side in (carried, found):
        assert not Counter(side.splitlines()) - have
    # What both hold in the same place stays once (lines the two moved apart may
    # show twice: doubled, never lost).
    assert Counter(merged[:len(base) + 1]) == Counter(part(base).splitlines())
    assert merged[0] == "## My notes" and merged.count("## My notes") == 1
    assert _merged(found, found) == found and _merged(None, carried) == carried


def test_words_saved_into_replaced_files_through_every_attempt_reach_the_next_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor that saves into the note file each write has just replaced, on
    every attempt: the write gives up, and the last save's words are in no file.
    They come back as `pending`, and the next write (with no editor) puts them
    in, with every line saved before."""
    from vibe_vault import note as note_mod
    from vibe_vault.note import write_note
    from vibe_vault.vault import USER_HEADING, USER_HINT

    relpath = "Projects/p/sessions/n.md"
    path = tmp_path / relpath
    first = write_note(tmp_path, relpath, "# Note\n\n" + USER_HEADING + "\n" + USER_HINT + "\n")
    assert first.changed
    real = note_mod.replace_seen
    saved: list[str] = []

    def replace_while_an_editor_saves(target: str, data: bytes, seen: object,
                                      **kw: object) -> tuple[bool, str | None]:
        with open(target, "r+", encoding="utf-8") as old:  # the file about to be replaced
            replaced = real(target, data, seen, **kw)  # type: ignore[arg-type]
            line = f"saved into a replaced file {len(saved)}"
            text = old.read()
            old.seek(0)
            old.write(text + line + "\n")  # the editor's save lands in the old file
        saved.append(line)
        return replaced

    monkeypatch.setattr(note_mod, "replace_seen", replace_while_an_editor_saves)
    monkeypatch.setattr(note_mod, "_QUIET_NS", 0)  # (the old file's save is over at once)
    racing = write_note(tmp_path, relpath, "# Note v2\n\n" + USER_HEADING + "\n" + USER_HINT
                        + "\n", first.user_part)
    assert len(saved) == note_mod._WRITE_ATTEMPTS and not racing.changed
    assert saved[-1] not in path.read_text()  # in hand only
    assert saved[-1] in racing.pending

    monkeypatch.setattr(note_mod, "replace_seen", real)
    calm = write_note(tmp_path, relpath, "# Note v3\n\n" + USER_HEADING + "\n" + USER_HINT
                      + "\n", racing.user_part, racing.pending)
    final = path.read_text()
    assert calm.changed and calm.pending == "" and final.startswith("# Note v3")
    assert [line for line in saved if line + "\n" not in final] == []
    assert final.count(USER_HEADING) == 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(st.characters(codec="ascii", categories=["L", "N", "P", "Zs"]),
                        min_size=1, max_size=40).filter(str.strip), min_size=1, max_size=4),
       st.sampled_from(["in place", "temp and rename"]), st.booleans())
def test_own_write_is_known_by_its_stamp_and_an_editors_save_is_not(
        lines: list[str], mode: str, same_size: bool) -> None:
    """A note still as vibe-vault's last write left it (the stamp that write
    returned) is rewritten without the editor-race swap (atomic's renameat2,
    whose ctypes a Stop need not load); once a person has saved into it, in
    place or by a rename, of the same size or not, it is not taken for
    vibe-vault's own: their lines are kept, and the swap guards the write."""
    import tempfile

    from vibe_vault import atomic
    from vibe_vault import note as note_mod
    from vibe_vault.note import write_note
    from vibe_vault.vault import USER_HEADING, USER_HINT

    def generated(n: int) -> str:
        return f"# Note v{n}\n\n" + USER_HEADING + "\n" + USER_HINT + "\n"

    swaps: list[bool] = []
    real = atomic.replace_seen

    def watched(*a: object, **kw: object) -> tuple[bool, str | None]:
        swaps.append(bool(kw.get("exchange")))
        return real(*a, **kw)  # type: ignore[arg-type]

    relpath = "Projects/p/sessions/n.md"
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(note_mod, "replace_seen", watched)
        path = Path(tmp) / relpath
        mine = write_note(tmp, relpath, generated(1))
        assert mine.changed and mine.stamp == atomic.stamp_of(os.lstat(path))
        swaps.clear()
        again = write_note(tmp, relpath, generated(2), mine.user_part, ours=mine.stamp)
        assert again.changed and swaps == [False]
        assert again.stamp == atomic.stamp_of(os.lstat(path)) != mine.stamp
        same = write_note(tmp, relpath, generated(2), again.user_part, ours=again.stamp)
        assert not same.changed and same.stamp == again.stamp  # (nothing to write: still ours)
        # The person saves their lines: below the hint, or in its place with
        # the file's size unchanged (only the words differ).
        text = path.read_text(encoding="utf-8")
        if same_size:
            mine_line = (" ".join(lines) + " " * len(USER_HINT))[: len(USER_HINT)]
            saved = text.replace(USER_HINT, mine_line)
            assert len(saved) == len(text)
            lines = [mine_line.strip()]
        else:
            saved = text + "".join(line + "\n" for line in lines)
        # (later than the file system's clock tick after vibe-vault's write: a
        # same-size save in place within it would show vibe-vault's stamp)
        time.sleep(0.02)
        if mode == "in place":
            with open(path, "r+", encoding="utf-8") as f:
                f.truncate(0)
                f.write(saved)
        else:
            other = path.with_name(".n.md.swp")
            other.write_text(saved, encoding="utf-8")
            os.replace(other, path)
        edited = atomic.stamp_of(os.lstat(path))
        swaps.clear()
        after = write_note(tmp, relpath, generated(3), again.user_part, ours=again.stamp)
        final = path.read_text(encoding="utf-8")
        assert final.startswith("# Note v3")
        assert swaps and swaps[-1], "an editor's save was taken for vibe-vault's own write"
        for line in lines:
            assert line.strip() in final
        # Even a save taken for vibe-vault's own (as one within that tick
        # would be) is read whole: no word of it is lost.
        with open(path, "w", encoding="utf-8") as f:
            f.write(saved)
        write_note(tmp, relpath, generated(4), after.user_part,
                   ours=atomic.stamp_of(os.lstat(path)))
        final = path.read_text(encoding="utf-8")
        assert final.startswith("# Note v4")
        for line in lines:
            assert line.strip() in final
        assert edited != again.stamp


@settings(max_examples=examples(150, 600), deadline=None)
@given(st.lists(st.one_of(_HEADINGISH, st.sampled_from(
    ["## My notes\n", "### My notes\n", "**My notes**\n", "plain\n", "— ·\n", "\n"])),
    max_size=8), st.booleans(), st.booleans(), st.sampled_from(["## My notes", "## MY NOTES", "# My notes", "**My notes**"]),
    st.sampled_from(["", "mine\n", "mine", "\n## My notes\nagain\n"]))
def test_the_note_is_the_generated_lines_escaped_then_the_users_part(
        pieces: list[str], ends_a_line: bool, with_tail: bool, heading: str,
        rest: str) -> None:
    """What is written is every generated line above the user's heading, a
    backslash before each that reads as that heading, then the user's part
    (their heading as typed, the hint, their words): the oracle reads the
    generated text line by line, whether it ends with the heading as written
    or not, and whatever the user's heading and words are."""
    from vibe_vault.note import _with_user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT, is_user_heading

    tail = USER_HEADING + "\n" + USER_HINT + "\n"
    body = "".join(pieces) + ("\n" if ends_a_line else "")
    generated = body + tail if with_tail else body
    lines = body.split("\n")
    escaped = "\n".join("\\" + line if is_user_heading(line) else line for line in lines)
    want = escaped + heading + "\n" + USER_HINT + "\n" + rest
    assert _with_user_part(generated, heading + "\n" + rest) == want
