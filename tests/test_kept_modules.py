"""The hook's modules served from the file `kept_modules` keeps are the
package's modules as their source files are now (the oracle: the source
text itself): a module changed since it was kept is imported from its
source, and kept anew; a copied package's modules tell where they are."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import kept_modules

SRC = Path(kept_modules.__file__).resolve().parent

# In a fresh Python over a copy of the package: install the finder, import
# what a Stop imports, keep what was imported as usual, and tell which modules
# came from the file and what one module and one function say of themselves.
PROBE = """
import json, sys
from vibe_vault import kept_modules as k
k.install()
with k.bundle("session"):  # (as the hook imports it)
    import vibe_vault.session
import vibe_vault.times
import vibe_vault.patterns
vibe_vault.patterns.save()  # (as the hook ends: cli.entry)
k.save()
print(json.dumps({"served": sorted(k._served), "bundled": sorted(k._from_bundle),
                  "marker": getattr(vibe_vault.times, "MARKER", None),
                  "file": vibe_vault.times.__file__,
                  "code": vibe_vault.times.epoch.__code__.co_filename}))
"""


def probe(root: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         check=True, text=True).stdout
    result: dict[str, object] = json.loads(out)
    return result


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of the package with no kept file yet."""
    root = tmp_path / "a"
    shutil.copytree(SRC, root / "vibe_vault", ignore=shutil.ignore_patterns("modules.*.bin"))
    return root


def test_second_process_served_and_changed_source_wins(package: Path) -> None:
    first = probe(package)
    assert first["served"] == []  # nothing kept yet
    kept = package / "vibe_vault" / "__pycache__" / f"modules.{sys.implementation.cache_tag}.bin"
    assert kept.exists()
    second = probe(package)
    served = set(second["served"])  # type: ignore[arg-type]
    assert {"vibe_vault.session", "vibe_vault.state", "vibe_vault.times",
            "vibe_vault.fold"} <= served
    times = package / "vibe_vault" / "times.py"
    assert second["file"] == str(times)
    # An edit of a kept module: its new source is what runs, in that process
    # and (kept anew) in the next.
    times.write_text(times.read_text() + "\nMARKER = 7\n")
    third = probe(package)
    assert third["marker"] == 7 and "vibe_vault.times" not in third["served"]  # type: ignore[operator]
    fourth = probe(package)
    assert fourth["marker"] == 7 and "vibe_vault.times" in fourth["served"]  # type: ignore[operator]


def kept_file(package: Path) -> Path:
    return package / "vibe_vault" / "__pycache__" / f"modules.{sys.implementation.cache_tag}.bin"


def test_the_session_bundle_serves_what_the_sources_say_now(package: Path) -> None:
    """A Stop's modules come from their bundle (read as one) once a process
    imported them: each the code of its source as it is now, an edited one
    from its source (and the bundle made anew with it), a bundle that cannot
    be read leaving each to its own entry."""
    for kept_tables in (package / "vibe_vault" / "__pycache__").glob("patterns.*.bin"):
        kept_tables.unlink()  # (a first process makes the redactor's rule table: see below)
    probe(package)
    written = kept_file(package).stat().st_mtime_ns
    second = probe(package)
    bundled = set(second["bundled"])  # type: ignore[arg-type]
    # (the oracle of what `session` brings in: the sources' own imports)
    session = (package / "vibe_vault" / "session.py").read_text()
    assert "from vibe_vault.state import" in session and "import msgspec" in session
    assert {"vibe_vault.session", "vibe_vault.state", "vibe_vault.times",
            "vibe_vault.fold"} <= bundled
    assert bundled <= set(second["served"])  # type: ignore[arg-type]
    # The first process made the bundle the next ones use (not the rule
    # modules it imported to make the rule table, which they read from its
    # file): they write nothing.
    assert probe(package)["bundled"] == second["bundled"]
    assert kept_file(package).stat().st_mtime_ns == written
    times = package / "vibe_vault" / "times.py"
    times.write_text(times.read_text() + "\nMARKER = 9\n")
    third = probe(package)
    assert third["marker"] == 9 and "vibe_vault.times" not in third["served"]  # type: ignore[operator]
    fourth = probe(package)
    assert fourth["marker"] == 9 and "vibe_vault.times" in fourth["bundled"]  # type: ignore[operator]
    # A bundle's bytes damaged: every module still the code of its source.
    stamp = kept_modules._stamp()
    entries = kept_modules.read_kept(str(kept_file(package)), stamp)
    key = ("bundle", "session")
    members, blob = entries[key]
    entries[key] = (members, bytes(blob)[: len(blob) // 2])
    kept_modules.write_kept(str(kept_file(package)), stamp, entries)
    fifth = probe(package)
    assert fifth["marker"] == 9 and fifth["bundled"] == []
    assert set(fourth["bundled"]) <= set(fifth["served"])  # type: ignore[arg-type]
    assert probe(package)["bundled"] == fourth["bundled"]  # (made anew by the fifth)


def test_copied_package_tells_its_own_paths(package: Path, tmp_path: Path) -> None:
    probe(package)
    other = tmp_path / "b"
    shutil.copytree(package, other)  # (times kept: the file's entries still match)
    got = probe(other)
    assert "vibe_vault.times" in got["served"]  # type: ignore[operator]
    times = str(other / "vibe_vault" / "times.py")
    assert got["file"] == times and got["code"] == times


def test_file_of_another_python_is_not_used(package: Path) -> None:
    probe(package)
    kept = package / "vibe_vault" / "__pycache__" / f"modules.{sys.implementation.cache_tag}.bin"
    from vibe_vault import kept_modules

    stamp = kept_modules._stamp()
    entries = kept_modules.read_kept(str(kept), stamp)
    assert entries  # (the file is of this Python: read back whole)
    kept_modules.write_kept(str(kept), (stamp[0] + " other", stamp[1]), entries)
    assert probe(package)["served"] == []


def test_nothing_served_or_kept_without_bytecode(package: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(package), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, check=True)
    assert not list((package / "vibe_vault").rglob("modules.*.bin"))


_KEYS = st.one_of(st.integers(), st.text(max_size=6), st.tuples(st.just("kept"), st.text(max_size=6)))
_ENTRIES = st.one_of(
    st.binary(max_size=40),  # a pattern's program
    st.tuples(st.text(max_size=8), st.booleans(), st.integers(0, 1 << 40),
              st.integers(0, 1 << 62), st.binary(max_size=40)))  # a module's entry


@settings(max_examples=examples(60, 400), deadline=None)
@given(entries=st.dictionaries(_KEYS, _ENTRIES, max_size=8), cut=st.integers(1, 1 << 20))
def test_a_kept_file_reads_back_what_was_written_and_nothing_of_a_part(
        entries: dict[object, object], cut: int) -> None:
    """The file's index and entries: each entry read back as it was written
    (under the same stamp; none under another); a file cut short by any
    number of bytes reads as no file at all, never as entries with part of
    their bytes."""
    stamp = kept_modules._stamp()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "kept.bin")
        kept_modules.write_kept(path, stamp, entries)

        def plain(v: object) -> object:
            return bytes(v) if isinstance(v, memoryview) else \
                tuple(plain(x) for x in v) if isinstance(v, tuple) else v

        read = kept_modules.read_kept(path, stamp)
        assert {k: plain(v) for k, v in read.items()} == entries
        assert kept_modules.read_kept(path, (stamp[0] + " other", stamp[1])) == {}
        whole = Path(path).read_bytes()
        Path(path).write_bytes(whole[:max(0, len(whole) - cut)])
        assert kept_modules.read_kept(path, stamp) == {}
