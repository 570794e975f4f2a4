"""Sessions recorded from the real client, each version (tests/fixtures/claude-*/),
checked against what was recorded with them: the fake API's log of its replies
(api.jsonl: message id and usage), the client's own report of each run
(results.jsonl: usage and cost) and the transcripts' JSON, never vv's output.

These run anywhere: the fixtures come with the project (tests/fixtures/record.py
records them again).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    FIXTURES,
    Env,
    frontmatter,
    independent_tokens,
    json_objects,
    share_line_key,
    strip_status,
)
from vibe_vault.config import Config
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.session import Store, Update, update_session
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

RECORDINGS = sorted(FIXTURES.glob("claude-*"))
TOKEN_KEYS = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
              "cache_read_tokens": "cache_read_input_tokens",
              "cache_creation_tokens": "cache_creation_input_tokens"}


def test_both_client_versions_are_recorded() -> None:
    assert {p.name for p in RECORDINGS} >= {"claude-2.1.197", "claude-2.1.332"}


class Recording:
    """One client version's sessions, and a vault `vv backfill` wrote from them."""

    def __init__(self, folder: Path, env: Env) -> None:
        self.folder = folder
        self.projects = folder / "projects"
        self.env = env
        self.replies: dict[str, dict[str, int]] = {
            rec["id"]: rec["usage"] for rec in json_objects(folder / "api.jsonl") if "id" in rec}
        # the client's first report of each scenario (a background subagent may add a second)
        self.results: dict[str, dict[str, Any]] = {}
        for rec in json_objects(folder / "results.jsonl"):
            self.results.setdefault(rec["scenario"], rec)
        self.notes = {str(frontmatter(note)["session_id"]): note for note in env.notes().values()}

    def transcripts(self) -> list[Path]:
        return sorted(self.projects.glob("*/*.jsonl"))

    def transcript(self, scenario: str) -> Path:
        sid = self.results[scenario]["session_id"]
        return next(p for p in self.transcripts() if p.stem == sid)

    def note(self, scenario: str) -> str:
        return self.notes[self.results[scenario]["session_id"]]


def subagent_files(main: Path) -> list[Path]:
    return sorted((main.parent / main.stem / "subagents").glob("agent-*.jsonl"))


@pytest.fixture(scope="module", params=RECORDINGS, ids=lambda p: p.name)
def recording(request: pytest.FixtureRequest,
              tmp_path_factory: pytest.TempPathFactory) -> Recording:
    env = Env(tmp_path_factory.mktemp(request.param.name))
    r = env.vv("backfill", str(request.param / "projects"))
    assert r.returncode == 0, r.stderr
    return Recording(request.param, env)


def test_every_session_claude_answered_has_one_note(recording: Recording) -> None:
    answered = {p.stem for p in recording.transcripts()
                if any(o.get("type") == "assistant" for o in json_objects(p))}
    assert len(answered) >= 6
    assert set(recording.notes) == answered


def test_tokens_are_the_fake_apis_replies_in_each_transcript(recording: Recording) -> None:
    """Each note's tokens: the usage the fake API sent for the message ids its
    transcript and subagent files hold, each message once."""
    for main in recording.transcripts():
        ids = {o["message"]["id"] for f in [main, *subagent_files(main)] for o in json_objects(f)
               if o.get("type") == "assistant" and isinstance(o.get("message"), dict)
               and o["message"].get("id") in recording.replies}
        assert ids, main.name
        fm = frontmatter(recording.notes[main.stem])
        want = {key: sum(recording.replies[i][api] for i in ids) for key, api in TOKEN_KEYS.items()}
        assert {key: fm[key] for key in TOKEN_KEYS} == want, main.name
        assert independent_tokens(main, subagent_files(main)) == want, main.name


@pytest.mark.parametrize("scenario", ["tool", "failing", "write", "edit"])
def test_the_clients_own_report_equals_the_note(recording: Recording, scenario: str) -> None:
    """A one-prompt session: the client's usage and dollar cost are the note's."""
    result = recording.results[scenario]
    fm = frontmatter(recording.note(scenario))
    for key, api in TOKEN_KEYS.items():
        assert fm[key] == result["usage"][api], key
    # A client that writes its own running cost (`cost-state`, 2.1.2xx+) carries a
    # continued session's total on: its last report of the session is the note's
    # cost (a later /compact's summary call included).
    runs = [r for r in json_objects(recording.folder / "results.jsonl")
            if r["session_id"] == result["session_id"]]
    carried = any(o.get("type") == "cost-state"
                  for o in json_objects(recording.transcript(scenario)))
    want = runs[-1]["total_cost_usd"] if carried else result["total_cost_usd"]
    assert abs(float(str(fm["cost_usd"])) - want) < 0.00006


