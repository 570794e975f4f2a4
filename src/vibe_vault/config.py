"""Where things live and what the user configured.

Vault: `--vault`, else `VV_VAULT`, else the config file's `vault_path`, else
`~/vibe-vault`. State: `VV_STATE_DIR`, else `$XDG_STATE_HOME/vibe-vault`.
Config file: `VV_CONFIG`, else `$XDG_CONFIG_HOME/vibe-vault/config.toml`.
Transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
The config file is only read (and tomllib only imported) when it exists.
"""

from __future__ import annotations

import os

from vibe_vault import locations
from vibe_vault.times import known_zone

TYPE_CHECKING = False  # typing costs `vv search` 3 ms to import
if TYPE_CHECKING:
    from typing import Any

# key -> (type, default, help); the single list of settings the file may hold.
SETTINGS: dict[str, tuple[type, Any, str]] = {
    "vault_path": (str, "~/vibe-vault", "Directory notes are written to."),
    "lock_timeout": (float, 1.0, "Seconds a hook waits for a session lock before giving up."),
    "hook_deadline": (float, 3.0, "Seconds a hook may work before saving and exiting."),
    "session_end_deadline": (float, 1.2, "Seconds SessionEnd may work (Claude Code allows 1.5)."),
    "show_thinking": (bool, False, "Show (and keep) each turn's last thinking block in notes."),
    "idle_hours": (float, 1.0, "Hours without growth after which backfill marks a session ended."),
    "daily_notes": (bool, False, "Also write Daily/YYYY-MM-DD.md notes of each day's sessions."),
    "archive": (bool, True, "Keep a copy of every transcript at SessionEnd and in backfill, "
                "so a session Claude Code deletes can be restored (`vv restore`)."),
    "archive_dir": (str, "", "Where `vv archive` keeps raw transcripts (default "
                    "<state dir>/archive; keep it out of the vault)."),
    "redact_patterns": (dict, {}, "Extra secret patterns: kind = regex."),
    "exclude_projects": (list, [], "Globs of project names or session folders to keep no note, "
                         "state, archive or index entry of."),
    "redact_allow": (list, [], "Exact strings never redacted."),
    "pricing": (dict, {}, "Per-model price overrides (USD per million tokens)."),
    "inject_context": (bool, False, "At SessionStart, tell Claude what the project's last "
                       "session left open."),
    "timezone": (str, "", "Time zone notes tell times in (an IANA name such as "
                 "\"Europe/Berlin\", or \"UTC\"); default: the system's."),
}


class Config:
    """Paths are plain strings: pathlib costs the hook ~6 ms of imports. A
    plain class, not a Struct: `vv search` starts without importing msgspec."""

    __slots__ = (
        "blocking",
        "config_file",
        "problems",
        "projects_root",
        "sources",
        "state_dir",
        "values",
        "vault",
    )

    def __init__(self, vault: str, state_dir: str, projects_root: str, config_file: str,
                 sources: dict[str, str] | None = None, values: dict[str, Any] | None = None,
                 problems: list[str] | None = None, blocking: list[str] | None = None) -> None:
        self.vault = vault
        self.state_dir = state_dir
        self.projects_root = projects_root
        self.config_file = config_file
        self.sources = sources if sources is not None else {}
        self.values = values if values is not None else {}
        self.problems = problems if problems is not None else []
        # Problems that make writing notes unsafe (a redaction pattern that
        # cannot run): notes wait until the user fixes the config.
        self.blocking = blocking if blocking is not None else []

    def get(self, key: str) -> Any:
        return self.values.get(key, SETTINGS[key][1])


def config_path() -> str:
    env = os.environ.get("VV_CONFIG")
    if env:
        return locations.anchored(env, locations.home())
    base = locations.anchored(os.environ.get("XDG_CONFIG_HOME") or ".config", locations.home())
    return os.path.join(base, "vibe-vault", "config.toml")


def claude_dir() -> str:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return locations.anchored(env or ".claude", locations.home())


def _read_file(path: str, problems: list[str], blocking: list[str]) -> dict[str, Any]:
    from vibe_vault.regular import read_regular

    try:
        data = read_regular(path, 1 << 20)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        problems.append(f"cannot read config {path}: {exc.strerror}")
        return {}
    import tomllib

    try:
        raw = tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"config {path} does not parse: {exc}")
        return {}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        spec = SETTINGS.get(key)
        if spec is None:
            problems.append(f"config {path}: unknown key {key!r}")
            continue
        typ = spec[0]
        if typ is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, typ):
            problems.append(f"config {path}: {key} should be a {typ.__name__}")
            continue
        if key == "redact_patterns" and isinstance(value, dict):
            bad = _bad_patterns(value)
            if bad:
                problems.extend(f"config {path}: {b}" for b in bad)
                blocking.extend(f"config {path}: {b}" for b in bad)
                continue
        if key == "timezone" and value and not known_zone(value):
            problems.append(f"config {path}: timezone {value!r} is not a time zone this "
                            "system knows; times are told in the system's")
            continue
        values[key] = value
    return values


def _bad_patterns(patterns: dict[str, Any]) -> list[str]:
    """What is wrong with the user's redaction patterns, one line each."""
    from vibe_vault.redact import check_pattern

    bad = []
    for kind, pattern in patterns.items():
        if not isinstance(pattern, str):
            bad.append(f"redact_patterns.{kind} should be a string")
            continue
        why = check_pattern(pattern)
        if why:
            bad.append(f"redact_patterns.{kind} = {pattern!r}: {why}; notes are not "
                       "updated until it is fixed")
    return bad


def load(vault: str | None = None) -> Config:
    problems: list[str] = []
    blocking: list[str] = []
    cfile = config_path()
    values = _read_file(cfile, problems, blocking)
    sources = {k: f"config file {cfile}" for k in values}
    if vault:
        vault_s, sources["vault_path"] = vault, "--vault"
    elif os.environ.get("VV_VAULT"):
        vault_s, sources["vault_path"] = os.environ["VV_VAULT"], "VV_VAULT"
    elif "vault_path" in values:
        vault_s = values["vault_path"]
    else:
        vault_s, sources["vault_path"] = SETTINGS["vault_path"][1], "default"
    state, sources["state_dir"] = locations.state_dir()
    return Config(
        # --vault is relative to where you typed it; the rest to your home.
        vault=(os.path.abspath(os.path.expanduser(vault_s)) if vault
               else locations.anchored(vault_s, locations.home())),
        state_dir=state,
        projects_root=os.path.join(claude_dir(), "projects"),
        config_file=cfile,
        sources=sources,
        values=values,
        problems=problems,
        blocking=blocking,
    )
