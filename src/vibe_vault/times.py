"""Times: reading the ISO 8601 stamps transcripts and hooks carry, and writing
them for each place a time lands (a note's facts and turns, its frontmatter,
the registry and index, note names, search results, stats periods).

The one place that knows the zone times are told in: `set_zone` takes the
config's `timezone` ("" is the system's own); every `zone` argument below
defaults to it. A stamp without an offset is UTC (as Claude Code writes them).
Only `datetime` is imported (C, cheap on the hook path); `zoneinfo` only when
a zone is named.
"""


import time
from datetime import UTC, datetime, tzinfo

# The zone times are told in, named by the config (`vv` and the hook set it
# when they load it; a rendering sets its options' own). Looked up at its first
# use, so a command that tells no time never imports zoneinfo. None is the
# system's own zone (the C library's, no import).
_ZONE_NAME: list[str] = [""]
_ZONE: list[tzinfo | None] = [None]
_LOOKED_UP: list[bool] = [True]


class _Current:
    """The default of every `zone` argument: the zone `set_zone` set (None
    already means the system's own)."""


CURRENT = _Current()
Zone = tzinfo | None | _Current


def _z(zone: Zone) -> tzinfo | None:
    if not isinstance(zone, _Current):
        return zone
    if not _LOOKED_UP[0]:
        _ZONE[0] = zone_named(_ZONE_NAME[0])
        _LOOKED_UP[0] = True
    return _ZONE[0]


def current_zone() -> tzinfo | None:
    """The zone set (None: the system's)."""
    return _z(CURRENT)


