"""A file is linked to a commit only when the session shows the commit holds it.

A model of one repository (files changed in the work tree, the index, the
commits and what each holds) runs generated steps: Claude writes a file; `git
add` of named files or of everything; `git status`; `git commit`; and the
user committing a file outside the session (which the transcript never
shows but a later `git status` reflects). Git's outputs are written as git
prints them. Checked with `document_of` (what `vv files` answers):

- never a false link: a file linked to a commit is one the model's commit
  holds, made after the file's last change;
- the links the JSON proves are made: the first commit after a file's last
  change whose own output names it (`create mode`), that the last `git
  status` before it listed under "Changes to be committed:", or that took
  every change (`git add -A`; `commit -a`: every tracked one) when git's
  count of its files equals the files the session changed (written or
  copied) since the commit before.

The steps include the user's own work outside the session (a file committed,
one changed): a commit that took every change then may hold by coincidence as
many files as the session changed, which the JSON cannot tell from a true
count, as may one after a `git status` listed a file the user then committed;
those links are not held to the model.

And 9e953218 (corpus): `vercel.json`, committed by the user outside the
session, is linked to no commit; `next.config.js` to 2564804, `tokenizer.js`
to 42b4429, as git's outputs there say.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter
from test_headlines import Transcript
from vibe_vault.document import document_of
from vibe_vault.render import render

ROOT = "/work/app"
FILES = ["src/a.py", "src/b.py", "README.md", "docs/guide.md"]
UNSTAGE = ["git reset", "git reset HEAD", "git reset --", "git reset HEAD --",
           "git restore --staged", "git restore -S"]

step = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES)),
    st.tuples(st.just("copy"), st.tuples(st.sampled_from(FILES), st.sampled_from(FILES))),
    st.tuples(st.just("add"), st.lists(st.sampled_from(FILES), min_size=1, max_size=3,
                                       unique=True)),
    st.tuples(st.just("add-all"), st.none()),
    st.tuples(st.just("status"), st.none()),
    st.tuples(st.just("commit"), st.sampled_from(["", "git add -A && ", "-a"])),
    st.tuples(st.just("user-commits"), st.sampled_from(FILES)),
    st.tuples(st.just("user-edits"), st.sampled_from(FILES)),
    # Unstaging: every path (`git reset`), or the paths named.
    st.tuples(st.just("unstage"), st.tuples(
        st.sampled_from(UNSTAGE), st.lists(st.sampled_from(FILES), max_size=2, unique=True))),
    # `git commit <paths>` (only those: `--only`, the default) or `-i` (those
    # staged, then every staged change); the options before or after them.
    st.tuples(st.just("commit-paths"), st.tuples(
        st.sampled_from(["", "-o ", "--only ", "-i ", "--include "]), st.booleans(),
        st.booleans(), st.lists(st.sampled_from(FILES), min_size=1, max_size=3, unique=True))),
)


class Repo:
    """Each file's content in the work tree, the index and HEAD (absent: None)."""

    def __init__(self) -> None:
        self.work: dict[str, str] = {}
        self.index: dict[str, str] = {}
        self.head: dict[str, str] = {}
        self.commits: list[tuple[str, set[str]]] = []  # (sha, files held)
        self.last_write: dict[str, int] = {}  # file -> commits made by its last change
        # Commits that took every change with the user's own work outside the
        # session since the commit before (a file committed, one changed):
        # git's count may then equal the session's changes by coincidence,
        # the one link the JSON cannot tell from a true one.
        self.outside_then: set[str] = set()
        self.outside = False
        self.user_committed = False  # a file, in another terminal, since the commit before
        self.took_all = False
        # Each commit's own count and what it held of each file (the content
        # before it, the content it holds); each file's content before the
        # session's first change of it and after its last, the commits made by
        # each of its changes, and whether a `cp` wrote it (lines then not exact).
        self.counts: dict[str, tuple[int, int, dict[str, tuple[str, str]]]] = {}
        self.first: dict[str, str] = {}
        self.last: dict[str, str] = {}
        self.writes: dict[str, list[int]] = {}
        self.copied: set[str] = set()

    def committed(self, sha: str, held: set[str], before: dict[str, str],
                  after: dict[str, str]) -> str:
        """Record a commit; git's line of its count, as git prints it."""
        diffs = {f: (before.get(f, ""), after.get(f, "")) for f in held}
        inserted = deleted = 0
        for old, new in diffs.values():
            a, r = lcs_counts(old, new)
            inserted, deleted = inserted + a, deleted + r
        self.counts[sha] = (inserted, deleted, diffs)
        line = f" {len(held)} file{'s' if len(held) > 1 else ''} changed"
        if inserted or not deleted:
            line += f", {inserted} insertion{'s' if inserted != 1 else ''}(+)"
        if deleted or not inserted:
            line += f", {deleted} deletion{'s' if deleted != 1 else ''}(-)"
        return line + "\n"

    def staged(self) -> list[str]:
        return sorted(f for f in self.index if self.index[f] != self.head.get(f))

    def add(self, files: list[str]) -> None:
        for f in files:
            if f in self.work:
                self.index[f] = self.work[f]

    def unstage(self, files: list[str]) -> None:
        """The index's entry of each file is HEAD's again (none: untracked)."""
        for f in files:
            if f in self.head:
                self.index[f] = self.head[f]
            else:
                self.index.pop(f, None)

    def known(self, f: str) -> bool:
        return f in self.index or f in self.head


