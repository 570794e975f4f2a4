"""What Claude Code 2.1.2xx-2.1.332 writes: its new entries are known (no
format drift), its request lines (the whole system prompt, CLAUDE.md, memory)
are skipped unread and kept nowhere, and its own running cost (`cost-state`)
is the session's cost, across runs that carry the total on and runs that
start again.

Sessions are generated in the shape 2.1.332 writes them (the fields of each
line as the real client writes them, with generated values); the oracle for
cost is the spend the generator made, not the lines' arithmetic.
"""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter
from vibe_vault.entries import Entry, decode_lines

VERSION = "2.1.332"
MODEL = "claude-opus-5-5"
# A word that must never reach the vault or the state: it stands for what the
# request lines carry (the system prompt, CLAUDE.md, memory).
secrets = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=12, max_size=20).map(
    lambda s: "zq" + s)


class Session:
    """Lines of one generated 2.1.332 session."""

    def __init__(self, sid: str | None = None) -> None:
        self.sid = sid or str(uuid.uuid4())
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.clock = 0
        self.k = 0

    def ts(self) -> str:
        self.clock += 1
        return f"2026-11-26T10:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}.000Z"

    def common(self) -> dict[str, Any]:
        u = str(uuid.uuid4())
        line = {"parentUuid": self.parent, "isSidechain": False, "uuid": u,
                "timestamp": self.ts(), "userType": "external", "entrypoint": "sdk-cli",
                "cwd": "/work/demo", "sessionId": self.sid, "version": VERSION,
                "gitBranch": "main"}
        self.parent = u
        return line

    def prompt(self, text: str, private: str) -> None:
        self.lines.append({"type": "queue-operation", "operation": "enqueue",
                           "timestamp": self.ts(), "sessionId": self.sid, "content": text})
        self.lines.append({**self.common(), "type": "user", "promptId": str(uuid.uuid4()),
                           "permissionMode": "bypassPermissions", "promptSource": "sdk",
                           "rowSource": "input", "sentAtMs": 1795719937400,
                           "turnOrigin": "user", "turnPosition": 0,
                           "message": {"role": "user", "content": text}})
        self.lines.append({**self.common(), "type": "attachment",
                           "attachment": {"type": "model", "identity": {"modelId": MODEL}},
                           "rendered": [{"content": f"<system-reminder>{private}"
                                                    "</system-reminder>"}],
                           "renderedRole": "system"})
        self.lines.append({"type": "api-request-shape", "sessionId": self.sid,
                           "shapeHash": "ab" * 32, "timestamp": self.ts(), "version": VERSION,
                           "shape": {"system": [{"type": "text",
                                                 "text": f"# CLAUDE.md\n{private}"}]}})
        self.lines.append({"type": "api-request-blob", "sessionId": self.sid, "hash": "cd" * 32,
                           "message": {"role": "user",
                                       "content": [{"type": "text", "text": private}]}})
        self.lines.append({"type": "api-request", "sessionId": self.sid,
                           "id": str(uuid.uuid4()), "timestamp": self.ts(), "version": VERSION,
                           "querySource": "sdk", "shapeHash": "ab" * 32,
                           "params": {"model": MODEL, "max_tokens": 128000},
                           "thread": {"type": "none"}, "echoWireToolInputs": False, "keep": 0,
                           "tail": ["cd" * 32], "cacheControl": [], "requestDigest": "ef"})

    def answer(self, usage: dict[str, int]) -> None:
        self.k += 1
        self.lines.append({**self.common(), "type": "assistant", "requestId": f"req_{self.k}",
                           "apiBlockIndex": 0, "effort": "medium", "perTurnEffort": "medium",
                           "madeBy": "model", "promptCacheRequested": True,
                           "requestRef": str(uuid.uuid4()), "requestedModel": MODEL,
                           "thinkingDisplay": "omitted", "thinkingDurationMs": 3,
                           "message": {"id": f"msg_{self.sid[:8]}_{self.k}", "model": MODEL,
                                       "role": "assistant", "type": "message",
                                       "content": [{"type": "text", "text": "Done."}],
                                       "stop_reason": "end_turn",
                                       "usage": {**usage, "speed": "standard",
                                                 "inference_geo": "",
                                                 "output_tokens_details":
                                                     {"thinking_tokens": 0}}}})
        self.lines.append({"type": "tools-used", "tools": [], "sessionId": self.sid})
        self.lines.append({"type": "last-prompt", "lastPrompt": "x", "leafUuid": self.parent,
                           "sessionId": self.sid})

    def cost_state(self, start: int, total: float, tokens: dict[str, int]) -> None:
        self.lines.append({
            "type": "cost-state", "sessionId": self.sid, "totalCostUSD": total,
            "totalAPIDuration": 100, "totalAPIDurationWithoutRetries": 100,
            "totalToolDuration": 0, "totalLinesAdded": 0, "totalLinesRemoved": 0,
            "totalDuration": 700, "startTime": start, "hasUnknownModelCost": False,
            "modelUsage": {MODEL: {
                "inputTokens": tokens["input_tokens"], "outputTokens": tokens["output_tokens"],
                "thinkingTokens": 0, "cacheReadInputTokens": tokens["cache_read_input_tokens"],
                "cacheCreationInputTokens": tokens["cache_creation_input_tokens"],
                "cacheCreationEphemeral5mInputTokens": tokens["cache_creation_input_tokens"],
                "cacheCreationEphemeral1hInputTokens": 0, "webSearchRequests": 0,
                "costUSD": total}}})

    def write(self, env: Env) -> Path:
        folder = env.claude / "projects" / "-work-demo"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.sid}.jsonl"
        path.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n"
                                for o in self.lines), encoding="utf-8")
        return path


