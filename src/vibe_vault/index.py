"""The vault's indexes: links between sessions, project notes, the home note.

Computed from the registry alone (pure functions of the records), then applied:
a session whose links changed gets its state updated and its note rewritten
under its own lock. Run at SessionEnd and at the end of a backfill, never on
every Stop.
"""


import itertools
from collections.abc import Sequence
from datetime import UTC, datetime

from msgspec import Struct, field

from vibe_vault import registry
from vibe_vault.atomic import StrPath
from vibe_vault.config import Config
from vibe_vault.lock import LockTimeout, SessionLock
from vibe_vault.note import write_note
from vibe_vault.paths import safe_name
from vibe_vault.registry import Record, Registry
from vibe_vault.render import (
    REWRITE_NOTICE,
    USER_HEADING,
    USER_HINT,
    Figures,
    RenderOptions,
    cell,
    code,
    figures,
    iso,
    render,
    short_tokens,
    wikilink,
    yaml_str,
)
from vibe_vault.resume import resume_command
from vibe_vault.state import SessionState, worth_a_note


def make_record(state: SessionState, files: Sequence[StrPath], opts: RenderOptions,
                fig: Figures | None = None) -> Record:
    """The registry record of a session, from its state (and its figures, when
    the note was just rendered from them)."""
    fig = fig or figures(state, opts)
    f = state.fold
    by_model = {model: [t.input, t.output, t.cache_read, t.cache_creation]
                for model, t in fig.tokens.items()}
    cost_by_model = {model: round(c, 6) for model, c in fig.costs.items()}
    stamps = [s for s in (registry.stamp(p) for p in files) if s is not None]
    todos = list(f.todos) or list(f.tasks.values())
    return Record(
        session_id=state.session_id,
        project=state.project,
        note=state.note,
        title=fig.title,
        summary=fig.summary,
        cwd=f.cwd,
        started=iso(f.first_ts) if f.first_ts else "",
        ended=iso(f.last_ts) if f.last_ts else "",
        status=state.status,
        end_reason=state.end_reason,
        duration_minutes=fig.wall_minutes,
        active_minutes=fig.active_minutes,
        input_tokens=fig.total.input,
        output_tokens=fig.total.output,
        cache_read_tokens=fig.total.cache_read,
        cache_creation_tokens=fig.total.cache_creation,
        cost_usd=fig.cost,
        tokens_by_model=by_model,
        cost_by_model=cost_by_model,
        files_changed=[str(path) for path in sorted(f.files)[:200]],
        tool_calls=fig.tool_calls,
        prompts=f.prompts,
        open_tasks=[str(t.text) for t in todos if t.status != "completed"][:20],
        files=stamps,
        first_parent=f.first_parent,
        logical_parent=f.logical_parent,
        leaf_refs=list(f.leaf_refs),
        tail_uuids=list(f.tail_uuids),
        has_note=bool(state.note) and worth_a_note(f),
        unknown=_unknown(state),
        previous=state.previous,
        next=state.next,
        continues=state.continues,
        continued_by=list(state.continued_by),
    )


def _unknown(state: SessionState) -> dict[str, int]:
    counts: dict[str, int] = {str(kind): n for kind, n in state.fold.unknown.items()}
    for af in state.agents.values():
        for k, n in af.fold.unknown.items():
            counts[k] = counts.get(k, 0) + n
    return counts


class Links(Struct):
    previous: str = ""
    next: str = ""
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)


def _order(r: Record) -> tuple[str, str]:
    return (r.started, r.session_id)


def compute_links(records: dict[str, Record]) -> dict[str, Links]:
    """previous/next by start time within a project, and continuations.

    Independent of the order sessions were processed in: a function of the
    records only.
    """
    links = {sid: Links() for sid, r in records.items() if r.has_note}
    by_project: dict[str, list[Record]] = {}
    for r in records.values():
        if r.has_note:
            by_project.setdefault(r.project, []).append(r)
    for recs in by_project.values():
        recs.sort(key=_order)
        for a, b in itertools.pairwise(recs):
            links[a.session_id].next = b.note
            links[b.session_id].previous = a.note
    owner: dict[str, str] = {}
    for r in sorted(records.values(), key=_order):
        for u in r.tail_uuids:
            owner.setdefault(u, r.session_id)
    for sid in sorted(links):
        r = records[sid]
        # Evidence only: the first message's parent, or a compaction's logical
        # parent. A summary line at the top names other sessions, but they may
        # merely have been summed up there.
        for ref in (r.logical_parent, r.first_parent):
            other = owner.get(ref) if ref else None
            if other and other != sid and other in links:
                links[sid].continues = records[other].note
                links[other].continued_by.append(r.note)
                break
    for lk in links.values():
        lk.continued_by.sort()
    return links