def lcs_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed by a shortest edit script from `old` to `new`
    (a longest common subsequence, by the table)."""
    a, b = old.splitlines(), new.splitlines()
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else \
                max(table[i + 1][j], table[i][j + 1])
    common = table[0][0]
    return len(b) - common, len(a) - common


def status_text(repo: Repo) -> str:
    out = "On branch main\n"
    staged = repo.staged()
    if staged:
        out += ("Changes to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n"
                + "".join(f"\t{'modified' if f in repo.head else 'new file'}:   {f}\n"
                          for f in staged) + "\n")
    changed = sorted(f for f in repo.index if repo.work[f] != repo.index[f])
    if changed:
        out += ("Changes not staged for commit:\n  (use \"git add <file>...\" to update what "
                "will be committed)\n" + "".join(f"\tmodified:   {f}\n" for f in changed) + "\n")
    new = sorted(f for f in repo.work if f not in repo.index)
    if new:
        out += "Untracked files:\n" + "".join(f"\t{f}\n" for f in new) + "\n"
    if not staged and not changed and not new:
        out += "nothing to commit, working tree clean\n"
    return out


def play(steps: list[tuple[str, Any]]) -> tuple[Transcript, Repo, dict[str, int]]:
    """The steps run on the model and told in a transcript; and the index of
    each file's last change among the transcript's lines."""
    t = Transcript(cwd=ROOT)
    t.prompt("work on it")
    repo = Repo()
    last_write: dict[str, int] = {}
    for n, (kind, arg) in enumerate(steps):
        if kind == "write":
            path = f"{ROOT}/{arg}"
            before = repo.work.get(arg)
            content = (before or "") + f"line {n}\n"
            t.write_file(path, content, before)
            repo.work[arg] = content
            repo.first.setdefault(arg, before or "")
            repo.last[arg] = content
            repo.writes.setdefault(arg, []).append(len(repo.commits))
            last_write[arg] = len(t.lines)
            repo.last_write[arg] = len(repo.commits)
        elif kind == "copy":
            source, target = arg
            if source == target:
                continue
            if source not in repo.work:
                t.call("Bash", {"command": f"cp {source} {target}"}, None,
                       f"Exit code 1\ncp: cannot stat '{source}': No such file or directory",
                       error=True)
                continue
            t.bash(f"cp {source} {target}")
            repo.work[target] = repo.work[source]
            repo.copied.add(target)
            repo.first.setdefault(target, "")
            repo.last[target] = repo.work[source]
            repo.writes.setdefault(target, []).append(len(repo.commits))
            last_write[target] = len(t.lines)
            repo.last_write[target] = len(repo.commits)
        elif kind == "add":
            t.bash("git add " + " ".join(arg))
            repo.add(arg)
        elif kind == "add-all":
            t.bash("git add -A")
            repo.add(list(repo.work))
            repo.took_all = True
        elif kind == "status":
            t.bash("git status", status_text(repo))
        elif kind == "commit":
            subject = f"change {n}"
            command = f'{arg}git commit -m "{subject}"' if arg != "-a" else \
                f'git commit -am "{subject}"'
            if arg == "-a":
                repo.add(list(repo.index))  # every change to a tracked file
            elif arg:
                repo.add(list(repo.work))
            held = set(repo.staged())
            if not held:
                t.call("Bash", {"command": command}, None,
                       "Exit code 1\n" + status_text(repo), error=True)
                continue
            sha = f"{0xabc0000 + n:07x}"
            created = "".join(f" create mode 100644 {f}\n" for f in sorted(held)
                              if f not in repo.head)
            count = repo.committed(sha, held, repo.head, repo.index)
            t.bash(command, f"[main {sha}] {subject}\n{count}{created}")
            repo.commits.append((sha, held))
            repo.head.update(repo.index)
            if repo.outside and (repo.took_all or arg or repo.user_committed):
                # (the user's commit of a file `git status` listed as staged
                # unstages it unseen: git's count may agree by coincidence)
                repo.outside_then.add(sha)
            repo.outside = repo.took_all = repo.user_committed = False
        elif kind == "unstage":
            form, files = arg
            if form.startswith("git restore") and not files:
                continue  # (git asks for a path)
            command = " ".join([form, *files])
            if not all(f in repo.work or repo.known(f) for f in files):
                t.call("Bash", {"command": command}, None,
                       f"Exit code 1\nerror: pathspec '{files[0]}' did not match any file(s) "
                       "known to git", error=True)
                continue
            t.bash(command, "Unstaged changes after reset:\n" if form.startswith(
                "git reset") and not files else "")
            repo.unstage(files or list(set(repo.index) | set(repo.head)))
            if form.startswith("git reset") and not files:
                repo.index = dict(repo.head)
        elif kind == "commit-paths":
            option, dashes, message_last, files = arg
            subject = f"change {n}"
            message = f'-m "{subject}"'
            command = " ".join(["git commit", *([message] if not message_last else []),
                                option.strip(), *(["--"] if dashes else []), *files,
                                *([message] if message_last and not dashes else [])]).replace(
                "  ", " ")
            if not all(repo.known(f) for f in files):
                t.call("Bash", {"command": command}, None,
                       f"Exit code 1\nerror: pathspec '{files[0]}' did not match any file(s) "
                       "known to git", error=True)
                continue
            include = option.strip() in ("-i", "--include")
            if include:
                repo.add(files)
                held = set(repo.staged())
            else:
                held = {f for f in files if repo.work.get(f) != repo.head.get(f)}
            if not held:
                t.call("Bash", {"command": command}, None,
                       "Exit code 1\n" + status_text(repo), error=True)
                continue
            sha = f"{0xabc0000 + n:07x}"
            created = "".join(f" create mode 100644 {f}\n" for f in sorted(held)
                              if f not in repo.head)
            count = repo.committed(sha, held, repo.head,
                                   {**repo.index, **{f: repo.work[f] for f in held
                                                     if f in repo.work}})
            t.bash(command, f"[main {sha}] {subject}\n{count}{created}")
            repo.commits.append((sha, held))
            for f in held:  # (the other staged changes stay staged with --only)
                if f in repo.work:
                    repo.index[f] = repo.head[f] = repo.work[f]
            if include:  # (as `git add <paths> && git commit`)
                repo.head.update(repo.index)
                if repo.outside and (repo.took_all or repo.user_committed):
                    repo.outside_then.add(sha)
                repo.outside = repo.took_all = repo.user_committed = False
        elif kind == "user-commits" and arg in repo.work:
            # committed in another terminal: clean here
            repo.index[arg] = repo.head[arg] = repo.work[arg]
            repo.outside = repo.user_committed = True
        elif kind == "user-edits" and arg in repo.work:
            repo.work[arg] += "the user's line\n"
            repo.outside = True
    t.say("Done.")
    return t, repo, last_write


def _texts(line: dict[str, Any]) -> str:
    content = line["message"]["content"]
    return " ".join(str(b.get("content")) for b in content if isinstance(b, dict)
                    and b.get("type") == "tool_result") if isinstance(content, list) else ""


def _changed(line: dict[str, Any]) -> str:
    """The file a line's call changes (a Write, a `cp`), as written."""
    content = line["message"]["content"]
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "tool_use":
            if b["name"] == "Write":
                return str(b["input"]["file_path"]).removeprefix(ROOT + "/")
            m = re.match(r"cp (\S+) (\S+)$", b["input"].get("command", ""))
            if m:
                return m.group(2)
    return ""


