"""The vault's indexes: links between sessions, project notes, the home note.

Computed from the registry's rows, then applied: a session whose links
changed gets its state updated and its note rewritten under its own lock.
Work is in proportion to what changed: the projects named are read whole
(links never cross projects: Claude Code resumes a session only in its own
folder), the home note comes from per-project sums. Run at SessionEnd and at
the end of a backfill, never on every Stop.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from datetime import date
from typing import TYPE_CHECKING

from msgspec import Struct, field

from vibe_vault import aggregates, charts, registry, vaultdb
from vibe_vault.config import Config
from vibe_vault.document import Document
from vibe_vault.figures import claude_worked, figures, options_for, plural, short_tokens
from vibe_vault.links import Links, compute_links, links_of, order, set_links
from vibe_vault.lock import LockTimeout, SessionLock
from vibe_vault.markdown import (
    Md,
    base_in_folder,
    cell,
    code,
    label,
    md,
    strong,
    text,
    wikilink,
    yaml_str,
    yaml_time,
)
from vibe_vault.note import write_note, write_session_note
from vibe_vault.pricing import unpriced_names
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

if TYPE_CHECKING:
    from vibe_vault.figures import Figures
    from vibe_vault.session import Store
    from vibe_vault.state import SessionState


# A session's search rows as a pass that saved its state makes them: the
# state's key, the stamp of the file saved, the session id and its document
# (vaultdb.put_indexed's arguments).
IndexRow = tuple[str, int, str, Document | None]
IndexTo = Callable[[IndexRow], None]  # where the rows go as they are made


def apply_links(cfg: Config, links: dict[str, Links], records: dict[str, Record],
                lock_timeout: float = 2.0, owed: AbstractSet[str] = frozenset(),
                written: set[str] | None = None,
                indexed: IndexTo | None = None) -> set[str]:
    """Write changed links into session states and notes; the sessions changed.

    Only sessions whose record says their note carries other links are
    touched, so a pass over an unchanged vault opens no state at all; and the
    sessions in `owed`, whose notes a backfill left to this pass (their links
    not known when they were read: session.Update.defer_note), whose notes
    are written whatever their links (each one written is added to `written`).
    `indexed`, when given, is handed the search rows of each session whose
    state was saved, made from the state in hand (a backfill puts them, and its
    search catch-up then reads none of those states again).
    """
    from vibe_vault.render.memo import Memo
    from vibe_vault.session import Store

    store = Store(cfg.state_dir)
    opts = options_for(cfg)
    changed: set[str] = set()
    for sid, lk in sorted(links.items()):
        rec = records.get(sid)
        owes = sid in owed
        if rec is None or (not owes and links_of(rec) == lk):
            continue
        try:
            with SessionLock(store.lock_path(sid), lock_timeout):
                state = store.load(sid)
                if state is None or not state.note:
                    continue
                set_links(state, lk)
                # The figures once, for the note, its search rows and its
                # record's title (each worked them out anew: a cold run's
                # link pass spent a fifth of its time on them).
                fig = figures(state, opts)
                if owes:
                    # its first write: the story's turns kept as a write keeps them
                    memo = Memo(state.rendered, state.rendered_parts)
                    note = render(state, opts, fig, memo)
                    state.rendered, state.rendered_parts = memo.new, memo.new_parts
                else:
                    note = render(state, opts, fig)
                write_session_note(cfg.vault, state, note, cfg.state_dir)
                store.save(state)
                if indexed is not None:
                    indexed(_index_row(store, state, fig))
        except (LockTimeout, OSError):
            continue  # the next backfill or event catches up
        if owes and written is not None:
            written.add(sid)
        if links_of(rec) == lk:
            continue
        rec.previous, rec.next = lk.previous, lk.next
        rec.continues, rec.continued_by = lk.continues, list(lk.continued_by)
        rec.told_elsewhere, rec.title_tag = lk.summary, lk.tag
        rec.title = fig.title  # (title_of(state), tagged)
        changed.add(sid)
    return changed


def _index_row(store: Store, state: SessionState, fig: Figures | None = None) -> IndexRow:
    """The search rows of a session whose state was just saved (under its
    lock), as the search catch-up would make them from the file."""
    from vibe_vault import filestamp
    from vibe_vault.document import document_of
    from vibe_vault.paths import safe_id

    path = store.state_path(state.session_id)
    store.load_said(state, path)  # (the whole of what was said, for the document)
    return (safe_id(state.session_id), filestamp.of(os.stat(path)), state.session_id,
            document_of(state, fig))


def _iso(started: str) -> Md:
    """A frontmatter's time: ISO 8601 in the user's zone, with its offset."""
    # Quoted when it is not a time (a transcript's stamp is its text).
    return yaml_time(local_iso(started)) if started else md("null")


def _money(dollars: float) -> Md:
    return md("${:,.2f}", dollars)


def _unpriced(rec: Record) -> list[str]:
    """The models of a session with tokens and no known price."""
    return [m for m, t in rec.tokens_by_model.items() if m not in rec.cost_by_model and any(t)]


def _session_cost(rec: Record) -> Md:
    """A session's cost cell: one none of whose models has a price has no
    cost (review 29 #3: $0.00 read as free)."""
    unpriced = _unpriced(rec)
    if unpriced and not rec.cost_by_model:
        return md("not priced")
    return md("{} + unpriced", _money(rec.cost_usd)) if unpriced else _money(rec.cost_usd)


def _excluded(models: dict[str, aggregates.ModelSums]) -> Md:
    """After a total: the models it leaves out, having no known price."""
    names = unpriced_names([m for m, s in models.items() if s.unpriced])
    return md(" (not counting {}: not priced)", text(", ".join(names))) if names else md("")


def _bound(short_sessions: int) -> Md:
    """"≥" before a sum that includes a session whose output tokens Claude
    Code under-recorded: a lower bound, not an exact figure."""
    return md("≥") if short_sessions else md("")


def _bound_note(short: aggregates.Short) -> Md:
    return md("≥ Claude Code recorded the output tokens of some replies before they ended "
              "({}): about {} output tokens more than these totals count, and their cost; "
              "each session's note says how many.",
              text(f"{short.sessions} session" + ("s" if short.sessions != 1 else "")),
              _tokens(short.unrecorded))


LATEST = 50  # sessions a project note lists; the Base holds them all
BASE_LINK = wikilink("Sessions.base", label("Sessions"))


def _counted(count: int, word: str) -> Md:
    """"1 session", "2 sessions" (review 21: "1 sessions"); `word` is ours."""
    return text(plural(count, word))


def _minutes(minutes: int) -> Md:
    """Whole minutes as the session notes say them, a session's duration or
    Claude's working time summed: "<1 min", "18 min", past an hour "2h 05m"
    (review 20: project notes said "1420 min")."""
    return text(claude_worked(minutes))


def _tokens(count: int) -> Md:
    return text(short_tokens(count))


def _base_block(project: str) -> list[Md]:
    """An embedded Obsidian Base of every session of the project (Obsidian
    renders a `base` code block with no plugin): the full list, which the
    note itself no longer holds."""
    folder = project_note_path(project).rsplit("/", 1)[0] + "/sessions"
    return [md("```base"), md("filters:"), md("  and:"), md("    - {}", base_in_folder(folder)),
            md("    - 'type == \"session\"'"), md("views:"), md("  - type: table"),
            md("    name: Sessions"), md("    order:"), md("      - started"),
            md("      - title"), md("      - status"), md("      - active_minutes"),
            md("      - cost_usd"), md("```")]


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
    # Under-recorded sessions (Claude Code wrote replies' usage before they
    # ended): over the project, and by month; sums with them are lower bounds.
    short: aggregates.Short = field(default_factory=aggregates.Short)
    short_months: dict[str, int] = field(default_factory=dict)
    # " (not counting glm-5: not priced)": models its cost leaves out
    excluded: Md = field(default_factory=lambda: md(""))


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
    model_sums = aggregates.by_model(conn, project)
    models = {m: aggregates.usd(s.cost) for m, s in model_sums.items()}
    latest = list(registry.records_where(
        conn, "project = ? AND has_note ORDER BY started DESC, session_id DESC LIMIT ?",
        (project, LATEST)))
    if newer:
        latest = [newer.get(r.session_id, r) for r in latest]
    first = conn.execute("SELECT min(started) FROM records WHERE project = ? AND has_note",
                         (project,)).fetchone()[0] or ""
    last = latest[0].started if latest else ""
    short = aggregates.Short()
    short_months: dict[str, int] = {}
    for _, on, n in aggregates.short_by_day(conn, project):
        short.sessions += n.sessions
        short.unrecorded += n.unrecorded
        short_months[on[:7] or "unknown"] = short_months.get(on[:7] or "unknown", 0) + 1
    return ProjectView(project, totals, sorted(months.items(), reverse=True), weeks, models,
                       first, last, latest, short, short_months, _excluded(model_sums))


def render_project(view: ProjectView) -> str:
    # Every line is Md (mypy refuses a raw string): transcript words (the
    # project, titles, statuses, open tasks, model names) reach it only
    # through the escapers.
    project, t, recs = view.project, view.totals, view.latest
    cost = aggregates.usd(t.cost)
    out = [md("---"), md("type: project"), md("project: {}", yaml_str(project)),
           md("sessions: {}", t.sessions), md("active_minutes: {}", t.minutes),
           md("tokens: {}", t.tokens), md("cost_usd: {:.4f}", cost)]
    if t.sessions:
        out.append(md("first_session: {}", _iso(view.first)))
        out.append(md("last_session: {}", _iso(view.last)))
    out += [md("tags:"), md("  - project"), md("---"), md(REWRITE_NOTICE), md(""),
            md("# {}", text(project)), md("")]
    low = _bound(view.short.sessions)
    out.append(md("**{}** · **Claude worked {}** · **{}{} tokens** · **{}{}**{}",
                  _counted(t.sessions, "session"), _minutes(t.minutes), low,
                  _tokens(t.tokens), low, _money(cost), view.excluded))
    pictures = charts.pictures(view.weeks, view.models)
    if pictures:
        out += [md(""), md("## Activity"), md(""), *pictures]
    if view.months:
        out += [md(""), md("## By month"), md(""),
                md("| Month | Sessions | Claude worked | Tokens | Cost |"),
                md("|---|--:|--:|--:|--:|")]
        for month, m in view.months:
            low = _bound(view.short_months.get(month, 0))
            out.append(md("| {} | {} | {} | {}{} | {}{} |", cell(text(month)), m.sessions,
                          _minutes(m.minutes), low, _tokens(m.tokens), low,
                          _money(aggregates.usd(m.cost))))
    shown = md("") if t.sessions <= len(recs) else md(
        " (the latest {}; every one below)", len(recs))
    out += [md(""), md("## Sessions{}", shown), md(""),
            md("| Date | Session | Duration | Tokens | Cost | Status |"),
            md("|---|---|--:|--:|--:|---|")]
    for r in recs:
        status = text(r.status) if not r.end_reason else md(
            "{} ({})", text(r.status), text(r.end_reason))
        low = _bound(r.output_short)
        out.append(md("| {} | {} | {} | {}{} | {}{} | {} |", cell(text(day(r.started))),
                      cell(wikilink(r.note, label(r.title))), _minutes(r.duration_minutes),
                      low, _tokens(total_tokens(r)), low, _session_cost(r), cell(status)))
    if view.short.sessions:
        out += [md(""), _bound_note(view.short)]
    open_tasks = [(r, task) for r in recs[:5] for task in r.open_tasks]
    if open_tasks:
        out += [md(""), md("## Open threads (latest sessions)"), md("")]
        for r, task in open_tasks[:30]:
            out.append(md("- [ ] {} ({})", text(task), wikilink(r.note, label(day(r.started)))))
    out += [md(""), md("## All sessions"), md(""),
            md("Every session of the project, from {} (Obsidian Bases):", BASE_LINK),
            md(""), *_base_block(project)]
    out += [md(""), md(USER_HEADING), md(USER_HINT)]
    return "\n".join(out) + "\n"


def astuple(sums: aggregates.Sums) -> tuple[int, ...]:
    return (sums.sessions, sums.minutes, sums.input, sums.output, sums.cache_read,
            sums.cache_creation, sums.cost)


class ProjectSums:
    """What the home note shows of a project: sums over its sessions with a note."""

    __slots__ = ("cost", "last", "minutes", "project", "sessions", "short")

    def __init__(self, project: str, sessions: int, last: str, minutes: int,
                 cost: float, short: aggregates.Short | None = None) -> None:
        self.short = short or aggregates.Short()  # its under-recorded sessions
        self.project = project
        self.sessions = sessions
        self.last = last  # the latest start, then session id (order's key, joined)
        self.minutes = minutes
        self.cost = cost


def project_sums(conn: sqlite3.Connection) -> list[ProjectSums]:
    """Per-project sums (the database's), the project with the latest session first."""
    sums = []
    short = aggregates.under_recorded_by_project(conn)
    for project, s in aggregates.per_project(conn).items():
        row = conn.execute(
            "SELECT started || char(0) || session_id FROM records WHERE project = ? AND "
            "has_note ORDER BY started DESC, session_id DESC LIMIT 1", (project,)).fetchone()
        sums.append(ProjectSums(project, s.sessions, row[0] if row else "", s.minutes,
                                aggregates.usd(s.cost), short.get(project)))
    sums.sort(key=lambda p: (p.last, p.project), reverse=True)
    return sums


def render_home(sums: list[ProjectSums], latest: list[Record],
                pictures: list[Md] | None = None, excluded: Md | None = None) -> str:
    count = sum(p.sessions for p in sums)
    cost = sum(p.cost for p in sums)
    out = [md("---"), md("type: index"), md("sessions: {}", count),
           md("projects: {}", len(sums)), md("cost_usd: {:.4f}", cost), md("---"),
           md(REWRITE_NOTICE), md(""), md("# Claude Code sessions"), md(""),
           md("**{}** in **{}** · **{}{}**{}", _counted(count, "session"),
              _counted(len(sums), "project"),
              _bound(sum(p.short.sessions for p in sums)), _money(cost), excluded or md(""))]
    if pictures:
        out += [md(""), md("## Activity"), md(""), *pictures]
    out += [md(""), md("## Projects"), md(""),
            md("| Project | Sessions | Last session | Claude worked | Cost |"),
            md("|---|--:|---|--:|--:|")]
    for p in sums:
        out.append(md("| {} | {} | {} | {} | {}{} |",
                      cell(wikilink(project_note_path(p.project), label(p.project))),
                      p.sessions, cell(text(day(p.last.split(chr(0))[0]))),
                      _minutes(p.minutes), _bound(p.short.sessions), _money(p.cost)))
    short = aggregates.Short(sum(p.short.sessions for p in sums),
                             sum(p.short.unrecorded for p in sums))
    if short.sessions:
        out += [md(""), _bound_note(short)]
    out += [md(""), md("## Latest sessions"), md("")]
    for rec in latest:
        out.append(md("- {} · {} · {} · {}", text(day(rec.started)), strong(rec.project),
                      wikilink(rec.note, label(rec.title)),
                      code(resume_command(rec.cwd, rec.session_id))))
    out += [md(""), md("Every session: {} (Obsidian Bases).", BASE_LINK),
            md(""), md(USER_HEADING), md(USER_HINT)]
    return "\n".join(out) + "\n"


def home_note(conn: sqlite3.Connection, latest: int = 20) -> str:
    recent = list(registry.records_where(
        conn, "has_note ORDER BY started DESC, session_id DESC LIMIT ?", (latest,)))
    days: dict[str, tuple[int, float]] = {}
    for _, on, s in aggregates.by_day(conn):
        n, c = days.get(on, (0, 0))
        days[on] = (n + s.sessions, c + s.cost)
    weeks = charts.weeks_ending({d: (n, aggregates.usd(c)) for d, (n, c) in days.items()})
    model_sums = aggregates.by_model(conn)
    models = {m: aggregates.usd(s.cost) for m, s in model_sums.items()}
    pictures = charts.pictures(weeks, models)
    return render_home(project_sums(conn), recent, pictures, _excluded(model_sums))


def render_daily(day: str, records: list[Record]) -> str:
    recs = sorted(records, key=order)
    cost = sum(r.cost_usd for r in recs)
    out = [md("---"), md("type: daily"), md("date: {}", yaml_str(day)),
           md("sessions: {}", len(recs)), md("cost_usd: {:.4f}", cost), md("---"),
           md(REWRITE_NOTICE), md(""), md("# {}", text(day)), md("")]
    for r in recs:
        out.append(md("- {} · {} · {} ({}, {})", text(hhmm(r.started)), strong(r.project),
                      wikilink(r.note, label(r.title)), _minutes(r.duration_minutes),
                      _session_cost(r)))
    out += [md(""), md(USER_HEADING), md(USER_HINT)]
    return "\n".join(out) + "\n"


def regenerate(cfg: Config, projects: set[str] | None = None, lock_timeout: float = 2.0,
               conn: sqlite3.Connection | None = None, owed: set[str] | None = None,
               index_rows: bool = False) -> int:
    """Links, the notes of the given projects (default: all), the home note (and
    daily notes if enabled); notes written. A session whose lock stays held
    past `lock_timeout` keeps its old links until the next run. `owed`: the
    sessions whose notes a backfill left to this pass (apply_links), each
    taken out of the set once written, and not counted in what is returned.
    `index_rows`: the search rows of every session whose state this pass
    saves are put too, made from the state in hand (a backfill's, whose
    search catch-up would otherwise read each of those states again)."""
    if conn is None:
        with registry.opened(cfg) as own:
            return regenerate(cfg, projects, lock_timeout, own, owed, index_rows)
    if projects is None:
        projects = {row[0] for row in conn.execute(
            "SELECT DISTINCT project FROM records WHERE has_note")}
    written = 0
    days: set[str] = set()
    daily = bool(cfg.get("daily_notes"))
    # One project at a time: links never cross projects, so memory follows
    # the largest project, not the history.
    folders: dict[str, int] = {}  # the search index's folder ids, across transactions
    pending: list[IndexRow] = []  # search rows made, a few at a time: each holds a session's text

    def put_pending() -> None:
        if pending:
            with vaultdb.transaction(conn):
                for key, stamp, sid, doc in pending:
                    vaultdb.put_indexed(conn, key, stamp, sid, doc, folders)
            pending.clear()

    def index_to(row: IndexRow) -> None:
        pending.append(row)
        if len(pending) >= INDEX_BATCH:
            put_pending()

    owed_in: dict[str, int] = {}  # how many of the owed notes each project has
    if owed:
        for sid, project in conn.execute("SELECT session_id, project FROM records"):
            if sid in owed:
                owed_in[project] = owed_in.get(project, 0) + 1
    for done in _projects_done(cfg, conn, sorted(projects), lock_timeout, daily,
                               owed or set(), index_to if index_rows else None, owed_in):
        written += done.written
        if owed is not None:
            owed.difference_update(done.owed_written)
        days.update(done.days)
        for row in done.indexed:
            index_to(row)
        put_pending()
        if done.changed:
            with vaultdb.transaction(conn):
                for rec in done.changed:
                    registry.put(conn, rec)
    return written + _home_and_days(cfg, conn, days if daily else set())


def _home_and_days(cfg: Config, conn: sqlite3.Connection, days: set[str]) -> int:
    """The home note, the Base, and the daily notes of `days`; notes written."""
    written = int(_write_index_note(cfg, HOME_NOTE, home_note(conn)))
    if conn.execute("SELECT 1 FROM records WHERE has_note LIMIT 1").fetchone():
        from vibe_vault.bases import write_sessions_base

        written += write_sessions_base(cfg.vault)
    for on in sorted(days):
        # The day where the user is: the registry's UTC stamps within it.
        recs = list(registry.records_where(conn, "has_note AND started >= ? AND started < ?",
                                           day_span(on)))
        written += _write_index_note(cfg, daily_note_path(on), render_daily(on, recs))
    return written


def touched_before(conn: sqlite3.Connection, sid: str) -> dict[str, set[str]]:
    """Before a session's record changes: the sessions, by project, whose links
    its present record makes (they may change when it does)."""
    from vibe_vault import neighbours

    old = registry.get(conn, sid)
    if old is None or not old.project:
        return {}
    return {old.project: neighbours.touched(neighbours.Near(conn, old.project), old)}


def session_ended(cfg: Config, conn: sqlite3.Connection, sid: str,
                  before: dict[str, set[str]], lock_timeout: float = 0.0) -> int:
    """After a session's record changed (SessionEnd): the links of its
    neighbours only (those it named before, `touched_before`, and names now),
    its project's note, the home note and its days' notes; notes written.
    Indexed reads throughout: the cost does not grow with the project."""
    from vibe_vault import neighbours

    projects = {p: set(sids) for p, sids in before.items()}
    rec = registry.get(conn, sid)
    if rec is not None and rec.project:
        projects.setdefault(rec.project, set()).update(
            neighbours.touched(neighbours.Near(conn, rec.project), rec))
    written = 0
    days: set[str] = set()
    daily = bool(cfg.get("daily_notes"))
    for project, sids in sorted(projects.items()):
        near = neighbours.Near(conn, project)
        links = neighbours.links_near(near, sids)
        records = {s: r for s in links if (r := near.record(s)) is not None}
        changed = apply_links(cfg, links, records, lock_timeout)
        if changed:
            with vaultdb.transaction(conn):
                for s in sorted(changed):
                    registry.put(conn, records[s])
        newer = {s: records[s] for s in changed}
        written += len(changed) + _write_index_note(
            cfg, project_note_path(project), render_project(project_view(conn, project, newer)))
        if daily:
            days.update(day(records[s].started) for s in {*changed, sid} & set(records)
                        if records[s].started)
    return written + _home_and_days(cfg, conn, days)


class ProjectDone(Struct):
    """What bringing one project's links and note up to date did: records
    whose links changed (for the registry), notes written, days it ran on."""

    changed: list[Record]
    written: int  # (of the notes owed, none)
    days: list[str]
    owed_written: list[str] = field(default_factory=list)  # the owed notes written
    # The search rows a worker made of the states it saved (asked for: the
    # project's sessions at most, a project a worker being a small one)
    indexed: list[IndexRow] = field(default_factory=list)


PARALLEL_FROM = 16  # projects, from which they are done on every core
INDEX_BATCH = 256  # search rows (each a session's texts) held before they are put
OWED_CHUNK = 128
# Notes owed by a backfill (apply_links) in a project, from which they are
# written on every core, a chunk of sessions each: each is a whole note to
# render and write (a project of 12,500 sessions, ~90 s on one core). Smaller
# projects are done on every core a project each, when they are many or owe
# this many notes between them.
OWED_PARALLEL_FROM = 2 * OWED_CHUNK


class Applied(Struct):
    """What apply_links did with a chunk of a project's sessions in a worker:
    the link records it changed, and the owed notes it wrote."""

    changed: list[Record]
    written: list[str]
    indexed: list[IndexRow] = field(default_factory=list)


def _projects_done(cfg: Config, conn: sqlite3.Connection, projects: list[str],
                   lock_timeout: float, daily: bool,
                   owed: AbstractSet[str] = frozenset(),
                   index_to: IndexTo | None = None,
                   owed_in: dict[str, int] | None = None) -> Iterator[ProjectDone]:
    """_project_done of each project. A project that owes many of a
    backfill's notes (`owed_in`: how many each owes) is done alone, its notes
    written on every core (_apply). The others, when they are many (a first
    backfill, a reprocess) or owe many notes between them, are done by forked
    workers, a project each, one worker per core, each reading the database
    on a connection of its own (the links, project notes and session notes of
    100,000 sessions: ~1 s on one core); the registry rows that change are
    written here, by the one writer. (Before, a first backfill owing 1,000
    notes or more wrote every note of a project under 1,000 in this process:
    at 5,000 sessions in 8 projects, 3,000 notes on one core, half the run.)"""
    cores = os.cpu_count() or 1
    counts = owed_in or {}
    large = [p for p in projects if counts.get(p, 0) >= OWED_PARALLEL_FROM]
    rest = [p for p in projects if counts.get(p, 0) < OWED_PARALLEL_FROM]
    yield from _small_projects_done(cfg, conn, rest, lock_timeout, daily, owed, index_to,
                                    parallel=cores > 1 and (
                                        len(rest) >= PARALLEL_FROM or sum(
                                            counts.get(p, 0) for p in rest)
                                        >= OWED_PARALLEL_FROM))
    for project in large:
        yield _project_done(cfg, conn, project, lock_timeout, daily, owed, index_to)


def _small_projects_done(cfg: Config, conn: sqlite3.Connection, projects: list[str],
                         lock_timeout: float, daily: bool, owed: AbstractSet[str],
                         index_to: IndexTo | None, parallel: bool) -> Iterator[ProjectDone]:
    """_project_done of each project, a project a worker when `parallel`."""
    cores = os.cpu_count() or 1
    if parallel:
        from vibe_vault import workers  # (only for many: SessionEnd's pass is one project)

        if workers.available():
            reader: list[sqlite3.Connection] = []  # a worker's own, opened at its first

            def work(project: str) -> ProjectDone:
                if not reader:
                    reader.append(vaultdb.reader(cfg.state_dir))
                # (its notes in this worker: no workers of its own; its search
                # rows sent back with what it did)
                rows: list[IndexRow] = []
                done = _project_done(cfg, reader[0], project, lock_timeout, daily, owed,
                                     rows.append if index_to is not None else None,
                                     chunked=False)
                done.indexed = rows
                return done

            with _frozen():
                yield from workers.in_order(
                    work, projects, cores, ProjectDone,
                    again=lambda project: _project_done(cfg, conn, project, lock_timeout,
                                                        daily, owed, index_to))
            return
    for project in projects:
        yield _project_done(cfg, conn, project, lock_timeout, daily, owed, index_to)


def _project_done(cfg: Config, conn: sqlite3.Connection, project: str, lock_timeout: float,
                  daily: bool, owed: AbstractSet[str] = frozenset(),
                  index_to: IndexTo | None = None, chunked: bool = True) -> ProjectDone:
    """One project's links applied to its sessions, and its note written.
    The links are worked out from the records as registry.link_records_of
    reads them; a session whose links changed is read whole again, given
    what apply_links changed, and written back whole."""
    tellers = registry.tellers(conn, [project])
    records = registry.link_records_of(conn, project, tellers)
    if not records:
        return ProjectDone(changed=[], written=0, days=[])
    links = compute_links(records, tellers)
    wrote_owed: set[str] = set()
    changed = _apply(cfg, links, records, lock_timeout, owed, wrote_owed, index_to, chunked)
    whole: dict[str, Record] = {}
    for sid in sorted(changed):
        rec = registry.get(conn, sid)
        if rec is not None:
            _links_into(rec, records[sid])
            whole[sid] = rec
    written = len(changed - wrote_owed) + _write_index_note(
        cfg, project_note_path(project), render_project(project_view(conn, project, whole)))
    days = sorted({day(r.started) for r in records.values() if r.started}) if daily else []
    return ProjectDone(changed=list(whole.values()), written=written, days=days,
                       owed_written=sorted(wrote_owed))


def _apply(cfg: Config, links: dict[str, Links], records: dict[str, Record],
           lock_timeout: float, owed: AbstractSet[str], written: set[str],
           indexed: IndexTo | None = None, chunked: bool = True) -> set[str]:
    """apply_links, the notes of a project written on every core when they
    are many (`chunked`): chunks of its sessions, each worker given their
    links and link records, the records it changed sent back into `records`.
    The notes written are those owed and those whose links changed (a large
    backfill's first stage, whose links were foreseen: up to 2,000 notes,
    which this process wrote alone while the workers wrote the rest)."""
    mine = sorted(sid for sid, lk in links.items() if sid in owed or (
        (rec := records.get(sid)) is not None and links_of(rec) != lk))
    cores = os.cpu_count() or 1
    if not chunked or len(mine) < OWED_PARALLEL_FROM or cores < 2:
        return apply_links(cfg, links, records, lock_timeout, owed, written, indexed)
    from vibe_vault import workers

    if not workers.available():
        return apply_links(cfg, links, records, lock_timeout, owed, written, indexed)
    changed: set[str] = set()
    chunks = [mine[i : i + OWED_CHUNK] for i in range(0, len(mine), OWED_CHUNK)]

    def work(chunk: list[str]) -> Applied:
        done: set[str] = set()
        these = {sid: records[sid] for sid in chunk}
        rows: list[IndexRow] = []
        moved = apply_links(cfg, {sid: links[sid] for sid in chunk}, these, lock_timeout,
                            owed, done, rows.append if indexed is not None else None)
        return Applied(changed=[these[sid] for sid in sorted(moved)], written=sorted(done),
                       indexed=rows)

    with _frozen():
        for applied in workers.in_order(work, chunks, cores, Applied):
            written.update(applied.written)
            if indexed is not None:
                for row in applied.indexed:  # (put as they come: a chunk's texts at a time)
                    indexed(row)
            for rec in applied.changed:
                records[rec.session_id] = rec
                changed.add(rec.session_id)
    return changed


@contextlib.contextmanager
def _frozen() -> Iterator[None]:
    """What this process holds kept out of the cycle collector while forked
    workers run: a worker's collections would otherwise touch every object,
    copying each page it shares with this process."""
    import gc

    already = gc.get_freeze_count() > 0  # (a backfill's, unfrozen by it at the end)
    gc.freeze()
    try:
        yield
    finally:
        if not already:
            gc.unfreeze()


def _links_into(rec: Record, changed: Record) -> None:
    """What apply_links sets in a record (its links, and its title, which
    may carry the tag), from one it changed into the record read whole."""
    rec.previous, rec.next = changed.previous, changed.next
    rec.continues, rec.continued_by = changed.continues, changed.continued_by
    rec.told_elsewhere, rec.title_tag = changed.told_elsewhere, changed.title_tag
    rec.title = changed.title


def _write_index_note(cfg: Config, relpath: str, text: str) -> bool:
    """Write a project, home or daily note; a note that cannot be written is
    said once in the log and passed over, so the other notes still are."""
    try:
        return write_note(cfg.vault, relpath, text).changed
    except OSError as exc:
        from vibe_vault.log import warn

        warn(cfg.state_dir, f"cannot write {relpath}: {exc.strerror or exc}", stderr=False)
        return False
