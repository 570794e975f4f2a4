"""Focused unit tests for the reader, the YAML writer, the note and the redactor."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vibe_vault import reader
from vibe_vault.entries import Entry, Malformed, decode_line
from vibe_vault.note import user_section, write_note
from vibe_vault.paths import relative_to, safe_id, safe_name
from vibe_vault.project import project_name, remote_repo_name
from vibe_vault.reader import Cursor, LineReader, must_restart
from vibe_vault.redact import Redactor
from vibe_vault.render import USER_HEADING, yaml_str


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
    import os
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


@given(st.text())
@example("A\n")  # `$` also matches before a final newline: this once went out plain
@example("12\n")
def test_yaml_str_round_trips(s: str) -> None:
    loaded = yaml.safe_load(f"k: {yaml_str(s)}\n")
    expected = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 or ord(c) in (0xFFFE, 0xFFFF)
                       else c for c in s)
    assert loaded == {"k": expected}


def test_user_section_survives_rewrite(tmp_path: Path) -> None:
    gen1 = f"---\ntype: session\n---\n# One\n{USER_HEADING}\n<!-- hint -->\n"
    write_note(tmp_path, "n.md", gen1)
    p = tmp_path / "n.md"
    p.write_text(p.read_text() + "my own words\n\n## More of mine\n")
    gen2 = f"---\ntype: session\n---\n# Two\n{USER_HEADING}\n<!-- hint -->\n"
    write_note(tmp_path, "n.md", gen2)
    text = p.read_text()
    assert text.startswith(gen2.split(USER_HEADING)[0])
    assert text.endswith("my own words\n\n## More of mine\n")
    assert user_section(text).count("my own words") == 1


def test_note_never_written_through_symlink_out_of_vault(tmp_path: Path) -> None:
    from vibe_vault.note import OutsideVault

    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "Projects").mkdir(parents=True)
    outside.mkdir()
    (vault / "Projects" / "p").symlink_to(outside)
    with pytest.raises(OutsideVault):
        write_note(vault, "Projects/p/sessions/n.md", "x\n")
    assert not any(outside.rglob("*.md"))


@pytest.mark.parametrize("name", ["..", ".", "a/b", "..\\..\\x", "CON", "nul.txt", "x\x00y",
                                  "C:\\evil", " ", "a" * 500, "\u2028", "com1"])
def test_safe_name_is_one_harmless_component(name: str) -> None:
    s = safe_name(name)
    assert s and "/" not in s and "\\" not in s and "\x00" not in s
    assert s not in (".", "..") and len(s.encode()) <= 80
    assert s.split(".")[0].lower() not in ("con", "nul", "com1")
    assert "/" not in safe_id(name) and safe_id(name) not in (".", "..")


def test_relative_paths_posix_and_windows() -> None:
    assert relative_to("/home/u/p/src/a.py", "/home/u/p") == "src/a.py"
    assert relative_to("/elsewhere/a.py", "/home/u/p") == "/elsewhere/a.py"
    assert relative_to("C:\\Users\\me\\repo\\x.ps1", "C:\\Users\\me\\repo") == "x.ps1"
    assert relative_to("c:\\users\\me\\repo\\d\\x.ps1", "C:\\Users\\me\\repo") == "d/x.ps1"


def test_project_name_from_git_remote_or_directory(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:me/My-Tool.git\n')
    assert project_name(str(repo)) == "My-Tool"
    assert project_name(str(tmp_path / "plain-dir")) == "plain-dir"
    assert project_name("C:\\Users\\s\\source\\repos\\branch-pruner") == "branch-pruner"
    assert remote_repo_name('[remote "up"]\n url = https://x.org/a/b/\n') == "b"
    assert project_name("") == "unknown"


SECRETS = {
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "gitlab-token": "glpat-" + "Abc123Def456Ghi789Jk",
    "anthropic-key": "sk-ant-api03-" + "x" * 40,
    "openai-key": "sk-proj-" + "Ab3" * 12,
    "google-api-key": "AIza" + "SyD" * 11 + "xx",
    "slack-token": "xoxb-1234567890-abcdefghijkl",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind,secret", SECRETS.items())
def test_redactor_finds_each_kind(kind: str, secret: str) -> None:
    text, n = Redactor().redact(f"use {secret} here")
    assert secret not in text and n == 1
    assert "[REDACTED:" in text


def test_redactor_assignments_urls_and_keys() -> None:
    r = Redactor()
    for raw, gone in [
        ("export DB_PASSWORD=hunter2Secret!", "hunter2Secret!"),
        ("postgres://admin:s3cr3tPass@db:5432/app", "s3cr3tPass"),
        ('{"api_key": "Zx81kQ02pLm"}', "Zx81kQ02pLm"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ]:
        text, n = r.redact(raw)
        assert gone not in text and n >= 1, raw


def test_redactor_leaves_look_alikes() -> None:
    r = Redactor()
    for text in ["commit 6322cf4a9b1e0c7d5f3a2b1c0d9e8f7a6b5c4d3e",
                 "session c64cc478-3430-40fe-8e9c-4ee9986e9754",
                 "integrity sha512-Jz8Cw7gPOkGxHbqWm1aKNsWqTz2x3zOa4Y3w5VdNkYpQy==",
                 "token = None", "password: str", "secret=os.environ['X']"]:
        assert r.redact(text) == (text, 0), text


def test_redactor_allow_list_and_extra_patterns() -> None:
    r = Redactor(extra=[("internal", r"itk_[a-z0-9]{8}")], allow=["AKIAIOSFODNN7EXAMPLE"])
    text, n = r.redact("AKIAIOSFODNN7EXAMPLE and itk_abcd1234")
    assert "AKIAIOSFODNN7EXAMPLE" in text and "[REDACTED:internal]" in text and n == 1


_PIECES = st.sampled_from([
    "password", "PASSWORD", "Token", "api_key", "secret", "AWS_SECRET_ACCESS_KEY", "Bearer",
    "authorization: bearer", " = ", ": ", "=", '"', "'", " ", "\n", "os.environ['X']",
    "hunter2Secret!", "Zx81kQ02pLmQ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "eyJhbGciOiJIUzI1NiJ9", "İstanbul", "ß", "x" * 30, "None", "test",
])


@settings(max_examples=500)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_folded_redaction_equals_case_insensitive_patterns(text: str) -> None:
    """Running the (?i) rules as plain patterns on the lower-cased text gives
    exactly what the (?i) patterns give on the text itself."""
    fast = Redactor()
    reference = Redactor()
    reference._folded = {}
    assert fast.redact(text) == reference.redact(text)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["a", "Zm9v", "+/", " ", "\n", "\t", "x" * 37, "=", "\x0b",
                                 "\u2028", "é", "data:image/png;base64,"]), max_size=120)
       .map("".join))
def test_clean_shortcuts_change_nothing(text: str) -> None:
    """The cheap pre-checks in clean() never change its result."""
    import re

    from vibe_vault import text as tx

    expected = re.sub(tx._BASE64_RUN, "[base64 data]",
                      re.sub(tx._DATA_URI, "[base64 data]", text)).translate(tx._CONTROL)
    assert tx.clean(text) == expected


@settings(max_examples=500)
@given(st.datetimes(timezones=st.just(__import__("datetime").timezone.utc)),
       st.sampled_from(["Z", "+00:00", ".5Z", ".123Z", ".999999Z", ".1234567Z", "z", ""]),
       st.sampled_from(["", "60", "nan", "1e1", " 1", "0x"]))
def test_fast_epoch_agrees_with_datetime(dt: object, suffix: str, garble: str) -> None:
    from datetime import datetime

    from vibe_vault.fold import epoch

    ts = dt.strftime("%Y-%m-%dT%H:%M:%S")  # type: ignore[attr-defined]
    if garble:
        ts = ts[:17] + garble
    ts += suffix
    try:
        expected: float | None = datetime.fromisoformat(ts).timestamp()
    except ValueError:
        expected = None
    assert epoch(ts) == expected, ts


@pytest.mark.parametrize("command,kind", [
    ("pytest -q", "test"), ("python -m pytest tests", "test"), ("python3 -m unittest", "test"),
    ("tox -e py311", "test"), ("nox -s tests", "test"), ("go test ./...", "test"),
    ("cargo test", "test"), ("cargo nextest run", "test"), ("npm test", "test"),
    ("pnpm run test", "test"), ("yarn test", "test"), ("npx jest", "test"),
    ("npx vitest run", "test"), ("jest --watch", "test"), ("mocha", "test"),
    ("bundle exec rspec", "test"), ("vendor/bin/phpunit", "test"), ("ctest", "test"),
    ("mvn test", "test"), ("gradle test", "test"), ("./gradlew test", "test"),
    ("dotnet test", "test"), ("make test", "test"), ("just test", "test"),
    ("deno test", "test"), ("swift test", "test"), ("mix test", "test"),
    ("cargo build --release", "build"), ("go build ./...", "build"), ("npm run build", "build"),
    ("pnpm build", "build"), ("yarn build", "build"), ("make", "build"),
    ("cmake --build build", "build"), ("mvn package", "build"), ("gradle build", "build"),
    ("tsc -p .", "build"), ("python -m build", "build"), ("uv build", "build"),
    ("docker build .", "build"), ("vite build", "build"), ("next build", "build"),
    ("git status", "command"), ("ls -la", "command"), ("cat README.md", "command"),
])
def test_commands_are_classified(command: str, kind: str) -> None:
    from vibe_vault.fold import fold

    lines = [
        {"type": "user", "timestamp": "2026-01-01T00:00:00Z", "message": {"content": "go"}},
        {"type": "assistant", "timestamp": "2026-01-01T00:00:01Z", "message": {
            "id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                     "input": {"command": command}}]}},
    ]
    from vibe_vault.state import Fold

    f = fold(Fold(), (decode_line(json.dumps(x).encode()) for x in lines))
    assert f.commands[-1].kind == kind


# Hiding fcntl hides it from filelock too, which then warns it has only a soft
# lock; on Windows it uses msvcrt and says nothing.
@pytest.mark.filterwarnings("ignore:only soft file lock")
def test_lock_falls_back_to_filelock_without_fcntl(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Where fcntl does not exist (Windows), filelock takes the same role:
    one holder at a time, a timeout, release on exit."""
    import sys

    from vibe_vault.lock import LockTimeout, SessionLock

    monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` now fails
    path = tmp_path / "s.lock"
    with SessionLock(path, 1.0) as held:
        assert held._fallback is not None
        with pytest.raises(LockTimeout), SessionLock(path, 0.05):
            pass
    with SessionLock(path, 0.05):
        pass  # released: free again


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from(['a', '\n', '\\', '"', 'n', '\t', 'é', '\r', '\u2028']),
               max_size=30))
def test_lines_counted_from_raw_json_equal_lines_of_the_text(text: str) -> None:
    """A created file's lines are counted from its raw JSON string: the same
    count as the decoded text (escaped backslashes once mistook `\\\\` for empty)."""
    import msgspec

    from vibe_vault.fold.files import count_json_lines as _count_json_lines
    from vibe_vault.fold.files import count_lines as _count_lines

    raw = msgspec.json.decode(json.dumps({"v": text}).encode(),
                              type=dict[str, msgspec.Raw])["v"]
    assert _count_json_lines(raw) == _count_lines(text)


def test_a_session_lock_excludes_while_held_and_keeps_its_file(tmp_path: Path) -> None:
    import threading

    from vibe_vault.lock import LockTimeout, SessionLock

    path = tmp_path / "s.lock"
    with SessionLock(path, 1.0), pytest.raises(LockTimeout), SessionLock(path, 0.05):
        pass
    # kept for the next holder: a file deleted per session slows every later create
    assert path.exists()
    # many holders in turn: never two at once
    inside: list[int] = []
    overlaps: list[int] = []

    def worker() -> None:
        for _ in range(30):
            with SessionLock(path, 10.0):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(1)
                inside.pop()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not overlaps


def test_sessions_share_a_fixed_set_of_lock_files(tmp_path: Path) -> None:
    """One of 256 files per session id, the same every time, naming no session."""
    import uuid

    from vibe_vault.lock import SLOTS, slot_path

    sids = [str(uuid.UUID(int=i * 7919 + 1, version=4)) for i in range(5000)]
    paths = {slot_path(tmp_path, sid) for sid in sids}
    assert len(paths) == SLOTS == 256  # spread over every slot
    assert slot_path(tmp_path, sids[0]) == slot_path(str(tmp_path), sids[0])
    assert all(os.path.dirname(p) == str(tmp_path / "locks") for p in paths)
    assert not any(sid in p for p in paths for sid in sids[:50])
    assert slot_path(tmp_path, sids[0], "archive") != slot_path(tmp_path, sids[0])
    assert slot_path(tmp_path, "odd\udcff id")  # any string, even a lone surrogate


@settings(max_examples=500)
@given(st.text(max_size=30), st.text(max_size=60),
       st.sampled_from(["", "2026-01-21T06:20:00Z", "2026-01-21T06:20:00+05:30", "nope"]),
       st.sampled_from([8, 16, 40]))
def test_a_note_path_is_made_of_safe_names(project: str, sid: str, ts: str, n: int) -> None:
    """Whatever the project and id, each part of a note's path is a safe name
    (the common case skips the cleaning: it must be one already)."""
    from vibe_vault.note import note_relpath

    top, folder, sessions, name = note_relpath(project, sid, ts, n).split("/")
    assert (top, sessions) == ("Projects", "sessions") and name.endswith(".md")
    assert safe_name(folder, 60) == folder
    assert safe_name(name[:-3], 60) == name[:-3]


def test_sniffing_a_transcript_tells_whether_claude_answered(tmp_path: Path) -> None:
    from vibe_vault.discover import sniff_start

    prompt = {"type": "user", "timestamp": "2026-01-21T07:00:00Z", "cwd": "/w/p",
              "message": {"role": "user", "content": "hi"}}
    answer = {"type": "assistant", "timestamp": "2026-01-21T07:00:01Z", "cwd": "/w/p",
              "message": {"model": "claude-x", "role": "assistant", "content": []}}
    synthetic = dict(answer, message={"model": "<synthetic>", "role": "assistant",
                                      "content": []})
    side = dict(answer, isSidechain=True)

    def start(*lines: dict[str, object], limit: int = 1 << 20) -> tuple[str, str, bool]:
        path = tmp_path / "t.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        got = sniff_start(path, limit)
        return got.first_ts, got.cwd, got.answered

    assert start(prompt, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(prompt) == ("2026-01-21T07:00:00Z", "/w/p", False)
    assert start(prompt, synthetic, side)[2] is False  # no answer of Claude's own
    assert start(prompt, prompt, answer, limit=300)[2] is True  # not read to the end
    # A first line longer than one block read: the next, larger block tells.
    long_prompt = dict(prompt, message={"role": "user", "content": "x" * 100_000})
    assert start(long_prompt, answer) == ("2026-01-21T07:00:00Z", "/w/p", True)
    assert start(long_prompt, long_prompt) == ("2026-01-21T07:00:00Z", "/w/p", False)
    assert start(long_prompt, answer, limit=50_000)[2] is True  # not read to the end


def test_backfill_takes_large_sessions_first_then_the_rest_by_id() -> None:
    from vibe_vault.commands.backfill import BIG, _job_order

    sizes = {"b-small": 10, "a-small": BIG - 1, "c-big": BIG, "d-bigger": 5 * BIG, "0-mid": 500}
    got = sorted(sizes, key=lambda sid: _job_order(sid, sizes[sid]))
    assert got == ["d-bigger", "c-big", "0-mid", "a-small", "b-small"]


@pytest.mark.parametrize("forged", ["## My notes", "## MY NOTES", "## my noteſ", "##\tMy  Notes"])
def test_no_generated_line_passes_for_the_users_heading(forged: str) -> None:
    from vibe_vault.note import _with_user_part
    from vibe_vault.render import USER_HEADING, USER_HINT

    heading = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
    generated = f"# A session\n\n{forged}\nwhat Claude said\n\n{USER_HEADING}\n{USER_HINT}\n"
    out = _with_user_part(generated, USER_HEADING + "\nmine\n")
    assert [m.group(0) for m in heading.finditer(out)] == [USER_HEADING]
    assert out.endswith("\nmine\n")


# The test's own idea of Windows device names: CON, PRN, AUX, NUL, COM0-9 and
# LPT0-9 (and their superscript digits), any case, alone or before an extension.
_DEVICE = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("conprauxlmt0123¹²³.ſKıCONPRAUXLMTİ x-")),
               max_size=8))
@example("CON")
@example("com¹.txt")
@example("console")
def test_names_of_windows_devices_are_never_file_names(name: str) -> None:
    stem = safe_name(name)
    assert not _DEVICE.match(stem)
    if _DEVICE.match(name):
        assert stem.startswith("_")
    sid = safe_id(name) if name else "x"
    assert not _DEVICE.match(sid)
