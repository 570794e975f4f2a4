"""The line reader: only whole lines, each once, across reads and chunks, and
when to read a transcript again from its start."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import reader
from vibe_vault.reader import Cursor, LineReader, must_restart


def lines_of(data: bytes, start: int = 0) -> tuple[list[bytes], int]:
    r = LineReader(io.BytesIO(data), start)
    out = [bytes(line) for line in r]  # a line handed out as a view is good until the next
    return out, r.end


def test_partial_last_line_is_left_for_next_time() -> None:
    out, end = lines_of(b'{"a":1}\n{"b":')
    assert out == [b'{"a":1}'] and end == 8


def test_complete_unterminated_object_is_taken() -> None:
    out, end = lines_of(b'{"a":1}\n{"b":2}')
    assert out == [b'{"a":1}', b'{"b":2}'] and end == 15


def test_split_on_newline_only() -> None:
    data = '{"t":"a\u2028b\u2029c\u0085d"}\r\n{"u":1}\n'.encode()
    out, _ = lines_of(data)
    assert len(out) == 2 and json.loads(out[0])["t"] == "a\u2028b\u2029c\u0085d"


def test_lines_across_chunk_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 7)
    data = b"".join(b'{"i":%d,"pad":"%s"}\n' % (i, b"x" * i) for i in range(30))
    out, end = lines_of(data)
    assert [json.loads(x)["i"] for x in out] == list(range(30))
    assert end == len(data)


def test_oversized_line_is_skipped_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 16)
    monkeypatch.setattr(reader, "MAX_LINE", 64)
    data = b'{"a":1}\n' + b'{"big":"' + b"y" * 500 + b'"}\n' + b'{"c":3}\n'
    r = LineReader(io.BytesIO(data), 0)
    assert [bytes(x) for x in r] == [b'{"a":1}', b'{"c":3}']
    assert r.oversized == 1 and r.end == len(data)


def test_a_long_line_still_being_written_is_skipped_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file with no newline past MAX_LINE (an 8 GB one, say) is not read again
    from the start at every event: the next read goes on skipping from there."""
    monkeypatch.setattr(reader, "CHUNK", 16)
    monkeypatch.setattr(reader, "MAX_LINE", 64)
    first = b'{"a":1}\n' + b'{"big":"' + b"y" * 300
    r = LineReader(io.BytesIO(first), 0)
    assert [bytes(x) for x in r] == [b'{"a":1}']
    assert r.in_long_line and r.end == len(first) and r.oversized == 0
    rest = b"y" * 100 + b'"}\n{"c":3}\n'
    f = io.BytesIO(first + rest)
    r2 = LineReader(f, r.end, in_long_line=True)
    assert [bytes(x) for x in r2] == [b'{"c":3}']
    assert r2.oversized == 1 and not r2.in_long_line and r2.end == len(first + rest)


def test_a_short_unfinished_line_is_left_for_next_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 16)
    data = b'{"a":1}\n{"b":"partial'
    r = LineReader(io.BytesIO(data), 0)
    assert [bytes(x) for x in r] == [b'{"a":1}']
    assert r.end == 8 and not r.in_long_line


def test_reading_stops_at_the_size_the_file_had() -> None:
    data = b'{"a":1}\n{"b":2}\n{"c":3}\n'
    r = LineReader(io.BytesIO(data), 0, limit=16)
    assert [bytes(x) for x in r] == [b'{"a":1}', b'{"b":2}']
    assert r.end == 16


def test_restart_when_shrunk_or_rewritten(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":2}\n')
    st = p.stat()
    import zlib

    cur = Cursor(offset=16, inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns,
                 head_len=16, head_crc=zlib.crc32(b'{"a":1}\n{"b":2}\n'))
    with open(p, "rb") as f:
        assert not must_restart(cur, f, p.stat())
    p.write_bytes(b'{"z":1}\n{"b":2}\n{"c":3}\n')
    with open(p, "rb") as f:
        assert must_restart(cur, f, p.stat())
    p.write_bytes(b'{"a":1}\n')
    with open(p, "rb") as f:
        assert must_restart(cur, f, p.stat())


def test_descriptor_reads_as_a_file_object_does(tmp_path: Path) -> None:
    """The hook's reader (by position, on a descriptor) hands out the same
    lines, stops at the same offsets and checks the same bytes as a file object."""
    import zlib

    from vibe_vault.reader import head_of, reader_of, tail_of

    lines = [b'{"n":%d,"pad":"%s"}' % (i, b"x" * (i * 977 % 5000)) for i in range(400)]
    data = b"\n".join(lines) + b'\n{"partial":'
    p = tmp_path / "t.jsonl"
    p.write_bytes(data)
    for start in (0, len(lines[0]) + 1, len(data) // 2):
        with open(p, "rb") as f:
            plain = LineReader(f, start)
            expected = [bytes(line) for line in plain]
        fd = os.open(p, os.O_RDONLY)
        try:
            by_fd = LineReader(reader_of(fd), start, limit=len(data))
            got = [bytes(line) for line in by_fd]
            assert got == expected and by_fd.end == plain.end
            f2 = reader_of(fd)
            assert head_of(f2, by_fd.end) == (64, zlib.crc32(data[:64]))
            assert tail_of(f2, by_fd.end) == (64, zlib.crc32(data[by_fd.end - 64:by_fd.end]))
        finally:
            os.close(fd)


# -- the deadline ---------------------------------------------------------------------


@settings(max_examples=examples(150, 1500), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pads=st.lists(st.integers(0, 40), min_size=1, max_size=25),
       costs=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.0]), min_size=1, max_size=25),
       deadline=st.sampled_from([0.0, 0.3, 1.0, 2.5, 4.0, 100.0]), newline=st.booleans(),
       chunk=st.sampled_from([7, 64, 1 << 20]))
def test_a_read_stops_before_a_line_it_could_not_use_in_time_and_the_next_goes_on(
        monkeypatch: pytest.MonkeyPatch, pads: list[int], costs: list[float], deadline: float,
        newline: bool, chunk: int) -> None:
    """The caller takes a drawn time over each line (a clock of the test's own).
    A line is handed out only when the time now plus the longest the caller took
    over a line before it is within the deadline; the read stops at the first
    that is not, and a read from where it stopped hands out the rest: each line
    of the file once, in order. (Its last line may lack its newline.)"""
    monkeypatch.setattr(reader, "CHUNK", chunk)
    lines = [json.dumps({"n": n, "pad": "x" * pad}).encode() for n, pad in enumerate(pads)]
    data = b"\n".join(lines) + (b"\n" if newline else b"")
    start = 1000.0  # (a monotonic clock's reading is never 0)
    clock = [start]
    monkeypatch.setattr(reader, "time", type("Clock", (), {
        "monotonic": staticmethod(lambda: clock[0])}))
    first = LineReader(io.BytesIO(data), 0, start + deadline, limit=len(data))
    got: list[bytes] = []
    for line in first:
        took = [costs[k % len(costs)] for k in range(len(got))]
        assert clock[0] + max(took, default=0.0) <= start + deadline, (len(got), clock[0])
        got.append(bytes(line))
        clock[0] += costs[(len(got) - 1) % len(costs)]
    if len(got) < len(lines):  # stopped: the line it stopped before was not in time
        took = [costs[k % len(costs)] for k in range(len(got))]
        assert clock[0] + max(took, default=0.0) > start + deadline
    assert first.stopped_early == (len(got) < len(lines))
    assert got == lines[:len(got)]
    rest = LineReader(io.BytesIO(data), first.end, limit=len(data))
    assert got + [bytes(line) for line in rest] == lines
