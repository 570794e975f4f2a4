"""No secret reaches the vault, the state, the log, an index or a command's
output, whatever field of the transcript or the hook input carries it."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from conftest import Env, PlantedHome, examples
from secrets_corpus import LOOK_ALIKES, forms
from vibe_vault.redact import Redactor

FORMS = forms()


def test_the_secrets_corpus_is_large_and_varied() -> None:
    assert len(FORMS) >= 60
    assert len({kind for kind, _, _ in FORMS}) == len(FORMS)


@pytest.mark.parametrize(("kind", "text", "secret"), FORMS, ids=[f[0] for f in FORMS])
def test_each_form_is_redacted(kind: str, text: str, secret: str) -> None:
    out, count = Redactor().redact(text)
    assert secret not in out, out
    assert count >= 1


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == (text, 0)


# -- every place a transcript carries text -------------------------------------------------


def planted_session(sid: str, text: str,
                    secret: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A session whose every text field holds `text` (main file, subagent file)."""
    one_line = text.replace("\n", " ")
    base = {"sessionId": sid, "version": "2.1.99 " + one_line, "gitBranch": one_line,
            "cwd": "/home/u/" + one_line}
    n = iter(range(1000))

    def entry(kind: str, **fields: Any) -> dict[str, Any]:
        i = next(n)
        return {"type": kind, "uuid": f"{sid[:8]}-u{i}", "parentUuid": None,
                "timestamp": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", **base, **fields}

    def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
        return entry("assistant", message={
            "id": f"msg_{next(n)}", "model": "claude-x " + one_line, "role": "assistant",
            "content": list(blocks), "usage": {"input_tokens": 1, "output_tokens": 1}})

    def result(tid: str, content: str, error: bool = False, **extra: Any) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
        if error:
            block["is_error"] = True
        return entry("user", message={"role": "user", "content": [block]}, **extra)

    def call(tid: str, name: str, **inp: Any) -> dict[str, Any]:
        return assistant({"type": "tool_use", "id": tid, "name": name, "input": inp})

    main = [
        {"type": "summary", "summary": text, "leafUuid": f"{sid[:8]}-u0"},
        entry("user", message={"role": "user", "content": text}),
        {"type": "queue-operation", "operation": "enqueue", "content": text,
         "timestamp": "2026-01-01T00:00:30Z", "sessionId": sid},
        {"type": "queue-operation", "operation": "remove", "timestamp": "2026-01-01T00:00:31Z",
         "sessionId": sid},
        call("t1", "Bash", command=text, description=text),
        result("t1", "", toolUseResult={"stdout": text + "\n[main abc1234] " + one_line,
                                        "stderr": ""}),
        call("t2", "Bash", command="git commit -q -m \"" + one_line + "\""),
        result("t2", "", toolUseResult={"stdout": "", "stderr": ""}),
        call("t3", "Edit", file_path="/home/u/" + one_line + ".py", old_string="a",
             new_string=text),
        result("t3", "ok"),
        call("t4", "Bash", command="false"),
        result("t4", "Exit code 1\n" + text, error=True),
        call("t5", "TodoWrite", todos=[{"content": text, "status": "pending"}]),
        result("t5", "ok"),
        call("t6", "Task", description=text, subagent_type=one_line, prompt=text),
        result("t6", "done", toolUseResult={"agentId": "agent1", "status": "completed"}),
        # Tool names are [A-Za-z0-9_-]{1,64}: a secret of that shape may be one
        # (bare, it is hidden as learned: one of MIN_LEARNED characters or more).
        call("t7", "mcp__srv__" + (secret if re.fullmatch(r"[\w-]{6,54}", secret) else "tool"),
             query=text),
        result("t7", "ok"),
        call("t8", "WebFetch", url="https://example.com/?q=" + one_line, prompt=text),
        result("t8", "ok"),
        call("t9", "AskUserQuestion", questions=[{"question": text, "header": text}]),
        result("t9", "ok", toolUseResult={"answers": {text: text}}),
        call("t10", "ExitPlanMode", plan=text),
        result("t10", "ok"),
        # An id and a time are as untrusted as any other field.
        call("id " + text, "Bash", command="ls"),
        {**result("id " + text, "ok"), "timestamp": "2026-01-01T00:09:00Z " + text},
        assistant({"type": "thinking", "thinking": text, "signature": "s"},
                  {"type": "text", "text": text}),
        entry("system", subtype="away_summary", content=text),
        entry("system", subtype="api_error", error={"message": text}),
        entry("user", isCompactSummary=True, message={"role": "user", "content": text}),
        {"type": "ai-title", "aiTitle": text, "sessionId": sid},
        {"type": "custom-title", "customTitle": text, "sessionId": sid},
        {"type": "task-summary", "summary": text, "sessionId": sid},
        {"type": "pr-link", "prUrl": "https://github.com/o/r/pull/1?" + one_line,
         "prRepository": one_line, "prNumber": 1, "sessionId": sid},
        entry("new-type-" + one_line),
    ]
    agent = [
        {**entry("assistant", message={
            "id": f"msg_a{next(n)}", "model": "claude-y " + one_line, "role": "assistant",
            "content": [{"type": "tool_use", "id": "a1", "name": "Bash",
                         "input": {"command": text}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}), "isSidechain": True,
         "agentId": "agent1"},
        {**result("a1", "Exit code 2\n" + text, error=True), "isSidechain": True,
         "agentId": "agent1"},
    ]
    return main, agent


def home_forms() -> list[tuple[str, str, str]]:
    """The forms a planted home holds: every one with --slow and in CI; every
    third in the default run (a backfill of all ~300 sessions, each holding its
    form in every place, costs some 10 s of CPU, and two tests make one)."""
    return FORMS[::examples(3, 1)]


def write_home(env: Env, forms: list[tuple[str, str, str]]) -> list[tuple[str, str, Path]]:
    """Each form planted in every place, one session per form."""
    slug = env.claude / "projects" / "-home-u-proj"
    sessions = []
    for i, (_, text, secret) in enumerate(forms):
        sid = str(uuid.UUID(int=i + 1, version=4))
        main, agent = planted_session(sid, text, secret)
        path = slug / f"{sid}.jsonl"
        sub = slug / sid / "subagents"
        sub.mkdir(parents=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in main))
        (sub / "agent-agent1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in agent))
        (sub / "agent-agent1.meta.json").write_text(json.dumps(
            {"agentType": text, "description": text}))
        sessions.append((sid, secret, path))
    return sessions


def files_under(roots: list[Path]) -> dict[str, bytes]:
    """Every file under the roots (not through a symlink), read once."""
    return {str(p): p.read_bytes() for root in roots if root.exists()
            for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


def holds(data: bytes, secret: str) -> bool:
    """`secret` is in `data`; one of digits only (a PIN, `197959`) as a number
    of its own, not as digits inside a longer one (a file's mtime in
    nanoseconds, 1795841979593020673, holds any six digits in time) nor in a
    hex digest (a state's learned keys: `…a3413f…` holds a four-digit PIN by
    chance) nor as a JSON number (a size)."""
    needle = secret.encode()
    if not secret.isdigit():
        return needle in data
    # (nor a JSON number of the machine's: an archive manifest's `"size": 2243`)
    return re.search(rb"(?<![0-9A-Za-z])(?<!\": )(?<!\":)" + re.escape(needle)
                     + rb"(?![0-9A-Za-z])", data) is not None


def leaks(secret: str, files: dict[str, bytes], outputs: list[bytes]) -> list[str]:
    escaped = json.dumps(secret)[1:-1]
    found = [path for path, data in files.items() if holds(data, secret) or holds(data, escaped)]
    found += [f"output {i}" for i, out in enumerate(outputs) if holds(out, secret)]
    return found


def run_planted_home(env: Env) -> tuple[list[tuple[str, str, Path]], list[bytes]]:
    """A home planted with the forms (`home_forms`), then run as a user runs it: the
    sessions, and every output of the run. Made once a test run (conftest's
    `planted_home`): test_no_planted_secret_reaches_any_output reads what it
    wrote and printed, test_search's test_a_planted_secret_cannot_be_found
    searches it."""
    sessions = write_home(env, home_forms())
    outputs = []
    # The hooks, as Claude Code runs them, for the first sessions (each holds
    # other forms; the backfill below reads them all): 4 here, 10 in CI; the
    # first of each as a process, the others in this one (test_in_process).
    hooked = sessions[:examples(4, 10)]
    for sid, _, path in hooked:
        event = {"hook_event_name": "Stop", "session_id": sid, "transcript_path": str(path),
                 "cwd": "/tmp", "last_assistant_message": FORMS[0][1]}
        outputs.append((env.hook_here if outputs else env.hook)(event).stderr)
    for i, (sid, _, path) in enumerate(hooked):
        event = {"hook_event_name": "SessionEnd", "session_id": sid, "reason": FORMS[1][1],
                 "transcript_path": str(path), "cwd": "/tmp"}
        outputs.append((env.hook_here if i else env.hook)(event).stderr)
    for args in (["backfill", "--json"], ["stats", "--json"], ["stats", "--csv"],
                 ["doctor", "--json"], ["index"]):
        r = env.vv_here(*args)
        assert r.returncode == 0 or args[0] == "doctor", (args, r.stderr)  # (no hooks installed)
        outputs += [r.stdout, r.stderr]
    return sessions, outputs


def test_no_planted_secret_reaches_any_output(planted_home: PlantedHome) -> None:
    env, sessions, outputs = planted_home
    problems = {}
    files = files_under([env.vault, env.state])
    for _, secret, _ in sessions:
        where = leaks(secret, files, outputs)
        if where:
            problems[secret[:24]] = where[:4]
    assert not problems, problems


# -- privacy controls ---------------------------------------------------------------------------


def grep(roots: list[Path], needle: str) -> list[str]:
    hits = []
    for root in roots:
        for p in root.rglob("*") if root.exists() else ():
            if p.is_file() and needle.encode() in p.read_bytes():
                hits.append(str(p))
    return hits


@pytest.mark.corpus
def test_forget_leaves_no_trace_and_backfill_does_not_bring_it_back(env: Env) -> None:
    from test_hook_contract import SESSION, SID, place

    target = place(env)
    other = place(env, SESSION, "11111111-0000-4000-8000-000000000002")
    assert env.vv("backfill", "--archive").returncode == 0
    assert env.hook({"hook_event_name": "PostToolUse", "session_id": SID,
                     "tool_use_id": "t1"}).returncode == 0
    assert len(env.notes()) == 2
    r = env.vv("forget", SID[:8], "--dry-run")
    assert r.returncode == 0 and b"would forget" in r.stdout and len(env.notes()) == 2
    r = env.vv("forget", SID[:8])
    assert r.returncode == 0, r.stderr
    for _ in range(2):  # neither a backfill nor a hook writes it again
        assert env.vv("backfill", "--archive").returncode == 0
        assert env.hook({"hook_event_name": "Stop", "session_id": SID,
                         "transcript_path": str(target)}).returncode == 0
    assert grep([env.vault, env.state], SID) == []
    assert (env.state / "forgotten" / SID).exists()  # the tombstone: its name, nothing else
    assert len(env.notes()) == 1
    assert "11111111" in next(iter(env.notes()))
    r = env.vv("stats", "--json")
    assert SID.encode() not in r.stdout
    assert other.exists() and target.exists()  # the transcripts are Claude Code's


@pytest.mark.corpus
def test_a_short_id_shared_by_two_sessions_is_an_error(env: Env) -> None:
    from test_hook_contract import SESSION, place

    place(env, SESSION, "abcdef12-0000-4000-8000-000000000001")
    place(env, SESSION, "abcdef12-0000-4000-8000-000000000002")
    assert env.vv("backfill").returncode == 0
    r = env.vv("forget", "abcdef12")
    assert r.returncode == 2 and b"start of 2 sessions" in r.stderr
    assert len(env.notes()) == 2


@pytest.mark.corpus
def test_excluded_projects_are_never_kept(env: Env) -> None:
    from test_hook_contract import SESSION, SID, place

    env.configure('exclude_projects = ["tmpqwh*"]\n')
    target = place(env)
    assert env.hook({"hook_event_name": "Stop", "session_id": SID,
                     "transcript_path": str(target), "cwd": "/tmp/tmpqwh7888i"}).returncode == 0
    assert env.vv("backfill", "--archive").returncode == 0
    assert not env.notes()
    assert grep([env.vault, env.state], SID) == []
    assert (env.state / "forgotten" / SID).exists()
    assert SESSION.exists()


@pytest.mark.corpus
def test_a_project_excluded_later_loses_its_notes_at_the_next_hook(env: Env) -> None:
    """A hook whose event is from an excluded folder removes what was kept of
    the session before the exclusion (note, state), not only what comes next."""
    from test_hook_contract import SID, place, stop

    target = place(env)
    assert env.hook(stop(path=target)).returncode == 0
    assert env.notes() and (env.state / "sessions" / f"{SID}.state").exists()
    env.configure('exclude_projects = ["/work/secret*"]\n')
    r = env.hook(stop(path=target, cwd="/work/secret-client"))
    assert r.returncode == 0 and not r.stdout
    assert not env.notes()
    assert grep([env.vault, env.state], SID) == []
    assert (env.state / "forgotten" / SID).exists()


@pytest.mark.corpus
def test_an_excluded_sessions_note_keeps_what_the_user_wrote_and_only_that(env: Env) -> None:
    from test_hook_contract import SID, place, stop

    target = place(env)
    assert env.hook(stop(path=target)).returncode == 0
    (rel, note), = env.notes().items()
    mine = "Ask Dana about the staging database before Friday."
    (env.vault / rel).write_text(note + mine + "\n")
    env.configure('exclude_projects = ["/work/secret*"]\n')
    assert env.hook(stop(path=target, cwd="/work/secret-client")).returncode == 0
    kept = (env.vault / rel).read_text()
    assert mine in kept and "## My notes" in kept
    assert SID not in kept and "session_id" not in kept  # nothing of the transcript's
    assert kept.count("\n") < 10
    assert not (env.state / "sessions" / f"{SID}.state").exists()
    assert env.vv("backfill").returncode == 0
    assert (env.vault / rel).read_text() == kept


@pytest.mark.corpus
def test_an_excluded_sessions_note_keeps_the_users_words_only_the_state_held(env: Env) -> None:
    """Words an editor saved into a replaced note file, that no write has put
    back yet (the state's `user_pending`), are kept when the project is excluded."""
    from test_hook_contract import SID, place, stop
    from vibe_vault.session import Store

    target = place(env)
    assert env.hook(stop(path=target)).returncode == 0
    (rel, _), = env.notes().items()
    store = Store(str(env.state))
    state = store.load(SID)
    assert state is not None
    mine = "Saved while a Stop replaced the file: only the state has it."
    state.user_pending = "## My notes\n" + mine + "\n"
    store.save(state)
    env.configure('exclude_projects = ["/work/secret*"]\n')
    assert env.hook(stop(path=target, cwd="/work/secret-client")).returncode == 0
    kept = (env.vault / rel).read_text()
    assert mine in kept and SID not in kept and kept.count("## My notes") == 1
    assert not (env.state / "sessions" / f"{SID}.state").exists()


@pytest.mark.corpus
def test_an_excluded_sessions_note_keeps_the_users_bytes_as_written(env: Env) -> None:
    """Even bytes that are not UTF-8 (pasted from elsewhere) come through whole."""
    from test_hook_contract import place, stop

    target = place(env)
    assert env.hook(stop(path=target)).returncode == 0
    (rel, note), = env.notes().items()
    mine = b"Latin-1 from an old file: caf\xe9 \xff\xfe end"
    (env.vault / rel).write_bytes(note.encode() + mine + b"\n")
    env.configure('exclude_projects = ["/work/secret*"]\n')
    assert env.hook(stop(path=target, cwd="/work/secret-client")).returncode == 0
    kept = (env.vault / rel).read_bytes()
    assert mine in kept and b"session_id" not in kept


@pytest.mark.corpus
def test_private_spans_never_reach_any_output(env: Env) -> None:
    from test_hook_contract import SID, place

    target = place(env)
    lines = target.read_bytes().splitlines(keepends=True)
    private = "zebra-umbrella-4711 is the door code"
    prompt = {"type": "user", "uuid": "pp1", "sessionId": SID, "timestamp": "2026-01-21T07:00:00Z",
              "message": {"role": "user",
                          "content": f"note this <private>{private}</private> then go on"}}
    echo = {"type": "assistant", "uuid": "pp2", "sessionId": SID,
            "timestamp": "2026-01-21T07:00:01Z",
            "message": {"id": "msg_pp", "model": "claude-x", "role": "assistant",
                        "content": [{"type": "text", "text": "Noted: zebra-umbrella-4711."}]}}
    target.write_bytes(b"".join(lines) + json.dumps(prompt).encode() + b"\n"
                       + json.dumps(echo).encode() + b"\n")
    assert env.vv("backfill").returncode == 0
    note = next(iter(env.notes().values()))
    assert "note this [private] then go on" in note
    assert grep([env.vault, env.state], "zebra-umbrella") == []


# -- by construction -------------------------------------------------------------------------

# The only plain-str fields of the state: vibe-vault's own words, times that
# parsed, checksums and digests, and paths and names it made itself.
PLAIN = {
    "Action": {"kind", "status", "ts", "tool_id"},
    "Command": {"kind", "status", "ts", "tool_id"},
    "Commit": {"ts", "how", "staged_at", "added_at"}, "Rewrite": {"ts"},  # (how: AMENDED, REBASED)
    "Forced": {"ts"},  # (an entry time, as Commit.ts)
    "Staged": {"everything_at", "named_at"},  # (entry times, as Commit.ts)
    "ErrorRec": {"ts"}, "FileChange": {"ops", "digest", "times"},  # (times that parsed)
    "Pending": {"tool_id", "git", "digest", "prints_secrets",
                "masked", "pr", "beside",  # (a command's kind; "create"/"merge"; keys)
                "revert"},  # (one of fold.reverts' RESTORE, STATUS, DIFF)
    # (a checksum of its prompt; times that parsed)
    "Subagent": {"tool_id", "status", "ts", "prompt_key", "side_from", "side_to"},
    "Todo": {"status"}, "Said": {"kind"}, "ModelSwitch": {"ts"},
    "Turn": {"kind", "ts", "left", "rewound_to"},  # (times that parsed; "-": a rewind untimed)
    "Recap": {"ts"},
    "ShellFile": {"kind"},  # (one of fold.shell_files' DELETE, TREE, MOVE, MADE)
    "GitLines": {"ts", "mode"},  # (an entry's time; git's "create" or "delete")
    "Push": {"ts"},  # (the push's entry time, as Commit.ts)
    "Fork": {"ts"},  # (the entry time the branch was made, as Commit.ts)
    "AgentFold": {"first_ts", "last_ts", "usage", "settled"},
    "Fold": {"first_ts", "last_ts", "plan_last_ts", "learned", "shared", "lines_key", "usage",
             "settled", "progress", "pending", "recent_tools", "todos_waiting_id", "tasks", "copied_usage",
             "copied_settled", "side_chains",  # (checksums of uuids)
             "permission_mode",  # (one of commands.PERMISSION_MODES, or "other")
             "ended_by",  # (a value of fold.context.ENDING_COMMANDS, or "")
             "git_moved",  # (an entry's time, as last_ts: when git last moved HEAD)
             "removed_trees"},  # (entry times, keyed by a Redacted folder)
    "LeftRunning": {"kind", "status", "tool_id", "ts", "until"},
    "SessionState": {"session_id", "note", "project", "status", "agents", "durations",
                     "previous", "next", "continues", "continued_by", "user_notes",
                     "user_pending", "started_hint"},  # (user_*: the user's own words)
    "_Kept": {"session_id", "note", "project", "status", "user_notes", "user_pending"},
}


def test_every_text_field_of_the_state_is_redacted_by_type() -> None:
    """A new field that holds text must be typed Redacted (so mypy refuses a
    transcript string that did not pass the gate), or be added here, knowingly."""
    import typing

    import msgspec

    from vibe_vault import state

    for name in dir(state):
        cls = getattr(state, name)
        if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)
                and cls.__module__ == state.__name__):
            continue
        for field_name, hint in typing.get_type_hints(cls).items():
            holds_str = hint is str or str in typing.get_args(hint)
            if holds_str:
                assert field_name in PLAIN.get(name, set()), f"{name}.{field_name} is a plain str"


def test_values_read_from_a_secrets_file_are_kept_out_when_they_come_back() -> None:
    """Hand-written: Claude reads .env, then says one of its values in prose,
    and a later command uses it; `export` teaches a value the same way."""
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    def entry(kind: str, i: int, **fields: Any) -> bytes:
        return json.dumps({"type": kind, "uuid": f"e{i}",
                           "timestamp": f"2026-01-01T00:00:0{i}Z", **fields}).encode()

    lines = [
        entry("assistant", 1, message={"id": "m1", "model": "claude-x", "role": "assistant",
              "content": [{"type": "tool_use", "id": "r1", "name": "Read",
                           "input": {"file_path": "/srv/app/.env"}}]}),
        entry("user", 2, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "r1", "content": "(file)"}]},
            toolUseResult={"type": "text", "file": {"filePath": "/srv/app/.env",
                                                    "content": "PAYMENT_KEY=Zq8wPlumbus77\n"}}),
        entry("user", 3, message={"role": "user",
                                  "content": "export SHIP_TOKEN=Gl1pGl0p88x then deploy"}),
        entry("assistant", 4, message={"id": "m2", "model": "claude-x", "role": "assistant",
              "content": [{"type": "text",
                           "text": "Used Zq8wPlumbus77 and Gl1pGl0p88x as asked."}]}),
    ]
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in lines])
    note = render(state)
    assert "Zq8wPlumbus77" not in note and "Gl1pGl0p88x" not in note
    assert "Used [REDACTED:learned] and [REDACTED:learned] as asked." in note
    assert "Zq8w" not in json.dumps(str(state))


