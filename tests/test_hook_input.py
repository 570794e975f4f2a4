"""A hook trusts no field of its input (issue 27): a `session_id` that is not
a session id, or a `transcript_path` that is not a `.jsonl` file in Claude
Code's projects folder, names no file, is stored nowhere and makes nothing;
what real clients send still works.

Hostile inputs are built by breaking a valid one in one generated way, so the
oracle is how they were built; each run through `vv hook` as Claude Code runs
it, and the value looked for in every file (`Env.traces`)."""

from __future__ import annotations

import json
import os
import string
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, Env, corpus_files, examples, frontmatter, in_process, json_objects
from vibe_vault.hook_input import MAX_ID, session_id_problem, transcript_path

SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                  HealthCheck.too_slow])
ALNUM = string.ascii_letters + string.digits
# A value no file holds by chance: what the oracle looks for.
markers = st.text(alphabet=ALNUM, min_size=16, max_size=16).map(lambda s: "Mk" + s)
uuids = st.uuids().map(str)


def transcript(sid: str, cwd: str, prompt: str) -> bytes:
    """A session of one prompt and its answer, as Claude Code writes it."""
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": sid, "cwd": cwd,
         "version": "2.1.200", "timestamp": "2026-05-01T10:00:00.000Z", "isSidechain": False,
         "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid, "cwd": cwd,
         "version": "2.1.200", "timestamp": "2026-05-01T10:00:05.000Z", "isSidechain": False,
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "Done: the tests pass."}],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}},
    ]
    return b"".join(json.dumps(x).encode() + b"\n" for x in lines)


def harmless(r: subprocess.CompletedProcess[bytes]) -> None:
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"", r.stdout
    assert b"Traceback" not in r.stderr
    assert r.stderr.count(b"\n") <= 1, r.stderr


def named_with(env: Env, marker: str) -> list[str]:
    """Every file or folder under the test's root whose path holds `marker`."""
    return [str(p) for p in env.root.rglob("*") if marker in str(p)]


# -- session ids -------------------------------------------------------------------------


@given(uuids, st.booleans())
def test_claude_codes_ids_are_session_ids(sid: str, upper: bool) -> None:
    assert session_id_problem(sid.upper() if upper else sid) is None


@pytest.mark.corpus
def test_every_session_id_real_clients_wrote_is_one() -> None:
    """Every sessionId in the corpus and in the recorded sessions, and every
    transcript's file name, that the project counts as an id at all (the
    corpus's hand-made '[trimmed for fixture]' is not one anywhere)."""
    from vibe_vault.session_ids import plausible_id

    seen: set[str] = set()
    for path in [*corpus_files(), *sorted(FIXTURES.rglob("*.jsonl"))]:
        seen.add(path.stem)
        seen.update(str(o["sessionId"]) for o in json_objects(path)
                    if isinstance(o.get("sessionId"), str))
    real = {s for s in seen if plausible_id(s)}
    assert len(real) > 20
    assert {s for s in real if session_id_problem(s) is not None} == set()


# One way each to break an id: the piece put into it.
BREAKERS = st.one_of(
    st.sampled_from(["/", "\\", "..", " ", "\t", "\n", "\x00", "\x1b[31m", "\u202e", ":", "*",
                     "%", "'", '"', "$(id)", "é", "\u2028", "~"]),
    st.characters(exclude_categories=("Nd", "Lu", "Ll"), exclude_characters="-_.")
    .filter(lambda c: c not in ALNUM),
)


