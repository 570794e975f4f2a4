"""File names made safe: one harmless component whatever a name holds, paths
shown relative, never a Windows device name."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.paths import relative_to, safe_id, safe_name

# The test's own idea of Windows device names: CON, PRN, AUX, NUL, COM0-9 and
# LPT0-9 (and their superscript digits), any case, alone or before an extension.
_DEVICE = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$")


@pytest.mark.parametrize("name", ["..", ".", "a/b", "..\\..\\x", "CON", "nul.txt", "x\x00y",
                                  "C:\\evil", " ", "a" * 500, "\u2028", "com1"])
def test_safe_name_is_one_harmless_component(name: str) -> None:
    s = safe_name(name)
    assert s and "/" not in s and "\\" not in s and "\x00" not in s
    assert s not in (".", "..") and len(s.encode()) <= 80
    assert s.split(".")[0].lower() not in ("con", "nul", "com1")
    assert "/" not in safe_id(name) and safe_id(name) not in (".", "..")


def test_relative_paths_posix_and_windows() -> None:
    assert relative_to("/home/u/p/src/a.py", "/home/u/p") == "src/a.py"
    assert relative_to("/elsewhere/a.py", "/home/u/p") == "/elsewhere/a.py"
    assert relative_to("C:\\Users\\me\\repo\\x.ps1", "C:\\Users\\me\\repo") == "x.ps1"
    assert relative_to("c:\\users\\me\\repo\\d\\x.ps1", "C:\\Users\\me\\repo") == "d/x.ps1"


@settings(max_examples=examples(150, 500))
@given(st.text(max_size=30), st.text(max_size=60),
       st.sampled_from(["", "2026-01-21T06:20:00Z", "2026-01-21T06:20:00+05:30", "nope"]),
       st.sampled_from([8, 16, 40]))
def test_a_note_path_is_made_of_safe_names(project: str, sid: str, ts: str, n: int) -> None:
    """Whatever the project and id, each part of a note's path is a safe name
    (the common case skips the cleaning: it must be one already)."""
    from vibe_vault.vault import note_relpath

    top, folder, sessions, name = note_relpath(project, sid, ts, n).split("/")
    assert (top, sessions) == ("Projects", "sessions") and name.endswith(".md")
    assert safe_name(folder, 60) == folder
    assert safe_name(name[:-3], 60) == name[:-3]


@settings(max_examples=examples(200, 3000), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("conprauxlmt0123¹²³.ſKıCONPRAUXLMTİ x-")),
               max_size=8))
@example("CON")
@example("com¹.txt")
@example("console")
def test_names_of_windows_devices_are_never_file_names(name: str) -> None:
    stem = safe_name(name)
    assert not _DEVICE.match(stem)
    if _DEVICE.match(name):
        assert stem.startswith("_")
    sid = safe_id(name) if name else "x"
    assert not _DEVICE.match(sid)


# Texts of the characters that decide where a folder's path begins and ends.
_PATHISH = st.text(alphabet=st.sampled_from(list("ab/\\ \t\n'\"`=(:;.-\u00a0\u2003é")),
                   max_size=40)


@settings(max_examples=examples(300, 3000))
@given(folder=st.text(alphabet=st.sampled_from(list("ab/\\. é")), min_size=1, max_size=6),
       text=_PATHISH, cuts=st.lists(st.integers(0, 40), max_size=4))
@example(folder="/a", text="cd /a/b && ls '/a/c' x=/a/d (/a/e) :/a/f ;/a/g /a/ /a", cuts=[])
def test_a_folder_is_left_out_of_a_text_as_its_pattern_leaves_it(
        folder: str, text: str, cuts: list[int]) -> None:
    """`readable` leaves a POSIX folder out of the paths under it with
    str.find, as the pattern `re` compiled of the folder's name did (the
    pattern, for any text holding the folder where paths begin and end)."""
    from vibe_vault.paths import _BOUNDARY, _left_out

    base = "/" + folder.lstrip("\\")
    for cut in sorted(cuts, reverse=True):  # the folder put where the text is cut
        text = text[:cut] + base + text[cut:]
    pattern = re.compile(_BOUNDARY + re.escape(base.rstrip("/\\")) + r"[/\\](?=\S)")
    if base.rstrip("/\\"):
        assert _left_out(text, base) == pattern.sub("", text)