def apply_links(cfg: Config, links: dict[str, Links], records: dict[str, Record],
                lock_timeout: float = 2.0) -> set[str]:
    """Write changed links into session states and notes; the sessions changed.

    Only sessions whose record says their note carries other links are
    touched, so a pass over an unchanged vault opens no state at all.
    """
    from vibe_vault.session import Store, render_options

    store = Store(cfg.state_dir)
    changed: set[str] = set()
    for sid, lk in sorted(links.items()):
        rec = records.get(sid)
        if rec is None or _links_of(rec) == lk:
            continue
        try:
            with SessionLock(store.lock_path(sid), lock_timeout):
                state = store.load(sid)
                if state is None or not state.note:
                    continue
                set_links(state, lk)
                written = write_note(cfg.vault, state.note, render(state, render_options(cfg)),
                                     state.user_notes)
                state.user_notes = written.user_part
                store.save(state)
        except (LockTimeout, OSError):
            continue  # the next backfill or event catches up
        rec.previous, rec.next = lk.previous, lk.next
        rec.continues, rec.continued_by = lk.continues, list(lk.continued_by)
        changed.add(sid)
    return changed


def set_links(state: SessionState, lk: Links) -> None:
    state.previous, state.next = lk.previous, lk.next
    state.continues, state.continued_by = lk.continues, list(lk.continued_by)


def _links_of(r: Record | SessionState) -> Links:
    return Links(previous=r.previous, next=r.next, continues=r.continues,
                 continued_by=list(r.continued_by))


def project_note_path(project: str) -> str:
    p = safe_name(project, 60)
    return f"Projects/{p}/{p}.md"


def _date(iso_ts: str) -> str:
    return iso_ts[:10] if iso_ts else ""


def _money(x: float) -> str:
    return f"${x:,.2f}"