def _unstaged(command: str) -> set[str] | None:
    """The files a `git reset`/`git restore --staged` of the steps unstages
    (every file: FILES); None for another command."""
    for form in sorted(UNSTAGE, key=len, reverse=True):
        if command == form or command.startswith(form + " "):
            named = set(command[len(form):].split())
            return named or set(FILES)
    return None


def _commit_paths(command: str) -> tuple[bool, set[str]] | None:
    """A `git commit` of paths: (whether `-i`, the paths); None for another."""
    if not command.startswith("git commit "):
        return None
    words = re.sub(r'-m "[^"]*"', "", command).split()[2:]
    paths = {w for w in words if w in FILES}
    return (bool({"-i", "--include"} & set(words)), paths) if paths else None


def proven(t: Transcript, last_write: dict[str, int]) -> dict[str, str]:
    """From the JSON alone: each file -> the sha of the first commit after its
    last change that names it in its own output (`create mode`); that the
    last `git status` since the commit before listed as staged, git counting
    no fewer files than it listed; that took every change when git's count
    of its files equals the files the session changed since the commit
    before and before the last `git add -A` (all of them when it was on the
    commit's line; a `commit -a`: of those, only the ones an earlier `create
    mode` named), this one among them; or, with no `git add -A` since the commit before, that a
    `git add` named after the session changed it when git's count equals the
    files so named with those the status listed and the output names."""
    out: dict[str, str] = {}
    lines = t.lines
    # Per line: the files changed since the last commit, those changed since
    # it by the last `add -A` (None: no `add -A` since), and those a `git
    # add` named after their change since it.
    since: list[tuple[dict[str, bool], dict[str, bool] | None, set[str]]] = []
    tracked: list[set[str]] = []
    changed: dict[str, bool] = {}  # file -> made (first changed) since the last commit
    ever: set[str] = set()
    at_add_all: dict[str, bool] | None = None
    named: set[str] = set()
    shown: set[str] = set()  # files a `create mode` line named: tracked since
    for k, line in enumerate(lines):
        name = _changed(line)
        if name and k + 1 < len(lines) and "Exit code" not in _texts(lines[k + 1]):
            changed.setdefault(name, name not in ever)
            ever.add(name)
        text = _texts(line)
        content = line["message"]["content"]
        command = next((str(b["input"].get("command", "")) for b in content
                        if isinstance(b, dict) and b.get("type") == "tool_use"), "") \
            if isinstance(content, list) else ""
        gone = _unstaged(command)
        paths = _commit_paths(command)
        if command == "git add -A":
            at_add_all = dict(changed)
        elif command.startswith("git add "):
            named |= set(command.split()[2:]) & set(changed)
        elif gone is not None and "Exit code" not in _texts(lines[k + 1]):
            # (what `git add -A` staged is no longer every change)
            named -= gone
            at_add_all = None
        elif paths is not None and paths[0]:
            named |= paths[1] & set(changed)
        since.append((dict(changed), at_add_all, set(named)))
        if re.match(r"\[main [0-9a-f]{7}\] ", text):
            changed, at_add_all, named = {}, None, set()
            shown |= set(re.findall(r" create mode 100644 (\S+)\n", text))
        tracked.append(set(shown))
    for rel, at in last_write.items():
        listed: set[str] = set()
        for k in range(at, len(lines)):
            text = _texts(lines[k])
            content = lines[k]["message"]["content"]
            command = next((str(b["input"].get("command", "")) for b in content
                            if isinstance(b, dict) and b.get("type") == "tool_use"), "") \
                if isinstance(content, list) else ""
            gone = _unstaged(command)
            if gone is not None and "Exit code" not in _texts(lines[k + 1]):
                listed -= gone
            if "On branch main" in text and "[main " not in text:
                section = text.split("Changes to be committed:\n", 1)
                listed = set(re.findall(r"(?m)^\t[a-z ]+:\s+(\S+)$", section[1].split(
                    "\n\n", 1)[0])) if len(section) > 1 else set()
            made = re.match(r"\[main ([0-9a-f]{7})\] \S+ (\d+)\n (\d+) files? changed", text)
            if made:
                files, before_all, added = since[k - 1]
                count = int(made.group(3))
                command = str(lines[k - 1]["message"]["content"][0]["input"]["command"])
                tracked_only = command.startswith("git commit -am")
                created = set(re.findall(r" create mode 100644 (\S+)\n", text))
                paths = _commit_paths(command)
                if paths is not None and not paths[0]:
                    # `--only`: the paths named when git counts as many
                    if rel in created or (rel in paths[1] and len(paths[1]) == count):
                        out[rel] = made.group(1)
                    break
                if "add -A" in command or tracked_only:
                    # (every file here is one the session made: tracked once
                    # a commit's `create mode` line named it)
                    counted: set[str] | None = {
                        f for f in files if not tracked_only or f in tracked[k - 1]}
                else:
                    counted = set(before_all) if before_all is not None else None
                if (rel in listed and len(listed) <= count) or rel in created or (
                        counted is not None and rel in counted and len(counted) == count) or (
                        counted is None and rel in added
                        and len(added | listed | created) == count):
                    out[rel] = made.group(1)
                break
    return out


