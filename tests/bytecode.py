"""Compile vibe_vault, and what it imports, into a folder of bytecode (argv[1]).

Run once per test run by conftest (`_compile_once`), in a process of its own, so
that every `vv` a test starts as a process reads its bytecode there
(PYTHONPYCACHEPREFIX) instead of compiling each module from source again where
Python writes no bytecode. A prefix is where a process looks for all its
bytecode, the standard library's too: so what vibe_vault imports anywhere (at
the top of a module or inside a function) is imported here and compiled into it
as well. A module missed is compiled from source by the process, as before.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import pkgutil
import py_compile
import sys
from pathlib import Path


def imported_names(package: Path) -> set[str]:
    """Every absolute module name a file of the package imports."""
    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return names


def main(folder: str) -> None:
    spec = importlib.util.find_spec("vibe_vault")
    if spec is None or not spec.submodule_search_locations:
        return
    packages = [Path(p) for p in spec.submodule_search_locations]
    wanted = {m.name for m in pkgutil.walk_packages([str(p) for p in packages], "vibe_vault.")
              if not m.name.endswith("__main__")}  # (__main__ would run `vv`)
    for package in packages:
        wanted |= imported_names(package)
    for name in sorted(wanted):
        with contextlib.suppress(Exception):  # (one a platform lacks: fcntl, ctypes...)
            importlib.import_module(name)
    sys.pycache_prefix = folder  # (where py_compile writes, as the processes will read)
    sources = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    sources |= {str(p) for package in packages for p in package.rglob("*.py")}
    for source in sorted(s for s in sources if s and s.endswith(".py")):
        with contextlib.suppress(Exception):
            py_compile.compile(source, doraise=True)


if __name__ == "__main__":
    main(sys.argv[1])
