"""`vv stats`: sessions, time, tokens and cost by project, model and period."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable
from datetime import UTC
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
    """The report made from records one by one (the oracle the sums are checked against)."""
    from vibe_vault.records import total_tokens
    from vibe_vault.state import token_total

    def bucket() -> dict[str, Any]:
        return {"sessions": 0, "active_hours": 0.0, "tokens": 0, "cost_usd": 0.0,
                "under_recorded": 0, "unrecorded_output": 0}

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
            b["under_recorded"] += int(r.output_short > 0)
            b["unrecorded_output"] += r.output_unrecorded
            b["tokens"] += total_tokens(r)
            b["cost_usd"] += r.cost_usd
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"):
            total[k] += getattr(r, k)
        for model, t in r.tokens_by_model.items():
            m = models.setdefault(model, {"tokens": 0, "cost_usd": 0.0, "priced": True})
            m["tokens"] += token_total(*t)
            if model in r.cost_by_model:
                m["cost_usd"] += r.cost_by_model[model]
            elif token_total(*t):
                m["priced"] = False
        for f in dict.fromkeys(r.files_changed):
            files[f] = files.get(f, 0) + 1
    return _report(total, projects, periods, models, files, by, top)


def _report(total: dict[str, Any], projects: dict[str, dict[str, Any]],
            periods: dict[str, dict[str, Any]], models: dict[str, dict[str, Any]],
            files: dict[str, int], by: str, top: int) -> dict[str, Any]:
    for b in [total, *projects.values(), *periods.values(), *models.values()]:
        if "active_hours" in b:
            b["active_hours"] = round(b["active_hours"], 2)
        b["cost_usd"] = round(b["cost_usd"], 4)
    top_files = sorted(files.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {
        "total": total,
        # ties by name: the same order whatever order the sessions came in
        "by_project": dict(sorted(projects.items(), key=lambda kv: (-kv[1]["cost_usd"], kv[0]))),
        "by_model": dict(sorted(models.items(), key=lambda kv: (-kv[1]["tokens"], kv[0]))),
        f"by_{by}": dict(sorted(periods.items())),
        "top_files": [{"path": p, "sessions": n} for p, n in top_files],
    }


def from_sums(conn: Any, by: str, top: int, project: str | None = None,
              since: str = "") -> dict[str, Any]:
    """The report from the database's per-project sums by day: no record read,
    so its cost follows the days and projects, not the sessions."""
    from vibe_vault import aggregates

    def bucket(sums: Any) -> dict[str, Any]:
        return {"sessions": sums.sessions, "active_hours": sums.minutes / 60, "tokens": sums.tokens,
                "cost_usd": aggregates.usd(sums.cost), "under_recorded": 0,
                "unrecorded_output": 0}

    everything = aggregates.Sums()
    per_project: dict[str, Any] = {}
    per_period: dict[str, Any] = {}
    for p, day, s in aggregates.by_day(conn, project, since):
        row = (s.sessions, s.minutes, s.input, s.output, s.cache_read, s.cache_creation, s.cost)
        for sums in (everything, per_project.setdefault(p, aggregates.Sums()),
                     per_period.setdefault(period(day, by, UTC), aggregates.Sums())):
            sums.add(row)
    total = bucket(everything)
    total.update(input_tokens=everything.input, output_tokens=everything.output,
                 cache_read_tokens=everything.cache_read,
                 cache_creation_tokens=everything.cache_creation)
    models = {m: {"tokens": s.tokens, "cost_usd": aggregates.usd(s.cost),
                  "priced": not s.unpriced}
              for m, s in aggregates.by_model(conn, project, since).items()}
    files = dict(aggregates.top_files(conn, top, project, since))
    projects = {p: bucket(s) for p, s in per_project.items()}
    periods = {p: bucket(s) for p, s in per_period.items()}
    # Sessions whose output tokens the client under-recorded: their sums are lower bounds.
    for p, day, short in aggregates.short_by_day(conn, project, since):
        for b in (total, projects[p], periods[period(day, by, UTC)]):
            b["under_recorded"] += short.sessions
            b["unrecorded_output"] += short.unrecorded
    return _report(total, projects, periods, models, files, by, top)


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


BAR_WIDTH = 30


def _bars(title: str, periods: dict[str, dict[str, Any]]) -> None:
    """A bar of each period's sessions, in block characters (the same text for
    the same figures; coloured only on a terminal, and never under NO_COLOR)."""
    from vibe_vault.charts import bar

    if not periods:
        return
    import os

    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    most = max(b["sessions"] for b in periods.values())
    width = max(len(p) for p in periods)
    print(title)
    for label, b in periods.items():
        drawn = bar(b["sessions"], most, BAR_WIDTH)
        if colour and drawn:
            drawn = f"\x1b[36m{drawn}\x1b[0m"
        print(f"  {label.ljust(width)}  {drawn} {b['sessions']}".rstrip())
    print()


def _bound(bucket: dict[str, Any]) -> str:
    """"≥" before a sum that includes a session whose output tokens Claude Code
    under-recorded: the sum is a lower bound, not an exact figure."""
    return "≥" if bucket.get("under_recorded") else ""


def _hours(hours: float) -> str:
    """Claude's working time (active hours) as people read it: minutes under
    an hour ("<1 min" for a little), else hours to the tenth."""
    minutes = round(hours * 60)
    if minutes < 1:
        return "<1 min"  # (sums of rounded minutes: a session under half a minute adds 0)
    return f"{minutes} min" if minutes < 60 else f"{hours:.1f} h"


def _human(n: float) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f}B"
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e3:
        return f"{n / 1e3:.0f}k"
    return str(int(n))


def _nothing_matches(conn: Any, args: argparse.Namespace) -> int:
    """No session with a note matches --project / --since: one line saying
    which, and the projects there are when the project is unknown."""
    from vibe_vault.text import terminal_safe

    asked = " ".join(f"--{k} {getattr(args, k)}" for k in ("project", "since")
                     if getattr(args, k))
    line = f"vv: no session matches {asked}"
    if args.project:
        names = [str(r[0]) for r in conn.execute(
            "SELECT DISTINCT project FROM records WHERE has_note ORDER BY project")]
        if args.project not in names:
            shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more"
                                             if len(names) > 10 else "")
            line += (f" (there is no project by that name; projects: {shown})" if names
                     else " (no sessions yet: run `vv backfill`, or let the hooks run)")
    print(terminal_safe(line), file=sys.stderr)
    return 1


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
    # The sums are by day: a --since that is a day is read from them, one
    # that is a time of day from the records it takes in.
    since_day = args.since[:10] if args.since and len(args.since) == 10 else ""
    with registry.opened(cfg) as conn:
        if (args.project or args.since) and not (args.json or args.csv):
            # A filter that matches nothing says so (a mistyped project is
            # not "no sessions yet"), naming the projects there are.
            there = conn.execute("SELECT 1 FROM records WHERE " + where + " LIMIT 1",
                                 params).fetchone()
            if there is None:
                return _nothing_matches(conn, args)
        if not args.csv and (since_day or not args.since):
            stats = from_sums(conn, args.by, args.top, args.project or None, since_day)
        elif not args.csv:
            stats = compute(registry.summaries_where(
                conn, where + " ORDER BY started, session_id", params), args.by, args.top)
        else:
            # One record at a time, and only the fields a CSV row needs.
            recs = registry.summaries_where(conn, where + " ORDER BY started, session_id",
                                            params)
            w = csv.writer(sys.stdout)
            cols = ["session_id", "project", "started", "ended", "status", "title",
                    "duration_minutes", "active_minutes", "input_tokens", "output_tokens",
                    "cache_read_tokens", "cache_creation_tokens", "cost_usd", "tool_calls",
                    "prompts", "note"]
            w.writerow(cols)
            for r in recs:
                w.writerow([getattr(r, c) for c in cols])
            return 0
    if args.json:
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        return 0
    if not stats["total"]["sessions"]:
        print("No sessions yet: run `vv backfill` (or let the hooks run).")
        return 0
    t = stats["total"]
    print(f"{t['sessions']} sessions · Claude worked {_hours(t['active_hours'])} · "
          f"{_bound(t)}{_human(t['tokens'])} tokens · {_bound(t)}${t['cost_usd']:,.2f}\n")
    _table("By project", [[p, str(b["sessions"]), _hours(b["active_hours"]),
                           _bound(b) + _human(b["tokens"]), f"{_bound(b)}${b['cost_usd']:,.2f}"]
                          for p, b in stats["by_project"].items()],
           ["project", "sessions", "Claude worked", "tokens", "cost"])
    if t["under_recorded"]:
        print(f"≥: Claude Code recorded the output tokens of some replies before they ended "
              f"({t['under_recorded']} session{'s' if t['under_recorded'] != 1 else ''}): about "
              f"{_human(t['unrecorded_output'])} output tokens more than counted here, "
              "so those totals are lower bounds.\n")
    _table("By model", [[m, _human(b["tokens"]),
                        f"${b['cost_usd']:,.2f}" + ("" if b["priced"] else " (unpriced)")]
                       for m, b in stats["by_model"].items()], ["model", "tokens", "cost"])
    key = f"by_{args.by}"
    _table(f"By {args.by}", [[p, str(b["sessions"]), _hours(b["active_hours"]),
                              _bound(b) + _human(b["tokens"]), f"{_bound(b)}${b['cost_usd']:,.2f}"]
                             for p, b in stats[key].items()],
           [args.by, "sessions", "Claude worked", "tokens", "cost"])
    _bars(f"Sessions by {args.by}", stats[key])
    if stats["top_files"]:
        _table("Most changed files", [[f["path"], str(f["sessions"])]
                                      for f in stats["top_files"]], ["file", "sessions"])
    return 0
