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
_kept: dict[Any, Any] = {}  # modules' entries by name, bundles' by ("bundle", key)
_served: set[str] = set()  # the modules this process loaded from the file
_before: set[str] = set()  # and those imported before `install` (never served)
_installed = [False]

# A bundle: the modules one import brings in (`bundle`: a Stop's `session`
# and the ~60 modules it imports), their code marshalled together as one
# tuple under ("bundle", key), fields (the members' (name, size, mtime_ns),).
# Unmarshalled at once, what the modules share (names such as `self`, `ctx`,
# `state`: each a string made and interned once per module otherwise) is
# made once: ~5.6 M instructions less than the ~30 M of a Stop's modules one
# by one. A bundle is used only while every member's entry is the one it was
# made of (written together, dropped together).
_member_of: dict[str, Any] = {}  # a member's name -> its bundle's key in _kept
_codes: dict[str, CodeType] = {}  # the members' code, once their bundle is read
_asked: list[str] = []  # the package's modules asked for since install, in order
_aside: set[str] = set()  # those asked inside `aside`
_marked: dict[str, tuple[str, ...]] = {}  # what each `bundle` brought in here
_from_bundle: set[str] = set()  # the modules this process loaded from a bundle
_unreadable: set[Any] = set()  # bundles whose bytes did not unmarshal: made anew
_valid: set[Any] = set()  # the bundles `install` found usable


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
        if name.startswith(_PACKAGE):
            _asked.append(name)  # (asked once: found, it is in sys.modules)
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
        code = _codes.pop(name, None)
        if code is None and name in _member_of:
            _unbundle(_member_of[name])
            code = _codes.pop(name, None)
        if code is not None:
            _from_bundle.add(name)
        else:
            code = marshal.loads(_kept[name][4])
        # (a copied package's file holds the paths it was compiled at: the
        # code is told where it is now, as Python tells a `.pyc`'s)
        _imp._fix_co_filename(code, os.path.join(_ROOT, _kept[name][0]))  # type: ignore[attr-defined]
        _served.add(name)
        exec(code, module.__dict__)


def _unbundle(key: Any) -> None:
    """Unmarshal the bundle `key` (once), its members' code for exec_module."""
    import marshal

    members, blob = _kept[key]
    for name in members:  # (whether or not its code turns out to be readable)
        _member_of.pop(name[0], None)
    try:
        codes = marshal.loads(blob)
    except (ValueError, EOFError, TypeError):
        codes = None  # (each member from its own entry)
    if not isinstance(codes, tuple) or len(codes) != len(members):
        _unreadable.add(key)
    else:
        _codes.update((m[0], c) for m, c in zip(members, codes, strict=True))


class aside:
    """`with aside(): import x`: the modules this brings in are no bundle's
    members (imported to make a table a next process reads from a file
    instead: the redactor's rule modules)."""

    def __enter__(self) -> None:
        self.start = len(_asked)

    def __exit__(self, *exc: object) -> None:
        _aside.update(_asked[self.start:])


class bundle:
    """`with bundle(key): import x`: the package's modules this import
    brings in are kept as one bundle (see _member_of), for processes that
    import the same after it. Nothing when the finder is not installed."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __enter__(self) -> None:
        self.start = len(_asked)

    def __exit__(self, *exc: object) -> None:
        if _installed[0]:
            _marked[self.key] = tuple(n for n in _asked[self.start:] if n not in _aside)


def install() -> None:
    """Load the package's modules from the kept file from now on (nothing when
    Python is told to write no bytecode, or when there is no file of this
    Python's)."""
    if sys.dont_write_bytecode or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    _installed[0] = True
    _before.update(n for n in sys.modules if n == _PACKAGE or n.startswith(_PACKAGE + "."))
    _kept.update(_load())
    for key, (members, _) in _bundles(_kept).items():
        _valid.add(key)
        _member_of.update((m[0], key) for m in members)
    sys.meta_path.insert(0, _Finder())


def _bundles(entries: dict[Any, Any]) -> dict[Any, Any]:
    """The bundles among `entries` whose every member's entry is there as
    the bundle was made of it."""
    out = {}
    for key, entry in entries.items():
        if type(key) is tuple and key[:1] == ("bundle",):
            members = entry[0]
            if all(type(m) is tuple and len(m) == 3 and type(entries.get(m[0])) is tuple
                   and entries[m[0]][2:4] == m[1:] for m in members):
                out[key] = entry
    return out


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
    or changed since) to the file, and the bundles it marked that the file
    does not hold as they are now (written whole, under a new name then
    renamed: a reader never meets half of it). Nothing when there are none,
    or when Python is told to write no bytecode."""
    if sys.dont_write_bytecode or not _installed[0]:
        return
    usual = [name for name in sys.modules if name.startswith(_PACKAGE + ".")
             and name not in _served and name not in _before]
    new: dict[Any, Any] = {}
    for name in usual:
        module = sys.modules.get(name)
        entry = _entry_of(module) if module is not None else None
        if entry is not None:
            new[name] = entry
    marked = {}  # the bundles this process brought in that the file lacks as they are
    for key, names in _marked.items():
        have = _kept.get(("bundle", key)) if ("bundle", key) in _valid else None
        if (have is None or ("bundle", key) in _unreadable or any(n in new for n in names)
                or tuple(m[0] for m in have[0]) != tuple(
                    n for n in names if type(_kept.get(n)) is tuple)):
            marked[key] = names
    if not new and not marked:
        return  # (a Stop's usual end: reading the file again cost ~0.7 M instructions)
    entries = {**_load(), **new}  # (with those kept meanwhile)
    kept = {k: v for k, v in _bundles(entries).items() if k not in _unreadable}
    for key, names in marked.items():
        members = tuple((n, *entries[n][2:4]) for n in names if type(entries.get(n)) is tuple)
        if members and kept.get(("bundle", key), (None,))[0] != members:
            import marshal

            try:
                codes = tuple(marshal.loads(entries[m[0]][4]) for m in members)
            except (ValueError, EOFError, TypeError):
                continue
            new[("bundle", key)] = kept[("bundle", key)] = (members, marshal.dumps(codes))
    if not new:
        return
    _kept.update(new)
    # (a bundle whose members are no longer all as it was made of them is left out)
    write_kept(PATH, _stamp(), {**{k: v for k, v in entries.items() if type(k) is not tuple
                                   or k[:1] != ("bundle",)}, **kept})
