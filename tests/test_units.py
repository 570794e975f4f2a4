"""Focused unit tests of modules without a test file of their own: decoding entries,
the YAML writer, the note file, project names, times, command kinds, line counts,
sniffing a transcript and backfill's order."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vibe_vault.entries import Entry, Malformed, decode_line
from vibe_vault.markdown import yaml_str
from vibe_vault.note import user_section, write_note
from vibe_vault.project import project_name, remote_repo_name
from vibe_vault.vault import USER_HEADING


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


@pytest.mark.parametrize("forged", ["## My notes", "## MY NOTES", "## my noteſ", "##\tMy  Notes"])
def test_no_generated_line_passes_for_the_users_heading(forged: str) -> None:
    from vibe_vault.note import _with_user_part
    from vibe_vault.vault import USER_HEADING, USER_HINT

    heading = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
    generated = f"# A session\n\n{forged}\nwhat Claude said\n\n{USER_HEADING}\n{USER_HINT}\n"
    out = _with_user_part(generated, USER_HEADING + "\nmine\n")
    assert [m.group(0) for m in heading.finditer(out)] == [USER_HEADING]
    assert out.endswith("\nmine\n")
