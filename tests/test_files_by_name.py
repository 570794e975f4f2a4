"""Review 15, finding 13: `vv files NAME` asked outside the repository the
file is in: the one file of that name a session changed is answered; several
are counted in a line, then each project's files of that name and the
sessions that changed them (review 26 #21: a list of paths to copy answered
nothing), and `--project` keeps one project's (review 20: not under "no
session changed", which read as false);
none is "no session changed". With --json, several are the same rows, each
naming its project and path, exit status 0 (review 28); none is `[]`.

Sessions in generated projects each write files (some sharing a name across
projects); the oracle is the transcripts' own `file_path`s: which of them end
in `/NAME`.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript

NAMES = ["ci.yml", "renderer.py", "math_utils.py", "README.md"]


@settings(max_examples=examples(4, 8), deadline=None)
@example(plan=[("alpha", ["ci.yml"]), ("beta", ["ci.yml", "README.md"]), ("alpha", ["ci.yml"])],
         asked="ci.yml")
@given(plan=st.lists(st.tuples(st.sampled_from(["alpha", "beta", "gamma"]),
                               st.lists(st.sampled_from(NAMES), min_size=1, max_size=3,
                                        unique=True)), min_size=1, max_size=4),
       asked=st.sampled_from(NAMES))
def test_a_name_asked_outside_the_repository_finds_its_files(
        tmp_path_factory: Any, plan: list[tuple[str, list[str]]], asked: str) -> None:
    root = tmp_path_factory.mktemp("byname")
    env = Env(root)
    env.here = in_process("files by name")
    written: set[str] = set()
    for n, (project, names) in enumerate(plan):
        t = Transcript(f"{n:08x}-0000-4000-8000-00000000000c", cwd=f"/work/{project}")
        t.prompt("write the files")
        for name in names:
            path = f"/work/{project}/sub{n}/{name}"
            t.write_file(path, "x\n", text="File created")
            written.add(path)
        t.say("Written.")
        t.write(env.claude / "projects" / f"-work-{project}" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    outside = root / "elsewhere"
    outside.mkdir()
    r = env.vv("files", asked, cwd=outside)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    matching = {p for p in written if p.endswith("/" + asked)}
    if len(matching) == 1:
        (path,) = matching
        assert path in out and "no session changed" not in out, out
        js = json.loads(env.vv("files", asked, "--json", cwd=outside).stdout)
        assert {o["path"] for o in js} == matching
    elif matching:
        # One line saying how many files have that name, then, by project,
        # its files of that name and the sessions that changed them (review
        # 26 #21): never "no session changed" above them.
        assert "no session changed" not in out and f"{len(matching)} files named {asked}" in out
        groups: dict[str, tuple[set[str], set[str]]] = {}  # project: (its files, sessions)
        for line in out.splitlines()[1:]:
            if not line.startswith(" ") and line.endswith("/" + asked) and ": /" in line:
                project, _, paths = line.partition(": ")
                groups[project] = (set(paths.split(", ")), set())
            elif line.startswith("  ") and line.count(" · ") == 2:
                groups[project][1].add(line.split(" · ")[-1])
        by_project = {project: ({p for p in matching if p.startswith(f"/work/{project}/")},
                                {f"{n:08x}" for n, (of, names) in enumerate(plan)
                                 if of == project and asked in names})
                      for project, _ in plan if any(asked in names for of, names in plan
                                                    if of == project)}
        assert groups == by_project, out
        # --project: that project's only
        project = min(by_project)
        r = env.vv("files", asked, "--project", project, cwd=outside)
        shown = {line.split(" · ")[-1] for line in r.stdout.decode().splitlines()
                 if line.startswith("  ") and line.count(" · ") == 2}
        assert shown == by_project[project][1], r.stdout.decode()
        # --json: the same rows, each naming its project and path, in the
        # text's order (by project), exit status 0 (review 28: status 2 and
        # no rows told a script less than the text told a person); never `[]`,
        # which reads as "never changed" (review 21 F6).
        js = env.vv("files", asked, "--json", cwd=outside)
        assert js.returncode == 0, js.stderr
        rows = json.loads(js.stdout)
        assert {(o["project"], o["path"], o["session_id"][:8]) for o in rows} == {
            (of, f"/work/{of}/sub{n}/{asked}", f"{n:08x}")
            for n, (of, names) in enumerate(plan) if asked in names}, rows
        projects = [o["project"] for o in rows]
        assert projects == sorted(projects, key=list(groups).index), projects
        js = env.vv("files", asked, "--json", "--project", project, cwd=outside)
        assert js.returncode == 0, js.stderr
        assert {o["session_id"][:8] for o in json.loads(js.stdout)} == by_project[project][1]
    else:
        assert out.strip() == f"no session changed {asked}", out
        js = env.vv("files", asked, "--json", cwd=outside)
        assert (js.returncode, json.loads(js.stdout), js.stderr) == (0, [], b""), js
