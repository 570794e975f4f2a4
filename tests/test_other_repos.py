"""Commits made in another repository than the session's (review 4, finding 3).

9e953218 ran in danieldemmel.me-next and `cd`ed into a sibling repository,
online-llm-tokenizer, to commit and push there: the note listed all six
commits as the project's "on main", and `vv files next.config.js` named a
commit of the other repository. A commit says where it was made when that is
another repository (from the line's cwd, a `cd` before git, `git -C`), and a
file is linked only to commits of its own repository. Inputs are generated;
the oracle is the folder each generated command targets.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, blocks, examples, in_process, json_objects, main_files
from test_headlines import Transcript
from vibe_vault.render import render

APP, LIB = "/work/app", "/work/lib"
sha7 = st.text(alphabet="0123456789abcdef", min_size=7, max_size=7)
subject = st.lists(st.sampled_from(["Fix", "Add", "paths", "base", "tag", "README", "tokenizer",
                                    "rewrites", "for", "the", "submodule"]),
                   min_size=2, max_size=6).map(" ".join)
# (how the command reaches the folder, where git runs: LIB or APP)
FORMS = [
    ("cd {lib} && git add -A && git commit -m \"{s}\"", LIB, APP),
    ("cd ../lib && git commit -m \"{s}\"", LIB, APP),
    ("git -C ../lib commit -m \"{s}\"", LIB, APP),
    ("git -C \"{lib}\" commit -m \"{s}\"", LIB, APP),
    ("git commit -m \"{s}\"", LIB, LIB),  # Claude Code recorded the cwd after an earlier cd
    ("(cd {lib} && git commit -m \"{s}\")", LIB, APP),
    ("git commit -m \"{s}\"", APP, APP),
    ("cd sub && git commit -m \"{s}\"", APP, APP),
    ("cd {app} && git commit -m \"{s}\"", APP, LIB),
    ("git -C . commit -m \"{s}\"", APP, APP),
    ("cd .. && cd app && git commit -m \"{s}\"", APP, APP),
    ("git add next.config.js && git commit -m \"{s}\"", APP, APP),
]


def commit_line(t: Transcript, form: int, sha: str, subj: str, push: bool) -> str:
    template, target, cwd = FORMS[form]
    command = template.format(lib=LIB, app=APP, s=subj) + (" && git push" if push else "")
    out = f"[main {sha}] {subj}\n 1 file changed, 2 insertions(+)\n"
    if push:
        out += f"To github.com:me/{target.rsplit('/', 1)[1]}.git\n   0000000..{sha}  main -> main\n"
    t.call("Bash", {"command": command}, {"stdout": out, "stderr": "", "interrupted": False},
           out)
    t.lines[-2]["cwd"] = t.lines[-1]["cwd"] = cwd
    return target


@settings(max_examples=60, deadline=None)
@given(made=st.lists(st.tuples(st.integers(0, len(FORMS) - 1), sha7, subject, st.booleans()),
                     min_size=1, max_size=6, unique_by=lambda x: x[1]))
def test_a_commit_says_which_repository_it_was_made_in(
        made: list[tuple[int, str, str, bool]]) -> None:
    t = Transcript(cwd=APP)
    t.prompt("move the tokenizer into its own repository")
    targets = [commit_line(t, form, sha, subj, push) for form, sha, subj, push in made]
    state = t.state()
    got = {c.sha: c.folder for c in state.fold.commits}
    assert got == {sha: (LIB if target == LIB else "")
                   for (_, sha, _, _), target in zip(made, targets, strict=True)}
    note = render(state)
    for (_, sha, subj, _), target in zip(made, targets, strict=True):
        line = next(ln for ln in note.splitlines() if ln.startswith(f"- `{sha}` {subj}"))
        assert line.endswith(" in `lib`") == (target == LIB), line
    pushes = [target for (_, _, _, push), target in zip(made, targets, strict=True) if push]
    if pushes:
        elsewhere = pushes.count(LIB)
        said = next(ln for ln in note.splitlines() if ln.startswith("- Pushed "))
        assert ("in `lib`" in said) == bool(elsewhere), said
        if elsewhere == len(pushes):
            assert "(all in `lib`)" in said
        elif elsewhere:
            assert f"({elsewhere} in `lib`)" in said


def _write(t: Transcript, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in t.lines))


@settings(max_examples=examples(3, 6), deadline=None)
@given(order=st.permutations(["app", "lib"]), shas=st.tuples(sha7, sha7).filter(
    lambda s: s[0] != s[1]), subj=subject)
def test_vv_files_links_a_file_only_to_its_own_repositorys_commit(
        tmp_path_factory: pytest.TempPathFactory, order: list[str], shas: tuple[str, str],
        subj: str) -> None:
    """Through `vv backfill` and `vv files`: a file of the session's repository
    and one of the sibling, each edited and then committed in its own
    repository, in a generated order: each file names its own repository's
    commit, never the other's."""
    env = Env(tmp_path_factory.mktemp("home"))
    env.here = in_process("other_repos files")  # (`vv` as processes in the first case)
    t = Transcript(sid="0b1c2d3e-0000-4000-8000-0000000000cc", cwd=APP)
    t.prompt("move it")
    own = {"app": (f"{APP}/next.config.js", shas[0]), "lib": (f"{LIB}/index.html", shas[1])}
    for repo in order:
        path, _ = own[repo]
        t.call("Write", {"file_path": path, "content": "a\nb\n"},
               {"type": "create", "filePath": path, "content": "a\nb\n"}, "File created")
    for repo in order:
        _, sha = own[repo]
        # What says the commit holds the file (vibe_vault.fold.staged): `git
        # add -A` and git's count of 1 file; `git add next.config.js`.
        form = 0 if repo == "lib" else len(FORMS) - 1
        commit_line(t, form, sha, f"{subj} {repo}", False)
    _write(t, env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    for repo, (path, sha) in own.items():
        other = own["lib" if repo == "app" else "app"][1]
        r = env.vv("files", path)
        out = r.stdout.decode()
        assert r.returncode == 0 and f"commit {sha}" in out, out
        assert f"commit {other}" not in out, out


# -- every corpus session ----------------------------------------------------------------------

_CD = re.compile(r"(?:^|[;&|(]\s*)(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)")
_DASH_C = re.compile(r"\bgit\s+-C\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)")
_MADE = re.compile(r"(?m)^\[(?:[^\]\s]+|detached HEAD) ([0-9a-f]{7,40})\] ")


def _where(cwd: str, command: str) -> str | None:
    """The folder the command's commit ran in, from the line's cwd and the
    command's `cd`s and `-C` (None: not known from the text)."""
    at = command.find("git commit") if "git commit" in command else command.find(" commit")
    for m in _CD.finditer(command[:max(at, 0)]):
        cwd = _joined(cwd, m.group(1))
        if not cwd:
            return None
    m = _DASH_C.search(command)
    return _joined(cwd, m.group(1)) if m else cwd


def _joined(here: str, to: str) -> str:
    to = to.strip("'\"")
    if to.startswith(("~", "$", "`")):
        return ""
    parts = [] if to.startswith("/") else here.split("/")
    for p in to.split("/"):
        if p == "..":
            parts = parts[:-1]
        elif p not in ("", "."):
            parts.append(p)
    return "/" + "/".join(p for p in parts if p)


def _foreign(folder: str, root: str) -> bool:
    f, r = folder.rstrip("/").lower() + "/", root.rstrip("/").lower() + "/"
    f = re.sub(r"/\.(?:claude/)?worktrees/[^/]+/", "/", f)
    r = re.sub(r"/\.(?:claude/)?worktrees/[^/]+/", "/", r)
    return not (f.startswith(r) or r.startswith(f))


@pytest.mark.corpus
def test_corpus_commits_name_their_repository_when_it_is_not_the_sessions() -> None:
    """Every corpus main transcript (POSIX paths): each commit git printed
    (`[branch sha] subject`) is told "in <folder>" exactly when the folder its
    command ran in (the line's cwd, its `cd`s, `-C`) is outside the session's
    first folder and that folder outside it."""
    from test_trust import folded
    foreign_seen = checked = 0
    for main in main_files():
        root = ""
        calls: dict[str, tuple[str, str]] = {}
        want: dict[str, bool] = {}
        for o in json_objects(main):
            root = root or str(o.get("cwd") or "")
            if o.get("isSidechain"):
                continue
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    calls[str(b.get("id"))] = (str(o.get("cwd") or ""),
                                               str((b.get("input") or {}).get("command") or ""))
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    cwd, command = calls[b["tool_use_id"]]
                    out: Any = b.get("content")
                    if isinstance(out, list):
                        out = "\n".join(str(x.get("text") or "") for x in out
                                        if isinstance(x, dict))
                    where = _where(cwd, command) if "commit" in command else None
                    if where is None or not root.startswith("/"):
                        continue
                    for m in _MADE.finditer(str(out)):
                        want.setdefault(m.group(1)[:7], _foreign(where, root))
        if not want:
            continue
        commits = {c.sha[:7]: bool(c.folder) for c in folded(main).fold.commits}
        for sha, foreign in want.items():
            if sha in commits:
                assert commits[sha] == foreign, (main, sha)
                foreign_seen += foreign
                checked += 1
    assert checked >= 10 and foreign_seen >= 4
