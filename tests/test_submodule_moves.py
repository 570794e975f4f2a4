"""Issue 29 (N4): `git submodule update --remote <path>` changes the path
(the repository's entry for the submodule now names another commit), so the
commit beside it in `vv files` is the first one after its last such change
that holds it (9e953218: `public/tokenizer` was moved on and committed in
2564804 after d6cbb36; `vv files` named d6cbb36).

Each generated session adds a submodule and commits it, then in rounds moves
it on (or not) and commits with it staged (or not). The oracle is the JSON:
the last command that changed the path, then the first commit after it whose
`git add` named the path; its sha as git printed it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, in_process, json_objects
from test_headlines import Transcript

PATH = "vendor/lib"
rounds = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=4)


def commit_line(n: int, files: int) -> str:
    """What git prints for the commit (its count of the files staged)."""
    said = "1 file" if files == 1 else f"{files} files"
    return f"[main {n + 1:03x}c0ffe] Round {n}\n {said} changed, 1 insertion(+)"


def expected_commit(lines: list[dict[str, Any]], path: str) -> str:
    """From the JSON: the sha of the first commit after the last command that
    changed `path` whose staging (`git add` since the commit before) named it."""
    changed_at = -1
    staged = False
    found = ""
    commands: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    for o in lines:
        for b in (o.get("message") or {}).get("content") or []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and b.get("name") == "Bash":
                commands.append((str(b["id"]), str(b["input"]["command"])))
            elif b.get("type") == "tool_result":
                results[str(b["tool_use_id"])] = str(b.get("content"))
    for n, (tid, command) in enumerate(commands):
        for part in re.split(r"\s*&&\s*", command):
            words = part.split()
            if words[:2] == ["git", "submodule"] and path in words[2:] and (
                    words[2] == "add" or "--remote" in words):
                changed_at, staged, found = n, False, ""
            elif words[:2] == ["git", "add"] and path in words[2:]:
                staged = True
            elif words[:2] == ["git", "commit"]:
                m = re.match(r"\[\S+ ([0-9a-f]{7,})\]", results.get(tid, ""))
                if m and staged and changed_at >= 0 and not found:
                    found = m.group(1)
                staged = False
    return found


@settings(max_examples=examples(8, 30), deadline=None)
@given(plan=rounds)
def test_the_commit_beside_a_submodule_is_the_one_after_its_last_move(
        tmp_path_factory: Any, plan: list[tuple[bool, bool]]) -> None:
    env = Env(tmp_path_factory.mktemp("submodule"))
    env.here = in_process("submodule moves")
    t = Transcript()
    t.prompt("Vendor the library as a submodule and keep it current")
    t.bash(f"git submodule add https://example.com/lib.git {PATH}", f"Cloning into '{PATH}'...")
    t.bash(f"git add .gitmodules {PATH} && git commit -m 'Round 0'", commit_line(0, 2))
    for n, (move, stage) in enumerate(plan, start=1):
        if move:
            t.bash(f"git submodule update --remote {PATH}", "")
        t.write_file(f"/work/app/notes{n}.md", f"round {n}\n")
        staged = f"{PATH} notes{n}.md" if stage else f"notes{n}.md"
        t.bash(f"git add {staged} && git commit -m 'Round {n}'", commit_line(n, 1 + stage))
    t.say("The library is vendored and current.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    want = expected_commit(t.lines, PATH)
    said = env.vv("files", f"{t.cwd}/{PATH}").stdout.decode()
    line = next(x for x in said.splitlines() if x.strip().startswith(f"{t.cwd}/{PATH} "))
    # (no commit after its last move holds it: none is named)
    # (what happened to it may say "commit", "moved on to its remote's latest
    # commit", and an earlier commit that holds it may follow, "· also in earlier
    # commit …")
    assert (f"· commit {want} " in line) if want else ("· commit " not in line), (want, said)


@pytest.mark.corpus
def test_every_corpus_submodule_move_names_its_commit(tmp_path: Any) -> None:
    """Every corpus session that moved a submodule on with `--remote`."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    checked = 0
    for path in sorted(CORPUS.rglob("*.jsonl")):
        if b"submodule update --remote" not in path.read_bytes():
            continue
        lines = json_objects(path)
        cwd = next(str(o["cwd"]) for o in lines if o.get("cwd"))
        moved = {w for o in lines for b in (o.get("message") or {}).get("content") or []
                 if isinstance(b, dict) and b.get("name") == "Bash"
                 for part in re.split(r"\s*&&\s*", str(b["input"].get("command")))
                 if "--remote" in part.split()[2:3] + part.split()[3:]
                 and part.split()[:3] == ["git", "submodule", "update"]
                 for w in part.split()[3:] if not w.startswith("-")}
        for sub in sorted(moved):
            want = expected_commit(lines, sub)
            said = env.vv("files", f"{cwd}/{sub}").stdout.decode()
            assert want and f"· commit {want} " in said, (path, sub, want, said)
            checked += 1
    assert checked >= 1