@st.composite
def hostile_ids(draw: st.DrawFn) -> tuple[object, str]:
    """(a session_id no client sends, the marker it holds)."""
    marker = draw(markers)
    how = draw(st.sampled_from(["inserted", "first", "long", "token", "typed"]))
    if how == "inserted":
        piece = draw(BREAKERS)
        at = draw(st.integers(0, len(marker)))
        return marker[:at] + piece + marker[at:], marker
    if how == "first":  # an id starts with a letter or digit
        return draw(st.sampled_from([".", "-", "_"])) + marker, marker
    if how == "long":
        return marker * draw(st.integers(MAX_ID // len(marker) + 1, 400)), marker
    if how == "token":  # valid characters, but a credential's shape
        return draw(st.sampled_from(["ghp_", "github_pat_", "glpat-", "xoxb-", "npm_"])) + (
            marker + "A1b2C3d4E5f6G7h8I9j0K1l2")[:36], marker
    return draw(st.sampled_from([[marker], {"id": marker}, {marker: 1}])), marker


@given(hostile_ids())
def test_hostile_ids_are_refused(case: tuple[object, str]) -> None:
    value, _ = case
    assert session_id_problem(value) is not None
    for other in (None, 7, 1.5, True, "", [], {}):
        assert session_id_problem(other) is not None


# -- transcript paths --------------------------------------------------------------------


def slug_of(cwd: str) -> str:
    """Claude Code's folder name for a cwd (every character outside [A-Za-z0-9]
    is a '-'; a long one cut to 200 and given a base-36 suffix)."""
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
    return slug if len(slug) <= 200 else slug[:200] + "-1x2y3z"


cwds = st.lists(st.text(min_size=1, max_size=30).filter(lambda s: "/" not in s),
                min_size=1, max_size=12).map(lambda parts: "/" + "/".join(parts))


@st.composite
def real_paths(draw: st.DrawFn, root: str,
               shapes: tuple[str, ...] = ("main", "subagent", "workflow", "legacy"),
               ) -> tuple[str, str]:
    """(a path as Claude Code gives it for a session in `root`, its session id)."""
    sid = draw(uuids)
    slug = slug_of(draw(cwds))
    shape = draw(st.sampled_from(shapes))
    rest = {"main": [f"{sid}.jsonl"],
            "subagent": [sid, "subagents", f"agent-a{sid[:15].replace('-', '')}.jsonl"],
            "workflow": [sid, "subagents", "workflows", "wf_1", "agent-w1.jsonl"],
            "legacy": [f"agent-{sid[:8]}.jsonl"]}[shape]
    return os.path.join(root, slug, *rest), sid


@given(st.data())
def test_real_transcript_paths_are_taken(data: st.DataObject) -> None:
    root = data.draw(st.sampled_from(["/home/u/.claude/projects", "/srv/cfg dir/projects/"]))
    path, _ = data.draw(real_paths(root))
    assert transcript_path(path, root) == (path, None)


def test_a_path_from_home_is_taken_as_claude_code_may_write_it(tmp_path: Path) -> None:
    home = os.path.expanduser("~")
    root = os.path.join(home, ".claude", "projects")
    given = "~/.claude/projects/-x/0b16ff5a-d98c-4e56-b656-4a62f03af9e1.jsonl"
    assert transcript_path(given, root) == (os.path.expanduser(given), None)
    # A config folder reached through a symlink: named either way.
    (tmp_path / "real" / "projects").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for named in ("real", "link"):
        p = str(tmp_path / named / "projects" / "-x" / "s.jsonl")
        assert transcript_path(p, str(tmp_path / "link" / "projects")) == (p, None)


@pytest.mark.corpus
def test_every_transcript_layout_of_the_corpus_and_recordings_is_taken() -> None:
    """Each transcript of the corpus and of the recorded sessions, at its place
    below its project folder, as a path under a projects folder."""
    root = "/home/u/.claude/projects"
    checked = 0
    for path in [*corpus_files(), *sorted(FIXTURES.rglob("*.jsonl"))]:
        parts = path.parts
        if "projects" in parts or "real_projects" in parts:
            at = max(i for i, p in enumerate(parts) if p in ("projects", "real_projects"))
            below = parts[at + 1:]
        else:
            below = parts[-2:]  # a file in its folder
        given = os.path.join(root, *below)
        assert transcript_path(given, root) == (given, None), path
        checked += 1
    assert checked > 50


@st.composite
def hostile_paths(draw: st.DrawFn, root: str) -> tuple[object, str]:
    """(a transcript_path no client sends for a session in `root`, its marker)."""
    marker = draw(markers)
    sid = draw(uuids)
    good = os.path.join(root, "-home-u-" + marker, f"{sid}.jsonl")
    how = draw(st.sampled_from(["outside", "prefix", "dotdot", "relative", "suffix",
                                "control", "long", "typed", "nul", "flat", "tilde"]))
    if how == "outside":
        return os.path.join(os.path.dirname(root), marker, f"{sid}.jsonl"), marker
    if how == "prefix":  # a sibling whose name starts with the projects folder's
        return root.rstrip("/") + "-" + marker + f"/x/{sid}.jsonl", marker
    if how == "dotdot":
        ups = draw(st.integers(1, 4))
        return os.path.join(root, "-x", *[".."] * ups, marker, f"{sid}.jsonl"), marker
    if how == "relative":
        return os.path.join("-home-u-" + marker, f"{sid}.jsonl"), marker
    if how == "suffix":
        return good[:-len(".jsonl")] + draw(st.sampled_from(
            [".json", ".jsonl.gz", ".txt", "", ".JSONL", ".jsonl/"])), marker
    if how == "control":
        piece = draw(st.sampled_from(["\n", "\r", "\t", "\x1b[2J", "\x7f", "\x85", "\u202e",
                                      "\u2028"]))
        return good.replace(marker, marker[:5] + piece + marker[5:]), marker
    if how == "long":
        return os.path.join(root, "-" + marker * 300, f"{sid}.jsonl"), marker
    if how == "nul":
        return good.replace(marker, marker + "\x00"), marker
    if how == "flat":  # no project folder
        return os.path.join(root, marker + ".jsonl"), marker
    if how == "tilde":  # a home that is not the projects folder's
        return f"~/{marker}/{sid}.jsonl", marker
    return draw(st.sampled_from([[good], {"path": good}, 7])), marker


@given(st.data())
def test_hostile_transcript_paths_are_refused(data: st.DataObject) -> None:
    root = data.draw(st.sampled_from(["/home/u/.claude/projects", "/srv/cfg/projects"]))
    value, _ = data.draw(hostile_paths(root))
    path, problem = transcript_path(value, root)
    assert path is None and problem
    assert not isinstance(value, str) or value not in problem  # told, never quoted


# -- end to end, through `vv hook` -------------------------------------------------------

EVENTS = ["Stop", "SubagentStop", "SessionEnd", "PreCompact", "StopFailure", "PreToolUse",
          "PostToolUse", "SessionStart"]


def _place(env: Env, sid: str, prompt: str) -> Path:
    path = env.claude / "projects" / "-srv-app" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(transcript(sid, "/srv/app", prompt))
    return path


@settings(max_examples=examples(8, 60), **SLOW)
@given(hostile_ids(), st.sampled_from(EVENTS), uuids)
def test_a_hook_given_a_bad_session_id_does_nothing(case: tuple[object, str], event: str,
                                                     real: str) -> None:
    value, marker = case
    here = in_process("hook_input bad session id")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        env.configure("inject_context = true\n")
        # The transcript is there (by its real id): the bad one still names nothing.
        path = _place(env, real, "Fix the parser")
        r = (env.hook_here if here else env.hook)({
            "hook_event_name": event, "session_id": value, "transcript_path": str(path),
            "cwd": "/srv/app", "tool_use_id": "t1", "reason": "exit"})
        harmless(r)
        assert not env.notes()
        assert not list((env.state / "sessions").glob("*")) if env.state.exists() else True
        assert not list((env.state / "journal").glob("*")) if env.state.exists() else True
        assert named_with(env, marker) == []
        assert env.traces(marker, real, here=here) == []


@settings(max_examples=examples(8, 60), **SLOW)
@given(st.data(), st.sampled_from(["Stop", "SessionEnd", "PreCompact", "SubagentStop"]))
def test_a_hook_given_a_bad_transcript_path_reads_nothing_there(data: st.DataObject,
                                                                 event: str) -> None:
    here = in_process("hook_input bad transcript path")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        root = str(env.claude / "projects")
        value, marker = data.draw(hostile_paths(root))
        sid = str(uuid.uuid4())
        said = "Prompt" + marker[::-1]  # what the file there says: never read
        # Where the bad path points, when it can point anywhere: a transcript.
        if isinstance(value, str) and "\x00" not in value and len(value) < 1024:
            at = Path(os.path.expanduser(value.replace("~", env.env["HOME"], 1)
                                         if value.startswith("~") else value))
            if not at.is_absolute():
                at = Path(tmp) / at
            try:
                at.parent.mkdir(parents=True, exist_ok=True)
                at.write_bytes(transcript(sid, "/srv/app", said))
            except OSError:
                pass
        before = {p for p in env.root.rglob("*")}
        r = (env.hook_here if here else env.hook)({
            "hook_event_name": event, "session_id": sid, "transcript_path": value,
            "cwd": "/srv/app", "reason": "exit"})
        harmless(r)
        assert not env.notes()
        made = {p for p in env.root.rglob("*")} - before
        assert [str(p) for p in made if marker in str(p)] == []
        assert env.traces(marker, sid, here=here) == []
        assert env.traces(said, sid, here=here) == []


@settings(max_examples=examples(6, 40), **SLOW)
@given(st.data(), st.sampled_from(["absolute", "default", "tilde"]))
def test_real_shapes_still_make_the_note(data: st.DataObject, config: str) -> None:
    here = in_process(f"hook_input real shapes {config}")
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        home = env.env["HOME"]
        if config != "absolute":  # Claude Code's default folder, ~/.claude
            del env.env["CLAUDE_CONFIG_DIR"]
        root = str(env.claude / "projects") if config == "absolute" else os.path.join(
            home, ".claude", "projects")
        path, sid = data.draw(real_paths(root, ("main",)))  # the session's own transcript
        assume(len(path) < 4000)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(transcript(sid, "/srv/app", "Fix the parser"))
        given_path = "~" + path[len(home):] if config == "tilde" else path
        r = (env.hook_here if here else env.hook)({"hook_event_name": "Stop", "session_id": sid,
                                                   "transcript_path": given_path,
                                                   "cwd": "/srv/app"})
        harmless(r)
        assert r.stderr == b""
        notes = env.notes()
        assert [frontmatter(n)["session_id"] for n in notes.values()] == [sid]
