"""Copies in a command line that failed: what ran is told by what the line
printed (issue 29: copies in a failed `&&` chain were never counted).

Generated command lines join simple commands (`cp`, `echo`, `ls`, `false`,
`[ -f x ]`, a test run) with `&&`, `||` and `;`, some sources there and some not. A
small shell runs them as bash does (an AND-OR list left to right, `&&` and
`||` skipping on their left's status, `;` always going on), printing what
each command prints (`cp: cannot stat 'x': No such file or directory`), and
the transcript holds the line's output and status as Claude Code records
them. The oracle is that shell:

- never a copy claimed that did not happen;
- on a line that succeeded, every copy joined by `&&` to its end is told;
- on a line that failed, a copy is told when a command joined by `&&`
  after it printed a line no other command of the line would (an `echo` of
  words of its own), as that proves the copy succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

CWD = "/work/app"
THERE = ["a.txt", "b.txt"]  # files the work tree holds from the start
ops = st.sampled_from(["&&", "&&", "||", ";"])
commands = st.one_of(
    st.tuples(st.just("cp"), st.sampled_from(["a.txt", "b.txt", "gone.txt"]),
              st.sampled_from(["c.txt", "d.txt", "e.txt"])),
    st.tuples(st.just("echo"), st.sampled_from(["done", "copied", "next"]), st.none()),
    st.tuples(st.just("ls"), st.sampled_from(["a.txt", "gone.txt"]), st.none()),
    st.tuples(st.just("false"), st.none(), st.none()),
    st.tuples(st.just("["), st.sampled_from(["a.txt", "gone.txt"]), st.none()),
    st.tuples(st.just("pytest"), st.sampled_from(["1 failed in 0.2s", "3 passed in 0.1s"]),
              st.none()),
)


@dataclass
class Run:
    text: str
    output: str
    status: int
    copied: str = ""  # the file a `cp` wrote


@dataclass
class Shell:
    files: set[str] = field(default_factory=lambda: set(THERE))

    def run(self, kind: str, a: str | None, b: str | None) -> Run:
        if kind == "cp":
            assert a is not None and b is not None
            if a not in self.files:
                return Run(f"cp {a} {b}",
                           f"cp: cannot stat '{a}': No such file or directory\n", 1)
            self.files.add(b)
            return Run(f"cp {a} {b}", "", 0, copied=b)
        if kind == "echo":
            return Run(f"echo {a}", f"{a}\n", 0)
        if kind == "ls":
            if a in self.files:
                return Run(f"ls {a}", f"{a}\n", 0)
            return Run(f"ls {a}", f"ls: cannot access '{a}': No such file or directory\n", 2)
        if kind == "false":
            return Run("false", "", 1)
        if kind == "[":
            return Run(f"[ -f {a} ]", "", 0 if a in self.files else 1)
        return Run("pytest -q", f"{a}\n", 1 if a and "failed" in a else 0)


@settings(max_examples=examples(60, 600), deadline=None)
@given(first=commands, rest=st.lists(st.tuples(ops, commands), max_size=5))
@example(first=("cp", "a.txt", "c.txt"), rest=[("&&", ("echo", "done", None)),
                                               ("&&", ("false", None, None))])
@example(first=("[", "gone.txt", None), rest=[("&&", ("cp", "a.txt", "c.txt")),
                                              (";", ("echo", "done", None))])
@example(first=("echo", "done", None), rest=[("||", ("cp", "a.txt", "c.txt"))])
@example(first=("ls", "gone.txt", None), rest=[("&&", ("cp", "a.txt", "c.txt")),
                                               ("&&", ("ls", "a.txt", None)),
                                               ("||", ("ls", "gone.txt", None))])
def test_a_failed_line_tells_the_copies_its_output_shows_ran(
        tmp_path_factory: pytest.TempPathFactory, first: tuple[str, str | None, str | None],
        rest: list[tuple[str, tuple[str, str | None, str | None]]]) -> None:
    shell = Shell()
    line = [("", first), *rest]
    texts: list[str] = []
    output = ""
    status = 0
    ran: list[Run | None] = []  # by place: what ran, None for a command skipped
    for op, (kind, a, b) in line:
        skip = (op == "&&" and status != 0) or (op == "||" and status == 0)
        run = shell.run(kind, a, b) if not skip else None
        texts.append(f"{op} {Shell().run(kind, a, b).text}" if op else
                     Shell().run(kind, a, b).text)
        ran.append(run)
        if run is not None:
            output += run.output
            status = run.status
    command = " ".join(texts)
    t = Transcript(cwd=CWD)
    t.prompt("copy them")
    if status:
        t.call("Bash", {"command": command}, f"Error: Exit code {status}\n{output}",
               f"Exit code {status}\n{output}", error=True)
    else:
        t.bash(command, output)
    t.say("Done.")
    note = t.note(tmp_path_factory, "failed chains")  # the first case through vv itself
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Files changed\n" in note else ""
    told = {row.split("`")[1] for row in table.splitlines()
            if row.startswith("| `") and "copied by a command" in row}
    copied = {r.copied for r in ran if r is not None and r.copied}
    assert told <= copied, (command, output, told, copied)
    # The last `&&` chain: the commands joined by `&&` to the line's end.
    chain = len(line) - 1
    while chain > 0 and line[chain][0] == "&&":
        chain -= 1
    if line[chain][0] == "||":
        chain += 1  # (it ran only if what came before failed: the status does not say)
    for k in range(chain, len(line)):
        run = ran[k]
        if run is None or not run.copied:
            continue
        # (an echo's words said by no other echo of the line, run or not)
        said = [cmd[1] for _, cmd in line if cmd[0] == "echo"]
        shown = any(r is not None and line[j][1][0] == "echo" and said.count(line[j][1][1]) == 1
                    for j, r in enumerate(ran) if j > k)
        if status == 0 or shown:
            assert run.copied in told, (command, output, told)
