"""Every command's arguments, generated (issue 28): numbers of any size and
sign, text with undecodable bytes (as Python hands them over: lone
surrogates), paths, patterns, empty strings and very long queries. Whatever
they are, a command answers, or says what is wrong in one line and exits
non-zero: never a traceback, never a hang. Long queries are refused or
answered in time linear in their size."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples

# Text as argv holds it: any bytes, decoded with surrogateescape (an invalid
# UTF-8 byte becomes a lone surrogate, as os.fsdecode makes it).
_BYTES_TEXT = st.binary(max_size=40).map(os.fsdecode)
_NASTY = st.sampled_from(["", "..", "%", "*", "_", "/", "../etc/passwd", "/etc", ".", "-",
                          "a/b", "%%", "\\", "'", '"', "NULL", "x" * 5000, "\u00a0",
                          "\ud800", "caf\udce9", "\U0001f600", "0", "-0", " "])
_WORD = st.one_of(st.text(min_size=0, max_size=30).filter(lambda t: "\x00" not in t),
                  _BYTES_TEXT.filter(lambda t: "\x00" not in t), _NASTY)
_NUMBER = st.one_of(
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    st.sampled_from(["99999999999999999999999", "-1", "0", "-0", "+5", "1e3", "0x10", "١٢",
                     " 3", "3 ", "", "nan", "inf", "9" * 400]),
    _WORD)
_DATE = st.one_of(st.sampled_from(["2026-01-01", "2026-13-45", "yesterday", "7d", "-5d",
                                   "99999999d", "0d", "2026-01-01T99:99", "10000-01-01"]),
                  _WORD)


# A path a command walks (archive, restore and reprocess take folders): any word but the
# filesystem's root, whose walk takes minutes and reads every file on the machine (the
# shared corpus too, which an unmarked test may not read). Other absolute, relative,
# missing and odd paths stay; `home` runs in a folder inside the home, so ".." stays in it.
_PATH_WORD = _WORD.filter(lambda w: not (w.startswith("/") and os.path.realpath(w) == "/"))


def _opt(name: str, value: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), value.map(lambda v: [name, v]))


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A command with generated arguments (never one that opens an editor,
    runs claude or installs hooks)."""
    cmd = draw(st.sampled_from(["search", "files", "show", "resume", "forget", "stats",
                                "backfill", "reprocess", "restore", "archive", "index"]))
    words = st.lists(_WORD, max_size=4)
    paths = st.lists(_PATH_WORD, max_size=4)
    out = [cmd]
    if cmd == "search":
        out += ["--"] if draw(st.booleans()) else []
        out[1:1] = (draw(_opt("--limit", _NUMBER)) + draw(_opt("--project", _WORD))
                    + draw(_opt("--since", _DATE)) + draw(_opt("--file", _WORD)))
        out += draw(words)
    elif cmd in ("files", "show", "resume"):
        out.append(draw(_WORD))
    elif cmd == "forget":
        out += ["--dry-run"] if draw(st.booleans()) else []
        out += [*draw(_opt("--project", _WORD)), "--", *draw(words)]
    elif cmd == "stats":
        out += (draw(_opt("--top", _NUMBER)) + draw(_opt("--since", _DATE))
                + draw(_opt("--project", _WORD)) + draw(_opt("--by", _WORD)))
    elif cmd == "backfill":
        out += (["--dry-run", *draw(_opt("--jobs", _NUMBER)), *draw(_opt("--since", _DATE)), *draw(_opt("--project", _WORD))])
    elif cmd == "reprocess":
        out += ["--", *draw(paths)]
    elif cmd == "restore":
        out += (["--dry-run", *draw(_opt("--project", _WORD)), *draw(_opt("--since", _DATE)), "--", *draw(paths)])
    elif cmd == "archive":
        out += ["--verify", "--", *draw(paths)]
    elif cmd == "index":
        out += ["--quiet"] if draw(st.booleans()) else []
    return out


