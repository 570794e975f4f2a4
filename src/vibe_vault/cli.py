"""The `vv` command line. Subcommands live in `vibe_vault.commands`, one module each."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs the hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

EXIT_CODES = """exit codes:
  0  success (and always, for `vv hook`)
  1  the command ran but something failed (details on stderr)
  2  bad usage, missing input, or a config that makes writing notes unsafe"""


# Commands that must not run while a redaction pattern cannot be used.
WRITES_NOTES = frozenset({"backfill", "reprocess", "index"})


def entry() -> None:
    """The `vv` executable: `main`, then exit without tearing the interpreter down.

    Freeing every module and object at exit costs ~8 ms, a sixth of what a Stop
    hook adds to starting Python; everything vv writes is closed by then (files
    through `with` or os.close, the log with os.write), so only the standard
    streams are flushed. An exception still leaves the usual way.
    """
    if sys.argv[1:] == ["hook"]:
        # The hook's modules from one file (see kept_modules): here, where the
        # process starts, not in `main`, which tests also call in-process.
        from vibe_vault import kept_modules

        kept_modules.install()
    code = main()
    import gc

    # No cycle collection on the way out: `hook.run` turns them back on (for
    # callers that go on), and the first object made after that would start
    # one walking all a Stop made (~7 M instructions), freeing nothing the
    # exit would not.
    gc.disable()
    patterns = sys.modules.get("vibe_vault.patterns")
    if patterns is not None:  # (what this run compiled, kept for the next: see patterns)
        patterns.save()
    kept = sys.modules.get("vibe_vault.kept_modules")
    if kept is not None:  # (the modules this run imported as usual: see kept_modules)
        kept.save()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # a reader that went away (`vv stats | head`) or a closed stream
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # The hook runs on every turn: skip argparse and config parsing up front.
    if args[:1] == ["hook"] and len(args) == 1:
        # No cycle collections while the hook's modules load either (typing's,
        # then msgspec's: collections a plain `import msgspec` pays for).
        import gc

        collecting = gc.isenabled()
        gc.disable()
        from vibe_vault.commands import hook

        return hook.run(collecting=collecting)
    if args[:1] == ["search"]:
        # `vv search WORD...`, the commonest search, without argparse, and
        # without cycle collections (a few ms of objects, held to the end;
        # on again after, for a caller that goes on: tests call main).
        import gc

        from vibe_vault.commands.search import words_only

        ns = words_only(args)
        if ns is not None:
            collecting = gc.isenabled()
            gc.disable()
            try:
                return _execute(ns)
            finally:
                if collecting:
                    gc.enable()
    return _main(args)


# Subcommand -> its module in vibe_vault.commands, in the order `vv --help` lists them.
COMMANDS = {
    "hook": "hook_cli",
    "backfill": "backfill",
    "reprocess": "reprocess",
    "archive": "archive_cmd",
    "restore": "restore",
    "index": "index_cmd",
    "search": "search",
    "files": "files",
    "show": "show",
    "resume": "resume_cmd",
    "forget": "forget",
    "stats": "stats",
    "doctor": "doctor",
    "config": "config_cmd",
}


def _main(argv: list[str]) -> int:
    ns = parse(argv)
    return ns if isinstance(ns, int) else _execute(ns)


def parse(argv: list[str]) -> Any:
    """The command line as argparse reads it (a Namespace), or the exit code
    when there is nothing to run (the help printed)."""
    import argparse
    import importlib

    from vibe_vault import __version__
    from vibe_vault.helpformat import Formatter

    class OneLineParser(argparse.ArgumentParser):
        """Usage errors in one line, naming the help (argparse prints the
        whole usage first; a script or a hook log wants the reason alone).
        Subcommands' parsers are made of the same class."""

        def error(self, message: str) -> NoReturn:
            from vibe_vault.text import terminal_safe

            reason = terminal_safe(" ".join(message.split()))
            self.exit(2, f"{self.prog}: {reason} (see {self.prog} --help)\n")

    parser = OneLineParser(
        prog="vv",
        description="Turn Claude Code sessions into Markdown notes in your vault.",
        epilog=EXIT_CODES,
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"vv {__version__}")
    parser.add_argument(
        "--vault", help="vault directory (default: $VV_VAULT, the config file, ~/vibe-vault)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Only the named command's module is imported (the others cost a backfill
    # ~5 ms); without one, or when unsure, all of them, so help lists them all.
    first = next((a for a in argv if not a.startswith("-")), None)
    for name in [first] if first in COMMANDS else COMMANDS:
        importlib.import_module(f"vibe_vault.commands.{COMMANDS[name]}").add_parser(sub)
    # `vv search -- -flag`: after `--`, a word starting with `-` is a word to
    # look for (kept apart here: argparse mixes what follows `--` with extras).
    literal: list[str] = []
    if "--" in argv and first == "search":
        cut = argv.index("--")
        argv, literal = argv[:cut], argv[cut + 1:]
    ns, extra = parser.parse_known_args(argv)
    ns.literal = literal
    # `vv search fix -flaky`: a word to leave out looks like an option.
    if extra and getattr(ns, "negations", False) and all(
            a.startswith("-") and not a.startswith("--") for a in extra):
        ns.query = [*ns.query, *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(ns, "func", None):
        parser.print_help()
        return 2
    return ns


def _execute(ns: Any) -> int:
    """The parsed command: its arguments checked, the config loaded, run."""
    undecodable = _undecodable(ns)
    if undecodable:
        print(f"vv: {undecodable} is not valid UTF-8 text", file=sys.stderr)
        return 2
    # Words to look for may come with line breaks (`vv search "$(pbpaste)"`):
    # spaces, as between words. Anything else with a control character is
    # refused here, before a message could echo it to the terminal.
    for name in ("query", "literal"):
        if isinstance(getattr(ns, name, None), list):
            setattr(ns, name, [" ".join(w.split()) for w in getattr(ns, name)])
    unprintable = _argument_where(ns, _has_control)
    if unprintable:
        print(f"vv: {unprintable} holds a control character", file=sys.stderr)
        return 2
    from vibe_vault import config

    cfg = config.load(ns.vault)
    from vibe_vault.times import set_zone

    set_zone(cfg.get("timezone"))  # every time a person reads is told in it
    for problem in cfg.problems:
        print(f"vv: {problem}", file=sys.stderr)
    if cfg.blocking and ns.command in WRITES_NOTES:
        return 2
    try:
        return _run(ns, cfg)
    except KeyboardInterrupt:
        print("vv: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `vv stats | head`: the reader left; not an error worth a message.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(f"vv: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except MemoryError:  # (the database was checked and is sound: the machine ran out)
        print("vv: out of memory (the database's checks find it sound; should this "
              "repeat, vv search --reindex builds its search index again)", file=sys.stderr)
        return 1


def _undecodable(ns: object) -> str | None:
    """The name of an argument that is not valid UTF-8 (Python keeps such bytes
    as lone surrogates, which no lookup, database or output can take), or
    None. A path too: the database keeps paths as text, so a transcript
    folder whose name is not UTF-8 cannot be recorded (vv finds such files
    itself when it walks the projects folder; named, it says so)."""
    return _argument_where(ns, lambda text: not _encodes(text))


def _argument_where(ns: object, bad: Callable[[str], bool]) -> str | None:
    """The name of the first argument whose text is `bad`, as usage names it."""
    for name, value in vars(ns).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, os.PathLike):
                item = os.fspath(item)
            if isinstance(item, str) and bad(item):
                if name == "literal":
                    return "QUERY"
                return name.upper() if name in ("query", "sessions", "session", "path", "paths") \
                    else "--" + name.replace("_", "-")
    return None


def _has_control(text: str) -> bool:
    """A C0 or C1 control character (a tab aside): no name, id or word holds one."""
    return any((c < " " and c != "\t") or "\x7f" <= c <= "\x9f" for c in text)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _as_database_error(exc: Exception, cfg: Any, sqlite3: Any) -> Any:
    """The SQLite error `exc` is, or stands for; None for any other error. Text
    that a damaged page garbled fails to decode in Python, not in SQLite: such
    an error counts as damage when the database's own check finds it damaged."""
    if isinstance(exc, sqlite3.Error):
        return exc
    if not isinstance(exc, (UnicodeDecodeError, MemoryError)):
        return None
    from vibe_vault import vaultdb

    try:
        verdict = vaultdb.health(cfg.state_dir)[0]
        if verdict == "ok" and isinstance(exc, MemoryError):
            # (SQLite's out of memory, of a length read from a garbled search block)
            verdict = vaultdb.search_check(cfg.state_dir)
    except sqlite3.Error as err:
        verdict = str(err)
    except MemoryError:  # (the check read a garbled length too)
        verdict = "out of memory checking it"
    if verdict == "ok":
        return None
    what = (f"text that cannot be read: {exc.reason}" if isinstance(exc, UnicodeDecodeError)
            else "out of memory reading it")
    return sqlite3.DatabaseError(f"database disk image is malformed ({what}; "
                                 f"check: {verdict[:120]})")


def _run(ns: Any, cfg: Any) -> int:
    """The command; when the database turns out damaged (an SQLite error at
    opening or at any query), it is checked, deleted and built again from the
    states, with one line saying so, and the command runs once more. Any
    other database error is one line, never a traceback."""
    from vibe_vault import log

    log.IN_COMMAND = True  # (a hook never comes here: it says nothing on stderr)
    try:
        return int(ns.func(ns, cfg))
    except Exception as exc:
        sqlite3 = sys.modules.get("sqlite3")  # (not imported by vv when nothing used it)
        if sqlite3 is None:
            raise
        first = _as_database_error(exc, cfg, sqlite3)
        if first is None:
            raise
    from vibe_vault import vaultdb
    from vibe_vault.log import warn

    kind = vaultdb.trouble(first)
    if kind == "damaged":
        vaultdb.rebuilt(cfg.state_dir, first)
        try:
            return int(ns.func(ns, cfg))
        except Exception as exc:
            again = _as_database_error(exc, cfg, sqlite3)
            if again is None:
                raise
            first, kind = again, vaultdb.trouble(again)
    path = vaultdb.path_of(cfg.state_dir)
    if kind == "busy":
        warn(None, f"the database {path} is busy (another vv is writing it); try again")
    elif kind == "readonly":
        warn(None, f"cannot write the database {path}: it or its folder is read-only (make "
             "it writable, or delete it: it is rebuilt from the saved states)")
    else:
        warn(None, f"database error ({first}) in {path}")
    return 1