@settings(max_examples=examples(50, 500), deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=14))
# (a `commit -a` leaves out the file made since: git's count is of the other)
@example(steps=[("write", "src/a.py"), ("commit", "git add -A && "), ("write", "src/a.py"),
                ("write", "src/b.py"), ("commit", "-a")])
# (a copy and a write, then every change: git counts both)
@example(steps=[("write", "src/a.py"), ("commit", "git add -A && "), ("write", "src/b.py"),
                ("copy", ("src/b.py", "README.md")), ("write", "src/a.py"), ("add-all", None),
                ("commit", "")])
# (what `git status` listed as staged stays staged after a `git add` of another
# path: the commit holds it, whatever git's count; issue 29)
@example(steps=[("write", "README.md"), ("commit", "git add -A && "), ("write", "README.md"),
                ("add-all", None), ("status", None), ("add", ["src/a.py"]), ("commit", "")])
# (a change made after the last `git add -A` is not staged by it; a file never
# staged is not taken by `commit -a`)
@example(steps=[("write", "README.md"), ("write", "src/a.py"), ("add", ["src/a.py"]),
                ("commit", ""), ("add-all", None), ("write", "src/b.py"), ("commit", "")])
@example(steps=[("write", "src/a.py"), ("add-all", None), ("write", "src/a.py"),
                ("write", "README.md"), ("commit", ""), ("write", "README.md"),
                ("commit", "-a")])
