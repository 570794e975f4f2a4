"""`vv stats`: sessions, time, tokens and cost by project, model and period."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable
from typing import Any

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter, count_between
from vibe_vault.times import period, typed_epoch, utc_iso_of_epoch


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "stats", help="sessions, active time, tokens and cost by project, model and period",
        description="Totals from the session registry (filled by vv backfill and SessionEnd).",
        epilog="examples:\n  vv stats\n  vv stats --since 2026-11-01 --by week\n"
        "  vv stats --project myapp --json\n  vv stats --csv > sessions.csv",
        formatter_class=Formatter,
    )
    p.add_argument("--since", metavar="DATE", help="only sessions started on or after DATE")
    p.add_argument("--project", metavar="NAME", help="only this project")
    p.add_argument("--by", choices=("week", "month"), default="month", help="period (month)")
    p.add_argument("--top", type=count_between(0, 100_000), default=10,
                   help="how many top files (10)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="machine-readable totals")
    out.add_argument("--csv", action="store_true", help="one CSV row per session")
    p.set_defaults(func=run)


def _period(started: str, by: str) -> str:
    return period(started, by)  # the week or month where the user is


def compute(records: Iterable[Any], by: str, top: int) -> dict[str, Any]:
    from vibe_vault.records import total_tokens

    def bucket() -> dict[str, Any]:
        return {"sessions": 0, "active_hours": 0.0, "tokens": 0, "cost_usd": 0.0}

    total = bucket()
    total["input_tokens"] = total["output_tokens"] = 0
    total["cache_read_tokens"] = total["cache_creation_tokens"] = 0
    projects: dict[str, dict[str, Any]] = {}
    periods: dict[str, dict[str, Any]] = {}
    models: dict[str, dict[str, Any]] = {}
    files: dict[str, int] = {}
    for r in records:
        for b in (total, projects.setdefault(r.project, bucket()),
                  periods.setdefault(_period(r.started, by), bucket())):
            b["sessions"] += 1
            b["active_hours"] += r.active_minutes / 60
            b["tokens"] += total_tokens(r)
            b["cost_usd"] += r.cost_usd
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"):
            total[k] += getattr(r, k)
        for model, t in r.tokens_by_model.items():
            m = models.setdefault(model, {"tokens": 0, "cost_usd": 0.0, "priced": True})
            m["tokens"] += sum(t)
            if model in r.cost_by_model:
                m["cost_usd"] += r.cost_by_model[model]
            elif sum(t):
                m["priced"] = False
        for f in r.files_changed:
            files[f] = files.get(f, 0) + 1
    for b in [total, *projects.values(), *periods.values(), *models.values()]:
        if "active_hours" in b:
            b["active_hours"] = round(b["active_hours"], 2)
        b["cost_usd"] = round(b["cost_usd"], 4)
    top_files = sorted(files.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {
        "total": total,
        "by_project": dict(sorted(projects.items(), key=lambda kv: -kv[1]["cost_usd"])),
        "by_model": dict(sorted(models.items(), key=lambda kv: -kv[1]["tokens"])),
        f"by_{by}": dict(sorted(periods.items())),
        "top_files": [{"path": p, "sessions": n} for p, n in top_files],
    }


def _table(title: str, rows: list[list[str]], header: list[str]) -> None:
    print(title)
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=False)]
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                     for i, (h, w) in enumerate(zip(header, widths, strict=False)))
    print("  " + line)
    for row in rows:
        print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths, strict=False))))
    print()


def _human(n: float) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f}B"
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e3:
        return f"{n / 1e3:.0f}k"
    return str(int(n))


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import registry

    where, params = "has_note", []
    if args.since:
        try:
            # from the start of that day where the user is, as the UTC stamps say it
            since = utc_iso_of_epoch(typed_epoch(args.since))
        except ValueError:
            print(f"vv: --since takes a date like 2026-11-01, not {args.since!r}",
                  file=sys.stderr)
            return 2
        where += " AND started >= ?"
        params.append(since)
    if args.project:
        where += " AND project = ?"
        params.append(args.project)
    with registry.opened(cfg) as conn:
        # One record at a time, and only the fields a report needs: memory and
        # time stay in proportion to what is printed, not to the history.
        recs = registry.summaries_where(conn, where + " ORDER BY started, session_id", params)
        if args.csv:
            w = csv.writer(sys.stdout)
            cols = ["session_id", "project", "started", "ended", "status", "title",
                    "duration_minutes", "active_minutes", "input_tokens", "output_tokens",
                    "cache_read_tokens", "cache_creation_tokens", "cost_usd", "tool_calls",
                    "prompts", "note"]
            w.writerow(cols)
            for r in recs:
                w.writerow([getattr(r, c) for c in cols])
            return 0
        stats = compute(recs, args.by, args.top)
    if args.json:
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        return 0
    if not stats["total"]["sessions"]:
        print("No sessions yet: run `vv backfill` (or let the hooks run).")
        return 0
    t = stats["total"]
    print(f"{t['sessions']} sessions · {t['active_hours']:.1f} active hours · "
          f"{_human(t['tokens'])} tokens · ${t['cost_usd']:,.2f}\n")
    _table("By project", [[p, str(b["sessions"]), f"{b['active_hours']:.1f}", _human(b["tokens"]),
                          f"${b['cost_usd']:,.2f}"] for p, b in stats["by_project"].items()],
           ["project", "sessions", "hours", "tokens", "cost"])
    _table("By model", [[m, _human(b["tokens"]),
                        f"${b['cost_usd']:,.2f}" + ("" if b["priced"] else " (unpriced)")]
                       for m, b in stats["by_model"].items()], ["model", "tokens", "cost"])
    key = f"by_{args.by}"
    _table(f"By {args.by}", [[p, str(b["sessions"]), f"{b['active_hours']:.1f}",
                              _human(b["tokens"]), f"${b['cost_usd']:,.2f}"]
                             for p, b in stats[key].items()],
           [args.by, "sessions", "hours", "tokens", "cost"])
    if stats["top_files"]:
        _table("Most changed files", [[f["path"], str(f["sessions"])]
                                      for f in stats["top_files"]], ["file", "sessions"])
    return 0
