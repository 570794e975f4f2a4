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
