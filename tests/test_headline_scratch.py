"""Review 28 #4, #6, #9, #13, #14: the headline's size of the work.

The headline's files are the project's with a net change: scratch (a file
written in a temporary folder outside the project, Claude's own scratchpad
there among them; a file made and deleted again in the session) is listed in
the Files table, said for what it is, and never counted; and where git's own
count of the session's commit holds more files than the session's edits
show (subagents' or commands' work: 634355e9's "160 files changed" beside
"2 files changed"), the commit leads with git's count and the session's
edits are said as its own. Review 29 #13: Claude Code's own files outside
the project (its memory under ~/.claude/projects/<project>/memory/, its
todos, agents) are listed as Claude Code's, never counted; a `.claude/`
folder of the project is the project's.

Generated sessions write project files, temporary files and probes (made,
then `rm`-ed), and may commit with git's stat; the oracle reads the JSON.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

SID = "5c4d3e2f-0000-4000-8000-0000000000aa"
SCRATCH = f"/tmp/claude-1000/-work-app/{SID}/scratchpad"

kinds = st.sampled_from(["project", "temp", "scratchpad", "probe", "claude", "project claude"])
# Claude Code's own files in the user's home, and what their rows call them.
CLAUDE_HOMES = ["/home/u/.claude/projects/-work-app/memory/m_{}.md",
                "/Users/u/.claude/todos/t_{}.json", "/root/.claude/agents/a_{}.md"]
CLAUDE_WORDS = {"memory": "memory", "todos": "todos", "agents": "agents"}


def build(files: list[tuple[str, int]], commit: tuple[int, int, int] | None) -> Transcript:
    t = Transcript(sid=SID)
    t.prompt("Build the feature")
    for k, (kind, lines) in enumerate(files):
        path = {"project": f"/work/app/src/f{k}.py", "temp": f"/tmp/try_{k}.py",
                "scratchpad": f"{SCRATCH}/notes_{k}.md", "probe": f"/work/app/probe_{k}.py",
                "claude": CLAUDE_HOMES[k % 3].format(k),
                "project claude": f"/work/app/.claude/commands/c_{k}.md"}[kind]
        t.write_file(path, "".join(f"line {i}\n" for i in range(lines)))
        if kind == "probe":
            t.bash(f"rm {path}", description="Remove the probe")
    if commit is not None:
        count, ins, dels = commit
        t.bash('git add -A && git commit -m "Add the feature"',
               f"[main 1a2b3c4] Add the feature\n {count} file{'s' if count > 1 else ''} changed, "
               f"{ins} insertions(+), {dels} deletions(-)\n")
    t.say("Done.")
    return t


def oracle(t: Transcript) -> dict[str, Any]:
    """From the JSON: the project's files with a net change (Writes under the
    session's cwd not removed by a later `rm`), their lines, and git's stat."""
    written: dict[str, int] = {}
    removed: set[str] = set()
    stat = None
    cwd = t.lines[0]["cwd"]
    for o in t.lines:
        for b in (o.get("message") or {}).get("content") or []:
            if not isinstance(b, dict) or b.get("type") != "tool_use":
                continue
            if b["name"] == "Write":
                written[b["input"]["file_path"]] = b["input"]["content"].count("\n")
            elif b["name"] == "Bash" and b["input"]["command"].startswith("rm "):
                removed.add(b["input"]["command"][3:])
        result = o.get("toolUseResult")
        if isinstance(result, dict):
            found = re.search(r"(\d+) files? changed, (\d+) insertions\(\+\), (\d+) deletions",
                              str(result.get("stdout")))
            stat = tuple(int(g) for g in found.groups()) if found else stat
    mine = {p: n for p, n in written.items() if p.startswith(cwd + "/") and p not in removed}
    places: dict[str, int] = {}
    for p in mine:
        top = p[len(cwd) + 1:].split("/")[0] + "/"
        places[top] = places.get(top, 0) + 1
    # (the headline's places: most files first, then by name)
    where = " and ".join(sorted(places, key=lambda k: (-places[k], k)))
    return {"files": mine, "lines": sum(mine.values()), "stat": stat, "where": where,
            "scratch": [p for p in written if not p.startswith(cwd + "/")],
            "probes": [p for p in written if p in removed]}


@settings(max_examples=examples(25, 120), deadline=None)
@given(files=st.lists(st.tuples(kinds, st.integers(1, 30)), min_size=1, max_size=6),
       commit=st.one_of(st.none(), st.tuples(st.integers(1, 200), st.integers(0, 900),
                                             st.integers(0, 900))))
def test_the_headline_counts_the_projects_files_and_gits_larger_count(
        tmp_path_factory: Any, files: list[tuple[str, int]],
        commit: tuple[int, int, int] | None) -> None:
    t = build(files, commit)
    note = t.note(tmp_path_factory, "test_the_headline_counts_the_projects_files_and_gits")
    want = oracle(t)
    head = next(ln for ln in note.splitlines() if ln.startswith("> "))[2:]
    own = len(want["files"])
    assert frontmatter(note)["files_changed"] == own, (note, want)
    stat = want["stat"]
    files = f"{own} file{'s' if own > 1 else ''} changed"
    if stat is not None:
        # The commit leads, with git's count of it.
        count, ins, dels = stat
        assert head.startswith(f"Committed “Add the feature” (+{ins} −{dels} in {count} "
                               f"file{'s' if count > 1 else ''}, not pushed)"), (head, want)
        if own and count > own:  # the session's own edits are only part of it
            assert f"{files} (+{want['lines']} −0) by the session's own edits in {want['where']}" \
                in head, (head, want)
        elif own:
            assert f"{files} (+{want['lines']} −0) in {want['where']}" in head, (head, want)
            assert "own edits" not in head, head
    elif own:
        assert f"{files} (+{want['lines']} −0) in {want['where']}" in head, (head, want)
    elif want["scratch"]:
        # (not nothing: said as changed outside the project, review 31 F12)
        k = len(want["scratch"])
        assert head.startswith(f"{k} file{'s' if k > 1 else ''} edited outside the project "
                               "(not counted)"), (head, want)
    else:
        assert head.startswith("No files changed"), (head, want)
    # Scratch is never the project's: not in the headline, said in the table.
    assert "tmp/" not in head and "scratchpad" not in head and "probe" not in head, head
    assert not any(p.rsplit("/", 1)[1] in head
                   for p in want["scratch"] if "/.claude/" in p), head
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
    rows = table.splitlines()
    for path in want["scratch"]:
        row = next(r for r in rows if path.rsplit("/", 1)[1] in r)
        if "/.claude/" in path:
            what = CLAUDE_WORDS[path.split("/.claude/", 1)[1].split("/")[0]] if \
                "/memory/" not in path else "memory"
            assert f"Claude Code's {what}, outside the project, not counted" in row, row
            continue
        what = "Claude's scratchpad" if "/scratchpad/" in path else "a temporary file"
        assert f"scratch: {what}, outside the project, not counted" in row, row
    for path in want["probes"]:
        row = next(r for r in rows if path.rsplit("/", 1)[1] in r)
        assert "made and deleted in this session: no net change" in row, row