# -- no ungated path ---------------------------------------------------------------------


def _every_redacted_field(cls: type, secret: str, depth: int = 0) -> Any:
    """An instance of the Struct `cls` with `secret` in every field whose type
    holds a Redacted text (one element in each container). Written apart from
    the walker it checks: a field type it cannot fill fails the test."""
    import types
    import typing

    import msgspec

    from vibe_vault.redact import Redacted

    def value(hint: Any) -> Any:
        if hint is Redacted:
            return Redacted(f"said {secret} here")
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is list:
            return [value(args[0])]
        if origin is dict:
            key = value(args[0]) if args[0] is Redacted else "k"
            return {key: value(args[1])}
        if origin in (typing.Union, types.UnionType):
            inner = [a for a in args if a is not type(None)]
            return value(inner[0]) if depth < 2 else None
        if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
            return _every_redacted_field(hint, secret, depth + 1)
        if hint in (int, float, bool):
            return hint()
        if hint is str:
            return ""
        if hint is bytes:  # (line fingerprints, never text: linediff)
            return b""
        raise AssertionError(f"no value for a field of type {hint!r}: cover it in the walker")

    fields = {}
    for f in msgspec.structs.fields(cls):
        if f.required or "Redacted" in repr(f.type) or (
                isinstance(f.type, type) and issubclass(f.type, msgspec.Struct)):
            fields[f.name] = value(typing.get_type_hints(cls)[f.name])
    return cls(**fields)


