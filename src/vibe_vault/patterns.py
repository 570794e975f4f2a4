"""vibe-vault's own regular expressions, compiled once per Python and kept.

Compiling a pattern runs `re`'s parser and compiler, which are Python code: the
thirty or so patterns a Stop meets cost it 17-25 M instructions, a tenth of all
it runs (`python -c "import msgspec"` is ~170 M). What compiling makes of a
pattern (its program for `_sre`, and its groups) depends on the pattern, its
flags and the Python alone, so it is kept the way Python keeps a module's
bytecode: in this package's `__pycache__/patterns.<python>.bin`, read in one
go by the next process, which then parses nothing. A pattern that is not
there is compiled by `re` as usual, and `save` (called by `cli.entry` as the
process ends) writes it there for the next process.

Only the package's fixed patterns come here, never one made from what a
transcript, a config or a user holds (a `redact_patterns` entry can be a
literal secret). A program is kept only when `_sre` makes from it the pattern
that `re.compile` made, and it is used only by the same Python (its version and
`_sre.MAGIC`). Anything unexpected (another Python's `re`, a file that cannot
be read or written, PYTHONDONTWRITEBYTECODE) means compiling as before.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import zlib

TYPE_CHECKING = False  # typing costs the hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, AnyStr, TypeVar

    _T = TypeVar("_T")

try:  # (`re`'s insides: see _program)
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python whose `re` is built otherwise
    _sre = None

_TAG = sys.implementation.cache_tag
PATH = os.path.join(os.path.dirname(__file__), "__pycache__", f"patterns.{_TAG}.bin")
# A file made by another Python is not used (its programs may mean other things).
_STAMP = (sys.version, getattr(_sre, "MAGIC", 0))

# A pattern's entry, under `_key`: marshal's bytes of (pattern, flags, what
# `_sre.compile` takes after the pattern). The file's, and those this process
# made (`_new`, which `save` adds to the file). Each entry is unpacked only
# when its pattern is asked for: the file holds every pattern any run met
# (~200 kB), a Stop needs some thirty.
# (Also, under a ("kept", name) key, tables `kept` keeps: see there.)
_kept: dict[object, bytes | memoryview] = {}
_new: dict[object, bytes] = {}
_read = [False]


def _key(pattern: str | bytes, flags: int) -> int:
    raw = pattern.encode("utf-8", "surrogatepass") if isinstance(pattern, str) else pattern
    return zlib.crc32(raw) ^ (flags << 32) ^ (isinstance(pattern, str) << 48)


def compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:  # (re's name)
    """`re.compile(pattern, flags)`, from the kept program when there is one."""
    import marshal

    if not _read[0]:
        _read[0] = True
        _kept.update(_load())
    flags = int(flags)
    key = _key(pattern, flags)
    entry = _kept.get(key)
    if entry is not None:
        try:
            kept_pattern, kept_flags, program = marshal.loads(entry)
            if kept_pattern == pattern and kept_flags == flags:  # (not another of that key)
                return _sre.compile(pattern, *program)  # type: ignore[no-any-return]
        except Exception:  # an entry not made here: compiled anew
            pass
    compiled = re.compile(pattern, flags)
    made = _program(pattern, flags, compiled)
    if made is not None:
        _kept[key] = _new[key] = marshal.dumps((pattern, flags, made))
    return compiled


def kept(name: str, inputs: object, code: tuple[Any, ...], make: Callable[[], _T]) -> _T:
    """`make()`, kept in the same file as the programs: a table the package
    builds from its own constants (never from what a transcript, a config or
    a user holds), made by the functions whose code objects are `code` from
    `inputs` alone. What the file keeps under `name` is used only when it was
    made from equal inputs by the same code (compared as marshal writes it);
    else `make()` runs and `save` keeps what it made. `inputs` and the value
    are what marshal writes (str, int, tuples, lists, sets, dicts); the value
    is shared, never to be changed."""
    import marshal

    if not _read[0]:
        _read[0] = True
        _kept.update(_load())
    key = ("kept", name)
    made_by = marshal.dumps(code)
    entry = _kept.get(key)
    if entry is not None:
        try:
            kept_inputs, kept_by, value = marshal.loads(entry)
            if kept_by == made_by and kept_inputs == inputs:
                return value  # type: ignore[no-any-return]
        except Exception:  # an entry not made here: made anew
            pass
    modules = sys.modules.get("vibe_vault.kept_modules")
    with modules.aside() if modules is not None else contextlib.nullcontext():
        # (what making it imports, the next process reads the table instead of:
        # no part of the modules a bundle keeps for it)
        value = make()
    with contextlib.suppress(ValueError):  # (not of a type marshal writes: made again)
        _kept[key] = _new[key] = marshal.dumps((inputs, made_by, value))  # type: ignore[arg-type]
    return value


def _program(pattern: str | bytes, flags: int, compiled: re.Pattern[Any]
             ) -> tuple[Any, ...] | None:
    """What `_sre.compile` makes `compiled` from, as `re` itself works it out
    (re._compiler.compile); None when what it makes is not `compiled`."""
    if _sre is None or flags & re.DEBUG:
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        program = (int(flags | parsed.state.flags), code, parsed.state.groups - 1,
                   groupindex, tuple(indexgroup))
        again = _sre.compile(pattern, *program)
    except Exception:
        return None
    # (patterns compare by flags, pattern and program)
    if again != compiled or again.groupindex != compiled.groupindex:
        return None
    return program


def _load() -> dict[object, bytes | memoryview]:
    """The kept entries ({} when there are none, or none of this Python's)."""
    from vibe_vault.kept_modules import read_kept

    return read_kept(PATH, _STAMP)


def save() -> None:
    """Add the programs this process made to the file (written whole, under a
    new name then renamed: a reader never meets half of it). Nothing when there
    are none, or when Python is told to write no bytecode."""
    if not _new or sys.dont_write_bytecode:
        return
    from vibe_vault.kept_modules import write_kept

    programs: dict[object, bytes | memoryview] = {**_load(), **_new}  # (with those kept meanwhile)
    _new.clear()
    write_kept(PATH, _STAMP, programs)
