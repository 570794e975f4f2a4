"""Per-project sums in the vault's database: sessions, active minutes, tokens
and cost by project and day, by model, and the files changed, kept up to date
by each session's change (its old record's share taken out, its new one's put
in), so the project and home notes and `vv stats` never read every record.

Only sessions with a note count, as everywhere the notes and stats report.
Cost is kept in whole nano-dollars: integer sums are exact and the same in
any order, so sums kept up by deltas equal sums made from scratch.
Days are the user's (the day of the record's `started` in the zone notes
tell times in): the database notes which zone its sums were made in, and a
change of zone makes them again (registry.connect).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from vibe_vault.state import token_total
from vibe_vault.times import current_zone, day

TABLES = ("agg_days", "agg_models", "agg_files", "agg_short")
NANO = 1_000_000_000


class Counted(msgspec.Struct):
    """The fields of a Record the sums are made of (the rest of its body is skipped)."""

    project: str = ""
    started: str = ""
    has_note: bool = False
    active_minutes: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float = 0.0
    tokens_by_model: dict[str, list[int]] = msgspec.field(default_factory=dict)
    cost_by_model: dict[str, float] = msgspec.field(default_factory=dict)
    files_changed: list[str] = msgspec.field(default_factory=list)
    output_short: int = 0
    output_unrecorded: int = 0


_decode = msgspec.msgpack.Decoder(Counted).decode


def zone_key() -> str:
    """The zone the sums' days are in, as the database notes it."""
    zone = current_zone()
    if zone is not None:
        return str(zone)
    import time

    return f"system {time.tzname} {time.timezone} {time.altzone}"


def nano(usd: float) -> int:
    return round(usd * NANO)


def usd(n: int | float) -> float:
    return n / NANO


def count(conn: sqlite3.Connection, body: bytes, sign: int) -> None:
    """Add (sign 1) or take out (sign -1) a record's share of the sums, from
    the record's encoded body, in the caller's transaction."""
    c = _decode(body)
    if not c.has_note:
        return
    key = (c.project, day(c.started))
    conn.execute(
        "INSERT INTO agg_days VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(project, day) DO UPDATE "
        "SET sessions = sessions + excluded.sessions, minutes = minutes + excluded.minutes, "
        "input = input + excluded.input, output = output + excluded.output, "
        "cache_read = cache_read + excluded.cache_read, "
        "cache_creation = cache_creation + excluded.cache_creation, "
        "cost = cost + excluded.cost",
        (*key, sign, sign * c.active_minutes, sign * c.input_tokens, sign * c.output_tokens,
         sign * c.cache_read_tokens, sign * c.cache_creation_tokens, sign * nano(c.cost_usd)))
    if c.tokens_by_model:
        conn.executemany(
            "INSERT INTO agg_models VALUES (?,?,?,?,?,?,?) ON CONFLICT(project, day, model) "
            "DO UPDATE SET sessions = sessions + excluded.sessions, "
            "tokens = tokens + excluded.tokens, cost = cost + excluded.cost, "
            "unpriced = unpriced + excluded.unpriced",
            [(*key, model, sign, sign * token_total(*t),
              sign * nano(c.cost_by_model.get(model, 0.0)),
              sign * int(model not in c.cost_by_model and token_total(*t) > 0))
             for model, t in c.tokens_by_model.items()])
    if c.files_changed:
        conn.executemany(
            "INSERT INTO agg_files VALUES (?,?,?,?) ON CONFLICT(project, day, path) "
            "DO UPDATE SET sessions = sessions + excluded.sessions",
            [(*key, path, sign) for path in dict.fromkeys(c.files_changed)])
    if c.output_short:
        conn.execute(
            "INSERT INTO agg_short VALUES (?,?,?,?) ON CONFLICT(project, day) DO UPDATE "
            "SET sessions = sessions + excluded.sessions, "
            "unrecorded = unrecorded + excluded.unrecorded",
            (*key, sign, sign * c.output_unrecorded))
    if sign < 0:  # a day, model or file no session counts any more leaves no row
        for table in TABLES:
            conn.execute(f"DELETE FROM {table} WHERE project = ? AND day = ? AND sessions = 0",
                         key)


def change(conn: sqlite3.Connection, old: bytes, new: bytes) -> None:
    """A record's share of the sums moved from its old body to its new one:
    nothing written when what they count is the same (a change of links)."""
    if old == new or _decode(old) == _decode(new):
        return
    count(conn, old, -1)
    count(conn, new, 1)