def test_a_secret_learned_late_leaves_no_field_of_the_state() -> None:
    """Every field the state's types say holds gated text is walked when a
    secret is learned: a state with the secret in all of them keeps none."""
    import msgspec

    from vibe_vault.fold.context import Context, scrub
    from vibe_vault.redact import DEFAULT
    from vibe_vault.state import SessionState

    secret = "Zq8wPlumbus77Late"
    state = _every_redacted_field(SessionState, secret)
    assert secret.encode() in msgspec.json.encode(state)
    Context(state.fold, DEFAULT).learn([secret])
    scrub(state, SessionState, set(state.fold.learned))
    assert secret.encode() not in msgspec.json.encode(state)
    assert state.fold.redactions > 0


def _session(sid: str, cwd: str, entries: list[dict[str, Any]]) -> str:
    out = []
    for i, e in enumerate(entries):
        out.append(json.dumps({"uuid": f"{sid[:8]}-{i}", "sessionId": sid, "cwd": cwd,
                               "timestamp": f"2026-01-01T00:00:{i:02d}Z", **e}))
    return "\n".join(out) + "\n"


def _assistant(i: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"id": f"m{i}", "model": "claude-x",
            "role": "assistant", "content": list(blocks),
            "usage": {"input_tokens": 1, "output_tokens": 1}}}


