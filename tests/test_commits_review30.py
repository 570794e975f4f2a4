"""Review 30 #1, #2, #3, #18, #19: commits as git printed them, every one.

#1 (09e82c6a): `git commit -aqm "S" && git log --oneline -3` printed
`3444b94 S`; the note said "*(git printed no sha)*" (the message of `-aqm`
was not read). #19 (fc71f2f6): `git commit -q -m A && git add … && git commit
-q -m B && git log --oneline -3` printed both; the note dropped B. #2
(fffff083): `git merge origin/main --no-edit` ("Merge made by the 'ort'
strategy.") was listed as "Merge branch 'origin/main'", a subject printed
nowhere. #3, #18 (fffff083, fc71f2f6): a commit in a throwaway repository
(`git init` in `mktemp -d`, a `git clone` into Claude's scratchpad, `git -C
$S commit`) was counted as the session's, and named first in the headline.

Generated sessions; the oracle is what the test had git print: each commit's
subject, its sha where some output (its own `[branch sha]` line, a later
`git log --oneline`) printed it, the folder each command ran in.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

SCRATCHPAD = "/private/tmp/claude-501/-work-app/0b1c2d3e/scratchpad"


def _section(note: str) -> str:
    return note.split("## Commits and PRs", 1)[1].split("\n## ", 1)[0] \
        if "## Commits and PRs" in note else ""


def _headline(note: str) -> str:
    return note.split("\n> ", 1)[1].split("\n", 1)[0]


def _count(note: str) -> int:
    m = re.search(r"(?m)^commits: (\d+)$", note)
    return int(m.group(1)) if m else 0


# -- several commits in one command (#1, #19) -----------------------------------------

# How a commit's message is given: `-m`, flags run together, `-q` apart.
FLAGS = ["-m", "-qm", "-aqm", "-am", "-q -m", "-a -q -m"]

commit_spec = st.tuples(st.sampled_from(FLAGS), st.booleans())  # flags, git prints its line
command_spec = st.tuples(
    st.lists(commit_spec, min_size=1, max_size=3),
    st.sampled_from(["log here", "log later", "none"]),  # where `git log --oneline` shows them
)


@settings(max_examples=examples(60, 400), deadline=None)
@example(cmds=[([("-aqm", True)], "log here")])  # 09e82c6a (quiet: -q in -aqm)
@example(cmds=[([("-q -m", True), ("-q -m", True)], "log here")])  # fc71f2f6
@given(cmds=st.lists(command_spec, min_size=1, max_size=4))
def test_every_commit_of_a_command_gets_the_sha_and_subject_printed_beside_it(
        tmp_path_factory: Any, cmds: list[tuple[list[tuple[str, bool]], str]]) -> None:
    t = Transcript()
    t.prompt("commit the work in small steps")
    serial = 0
    made: list[tuple[str, str]] = []  # (sha, subject) of every commit, in order
    shown: set[str] = set()  # the shas some output printed beside their subject
    later: list[tuple[str, str]] = []  # commits a later `git log` is to print
    for parts, log in cmds:
        pieces: list[str] = []
        out: list[str] = []
        mine: list[tuple[str, str]] = []
        for flags, quiet in parts:
            serial += 1
            sha, subject = f"{serial:07x}", f"step {serial} of the work"
            quiet = quiet or "q" in flags
            pieces.append(f'git add f{serial}.py && git commit {flags} "{subject}"')
            if not quiet:
                out.append(f"[main {sha}] {subject}\n 1 file changed, 1 insertion(+)\n")
                shown.add(sha)
            mine.append((sha, subject))
        made += mine
        command = " && ".join(pieces)
        if log == "log here":
            command += f" && git log --oneline -{len(mine) + 1}"
            out += [f"{s} {subj}\n" for s, subj in reversed(mine)] + ["abcdef0 before\n"]
            shown.update(s for s, _ in mine)
        elif log == "log later":
            later += mine
        t.bash(command, "".join(out))
    if later:
        t.bash(f"git log --oneline -{len(made)}",
               "".join(f"{s} {subj}\n" for s, subj in reversed(made)))
        shown.update(s for s, _ in made)  # (it prints every commit made so far)
    t.say("Done.")
    note = t.note(tmp_path_factory,
                  "test_every_commit_of_a_command_gets_the_sha_and_subject_printed_beside_it")
    listed = _section(note)
    for sha, subject in made:
        if sha in shown:
            assert f"- `{sha}` {subject}" in listed, (sha, subject, listed, cmds)
        else:
            assert f"- *(git printed no sha)* {subject}" in listed, (subject, listed, cmds)
    assert listed.count("\n- ") - listed.count("\n- Pushed") == len(made), (listed, cmds)
    assert _count(note) == len(made), cmds


# -- a merge's subject is never made up (#2) ------------------------------------------


@settings(max_examples=examples(40, 200), deadline=None)
@example(branch="origin/main", seen="push")  # fffff083
@given(branch=st.sampled_from(["origin/main", "topic", "origin/release/v2"]),
       seen=st.sampled_from(["push", "log", "none", "push and log"]))
def test_a_merge_git_named_is_listed_by_its_printed_subject_or_as_what_it_merged(
        tmp_path_factory: Any, branch: str, seen: str) -> None:
    t = Transcript()
    t.prompt("merge main into the branch and push")
    t.bash("git checkout -b work", "Switched to a new branch 'work'\n")
    t.bash(f"git fetch -q && git merge {branch} --no-edit",
           "Auto-merging a.go\nMerge made by the 'ort' strategy.\n a.go | 2 +-\n"
           " 1 file changed, 1 insertion(+), 1 deletion(-)\n")
    # git's own subject: a remote-tracking branch's merge says so.
    kind = "remote-tracking branch" if branch.startswith("origin/") else "branch"
    subject = f"Merge {kind} '{branch}' into work"
    if "log" in seen:
        t.bash("git log --oneline -2", f"9c8f61d {subject}\n4f4cf4f earlier\n")
    if "push" in seen:
        t.bash("git push origin work",
               "To https://github.com/o/r.git\n   4f4cf4f..9c8f61d  work -> work\n")
    t.say("Merged.")
    for line in t.lines[3:]:  # (Claude Code stamps each line with the branch it reads)
        line["gitBranch"] = "work"
    note = t.note(tmp_path_factory,
                  "test_a_merge_git_named_is_listed_by_its_printed_subject_or_as_what_it_merged")
    listed = _section(note)
    # No subject git did not print: git's default one is not guessed.
    for line in note.splitlines():
        for quoted in re.findall(r"Merge (?:remote-tracking )?branch '[^']*'(?: into \w+)?",
                                 line):
            assert "log" in seen and quoted == subject, (line, seen)
    sha = "`9c8f61d` " if seen != "none" else "*(git printed no sha)* "
    if "log" in seen:
        assert f"- {sha}{subject} on `work`" in listed, listed
    else:
        assert f"- {sha}(a merge of `{branch}`) on `work`" in listed, listed
    assert _count(note) == 1


# -- throwaway repositories (#3, #18) --------------------------------------------------

# Ways to commit in a repository made to try something, each as the commands
# Claude ran (made with its number k) and whether git printed its line.
def _probe(way: int, k: int) -> list[tuple[str, str]]:
    line = f"[master (root-commit) {0xf00000 + k:07x}] probe {k}\n"
    if way == 0:  # review 30 #3 (fffff083)
        return [(f'cd "$(mktemp -d {SCRATCHPAD}/probe.XXXX)" && git init -q . && '
                 f"git add . && git commit -qm 'probe {k}'", "")]
    if way == 1:  # review 30 #18 (fc71f2f6): a clone in the scratchpad, `git -C $S`
        return [(f"S={SCRATCHPAD}/t{k}\ngit clone -q --local /work/app $S 2>/dev/null\n"
                 f"cd $S\nmake index\ngit -C $S commit --allow-empty -q -m \"probe {k}\"\n"
                 "git -C $S rev-parse --short HEAD", f"{0xf00000 + k:07x}\n")]
    if way == 2:  # a variable holding mktemp's folder, git's line printed
        return [(f"D=$(mktemp -d) && cd $D && git init && git commit --allow-empty "
                 f"-m 'probe {k}'", "Initialized empty Git repository in /tmp/tmp.x/.git/\n"
                 + line)]
    # A repository made in /tmp by one command, committed in by a later one.
    return [(f"git init -q /tmp/try{k}", ""),
            (f"cd /tmp/try{k} && echo x > a && git add a && git commit -m 'probe {k}'", line)]


step = st.one_of(st.tuples(st.just("real"), st.booleans()),
                 st.tuples(st.just("worktree"), st.booleans()),
                 st.tuples(st.sampled_from(["probe 0", "probe 1", "probe 2", "probe 3"]),
                           st.booleans()),
                 st.tuples(st.just("pushed"), st.booleans()))


@settings(max_examples=examples(60, 300), deadline=None)
@example(steps=[("probe 0", False), ("real", True), ("real", False)])  # fffff083
@example(steps=[("probe 1", False), ("real", True), ("real", True)])  # fc71f2f6
@example(steps=[("pushed", True), ("probe 1", False), ("pushed", False)])  # work sent
@given(steps=st.lists(step, min_size=1, max_size=6))
def test_commits_in_throwaway_repositories_are_not_the_sessions(
        tmp_path_factory: Any, steps: list[tuple[str, bool]]) -> None:
    t = Transcript()
    t.prompt("build the feature and try git's behaviour on the side")
    real: list[tuple[str, str]] = []  # (sha, subject) of the session's commits
    probes = 0
    for k, (what, big) in enumerate(steps):
        if what == "pushed":
            # Made in a throwaway clone, then pushed (in the line, or by a
            # later one): it left the machine, the session's work.
            sha, subject = f"{0xb00000 + k:07x}", f"shared part {k}"
            clone = f"S={SCRATCHPAD}/c{k}\ngit clone -q https://github.com/o/lib $S\n"
            push = f"git -C $S push origin HEAD:p{k}"
            sent = f"To https://github.com/o/lib\n * [new branch]      HEAD -> p{k}\n"
            line = f"[main {sha}] {subject}\n 1 file changed, 1 insertion(+)\n"
            if big:
                t.bash(clone + f"git -C $S commit -am '{subject}'\n" + push, line + sent)
            else:
                t.bash(clone + f"git -C $S commit -am '{subject}'", line)
                t.bash(f"S={SCRATCHPAD}/c{k}; " + push, sent)
            real.append((sha, subject))
        elif what == "real" or what == "worktree":
            sha, subject = f"{0xa00000 + k:07x}", f"feature part {k}"
            stat = " 3 files changed, 90 insertions(+)\n" if big else \
                " 1 file changed, 1 insertion(+)\n"
            where = ""
            if what == "worktree":  # the project's own repository, in a temporary folder
                t.bash(f"git worktree add -b w{k} {SCRATCHPAD}/wt{k} origin/main",
                       f"Preparing worktree (new branch 'w{k}')\n")
                where = f"cd {SCRATCHPAD}/wt{k} && "
            t.bash(f'{where}git add -A && git commit -m "{subject}"',
                   f"[{'w' + str(k) if where else 'main'} {sha}] {subject}\n{stat}")
            real.append((sha, subject))
        else:
            probes += 1
            for command, out in _probe(int(what[-1]), k):
                t.bash(command, out)
    t.say("Done.")
    note = t.note(tmp_path_factory, "test_commits_in_throwaway_repositories_are_not_the_sessions")
    listed = _section(note)
    assert "probe" not in _headline(note), steps
    assert not re.search(r"(?m)^- .*probe \d", listed), (listed, steps)
    assert _count(note) == len(real), steps
    for sha, subject in real:
        assert f"- `{sha}` {subject}" in listed, (listed, steps)
    if probes:
        word = "commit" if probes == 1 else "commits"
        assert f"- {probes} {word} in a scratch repository" in listed, (listed, steps)
    else:
        assert "scratch repository" not in note
    if real:
        # The headline names the session's own work: its first commit, or one
        # git counted far more lines in.
        assert re.search(r"Committed “(?:feature|shared) part \d+”", _headline(note)), steps
    else:
        assert "Committed" not in _headline(note), steps


@settings(max_examples=examples(20, 100), deadline=None)
@given(form=st.sampled_from(['"$MSG"', '"fix: ${WHAT}"', '"step `date`"', "$MSG",
                            '"add $(cat name)"']),
       quiet=st.booleans())
def test_a_message_the_shell_expands_is_no_subject_until_git_prints_one(
        tmp_path_factory: Any, form: str, quiet: bool) -> None:
    """`git commit -m "$MSG"`: the words in the command are not the subject;
    git's line (or nothing) tells it."""
    t = Transcript()
    t.prompt("commit it")
    t.bash(f"MSG='the real subject' && git commit {'-q ' if quiet else ''}-m {form}",
           "" if quiet else "[main 1234567] the real subject\n 1 file changed, 1 insertion(+)\n")
    t.say("Done.")
    note = t.note(tmp_path_factory,
                  "test_a_message_the_shell_expands_is_no_subject_until_git_prints_one")
    listed = _section(note)
    said = form.strip('"')
    assert said not in listed and said not in _headline(note), listed
    assert ("- *(git printed no sha)*\n" if quiet else "- `1234567` the real subject") in listed