def test_a_file_is_linked_only_to_a_commit_the_session_shows_holds_it(
        steps: list[tuple[str, Any]]) -> None:
    links_are_true_and_proven(steps)


# The index's own commands, drawn oftener, of two files: what is staged, then
# unstaged, committed by path or after (review 21: `git reset <path>`,
# `git restore --staged`, `git commit <paths>` were not read).
TWO = FILES[:2]
index_step = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(TWO)),
    st.tuples(st.just("add"), st.lists(st.sampled_from(TWO), min_size=1, max_size=2,
                                       unique=True)),
    st.tuples(st.just("add-all"), st.none()),
    st.tuples(st.just("status"), st.none()),
    st.tuples(st.just("commit"), st.sampled_from(["", "git add -A && ", "-a"])),
    st.tuples(st.just("unstage"), st.tuples(
        st.sampled_from(UNSTAGE), st.lists(st.sampled_from(TWO), max_size=2, unique=True))),
    st.tuples(st.just("commit-paths"), st.tuples(
        st.sampled_from(["", "-o ", "--only ", "-i ", "--include "]), st.booleans(),
        st.booleans(), st.lists(st.sampled_from(TWO), min_size=1, max_size=2, unique=True))),
    st.tuples(st.just("user-commits"), st.sampled_from(TWO)),
)


@settings(max_examples=examples(50, 500), deadline=None)
@given(steps=st.lists(index_step, min_size=1, max_size=12))
# (a path `git status` listed, then unstaged, is not held by the next commit)
@example(steps=[("write", "src/a.py"), ("add", ["src/a.py"]), ("status", None),
                ("unstage", ("git restore --staged", ["src/a.py"])), ("write", "src/b.py"),
                ("add", ["src/b.py"]), ("commit", "")])
# (`git commit <path>` holds that path; the one `git status` listed stays staged)
@example(steps=[("write", "src/a.py"), ("write", "src/b.py"), ("commit", "git add -A && "),
                ("write", "src/a.py"), ("write", "src/b.py"), ("add", ["src/b.py"]),
                ("status", None), ("commit-paths", ("", False, False, ["src/a.py"])),
                ("commit", "")])
