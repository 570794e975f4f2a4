"""vibe-vault's own modules, loaded from one file the hook keeps.

A Stop imports some sixty of the package's modules, and Python's import
machinery (finding each file among the folder's, checking its `.pyc`, reading
it: Python code) costs ~0.31 M instructions a module whatever the module
holds, ~19 M of a Stop's (`python -c "import msgspec"` is ~170 M). Served from
one file read in one go, a module costs ~0.17 M. So the hook (cli.entry) puts a
finder first on `sys.meta_path` that loads the package's modules from
`__pycache__/modules.<python>.bin`: each module's code as `marshal` writes it,
under the size and time of the source file it was compiled from, which are
checked (os.stat) before that code is used, as Python checks a `.pyc`. A
module not there, or whose source changed since, is imported as usual, and
`save` (called by `cli.entry` as the process ends) adds its code for the next
process.

Only the package's own modules come here, and only for the same Python (its
version and bytecode's magic number). Anything unexpected (a file that cannot
be read or written, PYTHONDONTWRITEBYTECODE) means importing as before.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs the hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Any

_PACKAGE = "vibe_vault"
_ROOT = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(_ROOT, "__pycache__", f"modules.{sys.implementation.cache_tag}.bin")

# A module's entry, under its name: (its source's path relative to the
# package, whether it is a package, the source's size and mtime_ns, its code
# as marshal writes it). Each is unmarshalled only when its module is asked for.
_Entry = tuple[str, bool, int, int, bytes | memoryview]
_kept: dict[str, _Entry] = {}
_served: set[str] = set()  # the modules this process loaded from the file
_before: set[str] = set()  # and those imported before `install` (never served)
_installed = [False]


def _stamp() -> tuple[str, bytes]:
    """What a file made by another Python would not match (its code may mean
    other things there)."""
    # (importlib.util's MAGIC_NUMBER, from the module Python started with:
    # importing importlib.util costs a Stop ~2 M instructions)
    from _frozen_importlib_external import MAGIC_NUMBER

    return sys.version, MAGIC_NUMBER


class _Finder:
    """Finds and loads the package's modules from the kept file (a meta path
    finder and its own loader)."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        entry = _kept.get(name)
        if entry is None:
            return None
        relpath, package, size, mtime, _ = entry
        source = os.path.join(_ROOT, relpath)
        try:
            st = os.stat(source)
        except OSError:
            return None
        if st.st_size != size or st.st_mtime_ns != mtime:
            return None  # (imported as usual; `save` keeps its new code)
        from importlib.machinery import ModuleSpec

        spec = ModuleSpec(name, self, origin=source, is_package=package)  # type: ignore[arg-type]
        spec.has_location = True  # (so the module has its __file__, as usual)
        if package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        return spec

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # (the usual module)

    def exec_module(self, module: ModuleType) -> None:
        import _imp
        import marshal

        name = module.__name__
        code: CodeType = marshal.loads(_kept[name][4])
        # (a copied package's file holds the paths it was compiled at: the
        # code is told where it is now, as Python tells a `.pyc`'s)
        _imp._fix_co_filename(code, os.path.join(_ROOT, _kept[name][0]))  # type: ignore[attr-defined]
        _served.add(name)
        exec(code, module.__dict__)


def install() -> None:
    """Load the package's modules from the kept file from now on (nothing when
    Python is told to write no bytecode, or when there is no file of this
    Python's)."""
    if sys.dont_write_bytecode or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    _installed[0] = True
    _before.update(n for n in sys.modules if n == _PACKAGE or n.startswith(_PACKAGE + "."))
    _kept.update(_load())
    sys.meta_path.insert(0, _Finder())


def _load() -> dict[str, _Entry]:
    """The kept entries ({} when there are none, or none of this Python's)."""
    return read_kept(PATH, _stamp())


# The kept files' format: this, the index's length (4 bytes, big-endian), the
# index (marshal's bytes of (stamp, {key: (fields, offset, length)})), then
# the entries' bytes, each at its offset from the index's end. An entry is
# bytes (fields None: a pattern's program) or a tuple whose last item is
# bytes (fields: the others; a module's code). A Stop unmarshals the index
# and then only the entries it uses, from where they were read: unmarshalling
# a file of every entry's bytes (copying them all) cost it ~2 M instructions
# for the modules and ~2.7 M for the patterns.
_MAGIC = b"vibe-vault kept 2\n"


