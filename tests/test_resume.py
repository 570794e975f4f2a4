"""Resume lines pasted into a shell: they run nothing but `cd` and `claude`,
and `cd` lands in exactly the folder the session ran in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, Env, examples
from vibe_vault.resume import resume_command, shell_quote

# What a hostile or odd folder name is made of: command substitutions,
# quotes, whitespace of every kind, a Windows drive and backslashes.
FRAGMENTS = ["$(touch PWNED)", "`touch PWNED`", "'", '"', "\\", "\n", "\t", "  ", " ",
             "C:\\", "C:/x/", "$HOME", "${IFS}", ";", "&&", "|", "!", "#", "*", "?", "~",
             "<", ">", "%", "é", "日本", "-", "--resume", "a", "b1"]
names = (st.lists(st.one_of(st.sampled_from(FRAGMENTS),
                            st.characters(min_codepoint=0x20, max_codepoint=0x2FF,
                                          blacklist_characters="/")),
                  min_size=1, max_size=8)
         .map("".join)
         .filter(lambda n: n not in (".", "..") and "/" not in n and len(n.encode()) < 200))
ids = st.text(st.sampled_from("abcdef0123456789-'$`; "), min_size=1, max_size=40)

# A session the project recorded from the real client (text only): it comes with a clone.
RECORDED_TEXT_SESSION = (FIXTURES / "claude-2.1.332" / "projects" / "-home-dev-vv-fixture-project"
                         / "85eaa3c2-42f6-4908-b0a1-f9cd10e03171.jsonl")

STUB = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["RESUME_OUT"], "w") as f:
    json.dump([os.getcwd(), sys.argv[1:]], f)
"""


@pytest.fixture(scope="module")
def stub_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bin_dir = tmp_path_factory.mktemp("bin")
    claude = bin_dir / "claude"
    claude.write_text(STUB)
    claude.chmod(0o755)
    return bin_dir


def run_pasted(shell: str, line: str, start: Path, bin_dir: Path) -> tuple[str, list[str]]:
    out = start.parent / "resume.json"
    if out.exists():
        out.unlink()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RESUME_OUT": str(out), "HOME": str(start)}
    r = subprocess.run([shell, "-c", line], cwd=start, env=env, capture_output=True,
                       timeout=20)
    assert r.returncode == 0, (line, r.stderr)
    cwd, argv = json.loads(out.read_text())
    return cwd, argv


def no_payload_ran(root: Path) -> None:
    for _, dirs, files in os.walk(root):
        assert "PWNED" not in files and "PWNED" not in dirs


def pasted_lands_in(name: str, sid: str, bin_dir: Path, relative: bool) -> None:
    """A folder `name` made in a scratch folder: its resume line (the folder
    as recorded, relative or whole) is one line, and pasted there, in bash and
    in sh for a name with no control character (`$'…'` is for those), it lands
    in the folder byte for byte, runs `claude --resume <sid>` and nothing else."""
    root = Path(tempfile.mkdtemp(prefix="vv-resume-"))
    try:
        start = root / "start"
        start.mkdir()
        folder = start / name
        folder.mkdir()
        line = resume_command(name if relative else str(folder), sid)
        assert "\n" not in line and "\r" not in line
        shells = ["bash"] + (["sh"] if name.isprintable() and shutil.which("sh") else [])
        for shell in shells:
            cwd, argv = run_pasted(shell, line, start, bin_dir)
            assert cwd == str(folder)
            assert argv == ["--resume", sid]
        no_payload_ran(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "windows-relative"])
@settings(max_examples=examples(15, 40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, sid=ids)
def test_a_pasted_resume_line_runs_nothing_and_lands_in_the_folder(
        stub_bin: Path, relative: bool, name: str, sid: str) -> None:
    """In bash, and in sh for a folder with no control character (`$'…'` is
    for those): the folder comes back byte for byte, the id as one argument."""
    if relative:
        name = "C:\\Users\\me\\" + name  # a Windows-style path, as one folder here
    pasted_lands_in(name, sid, stub_bin, relative)


@given(st.text(min_size=1, max_size=60).filter(lambda t: "\0" not in t))
def test_shell_quote_is_one_word_and_one_line(text: str) -> None:
    quoted = shell_quote(text)
    assert "\n" not in quoted
    r = subprocess.run(["bash", "-c", f"printf %s {quoted}"], capture_output=True, timeout=10)
    assert r.stdout.decode("utf-8", "surrogateescape") == text


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=60)
       .filter(str.isprintable))
def test_a_printable_folder_is_quoted_as_shlex_quotes_it(text: str) -> None:
    """A folder without control characters reads as `shlex.quote` writes it
    (the resume line quotes without importing shlex, off every Stop's path)."""
    import shlex

    assert shell_quote(text) == shlex.quote(text)


def test_vv_resume_prints_the_folder_as_recorded(env: Env, tmp_path: Path) -> None:
    """End to end: a transcript whose cwd holds a tab, a newline, double spaces
    and a command substitution; `vv resume` prints a line that lands there."""
    from test_hook_contract import SID, place

    folder = tmp_path / "a  b\tc\nd $(touch PWNED) 'e'"
    folder.mkdir()
    target = place(env, RECORDED_TEXT_SESSION)
    lines = [json.loads(x) for x in target.read_text().splitlines() if x.strip()]
    target.write_text("".join(json.dumps({**e, "cwd": str(folder)} if "cwd" in e else e) + "\n"
                              for e in lines))
    assert env.vv("backfill").returncode == 0
    r = env.vv("resume", SID[:8])
    assert r.returncode == 0, r.stderr
    line = r.stdout.decode().strip()
    assert "\n" not in line
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(STUB)
    (bin_dir / "claude").chmod(0o755)
    start = tmp_path / "start"
    start.mkdir()
    cwd, argv = run_pasted("bash", line, start, bin_dir)
    assert cwd == str(folder) and argv == ["--resume", SID]
    no_payload_ran(tmp_path)


@settings(max_examples=examples(10, 30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, sid=ids, dashes=st.sampled_from(["-", "--", "-e", "-P"]))
def test_a_folder_named_like_an_option_is_a_folder(stub_bin: Path, name: str, sid: str,
                                                    dashes: str) -> None:
    """A recorded folder that starts with '-' (`-experiments/worktrees`, as a
    checkpoint records its cwd): the pasted line still lands in it."""
    name = dashes + name
    pasted_lands_in(name, sid, stub_bin, relative=True)