def rebuild(conn: sqlite3.Connection) -> None:
    """The sums made again from every record (in the caller's transaction):
    after an upgrade from a database without them."""
    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")
    for (body,) in conn.execute("SELECT body FROM records WHERE has_note").fetchall():
        count(conn, body, 1)
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('aggregates', 'ready'), "
                 "('aggregates_zone', ?)", (zone_key(),))


# -- reading them ------------------------------------------------------------------------


class Sums(msgspec.Struct):
    sessions: int = 0
    minutes: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    cost: int = 0  # nano-dollars

    @property
    def tokens(self) -> int:
        return token_total(self.input, self.output, self.cache_read, self.cache_creation)

    def add(self, row: Iterable[int]) -> None:
        s, m, i, o, r, c, cost = row
        self.sessions += s
        self.minutes += m
        self.input += i
        self.output += o
        self.cache_read += r
        self.cache_creation += c
        self.cost += cost


class ModelSums(msgspec.Struct):
    tokens: int = 0
    cost: int = 0
    unpriced: int = 0


def _where(project: str | None, since: str = "") -> tuple[str, list[Any]]:
    sql, params = " WHERE 1", []
    if project is not None:
        sql += " AND project = ?"
        params.append(project)
    if since:
        sql += " AND day >= ?"
        params.append(since)
    return sql, params


_SUMS = ("sum(sessions), sum(minutes), sum(input), sum(output), sum(cache_read), "
         "sum(cache_creation), sum(cost)")


def by_day(conn: sqlite3.Connection, project: str | None = None,
           since: str = "") -> Iterator[tuple[str, str, Sums]]:
    """(project, day, sums) in order; all projects when `project` is None."""
    where, params = _where(project, since)
    for p, on, *row in conn.execute(
            f"SELECT project, day, sessions, minutes, input, output, cache_read, cache_creation,"
            f" cost FROM agg_days{where} ORDER BY project, day", params):
        s = Sums()
        s.add(row)
        yield p, on, s


def by_model(conn: sqlite3.Connection, project: str | None = None,
             since: str = "") -> dict[str, ModelSums]:
    where, params = _where(project, since)
    return {model: ModelSums(tokens, cost, unpriced) for model, tokens, cost, unpriced in
            conn.execute(f"SELECT model, sum(tokens), sum(cost), sum(unpriced) FROM agg_models"
                         f"{where} GROUP BY model ORDER BY model", params)}


def top_files(conn: sqlite3.Connection, limit: int, project: str | None = None,
              since: str = "") -> list[tuple[str, int]]:
    where, params = _where(project, since)
    return [(path, n) for path, n in conn.execute(
        f"SELECT path, sum(sessions) AS n FROM agg_files{where} GROUP BY path "
        "ORDER BY n DESC, path LIMIT ?", [*params, limit])]


def totals(conn: sqlite3.Connection, project: str | None = None) -> Sums:
    where, params = _where(project)
    s = Sums()
    row = conn.execute(f"SELECT {_SUMS} FROM agg_days{where}", params).fetchone()
    if row[0] is not None:
        s.add(row)
    return s


def per_project(conn: sqlite3.Connection) -> dict[str, Sums]:
    out: dict[str, Sums] = {}
    for project, *row in conn.execute(
            f"SELECT project, {_SUMS} FROM agg_days GROUP BY project"):
        s = out[project] = Sums()
        s.add(row)
    return out


class Short(msgspec.Struct):
    """Sessions whose output tokens Claude Code under-recorded (it wrote a
    reply's usage before the reply ended), and about how many output tokens
    their totals leave out: sums that include them are lower bounds."""

    sessions: int = 0
    unrecorded: int = 0


def short_by_day(conn: sqlite3.Connection, project: str | None = None,
                 since: str = "") -> Iterator[tuple[str, str, Short]]:
    """(project, day, under-recorded sessions) in order, days with some only."""
    where, params = _where(project, since)
    for p, on, n, u in conn.execute(
            f"SELECT project, day, sessions, unrecorded FROM agg_short{where} "
            "AND sessions > 0 ORDER BY project, day", params):
        yield p, on, Short(int(n), int(u))


def under_recorded_by_project(conn: sqlite3.Connection) -> dict[str, Short]:
    out: dict[str, Short] = {}
    for p, _, s in short_by_day(conn):
        t = out.setdefault(p, Short())
        t.sessions += s.sessions
        t.unrecorded += s.unrecorded
    return out
