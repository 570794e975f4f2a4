"""The vault's indexes: links between sessions, project notes, the home note.

Computed from the registry's rows, then applied: a session whose links
changed gets its state updated and its note rewritten under its own lock.
Work is in proportion to what changed: the projects named are read whole
(links never cross projects: Claude Code resumes a session only in its own
folder), the home note comes from per-project sums. Run at SessionEnd and at
the end of a backfill, never on every Stop.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from datetime import date

from msgspec import Struct

from vibe_vault import aggregates, charts, registry, vaultdb
from vibe_vault.config import Config
from vibe_vault.figures import options_for, short_tokens, title_of
from vibe_vault.links import Links, compute_links, links_of, order, set_links
from vibe_vault.lock import LockTimeout, SessionLock
from vibe_vault.markdown import cell, code, label, text, wikilink, yaml_str, yaml_time
from vibe_vault.note import write_note, write_session_note
from vibe_vault.records import Record, total_tokens
from vibe_vault.render import render
from vibe_vault.resume import resume_command
from vibe_vault.times import day, day_span, hhmm, local_iso
from vibe_vault.vault import (
    HOME_NOTE,
    REWRITE_NOTICE,
    USER_HEADING,
    USER_HINT,
    daily_note_path,
    project_note_path,
)


def apply_links(cfg: Config, links: dict[str, Links], records: dict[str, Record],
                lock_timeout: float = 2.0) -> set[str]:
    """Write changed links into session states and notes; the sessions changed.

    Only sessions whose record says their note carries other links are
    touched, so a pass over an unchanged vault opens no state at all.
    """
    from vibe_vault.session import Store

    store = Store(cfg.state_dir)
    changed: set[str] = set()
    for sid, lk in sorted(links.items()):
        rec = records.get(sid)
        if rec is None or links_of(rec) == lk:
            continue
        try:
            with SessionLock(store.lock_path(sid), lock_timeout):
                state = store.load(sid)
                if state is None or not state.note:
                    continue
                set_links(state, lk)
                write_session_note(cfg.vault, state, render(state, options_for(cfg)),
                                   cfg.state_dir)
                store.save(state)
        except (LockTimeout, OSError):
            continue  # the next backfill or event catches up
        rec.previous, rec.next = lk.previous, lk.next
        rec.continues, rec.continued_by = lk.continues, list(lk.continued_by)
        rec.told_elsewhere, rec.title_tag = lk.summary, lk.tag
        rec.title = title_of(state)
        changed.add(sid)
    return changed


def _iso(started: str) -> str:
    """A frontmatter's time: ISO 8601 in the user's zone, with its offset."""
    # Quoted when it is not a time (a transcript's stamp is its text).
    return yaml_time(local_iso(started)) if started else "null"


def _money(x: float) -> str:
    return f"${x:,.2f}"


LATEST = 50  # sessions a project note lists; the Base holds them all
BASE_LINK = wikilink("Sessions.base", label("Sessions"))


def _active(minutes: int) -> str:
    return f"{minutes // 60}h {minutes % 60:02d}m"


def _base_block(project: str) -> list[str]:
    """An embedded Obsidian Base of every session of the project (Obsidian
    renders a `base` code block with no plugin): the full list, which the
    note itself no longer holds."""
    folder = project_note_path(project).rsplit("/", 1)[0] + "/sessions"
    expr = 'file.inFolder("' + folder.replace("\\", "\\\\").replace('"', '\\"') + '")'
    return ["```base", "filters:", "  and:", "    - '" + expr.replace("'", "''") + "'",
            "    - 'type == \"session\"'", "views:", "  - type: table",
            "    name: Sessions", "    order:", "      - started", "      - title",
            "      - status", "      - active_minutes", "      - cost_usd", "```"]


class ProjectView(Struct):
    """What a project note shows: its sums, from the database's per-project
    sums, and its latest sessions, from an indexed read."""

    project: str
    totals: aggregates.Sums
    months: list[tuple[str, aggregates.Sums]]
    weeks: list[tuple[date, int, float]]
    models: dict[str, float]
    first: str
    last: str
    latest: list[Record]


def project_view(conn: sqlite3.Connection, project: str,
                 newer: dict[str, Record] | None = None) -> ProjectView:
    """`newer`: records changed here and not yet written back (their titles)."""
    days = list(aggregates.by_day(conn, project))
    totals = aggregates.Sums()
    months: dict[str, aggregates.Sums] = {}
    for _, on, sums in days:
        totals.add(astuple(sums))
        months.setdefault(on[:7] or "unknown", aggregates.Sums()).add(astuple(sums))
    weeks = charts.weeks_ending({on: (s.sessions, aggregates.usd(s.cost)) for _, on, s in days})
    models = {m: aggregates.usd(s.cost) for m, s in aggregates.by_model(conn, project).items()}
    latest = list(registry.records_where(
        conn, "project = ? AND has_note ORDER BY started DESC, session_id DESC LIMIT ?",
        (project, LATEST)))
    if newer:
        latest = [newer.get(r.session_id, r) for r in latest]
    first = conn.execute("SELECT min(started) FROM records WHERE project = ? AND has_note",
                         (project,)).fetchone()[0] or ""
    last = latest[0].started if latest else ""
    return ProjectView(project, totals, sorted(months.items(), reverse=True), weeks, models,
                       first, last, latest)


def render_project(view: ProjectView) -> str:
    project, t, recs = view.project, view.totals, view.latest
    cost = aggregates.usd(t.cost)
    out = ["---", "type: project", f"project: {yaml_str(project)}", f"sessions: {t.sessions}",
           f"active_minutes: {t.minutes}", f"tokens: {t.tokens}", f"cost_usd: {cost:.4f}"]
    if t.sessions:
        out.append(f"first_session: {_iso(view.first)}")
        out.append(f"last_session: {_iso(view.last)}")
    out += ["tags:", "  - project", "---", REWRITE_NOTICE, "", f"# {text(project)}", ""]
    out.append(f"**{t.sessions} sessions** · **{_active(t.minutes)} active** · "
               f"**{short_tokens(t.tokens)} tokens** · **{_money(cost)}**")
    pictures = charts.pictures(view.weeks, view.models)
    if pictures:
        out += ["", "## Activity", "", *pictures]
    if view.months:
        out += ["", "## By month", "", "| Month | Sessions | Active | Tokens | Cost |",
                "|---|--:|--:|--:|--:|"]
        for month, m in view.months:
            out.append(f"| {month} | {m.sessions} | {_active(m.minutes)} | "
                       f"{short_tokens(m.tokens)} | {_money(aggregates.usd(m.cost))} |")
    shown = "" if t.sessions <= len(recs) else f" (the latest {len(recs)}; every one below)"
    out += ["", f"## Sessions{shown}", "", "| Date | Session | Duration | Tokens | Cost | Status |",
            "|---|---|--:|--:|--:|---|"]
    for r in recs:
        tokens = total_tokens(r)
        status = r.status if not r.end_reason else f"{r.status} ({r.end_reason})"
        out.append(f"| {day(r.started)} | {cell(wikilink(r.note, label(r.title)))} | "
                   f"{r.duration_minutes} min | {short_tokens(tokens)} | {_money(r.cost_usd)} | "
                   f"{cell(text(status))} |")
    open_tasks = [(r, task) for r in recs[:5] for task in r.open_tasks]
    if open_tasks:
        out += ["", "## Open threads (latest sessions)", ""]
        for r, task in open_tasks[:30]:
            out.append(f"- [ ] {text(task)} ({wikilink(r.note, label(day(r.started)))})")
    out += ["", "## All sessions", "",
            f"Every session of the project, from {BASE_LINK} (Obsidian Bases):",
            "", *_base_block(project)]
    out += ["", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def astuple(s: aggregates.Sums) -> tuple[int, ...]:
    return (s.sessions, s.minutes, s.input, s.output, s.cache_read, s.cache_creation, s.cost)


class ProjectSums:
    """What the home note shows of a project: sums over its sessions with a note."""

    __slots__ = ("cost", "last", "minutes", "project", "sessions")

    def __init__(self, project: str, sessions: int, last: str, minutes: int,
                 cost: float) -> None:
        self.project = project
        self.sessions = sessions
        self.last = last  # the latest start, then session id (order's key, joined)
        self.minutes = minutes
        self.cost = cost


def project_sums(conn: sqlite3.Connection) -> list[ProjectSums]:
    """Per-project sums (the database's), the project with the latest session first."""
    sums = []
    for project, s in aggregates.per_project(conn).items():
        row = conn.execute(
            "SELECT started || char(0) || session_id FROM records WHERE project = ? AND "
            "has_note ORDER BY started DESC, session_id DESC LIMIT 1", (project,)).fetchone()
        sums.append(ProjectSums(project, s.sessions, row[0] if row else "", s.minutes,
                                aggregates.usd(s.cost)))
    sums.sort(key=lambda p: (p.last, p.project), reverse=True)
    return sums


def render_home(sums: list[ProjectSums], latest: list[Record],
                pictures: list[str] | None = None) -> str:
    count = sum(p.sessions for p in sums)
    cost = sum(p.cost for p in sums)
    out = ["---", "type: index", f"sessions: {count}", f"projects: {len(sums)}",
           f"cost_usd: {cost:.4f}", "---", REWRITE_NOTICE, "", "# Claude Code sessions", "",
           f"**{count} sessions** in **{len(sums)} projects** · **{_money(cost)}**"]
    if pictures:
        out += ["", "## Activity", "", *pictures]
    out += ["", "## Projects", "", "| Project | Sessions | Last session | Active | Cost |",
            "|---|--:|---|--:|--:|"]
    for p in sums:
        out.append(f"| {cell(wikilink(project_note_path(p.project), label(p.project)))} | "
                   f"{p.sessions} | {day(p.last.split(chr(0))[0])} | "
                   f"{_active(p.minutes)} | {_money(p.cost)} |")
    out += ["", "## Latest sessions", ""]
    for rec in latest:
        out.append(f"- {day(rec.started)} · **{text(rec.project)}** · "
                   f"{wikilink(rec.note, label(rec.title))} · "
                   f"{code(resume_command(rec.cwd, rec.session_id))}")
    out += ["", f"Every session: {BASE_LINK} (Obsidian Bases).",
            "", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def home_note(conn: sqlite3.Connection, latest: int = 20) -> str:
    recent = list(registry.records_where(
        conn, "has_note ORDER BY started DESC, session_id DESC LIMIT ?", (latest,)))
    days: dict[str, tuple[int, float]] = {}
    for _, on, s in aggregates.by_day(conn):
        n, c = days.get(on, (0, 0))
        days[on] = (n + s.sessions, c + s.cost)
    weeks = charts.weeks_ending({d: (n, aggregates.usd(c)) for d, (n, c) in days.items()})
    models = {m: aggregates.usd(s.cost) for m, s in aggregates.by_model(conn).items()}
    pictures = charts.pictures(weeks, models)
    return render_home(project_sums(conn), recent, pictures)


def render_daily(day: str, records: list[Record]) -> str:
    recs = sorted(records, key=order)
    cost = sum(r.cost_usd for r in recs)
    out = ["---", "type: daily", f"date: {day}", f"sessions: {len(recs)}",
           f"cost_usd: {cost:.4f}", "---", REWRITE_NOTICE, "", f"# {day}", ""]
    for r in recs:
        out.append(f"- {hhmm(r.started)} · **{text(r.project)}** · "
                   f"{wikilink(r.note, label(r.title))} "
                   f"({r.duration_minutes} min, {_money(r.cost_usd)})")
    out += ["", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def regenerate(cfg: Config, projects: set[str] | None = None, lock_timeout: float = 2.0,
               conn: sqlite3.Connection | None = None) -> int:
    """Links, the notes of the given projects (default: all), the home note (and
    daily notes if enabled); notes written. A session whose lock stays held
    past `lock_timeout` keeps its old links until the next run."""
    if conn is None:
        with registry.opened(cfg) as own:
            return regenerate(cfg, projects, lock_timeout, own)
    if projects is None:
        projects = {row[0] for row in conn.execute(
            "SELECT DISTINCT project FROM records WHERE has_note")}
    written = 0
    days: set[str] = set()
    daily = bool(cfg.get("daily_notes"))
    # One project at a time: links never cross projects, so memory follows
    # the largest project, not the history.
    for done in _projects_done(cfg, conn, sorted(projects), lock_timeout, daily):
        written += done.written
        days.update(done.days)
        if done.changed:
            with vaultdb.transaction(conn):
                for rec in done.changed:
                    registry.put(conn, rec)
    written += _write_index_note(cfg, HOME_NOTE, home_note(conn))
    if conn.execute("SELECT 1 FROM records WHERE has_note LIMIT 1").fetchone():
        from vibe_vault.bases import write_sessions_base

        written += write_sessions_base(cfg.vault)
    if daily:
        for day in sorted(days):
            # The day where the user is: the registry's UTC stamps within it.
            recs = list(registry.records_where(conn, "has_note AND started >= ? AND started < ?",
                                               day_span(day)))
            written += _write_index_note(cfg, daily_note_path(day), render_daily(day, recs))
    return written


class ProjectDone(Struct):
    """What bringing one project's links and note up to date did: records
    whose links changed (for the registry), notes written, days it ran on."""

    changed: list[Record]
    written: int
    days: list[str]


PARALLEL_FROM = 16  # projects, from which they are done on every core


def _projects_done(cfg: Config, conn: sqlite3.Connection, projects: list[str],
                   lock_timeout: float, daily: bool) -> Iterator[ProjectDone]:
    """_project_done of each project. Many (a first backfill, a reprocess)
    are done by forked workers, one per core, each reading the database on a
    connection of its own (the links, project notes and session notes of
    100,000 sessions: ~1 s on one core); the registry rows that change are
    written here, by the one writer."""
    cores = os.cpu_count() or 1
    if len(projects) >= PARALLEL_FROM and cores > 1:
        from vibe_vault import workers  # (only for many: SessionEnd's pass is one project)

        if workers.available():
            reader: list[sqlite3.Connection] = []  # a worker's own, opened at its first

            def work(project: str) -> ProjectDone:
                if not reader:
                    reader.append(vaultdb.reader(cfg.state_dir))
                return _project_done(cfg, reader[0], project, lock_timeout, daily)

            yield from workers.in_order(
                work, projects, cores, ProjectDone,
                again=lambda project: _project_done(cfg, conn, project, lock_timeout, daily))
            return
    for project in projects:
        yield _project_done(cfg, conn, project, lock_timeout, daily)


def _project_done(cfg: Config, conn: sqlite3.Connection, project: str, lock_timeout: float,
                  daily: bool) -> ProjectDone:
    """One project's links applied to its sessions, and its note written."""
    records = registry.of_projects(conn, [project])
    if not records:
        return ProjectDone(changed=[], written=0, days=[])
    links = compute_links(records, registry.tellers(conn, [project]))
    changed = apply_links(cfg, links, records, lock_timeout)
    written = len(changed) + _write_index_note(cfg, project_note_path(project),
                                               render_project(project_view(conn, project, records)))
    days = sorted({day(r.started) for r in records.values() if r.started}) if daily else []
    return ProjectDone(changed=[records[sid] for sid in sorted(changed)], written=written,
                       days=days)


def _write_index_note(cfg: Config, relpath: str, text: str) -> bool:
    """Write a project, home or daily note; a note that cannot be written is
    said once in the log and passed over, so the other notes still are."""
    try:
        return write_note(cfg.vault, relpath, text).changed
    except OSError as exc:
        from vibe_vault.log import warn

        warn(cfg.state_dir, f"cannot write {relpath}: {exc.strerror or exc}", stderr=False)
        return False