def bash_runs(main: Path) -> list[tuple[str, bool]]:
    """Each Bash command of a transcript, and whether its result was an error."""
    calls: dict[str, str] = {}
    runs = []
    for o in json_objects(main):
        content = o.get("message", {}).get("content") if isinstance(o.get("message"), dict) \
            else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Bash":
                calls[block["id"]] = block["input"]["command"]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                runs.append((calls[block["tool_use_id"]], bool(block.get("is_error"))))
    return runs


@pytest.mark.parametrize("scenario", ["tool", "failing"])
def test_each_command_is_told_with_its_outcome(recording: Recording, scenario: str) -> None:
    runs = bash_runs(recording.transcript(scenario))
    assert runs, "the fake API asked for a command"
    note = recording.note(scenario)
    fm = frontmatter(note)
    assert fm["commands"] == len(runs)
    assert fm.get("errors", 0) == sum(failed for _, failed in runs)
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    errors = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Errors\n" in note else ""
    for command, failed in runs:
        [line] = [ln for ln in story.splitlines() if ln.startswith("- ") and f"`{command}`" in ln]
        assert ("failed" in line) == failed, line
        # Errors names each command that failed, by the command
        assert (f"`{command}` failed" in errors) == failed, errors


def file_edits(main: Path) -> dict[str, tuple[int, int]]:
    """Lines added and removed by each Write and Edit call, from the calls' inputs."""
    out: dict[str, tuple[int, int]] = {}
    for o in json_objects(main):
        content = o.get("message", {}).get("content") if isinstance(o.get("message"), dict) \
            else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") != "tool_use" or block.get("name") not in ("Write", "Edit"):
                continue
            given = block["input"]
            name = Path(given["file_path"]).name
            if block["name"] == "Write":
                added, removed = len(given["content"].splitlines()), 0
            else:
                added = len(given["new_string"].splitlines())
                removed = len(given["old_string"].splitlines())
            old = out.get(name, (0, 0))
            out[name] = (old[0] + added, old[1] + removed)
    return out


@pytest.mark.parametrize("scenario", ["write", "edit"])
def test_files_changed_are_the_write_and_edit_calls(recording: Recording, scenario: str) -> None:
    edits = file_edits(recording.transcript(scenario))
    assert edits, "the fake API asked for a change"
    note = recording.note(scenario)
    assert frontmatter(note)["files_changed"] == len(edits)
    table = note.split("## Files changed", 1)[1].split("\n## ", 1)[0]
    for name, (added, removed) in edits.items():
        [row] = [ln for ln in table.splitlines() if ln.startswith(f"| `{name}` |")]
        assert row.endswith(f"| {added} | {removed} |"), row


def test_a_subagent_is_counted_with_its_own_file(recording: Recording) -> None:
    main = recording.transcript("delegate")
    agents = subagent_files(main)
    assert agents, "the client wrote the subagent's transcript"
    kinds = [b["input"]["subagent_type"] for o in json_objects(main)
             if o.get("type") == "assistant"
             for b in o["message"].get("content", []) if b.get("name") in ("Task", "Agent")]
    note = recording.note("delegate")
    assert frontmatter(note)["subagents"] == len(agents) == len(kinds)
    section = note.split("## Subagents", 1)[1].split("\n## ", 1)[0]
    assert all(f"*{kind}*" in section for kind in kinds)


def prompts(main: Path) -> list[str]:
    return [o["message"]["content"] for o in json_objects(main)
            if o.get("type") == "user" and isinstance(o.get("message", {}).get("content"), str)
            and not o.get("isMeta") and not o.get("isCompactSummary")]


def test_a_resumed_session_is_one_note_with_both_runs(recording: Recording) -> None:
    first, again = recording.results["text"], recording.results["resumed"]
    assert first["session_id"] == again["session_id"], "the client resumed the same session"
    main = recording.transcript("text")
    said = prompts(main)
    assert said[:1] == ["hello there"] and "hello again" in said
    note = recording.note("text")
    assert frontmatter(note)["prompts"] == len(said)
    assert all(f"> {words}" in note for words in said)


def test_a_compaction_is_counted(recording: Recording) -> None:
    main = recording.transcript("compacted")
    boundaries = [o for o in json_objects(main)
                  if o.get("type") == "system" and o.get("subtype") == "compact_boundary"]
    assert boundaries, "the client compacted the session"
    assert frontmatter(recording.note("compacted"))["compactions"] == len(boundaries)


def fold_lines(lines: list[bytes], start: Fold | None = None) -> Fold:
    return fold(start or Fold(), (decode_line(line) for line in lines))