def read_kept(path: str, stamp: tuple[str, Any]) -> dict[Any, Any]:
    """The entries of a file `write_kept` wrote, their bytes views of the file
    as read: {} when there is none, it cannot be read, it was written under
    another stamp (another Python's), or an entry is not whole in it.
    (Also patterns' file of compiled patterns.)"""
    import marshal

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    start = len(_MAGIC) + 4
    if not data.startswith(_MAGIC):
        return {}
    end = start + int.from_bytes(data[len(_MAGIC):start], "big")
    view = memoryview(data)
    out: dict[Any, Any] = {}
    try:
        kept_stamp, index = marshal.loads(view[start:end])
        if kept_stamp != stamp or not isinstance(index, dict):
            return {}
        for key, (fields, at, size) in index.items():
            at += end
            if not (end <= at and 0 <= size <= len(data) - at):
                return {}
            out[key] = view[at:at + size] if fields is None else (*fields, view[at:at + size])
    except (ValueError, EOFError, TypeError):
        return {}
    return out


def write_kept(path: str, stamp: tuple[str, Any], entries: dict[Any, Any]) -> None:
    """Write `entries` under `stamp`, whole, under a new name then renamed: a
    reader never meets half of it. Each entry is bytes, or a tuple whose last
    item is (see _MAGIC). Nothing is written when the folder cannot be, or an
    entry is not of a type marshal writes."""
    import contextlib
    import marshal

    index: dict[Any, tuple[Any, int, int]] = {}
    blobs: list[bytes | memoryview] = []
    at = 0
    for key, entry in entries.items():
        fields, blob = (None, entry) if isinstance(entry, (bytes, memoryview)) else \
            (entry[:-1], entry[-1])
        index[key] = (fields, at, len(blob))
        blobs.append(blob)
        at += len(blob)
    temporary = f"{path}.{os.getpid()}"
    try:
        head = marshal.dumps((stamp, index))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as f:
            f.write(b"".join([_MAGIC, len(head).to_bytes(4, "big"), head, *blobs]))
        os.replace(temporary, path)
    except (OSError, ValueError, TypeError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _entry_of(module: ModuleType) -> _Entry | None:
    """A module's entry, made from what Python imported it from (its source
    file and the code compiled from it); None for a module not made so, or
    whose entry is kept already."""
    from importlib.machinery import SourceFileLoader

    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None)
    origin = getattr(spec, "origin", None)
    if spec is None or not isinstance(loader, SourceFileLoader) or not origin:
        return None
    relpath = os.path.relpath(origin, _ROOT)
    if relpath.startswith(os.pardir) or os.path.isabs(relpath):
        return None  # (not under this package's folder)
    try:
        st = os.stat(origin)
        old = _kept.get(spec.name)
        if old is not None and old[:4] == (relpath, old[1], st.st_size, st.st_mtime_ns):
            return None
        code = loader.get_code(spec.name)
        after = os.stat(origin)
    except (OSError, ImportError):
        return None
    if code is None or (st.st_size, st.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
        return None  # (changed while it was read: left for the next run)
    import marshal

    return (relpath, spec.submodule_search_locations is not None, st.st_size,
            st.st_mtime_ns, marshal.dumps(code))


def save() -> None:
    """Add the package's modules this process imported as usual (not there,
    or changed since) to the file (written whole, under a new name then
    renamed: a reader never meets half of it). Nothing when there are none,
    or when Python is told to write no bytecode."""
    if sys.dont_write_bytecode or not _installed[0]:
        return
    usual = [name for name in sys.modules if name.startswith(_PACKAGE + ".")
             and name not in _served and name not in _before]
    if not usual:
        return
    new: dict[str, _Entry] = {}
    for name in usual:
        module = sys.modules.get(name)
        entry = _entry_of(module) if module is not None else None
        if entry is not None:
            new[name] = entry
    if not new:
        return
    _kept.update(new)
    write_kept(PATH, _stamp(), {**_load(), **new})  # (with those kept meanwhile)