@pytest.fixture
def home(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """`vv` in this process, in the isolated home (a generated example costs
    milliseconds, not a Python start)."""
    for k in [k for k in os.environ if k.startswith(("VV_", "CLAUDE", "XDG_"))]:
        monkeypatch.delenv(k)
    for k, v in env.env.items():
        monkeypatch.setenv(k, v)
    (env.root / "cwd").mkdir()
    monkeypatch.chdir(env.root / "cwd")
    yield env


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from vibe_vault import cli

    said = ""
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's usage errors, SystemExit("vv: ...")
        code = exc.code if isinstance(exc.code, int) else 1
        if isinstance(exc.code, str):
            said = exc.code + "\n"  # what Python prints of it, leaving
    return code, capsys.readouterr().err + said


@settings(max_examples=examples(40, 400), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argv=command_lines())
def test_any_arguments_answer_or_say_one_line(home: Env, argv: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(argv, capsys)  # a traceback here is an exception out of main
    assert isinstance(code, int)
    if code != 0:
        # One line, or one a session or path named (a command given several
        # reports on each), each from vv.
        named = len(argv) - argv.index("--") - 1 if "--" in argv else 1
        assert err.strip() and 1 <= err.count("\n") <= max(1, named), (argv, code, err)
        assert all(line.startswith("vv") for line in err.splitlines()), (argv, err)
    # Whatever was asked, nothing outside the home was touched.
    assert not (home.root / "home").exists() or not any(
        p.name == "settings.json" for p in (home.root / "home").rglob("*"))


@pytest.mark.parametrize("option,command", [("--limit", "search"), ("--top", "stats"),
                                            ("--jobs", "backfill")])
@pytest.mark.parametrize("value", ["99999999999999999999999", "-1", "0", "-99999999999999999999",
                                   "x", "", "١"])
def test_a_number_out_of_range_is_one_line_and_nonzero(home: Env, option: str, command: str,
                                                       value: str,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    argv = [command, option, value] + (["x"] if command == "search" else [])
    code, err = _run(argv, capsys)
    if value == "0" and command != "search":
        # --top 0 (no table), --jobs 0 (as many as cores): in range, so not
        # refused for it (an empty home may still be a usage error of its own)
        assert option not in err, err
        return
    assert code == 2 and err.count("\n") == 1 and option in err, (argv, err)


def _timed(env: Env, *args: str) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    r = env.vv(*args)
    return time.perf_counter() - start, r


def test_long_queries_are_refused_in_time_linear_in_their_size(env: Env) -> None:
    """2,000 words and 120 kB: one line, non-zero, as fast as a one-word search
    (the floor, measured in the same run: Python's start dominates both); the
    parse itself grows linearly with the query (before: quadratic, 17 s for
    2,000 words, a 120 kB query never ended)."""
    from vibe_vault.search_query import BadQuery, parse

    assert env.vv("search", "warm").returncode == 0
    floor = min(_timed(env, "search", "x")[0] for _ in range(3))
    words = [f"w{i}" for i in range(2000)]
    for query in (words, ["y" * 120_000], [" ".join(["ab"] * 40_000)]):
        took, r = min((_timed(env, "search", *query) for _ in range(2)), key=lambda t: t[0])
        assert r.returncode == 2 and r.stderr.count(b"\n") == 1, r.stderr[:300]
        assert b"too long" in r.stderr
        assert took < floor * 3 + 0.2, (took, floor)

    def parse_seconds(n: int) -> float:
        text = " ".join(f"w{i}" for i in range(n))
        start = time.perf_counter()
        for _ in range(20):
            with contextlib.suppress(BadQuery):
                parse(text)
        return (time.perf_counter() - start) / 20

    small, large = parse_seconds(500), parse_seconds(4000)  # 8x the words
    assert large < small * 8 * 3 + 1e-3, (small, large)  # linear, with room for the load


def test_invalid_utf8_through_a_real_argv_is_one_line(env: Env) -> None:
    """The bytes as the kernel hands them to `vv` (not decoded by the test)."""
    for args in ([b"files", b"caf\xe9.py"], [b"show", b"\xff\xfe"], [b"search", b"\xff"],
                 [b"forget", b"\xffabc"], [b"search", b"--limit", b"\xff", b"x"]):
        r = subprocess.run([os.fsencode(sys.executable), b"-m", b"vibe_vault", *args],
                           env=env.env, capture_output=True, timeout=60, check=False)
        assert r.returncode == 2 and r.stderr.count(b"\n") == 1, (args, r.stderr)
        assert b"Traceback" not in r.stderr


@settings(max_examples=examples(80, 300), deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12),
                          st.from_regex(r"[a-z\"*]{1,10}", fullmatch=True)), max_size=5))
def test_search_words_parse_as_argparse_parses_them(words: list[str]) -> None:
    """`vv search WORD...` without argparse (its fast path) means what the
    parser makes of it, every option's default included; anything else
    (an option, a word starting with "-", no word) is left to the parser."""
    from vibe_vault import cli
    from vibe_vault.commands.search import words_only

    argv = ["search", *words]
    fast = words_only(argv)
    if fast is None:
        assert not words or any(not w or w.startswith("-") for w in words)
        return
    assert vars(fast) == vars(cli.parse(argv))


def test_search_words_take_the_fast_path() -> None:
    from vibe_vault.commands.search import words_only

    assert words_only(["search", "login", '"rate limit"', "migrat*"]) is not None
    assert words_only(["search", "fix", "-flaky"]) is None
    assert words_only(["search", "--json", "x"]) is None


def test_a_search_or_hook_in_process_leaves_the_collector_on(
        home: Env, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths turn cycle collection off while they run; a caller that
    goes on afterwards (a test, a tool calling `main`) gets it back on."""
    import gc
    import io

    from vibe_vault import cli

    assert gc.isenabled()
    _run(["search", "anything"], capsys)
    assert gc.isenabled()
    event = b'{"hook_event_name": "Stop", "session_id": "s", "cwd": "/tmp"}'
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(event)))
    assert cli.main(["hook"]) == 0
    assert gc.isenabled()
