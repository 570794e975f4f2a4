"""`vv hook` as seen by argparse: the handler's help, and `install` / `uninstall`.

The handler itself (`vv hook` with no further words) never goes through
argparse: `cli.main` sends it straight to `hook.py`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "hook",
        help="handle a Claude Code hook event, or install/uninstall the hooks",
        description="With no subcommand: read one Claude Code hook event as JSON on stdin "
        "and update that session's note. Always exits 0 and prints nothing on stdout.",
        epilog="examples:\n"
        "  vv hook install                  # register in ~/.claude/settings.json\n"
        "  vv hook install --scope project --dry-run\n"
        "  vv hook uninstall\n"
        "  echo '{\"hook_event_name\":\"Stop\",\"session_id\":\"…\",\"transcript_path\":\"…\"}'"
        " | vv hook",
        formatter_class=Formatter,
    )
    p.set_defaults(func=run_handler)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    for name, helptext in (("install", "add vibe-vault's hooks to a settings file"),
                           ("uninstall", "remove vibe-vault's hooks from a settings file")):
        a = actions.add_parser(
            name, help=helptext, description=helptext.capitalize() + ". Other settings and "
            "hooks are kept, the file's key order too; a backup is written first "
            "(<file>.vv-backup).",
            epilog=f"examples:\n  vv hook {name}\n  vv hook {name} --scope local --dry-run",
            formatter_class=Formatter,
        )
        a.add_argument("--scope", choices=("user", "project", "local"), default="user",
                       help="user: ~/.claude/settings.json (default); project: "
                       ".claude/settings.json; local: .claude/settings.local.json")
        a.add_argument("--project-dir", type=Path, default=Path.cwd(),
                       help="the project for --scope project/local (default: here)")
        a.add_argument("--dry-run", action="store_true", help="print the change as a diff")
        a.set_defaults(func=run_install if name == "install" else run_uninstall)


def run_handler(args: argparse.Namespace, cfg: Config) -> int:
    del args, cfg
    from vibe_vault.commands import hook

    return hook.run()


def _change(args: argparse.Namespace, install: bool) -> int:
    from vibe_vault import install as inst

    path = inst.settings_path(args.scope, args.project_dir)
    skill = inst.skill_path(args.scope, args.project_dir)
    if not args.dry_run:
        try:
            changed = inst.place_skill(skill) if install else inst.remove_skill(skill)
        except OSError as exc:
            print(f"vv: {skill}: {exc.strerror or exc}", file=sys.stderr)
        else:
            if changed:
                print(f"recall skill {'written to' if install else 'removed from'} {skill}")
    try:
        data = inst.load(path)
        from vibe_vault.regular import read_text

        old_text = read_text(path) if path.exists() else None
        new = (inst.with_hooks(data, inst.vv_command(), inst.events_for(inst.client_version()))
               if install else inst.without_hooks(data))
        if new == data and old_text is not None:
            print(f"{path}: already {'installed' if install else 'clean'}; nothing to do")
            return 0
        if not install and old_text is None:
            print(f"{path}: does not exist; nothing to do")
            return 0
        if args.dry_run:
            sys.stdout.write(inst.diff(path, old_text or "", inst.dumps(new)))
            return 0
        backup = inst.write(path, old_text, new)
    except inst.SettingsError as exc:
        print(f"vv: {exc}", file=sys.stderr)
        return 1
    verb = "installed in" if install else "removed from"
    print(f"vibe-vault hooks {verb} {path}" + (f" (backup: {backup})" if backup else ""))
    if install:
        print("Restart running Claude Code sessions to be sure they pick the hooks up. "
              "Do not also install the plugin: hooks registered twice run twice.")
    return 0


def run_install(args: argparse.Namespace, cfg: Config) -> int:
    del cfg
    return _change(args, True)


def run_uninstall(args: argparse.Namespace, cfg: Config) -> int:
    del cfg
    return _change(args, False)