def usage_of(k: int) -> dict[str, int]:
    return {"input_tokens": 3 + k, "output_tokens": 20 + k, "cache_read_input_tokens": 9000 * k,
            "cache_creation_input_tokens": 700 * k}


# A run of the client: whether it carried the earlier total on (a resume), and
# what each of its turns cost.
runs = st.lists(st.tuples(st.booleans(),
                          st.lists(st.integers(1, 500_000), min_size=1, max_size=3)),
                min_size=1, max_size=4)


@settings(max_examples=examples(6, 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=runs, private=secrets)
def test_the_clients_own_count_is_the_cost(tmp_path_factory: Any, runs: list[Any],
                                           private: str) -> None:
    env = Env(tmp_path_factory.mktemp("costs"))
    s = Session()
    spent = 0  # in millionths of a dollar: the generator's own account
    running = 0
    start = 1795719937000
    counted = {k: 0 for k in usage_of(0)}
    for carries, turns in runs:
        if not carries or not s.lines:
            start += 1000  # a process that starts its count again
            running = 0
            counted = {k: 0 for k in usage_of(0)}
        for micro in turns:
            s.prompt("do the next thing", private)
            u = usage_of(s.k + 1)
            s.answer(u)
            counted = {k: counted[k] + u[k] for k in counted}
            spent += micro
            running += micro
            s.cost_state(start, running / 1e6, counted)
    s.write(env)
    done = env.vv_here("backfill")
    assert done.returncode == 0, done.stderr
    (note,) = env.notes().values()
    cost = float(frontmatter(note)["cost_usd"])  # type: ignore[arg-type]
    assert abs(cost - spent / 1e6) <= 0.00005 + 1e-9, (cost, spent, runs)
    # The request lines are read by no one: their words are nowhere.
    for p in [*env.vault.rglob("*"), *env.state.rglob("*")]:
        if p.is_file():
            assert private.encode() not in p.read_bytes(), p


def test_request_lines_decode_to_their_type_alone() -> None:
    s = Session()
    s.prompt("hello", "zqsecretwords")
    lines = [json.dumps(o, separators=(",", ":")).encode() for o in s.lines]
    got = list(decode_lines(lines))
    kinds = [e.type for e in got if isinstance(e, Entry)]
    assert kinds == [o["type"] for o in s.lines]
    for e, o in zip(got, s.lines, strict=True):
        if o["type"] in ("api-request-shape", "api-request-blob"):
            assert e == Entry(type=o["type"])  # nothing else read
    # The same line with its keys in another order is decoded in full and still
    # keeps nothing: the fold reads no text of these types.
    shape = next(o for o in s.lines if o["type"] == "api-request-shape")
    reordered = json.dumps({k: shape[k] for k in reversed(shape)}).encode()
    (e,) = decode_lines([reordered])
    assert isinstance(e, Entry) and e.type == "api-request-shape"


def test_a_2_1_332_session_shows_no_format_drift(env: Env) -> None:
    s = Session()
    for i in range(3):
        s.prompt(f"step {i}", "zqprivatewords")
        s.answer(usage_of(i + 1))
    s.cost_state(1795719937000, 0.5, {k: 1 for k in usage_of(0)})
    s.write(env)
    assert env.vv("backfill").returncode == 0
    done = env.vv("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["format drift"]["status"] == "pass", checks["format drift"]


def _install_with_a_client_of(env: Env, version: str) -> dict[str, Any]:
    """`vv hook install` where the newest transcript says Claude Code `version`."""
    s = Session()
    s.lines.append({**s.common(), "type": "user", "version": version,
                    "message": {"role": "user", "content": "hi"}})
    s.write(env)
    env.env["PATH"] = "/usr/bin:/bin"  # no `claude` to ask: the transcript tells
    done = env.vv("hook", "install")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads((env.claude / "settings.json").read_text())
    return data


def test_pre_tool_use_only_for_clients_without_tool_durations(env: Env) -> None:
    """PostToolUse carries `duration_ms` from 2.1.119: before it, tool timings
    need PreToolUse; from it, PreToolUse is one process per tool call for nothing,
    and an install made for an older client loses it."""
    old = _install_with_a_client_of(env, "2.1.100")
    assert "PreToolUse" in old["hooks"] and "PostToolUse" in old["hooks"]
    new = _install_with_a_client_of(env, "2.1.332")
    assert "PreToolUse" not in new["hooks"] and "PostToolUse" in new["hooks"]
    assert set(old["hooks"]) - set(new["hooks"]) == {"PreToolUse"}
    report = json.loads(env.vv("doctor", "--json").stdout)
    hooks = [c for c in report["checks"] if c["name"] == "hooks"]
    assert hooks and all(c["status"] == "pass" for c in hooks), hooks


def _background_agent(s: Session, notified: bool) -> None:
    """Claude launches an agent that works in the background (the default of
    2.1.2xx+ on the newest models); the client tells it when the agent stops."""
    s.prompt("look into the flaky test", "zqhidden")
    tool_id = f"toolu_{s.sid[:8]}"
    s.lines.append({**s.common(), "type": "assistant", "message": {
        "id": f"msg_{s.sid[:8]}_agent", "model": MODEL, "role": "assistant",
        "content": [{"type": "tool_use", "id": tool_id, "name": "Agent",
                     "input": {"description": "Hunt the flaky test", "prompt": "find it",
                               "subagent_type": "general-purpose"}}],
        "usage": usage_of(1)}})
    s.lines.append({**s.common(), "type": "user", "toolUseResult": {
        "isAsync": True, "status": "async_launched", "agentId": "a1b2c3",
        "description": "Hunt the flaky test"},
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                 "content": "Async agent launched"}]}})
    s.answer(usage_of(2))
    if notified:
        s.lines.append({**s.common(), "type": "user", "message": {"role": "user", "content": (
            f"<task-notification>\n<task-id>a1b2c3</task-id>\n<tool-use-id>{tool_id}"
            "</tool-use-id>\n<status>completed</status>\n<summary>Agent finished</summary>\n"
            "</task-notification>")}})
        s.answer(usage_of(3))


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(notified=st.booleans())
def test_work_left_in_the_background_is_an_open_thread(tmp_path_factory: Any,
                                                       notified: bool) -> None:
    """On models with no todo list, what a session left running is what stays
    open; and a session waiting on it is not ended for being idle (its lines
    are hours old here)."""
    env = Env(tmp_path_factory.mktemp("background"))
    s = Session()
    _background_agent(s, notified)
    s.write(env)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    meta = frontmatter(note)
    waiting = "- [ ] Hunt the flaky test *(running in the background)*" in note
    assert waiting == (not notified), note
    assert meta["status"] == ("ended" if notified else "active"), meta


