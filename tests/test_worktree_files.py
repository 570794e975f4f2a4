"""A file changed in a git worktree of the session's repository is the
repository's file (issue 29): listed once under its path in the repository,
found by `vv files` by that path, its figures marked as the note marks them.

Paths are generated under several worktree layouts and path styles; what the
note must say is derived from the generated JSON (the paths and contents the
test wrote), and for the corpus from git's own output in the transcript."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, blocks, frontmatter
from conftest import json_objects as objects
from file_lines import net_lines
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold_agent
from vibe_vault.project import project_name, repo_file
from vibe_vault.render import render
from vibe_vault.state import AgentFile, AgentFold
from vibe_vault.work import work_of

# (repository, separator): POSIX, Windows, and a relative folder as the
# corpus records one (`-experiments/worktrees`: a repo itself named worktrees).
repos = st.sampled_from([("/work/app", "/"), ("/home/kim/worktrees/proj", "/"),
                         ("C:\\Users\\kim\\app", "\\"), ("-experiments/worktrees", "/")])
# Where a repository keeps its worktrees, and a worktree's name.
layouts = st.sampled_from([(".claude", "worktrees"), (".worktrees",)])
names = st.sampled_from(["agent-a4ca7529", "feature-x", "1"])
rels = st.sampled_from([("src", "a.py"), ("work", "research-beads.md"), ("README.md",),
                        ("docs", "worktrees", "intro.md")])


def _join(sep: str, *parts: str) -> str:
    return sep.join(parts)


@settings(max_examples=200, deadline=None)
@given(repo_sep=repos, layout=layouts, name=names, rel=rels, own=st.booleans())
def test_a_file_in_a_worktree_of_the_repository_is_the_repositorys_file(
        repo_sep: tuple[str, str], layout: tuple[str, ...], name: str, rel: tuple[str, ...],
        own: bool) -> None:
    """`repo/<layout>/<name>/<rel>` is `repo/<rel>`, changed in worktree
    `name`, whether the session ran in the repository or (own) in a worktree
    of it; the session's project is the repository's either way."""
    repo, sep = repo_sep
    path = _join(sep, repo, *layout, name, *rel)
    cwd = _join(sep, repo, *layout, "other") if own else repo
    assert repo_file(path, cwd) == (_join(sep, repo, *rel), name)
    assert project_name(cwd) == project_name(repo)
    # A file of the repository itself, or the worktree folder itself, stays as it is.
    plain = _join(sep, repo, *rel)
    assert repo_file(plain, cwd) == (plain, "")
    assert repo_file(_join(sep, repo, *layout, name), cwd)[1] == ""


@settings(max_examples=100, deadline=None)
@given(layout=layouts, name=names, rel=rels)
def test_a_worktree_of_another_repository_is_not_this_ones(
        layout: tuple[str, ...], name: str, rel: tuple[str, ...]) -> None:
    """A worktree of another repository (or of a subfolder of this one), or
    a folder merely named `worktrees`, keeps its own path."""
    cwd = "/work/app"
    for other in ("/work/other", "/work/app/docs"):
        path = "/".join([other, *layout, name, *rel])
        assert repo_file(path, cwd) == (path, "")
    plain = "/".join([cwd, "worktrees", name, *rel])
    assert repo_file(plain, cwd) == (plain, "")
    assert project_name("/home/kim/worktrees/proj") == "proj"


def _agent(sid: str, agent_id: str, cwd: str, writes: list[tuple[str, str]],
           files: dict[str, str] | None = None) -> list[bytes]:
    """A subagent's transcript: Writes of these contents, with Claude Code's
    results (an update's carries the file before, from `files`: what is on
    disk, kept up here)."""
    files = {} if files is None else files
    t = Transcript(sid=sid, cwd=cwd)
    t.prompt("do your part")
    for path, content in writes:
        result = {"type": "create", "filePath": path, "content": content,
                  "structuredPatch": []}
        if path in files:
            result.update(type="update", originalFile=files[path])
        t.call("Write", {"file_path": path, "content": content}, result, "ok")
        files[path] = content
    t.say("Done.")
    for line in t.lines:
        line.update(isSidechain=True, agentId=agent_id)
    return t.encoded()


body = st.lists(st.sampled_from(["alpha", "beta", "gamma", "x = 1"]), min_size=1,
                max_size=6).map(lambda ws: "\n".join(ws) + "\n")


@settings(max_examples=60, deadline=None)
@given(repo_sep=repos, layout=layouts,
       agents=st.lists(st.tuples(st.sampled_from(["agent-a1", "agent-b2", "agent-c3"]),
                                 st.lists(st.tuples(rels, body), min_size=1, max_size=3)),
                       min_size=1, max_size=3))
def test_subagents_changes_to_one_file_combine_under_its_repository_path(
        repo_sep: tuple[str, str], layout: tuple[str, ...],
        agents: list[tuple[str, list[tuple[tuple[str, ...], str]]]]) -> None:
    """Each subagent writes in its own worktree; the note lists each file
    once, by its path in the repository, never by the worktree's folder. Its
    lines are the sum of each copy's own (each copy's net lines, from the
    contents the test wrote), estimated when more than one copy was changed
    (merging them is git's, not the transcript's)."""
    repo, sep = repo_sep
    main = Transcript(cwd=repo)
    main.prompt("split the work")
    main.say("Delegated.")
    state = main.state()
    on_disk: dict[str, str] = {}  # path -> content, as the agents left it
    # rel -> worktree path -> each agent's own lines there, as git diffs them
    copies: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for n, (name, writes) in enumerate(agents):
        wt = _join(sep, repo, *layout, name)
        done = [(_join(sep, wt, *rel), content) for rel, content in writes]
        before = {path: on_disk.get(path, "") for path, _ in done}
        entries = [decode_line(x) for x in _agent(main.sid, f"a{n}", wt, done, on_disk)]
        state.agents[f"a{n}"] = AgentFile(fold=fold_agent(AgentFold(), entries))
        for rel in dict.fromkeys(r for r, _ in writes):  # once per file the agent wrote
            path = _join(sep, wt, *rel)
            copies.setdefault("/".join(rel), {}).setdefault(path, []).append(
                net_lines(before[path], on_disk[path]))
    work = work_of(state)
    expected = {_join(sep, repo, *rel.split("/")) for rel in copies}
    assert set(work.files) == expected
    for rel, by_path in copies.items():
        fw = work.files[_join(sep, repo, *rel.split("/"))]
        assert (fw.change.added, fw.change.removed) == (
            sum(a for lines in by_path.values() for a, _ in lines),
            sum(r for lines in by_path.values() for _, r in lines))
        assert fw.change.estimated == (len(by_path) > 1)
    section = render(state).split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    shown = re.findall(r"(?m)^\| `([^`]+)` \|", section)
    assert sorted(shown) == sorted(copies), section  # each once, as the repository holds it


def test_a_files_changes_are_told_in_the_order_the_agents_began() -> None:
    """Two subagents write one file of the repository in turn, the later one
    under a key that sorts first: its row lists the agents, and what they did,
    in the order they began (the times the test wrote)."""
    repo = "/work/app"
    path = f"{repo}/.claude/worktrees/agent-x/notes.md"
    main = Transcript(cwd=repo)
    main.prompt("two rounds")
    main.say("Delegated.")
    state = main.state()
    on_disk: dict[str, str] = {}
    for key, hour, words in (("b-first", 10, "one\n"), ("a-second", 11, "one\ntwo\n")):
        t = Transcript(sid=main.sid, cwd=f"{repo}/.claude/worktrees/agent-x", hour=hour)
        t.prompt("your round")
        t.write_file(path, words, on_disk.get(path))
        on_disk[path] = words
        for line in t.lines:
            line.update(isSidechain=True, agentId=key)
        entries = [decode_line(x) for x in t.encoded()]
        state.agents[key] = AgentFile(fold=fold_agent(AgentFold(), entries),
                                      agent_type="general-purpose", description=key)
    fw = work_of(state).files[f"{repo}/notes.md"]
    assert fw.by == ["general-purpose: b-first", "general-purpose: a-second"]
    assert fw.change.ops == ["created", "modified"]


def _write_session(env: Env, repo: Path, sid: str) -> dict[str, tuple[str, str]]:
    """A session in `repo` whose two subagents work in worktrees: one writes a
    file whose result says it was created (exact lines), the other edits a
    file without a result (estimated), and a third file is written by `echo`
    (lines not known). What each must show: rel -> (added, removed) as marked."""
    main = Transcript(sid=sid, cwd=str(repo))
    main.prompt("split the work")
    main.say("Delegated.")
    path = env.transcript(sid, main.encoded(), folder="-repo")
    agents = path.parent / sid / "subagents"
    agents.mkdir(parents=True)
    wt1, wt2 = repo / ".claude" / "worktrees" / "agent-a1", repo / ".worktrees" / "b2"
    (agents / "agent-a1.jsonl").write_bytes(b"\n".join(
        _agent(sid, "a1", str(wt1), [(str(wt1 / "work" / "notes.md"), "one\ntwo\nthree\n")]))
        + b"\n")
    t = Transcript(sid=sid, cwd=str(wt2))
    t.prompt("fix it")
    t.call("Edit", {"file_path": str(wt2 / "src" / "app.py"), "old_string": "a = 1",
                    "new_string": "a = 2\nb = 3"}, None, "The file has been updated.")
    t.bash(f"echo hi > {wt2}/VERSION")
    t.say("Done.")
    for line in t.lines:
        line.update(isSidechain=True, agentId="b2")
    (agents / "agent-b2.jsonl").write_bytes(b"\n".join(t.encoded()) + b"\n")
    return {"work/notes.md": ("3", "0"), "src/app.py": ("≈2", "≈1"), "VERSION": ("?", "?")}


def test_vv_files_finds_a_worktree_file_by_its_repository_path(tmp_path: Path) -> None:
    """End to end: `vv backfill`, then `vv files` by the path absolute,
    relative to the repository, and as the worktree holds it: each finds the
    session, with the figures marked as the note's table. (`vv` as a process
    for the first file, in this process for the others: test_in_process.)"""
    env = Env(tmp_path)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sid = "5e551011-0000-4000-8000-000000000001"
    shown = _write_session(env, repo, sid)
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    note = next(iter(env.notes().values()))
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    assert ".claude" not in section and ".worktrees" not in section
    for rel, (added, removed) in shown.items():
        row = next(ln for ln in section.splitlines() if f"`{rel}`" in ln)
        assert f"| {added} | {removed} |" in row, row
    for n, (rel, (added, removed)) in enumerate(shown.items()):
        env.here = n > 0
        for typed, cwd in ((str(repo / rel), tmp_path), (rel, repo),
                           (str(repo / ".claude" / "worktrees" / "agent-a1" / rel), tmp_path)):
            out = env.vv("files", typed, cwd=cwd)
            assert out.returncode == 0, out.stderr
            text = out.stdout.decode()
            # (what happened in the note's words between: "(modified)", "(created)")
            assert re.search(re.escape(f"{repo / rel}") + r" \((?:modified|created|written by a command)\) "
                             + re.escape(f"+{added} −{removed}"), text), (typed, text)
        js = json.loads(env.vv("files", "--json", str(repo / rel)).stdout)
        assert [o["lines"] for o in js] == [
            {"?": "unknown"}.get(added, "estimated" if "≈" in added else "exact")]


# -- the corpus: ef958aa1, six subagents in three worktrees --------------------------------

EF958 = (CORPUS / "iansherr__claude-code-log/real_projects/-experiments-worktrees"
         / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
_COMMIT = re.compile(r"(?m)^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
_STAT = re.compile(r"(\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
                   r"(?:, (\d+) deletions?\(-\))?")


def _git_net_by_file(files: list[Path]) -> dict[str, int]:
    """Git's own word, from every command's output in the session's files:
    the net lines (insertions − deletions) of each one-file commit, by the
    file `git add` named, summed over the commits that survive (an --amend
    replaces its branch's last commit). Merges are git's work, not the session's."""
    last: dict[str, tuple[str, int]] = {}  # branch -> (file, net) of its last commit
    nets: list[tuple[str, str, int]] = []  # (branch, file, net)
    for path in files:
        calls: dict[str, str] = {}
        last_added = ""
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    calls[str(b.get("id"))] = str((b.get("input") or {}).get("command"))
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    command = calls[str(b["tool_use_id"])]
                    out = b.get("content")
                    out = "".join(x.get("text", "") for x in out if isinstance(x, dict)) \
                        if isinstance(out, list) else str(out)
                    # The file: as git's `create mode` line names it, else as the
                    # command's `git add` (or this agent's last one) does.
                    staged = re.findall(r"\badd ((?:\S+/)?[\w.-]+\.md)\b", command)
                    if staged:
                        last_added = staged[-1]
                    created = re.findall(r"(?m)^ create mode \d+ (\S+)$", out)
                    head, stat = _COMMIT.search(out), _STAT.search(out)
                    if not head or not stat or stat.group(1) != "1":
                        continue
                    file = created[0] if created else last_added
                    net = int(stat.group(2) or 0) - int(stat.group(3) or 0)
                    branch = head.group(1)
                    if "--amend" in command and branch in last:
                        nets.remove((branch, *last[branch]))
                    last[branch] = (file, net)
                    nets.append((branch, file, net))
    out: dict[str, int] = {}
    for _, file, net in nets:
        out[file] = out.get(file, 0) + net
    return out


@pytest.mark.corpus
def test_the_corpus_worktree_files_are_the_repositorys(tmp_path: Path) -> None:
    """ef958aa1 (2.1.114): three subagents wrote work/*.md in their
    worktrees, three more added a section each. The note lists each file
    once as `work/<name>`, and its net lines equal git's (the commits'
    insertions − deletions, an amend replacing its commit); `vv files
    work/<name>` from the repository finds it."""
    agents = sorted((EF958.parent / EF958.stem / "subagents").glob("agent-*.jsonl"))
    git = _git_net_by_file([EF958, *agents])
    assert set(git) == {"work/research-beads.md", "work/research-plan-mode.md",
                        "work/research-teammates.md"}, git
    env = Env(tmp_path)
    slug = env.claude / "projects" / EF958.parent.name
    slug.mkdir(parents=True)
    (slug / EF958.name).write_bytes(EF958.read_bytes())
    (slug / EF958.stem / "subagents").mkdir(parents=True)
    for a in EF958.parent.joinpath(EF958.stem, "subagents").iterdir():
        (slug / EF958.stem / "subagents" / a.name).write_bytes(a.read_bytes())
    assert env.vv("backfill").returncode == 0
    note = next(iter(env.notes().values()))
    section = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    assert ".claude/worktrees" not in section
    rows = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"(?m)^\| `([^`]+)` \|[^|]*\| ≈?(\d+) \| ≈?(\d+) \|", section)}
    assert {f: a - r for f, (a, r) in rows.items()} == git
    # (after the commits, by the first's subject: "Committed “…” (…) and 10 more …, ")
    assert re.match(r"Committed “[^”]+” \([^)]*\) and \d+ more(?: \([^)]*\))?, 3 files changed",
                    str(frontmatter(note)["summary"])), frontmatter(note)["summary"]
    cwd = json.loads(EF958.read_text().split("\n", 1)[0]).get("cwd") or next(
        o["cwd"] for o in objects(EF958) if o.get("cwd"))
    for file in git:
        # (the corpus records the folder relative, starting with "-": after `--`)
        r = env.vv("files", "--json", "--", os.path.join(cwd, file))
        assert [o["path"] for o in json.loads(r.stdout)] == [os.path.join(cwd, file)], r.stdout