# (drawn: after a commit of one path of "every change", what else is staged is
# not told: a `git add` of an unchanged path is no count of the next commit)
@example(steps=[("write", "src/a.py"), ("write", "src/b.py"), ("add-all", None),
                ("commit-paths", ("", False, False, ["src/a.py"])), ("add", ["src/a.py"]),
                ("write", "src/a.py"), ("commit", "")])
def test_unstaged_and_committed_by_path_files_are_linked_only_where_held(
        steps: list[tuple[str, Any]]) -> None:
    links_are_true_and_proven(steps)


def links_are_true_and_proven(steps: list[tuple[str, Any]]) -> None:
    t, repo, last_write = play(steps)
    state = t.state()
    state.note = "Projects/app/sessions/x.md"
    doc = document_of(state)
    assert doc is not None
    held = dict(repo.commits)
    order = [sha for sha, _ in repo.commits]
    for row in doc.files:
        rel = row.path.removeprefix(ROOT + "/")
        if row.commit and row.commit not in repo.outside_then:
            assert rel in held[row.commit], (rel, row.commit, repo.commits)
            # made after the file's last change: no commit between holds it
            k = order.index(row.commit)
            assert k >= repo.last_write[rel], (rel, row.commit)
            assert all(rel not in held[s] for s in order[repo.last_write[rel]:k]), \
                (rel, row.commit)
    links = {row.path.removeprefix(ROOT + "/"): row.commit for row in doc.files}
    for rel, sha in proven(t, last_write).items():
        assert links.get(rel) == sha, (rel, sha, links)
    commit_counts_are_true(doc.files, repo)


def commit_counts_are_true(rows: list[Any], repo: Repo) -> None:
    """`vv files`' word on a linked commit's lines (review 22 #8): git's own
    count as the model's commit printed it; "partly" never where the commit
    holds the file's change from the session's first content to its last,
    and always where git's count (of all its files) is less than that
    change's lines, from the model's contents (a file a `cp` wrote aside:
    its lines are not exact); an earlier commit named only where the model's
    commit held the file, after one of the session's changes of it and
    before its last."""
    order = [sha for sha, _ in repo.commits]
    for row in rows:
        rel = row.path.removeprefix(ROOT + "/")
        if row.commit and row.commit not in repo.outside_then:
            inserted, deleted, diffs = repo.counts[row.commit]
            assert (row.commit_files, row.commit_added, row.commit_removed) == (
                len(diffs), inserted, deleted), (rel, row)
            whole = diffs.get(rel) == (repo.first[rel], repo.last[rel])
            assert not (row.partly and whole), (rel, row, diffs, repo.first, repo.last)
            added, removed = lcs_counts(repo.first[rel], repo.last[rel])
            if rel not in repo.copied and (added > inserted or removed > deleted):
                assert row.partly, (rel, row, diffs)
        for sha in row.earlier:
            k = order.index(sha)
            assert rel in repo.commits[k][1], (rel, sha)
            assert any(w <= k for w in repo.writes[rel]) and k < repo.last_write[rel], \
                (rel, sha, repo.writes[rel])


