"""Issue 29 (F14): the places a summary says a session worked in are the
places of what it changed, grouped as a reader names them: under the
session's folder its top-level folders (and top-level files by name); outside
it, the folder beside the session's that holds the file, however deep the
file lies in it (a folder of generated assets copied into another repository
is that repository, not a place of its own).

Each generated session writes files in a generated layout: in the session's
folder at any depth, and in folders beside it (another repository with deep
asset folders), above it and elsewhere on the disk. The oracle is the JSON:
each Write's `file_path`, placed by the rule above, counted, and the three
holding most (ties by name) named, the rest counted as "other places".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, in_process, json_objects
from test_headlines import Transcript

CWD = "/work/app"
name = st.from_regex(r"\.?[a-z][a-z0-9-]{0,7}", fullmatch=True).filter(lambda s: s != "and")
where = st.sampled_from(["inside", "beside", "above", "elsewhere"])
layout = st.lists(st.tuples(where, st.lists(name, min_size=0, max_size=3), name),
                  min_size=1, max_size=8)


def path_of(kind: str, folders: list[str], file: str) -> str:
    root = {"inside": CWD, "beside": "/work/other-repo", "above": "/work",
            "elsewhere": "/srv"}[kind]
    return "/".join([root, *folders, file + ".txt"])


def oracle_place(path: str, cwd: str = CWD) -> str:
    """The place of `path` for a session in `cwd` (see the module's words).
    A Windows path's folders are the same in any case."""
    windows = re.match(r"[A-Za-z]:\\", cwd) is not None
    if windows:
        path, cwd = path.replace("\\", "/"), cwd.replace("\\", "/")
    mine, its = cwd.strip("/").split("/"), path.strip("/").split("/")
    shared = 0
    while shared < min(len(mine), len(its) - 1) and (
            mine[shared] == its[shared]
            or (windows and mine[shared].lower() == its[shared].lower())):
        shared += 1
    if shared == len(mine):  # under the session's folder
        rest = its[shared:]
        return rest[0] + "/" if len(rest) > 1 else rest[0]
    # Outside it: what lies below the folders it shares with the session's.
    below = its[shared:]
    if len(below) > 1:
        return below[0] + "/"
    return its[shared - 1] + "/" if shared else below[0]


def said_places(summary: str) -> tuple[list[str], int]:
    # (40c2f24: "… changed (…) by the session's own edits in …" where a commit
    # of the session holds more than its edits)
    m = re.search(r"changed \([^)]*\)(?: by the session's own edits)?(?: in |: )((?:[^\s,]+, )*[^\s,]+"
                  r"(?: and (?:\d+ other places?|[^\s,]+?))?)(?=, |\.(?: |$)|$)", summary)
    assert m is not None, summary
    words = m.group(1)
    more = re.search(r" and (\d+) other places?$", words)
    if more:
        words = words[:more.start()]
    shown = re.split(r", | and ", words)
    return shown, int(more.group(1)) if more else 0


@settings(max_examples=examples(10, 50), deadline=None)
@given(files=layout)
def test_places_are_where_the_session_changed_things(
        tmp_path_factory: Any, files: list[tuple[str, list[str], str]]) -> None:
    env = Env(tmp_path_factory.mktemp("places"))
    env.here = in_process("places")
    t = Transcript(cwd=CWD)
    t.prompt("Set the project up")
    paths = sorted({path_of(*f) for f in files})
    for p in paths:
        t.write_file(p, "one line\n")
    t.say("The project is set up with its files in place.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    summary = str(frontmatter(note)["summary"])
    counts: dict[str, int] = {}
    for p in paths:
        counts[oracle_place(p)] = counts.get(oracle_place(p), 0) + 1
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    shown, more = said_places(summary)
    assert shown == ranked[:3], (summary, counts)
    assert more == max(0, len(ranked) - 3), (summary, counts)


@pytest.mark.corpus
def test_every_corpus_summary_names_the_places_of_its_changes(tmp_path: Path) -> None:
    """Every corpus session that changed files (those the JSON says: test_facts'
    count) and ran in no worktree (whose files a note shows as the
    repository's): its summary names the places the oracle finds."""
    from test_facts import SESSIONS, Facts  # (the files each session changed, from its JSON)

    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    checked = beside = 0
    for main in SESSIONS:
        objs = json_objects(main)
        cwd = next((str(o["cwd"]) for o in objs if o.get("cwd")), "")
        sid = next((str(o["sessionId"]) for o in objs if o.get("sessionId")), "")
        facts = Facts(main)
        changed = facts.files - facts.changed_back
        if not changed or "worktree" in cwd or sid not in notes:
            continue
        counts: dict[str, int] = {}
        for p in changed:
            whole = p.startswith("/") or re.match(r"[A-Za-z]:\\", p) is not None
            at = oracle_place(p if whole else f"{cwd}/{p}", cwd)
            counts[at] = counts.get(at, 0) + 1
        ranked = sorted(counts, key=lambda k: (-counts[k], k))
        summary = str(frontmatter(notes[sid])["summary"])
        shown, more = said_places(summary)
        assert shown == ranked[:3] and more == max(0, len(ranked) - 3), (sid, summary, counts)
        checked += 1
        beside += any(not p.startswith(cwd + "/") and p.startswith("/") for p in changed)
    assert checked >= 5 and beside >= 1
