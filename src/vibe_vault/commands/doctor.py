"""`vv doctor`: is everything in place? Each check passes, warns or fails, with a fix."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from msgspec import Struct

from vibe_vault import locations
from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter
from vibe_vault.regular import open_regular, read_fd, read_text
from vibe_vault.times import day_of_epoch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vibe_vault.redact import Redactor


class Check(Struct):
    name: str
    status: str  # pass, warn, fail
    detail: str
    fix: str = ""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "doctor", help="check the installation, configuration, hooks and vault",
        description="Check Python and packages, the config file, the vault and state "
        "directories, the transcripts, the hook registration, the last hook runs, and "
        "transcript format drift. Exits 1 when a check fails.",
        epilog="examples:\n  vv doctor\n  vv doctor --json",
        formatter_class=Formatter,
    )
    p.add_argument("--json", action="store_true", help="machine-readable results")
    p.add_argument("--project-dir", type=Path, default=Path.cwd(),
                   help="project whose .claude/settings*.json to check (default: here)")
    p.set_defaults(func=run)


def _versions() -> Check:
    from importlib import metadata

    parts = [f"Python {sys.version.split()[0]}"]
    missing = []
    for dist in ("vibe-vault", "msgspec", "filelock"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            missing.append(dist)
    if missing:
        return Check("packages", "fail", f"not installed: {', '.join(missing)}",
                     "pip install vibe-vault (or pipx install .)")
    return Check("python and packages", "pass", ", ".join(parts))


def _config(cfg: Config) -> Check:
    if not Path(cfg.config_file).exists():
        return Check("config", "pass", f"no config file ({cfg.config_file}); defaults in effect")
    if cfg.problems:
        bad = any("does not parse" in p or "cannot read" in p for p in cfg.problems)
        return Check("config", "fail" if bad else "warn", "; ".join(cfg.problems),
                     f"edit {Path(cfg.config_file)} (vv config show lists the known keys)")
    return Check("config", "pass", f"{Path(cfg.config_file)} parses")


def _writable_dir(name: str, path: Path, create_hint: str) -> Check:
    if not path.exists():
        return Check(name, "warn", f"{path} does not exist yet", create_hint)
    if not path.is_dir():
        return Check(name, "fail", f"{path} is not a directory", f"move it away, or set {name}")
    probe = path / f".vv-doctor-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return Check(name, "fail", f"{path} is not writable ({exc.strerror})",
                     f"fix the permissions of {path}")
    return Check(name, "pass", f"{path} is writable")


def _state(cfg: Config) -> Check:
    c = _writable_dir("state directory", Path(cfg.state_dir),
                      "created by the first hook or backfill")
    if c.status == "pass":
        mode = Path(cfg.state_dir).stat().st_mode & 0o777
        if mode & 0o077:
            return Check("state directory", "warn", f"{Path(cfg.state_dir)} is readable by others "
                         f"({oct(mode)})", f"chmod 700 {Path(cfg.state_dir)}")
    return c


def _archive(cfg: Config) -> Check:
    from vibe_vault.archive import archive_root, old_vault_archive
    from vibe_vault.paths import inside

    root = archive_root(cfg)
    if inside(cfg.vault, root):
        return Check("archive", "warn", f"{root} is inside the vault: it holds raw transcripts, "
                     "secrets included, and travels wherever the vault syncs",
                     "set archive_dir outside the vault, or leave it unset (the state "
                     "directory), and move the folder there")
    if old_vault_archive(cfg).is_dir():
        return Check("archive", "warn", f"an old archive is still in the vault at "
                     f"{old_vault_archive(cfg)}", f"run vv archive once: it moves it to {root}")
    if not root.exists():
        return Check("archive", "pass", f"{root} (none yet: vv archive or backfill --archive)")
    return Check("archive", "pass", f"{root}, outside the vault")


# Days before Claude Code's cleanup deletes a session that doctor warns about.
RETENTION_MARGIN_DAYS = 3


def cleanup_period(project_dir: Path) -> tuple[int, str]:
    """Claude Code's `cleanupPeriodDays` and the settings file it came from
    (the shortest of the user's and this project's: whichever deletes first),
    else the default 30."""
    from vibe_vault import install

    days, where = 30, "Claude Code's default"
    for scope in ("user", "project", "local"):
        path = install.settings_path(scope, project_dir)
        try:
            value = install.load(path).get("cleanupPeriodDays")
        except (install.SettingsError, AttributeError):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 and (
                where.startswith("Claude") or value < days):
            days, where = int(value), str(path)
    return days, where


def _retention(cfg: Config, project_dir: Path) -> Check:
    """Are sessions archived before Claude Code deletes them?"""
    import time

    from vibe_vault import archive

    days, where = cleanup_period(project_dir)
    root = Path(cfg.projects_root)
    # session id -> its transcript and when it was last written (the cleanup goes by that)
    mains: dict[str, float] = {}
    paths: dict[str, Path] = {}
    for p in root.glob("*/*.jsonl"):
        if locations.is_agent_file(p.name):
            continue
        try:
            mains[p.stem], paths[p.stem] = p.stat().st_mtime, p
        except OSError:
            continue
    archived = set(archive.archived_sessions(cfg))
    only_archived = len(archived - set(mains))
    setting = f"cleanupPeriodDays = {days} ({where})"
    if days == 0:
        return Check("retention", "warn", f"{setting}: Claude Code versions before 2.1.89 keep "
                     "no transcript at all with it, later ones refuse it",
                     f"set cleanupPeriodDays to the days you want to keep, in {where}")
    now = time.time()
    restore = (f"; {only_archived} sessions exist only in the archive (vv restore)"
               if only_archived else "")
    if not mains:
        return Check("retention", "pass", f"{setting}; no transcripts yet{restore}")
    oldest = min(mains.values())
    first_deletion = day_of_epoch(oldest + days * 86400)
    if not cfg.get("archive"):
        return Check("retention", "warn", f"{setting} and archiving is off (archive = false): "
                     f"{len(mains)} sessions are deleted for good from {first_deletion} on, "
                     f"nothing can restore them{restore}",
                     "remove archive = false from the config (then vv archive), or raise "
                     "cleanupPeriodDays")
    soon = now - (days - RETENTION_MARGIN_DAYS) * 86400
    at_risk = sorted((t, sid) for sid, t in mains.items() if t < soon)
    unarchived = [(t, sid) for t, sid in at_risk
                  if sid not in archived or archive.pending_bytes(
                      cfg, sid, archive.session_files(paths[sid])) > 0]
    if unarchived:
        t, _ = unarchived[0]
        when = day_of_epoch(t + days * 86400)
        return Check("retention", "warn", f"{setting}: {len(unarchived)} sessions not (wholly) "
                     f"archived are deleted within {RETENTION_MARGIN_DAYS} days, the first on "
                     f"{when}{restore}", "run vv archive now")
    return Check("retention", "pass", f"{setting}: every session due for deletion within "
                 f"{RETENTION_MARGIN_DAYS} days is archived{restore}")


def _transcripts(cfg: Config) -> Check:
    root = Path(cfg.projects_root)
    if not root.is_dir():
        return Check("transcripts", "warn", f"{root} not found",
                     "set CLAUDE_CONFIG_DIR if Claude Code keeps its data elsewhere")
    n = sum(1 for p in root.glob("*/*.jsonl") if not locations.is_agent_file(p.name))
    return Check("transcripts", "pass", f"{n} sessions under {root}")


def _hooks(cfg: Config, project_dir: Path) -> list[Check]:
    from vibe_vault import install

    checks: list[Check] = []
    places: list[tuple[str, dict[str, list[str]]]] = []
    for scope in ("user", "project", "local"):
        path = install.settings_path(scope, project_dir)
        try:
            data = install.load(path)
        except install.SettingsError as exc:
            checks.append(Check(f"hooks ({scope})", "fail", str(exc), f"fix {path}"))
            continue
        found = install.registrations(data)
        if found:
            places.append((str(path), found))
    plugin = _plugin_installed()
    if not places and not plugin:
        checks.append(Check("hooks", "fail", "vibe-vault's hooks are not registered",
                            "vv hook install (or install the plugin)"))
        return checks
    version = install.client_version(cfg.projects_root)
    wanted = install.events_for(version)
    lacks = install.unknown_to(version) if version is not None else []
    if version is not None:
        checks.append(Check("claude code", "pass", f"version {'.'.join(map(str, version))}"
                            + (f"; it does not know {', '.join(lacks)}" if lacks else
                               "; it knows every event vibe-vault uses")))
    for where, found in places:
        missing = [e for e in wanted if e not in found]
        twice = [e for e, cmds in found.items() if len(cmds) > 1]
        commands = {c for cmds in found.values() for c in cmds}
        gone = [c for c in commands if not _command_exists(c)]
        if gone:
            checks.append(Check("hooks", "fail", f"{where}: command not found: {gone[0]}",
                                "vv hook uninstall && vv hook install"))
        elif twice:
            checks.append(Check("hooks", "warn", f"{where}: registered twice for "
                                f"{', '.join(twice)}", "vv hook uninstall && vv hook install"))
        elif missing:
            checks.append(Check("hooks", "warn", f"{where}: not on {', '.join(missing)}",
                                "vv hook install"))
        elif version is not None and (spare := [e for e in found if e in install.UNTIL
                                                and e not in wanted]):
            checks.append(Check("hooks", "warn", f"{where}: on {', '.join(spare)}, which this "
                                "Claude Code does not need (tool timings come with "
                                "PostToolUse): one more process on every tool call",
                                "vv hook install"))
        else:
            checks.append(Check("hooks", "pass", f"{where}: all {len(found)} events"))
    if len(places) + bool(plugin) > 1:
        all_places = [p for p, _ in places] + (["the plugin"] if plugin else [])
        checks.append(Check("hooks", "warn", "registered in several places: "
                            + ", ".join(all_places)
                            + " (each runs, so every event is handled twice)",
                            "keep one: vv hook uninstall --scope …, or remove the plugin"))
    elif plugin and not places:
        checks.append(Check("hooks", "pass", "registered by the vibe-vault plugin"))
    return checks


def _plugin_installed() -> bool:
    from vibe_vault.config import claude_dir

    try:
        text = read_text(Path(claude_dir()) / "plugins" / "installed_plugins.json", 16 << 20)
    except OSError:
        return False
    return "vibe-vault" in text


def _command_exists(command: str) -> bool:
    import shlex
    import shutil

    try:
        exe = shlex.split(command)[0]
    except (ValueError, IndexError):
        return False
    return os.path.exists(exe) if os.sep in exe else shutil.which(exe) is not None


def _log(cfg: Config) -> Check:
    state = Path(cfg.state_dir)
    try:
        stamp, event, sid = read_text(locations.last_run(state), 4096).split(maxsplit=2)
        sid = sid.strip()
        which = "a session of an excluded project" if sid == "-" else f"session {sid[:12]}"
        last = f"last hook run {stamp} ({event}, {which})"
    except (OSError, ValueError):
        last = "no hook has run yet"
    path = Path(locations.log_file(state))
    try:
        lines = read_text(path, 4 << 20).splitlines()[-500:]
    except OSError:
        lines = []
    warns = [x for x in lines if " WARN " in x]
    if warns:
        return Check("last runs", "warn", f"{last}; last problem: {warns[-1][:200]}",
                     f"see {path}")
    return Check("last runs", "pass", f"{last}; no problem logged")


def _unknown_fields(root: Path, files: int = 20, tail: int = 1 << 20) -> dict[str, int]:
    """Top-level fields the parser does not know, by Claude Code version, in the
    last megabyte of the most recently changed transcripts."""
    import msgspec

    from vibe_vault.entries import known_fields, private_type

    known = known_fields()
    try:
        paths = sorted(root.glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)[-files:]
    except OSError:
        return {}
    counts: dict[str, int] = {}
    for p in paths:
        try:
            fd, st = open_regular(p)
            try:
                data = read_fd(fd, tail, max(0, st.st_size - tail))
            finally:
                os.close(fd)
        except OSError:
            continue
        for line in data.split(b"\n")[1:]:
            if private_type(line) is not None:
                continue  # known, large and private: never decoded
            try:
                obj = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            for key in obj.keys() - known:
                label = f"field {key}@{obj.get('version') or '?'}"
                counts[label] = counts.get(label, 0) + 1
    return counts


def shown(text: str, redactor: Redactor) -> str:
    """A name read from a transcript (an unknown field, a version), as a line
    of the report may show it: one line, no control character or escape
    sequence, through the redaction gate, then cut."""
    import re

    from vibe_vault import text as tx

    # An escape sequence goes whole (a space in its place), so neither its
    # letters nor a token glued to them survive as text.
    # It is gated before and after that (`Redactor.redact_escaped`): a
    # dropped bidi control leaves a token glued to the letters around it.
    def escape(text: str) -> str:
        return " ".join(tx.terminal_safe(re.sub(_ESCAPES, " ", text)).split())

    return tx.trim(redactor.redact_escaped(tx.cut(text, 2000), escape)[0], 80)


# CSI (ESC [ or the C1 byte), OSC (ESC ] … BEL or ST), and any other ESC pair.
_ESCAPES = (r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*"
            r"(?:\x07|\x1b\\|\x9c)?|\x1b[@-_]?")


def _drift(cfg: Config) -> Check:
    import sqlite3

    from vibe_vault import registry, vaultdb

    counts = _unknown_fields(Path(cfg.projects_root))
    known = 0
    # Read only: doctor makes no database, builds no registry, and mends no
    # damage (opening it to write rebuilt a damaged one, so the database
    # check after this one found it healthy: test_db_faults).
    if os.path.exists(vaultdb.path_of(cfg.state_dir)):
        try:
            conn = vaultdb.read_only(cfg.state_dir)
        except (sqlite3.Error, OSError):
            conn = None
        if conn is not None:
            try:
                if vaultdb.meta(conn, "registry") == "ready":
                    for kind, n in registry.unknown_counts(conn).items():
                        counts[kind] = counts.get(kind, 0) + n
                    known = registry.count(conn)
            except sqlite3.Error:
                pass  # damaged or busy: the database check says which
            finally:
                conn.close()
    if not counts:
        return Check("format drift", "pass", f"no unknown entry types in {known} "
                     "known sessions, no unknown fields in recent transcripts")
    from vibe_vault.session import redactor_for

    redactor = redactor_for(cfg)
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    return Check("format drift", "warn", "entry types and fields this version does not know: "
                 + ", ".join(f"{shown(k, redactor)} ×{n}" for k, n in top),
                 "upgrade vibe-vault; these lines are counted and skipped")


def _database(cfg: Config) -> Check:
    """The database's health (PRAGMA quick_check), size and dead text rows,
    read only: doctor neither makes nor mends it."""
    import sqlite3

    from vibe_vault import vaultdb

    path = vaultdb.path_of(cfg.state_dir)
    if not os.path.exists(path):
        return Check("database", "pass", f"{path} not made yet (the first backfill or search "
                     "builds it)")
    rebuild = "any vv command that reads it (vv stats) rebuilds it from the saved states"
    try:
        verdict, size, sessions, dead = vaultdb.health(cfg.state_dir)
    except sqlite3.Error as exc:
        if vaultdb.trouble(exc) == "busy":
            return Check("database", "warn", f"{path} is busy (another vv is writing it)",
                         "run vv doctor again in a moment")
        return Check("database", "fail", f"{path} cannot be read ({exc})", rebuild)
    mib = size / (1 << 20)
    detail = f"{path}: {verdict}, {mib:.1f} MiB, {sessions} sessions, {dead} dead text rows"
    if verdict != "ok":
        return Check("database", "fail", detail, rebuild)
    if not os.access(path, os.W_OK):
        return Check("database", "fail", f"{detail}; read-only",
                     f"make {path} writable, or delete it (it is rebuilt from the states)")
    return Check("database", "pass", detail)


def _conflicts(cfg: Config) -> Check:
    """Conflict copies: versions of a note you saved while vibe-vault wrote it,
    kept whole beside it (their lines are merged into the note too)."""
    found: list[str] = []
    for folder, dirs, files in os.walk(cfg.vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.relpath(os.path.join(folder, f), cfg.vault) for f in files
                  if f.endswith(".md") and " (conflict " in f]
    if not found:
        return Check("conflict copies", "pass", "none")
    found.sort()
    shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
    return Check("conflict copies", "warn", f"{len(found)} in the vault: {shown}",
                 "compare each with its note, keep what you want, delete the copy")


def checks(cfg: Config, project_dir: Path) -> list[Check]:
    return [
        _versions(),
        _config(cfg),
        _writable_dir("vault", Path(cfg.vault), "created by the first note; or set vault_path"),
        _state(cfg),
        _archive(cfg),
        _transcripts(cfg),
        _retention(cfg, project_dir),
        *_hooks(cfg, project_dir),
        _log(cfg),
        _drift(cfg),
        _database(cfg),
        _conflicts(cfg),
    ]


def run(args: argparse.Namespace, cfg: Config) -> int:
    results = checks(cfg, args.project_dir)
    failed = any(c.status == "fail" for c in results)
    if args.json:
        sys.stdout.write(json.dumps({"ok": not failed, "checks": [
            {"name": c.name, "status": c.status, "detail": c.detail, "fix": c.fix}
            for c in results]}, indent=2) + "\n")
        return 1 if failed else 0
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    marks: dict[str, tuple[str, str]] = {"pass": ("✓", "32"), "warn": ("!", "33"),
                                         "fail": ("✗", "31")}
    for c in results:
        mark, code = marks[c.status]
        head = f"\033[{code}m{mark}\033[0m" if color else mark
        print(f"{head} {c.name}: {c.detail}")
        if c.fix and c.status != "pass":
            print(f"    fix: {c.fix}")
    return 1 if failed else 0

