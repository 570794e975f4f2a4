"""The figures and the note do not read what was said before the state's side file.

A saved state keeps only the last of `fold.said` (the session's words, for
the search document) once they pass SAID_SPILL_CHARS; the rest goes to a side
file that only the search document loads (`Store.load_said`). The index's link
pass works out a session's figures once, before it loads the side file, and
hands them to the note and to the search document both (index.apply_links,
_index_row): that is right only while figures and the note are the same
whether or not the side file was loaded. Each corpus session is saved with
every word spilled and loaded back, then its figures and note are made before
and after the side file is read.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from conftest import main_files
from vibe_vault import state as state_module
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.session import Store
from vibe_vault.state import Fold, SessionState


@pytest.mark.corpus
def test_figures_and_note_are_the_same_before_and_after_the_side_file_is_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_module, "SAID_SPILL_CHARS", 0)  # (every session spills)
    store = Store(str(tmp_path))
    opts = RenderOptions()
    spilled = 0
    for n, main in enumerate(main_files()):
        lines = [decode_line(x) for x in main.read_bytes().split(b"\n") if x.strip()]
        sid = f"{n:08x}-0000-4000-8000-000000000000"
        whole = SessionState(session_id=sid, fold=fold(Fold(), lines))
        Path(store.state_path(sid)).parent.mkdir(parents=True, exist_ok=True)
        store.save(whole)
        loaded = store.load(sid)
        assert loaded is not None, main
        if len(loaded.fold.said) < len(whole.fold.said):
            spilled += 1
        before = figures(loaded, opts), render(loaded, opts, figures(loaded, opts))
        store.load_said(loaded)
        assert msgspec.structs.asdict(loaded.fold)["said"] == msgspec.structs.asdict(whole.fold)["said"]
        after = figures(loaded, opts), render(loaded, opts, figures(loaded, opts))
        assert before == after, main
    assert spilled >= 10  # (else the side file was never left out)
