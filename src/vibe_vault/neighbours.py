"""The links of a few sessions, from indexed reads: what SessionEnd needs,
so its cost does not grow with the project's sessions.

`links.compute_links` makes every link of a project from all its records;
here the same links are made for one session's neighbourhood only. The
database keeps, beside each record, small tables of 64-bit keys (a hash of
the project and a message uuid, or of the project and a title) pointing at
the record's rowid: the messages a session ends with (`link_tails`), the
messages it names as its parent (`link_refs`), the messages other sessions'
summaries name (`link_told`) and its title as the index groups it
(`link_titles`). A key only finds candidates: each is checked against its
record, so a hash collision costs a read, never a wrong link.

Kept up by each record's change (registry.put_row), made again from the
records after an upgrade (`rebuild`).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable

import msgspec

from vibe_vault.links import Links, group_tags, tag_title
from vibe_vault.records import Record
from vibe_vault.text import one_line

TABLES = ("link_tails", "link_refs", "link_told", "link_titles")


class Linked(msgspec.Struct):
    """The fields of a Record its keys are made of (the rest of its body is skipped)."""

    project: str = ""
    has_note: bool = False
    title: str = ""
    tail_uuids: list[str] = msgspec.field(default_factory=list)
    first_parent: str = ""
    logical_parent: str = ""
    summaries: dict[str, str] = msgspec.field(default_factory=dict)
    told_elsewhere: str = ""
    named_title: str = ""
    fallback_title: str = ""


_decode = msgspec.msgpack.Decoder(Linked).decode
_decode_record = msgspec.msgpack.Decoder(Record).decode


def key(project: str, value: str) -> int:
    """A signed 64-bit key of a project and a uuid or title."""
    digest = hashlib.blake2b(f"{project}\0{value}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def title_key(record: Record | Linked, summary: str) -> str:
    """The title a session is grouped by to be told apart (links._tags'),
    with `summary` as its summary from another file."""
    return tag_title(record.named_title, one_line(summary, 80), record.fallback_title, record.title)


def _keys(linked: Linked) -> dict[str, set[int]]:
    p = linked.project
    out: dict[str, set[int]] = {"link_told": {key(p, leaf) for leaf in linked.summaries}}
    if linked.has_note:
        out["link_tails"] = {key(p, u) for u in linked.tail_uuids}
        out["link_refs"] = {key(p, ref) for ref in (linked.logical_parent, linked.first_parent)
                            if ref}
        title = title_key(linked, linked.told_elsewhere)
        out["link_titles"] = {key(p, title)} if title else set()
    return out


def count(conn: sqlite3.Connection, rowid: int, body: bytes, sign: int) -> None:
    """Add (sign 1) or take out (sign -1) a record's keys, in the caller's transaction."""
    for table, keys in _keys(_decode(body)).items():
        if not keys:
            continue
        rows = [(k, rowid) for k in sorted(keys)]
        if sign > 0:
            conn.executemany(f"INSERT OR IGNORE INTO {table}(h, rec) VALUES (?, ?)", rows)
        else:
            conn.executemany(f"DELETE FROM {table} WHERE h = ? AND rec = ?", rows)


def change(conn: sqlite3.Connection, rowid: int, old: bytes, new: bytes) -> None:
    """A record's keys moved from its old body to its new one (its rowid the
    same): only the keys that differ are taken out or put in."""
    if old == new:
        return
    before, after = _keys(_decode(old)), _keys(_decode(new))
    for table in TABLES:
        was, now = before.get(table, set()), after.get(table, set())
        if was - now:
            conn.executemany(f"DELETE FROM {table} WHERE h = ? AND rec = ?",
                             [(k, rowid) for k in sorted(was - now)])
        if now - was:
            conn.executemany(f"INSERT OR IGNORE INTO {table}(h, rec) VALUES (?, ?)",
                             [(k, rowid) for k in sorted(now - was)])


def rebuild(conn: sqlite3.Connection) -> None:
    """The keys made again from every record (in the caller's transaction)."""
    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")
    for rowid, body in conn.execute("SELECT rowid, body FROM records").fetchall():
        count(conn, rowid, body, 1)
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('link_keys', 'ready')")


class Near:
    """Reads of one project's records by key, each decoded once."""

    def __init__(self, conn: sqlite3.Connection, project: str) -> None:
        self.conn = conn
        self.project = project
        self.by_rowid: dict[int, Record] = {}
        self.rowid_of: dict[str, int] = {}
        self._owner: dict[str, str | None] = {}

    def _records(self, rowids: Iterable[int]) -> list[Record]:
        want = sorted(set(rowids) - set(self.by_rowid))
        for i in range(0, len(want), 500):
            part = want[i:i + 500]
            marks = ",".join("?" * len(part))
            for rowid, body in self.conn.execute(
                    f"SELECT rowid, body FROM records WHERE rowid IN ({marks})", part):
                try:
                    rec = _decode_record(body)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise sqlite3.DatabaseError(f"a record cannot be read: {exc}") from exc
                self.by_rowid[rowid] = rec
                self.rowid_of[rec.session_id] = rowid
        return [self.by_rowid[r] for r in set(rowids) if r in self.by_rowid]

    def by_key(self, table: str, value: str) -> list[Record]:
        rowids = [row[0] for row in self.conn.execute(
            f"SELECT rec FROM {table} WHERE h = ?", (key(self.project, value),))]
        return [r for r in self._records(rowids) if r.project == self.project]

    def record(self, sid: str) -> Record | None:
        row = self.conn.execute("SELECT rowid FROM records WHERE session_id = ?",
                                (sid,)).fetchone()
        if row is None:
            return None
        found = self._records([row[0]])
        return found[0] if found else None

    def beside(self, record: Record) -> tuple[Record | None, Record | None]:
        """The sessions with a note just before and just after `record` in start order."""
        out: list[Record | None] = []
        for cmp, way in (("<", "DESC"), (">", "ASC")):
            row = self.conn.execute(
                "SELECT rowid FROM records INDEXED BY records_by_project WHERE project = ? "
                f"AND has_note AND (started, session_id) {cmp} (?, ?) "
                f"ORDER BY started {way}, session_id {way} LIMIT 1",
                (self.project, record.started, record.session_id)).fetchone()
            found = self._records([row[0]]) if row else []
            out.append(found[0] if found else None)
        return out[0], out[1]

    def owner(self, uuid: str) -> Record | None:
        """The earliest session with a note that ends with the message `uuid`."""
        if uuid not in self._owner:
            have = [r for r in self.by_key("link_tails", uuid)
                    if r.has_note and uuid in r.tail_uuids]
            self._owner[uuid] = min(have, key=_order).session_id if have else None
        sid = self._owner[uuid]
        return None if sid is None else self.record(sid)

    def continues(self, record: Record) -> Record | None:
        for ref in (record.logical_parent, record.first_parent):
            other = self.owner(ref) if ref else None
            if other is not None and other.session_id != record.session_id:
                return other
        return None

    def continuing(self, record: Record) -> list[Record]:
        """Sessions that name one of `record`'s last messages as their parent."""
        out: dict[str, Record] = {}
        for u in record.tail_uuids:
            for other in self.by_key("link_refs", u):
                if other.has_note and u in (other.logical_parent, other.first_parent):
                    out[other.session_id] = other
        return [out[sid] for sid in sorted(out)]

    def summary(self, record: Record) -> str:
        """`record`'s summary from another session's file (the latest that sums it up)."""
        best: tuple[tuple[str, str], str, str] | None = None
        for u in record.tail_uuids:
            tellers = [t for t in self.by_key("link_told", u)
                       if u in t.summaries and t.session_id != record.session_id]
            if not tellers:
                continue
            owner = self.owner(u)
            if owner is None or owner.session_id != record.session_id:
                continue
            for t in tellers:
                cand = (_order(t), u, t.summaries[u])
                if best is None or cand[:2] > best[:2]:
                    best = cand
        return best[2] if best else ""

    def same_title(self, title: str) -> list[Record]:
        return [r for r in self.by_key("link_titles", title)
                if r.has_note and title_key(r, r.told_elsewhere) == title]


def _order(record: Record) -> tuple[str, str]:
    return (record.started, record.session_id)


def touched(near: Near, record: Record) -> set[str]:
    """The sessions whose links may change when `record` (as the database holds it
    now) comes, goes or changes: run before and after the change."""
    out = {record.session_id} if record.has_note else set()
    # (one without a note: its place's sessions, which are each other's now)
    out |= {x.session_id for x in near.beside(record) if x is not None}
    refs = [u for u in (record.logical_parent, record.first_parent) if u]
    for u in refs:
        out |= {x.session_id for x in near.by_key("link_tails", u) if u in x.tail_uuids}
    for u in record.tail_uuids:
        named = near.by_key("link_refs", u) + near.by_key("link_told", u)
        if not named:
            continue
        # whoever ends with `u` may gain or lose it as theirs, and whoever
        # names it may continue another session now
        out |= {x.session_id for x in near.by_key("link_tails", u) if u in x.tail_uuids}
        for x in near.by_key("link_refs", u):
            out.add(x.session_id)
            for ref in (x.logical_parent, x.first_parent):
                if ref:
                    out |= {y.session_id for y in near.by_key("link_tails", ref)
                            if ref in y.tail_uuids}
    for leaf in record.summaries:
        out |= {x.session_id for x in near.by_key("link_tails", leaf) if leaf in x.tail_uuids}
    for title in {title_key(record, record.told_elsewhere)} - {""}:
        out |= {x.session_id for x in near.same_title(title)}
    return out


def links_near(near: Near, sids: Iterable[str]) -> dict[str, Links]:
    """The links of the sessions `sids` (those with a note), and of those
    told apart from them by a tag, as compute_links would make them from all
    the project's records. `sids` must hold every session whose summary from
    another file may have changed (`touched` finds them)."""
    recs = {r.session_id: r for r in (near.record(sid) for sid in sorted(set(sids)))
            if r is not None and r.has_note and r.project == near.project}
    links = {sid: _own_links(near, r) for sid, r in recs.items()}
    # A session whose title changes (a summary found, or its own) leaves one
    # group of the same title and joins another: both are told apart anew.
    titles = {sid: title_key(r, links[sid].summary) for sid, r in recs.items()}
    for sid, r in list(recs.items()):
        for title in {titles[sid], title_key(r, r.told_elsewhere)} - {""}:
            for x in near.same_title(title):
                if x.session_id not in recs:
                    recs[x.session_id] = x
                    links[x.session_id] = _own_links(near, x)
                    titles[x.session_id] = title_key(x, links[x.session_id].summary)
    groups: dict[str, list[Record]] = {title: [] for title in titles.values() if title}
    for title, members in groups.items():
        found = {x.session_id: x for x in near.same_title(title) if x.session_id not in recs}
        found.update({sid: r for sid, r in recs.items() if titles[sid] == title})
        members.extend(found.values())
        if len(members) > 1:
            for sid, tag in group_tags(members).items():
                if sid in links:
                    links[sid].tag = tag
    return links


def _own_links(near: Near, record: Record) -> Links:
    """Every link of `record` but its tag."""
    lk = Links()
    before, after = near.beside(record)
    lk.previous = before.note if before else ""
    lk.next = after.note if after else ""
    parent = near.continues(record)
    lk.continues = parent.note if parent else ""
    lk.continued_by = sorted(x.note for x in near.continuing(record)
                             if (p := near.continues(x)) is not None
                             and p.session_id == record.session_id)
    lk.summary = near.summary(record)
    return lk
