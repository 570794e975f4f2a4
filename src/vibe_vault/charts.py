"""Pictures of activity, from the per-project sums: Mermaid blocks for the
project and home notes (Obsidian renders `xychart-beta` and `pie` with no
plugin) and bars of block characters for `vv stats` on a terminal.

Pure and deterministic: the weeks shown end at the week of the latest
session (not today), so a note changes only when its sessions do.
"""

from __future__ import annotations

from datetime import date, timedelta

from vibe_vault.markdown import Md, join, md, mermaid_label

WEEKS = 52  # the last year


def weeks_ending(days: dict[str, tuple[int, float]]) -> list[tuple[date, int, float]]:
    """(Monday, sessions, cost) of each week of the last year of `days`
    (day -> (sessions, cost)), from the first week with a session in it;
    weeks without one are there, at zero."""
    known = sorted(d for d in days if _is_day(d))
    if not known:
        return []
    last = _monday(date.fromisoformat(known[-1]))
    first = max(_monday(date.fromisoformat(known[0])), last - timedelta(weeks=WEEKS - 1))
    weeks: dict[date, list[float]] = {}
    week = first
    while week <= last:
        weeks[week] = [0, 0.0]
        week += timedelta(weeks=1)
    for day in known:
        w = weeks.get(_monday(date.fromisoformat(day)))
        if w is not None:
            sessions, cost = days[day]
            w[0] += sessions
            w[1] += cost
    return [(week, int(v[0]), v[1]) for week, v in weeks.items()]


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _top(value: float) -> int:
    """A round top for an axis a little above `value`."""
    if value <= 0:
        return 1
    step = 10 ** (len(str(int(value))) - 1)
    return int((int(value / step) + 1) * step)


def activity(weeks: list[tuple[date, int, float]]) -> list[Md]:
    """Two Mermaid bar charts, sessions and cost per week ([] when no week)."""
    if not weeks:
        return []
    labels = md("[{}]", join(", ", (mermaid_label(w.strftime("%m-%d")) for w, _, _ in weeks)))
    sessions = [n for _, n, _ in weeks]
    costs = [round(c, 2) for _, _, c in weeks]
    first = weeks[0][0].isoformat()
    out = [md("```mermaid"), md("xychart-beta"),
           md("    title {}", mermaid_label("Sessions per week from " + first)),
           md("    x-axis {}", labels),
           md('    y-axis "Sessions" 0 --> {}', _top(max(sessions))),
           md("    bar [{}]", join(", ", (md("{}", n) for n in sessions))), md("```"), md("")]
    out += [md("```mermaid"), md("xychart-beta"),
            md("    title {}", mermaid_label("Cost per week (USD) from " + first)),
            md("    x-axis {}", labels),
            md('    y-axis "USD" 0 --> {}', _top(max(costs))),
            md("    bar [{}]", join(", ", (md("{:.2f}", c) for c in costs))), md("```")]
    return out


def cost_pie(costs: dict[str, float]) -> list[Md]:
    """A Mermaid pie of cost by model, largest first ([] when nothing cost anything)."""
    shares = sorted(((round(c, 2), m) for m, c in costs.items() if round(c, 2) > 0),
                    key=lambda cm: (-cm[0], cm[1]))
    if not shares:
        return []
    return [md("```mermaid"), md("pie title Cost by model (USD)"),
            *(md("    {} : {:.2f}", mermaid_label(m), c) for c, m in shares), md("```")]


def pictures(weeks: list[tuple[date, int, float]], costs: dict[str, float]) -> list[Md]:
    """Every chart of a note, a blank line between them."""
    out: list[Md] = []
    for block in (activity(weeks), cost_pie(costs)):
        if block:
            out += ([md("")] if out else []) + block
    return out


BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float, most: float, width: int) -> str:
    """A bar of block characters, `width` cells for `most`, eighths of a cell
    for the rest: the same text for the same figures."""
    if most <= 0 or value <= 0:
        return ""
    eighths = round(value / most * width * 8)
    return "█" * (eighths // 8) + (BLOCKS[eighths % 8] if eighths % 8 else "")
