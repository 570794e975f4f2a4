"""A command that printed its own usage text instead of running does not read "ok".

Generated commands (real tools' names, bad arguments, or a help flag) get an
output that is a real CLI's usage text (the first lines git, grep, tar,
python, a Go tool and npm print), another output that only mentions a usage
(`disk usage: 45%`), or nothing; exit 0 or no status recorded. The oracle,
from the generated JSON itself: a command not asking for help (`--help`,
`-h`, `help`) whose output begins with a usage line printed its usage; any
other reads as before ("ok").
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.render import render

USAGES = [
    "usage: git [-v | --version] [-h | --help] [-C <path>] [-c <name>=<value>]\n"
    "           [--exec-path[=<path>]] [--html-path] [--man-path] [--info-path]\n",
    "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n",
    "Usage: tar [OPTION...] [FILE]...\nGNU 'tar' saves many files together into a single tape\n",
    "usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...\n"
    "Try `python -h' for more information.\n",
    "Usage of ./tool:\n  -addr string\n    \tlisten address (default \":8080\")\n",
    "\x1b[1mUsage:\x1b[0m npm <command>\n\nnpm install        install all the dependencies\n",
    "USAGE:\n    cargo-fmt [OPTIONS] [-- <rustfmt_options>...]\n",
]
OTHER = ["disk usage: 45% of /dev/sda1\n", "Tests: 12 passed\n", "",
         "wrote 3 files (usage: see README)\n"]
tools = st.sampled_from(["git frobnicate", "grep", "tar -q", "python3 --frob", "./tool -x",
                         "npm instal", "cargo fmt --bogus"])
helps = st.sampled_from(["", "", " --help", " -h", " help"])


@settings(max_examples=examples(80, 300), deadline=None)
@given(runs=st.lists(st.tuples(tools, helps, st.one_of(st.sampled_from(USAGES),
                                                        st.sampled_from(OTHER)),
                               st.booleans()), min_size=1, max_size=5))
def test_a_usage_text_is_said_as_such(runs: list[tuple[str, str, str, bool]]) -> None:
    t = Transcript()
    t.prompt("try the tools")
    for tool, asked, out, recorded in runs:
        t.bash(tool + asked, out)
        if not recorded:  # no structured result: the text alone
            del t.lines[-1]["toolUseResult"]
    t.say("Done.")
    state = t.state()
    actions = [a for turn in state.fold.turns for a in turn.actions if a.kind == "bash"]
    assert len(actions) == len(runs)
    story = render(state).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    for a, (_, asked, out, _) in zip(actions, runs, strict=True):
        first = next((ln for ln in out.replace("\x1b[1m", "").replace("\x1b[0m", "")
                      .splitlines() if ln.strip()), "")
        usage = first.lower().startswith("usage:") or first.startswith("Usage of ")
        if usage and not asked:
            assert a.status == "usage", (a, out)
        else:
            assert a.status == "ok", (a, out)
    if any(a.status == "usage" for a in actions):
        assert "printed its usage" in story


endings = st.sampled_from(["ok", "error", "echo", "pipe"])
codes = st.sampled_from([0, 1, 2, 64, 129])


@settings(max_examples=examples(80, 300), deadline=None)
@given(runs=st.lists(st.tuples(tools, helps, st.one_of(st.sampled_from(USAGES),
                                                        st.sampled_from(OTHER)),
                               endings, codes), min_size=1, max_size=5))
def test_a_usage_text_is_an_error(tmp_path_factory: pytest.TempPathFactory,
                                  runs: list[tuple[str, str, str, str, int]]) -> None:
    """However the command line ended (Claude Code's error with its exit code,
    a status the line printed itself with `echo $?`, a pipe whose status is
    another command's, or none), a command that printed its usage text
    unasked is listed under Errors as failed, with its exit code where the
    JSON shows a nonzero one; the story says "printed its usage" where none is."""
    t = Transcript()
    t.prompt("try the tools")
    expected: list[tuple[str, bool, int | None]] = []  # (command, an error, exit code)
    for n, (tool, asked, out, ending, code) in enumerate(runs):
        command = f"{tool}{asked} # {n}"  # (each its own, so no later run mends it)
        code = code or 1 if ending == "error" else code
        if ending == "error":
            t.call("Bash", {"command": command}, f"Error: Exit code {code}\n{out}",
                   f"Exit code {code}\n{out}", error=True)
        elif ending == "echo":
            command += '; echo "exit: $?"'
            t.bash(command, f"{out}exit: {code}\n")
        else:
            if ending == "pipe":
                command += " 2>&1 | head -5"
            t.bash(command, out)
        first = next((ln for ln in out.replace("\x1b[1m", "").replace("\x1b[0m", "")
                      .splitlines() if ln.strip()), "")
        usage = (first.lower().startswith("usage:") or first.startswith("Usage of ")) \
            and not asked
        shown = code if ending == "error" or (ending == "echo" and usage and code) else None
        expected.append((command, ending == "error" or usage, shown))
    t.say("Done.")
    note = t.note(tmp_path_factory, "usage output")  # the first case through vv itself
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0] if "\n## Errors\n" in note \
        else ""
    failed = re.findall(r"(?m)^- \d\d:\d\d \*\*Bash\*\*: `(.+?)` failed", errors)
    numbers = [int(re.search(r" # (\d+)", f).group(1)) for f in failed]  # type: ignore[union-attr]
    assert numbers == [n for n, (_, error, _) in enumerate(expected) if error], (failed, expected)
    ran = re.findall(r"(?m)^- Ran `.+?` — (.+)$", story)
    assert len(ran) == len(expected), story
    for said, (_, error, code) in zip(ran, expected, strict=True):
        if code is not None:
            assert said.startswith(f"failed (exit {code})"), (said, code)
        elif error:
            assert said.startswith("printed its usage"), said
        else:
            assert said.startswith("ok"), said
