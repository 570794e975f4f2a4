"""Every time a person reads is told where they are: the project, home and daily
notes, `vv search` and `vv files` results, `vv stats` weeks and months, and
`vv stats --since`/`vv search --since` day boundaries, in the configured zone
(frontmatter: ISO 8601 with that zone's offset).

Sessions start at generated instants (many near a local midnight, where a UTC
day and the local day differ) in generated zones (DST edges, half-hour, +14 and
-12 among them); the oracle is zoneinfo applied to the transcript's own stamp.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import Env, examples

WORDS = ("amber", "birch", "cobalt", "dune", "ember")


def session_lines(sid: str, start: datetime, word: str) -> list[dict[str, Any]]:
    """One session in Claude Code's shape: a prompt with its own word, a Write
    of a file named by it, an answer; a second apart."""
    stamps = [(start + timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
              for k in range(4)]
    base = {"sessionId": sid, "cwd": "/work/app", "version": "2.1.50"}
    uuid = [f"{sid[:8]}-0000-4000-8000-{k:012d}" for k in range(1, 5)]
    usage = {"input_tokens": 1, "output_tokens": 1}
    path = f"/work/app/{word}.txt"
    return [
        {**base, "type": "user", "uuid": uuid[0], "parentUuid": None, "timestamp": stamps[0],
         "message": {"role": "user", "content": f"write the {word} file please"}},
        {**base, "type": "assistant", "uuid": uuid[1], "parentUuid": uuid[0],
         "timestamp": stamps[1],
         "message": {"id": f"m1{sid[:4]}", "role": "assistant", "model": "claude-sonnet-4-5",
                     "usage": usage, "content": [{"type": "tool_use", "id": f"tu{sid[:6]}",
                                                  "name": "Write",
                                                  "input": {"file_path": path,
                                                            "content": f"{word}\n"}}]}},
        {**base, "type": "user", "uuid": uuid[2], "parentUuid": uuid[1], "timestamp": stamps[2],
         "toolUseResult": {"type": "create", "filePath": path, "content": f"{word}\n"},
         "message": {"role": "user", "content": [{"type": "tool_result",
                                                  "tool_use_id": f"tu{sid[:6]}",
                                                  "content": "File created"}]}},
        {**base, "type": "assistant", "uuid": uuid[3], "parentUuid": uuid[2],
         "timestamp": stamps[3],
         "message": {"id": f"m2{sid[:4]}", "role": "assistant", "model": "claude-sonnet-4-5",
                     "usage": usage, "content": [{"type": "text", "text": "Written."}]}},
    ]


zones = st.one_of(
    st.sampled_from(["Pacific/Kiritimati", "Etc/GMT+12", "Asia/Kolkata", "Asia/Kathmandu",
                     "Australia/Lord_Howe", "America/St_Johns", "Europe/Berlin",
                     "America/Santiago", "Pacific/Chatham", "UTC"]).map(ZoneInfo),
    st.timezones().filter(lambda z: isinstance(z, ZoneInfo)),
)


@st.composite
def starts(draw: st.DrawFn, zone: ZoneInfo) -> list[datetime]:
    """Two to four session starts (UTC), most a few minutes either side of a
    local midnight of a generated day in `zone`, never within a minute of each
    other."""
    out: list[datetime] = []
    for _ in range(draw(st.integers(2, 4))):
        day = draw(st.dates(min_value=datetime(2020, 1, 1).date(),
                            max_value=datetime(2035, 12, 31).date()))
        local_midnight = datetime(day.year, day.month, day.day, tzinfo=zone)
        offset = draw(st.one_of(st.integers(-90, 90), st.integers(-1440, 1440)))
        at = (local_midnight.astimezone(UTC) + timedelta(minutes=offset)).replace(second=0)
        if all(abs((at - o).total_seconds()) > 120 for o in out):
            out.append(at)
    return out


@st.composite
def cases(draw: st.DrawFn) -> tuple[ZoneInfo, list[datetime]]:
    zone = draw(zones)
    return zone, draw(starts(zone))


def local_day(at: datetime, zone: ZoneInfo) -> str:
    there = at.astimezone(zone)
    return f"{there.year:04d}-{there.month:02d}-{there.day:02d}"


def hhmm(at: datetime, zone: ZoneInfo) -> str:
    there = at.astimezone(zone)
    return f"{there.hour:02d}:{there.minute:02d}"


def line_with(text: str, needle: str) -> str:
    found = [line for line in text.splitlines() if needle in line]
    assert found, f"no line with {needle!r} in\n{text}"
    return found[0]


@settings(max_examples=examples(4, 30), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(cases())
@example((ZoneInfo("Pacific/Kiritimati"),
          [datetime(2026, 11, 26, 9, 59, tzinfo=UTC), datetime(2026, 11, 26, 10, 1, tzinfo=UTC)]))
@example((ZoneInfo("Etc/GMT+12"),
          [datetime(2026, 11, 26, 11, 58, tzinfo=UTC), datetime(2026, 11, 26, 12, 2, tzinfo=UTC)]))
@example((ZoneInfo("America/New_York"),  # both sides of the November change, and midnight
          [datetime(2026, 11, 1, 4, 30, tzinfo=UTC), datetime(2026, 11, 1, 6, 30, tzinfo=UTC),
           datetime(2026, 11, 2, 4, 59, tzinfo=UTC), datetime(2026, 11, 2, 5, 1, tzinfo=UTC)]))
@example((ZoneInfo("Asia/Kolkata"),
          [datetime(2026, 12, 27, 18, 29, tzinfo=UTC), datetime(2026, 12, 27, 18, 31, tzinfo=UTC)]))
def test_times_people_read_are_local(tmp_path_factory: Any,
                                     case: tuple[ZoneInfo, list[datetime]]) -> None:
    zone, at = case
    env = Env(tmp_path_factory.mktemp("local"))
    env.configure(f'timezone = "{zone.key}"\ndaily_notes = true\n')
    sids = [f"{k + 1:08x}-aaaa-4000-8000-{k + 1:012d}" for k in range(len(at))]
    for sid, start, word in zip(sids, at, WORDS, strict=False):
        path = env.claude / "projects" / "-work-app" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(x) for x in session_lines(sid, start, word)) + "\n")
    r = env.vv_here("backfill")
    assert r.returncode == 0, r.stderr
    notes = env.all_notes()

    # The project note: each session's row starts with its local day; the
    # frontmatter holds the first and last start, ISO with the zone's offset.
    project = notes["Projects/app/app.md"]
    for sid, start in zip(sids, at, strict=False):
        row = line_with(project, sid[:8])
        assert row.startswith(f"| {local_day(start, zone)} | "), row
    first, last = min(at), max(at)
    fm = {k: v for k, _, v in (line.partition(": ") for line in project.split("---")[1].splitlines())}
    for key, when in (("first_session", first), ("last_session", last)):
        written = datetime.fromisoformat(fm[key])
        assert written == when
        assert written.utcoffset() == when.astimezone(zone).utcoffset()

    # The home note: the latest sessions by local day, the project's last one too.
    home = notes["Claude Code sessions.md"] if "Claude Code sessions.md" in notes else next(
        v for k, v in notes.items() if "type: index" in v)
    for sid, start in zip(sids, at, strict=False):
        assert line_with(home, sid[:8]).startswith(f"- {local_day(start, zone)} · ")
    assert f"| {local_day(last, zone)} |" in line_with(home, "[[Projects/app/app")

    # Daily notes: one per local day, each listing its sessions at their local time.
    days = {local_day(s, zone) for s in at}
    daily = {k: v for k, v in notes.items() if "type: daily" in v}
    assert {k.rsplit("/", 1)[-1].removesuffix(".md") for k in daily} == days
    for sid, start in zip(sids, at, strict=False):
        (text,) = [v for k, v in daily.items() if k.endswith(f"{local_day(start, zone)}.md")]
        assert line_with(text, sid[:8]).startswith(f"- {hhmm(start, zone)} · **app** · ")

    # vv search and vv files: each result's time line.
    for sid, start, word in zip(sids, at, WORDS, strict=False):
        when = f"  {local_day(start, zone)} {hhmm(start, zone)} · app · {sid[:8]}"
        out = env.vv_here("search", word).stdout.decode()
        assert when in out.splitlines(), out
        env_files = env.vv_here("files", f"/work/app/{word}.txt").stdout.decode()
        assert when in env_files.splitlines(), env_files

    # vv stats: weeks and months where the user is.
    for by in ("week", "month"):
        stats = json.loads(env.vv_here("stats", "--by", by, "--json").stdout)
        want: dict[str, int] = {}
        for start in at:
            there = start.astimezone(zone)
            y, w, _ = there.date().isocalendar()
            key = f"{y}-W{w:02d}" if by == "week" else f"{there.year:04d}-{there.month:02d}"
            want[key] = want.get(key, 0) + 1
        assert {k: v["sessions"] for k, v in stats[f"by_{by}"].items()} == want

    # --since a local day: the sessions that started on or after its local midnight.
    for start in at:
        since = local_day(start, zone)
        midnight = datetime.fromisoformat(since).replace(tzinfo=zone)
        want_n = sum(1 for s in at if s >= midnight)
        stats = json.loads(env.vv_here("stats", "--since", since, "--json").stdout)
        assert stats["total"]["sessions"] == want_n
        found = json.loads(env.vv_here("search", "--json", "--since", since, "file").stdout or "[]")
        assert sorted(h["session_id"] for h in found) == sorted(
            sid for sid, s in zip(sids, at, strict=False) if s >= midnight)