def zone_named(name: str) -> tzinfo | None:
    """The time zone a config's name means: None for the system's (also for a
    name this machine does not know; `vv doctor` and config checks say so)."""
    if not name:
        return None
    if name in ("UTC", "Etc/UTC"):
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # ~20 ms: only when configured

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def known_zone(name: str) -> bool:
    """Whether this machine knows the IANA zone `name`."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def set_zone(name: str) -> None:
    """Times from here on are told in the zone `name` ("": the system's)."""
    if name != _ZONE_NAME[0] or not name:
        _ZONE_NAME[0] = name
        _ZONE[0] = None
        _LOOKED_UP[0] = not name


# -- reading --------------------------------------------------------------------


def parse(timestamp: str) -> datetime | None:
    """An ISO 8601 stamp as an aware datetime (no offset: UTC); None if it is
    not one. (datetime.fromisoformat is C: faster than any parsing by hand.)"""
    try:
        dt = datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def epoch(timestamp: str) -> float | None:
    """Seconds since 1970 of an ISO 8601 stamp; None if it is not one. (Called
    for every transcript line: one call, no parse() in between.)"""
    try:
        dt = datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    return (dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt).timestamp()


def typed_epoch(text: str, zone: Zone = CURRENT) -> float:
    """Seconds since 1970 of a date (or time) a user typed, as `--since` takes
    them: one without an offset is in `zone` (a bare date: the start of that
    day there). ValueError if it is not one."""
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        z = _z(zone)
        dt = dt.astimezone() if z is None else dt.replace(tzinfo=z)
    return dt.timestamp()


def day_start(day_text: str, zone: Zone = CURRENT) -> datetime:
    """The first instant of a day (YYYY-MM-DD) in `zone`, aware. A midnight a
    clock change skips starts the day at the change; one it repeats, at the
    first. ValueError if it is not a date."""
    start = datetime.fromisoformat(day_text[:10]).replace(hour=0, minute=0, second=0,
                                                          microsecond=0, tzinfo=None)
    z = _z(zone)
    if z is None:
        return start.astimezone()  # the system's zone (mktime: the first of a repeat)
    # fold=0: a skipped midnight reads with the offset before the change, which
    # is the change itself in UTC; a repeated one is its first occurrence.
    return start.replace(tzinfo=z).astimezone(UTC).astimezone(z)


def day_span(day_text: str, zone: Zone = CURRENT) -> tuple[str, str]:
    """The UTC ISO stamps (as `utc_iso` writes them) a day in `zone` runs from
    (included) to (excluded): a registry's `started` compared as text."""
    from datetime import timedelta

    start = day_start(day_text, zone)
    next_day = (datetime.fromisoformat(day_text[:10]) + timedelta(days=1)).date().isoformat()
    end = day_start(next_day, zone)
    return (start.astimezone(UTC).replace(microsecond=0).isoformat(),
            end.astimezone(UTC).replace(microsecond=0).isoformat())


def day_of_epoch(seconds: float, zone: Zone = CURRENT) -> str:
    """The day (YYYY-MM-DD) an instant falls on in `zone`."""
    return datetime.fromtimestamp(seconds, UTC).astimezone(_z(zone)).strftime("%Y-%m-%d")


# -- writing --------------------------------------------------------------------


def utc_iso(timestamp: str) -> str:
    """A stamp as ISO 8601 in UTC with its offset, to the second (the registry's
    and the index's form); a text that is not a time, unchanged."""
    dt = parse(timestamp)
    return dt.astimezone(UTC).replace(microsecond=0).isoformat() if dt is not None else timestamp


def utc_iso_of_epoch(seconds: float) -> str:
    """Seconds since 1970 as `utc_iso` writes them; "" for 0 (no time)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds)) if seconds else ""


def now_utc_iso() -> str:
    """This moment, as `utc_iso` writes a stamp."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def local(timestamp: str, zone: Zone = CURRENT) -> datetime | None:
    """A stamp in `zone` (default: the zone set); None when it is not a time."""
    dt = parse(timestamp)
    return dt.astimezone(_z(zone)) if dt is not None else None


def local_iso(timestamp: str, zone: Zone = CURRENT) -> str:
    """ISO 8601 to the second with `zone`'s offset (a frontmatter's time)."""
    dt = local(timestamp, zone)
    return dt.replace(microsecond=0).isoformat() if dt is not None else timestamp


# What strftime's `%H:%M` and `%Y-%m-%d` write, by formatting the fields: a
# datetime's strftime imports and calls the time module's (~17k instructions
# a call, hundreds of calls a note). `%Y` is not padded below year 1000 by
# every C library: those years keep strftime.


def _hm(dt: datetime) -> str:
    return "%02d:%02d" % (dt.hour, dt.minute)  # noqa: UP031 (a third of an f-string's cost)


def _ymd(dt: datetime) -> str:
    if dt.year < 1000:
        return dt.strftime("%Y-%m-%d")
    return "%d-%02d-%02d" % (dt.year, dt.month, dt.day)  # noqa: UP031


def hhmm(timestamp: str, zone: Zone = CURRENT) -> str:
    """`14:05`: a turn's time; "" when it is not a time."""
    dt = local(timestamp, zone)
    return _hm(dt) if dt is not None else ""


def day(timestamp: str, zone: Zone = CURRENT) -> str:
    """`2026-11-26`: the day a stamp falls on in `zone`; "" when there is no
    stamp, its first ten characters when it is not a time."""
    if not timestamp:
        return ""
    dt = local(timestamp, zone)
    return _ymd(dt) if dt is not None else timestamp[:10]


def hhmm_and_day(timestamp: str, zone: Zone = CURRENT) -> tuple[str, str]:
    """(`hhmm(ts)`, `day(ts)`), the stamp read once; ("", "") when it is not a time."""
    dt = local(timestamp, zone)
    return (_hm(dt), _ymd(dt)) if dt is not None else ("", "")


def day_and_time(timestamp: str, zone: Zone = CURRENT) -> str:
    """`2026-11-26 14:05`; "" when there is no stamp, its first sixteen
    characters (T as a space) when it is not a time."""
    if not timestamp:
        return ""
    dt = local(timestamp, zone)
    return dt.strftime("%Y-%m-%d %H:%M") if dt is not None else timestamp[:16].replace("T", " ")


def started_line(timestamp: str, zone: Zone = CURRENT) -> str:
    """`2026-11-26 14:05 CET`: a note's start, with the zone's abbreviation."""
    dt = local(timestamp, zone)
    if dt is None:
        return ""
    return f"{dt:%Y-%m-%d %H:%M} {dt.tzname() or ''}".rstrip()


def note_stamp(timestamp: str) -> str:
    """`2026-11-26-1405`: a session note's name starts with its UTC start (the
    name never changes with the zone); "" when it is not a time."""
    dt = parse(timestamp)
    return dt.astimezone(UTC).strftime("%Y-%m-%d-%H%M") if dt is not None else ""


def period(timestamp: str, by: str, zone: Zone = CURRENT) -> str:
    """The week (`2026-W48`, ISO) or month (`2026-11`) a stamp falls in, in
    `zone`; "unknown" when it is not a time."""
    dt = local(timestamp, zone)
    if dt is None:
        return "unknown"
    if by == "week":
        y, w, _ = dt.isocalendar()
        return f"{y}-W{w:02d}"
    return dt.strftime("%Y-%m")
