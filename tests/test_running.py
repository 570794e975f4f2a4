"""What the client lists running on Stop and SubagentStop (`background_tasks`,
`session_crons`, Claude Code 2.1.145+; seen with the real clients 2.1.197 and
2.1.332 in tests/client/test_client_background.py) is an open thread of the
note until a later Stop no longer lists it, and keeps backfill from ending
the session as idle meanwhile.

Generated: sessions whose transcript grows (background commands started,
notified, stopped; prompts scheduled, cancelled: the `Script` of
test_left_running) between Stop and SubagentStop events whose lists name
some of those jobs, jobs of their own, malformed entries and secrets. The
oracle is a model kept from the generated inputs alone: the last Stop's
lists (SubagentStops since adding to them), less what the transcript names,
beside what the transcript left running; each checked end to end through
`vv hook` as a subprocess, and the planted secrets through `Env.traces`.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process, open_threads
from test_left_running import SID, Script
from vibe_vault import running

CWD = "/work/app"
SCHEDULES = ["*/5 * * * *", "0 9 * * 1-5", "30 14 28 2 *"]
SECRET = "ghp_" + "Q7r2K9x4M1" * 3 + "z8W5v3"  # a GitHub token: the redactor knows its form


HIDDEN = "<hidden>"  # where the note says a secret was redacted, whatever its label


def esc(s: str) -> str:
    """The note's escaping of the few marks generated texts hold."""
    return s.replace("*", "\\*")


class Hooked:
    """The model: what the client listed at the last Stop (and SubagentStops
    since), keyed as the client keys it."""

    def __init__(self) -> None:
        self.tasks: dict[str, tuple[str, str, str]] = {}  # id -> (type, description, command)
        self.crons: dict[str, tuple[str, str, bool]] = {}  # id -> (schedule, prompt, recurring)

    def take(self, tasks: dict[str, tuple[str, str, str]],
             crons: dict[str, tuple[str, str, bool]], whole: bool) -> None:
        if whole:
            self.tasks, self.crons = dict(tasks), dict(crons)
        else:
            self.tasks = {**tasks, **self.tasks}
            self.crons = {**crons, **self.crons}

    def lines(self, script: Script) -> list[str]:
        """The open threads the note shows: the transcript's first, then the
        client's the transcript does not name."""
        known_tasks = {f"b{i}task" for i in script.started} | {f"m{i}task" for i in script.watched}
        known_jobs = {f"c{i}job" for i in script.created}
        # The transcript's last wakeup (fired or not; a stop ends it) is the
        # one a cron of its prompt lists.
        wakeups = {script.wakeup[0]} if script.wakeup else set()
        out = [f"- [ ] `{c}` *(left running in the background)*"
               for _, c in sorted(script.running.items())]
        out += [f"- [ ] Monitor: {d} *(left running in the background)*"
                for d in script.monitors.values()]
        waiting = script.waiting_wakeup()
        if waiting:
            at = time.strftime("%H:%M", time.gmtime(waiting[1]))  # (Env's zone is UTC)
            out.append(f"- [ ] Wake-up: {waiting[0]} (at {at}) *(scheduled, not yet fired)*")
        out += [f"- [ ] Scheduled: {p} (Every 5 minutes) *(still scheduled when the session "
                "ended)*" for _, p in sorted(script.scheduled.items())]
        for tid, (kind, description, command) in self.tasks.items():
            if tid in known_tasks:
                continue
            if kind == "shell":
                out.append(f"- [ ] `{command}` *(left running in the background)*")
            elif kind == "monitor":
                out.append(f"- [ ] Monitor: {description} *(left running in the background)*")
            else:
                out.append(f"- [ ] {description} *(running in the background)*")
        for cid, (schedule, prompt, recurring) in self.crons.items():
            if cid in known_jobs or (not recurring and prompt in wakeups):
                continue
            when = schedule if recurring else f"once: {schedule}"
            out.append(f"- [ ] Scheduled: {prompt} ({esc(when)}) *(still scheduled when the "
                       "session ended)*")
        return out


def threads(note: str) -> list[str]:
    """The note's open threads, a redaction marker read as HIDDEN, in order."""
    return [re.sub(r"\\?\[REDACTED:[^]\\]*\\?\]", HIDDEN, ln) for ln in open_threads(note)
            if not ln.startswith("- [ ] Claude is still at work")]  # (a turn unanswered: not ours)