def test_a_workflows_agents_are_the_sessions_subagents(env: Env) -> None:
    """2.1.2xx+ workflows write their agents under
    `<session>/subagents/workflows/wf_<run>/` beside a journal: the agents'
    usage and work are the session's, the journal is no session of its own."""
    s = Session()
    s.prompt("run the review workflow", "zqhidden")
    s.answer(usage_of(1))
    main = s.write(env)
    flow = main.parent / s.sid / "subagents" / "workflows" / "wf_7f3a"
    flow.mkdir(parents=True)
    agent = Session(s.sid)  # subagent entries carry the parent's sessionId
    agent.k = 100  # message ids of its own
    agent.prompt("review module a", "zqhidden")
    agent.answer(usage_of(40))
    (flow / "agent-a77.jsonl").write_text("".join(
        json.dumps({**o, "isSidechain": True, "agentId": "a77"}) + "\n" for o in agent.lines))
    (flow / "agent-a77.meta.json").write_text(json.dumps({"agentType": "reviewer"}))
    (flow / "journal.jsonl").write_text(json.dumps(
        {"type": "phase", "sessionId": s.sid, "name": "review"}) + "\n")
    # the hook's way (it finds the session's subagent files itself) ...
    hooked = env.hook({"hook_event_name": "Stop", "session_id": s.sid,
                       "transcript_path": str(main), "cwd": "/work/demo"})
    assert hooked.returncode == 0
    (by_hook,) = env.notes().values()
    # ... and backfill's, from scratch
    assert env.vv("backfill", "--force").returncode == 0
    notes = env.notes()
    assert len(notes) == 1, notes.keys()  # the journal made no session
    (note,) = notes.values()
    want = usage_of(1)["output_tokens"] + usage_of(40)["output_tokens"]
    assert frontmatter(note)["output_tokens"] == want
    assert frontmatter(by_hook)["output_tokens"] == want


