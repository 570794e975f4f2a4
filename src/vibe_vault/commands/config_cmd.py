"""`vv config show` and `vv config init`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from vibe_vault.config import SETTINGS, Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "config", help="show the effective configuration, or write a default config file",
        description="Show every setting with the value in effect and where it came from, or "
        "write a commented default config file.",
        epilog="examples:\n  vv config show\n  vv config show --json\n  vv config init",
        formatter_class=Formatter,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", help="print the effective configuration")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=run_show)
    init = actions.add_parser("init", help="write a commented default config file")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.set_defaults(func=run_init)
    p.set_defaults(func=run_show, json=False)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


def effective(cfg: Config) -> list[tuple[str, Any, str]]:
    rows: list[tuple[str, Any, str]] = [
        ("vault_path", str(cfg.vault), cfg.sources.get("vault_path", "config file")),
        ("state_dir", str(cfg.state_dir), cfg.sources.get("state_dir", "default")),
        ("config_file", str(cfg.config_file),
         "VV_CONFIG" if "VV_CONFIG" in os.environ else "default"),
        ("transcripts", str(cfg.projects_root),
         "CLAUDE_CONFIG_DIR" if "CLAUDE_CONFIG_DIR" in os.environ else "default"),
    ]
    for key in SETTINGS:
        if key == "vault_path":
            continue
        rows.append((key, cfg.get(key), cfg.sources.get(key, "default")))
    return rows


def run_show(args: argparse.Namespace, cfg: Config) -> int:
    rows = effective(cfg)
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps({k: {"value": v, "source": s} for k, v, s in rows},
                                    indent=2) + "\n")
        return 0
    width = max(len(k) for k, _, _ in rows)
    for key, value, source in rows:
        print(f"{key:<{width}}  {_toml(value)}  ({source})")
    for problem in cfg.problems:
        print(f"problem: {problem}")
    return 1 if cfg.problems else 0


def default_text() -> str:
    lines = ["# vibe-vault configuration. Every key is optional; unknown keys are reported.",
             "# `vv config show` prints what is in effect and where each value comes from.", ""]
    for key, (_, default, help_text) in SETTINGS.items():
        lines.append(f"# {help_text}")
        if isinstance(default, dict):
            lines.append(f"# [{key}]")
            if key == "redact_patterns":
                lines.append('# internal-token = "itk_[A-Za-z0-9]{32}"')
            elif key == "pricing":
                lines.append('# "claude-opus-4-5" = { input = 5.0, output = 25.0, '
                             "cache_write_5m = 6.25, cache_write_1h = 10.0, cache_read = 0.5 }")
        else:
            lines.append(f"# {key} = {_toml(default)}")
        lines.append("")
    return "\n".join(lines)


def run_init(args: argparse.Namespace, cfg: Config) -> int:
    path = Path(cfg.config_file)
    if path.exists() and not args.force:
        print(f"vv: {path} exists; use --force to overwrite it", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    from vibe_vault.atomic import write_atomic

    # (renamed into place: a FIFO or a symlink at the path is replaced, not written into)
    write_atomic(path, default_text().encode("utf-8"))
    print(f"wrote {path}")
    return 0