TASK = st.tuples(st.integers(0, 5), st.sampled_from(["shell", "monitor", "local_agent"]),
                 st.booleans())
CRON = st.tuples(st.integers(0, 5), st.sampled_from(SCHEDULES), st.booleans(), st.booleans())
MALFORMED = st.sampled_from([None, 3, "x", [], {"type": "shell"}, {"id": 7}, {"id": ""}])
STOP = st.tuples(st.sampled_from(["Stop", "Stop", "SubagentStop"]),
                 st.lists(TASK, max_size=4), st.lists(CRON, max_size=3),
                 st.lists(MALFORMED, max_size=2))
OP = st.sampled_from(["start", "notify", "stop", "schedule", "cancel", "monitor",
                      "monitor-ends", "wakeup"])
STEPS = st.lists(st.one_of(st.tuples(st.just("grow"), st.lists(st.tuples(OP, st.integers(0, 3)),
                                                                min_size=1, max_size=4)),
                           st.tuples(st.just("hook"), STOP)), min_size=1, max_size=7)


def _task(i: int, kind: str, secret: bool) -> tuple[str, dict[str, Any], tuple[str, str, str]]:
    """Task i: ids b0task..b3task are the transcript's commands' ids; b4, b5 its own."""
    tid = f"m{i}task" if kind == "monitor" else f"b{i}task"
    description = f"watch log {i}"
    command = f"tail -f log{i}" if kind != "monitor" else f"watch-{i}"
    raw = {"id": tid, "type": kind, "status": "running", "description": description,
           "command": command + (f" --token {SECRET}" if secret else "")}
    return tid, raw, (kind, description, command + (" --token " + HIDDEN if secret else ""))


def test_listed_is_bounded_and_tolerant() -> None:
    long = "x" * 100_000  # (one string for all: 5,000 of them were 500 MB and a second)
    many = [{"id": f"t{i}", "type": "shell", "command": long} for i in range(5000)]
    found = running.listed({"background_tasks": [*many, 3, None],
                            "session_crons": {"not": "a list"}})
    assert found is not None
    assert len(found.tasks) == running.MAX_LISTED
    assert found.more == 5002 - running.MAX_LISTED
    assert found.malformed == 1  # the crons that were no list
    assert all(len(c) <= running.RAW_CHARS for t in found.tasks for c in t)
    assert running.listed({"hook_event_name": "Stop"}) is None


