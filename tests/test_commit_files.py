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
  change whose own output names it (`create mode`), or that the last `git
  status` before it listed under "Changes to be committed:".

And 9e953218 (corpus): `vercel.json`, committed by the user outside the
session, is linked to no commit; `next.config.js` to 2564804, as git's
outputs there say.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples
from test_headlines import Transcript
from vibe_vault.document import document_of

ROOT = "/work/app"
FILES = ["src/a.py", "src/b.py", "README.md", "docs/guide.md"]

step = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES)),
    st.tuples(st.just("add"), st.lists(st.sampled_from(FILES), min_size=1, max_size=3,
                                       unique=True)),
    st.tuples(st.just("add-all"), st.none()),
    st.tuples(st.just("status"), st.none()),
    st.tuples(st.just("commit"), st.none()),
    st.tuples(st.just("user-commits"), st.sampled_from(FILES)),
)


class Repo:
    def __init__(self) -> None:
        self.tracked: set[str] = set()  # in some commit already
        self.dirty: set[str] = set()  # changed in the work tree, not staged
        self.index: set[str] = set()  # staged
        self.commits: list[tuple[str, set[str]]] = []  # (sha, files held)


def status_text(repo: Repo) -> str:
    out = "On branch main\n"
    if repo.index:
        out += ("Changes to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n"
                + "".join(f"\t{'modified' if f in repo.tracked else 'new file'}:   {f}\n"
                          for f in sorted(repo.index)) + "\n")
    changed = sorted(f for f in repo.dirty if f in repo.tracked)
    if changed:
        out += ("Changes not staged for commit:\n  (use \"git add <file>...\" to update what "
                "will be committed)\n" + "".join(f"\tmodified:   {f}\n" for f in changed) + "\n")
    new = sorted(f for f in repo.dirty if f not in repo.tracked)
    if new:
        out += "Untracked files:\n" + "".join(f"\t{f}\n" for f in new) + "\n"
    if not repo.index and not repo.dirty:
        out += "nothing to commit, working tree clean\n"
    return out


def play(steps: list[tuple[str, Any]]) -> tuple[Transcript, Repo, dict[str, int]]:
    """The steps run on the model and told in a transcript; and the index of
    each file's last write among the transcript's lines."""
    t = Transcript(cwd=ROOT)
    t.prompt("work on it")
    repo = Repo()
    contents: dict[str, str] = {}
    last_write: dict[str, int] = {}
    for n, (kind, arg) in enumerate(steps):
        if kind == "write":
            path = f"{ROOT}/{arg}"
            content = contents.get(arg, "") + f"line {n}\n"
            t.write_file(path, content, contents.get(arg))
            contents[arg] = content
            repo.dirty.add(arg)
            last_write[arg] = len(t.lines)
        elif kind == "add":
            t.bash("git add " + " ".join(arg))
            moved = {f for f in arg if f in repo.dirty}
            repo.index |= moved
            repo.dirty -= moved
        elif kind == "add-all":
            t.bash("git add -A")
            repo.index |= repo.dirty
            repo.dirty = set()
        elif kind == "status":
            t.bash("git status", status_text(repo))
        elif kind == "commit":
            subject = f"change {n}"
            if not repo.index:
                t.call("Bash", {"command": f'git commit -m "{subject}"'}, None,
                       "Exit code 1\n" + status_text(repo), error=True)
                continue
            sha = f"{0xabc0000 + n:07x}"
            held = set(repo.index)
            created = "".join(f" create mode 100644 {f}\n" for f in sorted(held - repo.tracked))
            t.bash(f'git commit -m "{subject}"',
                   f"[main {sha}] {subject}\n {len(held)} file{'s' if len(held) > 1 else ''} "
                   f"changed, {len(held)} insertions(+)\n{created}")
            repo.commits.append((sha, held))
            repo.tracked |= held
            repo.index = set()
        elif kind == "user-commits" and arg in repo.dirty | repo.index:
            repo.dirty.discard(arg)  # committed in another terminal: clean here
            repo.index.discard(arg)
            repo.tracked.add(arg)
    t.say("Done.")
    return t, repo, last_write


def proven(t: Transcript, last_write: dict[str, int]) -> dict[str, str]:
    """From the JSON alone: each file -> the sha of the first commit after its
    last write that names it in its own output (`create mode`), or that the
    last `git status` since the commit before listed as staged."""
    out: dict[str, str] = {}
    for rel, at in last_write.items():
        listed: set[str] = set()
        for line in t.lines[at:]:
            text = " ".join(str(b.get("content")) for b in line["message"]["content"]
                            if isinstance(b, dict) and b.get("type") == "tool_result") \
                if isinstance(line["message"]["content"], list) else ""
            if "On branch main" in text and "[main " not in text:
                section = text.split("Changes to be committed:\n", 1)
                listed = set(re.findall(r"(?m)^\t[a-z ]+:\s+(\S+)$", section[1].split(
                    "\n\n", 1)[0])) if len(section) > 1 else set()
            made = re.match(r"\[main ([0-9a-f]{7})\] ", text)
            if made:
                if rel in listed or f" create mode 100644 {rel}\n" in text:
                    out[rel] = made.group(1)
                break
    return out


@settings(max_examples=examples(120, 500), deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=14))
def test_a_file_is_linked_only_to_a_commit_the_session_shows_holds_it(
        steps: list[tuple[str, Any]]) -> None:
    t, repo, last_write = play(steps)
    state = t.state()
    state.note = "Projects/app/sessions/x.md"
    doc = document_of(state)
    assert doc is not None
    held = dict(repo.commits)
    order = [sha for sha, _ in repo.commits]
    for row in doc.files:
        rel = row.path.removeprefix(ROOT + "/")
        if row.commit:
            assert rel in held[row.commit], (rel, row.commit, repo.commits)
            # made after the file's last write: no commit between holds it
            later = order[order.index(row.commit):]
            assert all(rel not in held[s] for s in order if s not in later), (rel, row.commit)
    links = {row.path.removeprefix(ROOT + "/"): row.commit for row in doc.files}
    for rel, sha in proven(t, last_write).items():
        assert links.get(rel) == sha, (rel, sha, links)


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
