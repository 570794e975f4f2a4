"""note.py: writing a note keeps the user's part below their heading, never
writes through a link out of the vault, and no generated line passes for the
user's heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vibe_vault.note import user_section, write_note
from vibe_vault.vault import USER_HEADING


def test_user_section_survives_rewrite(tmp_path: Path) -> None:
    gen1 = f"---\ntype: session\n---\n# One\n{USER_HEADING}\n<!-- hint -->\n"
    write_note(tmp_path, "n.md", gen1)
    p = tmp_path / "n.md"
    p.write_text(p.read_text() + "my own words\n\n## More of mine\n")
    gen2 = f"---\ntype: session\n---\n# Two\n{USER_HEADING}\n<!-- hint -->\n"
    write_note(tmp_path, "n.md", gen2)
    text = p.read_text()
    assert text.startswith(gen2.split(USER_HEADING)[0])
    assert text.endswith("my own words\n\n## More of mine\n")
    assert user_section(text).count("my own words") == 1


def test_note_never_written_through_symlink_out_of_vault(tmp_path: Path) -> None:
    from vibe_vault.note import OutsideVault

    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "Projects").mkdir(parents=True)
    outside.mkdir()
    (vault / "Projects" / "p").symlink_to(outside)
    with pytest.raises(OutsideVault):
        write_note(vault, "Projects/p/sessions/n.md", "x\n")
    assert not any(outside.rglob("*.md"))


@pytest.mark.parametrize("forged", ["## My notes", "## MY NOTES", "## my noteſ", "##\tMy  Notes"])
def test_no_generated_line_passes_for_the_users_heading(forged: str) -> None:
    from vibe_vault.note import _with_user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT

    heading = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
    generated = f"# A session\n\n{forged}\nwhat Claude said\n\n{USER_HEADING}\n{USER_HINT}\n"
    out = _with_user_part(generated, USER_HEADING + "\nmine\n")
    assert [m.group(0) for m in heading.finditer(out)] == [USER_HEADING]
    assert out.endswith("\nmine\n")


@pytest.mark.parametrize("forged", ["## Ｍｙ ｎｏｔｅｓ", "**my ｎｏｔｅｓ**", "# My\u00a0notes"])
def test_no_generated_line_in_other_letters_passes_for_the_users_heading(forged: str) -> None:
    """A line NFKC reads as the heading (full-width letters, a no-break
    space) is escaped too, whatever else the note holds ("—" makes it not
    ASCII), so the user's part is still found below the real heading."""
    import unicodedata

    from vibe_vault.note import _with_user_part, user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT

    generated = (f"# A session — one\n\n{forged}\nwhat Claude said\n\n"
                 f"{USER_HEADING}\n{USER_HINT}\n")
    out = _with_user_part(generated, USER_HEADING + "\nmine\n")

    def reads_as_heading(line: str) -> bool:
        words = unicodedata.normalize("NFKC", line).casefold().strip("#*_ \t")
        return " ".join(words.split()) == "my notes"

    assert [line for line in out.split("\n") if reads_as_heading(line)] == [USER_HEADING]
    assert user_part(out) == USER_HEADING + "\nmine\n"
