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
from pathlib import Path

import pytest

from vibe_vault import kept_modules

SRC = Path(kept_modules.__file__).resolve().parent

# In a fresh Python over a copy of the package: install the finder, import
# what a Stop imports, keep what was imported as usual, and tell which modules
# came from the file and what one module and one function say of themselves.
PROBE = """
import json, sys
from vibe_vault import kept_modules as k
k.install()
import vibe_vault.session, vibe_vault.times
k.save()
print(json.dumps({"served": sorted(k._served),
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
    import marshal

    stamp, entries = marshal.loads(kept.read_bytes())
    kept.write_bytes(marshal.dumps(((stamp[0] + " other", stamp[1]), entries)))
    assert probe(package)["served"] == []


def test_nothing_served_or_kept_without_bytecode(package: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(package), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, check=True)
    assert not list((package / "vibe_vault").rglob("modules.*.bin"))
