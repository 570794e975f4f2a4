"""times.py: every stamp a transcript or hook carries, read and written for each
place, checked against zoneinfo and the standard library directly (the oracle),
over generated instants and zones (DST edges, half-hour and +14/-12 offsets)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import times

# Instants around DST changes and the date line are where a zone goes wrong.
instants = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1),
                        timezones=st.just(UTC))
zones = st.timezones(no_cache=False).filter(lambda z: isinstance(z, ZoneInfo))


def transcript_stamp(dt: datetime, millis: bool) -> str:
    """As Claude Code writes them: UTC with a Z, milliseconds or none."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + (f".{dt.microsecond // 1000:03d}" if millis
                                               else "") + "Z"


@given(instants, zones, st.booleans())
@example(datetime(2026, 3, 29, 0, 59, 59, tzinfo=UTC), ZoneInfo("Europe/Berlin"), False)
@example(datetime(2026, 3, 29, 1, 0, 0, tzinfo=UTC), ZoneInfo("Europe/Berlin"), False)
@example(datetime(2026, 11, 1, 5, 30, tzinfo=UTC), ZoneInfo("America/New_York"), True)
@example(datetime(2026, 11, 26, 10, 0, tzinfo=UTC), ZoneInfo("Pacific/Kiritimati"), False)
@example(datetime(2026, 11, 26, 11, 59, tzinfo=UTC), ZoneInfo("Etc/GMT+12"), False)
@example(datetime(2026, 11, 26, 18, 29, tzinfo=UTC), ZoneInfo("Asia/Kolkata"), False)
@example(datetime(2026, 4, 5, 15, 45, tzinfo=UTC), ZoneInfo("Australia/Lord_Howe"), False)
def test_stamp_in_every_zone(instant: datetime, zone: ZoneInfo, millis: bool) -> None:
    if not millis:
        instant = instant.replace(microsecond=0)
    else:
        instant = instant.replace(microsecond=instant.microsecond // 1000 * 1000)
    ts = transcript_stamp(instant, millis)
    there = instant.astimezone(zone)  # the oracle: zoneinfo itself
    assert times.epoch(ts) == instant.timestamp()
    assert times.parse(ts) == instant
    assert times.utc_iso(ts) == instant.replace(microsecond=0).isoformat()
    assert times.local(ts, zone) == there
    assert times.local_iso(ts, zone) == there.replace(microsecond=0).isoformat()
    assert datetime.fromisoformat(times.local_iso(ts, zone)) == instant.replace(microsecond=0)
    assert times.hhmm(ts, zone) == f"{there.hour:02d}:{there.minute:02d}"
    assert times.day(ts, zone) == f"{there.year:04d}-{there.month:02d}-{there.day:02d}"
    assert times.day_and_time(ts, zone) == f"{times.day(ts, zone)} {times.hhmm(ts, zone)}"
    assert times.started_line(ts, zone).startswith(times.day_and_time(ts, zone))
    assert times.note_stamp(ts) == (f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}"
                                    f"-{instant.hour:02d}{instant.minute:02d}")
    iso_year, iso_week, _ = there.date().isocalendar()
    assert times.period(ts, "week", zone) == f"{iso_year}-W{iso_week:02d}"
    assert times.period(ts, "month", zone) == f"{there.year:04d}-{there.month:02d}"


@given(instants, zones)
def test_the_set_zone_is_the_default(instant: datetime, zone: ZoneInfo) -> None:
    instant = instant.replace(microsecond=0)
    ts = transcript_stamp(instant, False)
    times.set_zone(zone.key)
    try:
        assert times.local(ts) == instant.astimezone(zone)
    finally:
        times.set_zone("")


@given(instants, st.integers(-12 * 60, 14 * 60).map(lambda m: timedelta(minutes=m)))
def test_any_offset_written_reads_as_the_same_instant(instant: datetime,
                                                      offset: timedelta) -> None:
    from datetime import timezone

    ts = instant.astimezone(timezone(offset)).isoformat()
    assert times.epoch(ts) == instant.timestamp()
    assert times.utc_iso(ts) == instant.replace(microsecond=0).isoformat()


@given(st.text(max_size=30).filter(lambda s: times.parse(s) is None))
def test_what_is_not_a_time(text: str) -> None:
    assert times.epoch(text) is None
    assert times.local(text) is None
    assert times.utc_iso(text) == text
    assert times.hhmm(text) == ""
    assert times.note_stamp(text) == ""
    assert times.period(text, "month") == "unknown"


def test_no_offset_is_utc() -> None:
    assert times.utc_iso("2026-11-26T10:00:00") == "2026-11-26T10:00:00+00:00"
    assert times.note_stamp("2026-11-26T10:00:00") == "2026-11-26-1000"


@settings(max_examples=examples(150, 500))
@given(st.datetimes(timezones=st.just(UTC)),
       st.sampled_from(["Z", "+00:00", ".5Z", ".123Z", ".999999Z", ".1234567Z", "z", ""]),
       st.sampled_from(["", "60", "nan", "1e1", " 1", "0x"]))
def test_fast_epoch_agrees_with_datetime(dt: datetime, suffix: str, garble: str) -> None:
    from vibe_vault.fold import epoch  # (the fold's name for times.epoch)

    ts = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if garble:
        ts = ts[:17] + garble
    ts += suffix
    try:
        expected: float | None = datetime.fromisoformat(ts).timestamp()
    except ValueError:
        expected = None
    assert epoch(ts) == expected, ts
