"""`vv backfill [PATH ...]`: its arguments, its progress bar and its summary;
the work is vibe_vault.backfill's."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter, count_between
from vibe_vault.times import typed_epoch


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "backfill",
        help="write notes for every past session",
        description="Write or update a note for every session under the given paths "
        "(default: Claude Code's transcripts directory). Sessions whose files have not "
        "changed since the last run are skipped without being opened. Safe to run while "
        "Claude Code is running: it shares the hooks' per-session locks.",
        epilog="examples:\n"
        "  vv backfill                          # everything under ~/.claude/projects\n"
        "  vv backfill --since 2026-11-01       # sessions active since that day\n"
        "  vv backfill --project myapp --force  # re-read one project from byte 0\n"
        "  vv backfill --archive                # check every session's archive copy too\n"
        "  vv backfill --json | jq .written",
        formatter_class=Formatter,
    )
    p.add_argument("paths", nargs="*", type=Path, help="transcript files or directories")
    p.add_argument("--force", action="store_true", help="re-read every transcript from byte 0")
    p.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")
    p.add_argument("--since", metavar="DATE", help="only sessions active on or after DATE "
                   "(YYYY-MM-DD)")
    p.add_argument("--project", metavar="NAME", help="only sessions of this project")
    p.add_argument("--jobs", "-j", type=count_between(0, 1024), default=0,
                   help="parallel workers (default: the number of cores)")
    p.add_argument("--archive", action="store_true",
                   help="check every session's archive copy, unchanged ones too (the new "
                   "bytes of the sessions it reads are archived anyway, unless the config "
                   "says archive = false)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")
    p.set_defaults(func=run)


def _parse_day(text: str) -> float:
    try:
        return typed_epoch(text)  # a bare date: the start of that day where the user is
    except ValueError:
        raise SystemExit(f"vv: --since takes a date like 2026-11-01, not {text!r}") from None


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal; and
    the lines a run has for the user."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty() and not os.environ.get("VV_NO_PROGRESS")
        self.total_s, self.total_b = 0, 1
        self.done_s = self.done_b = 0
        self.t0 = time.monotonic()
        self.last = 0.0

    def say(self, text: str) -> None:
        print(text, file=sys.stderr)

    def start(self, sessions: int, nbytes: int) -> None:
        self.total_s, self.total_b = sessions, max(nbytes, 1)
        self.t0 = time.monotonic()

    def step(self, nbytes: int) -> None:
        self.done_s += 1
        self.done_b += nbytes
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.1 and self.done_s < self.total_s:
            return
        self.last = now
        elapsed = max(now - self.t0, 1e-6)
        rate = self.done_b / elapsed
        eta = (self.total_b - self.done_b) / rate if rate else 0
        frac = self.done_b / self.total_b
        bar = "#" * int(frac * 24)
        sys.stderr.write(
            f"\r[{bar:<24}] {self.done_s}/{self.total_s} sessions · "
            f"{self.done_b / 1e6:.1f}/{self.total_b / 1e6:.1f} MB · {rate / 1e6:.0f} MB/s · "
            f"ETA {int(eta) // 60}:{int(eta) % 60:02d} "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.total_s:
            sys.stderr.write("\n")

    def phase(self, text: str) -> None:
        if self.enabled:  # (the bar is full: what the run does next, not a silent wait)
            sys.stderr.write(f"{text}…\n")


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault.backfill import Request, backfill
    from vibe_vault.discover import transcript_roots

    roots = transcript_roots(args.paths, cfg.projects_root)
    if roots is None:
        return 2
    request = Request(
        force=args.force, dry_run=args.dry_run,
        since=_parse_day(args.since) if args.since else None, project=args.project,
        workers=args.jobs, archive=args.archive, prune=not args.paths, quiet=args.json)
    done = backfill(cfg, roots, request, Progress())
    summary = done.summary
    if args.dry_run:
        for job in done.planned:
            print(f"would process {job.session_id}  {job.transcript}")
        print(f"{len(done.planned)} sessions to process, {summary.unchanged} unchanged, "
              f"{summary.filtered} filtered out")
        return 0
    if args.json:
        import msgspec

        sys.stdout.write(msgspec.json.encode(summary).decode() + "\n")
    else:
        print(
            f"{summary.sessions} sessions: {summary.written} notes written, "
            f"{summary.unchanged} unchanged, {summary.without_note} without a note "
            f"(nothing asked), {summary.failed} failed"
            + (f", {summary.filtered} filtered out" if summary.filtered else "")
            + f"; {summary.bytes / 1e6:.1f} MB in {summary.seconds:.2f}s"
        )
    return 1 if summary.failed else 0