def _result(tid: str, content: str, error: bool = False, **extra: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if error:
        block["is_error"] = True
    return {"type": "user", "message": {"role": "user", "content": [block]}, **extra}


def test_no_ungated_path_provisional_late_learned_written_env_and_cut_errors(env: Env) -> None:
    """The Stop hook's answer (learned and private words), a value first seen
    in a command's description then exported, a .env written with the Write
    tool, an error whose token sits where the text is cut, a subagent's
    .meta.json: none leaves a trace in note, state, database or `vv show`."""
    slug = env.claude / "projects" / "-tmp-gate"
    slug.mkdir(parents=True)
    sid = "0badc0de-0000-4000-8000-000000000027"
    late, envval, private = "Kx9LateSecret42", "Wr1teEnvValue77", "pomegranate-door-4711"
    token = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"
    entries = [
        {"type": "user", "message": {"role": "user",
                                     "content": f"deploy; <private>{private}</private>"}},
        _assistant(1, {"type": "tool_use", "id": "t1", "name": "Bash",
                       "input": {"command": "ls", "description": f"check {late} works"}}),
        _result("t1", "ok", toolUseResult={"stdout": "ok", "stderr": ""}),
        _assistant(2, {"type": "tool_use", "id": "t2", "name": "Write",
                       "input": {"file_path": "/tmp/gate/.env",
                                 "content": f"APP_SETTING={envval}\n"}}),
        _result("t2", "File created"),
        _assistant(3, {"type": "tool_use", "id": "t3", "name": "Bash",
                       "input": {"command": "false"}}),
        _result("t3", "Exit code 1\n" + "x" * 390 + token, error=True),
        _assistant(4, {"type": "tool_use", "id": "t4", "name": "Bash",
                       "input": {"command": f"export DB_PASSWORD={late}"}}),
        _result("t4", "", toolUseResult={"stdout": "", "stderr": ""}),
        _assistant(5, {"type": "text", "text": "Done."}),
    ]
    path = slug / f"{sid}.jsonl"
    path.write_text(_session(sid, "/tmp/gate", entries))
    sub = slug / sid / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.jsonl").write_text(_session(sid, "/tmp/gate", [
        {**_assistant(9, {"type": "text", "text": "sub"}), "isSidechain": True,
         "agentId": "a1"}]))
    (sub / "agent-a1.meta.json").write_text(json.dumps(
        {"agentType": "general", "description": f"use {late} and {envval}"}))
    # The answer gives a secret away itself, then says it bare.
    own = "Hq7ProvisionalPw3"
    answer = (f"Used {late}, {envval} and {private} as asked. Then `export "
              f"HP_PASSWORD={own}`; later {own} again.")
    r = env.hook({"hook_event_name": "Stop", "session_id": sid, "transcript_path": str(path),
                  "cwd": "/tmp/gate", "last_assistant_message": answer})
    assert r.returncode == 0, r.stderr
    note = next(iter(env.notes().values()))
    assert "provisional" in note  # the answer is shown, gated
    assert env.vv("index").returncode == 0
    # (`vv` as a process for the first; the rest in this process: test_in_process)
    problems = {s: env.traces(s, sid, here=i > 0)
                for i, s in enumerate((late, envval, private, token, token[:20], own))}
    assert not any(problems.values()), problems