@pytest.mark.parametrize("folder", RECORDINGS, ids=lambda p: p.name)
def test_fold_of_parts_equals_fold_of_whole_at_every_line(folder: Path) -> None:
    """The fold law on every recorded file, cut after each of its lines, the first
    part through a save and load as between two hook events."""
    for path in sorted((folder / "projects").rglob("*.jsonl")):
        lines = path.read_bytes().split(b"\n")
        whole = encode_state(SessionState(fold=fold_lines(lines)))
        for cut in range(len(lines) + 1):
            first = decode_state(encode_state(SessionState(fold=fold_lines(lines[:cut]))))
            assert first is not None and first.fold is not None
            assert encode_state(SessionState(fold=fold_lines(lines[cut:], first.fold))) == whole, \
                (path.name, cut)


def config(root: Path) -> Config:
    share_line_key(root / "state")  # (the folds of two vaults are compared)
    return Config(vault=root / "vault", state_dir=root / "state",
                  projects_root=root / "claude" / "projects", config_file=root / "none.toml")


@pytest.mark.parametrize("folder", RECORDINGS, ids=lambda p: p.name)
def test_each_session_grown_turn_by_turn_gives_the_one_shot_note(folder: Path,
                                                                 tmp_path: Path) -> None:
    """In process, as the Stop hook runs: the transcript and its subagent files
    grown a line at a time (every file the same share) give the note and state
    one read of the whole gives."""
    for main in sorted((folder / "projects").glob("*/*.jsonl")):
        root = tmp_path / main.stem
        files = [main, *subagent_files(main)]
        placed = [root / "claude" / f.relative_to(folder) for f in files]
        blobs = [f.read_bytes().split(b"\n") for f in files]
        grown = config(root / "grown")
        for step in range(max(map(len, blobs)) + 1):
            for lines, dest in zip(blobs, placed, strict=True):
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(b"\n".join(lines[:step]) + (b"\n" if step < len(lines) else b""))
            update_session(grown, Update(session_id=main.stem, transcript=str(placed[0])))
        one = config(root / "one")
        update_session(one, Update(session_id=main.stem, transcript=str(placed[0]), fresh=True))
        a, b = Store(grown.state_dir).load(main.stem), Store(one.state_dir).load(main.stem)
        assert a is not None and b is not None
        assert render(a) == render(b), main.name
        assert encode_state(a.fold) == encode_state(b.fold), main.name  # type: ignore[arg-type]


def test_hooks_as_the_client_fires_them_give_the_backfill_note(recording: Recording,
                                                               tmp_path: Path) -> None:
    """Through `vv hook`: a Stop after each run of the resumed session, then
    SessionEnd, give the note backfill writes (but for how it ended)."""
    main = recording.transcript("text")
    slug = tmp_path / "claude" / "projects" / main.parent.name
    slug.mkdir(parents=True)
    target = slug / main.name
    hooks = Env(tmp_path / "hooks")
    hooks.env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude")
    lines = main.read_bytes().splitlines(keepends=True)
    # where the second run starts: its prompt
    second = next(i for i, raw in enumerate(lines) if b'"hello again"' in raw)
    event = {"session_id": main.stem, "transcript_path": str(target),
             "cwd": json.loads(lines[second]).get("cwd", "/"), "hook_event_name": "Stop"}
    for upto in (second, len(lines)):
        target.write_bytes(b"".join(lines[:upto]))
        r = hooks.hook(event)
        assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r.stderr
    r = hooks.hook({**event, "hook_event_name": "SessionEnd", "reason": "other"})
    assert r.returncode == 0 and r.stdout == b""
    one = Env(tmp_path / "one")
    r = one.vv("backfill", str(slug))
    assert r.returncode == 0, r.stderr
    [note] = hooks.notes().values()
    assert "status: ended" in note and frontmatter(note)["session_id"] == main.stem
    assert strip_status(note) == strip_status(*one.notes().values())


def test_stats_and_the_project_note_count_every_reply_once(recording: Recording) -> None:
    """`vv stats` and the project note: the tokens of every reply the fake API
    sent that a transcript or subagent file holds, input, output and cache alike."""
    ids = {o["message"]["id"] for main in recording.transcripts()
           for f in [main, *subagent_files(main)] for o in json_objects(f)
           if o.get("type") == "assistant" and isinstance(o.get("message"), dict)
           and o["message"].get("id") in recording.replies}
    want = sum(sum(recording.replies[i].values()) for i in ids)
    r = recording.env.vv("stats", "--json")
    assert r.returncode == 0, r.stderr
    total = json.loads(r.stdout)["total"]
    assert total["sessions"] == len(recording.notes) and total["tokens"] == want
    [project] = recording.env.vault.glob("Projects/*/*.md")
    assert frontmatter(project.read_text(encoding="utf-8"))["tokens"] == want