@settings(max_examples=examples(50, 200), deadline=None)
@given(st.dictionaries(st.sampled_from(["background_tasks", "session_crons", "other"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                                    lambda c: st.lists(c, max_size=4)
                                    | st.dictionaries(st.sampled_from(
                                        ["id", "type", "status", "command", "description",
                                         "schedule", "prompt", "recurring"]), c, max_size=5),
                                    max_leaves=12)))
def test_any_shape_is_read_or_counted(event: dict[str, Any]) -> None:
    found = running.listed(event)
    tasks, crons = event.get("background_tasks"), event.get("session_crons")
    if tasks is None and crons is None:
        assert found is None
        return
    assert found is not None

    def good(x: Any) -> bool:
        return isinstance(x, dict) and isinstance(x.get("id"), str) and bool(x["id"])

    bad = sum(1 for lst in (tasks, crons) if lst is not None and not isinstance(lst, list))
    bad += sum(1 for lst in (tasks, crons) if isinstance(lst, list) for x in lst if not good(x))
    assert found.malformed == bad
    ended = sum(1 for x in tasks if good(x) and isinstance(x.get("status"), str)
                and x["status"].lower() in running.ENDED) if isinstance(tasks, list) else 0
    assert len(found.tasks) == (sum(map(good, tasks)) - ended if isinstance(tasks, list) else 0)
    assert len(found.crons) == (sum(map(good, crons)) if isinstance(crons, list) else 0)


@settings(max_examples=examples(6, 30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_the_note_shows_what_the_client_lists(tmp_path_factory: Any,
                                              steps: list[tuple[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("listed"))
    here = in_process("listed_running note")
    folder = env.claude / "projects" / "-work-app"
    folder.mkdir(parents=True)
    path = folder / f"{SID}.jsonl"
    script = Script()
    script._line("user", "keep an eye on the build")
    script._line("assistant", [{"type": "text", "text": "On it."}])
    model = Hooked()
    planted = False
    hooked = False

    def write() -> None:
        for o in script.lines:
            o["cwd"] = CWD
        path.write_text("".join(json.dumps(o) + "\n" for o in script.lines))

    write()
    for what, arg in steps:
        if what == "grow":
            for op, i in arg:
                script.op(op, i)
            write()
            continue
        name, tasks, crons, junk = arg
        raw_tasks: list[Any] = []
        want_tasks: dict[str, tuple[str, str, str]] = {}
        for i, kind, secret in tasks:
            tid, raw, want = _task(i, kind, secret)
            planted |= secret
            if tid not in want_tasks:
                raw_tasks.append(raw)
                want_tasks[tid] = want
        raw_crons: list[Any] = []
        want_crons: dict[str, tuple[str, str, bool]] = {}
        for i, schedule, recurring, secret in crons:
            cid = f"c{i}job"
            # A wakeup is listed as a cron that fires once, under an id of its own.
            prompt = f"poll ci {i % 4}" if i >= 4 and not recurring else f"check build {i}"
            cid = f"w{i}job" if prompt.startswith("poll") else cid
            planted |= secret
            if cid not in want_crons:
                raw_crons.append({"id": cid, "schedule": schedule, "recurring": recurring,
                                  "prompt": prompt + (f" with {SECRET}" if secret else "")})
                want_crons[cid] = (schedule, prompt + (" with " + HIDDEN if secret else ""),
                                   recurring)
        raw_tasks[:0] = junk  # malformed entries: counted, the rest still read
        event = {"hook_event_name": name, "session_id": SID, "transcript_path": str(path),
                 "cwd": CWD, "last_assistant_message": "Working on it.",
                 "background_tasks": raw_tasks, "session_crons": raw_crons,
                 **({"agent_id": "a1", "agent_type": "Explore"}
                    if name == "SubagentStop" else {})}
        r = env.hook_here(event) if here else env.hook(event)
        assert r.returncode == 0 and r.stdout == b"", r.stderr
        hooked = True
        model.take(want_tasks, want_crons, name == "Stop")
        (note,) = env.notes().values()
        assert sorted(threads(note)) == sorted(model.lines(script)), (steps, note)
    if not hooked:
        return
    # Backfill ends a session whose last entry is old as idle, unless the
    # client last said something of it runs on.
    assert (env.vv_here("backfill") if here else env.vv("backfill")).returncode == 0
    (note,) = env.notes().values()
    waiting = bool(model.tasks or model.crons)
    assert frontmatter(note)["status"] == ("active" if waiting else "ended"), steps
    if planted:
        assert env.traces(SECRET, SID, here=here) == []


def test_an_old_client_changes_nothing_and_an_empty_stop_clears(env: Env) -> None:
    folder = env.claude / "projects" / "-work-app"
    folder.mkdir(parents=True)
    path = folder / f"{SID}.jsonl"
    script = Script()
    script._line("user", "watch the logs")
    script._line("assistant", [{"type": "text", "text": "Watching."}])
    for o in script.lines:
        o["cwd"] = CWD
    path.write_text("".join(json.dumps(o) + "\n" for o in script.lines))
    base = {"hook_event_name": "Stop", "session_id": SID, "transcript_path": str(path),
            "cwd": CWD}
    _, task, _ = _task(5, "shell", False)
    assert env.hook({**base, "background_tasks": [task], "session_crons": []}).returncode == 0
    line = "- [ ] `tail -f log5` *(left running in the background)*"
    assert threads(next(iter(env.notes().values()))) == [line]
    assert env.hook(base).returncode == 0  # a client before 2.1.145: no lists, nothing known
    assert threads(next(iter(env.notes().values()))) == [line]
    assert env.hook({**base, "background_tasks": "garbage"}).returncode == 0
    assert threads(next(iter(env.notes().values()))) == [line]
    assert env.hook({**base, "background_tasks": [], "session_crons": []}).returncode == 0
    assert threads(next(iter(env.notes().values()))) == []