@pytest.mark.corpus
def test_9e953218_links_files_to_the_commits_git_says_hold_them(tmp_path: Path) -> None:
    main = (CORPUS / "iansherr__claude-code-log" / "real_projects"
            / "-Users-dain-workspace-danieldemmel-me-next"
            / "9e953218-585f-4692-89df-9e0747a31c68.jsonl")
    env = Env(tmp_path)
    slug = env.claude / "projects" / "-Users-dain-workspace-danieldemmel-me-next"
    slug.mkdir(parents=True)
    shutil.copyfile(main, slug / main.name)
    assert env.vv("backfill").returncode == 0
    # From the JSON: `git status` after `git add … vercel.json` (line 158)
    # lists only next.config.js and public/tokenizer as staged; d6cbb36 says
    # "1 file changed" (the submodule); 2564804 follows `git add
    # public/tokenizer next.config.js` and says "2 files changed".
    site = "/Users/dain/workspace/danieldemmel.me-next"
    answers = {}
    for name in ("vercel.json", "next.config.js"):
        r = env.vv("files", "--json", f"{site}/{name}")
        assert r.returncode == 0, r.stderr
        answers[name] = [o.get("commit") for o in json.loads(r.stdout)]
    assert answers == {"vercel.json": [""], "next.config.js": ["2564804"]}, answers
    # 2564804's own line (JSON line 247): "2 files changed, 17 insertions(+), 1
    # deletion(-)", under the session's +33 to next.config.js: the commit holds
    # only part of them (the user committed earlier versions: `git log`, line
    # 217), said so, with git's own count (review 22 #8).
    r = env.vv("files", "--json", f"{site}/next.config.js")
    [obj] = json.loads(r.stdout)
    assert (obj["added"], obj["in_commit"], obj["commit_stat"]) == (
        33, "partly", {"files": 2, "added": 17, "removed": 1}), obj
    text = env.vv("files", f"{site}/next.config.js").stdout.decode()
    assert "· commit 2564804 Add rewrites for tokenizer assets to eliminate failed requests " \
        "(part of these lines: git counted +17 −1 in 2 files)" in text, text
    # In the tokenizer's repository, each `git add -A && git commit` says how
    # many files it holds: 42b4429 "3 files changed" after index.html (00:25:43
    # to 00:27:13), tokenizer.js (00:26:07) and favicons/token.svg (copied,
    # 00:28:58) changed since acf21f1; ef55c7b "1 file changed" after only
    # index.html (12:33) did.
    tool = "/Users/dain/workspace/online-llm-tokenizer"
    for name, sha in (("tokenizer.js", "42b4429"), ("index.html", "ef55c7b"),
                      ("favicons/token.svg", "42b4429"), ("README.md", "030d80d")):
        r = env.vv("files", "--json", f"{tool}/{name}")
        assert r.returncode == 0, r.stderr
        assert [o.get("commit") for o in json.loads(r.stdout)] == [sha], (name, r.stdout)
    # The earlier commits holding index.html by the same evidence (review 24
    # N2): acf21f1 (line 149, "2 files changed" after index.html and
    # tokenizer.js changed since 030d80d) and 42b4429; and ef55c7b, "1 file
    # changed, 5 deletions(-)", holds only part of its +75 (estimated) lines.
    r = env.vv("files", "--json", f"{tool}/index.html")
    [obj] = json.loads(r.stdout)
    assert {"acf21f1", "42b4429"} <= set(obj["earlier_commits"]), obj
    assert obj["in_commit"] == "partly", obj


# -- "partly" at any size ----------------------------------------------------------------

file_text = st.integers(0, 420).flatmap(lambda n: st.lists(
    st.sampled_from([f"line {k}" for k in range(24)]), min_size=n, max_size=n)).map(
    lambda lines: "".join(x + "\n" for x in lines))


