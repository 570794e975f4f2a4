"""Issue 29: the lines a person reads first, on transcripts made here.

Each test writes a small transcript in Claude Code's shape from generated
parts (subjects, file contents, commands, command arguments), folds it, and
checks what the note holds against those parts themselves: the sha printed
beside a commit's subject, the lines that differ between two contents, the
command after its assignments, the words of a slash command's arguments.
"""

from __future__ import annotations

import json
import shlex
from itertools import count
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process
from function_words import FUNCTION
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.fold.titles import TOPICLESS_COMMANDS
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

SID = "0b1c2d3e-0000-4000-8000-000000000001"
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
phrase = st.lists(words, min_size=2, max_size=7).map(" ".join)
sha = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)


class Transcript:
    """Lines of one session, each with the next second's time and its own uuid."""

    def __init__(self, sid: str = SID, cwd: str = "/work/app", hour: int = 10) -> None:
        self.sid, self.cwd, self.hour = sid, cwd, hour
        self.lines: list[dict[str, Any]] = []
        self.clock = count()
        self.ids = count(1)

    def _base(self, kind: str) -> dict[str, Any]:
        n = next(self.clock)
        uuid = f"{self.sid[:8]}-0000-4000-8000-{next(self.ids):012d}"
        parent = self.lines[-1].get("uuid") if self.lines else None
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": self.sid,
                "cwd": self.cwd, "version": "2.1.50",
                "timestamp": f"2026-03-01T{self.hour}:{n // 60:02d}:{n % 60:02d}.000Z"}

    def prompt(self, text: str) -> None:
        self.lines.append({**self._base("user"), "message": {"role": "user", "content": text}})

    def slash(self, name: str, args: str) -> None:
        self.prompt(f"<command-message>{name}</command-message>\n<command-name>/{name}"
                    f"</command-name>\n<command-args>{args}</command-args>")

    def say(self, text: str) -> None:
        self.lines.append({**self._base("assistant"), "message": {
            "id": f"msg_{len(self.lines)}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})

    def on_branches(self, branches: list[str]) -> None:
        """A prompt and an answer on each branch in turn (both lines carry it)."""
        for n, branch in enumerate(branches):
            self.prompt(f"step {n}")
            self.lines[-1]["gitBranch"] = branch
            self.say("done")
            self.lines[-1]["gitBranch"] = branch

    def call(self, name: str, inp: dict[str, Any], result: Any, text: str = "",
             error: bool = False) -> None:
        tid = f"toolu_{len(self.lines):04d}"
        self.lines.append({**self._base("assistant"), "message": {
            "id": f"msg_{len(self.lines)}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": text}
        if error:
            block["is_error"] = True
        line = {**self._base("user"), "message": {"role": "user", "content": [block]}}
        if result is not None:
            line["toolUseResult"] = result
        self.lines.append(line)

    def write_file(self, path: str, content: str, before: str | None = None,
                   text: str = "ok", patch: list[dict[str, Any]] | None = None) -> None:
        """A Write of `content` to `path` with the result Claude Code records:
        a create, or an update of `before` (the file's content until then)
        with its hunks (`patch`; none given: an empty patch)."""
        result: dict[str, Any] = {"type": "create", "filePath": path, "content": content,
                                  "structuredPatch": patch or []}
        if before is not None:
            result.update(type="update", originalFile=before)
        self.call("Write", {"file_path": path, "content": content}, result, text)

    def bash(self, command: str, stdout: str = "", description: str = "",
             background: bool = False) -> None:
        inp: dict[str, Any] = {"command": command}
        if description:
            inp["description"] = description
        if background:
            inp["run_in_background"] = True
        self.call("Bash", inp, {"stdout": stdout, "stderr": "", "interrupted": False}, stdout)

    def raw(self, obj: dict[str, Any]) -> None:
        self.lines.append({**self._base(obj["type"]), **obj})

    def encoded(self) -> list[bytes]:
        return [json.dumps(x).encode() for x in self.lines]

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join(self.encoded()) + b"\n")

    def note(self, tmp_path_factory: Any, test: str) -> str:
        """The session's note: for `test`'s first case written by `vv backfill`
        in a home of its own, as the user sees it; for the others rendered in
        this process alike (conftest.in_process)."""
        if in_process(test):
            return render(self.state())
        env = Env(Path(str(tmp_path_factory.mktemp("note"))))
        self.write(env.claude / "projects" / self.cwd.replace("/", "-") / f"{self.sid}.jsonl")
        r = env.vv("backfill")
        assert r.returncode == 0, r.stderr
        return next(p for p in env.vault.rglob("*.md")
                    if self.sid[:8] in p.name).read_text(encoding="utf-8")

    def state(self) -> SessionState:
        f = fold(Fold(), (decode_line(x) for x in self.encoded()))
        return SessionState(session_id=self.sid, project="app", fold=f)


# -- commits ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(subject=phrase, body=phrase, full=sha, form=st.sampled_from(["F", "m-heredoc", "m"]))
def test_a_quiet_commit_gets_the_sha_later_output_prints_beside_its_subject(
        subject: str, body: str, full: str, form: str) -> None:
    t = Transcript()
    t.prompt("commit it")
    if form == "F":
        command = f"git add -A && git commit -q -F - <<'MSG'\n{subject}\n\n{body}\nMSG"
    elif form == "m-heredoc":
        command = f"git commit -q -m \"$(cat <<'EOF'\n{subject}\n\n{body}\nEOF\n)\""
    else:
        command = f"git commit -q -m {shlex.quote(subject)}"
    t.bash(command)  # -q: git prints nothing
    t.bash("git log --oneline -3", f"{full[:7]} {subject}\n{'1' * 7} an older one\n")
    t.say("Committed.")
    commits = t.state().fold.commits
    assert [(c.sha, c.subject) for c in commits] == [(full[:7], subject)]


@settings(max_examples=20, deadline=None)
@given(subject=phrase, other=phrase, full=sha)
def test_a_commit_is_not_named_by_a_line_of_another_subject(
        subject: str, other: str, full: str) -> None:
    t = Transcript()
    t.prompt("commit it")
    t.bash(f"git commit -q -F - <<'MSG'\n{subject}\nMSG")
    t.bash("git log --oneline -1", f"{full[:7]} {other}x\n")
    assert [c.sha for c in t.state().fold.commits] == [""]


# -- files -----------------------------------------------------------------------------

text_lines = st.lists(words, min_size=1, max_size=30)


def _content(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(lines=text_lines, with_result=st.booleans())
def test_writing_a_file_as_it_was_adds_nothing(lines: list[str], with_result: bool) -> None:
    """A Write of the content the file already had: result `update` with an
    empty patch, or no result at all after the session wrote those bytes."""
    path = "/work/app/notes.txt"
    content = _content(lines)
    t = Transcript()
    t.prompt("write the notes")
    if with_result:
        t.write_file(path, content, text="File created")
        t.write_file(path, content, before=content, text="File updated")
    else:
        t.call("Write", {"file_path": path, "content": content}, None, "File created")
        t.call("Write", {"file_path": path, "content": content}, None, "File updated")
    change = t.state().fold.files[path]  # type: ignore[index]
    assert (change.added, change.removed) == (len(lines), 0)


@settings(max_examples=40, deadline=None)
@given(before=text_lines, after=text_lines)
def test_a_rewrite_counts_its_patch(before: list[str], after: list[str]) -> None:
    import difflib

    path = "/work/app/notes.txt"
    old, new = _content(before), _content(after)
    diff = [x for x in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="")
            if not x.startswith(("---", "+++", "@@"))]
    t = Transcript()
    t.prompt("write the notes")
    t.write_file(path, old)
    t.write_file(path, new, before=old, patch=[{"lines": diff}] if diff else [])
    state = t.state()
    plus = sum(1 for x in diff if x.startswith("+"))
    minus = sum(1 for x in diff if x.startswith("-"))
    # The rewrite itself counts its patch; the file, created in the session,
    # counts its last content's lines (net of the session's own rewrites).
    edits = [a for turn in state.fold.turns for a in turn.actions if a.kind == "edit"]
    assert (sum(a.added for a in edits), sum(a.removed for a in edits)) == (
        len(before) + plus, minus)
    change = state.fold.files[path]  # type: ignore[index]
    assert (change.added, change.removed) == (len(after), 0)


# -- commands, errors ------------------------------------------------------------------

name = st.from_regex(r"[A-Z][A-Z0-9_]{0,6}", fullmatch=True)
value = st.from_regex(r"[a-z0-9/~._-]{1,12}", fullmatch=True)


@settings(max_examples=examples(20, 60), deadline=None)
@given(assignments=st.lists(st.tuples(name, value), min_size=1, max_size=3),
       program=words, arg=words, glue=st.sampled_from(["; ", " && ", "\n", " "]))
def test_a_command_is_told_by_what_runs_after_its_assignments(
        assignments: list[tuple[str, str]], program: str, arg: str, glue: str) -> None:
    sets = " ".join(f"{k}={v}" for k, v in assignments)
    t = Transcript()
    t.prompt("run it")
    t.bash(f"{sets}{glue}{program} {arg}")
    assert t.state().fold.commands[0].command == f"{program} {arg}"


@settings(max_examples=30, deadline=None)
@given(message=phrase, warning=phrase)
def test_a_failure_is_headed_by_its_error_not_a_warning(message: str, warning: str) -> None:
    t = Transcript()
    t.prompt("build it")
    t.call("Bash", {"command": "npm run build"}, None,
           f"Exit code 1\nnpm warn {warning}\nerror: {message}\nmore", error=True)
    t.call("Edit", {"file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"},
           None, f"<tool_use_error>{message}</tool_use_error>", error=True)
    errors = t.state().fold.errors
    assert errors[0].text.splitlines()[0] == f"error: {message}"
    assert errors[1].text == message


# -- what the user asked, and what happened around it ---------------------------------


@settings(max_examples=40, deadline=None)
# A command of the user's or a plugin's: Claude Code's own topicless ones (`/bug
# <report>` files a report to Anthropic) are never a title, arguments or not.
@given(command=words.filter(lambda w: f"/{w}" not in TOPICLESS_COMMANDS), args=phrase,
       later=phrase)
def test_a_slash_command_with_arguments_is_the_request(
        command: str, args: str, later: str) -> None:
    t = Transcript()
    t.slash(command, args)
    t.say("On it.")
    t.prompt(f"Thanks! Please {later}")
    t.say("Done.")
    state = t.state()
    # (a command named by a function word, `/she`, leads in like "so:" and is
    # left out as the title's lead-in, as test_titles draws it: the arguments,
    # capitalised; a thorough draw found it)
    bare = args[:1].upper() + args[1:]
    assert title_of(state) in ({f"{command}: {args}"[:80].rstrip()}
                               | ({bare[:80].rstrip()} if command in FUNCTION else set()))
    assert state.fold.prompts == 2
    assert "prompts: 2" in render(state)


def test_a_built_in_command_with_a_setting_is_no_request() -> None:
    t = Transcript()
    t.slash("model", "opus")
    t.prompt("<local-command-stdout>Set model to \x1b[1mopus (claude-opus-4-5)\x1b[22m"
             "</local-command-stdout>")
    t.prompt("fix the login redirect")
    t.say("Fixed.")
    state = t.state()
    assert title_of(state) == "fix the login redirect"
    assert state.fold.prompts == 1
    assert state.fold.turns[0].detail == "Set model to opus (claude-opus-4-5)"


@settings(max_examples=20, deadline=None)
@given(model=st.sampled_from(["Sonnet 4", "Haiku 3.5"]), ask=phrase)
def test_a_model_switch_is_told_where_it_happened(model: str, ask: str) -> None:
    t = Transcript()
    t.prompt(ask)
    t.raw({"type": "system", "content": f"Claude Opus 4 limit reached, now using {model}",
           "isMeta": False, "level": "warning"})
    t.say("Done.")
    actions = t.state().fold.turns[0].actions
    assert [a.text for a in actions if a.kind == "model"] == [
        f"Claude Opus 4 limit reached, now using {model}"]


def test_a_background_command_is_not_said_to_have_finished() -> None:
    t = Transcript()
    t.prompt("start the server")
    t.bash("pnpm dev", "Command running in background with ID: 1", "Start the dev server",
           background=True)
    t.say("Started.")
    state = t.state()
    assert state.fold.commands[0].status == "background"
    assert state.fold.turns[0].actions[0].status == "background"


# -- a session's summary, written in the next session's file ---------------------------


def test_a_summary_in_the_next_sessions_file_titles_the_session(env: Env) -> None:
    """Claude Code 1.0 writes a session's summary at the top of the next
    session's file, naming the summarised session's last entry: the note of
    the summed-up session takes it as its title, once that file arrives."""
    folder = env.claude / "projects" / "-work-app"
    first = Transcript("11111111-0000-4000-8000-000000000001")
    first.prompt("Thanks! Please look at the thing")
    first.say("Looked at it.")
    first.write(folder / f"{first.sid}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    (note,) = env.notes().values()
    assert frontmatter(note)["title"] == "Thanks! Please look at the thing"

    second = Transcript("22222222-0000-4000-8000-000000000002", hour=11)
    second.lines.append({"type": "summary", "summary": "Login Redirect Fix After OAuth",
                         "leafUuid": first.lines[-1]["uuid"]})
    second.prompt("and now the logout")
    second.say("Done.")
    second.write(folder / f"{second.sid}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    titles = {str(frontmatter(n)["session_id"]): str(frontmatter(n)["title"])
              for n in env.notes().values()}
    assert titles == {first.sid: "Login Redirect Fix After OAuth",
                      second.sid: "and now the logout"}
    project = (env.vault / "Projects" / "app" / "app.md").read_text(encoding="utf-8")
    assert "Login Redirect Fix After OAuth" in project


# -- times in the user's zone; sessions named as people type them --------------------------


@settings(max_examples=5, deadline=None)
@given(zone_name=st.sampled_from(["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"]),
       configured=st.booleans())
def test_times_are_told_in_the_users_zone(tmp_path_factory: Any, zone_name: str,
                                          configured: bool) -> None:
    """The configured `timezone`, else the system's (TZ): the frontmatter keeps
    ISO 8601 with that zone's offset, the story its wall-clock times."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    env = Env(tmp_path_factory.mktemp("tz"))
    env.here = in_process("headlines zone")
    if configured:
        env.configure(f'timezone = "{zone_name}"\n')
    else:
        env.env["TZ"] = zone_name
    t = Transcript()
    t.prompt("what time is it")
    t.say("Late.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    first = datetime.fromisoformat(t.lines[0]["timestamp"]).astimezone(ZoneInfo(zone_name))
    assert f"\nstarted: {first.replace(microsecond=0).isoformat()}\n" in note
    assert f"\n### {first:%H:%M} · Prompt\n" in note
    assert f"**Started** {first:%Y-%m-%d %H:%M} {first.tzname()}" in note


def test_a_zone_that_does_not_exist_is_reported(env: Env) -> None:
    env.configure('timezone = "Mars/Olympus"\n')
    r = env.vv("config", "show")
    assert b"Mars/Olympus" in r.stderr + r.stdout


def test_sessions_are_named_as_people_type_them(env: Env) -> None:
    """Any case; fewer than 8 characters asks for 8; a session where nothing
    was asked (a bare `/model`) is said to have no note, not to be unknown."""
    t = Transcript("abcdef12-0000-4000-8000-000000000001")
    t.prompt("hello")
    t.say("Hi.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    silent = Transcript("fedcba98-0000-4000-8000-000000000002", hour=11)
    silent.slash("model", "")
    silent.write(env.claude / "projects" / "-work-app" / f"{silent.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    for typed in (t.sid, t.sid.upper(), t.sid[:8].upper(), f"  {t.sid[:10]} "):
        r = env.vv("show", "--path", typed)
        env.here = True  # (`vv` as a process for the first; in this one: test_in_process)
        assert r.returncode == 0, (typed, r.stderr)
        assert r.stdout.decode().strip().endswith(f"{t.sid[:8]}.md")
    r = env.vv("resume", t.sid[:8].upper())
    assert r.returncode == 0 and t.sid in r.stdout.decode()
    for short in ("a", "abc", "ABCDEF1"):
        r = env.vv("show", short)
        assert r.returncode == 2 and b"at least 8 characters" in r.stderr, r.stderr
    r = env.vv("show", silent.sid[:8])
    assert r.returncode == 2 and b"has no note" in r.stderr, r.stderr
    r = env.vv("show", "00000000")
    assert r.returncode == 2 and b"no session" in r.stderr, r.stderr
    r = env.vv("show", "0000ABCDEF")
    assert b"'0000ABCDEF'" in r.stderr, r.stderr  # (said as typed: review 27, G14)
    # The note's own name, or its path, names its session (review 27, G14).
    note = next(p for p in env.vault.rglob("*.md") if p.stem.endswith(t.sid[:8]))
    for typed in (note.stem, note.name, str(note), str(note.relative_to(env.vault))):
        r = env.vv("show", "--path", typed)
        assert r.returncode == 0, (typed, r.stderr)
        assert r.stdout.decode().strip().endswith(note.name), (typed, r.stdout)


@settings(max_examples=3, deadline=None)
@given(ask=phrase, same_day=st.booleans())
def test_the_same_title_in_one_project_is_told_apart(tmp_path_factory: Any, ask: str,
                                                     same_day: bool) -> None:
    """Two sessions opened by the same words: each title says its day (its
    minute, when the day is the same); a third, other title stays as it is."""
    env = Env(tmp_path_factory.mktemp("same"))
    env.here = in_process("headlines same title")
    folder = env.claude / "projects" / "-work-app"
    first = Transcript("11111111-0000-4000-8000-000000000001", hour=10)
    second = Transcript("22222222-0000-4000-8000-000000000002", hour=11)
    other = Transcript("33333333-0000-4000-8000-000000000003", hour=12)
    for t, words in ((first, ask), (second, ask), (other, ask + " too")):
        t.prompt(words)
        t.say("Done.")
    if not same_day:
        for x in second.lines:
            x["timestamp"] = x["timestamp"].replace("2026-03-01", "2026-03-02")
    for t in (first, second, other):
        t.write(folder / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    titles = {str(frontmatter(n)["session_id"]): str(frontmatter(n)["title"])
              for n in env.notes().values()}
    def tag(t: Transcript) -> str:
        ts = t.lines[0]["timestamp"]
        return ts[:16].replace("T", " ") if same_day else ts[:10]
    assert titles == {first.sid: f"{ask} ({tag(first)})", second.sid: f"{ask} ({tag(second)})",
                      other.sid: f"{ask} too"}


# -- sessions opened alike ------------------------------------------------------------------

letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@st.composite
def opened_alike(draw: st.DrawFn) -> tuple[str, bool, list[list[str]]]:
    """A shared opening (a first line of 80+ characters, or a short first line
    the requests go on from below it) and two to four rests, each with its own
    first word. (The opening stays within the 400 characters of the first
    request a record keeps to tell sessions apart.)"""
    long_line = draw(st.booleans())
    if long_line:
        opening = " ".join(draw(st.lists(letters, min_size=16, max_size=22)))
        opening = (opening + " and more words to pass eighty characters")[:200].strip()
    else:
        opening = " ".join(draw(st.lists(letters, min_size=2, max_size=5)))
    firsts = draw(st.lists(letters, min_size=2, max_size=4, unique=True))
    rests = [[first, *draw(st.lists(letters, max_size=6))] for first in firsts]
    return opening, long_line, rests


@settings(max_examples=examples(4, 8), deadline=None)
@given(case=opened_alike())
def test_sessions_opened_alike_are_told_apart_by_their_first_distinct_words(
        tmp_path_factory: Any, case: tuple[str, bool, list[list[str]]]) -> None:
    """Same titles (the first line, or its first 80 characters, shared): each
    session's title says the first word its request does not share, and the
    titles the project note, the home note and vv search show are all distinct."""
    opening, long_line, rests = case
    env = Env(tmp_path_factory.mktemp("alike"))
    env.here = in_process("headlines opened alike")
    folder = env.claude / "projects" / "-work-app"
    sessions = []
    for k, rest in enumerate(rests):
        t = Transcript(f"{k + 1:08x}-0000-4000-8000-{k + 1:012d}", hour=10 + k)
        t.prompt(opening + (" " if long_line else "\n") + " ".join(rest))
        t.say("Done.")
        t.write(folder / f"{t.sid}.jsonl")
        sessions.append((t.sid, rest))
    assert env.vv("backfill").returncode == 0
    titles = {str(frontmatter(n)["session_id"]): str(frontmatter(n)["title"])
              for n in env.notes().values()}
    assert len(set(titles.values())) == len(rests), titles
    for sid, rest in sessions:
        # The words after the shared opening, in the brackets the title ends with.
        assert titles[sid].endswith(")"), titles[sid]
        told = titles[sid].rsplit(" (", 1)[1][:-1].split()
        assert told[:2] == ["…", rest[0]], (titles[sid], rest)
        assert set(told) - {"…"} <= set(rest)
    project = (env.vault / "Projects" / "app" / "app.md").read_text(encoding="utf-8")
    home = (env.vault / "index.md").read_text(encoding="utf-8")
    found = json.loads(env.vv("search", "--json", opening.split()[0]).stdout)
    assert {h["session_id"]: h["title"] for h in found} == titles
    from vibe_vault.markdown import cell

    for title in titles.values():
        assert cell(title) in project or title in project, (title, project)
        assert title in home or cell(title) in home


# -- a model switch is told once -------------------------------------------------------------

MODELS = ["claude-opus-4-20250514", "claude-sonnet-4-20250514", "claude-3-5-haiku-20241022"]


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(MODELS), st.booleans(), st.booleans()),
                      min_size=1, max_size=8))
def test_a_model_switch_is_told_once_in_the_story(steps: list[tuple[str, bool, bool]]) -> None:
    """Answers from a generated sequence of models, some after Claude Code's
    "… limit reached, now using …" notice (as 1.0 wrote it: a system line),
    some in new turns: every change of model (read from the answers' own
    `model`) is told exactly once, by the notice when one came before it
    (after the last answer of the old model), else by a *Model* line."""
    t = Transcript()
    t.prompt("start")
    expected_lines: list[str] = []
    notices = 0
    previous = ""
    noticed = False
    for k, (model, new_turn, notice) in enumerate(steps):
        if new_turn and k:
            t.prompt(f"go on {k}")
        if notice:
            t.raw({"type": "system", "content": f"Model limit reached, now using {model} ({k})",
                   "isMeta": False, "level": "warning"})
            notices += 1
            noticed = True
        t.say(f"answer {k}")
        t.lines[-1]["message"]["model"] = model
        if previous and model != previous and not noticed:
            expected_lines.append(f"*Model `{previous}` → `{model}` at 10:00*")
        previous, noticed = model, False
    story = render(t.state()).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    assert [ln for ln in story.splitlines() if ln.startswith("*Model ")] == expected_lines
    assert sum("limit reached, now using" in ln for ln in story.splitlines()) == notices


# -- a failure's headline, wherever in the output it is ----------------------------------------

banner = st.lists(st.sampled_from([
    "============================= test session starts ==============================",
    "platform linux -- Python 3.12.7, pytest-8.4.0", "cachedir: .pytest_cache",
    "rootdir: /work/app", "collecting ... collected 20 items", "Compiling app v0.1.0",
    "test/test_a.py::test_one PASSED [ 5%]", "running 12 tests", "ok 1 - parses",
    "   Checking dependencies"]), min_size=13, max_size=60)


@settings(max_examples=40, deadline=None)
@given(head=banner, failed=words, tail_words=phrase, error_at_top=st.booleans())
def test_a_failures_headline_is_its_error_line_wherever_it_is(
        head: list[str], failed: str, tail_words: str, error_at_top: bool) -> None:
    """A failed command's output opening with a banner longer than the lines
    looked at first and ending with what failed: the note's error starts with
    the failing line (found by the test's own words), not the banner; one whose
    error line is at the top keeps that line."""
    t = Transcript()
    t.prompt("run the tests")
    error_line = f"FAILED test/test_{failed}.py::test_{failed} - {tail_words}"
    body = [error_line, *head] if error_at_top else [*head, error_line, "1 failed in 2.0s"]
    tid = "toolu_fail"
    t.lines.append({**t._base("assistant"), "message": {
        "id": "msg_run", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                     "input": {"command": "pytest -q"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}})
    t.lines.append({**t._base("user"), "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid, "is_error": True,
         "content": "\n".join(body)}]}})
    t.say("One failed.")
    (err,) = t.state().fold.errors
    assert err.text.splitlines()[0] == error_line


# -- other tools and pasted images, as a stranger reads them -----------------------------------


@settings(max_examples=30, deadline=None)
@given(tool=st.sampled_from(["PowerShell", "mcp__github__create_issue", "NewTool"]),
       purposes=st.lists(phrase, min_size=1, max_size=3))
def test_a_tool_call_is_told_by_what_it_was_for(tool: str, purposes: list[str]) -> None:
    """A tool vibe-vault has no words of its own for, called with a
    `description` (PowerShell's, as Bash's): the story says each purpose."""
    t = Transcript()
    t.prompt("check the script")
    for k, purpose in enumerate(purposes):
        t.call(tool, {"command": f"Get-Item x{k}", "description": purpose}, None, "ok")
    t.say("Checked.")
    story = render(t.state()).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    for purpose in purposes:
        # (PowerShell is a shell: its line is a command's, "- <purpose>: `…` — ok")
        assert any(purpose in line for line in story.splitlines()
                   if line.startswith("- Used " if tool != "PowerShell" else "- ")), \
            (purpose, story)


@settings(max_examples=30, deadline=None)
@given(ask=phrase, marked=st.integers(0, 3), extra=st.integers(0, 3))
def test_a_pasted_image_is_told_once(ask: str, marked: int, extra: int) -> None:
    """Images Claude Code marks in the prompt (`[Image #N]`) are not marked
    again; images it does not mark get `[image]` each."""
    t = Transcript()
    text = " ".join(f"[Image #{k + 1}]" for k in range(marked)) + f" {ask}"
    blocks: list[Any] = [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                     "data": "iVBORw0KGgo="}}] * (marked + extra)
    t.lines.append({**t._base("user"), "message": {"role": "user", "content": [
        *blocks, {"type": "text", "text": text.strip()}]}})
    t.say("Seen.")
    prompt = str(t.state().fold.turns[0].text)
    assert prompt.count("[Image #") == marked
    assert prompt.count("[image]") == extra


LABEL_WORDS = st.lists(st.sampled_from(["Batch", "Complete", "Implemented", "Summary", "Changes",
                                        "What", "changed", "Fixed", "Done", "Next"]),
                       min_size=1, max_size=4).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.tuples(LABEL_WORDS, st.booleans()), min_size=1, max_size=3),
       rule=st.booleans(),
       item=st.sampled_from(["Added the retry loop to the fetcher",
                             "Removed the stale cache entries from the store"]))
def test_a_label_or_a_rule_over_a_list_is_never_the_headline(
        labels: list[tuple[str, bool]], rule: bool, item: str) -> None:
    """`**Implemented:**` or `---` over a list names what follows: the
    headline quotes what was done (the list), never the label or the rule."""
    from vibe_vault.figures import headline_sentences

    lines = ["---", ""] if rule else []
    for words, bold in labels:
        lines += [f"**{words}:**" if bold else f"{words}:", ""]
    answer = "\n".join([*lines, f"1. {item}", "2. Kept the old path working"])
    first = headline_sentences(answer)[0]
    assert first.startswith(item), (answer, first)