def test_a_session_moved_by_cd_keeps_one_note(env: Env) -> None:
    """`/cd` (2.1.169+) moves a session's file into another project's folder
    and goes on there: still one session, one note."""
    s = Session()
    s.prompt("start here", "zqhidden")
    s.answer(usage_of(1))
    first = s.write(env)
    assert env.hook({"hook_event_name": "Stop", "session_id": s.sid,
                     "transcript_path": str(first), "cwd": "/work/demo"}).returncode == 0
    moved = env.claude / "projects" / "-work-other" / first.name
    moved.parent.mkdir(parents=True)
    first.rename(moved)
    s.prompt("go on in the other project", "zqhidden")
    for line in s.lines[-6:]:
        if "cwd" in line:
            line["cwd"] = "/work/other"
    s.answer(usage_of(2))
    moved.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in s.lines))
    assert env.hook({"hook_event_name": "Stop", "session_id": s.sid,
                     "transcript_path": str(moved), "cwd": "/work/other"}).returncode == 0
    assert env.vv("backfill").returncode == 0
    notes = env.notes()
    assert len(notes) == 1, notes.keys()
    (note,) = notes.values()
    assert "go on in the other project" in note and "start here" in note


@settings(deadline=None)  # a loaded machine must not fail it
@given(models=st.lists(st.sampled_from(["claude-opus-5-5", "claude-sonnet-5",
                                        "claude-haiku-5-5"]), min_size=1, max_size=8),
       cut=st.integers(0, 100))
def test_model_switches_are_facts_of_the_state(models: list[str], cut: int) -> None:
    """Each change of the main agent's model (by /model, a fallback, a
    PostModelSwitch hook's doing) is kept with the model before and after,
    read from the answers themselves; folded in two reads or one alike."""
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold

    s = Session()
    for model in models:
        s.prompt("next", "zqhidden")
        s.answer(usage_of(1))
        s.lines[-3]["message"]["model"] = model
    want = [(b, a) for a, b in itertools.pairwise(models) if a != b]
    lines = [json.dumps(o).encode() for o in s.lines]
    whole = fold(Fold(), decode_lines(lines))
    assert [(m.to, m.was) for m in whole.model_switches] == want
    assert whole.model == models[-1]
    at = cut % (len(lines) + 1)
    parts = fold(fold(Fold(), decode_lines(lines[:at])), decode_lines(lines[at:]))
    assert parts.model_switches == whole.model_switches


def test_a_model_switch_is_told_in_the_story(env: Env) -> None:
    """Where the main agent's model changed, the story says so, once."""
    s = Session()
    for model in ("claude-opus-5-5", "claude-sonnet-5"):
        s.prompt(f"work on {model}", "zqhidden")
        s.answer(usage_of(1))
        s.lines[-3]["message"]["model"] = model
    s.write(env)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    story = note.split("\n## Story\n", 1)[1]
    first, second = story.index("work on claude-opus-5-5"), story.index("work on claude-sonnet-5")
    told = story.index("*Model `claude-opus-5-5` → `claude-sonnet-5`")
    # told after the turn whose answer first came from the new model
    assert first < second < told, story