def render_project(project: str, recs: list[Record]) -> str:
    recs = sorted(recs, key=_order, reverse=True)
    tokens = sum(r.input_tokens + r.output_tokens + r.cache_read_tokens
                 + r.cache_creation_tokens for r in recs)
    cost = sum(r.cost_usd for r in recs)
    minutes = sum(r.active_minutes for r in recs)
    out = ["---", "type: project", f"project: {yaml_str(project)}", f"sessions: {len(recs)}",
           f"active_minutes: {minutes}", f"tokens: {tokens}", f"cost_usd: {cost:.4f}"]
    if recs:
        out.append(f"first_session: {recs[-1].started or 'null'}")
        out.append(f"last_session: {recs[0].started or 'null'}")
    out += ["tags:", "  - project", "---", REWRITE_NOTICE, "", f"# {project}", ""]
    out.append(f"**{len(recs)} sessions** · **{minutes // 60}h {minutes % 60:02d}m active** · "
               f"**{short_tokens(tokens)} tokens** · **{_money(cost)}**")
    out += ["", "## Sessions", "", "| Date | Session | Duration | Tokens | Cost | Status |",
            "|---|---|--:|--:|--:|---|"]
    for r in recs:
        t = r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_creation_tokens
        status = r.status if not r.end_reason else f"{r.status} ({r.end_reason})"
        out.append(f"| {_date(r.started)} | {cell(wikilink(r.note, r.title))} | "
                   f"{r.duration_minutes} min | {short_tokens(t)} | {_money(r.cost_usd)} | "
                   f"{status} |")
    open_tasks = [(r, task) for r in recs[:5] for task in r.open_tasks]
    if open_tasks:
        out += ["", "## Open threads (latest sessions)", ""]
        for r, task in open_tasks[:30]:
            out.append(f"- [ ] {task} ({wikilink(r.note, _date(r.started))})")
    out += ["", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def render_home(records: list[Record], latest: int = 20) -> str:
    by_project: dict[str, list[Record]] = {}
    for r in records:
        by_project.setdefault(r.project, []).append(r)
    cost = sum(r.cost_usd for r in records)
    out = ["---", "type: index", f"sessions: {len(records)}", f"projects: {len(by_project)}",
           f"cost_usd: {cost:.4f}", "---", REWRITE_NOTICE, "", "# Claude Code sessions", "",
           f"**{len(records)} sessions** in **{len(by_project)} projects** · **{_money(cost)}**",
           "", "## Projects", "", "| Project | Sessions | Last session | Active | Cost |",
           "|---|--:|---|--:|--:|"]
    rows = sorted(by_project.items(), key=lambda kv: max(_order(r) for r in kv[1]),
                  reverse=True)
    for project, recs in rows:
        last = max(r.started for r in recs)
        minutes = sum(r.active_minutes for r in recs)
        out.append(f"| {cell(wikilink(project_note_path(project), project))} | {len(recs)} | "
                   f"{_date(last)} | {minutes // 60}h {minutes % 60:02d}m | "
                   f"{_money(sum(r.cost_usd for r in recs))} |")
    out += ["", "## Latest sessions", ""]
    for rec in sorted(records, key=_order, reverse=True)[:latest]:
        out.append(f"- {_date(rec.started)} · **{rec.project}** · {wikilink(rec.note, rec.title)}"
                   f" · {code(resume_command(rec.cwd, rec.session_id))}")
    out += ["", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def render_daily(day: str, records: list[Record]) -> str:
    recs = sorted(records, key=_order)
    cost = sum(r.cost_usd for r in recs)
    out = ["---", "type: daily", f"date: {day}", f"sessions: {len(recs)}",
           f"cost_usd: {cost:.4f}", "---", REWRITE_NOTICE, "", f"# {day}", ""]
    for r in recs:
        out.append(f"- {r.started[11:16]} · **{r.project}** · {wikilink(r.note, r.title)} "
                   f"({r.duration_minutes} min, {_money(r.cost_usd)})")
    out += ["", USER_HEADING, USER_HINT]
    return "\n".join(out) + "\n"


def regenerate(cfg: Config, reg: Registry, projects: set[str] | None = None,
               lock_timeout: float = 2.0) -> int:
    """Links, project notes, home note (and daily notes if enabled); notes written.
    A session whose lock stays held past `lock_timeout` keeps its old links
    until the next run."""
    records = {sid: r for sid, r in reg.sessions.items() if r.has_note}
    changed = apply_links(cfg, compute_links(records), records, lock_timeout)
    written = len(changed)
    if changed:
        registry.merge(cfg.state_dir, {sid: records[sid] for sid in changed},
                       only_known=True)
    by_project: dict[str, list[Record]] = {}
    for r in records.values():
        by_project.setdefault(r.project, []).append(r)
    for project, recs in sorted(by_project.items()):
        if projects is not None and project not in projects:
            continue
        written += _write_index_note(cfg, project_note_path(project),
                                     render_project(project, recs))
    written += _write_index_note(cfg, "index.md", render_home(list(records.values())))
    if records:
        from vibe_vault.bases import write_sessions_base

        written += write_sessions_base(cfg.vault)
    if cfg.get("daily_notes"):
        days: dict[str, list[Record]] = {}
        for r in records.values():
            if r.started:
                days.setdefault(_local_day(r.started), []).append(r)
        for day, recs in sorted(days.items()):
            written += _write_index_note(cfg, f"Daily/{day}.md", render_daily(day, recs))
    return written


def _write_index_note(cfg: Config, relpath: str, text: str) -> bool:
    """Write a project, home or daily note; a note that cannot be written is
    said once in the log and passed over, so the other notes still are."""
    try:
        return write_note(cfg.vault, relpath, text).changed
    except OSError as exc:
        from vibe_vault.log import warn

        warn(cfg.state_dir, f"cannot write {relpath}: {exc.strerror or exc}", stderr=False)
        return False


def _local_day(started: str) -> str:
    try:
        return datetime.fromisoformat(started).astimezone(UTC).strftime("%Y-%m-%d")
    except ValueError:
        return started[:10]