@settings(max_examples=examples(25, 100), deadline=None)
@given(old=file_text, new=file_text, grown=st.booleans(), data=st.data())
def test_partly_is_said_where_git_counted_fewer_lines_at_any_size(
        old: str, new: str, grown: bool, data: st.DataObject) -> None:
    """A file's first and last contents in a session (up to 420 lines each,
    or the last the first with such lines put in its middle; from few
    distinct lines: often more than the 300 differing lines a
    shortest script is looked for), and a commit whose count git printed near
    the true one (a longest common subsequence's): "partly" never where the
    commit's count could hold the whole change; always where it inserted or
    deleted fewer lines than the contents' difference in length; and, up to
    300 differing lines, exactly where it counted fewer than the true lines
    (review 25 L1: a7da6a22's test_unit.py, +330 −13, against 34 insertions)."""
    from vibe_vault.document import _more_than_held
    from vibe_vault.linediff import diff_counts, line_hashes
    from vibe_vault.redact import Redacted
    from vibe_vault.state import Commit, FileChange

    if grown:  # (mostly lines added to it: a test file written on)
        new = old[:len(old) // 2] + new + old[len(old) // 2:]
    added, removed = diff_counts(line_hashes(old), line_hashes(new))
    true_added, true_removed = lcs_counts(old, new)
    inserted = max(0, true_added + data.draw(st.integers(-40, 40)))
    deleted = max(0, true_removed + data.draw(st.integers(-40, 40)))
    partly = _more_than_held(FileChange(added=added, removed=removed),
                             Commit(sha=Redacted("abc1234"), count=1, inserted=inserted,
                                    deleted=deleted))
    fewer = true_added > inserted or true_removed > deleted
    if partly:
        assert fewer, (true_added, true_removed, inserted, deleted)
    net = true_added - true_removed
    if max(net, 0) > inserted or max(-net, 0) > deleted:
        assert partly, (true_added, true_removed, inserted, deleted)
    if true_added + true_removed <= 300:
        assert partly == fewer, (true_added, true_removed, inserted, deleted)


# -- a file changed by one name, committed by another --------------------------------------

@settings(max_examples=examples(25, 100), deadline=None)
@given(before=st.integers(1, 30), kept=st.data(), made=st.integers(1, 40),
       off=st.sampled_from([(0, 0), (0, 0), (1, 0), (0, 1), (-1, 0)]),
       other=st.sampled_from(["AGENTS.md", "docs/AGENTS.md"]))
def test_a_change_through_a_link_takes_the_commit_git_counted_it_in(
        before: int, kept: st.DataObject, made: int, off: tuple[int, int], other: str) -> None:
    """Claude edits CLAUDE.md (a link to AGENTS.md, which the transcript never
    says) and writes a new notes file, then `git add AGENTS.md notes.md &&
    git commit`, git printing its count: where the count is the session's lines
    to notes.md and CLAUDE.md together (the planted `off` zero), and AGENTS.md
    is beside CLAUDE.md, both names are given that commit, each saying the
    other; else CLAUDE.md has no commit and AGENTS.md says no change was seen
    to it (review 25 N3: b74fb8cb's CLAUDE.md -> AGENTS.md)."""
    old_lines = [f"old {k}" for k in range(before)]
    keep = kept.draw(st.integers(0, before - 1))
    new_lines = old_lines[:keep] + [f"new {k}" for k in range(kept.draw(st.integers(1, 20)))]
    added, removed = len(new_lines) - keep, before - keep
    old_text, new_text = "\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n"
    notes_text = "".join(f"note {k}\n" for k in range(made))
    t = Transcript(cwd=ROOT)
    t.prompt("update CLAUDE.md and write the notes")
    t.call("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
           {"type": "text", "file": {"filePath": f"{ROOT}/CLAUDE.md", "content": old_text,
                                     "numLines": before, "startLine": 1,
                                     "totalLines": before}}, old_text)
    t.write_file(f"{ROOT}/CLAUDE.md", new_text, before=old_text, patch=[{
        "oldStart": keep + 1, "oldLines": removed, "newStart": keep + 1, "newLines": added,
        "lines": [f"-{x}" for x in old_lines[keep:]] + [f"+{x}" for x in new_lines[keep:]]}])
    t.write_file(f"{ROOT}/notes.md", notes_text)
    inserted, deleted = made + added + off[0], removed + off[1]
    t.bash(f"git add {other} notes.md && git commit -m 'update the docs'",
           f"[main 60e969f] update the docs\n 2 files changed, {inserted} insertions(+), "
           f"{deleted} deletions(-)\n create mode 100644 notes.md\n")
    t.say("Committed.")
    state = t.state()
    state.note = "Projects/app/sessions/x.md"
    doc = document_of(state)
    assert doc is not None
    rows = {r.path.removeprefix(ROOT + "/"): r for r in doc.files}
    assert rows["notes.md"].commit == "60e969f"
    linked = off == (0, 0) and other == "AGENTS.md"
    assert (rows["CLAUDE.md"].commit == "60e969f") == linked, rows["CLAUDE.md"]
    assert ("committed as AGENTS.md" in rows["CLAUDE.md"].change) == linked
    assert rows[other].commit == "60e969f"
    assert ("the session's change to CLAUDE.md" in rows[other].change) == linked, rows[other]
    # The note: one file, one row, counted once (review 27 #7: b74fb8cb listed
    # AGENTS.md and CLAUDE.md beside "4 files changed" in 5 rows).
    note = render(state)
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    shown = [x.split("|")[1].strip().strip("`") for x in table.splitlines()[2:]
             if x.startswith("| `")]
    assert sorted(shown) == sorted(["CLAUDE.md", "notes.md", *([] if linked else [other])])
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    # (the headline leads with the commit, "Committed “update the docs” (… in
    # 2 files …)", then the session's own files: two, counted once)
    assert "2 files changed" in head and "3 files" not in head, head
    assert ("1 other file committed" in head) == (not linked), head
    assert frontmatter(note).get("files_committed", 0) == (0 if linked else 1)
