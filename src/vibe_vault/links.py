"""Links between sessions: previous and next within a project, which
session continues which, and a session's summary written in another's file.
Pure: records in, links out.
"""

from __future__ import annotations

import itertools
from collections import Counter

from msgspec import Struct, field

from vibe_vault.records import Record
from vibe_vault.redact import Redacted
from vibe_vault.state import SessionState
from vibe_vault.text import one_line, trim
from vibe_vault.times import day, day_and_time


class Links(Struct):
    previous: str = ""
    next: str = ""
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)
    summary: str = ""  # the session's own summary, written in another session's file
    tag: str = ""  # what tells the note's title from the same title of other sessions


def order(record: Record) -> tuple[str, str]:
    return (record.started, record.session_id)


def compute_links(records: dict[str, Record],
                  tellers: dict[str, Record] | None = None) -> dict[str, Links]:
    """previous/next by start time within a project, and continuations
    within a project (Claude Code resumes a session only in its own folder),
    so a project's links need only its own records.

    Independent of the order sessions were processed in: a function of the
    records only (and of `tellers`: sessions without a note whose files hold
    summaries of these).
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
    _summaries(records, {**(tellers or {}), **records}, links)
    _tags(records, links)
    return links


TAG_WORDS = 4  # words of a first request that tell its session apart
TAG_CHARS = 60


def _tags(records: dict[str, Record], links: dict[str, Links]) -> None:
    """Sessions of one project with the same title are told apart by the first
    words their first requests do not share (`… the logout page …`); those
    whose requests are the same words are told apart by the day they started
    (by the minute, when that is the same too)."""
    same: dict[tuple[str, str], list[Record]] = {}
    for sid in links:
        r = records[sid]
        # Its title as it will be with the summary found here, before a tag.
        title = tag_title(r.named_title, one_line(links[sid].summary, 80), r.fallback_title,
                          r.title)
        if title:
            same.setdefault((r.project, title), []).append(r)
    for group in same.values():
        if len(group) > 1:
            for sid, tag in group_tags(group).items():
                links[sid].tag = tag


def tag_title(named: str, summary_line: str, fallback: str, title: str) -> str:
    """The title sessions are grouped by to be told apart: Claude Code's name,
    else the summary found in another file, else what stands in for a name
    (a record made before those parts were kept: its title)."""
    return (named or summary_line or fallback) if (named or fallback) else title


def group_tags(group: list[Record]) -> dict[str, str]:
    """The tag of each session of a group of two or more with the same title."""
    by_words = _word_tags(group)
    days = Counter(day(r.started) for r in group if not by_words.get(r.session_id))
    out = {}
    for r in group:
        its_day = day(r.started)
        out[r.session_id] = by_words.get(r.session_id) or (
            its_day if days[its_day] == 1 else day_and_time(r.started))
    return out


def _word_tags(group: list[Record]) -> dict[str, str]:
    """Each session's first words after the longest opening its request shares
    with another's in the group (compared without case); none for one whose
    request is all shared, nor for two whose words would read the same."""
    words = {r.session_id: r.request_words.split() for r in group}
    folded = {sid: [w.casefold() for w in ws] for sid, ws in words.items()}
    # The longest opening a request shares with any other is what it shares
    # with one beside it in sorted order (two further apart share no more
    # than each shares with those between them): a sort, where comparing
    # every pair was quadratic in the group (a title 230 sessions of a large
    # project share: 53,000 comparisons, at every link pass and SessionEnd).
    ranked = sorted(folded, key=folded.__getitem__)
    shared: dict[str, int] = dict.fromkeys(ranked, 0)
    for a, b in itertools.pairwise(ranked):
        common = _shared(folded[a], folded[b])
        shared[a] = max(shared[a], common)
        shared[b] = max(shared[b], common)
    tags: dict[str, str] = {}
    for sid, ws in words.items():
        if not ws or shared[sid] >= len(ws):
            continue
        k = shared[sid]
        rest = ws[k:k + TAG_WORDS]
        text = " ".join(rest) + (" …" if k + TAG_WORDS < len(ws) else "")
        tags[sid] = trim(("… " if k else "") + text, TAG_CHARS)
    told = Counter(t.casefold() for t in tags.values())
    return {sid: t for sid, t in tags.items() if told[t.casefold()] == 1}


def _shared(first: list[str], second: list[str]) -> int:
    """How many words `first` and `second` open with alike."""
    k = 0
    for x, y in zip(first, second, strict=False):
        if x != y:
            break
        k += 1
    return k


def _summaries(records: dict[str, Record], tellers: dict[str, Record],
               links: dict[str, Links]) -> None:
    """A `summary` line names the session it sums up by the uuid of its last
    entry, whichever file of the project it is written in: that session gets
    it (from the latest file that sums it up, when several do)."""
    told = [(r, leaf, text) for r in sorted(tellers.values(), key=order)
            for leaf, text in sorted(r.summaries.items())]
    if not told:
        return
    wanted = {(r.project, leaf) for r, leaf, _ in told}
    owner: dict[tuple[str, str], str] = {}
    for r in sorted(records.values(), key=order):
        for u in r.tail_uuids:
            if (r.project, u) in wanted:
                owner.setdefault((r.project, u), r.session_id)
    for r, leaf, text in told:
        sid = owner.get((r.project, leaf))
        if sid is not None and sid != r.session_id and sid in links:
            links[sid].summary = text


def set_links(state: SessionState, lk: Links) -> None:
    state.previous, state.next = lk.previous, lk.next
    state.continues, state.continued_by = lk.continues, list(lk.continued_by)
    # Made of summaries that passed the gate when their file was folded.
    state.told_elsewhere = Redacted(lk.summary)
    state.title_tag = Redacted(lk.tag)  # a date, or words of its gated first request


def links_of(record: Record | SessionState) -> Links:
    return Links(previous=record.previous, next=record.next, continues=record.continues,
                 continued_by=list(record.continued_by), summary=record.told_elsewhere,
                 tag=record.title_tag)
