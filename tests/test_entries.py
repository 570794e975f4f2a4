"""entries.py: a transcript line decodes to an Entry, or to a Malformed that
says why; never an exception, whatever the line holds."""

from __future__ import annotations

import pytest

from vibe_vault.entries import Entry, Malformed, decode_line


@pytest.mark.parametrize("line,kind", [
    (b"[1,2]", "not-an-object"), (b"42", "not-an-object"), (b"\xff\xfe", "invalid-json"),
    (b'{"type":"user","message":{"content":7}}', "unexpected-shape"),
    (b'{"type":"user", "x":', "invalid-json"), (b'{"a":"\x00"}', "invalid-json"),
])
def test_bad_lines_are_malformed_not_fatal(line: bytes, kind: str) -> None:
    e = decode_line(line)
    assert isinstance(e, Malformed) and e.reason == kind


def test_unknown_fields_and_types_decode() -> None:
    e = decode_line(b'{"type":"brand-new","whatever":{"deep":[1]},"version":"9.9"}')
    assert isinstance(e, Entry) and e.type == "brand-new"
