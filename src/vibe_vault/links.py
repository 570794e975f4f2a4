"""Links between sessions: previous and next within a project, and which
session continues which. Pure: records in, links out.
"""

from __future__ import annotations

import itertools

from msgspec import Struct, field

from vibe_vault.records import Record
from vibe_vault.state import SessionState


class Links(Struct):
    previous: str = ""
    next: str = ""
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)


def order(r: Record) -> tuple[str, str]:
    return (r.started, r.session_id)


def compute_links(records: dict[str, Record]) -> dict[str, Links]:
    """previous/next by start time within a project, and continuations
    within a project (Claude Code resumes a session only in its own folder),
    so a project's links need only its own records.

    Independent of the order sessions were processed in: a function of the
    records only.
    """
    links = {sid: Links() for sid, r in records.items() if r.has_note}
    by_project: dict[str, list[Record]] = {}
    for r in records.values():
        if r.has_note:
            by_project.setdefault(r.project, []).append(r)
    for recs in by_project.values():
        recs.sort(key=order)
        for a, b in itertools.pairwise(recs):
            links[a.session_id].next = b.note
            links[b.session_id].previous = a.note
    # Only the messages some session names as its parent: a project's records
    # hold tens of thousands of tail uuids, and a handful are ever asked for.
    wanted = {ref for r in records.values() for ref in (r.logical_parent, r.first_parent) if ref}
    owner: dict[tuple[str, str], str] = {}
    for r in sorted(records.values(), key=order):
        for u in r.tail_uuids:
            if u in wanted:
                owner.setdefault((r.project, u), r.session_id)
    for sid in sorted(links):
        r = records[sid]
        # Evidence only: the first message's parent, or a compaction's logical
        # parent. A summary line at the top names other sessions, but they may
        # merely have been summed up there.
        for ref in (r.logical_parent, r.first_parent):
            other = owner.get((r.project, ref)) if ref else None
            if other and other != sid and other in links:
                links[sid].continues = records[other].note
                links[other].continued_by.append(r.note)
                break
    for lk in links.values():
        lk.continued_by.sort()
    return links


def set_links(state: SessionState, lk: Links) -> None:
    state.previous, state.next = lk.previous, lk.next
    state.continues, state.continued_by = lk.continues, list(lk.continued_by)


def links_of(r: Record | SessionState) -> Links:
    return Links(previous=r.previous, next=r.next, continues=r.continues,
                 continued_by=list(r.continued_by))
