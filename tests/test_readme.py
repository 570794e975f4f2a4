"""The README shows users what `vv` does: its sample note is the note
`vv backfill` writes today for that public transcript, byte for byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CORPUS, Env, frontmatter

README = Path(__file__).resolve().parent.parent / "README.md"


def sample_note() -> str:
    """The README's one ````markdown block: the sample note."""
    found = re.findall(r"^````markdown\n(.*?)^````$", README.read_text(encoding="utf-8"),
                       re.S | re.M)
    assert len(found) == 1, "the README has one sample note"
    return str(found[0])


@pytest.mark.corpus
def test_the_readme_sample_note_is_what_backfill_writes(tmp_path: Path) -> None:
    sample = sample_note()
    sid = str(frontmatter(sample)["session_id"])
    said = re.search(r"\(`([^`]+)`, `([^`]+)`\)", README.read_text(encoding="utf-8")
                     .split("````markdown")[0].rsplit("A real note", 1)[1])
    assert said, "the README names the transcript the sample comes from"
    repo, where = said.groups()
    source = CORPUS / repo.replace("/", "__") / where
    assert (source / "transcript.jsonl").is_file(), source
    env = Env(tmp_path)
    r = env.vv("backfill", str(source))
    assert r.returncode == 0, r.stderr.decode()
    written = [n for n in env.notes().values() if f"session_id: {sid}\n" in n]
    assert written == [sample], "the README's sample note has drifted from what vv writes"
