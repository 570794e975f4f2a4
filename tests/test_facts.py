"""Fact-check every note of the corpus against its transcript.

`vv backfill` writes a note for every corpus session; each fact below is then
derived here, straight from the JSON of the session's files (main transcript,
subagent files in every layout, inline sidechains, progress lines), written
independently of vv's code, and compared with what the note says.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, Env, blocks, frontmatter, has_assistant, main_files, session_files
from conftest import json_objects as objects
from file_lines import edited, net_lines
from test_corpus import expected_sid
from test_recaps import claude_codes_title, titled_by

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
# A file a command makes from a here-document: `cat > f <<'EOF'`, `tee f <<EOF`
# at the start of a command (its body is in the command's own text).
HEREDOC_FILE = re.compile(r"(?:^|&&|;)\s*(?:cat\s*>|tee(?:\s+-a)?)\s*([^\s<>;&|]+)\s*<<-?\s*"
                          r"['\"]?(\w+)['\"]?\n(.*?)\n\2$", re.M | re.S)


def heredoc_files(command: str, cwd: str) -> dict[str, str]:
    """The files a command's here-documents make, each with what it holds."""
    sep = "\\" if re.match(r"^[A-Za-z]:\\", cwd) else "/"
    return {(m.group(1) if m.group(1).startswith("/") else cwd.rstrip(sep) + sep + m.group(1)):
            m.group(3) + "\n" for m in HEREDOC_FILE.finditer(command)}


# A plain copy at the start of a command: `cp [-opts] a b` (into b when b ends in /).
COPY_CMD = re.compile(r"(?:^|&&|;)\s*cp((?:\s+-[a-zA-Z]+)*)\s+([^\s;&|'\"]+)\s+([^\s;&|'\"]+)"
                      r"\s*(?=$|&&|;)", re.M)


def copied_files(command: str, cwd: str) -> set[str]:
    """The files plain `cp a b` commands write (not `cp -r`: a folder)."""
    out = set()
    for m in COPY_CMD.finditer(command):
        if "r" in m.group(1).lower() or "a" in m.group(1):
            continue
        source, target = m.group(2), m.group(3)
        if target.endswith("/"):
            target += source.rpartition("/")[2]
        out.add(target if target.startswith("/") else cwd.rstrip("/") + "/" + target)
    return out


# What a formatter's check says it would rewrite, and the run of it that does:
# (check line, formatter command, how many its run says it rewrote, or None).
FORMAT_CHECKS = (
    (re.compile(r"Would reformat: (\S+)"), re.compile(r"\bruff format\b(?!.*--check)"),
     re.compile(r"(\d+) files? reformatted")),
    (re.compile(r"(?m)^Diff in (/\S+\.rs):\d+:"), re.compile(r"\bcargo fmt\b(?!.*--check)"),
     None),
)


COMMIT_CMD = re.compile(r"(^|[\s;&|(])git(\s+-[Cc]\s+\S+)*\s+commit\b")
MERGE_CMD = re.compile(r"(^|[\s;&|(])git(\s+-[Cc]\s+\S+)*\s+merge(?![\w-])")
COMMIT_LINE = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
DENIED = ("The user doesn't want to", "Permission to use")


def result_text(obj: dict[str, Any], block: dict[str, Any]) -> str:
    r = obj.get("toolUseResult")
    if isinstance(r, dict) and r.get("stdout"):
        return str(r["stdout"])
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(str(x.get("text", "")) for x in c or [] if isinstance(x, dict))


class Facts:
    """What a session's files say, file by file, in the order written."""

    def __init__(self, main: Path, with_agents: bool = True) -> None:
        self.files: set[str] = set()
        self.copied: set[str] = set()  # files a `cp` wrote (made, or written over)
        self.commits = 0
        self.subjects: list[str] = []  # as git printed them beside the new shas
        self.tool_ids: set[str] = set()
        self.bash_calls = 0
        self.models: set[str] = set()
        # Per file: its first content, its last, both as the results tell
        # (None once a change does not say); a file whose last equals its
        # first, not created, is changed back: no file changed.
        self.contents: dict[str, tuple[str | None, str | None, bool]] = {}
        self.with_agents = with_agents
        agents = session_files(main) if with_agents else []
        agent_ids = {o["agentId"] for a in agents for o in objects(a)
                     if isinstance(o.get("agentId"), str)}
        for path in [main, *agents]:
            self._read(path, main_file=path == main, agent_ids=agent_ids)
        # Files its commands deleted or made, as git's output in it says.
        from test_shell_changes import git_says_the_session_changed

        self.files.update(git_says_the_session_changed(main))

    @property
    def changed_back(self) -> set[str]:
        return {p for p, (first, last, created) in self.contents.items()
                if first is not None and first == last and not created
                and p not in self.copied}

    def _follow(self, path: str, call: dict[str, Any], inp: dict[str, Any], r: Any) -> None:
        """The file's first content (the first change's result says it) and
        its last (a Write's, or an edit's result with its strings put in): a
        content before a change other than the one left (a formatter, the
        user's editor) is the file's from then on."""
        r = r if isinstance(r, dict) else {}
        original = "" if r.get("type") == "create" else r.get(
            "originalFile", r.get("originalFileContents"))
        if path not in self.contents:
            self.contents[path] = (original if isinstance(original, str) else None, None,
                                   r.get("type") == "create")
        first, _, created = self.contents[path]
        after = inp.get("content") if call.get("name") == "Write" else \
            edited(original, inp) if isinstance(original, str) else None
        self.contents[path] = (first, after if isinstance(after, str) else None, created)

    def _read(self, path: Path, main_file: bool, agent_ids: set[str]) -> None:
        calls: dict[str, dict[str, Any]] = {}
        shas: set[str] = set()
        would: dict[int, set[str]] = {}  # by FORMAT_CHECKS entry: the last check's files
        branches: set[str] = set()  # those a commit of this file was made on
        for outer in objects(path):
            data = outer.get("data")
            # A subagent known only by the entries streamed into the main file
            # (agent_progress): its calls are in them (each block once).
            streamed = (main_file and self.with_agents and outer.get("type") == "progress"
                        and isinstance(data, dict) and data.get("type") == "agent_progress"
                        and data.get("agentId") not in agent_ids
                        and isinstance(data.get("message"), dict))
            inner_entry = [{**data["message"], "cwd": outer.get("cwd")}] if streamed else []
            for o in [*inner_entry, outer]:
                data = o.get("data")
                if (main_file and o.get("type") == "progress" and isinstance(data, dict)
                        and data.get("type") == "agent_progress"
                        and data.get("agentId") not in agent_ids):
                    carried = data.get("message") or {}
                    inner = carried.get("message") if isinstance(carried, dict) else None
                    if isinstance(inner, dict) and inner.get("usage") and inner.get("model"):
                        self.models.add(inner["model"])
                if o.get("type") == "assistant":
                    msg = o.get("message") or {}
                    if msg.get("usage") and msg.get("model") not in (None, "<synthetic>"):
                        self.models.add(msg["model"])
                for b in blocks(o):
                    if b.get("type") == "tool_use" and b.get("id") and b["id"] not in self.tool_ids:
                        self.tool_ids.add(b["id"])
                        calls[b["id"]] = b
                        self.bash_calls += b.get("name") in ("Bash", "PowerShell")
                    elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                        call = calls.pop(b["tool_use_id"])
                        inp = call.get("input") if isinstance(call.get("input"), dict) else {}
                        failed = bool(b.get("is_error"))
                        if call.get("name") in EDIT_TOOLS and not failed:
                            path_ = inp.get("file_path") or inp.get("notebook_path")
                            # Claude Code's own plan file (plan mode) is not the project's.
                            if path_ and "/.claude/plans/" not in str(path_).replace("\\", "/"):
                                self.files.add(str(path_))
                                self._follow(str(path_), call, inp, o.get("toolUseResult"))
                        if call.get("name") == "Bash" and not failed:
                            self.files.update(heredoc_files(str(inp.get("command")),
                                                            str(o.get("cwd") or "")))
                            copies = copied_files(str(inp.get("command")),
                                                  str(o.get("cwd") or ""))
                            self.files.update(copies)
                            self.copied.update(copies)
                        if call.get("name") == "Bash":
                            printed = result_text(o, b)
                            cwd = str(o.get("cwd") or "")
                            for i, (check, run, count) in enumerate(FORMAT_CHECKS):
                                named = {p if p.startswith("/") else cwd + "/" + p
                                         for p in check.findall(printed)}
                                if named:
                                    would[i] = named
                                elif run.search(str(inp.get("command"))) and not failed and \
                                        would.get(i):
                                    said = count.search(printed) if count else None
                                    if count is None or (said and int(said.group(1)) == len(
                                            would[i])):
                                        self.files.update(would.pop(i))
                        if call.get("name") == "Bash" and "git" in str(inp.get("command")):
                            command = str(inp.get("command"))
                            out = result_text(o, b)
                            found = COMMIT_LINE.findall(out)
                            on = re.findall(r"(?m)^\[([^\]\s]+)(?: \(root-commit\))? [0-9a-f]{7,40}\] ",
                                            out)
                            new = [s for s in found if s not in shas]
                            self.subjects.extend(
                                m.group(2).strip() for m in re.finditer(
                                    r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.*)$",
                                    out) if m.group(1) in new)
                            shas.update(new)
                            self.commits += len(new)
                            if "--amend" in command and on and on[0] in branches:
                                self.commits -= 1  # it replaced that branch's last commit
                            branches.update(on)
                            if not found and not failed and COMMIT_CMD.search(command):
                                self.commits += 1
                            elif not found and not failed and "Merge made by " in out \
                                    and MERGE_CMD.search(command):
                                self.commits += 1  # a merge commit: git prints no sha


@pytest.fixture(scope="module")
def corpus_home(tmp_path_factory: pytest.TempPathFactory) -> Env:
    """A home with every corpus session backfilled, once a module."""
    env = Env(tmp_path_factory.mktemp("facts"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return env


@pytest.fixture(scope="module")
def notes(corpus_home: Env) -> dict[str, str]:
    return {str(frontmatter(text)["session_id"]): text
            for text in corpus_home.notes().values()}


SESSIONS = [p for p in main_files() if has_assistant(p)]


def shown(note: str) -> str:
    """A note's Markdown as its reader sees the words: CommonMark's backslash
    escapes and the entities the escapers write taken back (transcript text is
    escaped where it lands: `#wip` is written `\\#wip`, `<T>` as `&lt;T>`)."""
    unescaped = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", note)
    return unescaped.replace("&lt;", "<").replace("&amp;", "&")


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_note_states_the_sessions_facts(notes: dict[str, str], main: Path) -> None:
    note = notes[str(expected_sid(main))]
    fm = frontmatter(note)
    facts = Facts(main)
    assert fm["files_changed"] == len(facts.files - facts.changed_back)
    assert fm.get("commits", 0) == facts.commits  # left out at zero
    assert fm["tool_calls"] == len(facts.tool_ids)
    assert fm["commands"] == facts.bash_calls
    assert set(fm["models"] or []) == facts.models
    body = note.split("\n## Files changed\n", 1)
    for path in facts.files:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        assert len(body) == 2 and name in body[1], (path, "not in the Files section")


def test_the_corpus_has_each_kind_of_fact() -> None:
    """The checks above mean something only if the corpus exercises them."""
    with_agents = [m for m in SESSIONS if session_files(m)]
    assert len(with_agents) >= 3
    assert any(Facts(m).commits for m in SESSIONS)
    # Sessions where subagents changed files the main agent did not touch.
    assert any(Facts(m).files - Facts(m, with_agents=False).files for m in with_agents)
    assert any(Facts(m).commits > Facts(m, with_agents=False).commits for m in with_agents)


# -- issue 29: the lines read first, each rule derived from the JSON of every session ---------

def summaries_elsewhere() -> dict[str, str]:
    """Every `summary` entry of the corpus matched to the session it sums up by
    its leafUuid (an entry of that session's own file, in the same folder),
    when it is written in another file: by session id, the latest file's."""
    owners: dict[tuple[Path, str], str] = {}
    for main in main_files():
        sid = expected_sid(main)
        for o in objects(main):
            if isinstance(o.get("uuid"), str) and o.get("type") in ("user", "assistant") and sid:
                owners.setdefault((main.parent, o["uuid"]), sid)
    told: dict[str, tuple[str, str]] = {}
    for main in main_files():
        started = min((str(o["timestamp"]) for o in objects(main)
                       if isinstance(o.get("timestamp"), str)), default="")
        for o in objects(main):
            if o.get("type") != "summary" or not isinstance(o.get("summary"), str):
                continue
            owner = owners.get((main.parent, str(o.get("leafUuid"))))
            if owner and owner != expected_sid(main) and started >= told.get(owner, ("", ""))[0]:
                told[owner] = (started, o["summary"])
    return {sid: text for sid, (_, text) in told.items()}


def own_title(main: Path) -> tuple[str, str]:
    """Claude Code's own title of a session in its own file, and its kind:
    custom, else AI (unless a recap came after it took its words), else a
    summary there naming one of its entries (test_recaps' oracle; a recap
    titling a session with none of those is another rule, left out here)."""
    kind, text = claude_codes_title(objects(main))
    if kind == "recap" and not any(o.get("type") == "ai-title" for o in objects(main)):
        return "", ""
    return kind, text


def test_every_summary_titles_the_session_it_names(notes: dict[str, str]) -> None:
    elsewhere = summaries_elsewhere()
    assert elsewhere, "the corpus has a summary written in the next session's file"
    checked = 0
    for main in SESSIONS:
        sid = str(expected_sid(main))
        kind, title = own_title(main)
        if not kind and sid in elsewhere:
            kind, title = "summary", " ".join(elsewhere[sid].split())
        if kind:
            got = str(frontmatter(notes[sid])["title"])
            assert titled_by(got, kind, title), (main, got, kind, title)
            checked += 1
    assert checked >= len(elsewhere)


def _note_lines(note: str) -> list[str]:
    return note.split("\n## My notes", 1)[0].splitlines()


def test_no_note_holds_tool_error_tags_or_unnamed_subagents(notes: dict[str, str]) -> None:
    for sid, note in notes.items():
        assert "tool_use_error>" not in note, sid
        assert "*subagent*" not in note, sid


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_subagents_are_named_by_description_and_type(notes: dict[str, str], main: Path) -> None:
    note = shown(notes[str(expected_sid(main))])
    for o in objects(main):
        for b in blocks(o):
            if b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent"):
                inp = b.get("input") or {}
                desc = " ".join(str(inp.get("description") or "").split())
                kind = inp.get("subagent_type") or "general-purpose"
                name = inp.get("name") if isinstance(inp.get("name"), str) else ""
                label = f"{name} ({kind})" if name else kind  # (a team's member by its name)
                if desc:
                    assert f"*{label}*: {desc[:20]}" in note, desc


ASSIGNMENT_ONLY = re.compile(r"^(?:export\s+)?(?:[A-Za-z_]\w*=\S*\s*)+(?: …)?$")


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_summary_leads_with_what_was_done(notes: dict[str, str], main: Path) -> None:
    """The summary opens with what the JSON says was done: a commit by the
    subject git printed beside its sha, and how many more were made; then the
    files changed (their count, after the file holding most of their lines
    when one does), or "No files changed" when no file changed and no commit
    was made; the commits before any words of Claude's; how many
    prompts and shell commands only after those (79e9becd led with "4
    prompts, 21 shell commands")."""
    summary = str(frontmatter(notes[str(expected_sid(main))])["summary"])
    facts = Facts(main)
    changed = len(facts.files - facts.changed_back)
    told = re.split(r" (?:Claude(?:, before it)?:|Claude Code's recap:|The last request)",
                    summary, maxsplit=1)[0]
    # A commit git printed with its subject leads, by that subject, and how
    # many more were made (issue 29: lead with what was done).
    lead = re.match(r"Committed “([^”]*)”(?: \([^)]*\))?(?: and (\d+) more)?"
                    r"(?: \([^)]*\))?(?:, |\.(?: |$))", summary)
    if facts.subjects:
        assert lead is not None, (facts.subjects, summary)
        said = lead.group(1)
        assert any(s == said or (said.endswith("…") and s.startswith(said[:-1].rstrip()))
                   for s in facts.subjects), (facts.subjects, summary)
        assert 1 + int(lead.group(2) or 0) == facts.commits, (facts.commits, summary)
        summary = summary[lead.end():]
    elif facts.commits:
        assert re.search(rf"\b{facts.commits} commits?\b", told), (facts.commits, summary)
    if changed:
        # (led by the file holding most of the lines, when one does)
        assert re.match(rf"(?:Most lines changed in `[^`]+` \([^)]*\) of )?{changed} files?"
                        r" changed\b", summary, re.I), (changed, summary)
    elif not facts.commits and not re.match(r"\d+ files? reformatted", summary):
        assert summary.startswith("No files changed"), summary
    assert not re.match(r"\d+ (?:prompts?|shell commands?)\b", summary), summary


def test_no_command_is_shown_as_its_assignments(notes: dict[str, str]) -> None:
    """Every Bash call of the corpus whose command starts with assignments: the
    note never shows those assignments alone."""
    starts_so = 0
    for main in SESSIONS:
        for o in objects(main):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    first = str((b.get("input") or {}).get("command") or "").strip()
                    starts_so += bool(re.match(r"(?:export\s+)?[A-Za-z_]\w*=", first))
    assert starts_so, "the corpus has commands that start with an assignment"
    for sid, note in notes.items():
        # (commands are shown in the story's lines and tables; the headline
        # and quotes are words, Claude's or the user's: `nargs="?"` there is
        # a word of Python, no command)
        lines = [ln for ln in _note_lines(note) if not ln.startswith(("summary:", ">"))]
        for span in re.findall(r"`([^`\n]+)`", "\n".join(lines)):
            assert not ASSIGNMENT_ONLY.match(span), (sid, span)


def _message_subject(command: str) -> str:
    """The first line of a commit's message, read from its command here."""
    m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\s*(?:\n|$)", command, re.S)
    if m and re.search(r"\s(?:-F\s*-|-m\s*\"\$\(cat)", command):
        body = m.group(2)
    else:
        m = re.search(r"\s-m\s*(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)')", command)
        body = (m.group(1) or m.group(2) or "") if m else ""
    return next((ln.strip() for ln in body.splitlines() if ln.strip()), "")


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_commit_carries_the_sha_later_output_prints(notes: dict[str, str],
                                                         main: Path) -> None:
    """A successful `git commit` git printed no `[branch sha]` line for: when a
    later output of the same file shows a sha beside its subject, the note
    names the commit by that sha."""
    note = shown(notes[str(expected_sid(main))])
    for path in [main, *session_files(main)]:
        calls: dict[str, str] = {}
        outputs: list[str] = []
        quiet: list[tuple[int, str]] = []
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    calls[str(b.get("id"))] = str((b.get("input") or {}).get("command"))
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    command = calls.pop(b["tool_use_id"])
                    out = result_text(o, b)
                    if (COMMIT_CMD.search(command) and not b.get("is_error")
                            and not COMMIT_LINE.search(out)):
                        quiet.append((len(outputs), _message_subject(command)))
                    outputs.append(out)
        for at, subject in quiet:
            shas = [m.group(1) for out in outputs[at:] for m in re.finditer(
                rf"(?m)^\*?\s*([0-9a-f]{{7,40}}) (?:\([^)]*\) )?{re.escape(subject)}$", out)]
            if subject and shas:
                assert f"`{shas[0][:7]}` {subject}" in note.replace(
                    "`" + shas[0][:8] + "`", "`" + shas[0][:7] + "`"), (subject, shas[0])


def _edit_lines(name: str, inp: dict[str, Any], result: Any) -> tuple[int, int, bool]:
    """Lines added and removed by one successful edit, from its JSON: the
    tool's patch; a created file's lines; else judged from the input."""
    def lines(text: object) -> int:
        s = str(text or "")
        return s.count("\n") + (0 if not s or s.endswith("\n") else 1)

    if isinstance(result, dict):
        patch = result.get("structuredPatch")
        if isinstance(patch, list) and (patch or result.get("type") == "update"):
            flat = [x for h in patch for x in h.get("lines", [])]
            return (sum(1 for x in flat if x.startswith("+")),
                    sum(1 for x in flat if x.startswith("-")), False)
        if result.get("type") == "create":
            return lines(result.get("content")), 0, False
    if name == "Write":
        return lines(inp.get("content")), 0, True
    if name == "MultiEdit":
        edits = [e for e in inp.get("edits") or [] if isinstance(e, dict)]
        return (sum(lines(e.get("new_string")) for e in edits),
                sum(lines(e.get("old_string")) for e in edits), True)
    if name == "NotebookEdit":
        return lines(inp.get("new_source")), 0, True
    return lines(inp.get("new_string")), lines(inp.get("old_string")), True


NUMBERED = re.compile(r"^ *(\d+)(?:\t|\u2192)(.*)$")


def read_whole(inp: dict[str, Any], text: str) -> str | None:
    """The whole file a Read shows (numbered lines from 1: "12\\tline", or
    "    12→line" before 2.1.1xx; an empty last one is the file's last newline),
    with nothing after them but Claude Code's reminders; None for part of a
    file (an offset or limit; 2000 lines, the most a Read shows; a line of
    2000 characters or more, which it cuts)."""
    if inp.get("offset") not in (None, 0, 1) or inp.get("limit") is not None:
        return None
    lines = text.split("\n")
    shown: list[str] = []
    for line in lines:
        m = NUMBERED.match(line)
        if not m or int(m.group(1)) != len(shown) + 1:
            break
        shown.append(m.group(2))
    rest = "\n".join(lines[len(shown):]).strip()
    if not shown or len(shown) >= 2000 or any(len(x) >= 2000 for x in shown) \
            or (rest and not rest.startswith("<system-reminder>")):
        return None
    return "\n".join(shown)


def created_by_commits(path: Path) -> list[tuple[int, str]]:
    """(entry number, path as git printed it) of each `create mode` line of
    a commit in a transcript file's tool results."""
    out = []
    for n, o in enumerate(objects(path)):
        for b in blocks(o):
            if b.get("type") == "tool_result" and not b.get("is_error"):
                out += [(n, m) for m in re.findall(r"(?m)^ create mode \d+ (.+)$",
                                                    result_text(o, b))]
    return out


def copy_targets(command: str, cwd: str) -> list[str]:
    """The files `cp SRC DST` commands of a command line write (DST a file's
    path: a name with a dot in its last part, not a folder's `/`)."""
    out = []
    for m in re.finditer(r"(?:^|&&|;)\s*cp\s+(?:-\w+\s+)*(\S+)\s+(\S+?)\s*(?=$|&&|;)", command):
        dst = m.group(2)
        if dst.endswith("/") or "." not in dst.rpartition("/")[2]:
            continue
        out.append(posixpath.normpath(posixpath.join(cwd, dst)))
    return out


def removed_files(command: str, cwd: str) -> list[str]:
    """The files `rm f` and `git rm f` commands of a command line name (not
    `--cached`: git stops tracking, the file stays), after a leading `cd`."""
    import shlex

    from test_shell_changes import _leading_cd

    here = _leading_cd(command, cwd)
    out = []
    for m in re.finditer(r"(?:^|&&|;)\s*(?:git\s+)?rm\s+((?:-[\w-]+\s+)*)([^;&|\n]+)", command):
        if "--cached" in m.group(1):
            continue
        try:
            operands = shlex.split(m.group(2))
        except ValueError:
            continue
        out += [posixpath.normpath(posixpath.join(here, x)) for x in operands]
    return out


def file_lines(main: Path) -> dict[str, tuple[int, int, bool]]:
    """Every file's net lines in a session, from the JSON, and whether they
    are exact: in each transcript file, the file's content is replayed from
    the JSON: the content before its first change (the result's
    `originalFile`, `originalFileContents` in Claude Code 1.0.x, none for a
    file created; else the file as a Read showed it whole before; else
    nothing, for a file a commit's `create mode` line later says was made),
    then each change made in it (a Write's content, an edit's strings put in
    place, a here-document's body), a content a result or a Read shows
    between changes taking over (a formatter, the user's editor). The lines
    between the first content and the last; where either is not told, the
    sum of each change's own lines (its patch, or judged from its strings),
    not exact unless one change told by its patch. A file git's output says
    a command of the session made (`cargo init`) was nothing before it."""
    from test_shell_changes import git_says_the_session_changed

    scaffolded = {p for p, kind in git_says_the_session_changed(main).items() if kind == "created"}
    totals: dict[str, tuple[int, int, bool]] = {}
    for path in [main, *session_files(main)]:
        made = created_by_commits(path)
        calls: dict[str, dict[str, Any]] = {}
        ends: dict[str, list[str | None]] = {}  # first, last
        own: dict[str, tuple[int, int, int, bool]] = {}  # lines, changes, any judged
        reads: dict[str, str] = {}  # files read whole since their last change
        read_any: dict[str, str] = {}  # the same, by a result's `file` too (for a deletion)
        whole: dict[str, int] = {}  # of `ends`, first changed by writing it whole: when
        for n, o in enumerate(objects(path)):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") in (*EDIT_TOOLS, "Bash", "Read"):
                    calls[str(b.get("id"))] = b
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    call = calls.pop(b["tool_use_id"])
                    inp = call.get("input") or {}
                    if call["name"] == "Read":
                        shown_whole = None if b.get("is_error") or "toolUseResult" in o \
                            else read_whole(inp, result_text(o, b))
                        if shown_whole is not None:
                            reads[str(inp.get("file_path"))] = shown_whole
                        f = (o.get("toolUseResult") or {}).get("file") \
                            if isinstance(o.get("toolUseResult"), dict) else None
                        if isinstance(f, dict) and isinstance(f.get("content"), str) and \
                                f.get("numLines") == f.get("totalLines") and \
                                f.get("startLine", 1) == 1 and not inp.get("offset") and \
                                not inp.get("limit"):
                            read_any[str(inp.get("file_path"))] = f["content"]
                        elif shown_whole is not None:
                            read_any[str(inp.get("file_path"))] = shown_whole
                        continue
                    if call["name"] == "Bash":
                        # A file made by a here-document: its lines, what was there
                        # before not known.
                        heredocs = {} if b.get("is_error") else heredoc_files(
                            str(inp.get("command")), str(o.get("cwd") or ""))
                        # A file a `cp` wrote (its content not told): what a
                        # commit's `create mode` later says was made from nothing.
                        for where in ({} if b.get("is_error") else copy_targets(
                                str(inp.get("command")), str(o.get("cwd") or ""))):
                            if where not in ends:
                                whole[where] = n
                                ends[where] = [None, None]
                        # A file read whole (or changed) that `rm`/`git rm` removed:
                        # all its lines gone.
                        for where in ([] if b.get("is_error") else removed_files(
                                str(inp.get("command")), str(o.get("cwd") or ""))):
                            if where in read_any and where not in ends:
                                ends[where] = [read_any.pop(where), ""]
                                own[where] = (0, 0, 1, False)
                            elif where in ends:
                                ends[where][1] = ""
                        for where, text in heredocs.items():
                            if where not in ends:
                                whole[where] = n
                            ends.setdefault(where, [None, None])[1] = text
                            reads.pop(where, None)
                            a, d, k, _ = own.get(where, (0, 0, 0, False))
                            own[where] = (a + text.count("\n"), d, k + 1, True)
                        continue
                    where = str(inp.get("file_path") or inp.get("notebook_path") or "")
                    if b.get("is_error") or not where \
                            or "/.claude/plans/" in where.replace("\\", "/"):
                        continue
                    r = o.get("toolUseResult")
                    r = r if isinstance(r, dict) else {}
                    before = "" if r.get("type") == "create" else r.get(
                        "originalFile", r.get("originalFileContents"))
                    if not isinstance(before, str) and r.get("type") == "update" \
                            and r.get("structuredPatch") == []:
                        before = inp.get("content")  # a Write of the same content
                    if call["name"] == "Edit" and inp.get("old_string") == "" and result_text(
                            o, b).startswith("File created successfully"):
                        before = ""  # an Edit the client says made the file
                    if not isinstance(before, str):
                        before = reads.get(where)
                    reads.pop(where, None)
                    if where not in ends:
                        ends[where] = [before if isinstance(before, str) else None, None]
                        if call["name"] == "Write" and not isinstance(before, str):
                            whole[where] = n
                    elif not isinstance(before, str):
                        before = ends[where][1]  # as the change before left it
                    after: str | None = None
                    if call["name"] == "Write":
                        after = inp.get("content") if isinstance(inp.get("content"), str) \
                            else None
                    elif call["name"] == "Edit" and before == "" and inp.get("old_string") == "":
                        after = inp.get("new_string")  # (a file the Edit made)
                    elif call["name"] in ("Edit", "MultiEdit") and isinstance(before, str):
                        after = edited(before, inp)
                    ends[where][1] = after
                    added, removed, judged = _edit_lines(call["name"], inp, r or None)
                    a, d, k, guess = own.get(where, (0, 0, 0, False))
                    own[where] = (a + added, d + removed, k + 1, guess or judged)
        for where, (first, last) in ends.items():
            if where not in own:
                continue  # (a copy no tool changed after: its lines not told)
            if where in scaffolded and path == main:
                first = ""
            if first is None and where in whole and any(
                    at > whole[where] and (where == p or where.replace("\\", "/").endswith("/" + p))
                    for at, p in made):
                first = ""  # a commit made it: nothing was there before
            # A lone change told by its patch is exact too.
            exact = (first is not None and last is not None) or (
                own[where][2] == 1 and not own[where][3])
            fa, fr = net_lines(first, last) if first is not None and last is not None \
                else own[where][:2]
            a, r, was = totals.get(where, (0, 0, True))
            totals[where] = (a + fa, r + fr, was and exact)
    return totals


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_file_totals_equal_a_count_from_the_json(notes: dict[str, str], main: Path) -> None:
    note = notes[str(expected_sid(main))]
    totals = file_lines(main)
    m = re.search(r"(\d+) files? changed \(\+(≈?)(\d+) −≈?(\d+)(?:; lines of \d+ not known"
                  r"(?:; git counted \+\d+ −\d+ in [^)]*)?)?\)", note)
    changed = Facts(main).files - Facts(main).changed_back
    if not totals or not changed:
        assert m is None
        return
    assert m is not None
    if not all(exact for _, _, exact in totals.values()):
        # Not told by the JSON: an estimate, said so (never a wrong exact figure).
        assert m.group(2) == "≈", m.group(0)
    elif int(m.group(1)) == len(changed) and not m.group(2):
        # Not cut short (every file counted), and exact as the JSON tells.
        assert (int(m.group(3)), int(m.group(4))) == (
            sum(a for a, _, _ in totals.values()), sum(r for _, r, _ in totals.values()))


def test_the_corpus_has_each_kind_of_headline_fact() -> None:
    """The rules above are checked on the corpus only where it has such things."""
    assert summaries_elsewhere()
    assert any(file_lines(m) for m in SESSIONS)


def _calls_and_results(path: Path) -> tuple[dict[str, dict[str, Any]], set[str]]:
    calls: dict[str, dict[str, Any]] = {}
    results: set[str] = set()
    for o in objects(path):
        for b in blocks(o):
            if b.get("type") == "tool_use" and b.get("id"):
                calls[str(b["id"])] = b
            elif b.get("type") == "tool_result" and b.get("tool_use_id"):
                results.add(str(b["tool_use_id"]))
    return calls, results


def _inline_ended(main: Path, calls: dict[str, Any], results: Any) -> set[str]:
    """Tasks with no result whose inline subagent (older layout: its entries
    in the main file, `isSidechain`) ended its turn: the last assistant entry
    of its chain (followed from the entry carrying its prompt; every one in
    the file when it is the only Task without a result) says `stop_reason:
    end_turn` (review 23 #1)."""
    side = [o for o in objects(main) if o.get("isSidechain")]
    open_tasks = [(tid, c) for tid, c in calls.items()
                  if c.get("name") in ("Task", "Agent") and tid not in results]
    out = set()
    for tid, call in open_tasks:
        inp = call.get("input") if isinstance(call.get("input"), dict) else {}
        members = {o.get("uuid") for o in side if o.get("type") == "user"
                   and (o.get("message") or {}).get("content") == inp.get("prompt")}
        for o in side:
            if o.get("parentUuid") in members or len(open_tasks) == 1:
                members.add(o.get("uuid"))
        replies = [o for o in side if o.get("uuid") in members and o.get("type") == "assistant"]
        if replies and (replies[-1].get("message") or {}).get("stop_reason") == "end_turn":
            out.add(tid)
    return out


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_unfinished_subagents_and_background_commands_are_said_so(
        notes: dict[str, str], main: Path) -> None:
    note = shown(notes[str(expected_sid(main))])
    calls, results = _calls_and_results(main)
    ended = _inline_ended(main, calls, results)
    for tid, call in calls.items():
        inp = call.get("input") if isinstance(call.get("input"), dict) else {}
        desc = " ".join(str(inp.get("description") or "").split())
        if call.get("name") in ("Task", "Agent") and tid not in results and desc \
                and tid not in ended:
            line = next(ln for ln in note.splitlines() if ln.startswith("- *") and desc[:20] in ln)
            assert "unfinished: no result" in line or "still at work" in line, line
        elif tid in ended and desc:
            line = next(ln for ln in note.splitlines() if ln.startswith("- *") and desc[:20] in ln)
            assert "unfinished" not in line, line
        if call.get("name") == "Bash" and inp.get("run_in_background") is True \
                and tid in results and desc:
            assert f"{desc.rstrip('.')}: " in note
            line = next(ln for ln in note.splitlines() if f"{desc.rstrip('.')}: " in ln)
            assert "started in the background" in line, line


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_model_switches_and_slash_command_output_are_told(notes: dict[str, str],
                                                          main: Path) -> None:
    note = notes[str(expected_sid(main))]
    for o in objects(main):
        content = o.get("content")
        if o.get("type") == "system" and isinstance(content, str) \
                and "limit reached, now using" in content:
            assert " ".join(content.split()) in shown(note)
    story = note.split("\n## Story\n", 1)[-1].split("\n## ", 1)[0]
    for line in story.splitlines():
        # A slash command's turn of one line shows what it printed, when it printed words.
        assert not re.fullmatch(r"### \d\d:\d\d · `/model[^`]*`", line), line


def test_gists_are_words_not_headings(notes: dict[str, str]) -> None:
    """An answer opening with a heading: its turn's gist is the sentence under it."""
    headed = 0
    for main in SESSIONS:
        for o in objects(main):
            for b in blocks(o):
                if o.get("type") == "assistant" and b.get("type") == "text" \
                        and str(b.get("text") or "").lstrip().startswith("#"):
                    headed += 1
    assert headed, "the corpus has answers that open with a heading"
    for sid, note in notes.items():
        for line in _note_lines(note):
            assert not re.match(r"> \*\*Claude:\*\* \\?#.* …$", line), (sid, line)


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_summary_repeats_no_claim_the_facts_contradict(notes: dict[str, str],
                                                           main: Path) -> None:
    """Summaries lead with the facts; Claude's words follow, labelled, and never
    claim a change when every edit of the session was refused or failed."""
    summary = str(frontmatter(notes[str(expected_sid(main))])["summary"])
    assert not summary.startswith(("Claude:", "Claude Code's recap:"))
    calls, _ = _calls_and_results(main)
    edits = [c for c in calls.values() if c.get("name") in EDIT_TOOLS]
    if edits and not file_lines(main):
        words = summary.split(" Claude: ", 1)[-1] if " Claude: " in summary else ""
        assert not re.search(r"(?i)\b(?:created|wrote|added|updated|edited)\b", words), summary


_COMMIT_STAT = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] .*\n"
                          r"(?:(?! \d+ files? changed).*\n)*?"
                          r" (\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
                          r"(?:, (\d+) deletions?\(-\))?")


def git_counts(main: Path) -> dict[str, tuple[int, int, int]]:
    """Each commit's own count as git printed it under its `[branch sha]`
    line, in any output of the session: sha -> (files, insertions, deletions)."""
    out: dict[str, tuple[int, int, int]] = {}
    for path in [main, *session_files(main)]:
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") == "tool_result":
                    for m in _COMMIT_STAT.finditer(result_text(o, b)):
                        out.setdefault(m.group(1)[:7], (int(m.group(2)), int(m.group(3) or 0),
                                                        int(m.group(4) or 0)))
    return out


def test_a_files_commit_is_told_with_its_own_count(corpus_home: Env,
                                                   notes: dict[str, str]) -> None:
    """Every file of every corpus session linked to a commit whose own count
    git printed (review 22 #8): `vv files` gives that count (files, lines
    inserted and deleted), and says "partly" exactly where the session's
    exact lines to the file, counted from the JSON (a longest common
    subsequence of its first and last contents: git's diff of them inserts
    and deletes no fewer), are more than git's count of the whole commit
    (9e953218's next.config.js: +33 against 2564804's "17 insertions(+)";
    a7da6a22's test_unit.py, +330 −13, past the 300 lines a shortest script
    is looked for: against e4e6a03's "34 insertions(+), 17 deletions(-)",
    review 25 L1), or its estimated lines more than the commit's whole count
    (9e953218's index.html: ≈+75 against ef55c7b's "5 deletions(-)", review
    24 N2)."""
    import sqlite3

    counts = {str(expected_sid(m)): git_counts(m) for m in SESSIONS}
    lines = {str(expected_sid(m)): file_lines(m) for m in SESSIONS}
    db = sqlite3.connect(corpus_home.state / "vault.db")
    rows = db.execute(
        "SELECT s.session_id, c.path, c.added, c.removed, c.sha, c.mark, c.commit_files,"
        " c.commit_added, c.commit_removed, c.partly FROM changes c JOIN sessions s"
        " ON s.doc = c.doc WHERE c.committed = 1 AND c.sha != ''").fetchall()
    db.close()
    checked = partly = past = 0
    for sid, path, added, removed, sha, mark, files, inserted, deleted, part in rows:
        stat = counts.get(sid, {}).get(sha[:7])
        if stat is None:
            continue  # (a quiet commit, its sha from a later output: no count)
        checked += 1
        assert (files, inserted, deleted) == stat, (sid, path, sha, stat)
        # (a file changed in a worktree Claude Code made, `.claude/worktrees/<name>/`,
        # is the repository's file)
        told = next((v for k, v in lines[sid].items()
                     if ("/" + re.sub(r"/\.claude/worktrees/[^/]+/", "/", k.replace("\\", "/"))
                         .lstrip("/")).endswith("/" + path.lstrip("/"))), None)
        exact = told is not None and told[2] and mark == ""
        more = ((exact and told is not None and (told[0] > stat[1] or told[1] > stat[2]))
                # (figures estimated: git's whole count fewer than the lines shown)
                or (mark == "≈" and added + removed > stat[1] + stat[2]))
        assert bool(part) == more, (sid, path, sha, added, removed, told, stat)
        partly += more
        past += more and added + removed > 300
    assert checked >= 20 and partly >= 1 and past >= 1, (checked, partly, past)


_ADD_ALL_COMMIT = re.compile(r"^(?:cd\s+(\"[^\"]+\"|'[^']+'|[^\s;&|]+)\s*&&\s*)?"
                             r"git\s+add\s+(?:-A|--all)\s*&&\s*git\s+commit\b")
_CD = re.compile(r"^cd\s+(\"[^\"]+\"|'[^']+'|[^\s;&|]+)\s*(?:&&|$)")
# Commands that change no file in the work tree (each part of a chain).
_READS = re.compile(r"^\s*(?:cd\s+\S+|git\s+(?:status|diff|log|show|branch|remote|fetch|push|"
                    r"rev-parse|pull)\b[^>]*|ls\b[^>]*|cat\s[^>]*|grep\b[^>]*|head\b[^>]*|"
                    r"tail\b[^>]*|wc\b[^>]*|pwd|echo\s[^>]*)\s*$")


def commits_of_every_change(main: Path) -> list[tuple[str, str, set[str]]]:
    """From the JSON: each commit made by `[cd DIR &&] git add -A && git commit`
    (not `git add .`: that stages only the folder it runs in)
    (in DIR, else where the shell last `cd`-ed: Claude Code's shell keeps its
    folder) whose count of files git printed equals the files the main
    agent's edits (Edit, Write, MultiEdit, each succeeding) changed in that
    folder since the commit before it there, no command that may change a
    file run meanwhile: (session, sha, those files)."""
    out: list[tuple[str, str, set[str]]] = []
    calls: dict[str, dict[str, Any]] = {}
    changed: dict[str, set[str]] = {}  # folder committed in -> files edited since
    edited: list[str] = []  # every file edited since the last command that may write
    sid = str(expected_sid(main))
    shell = ""
    for o in objects(main):
        if o.get("isSidechain"):
            continue
        shell = shell or str(o.get("cwd") or "")
        for b in blocks(o):
            if b.get("type") == "tool_use":
                calls[str(b.get("id"))] = b
            elif b.get("type") == "tool_result":
                call = calls.get(str(b.get("tool_use_id")), {})
                inp = call.get("input") or {}
                if call.get("name") in ("Edit", "Write", "MultiEdit") and not b.get("is_error"):
                    edited.append(str(inp.get("file_path", "")))
                    continue
                if call.get("name") != "Bash":
                    continue
                command = str(inp.get("command", "")).strip()
                cd = _CD.match(command)
                folder = cd.group(1).strip("\"'") if cd else shell
                m = _ADD_ALL_COMMIT.match(command)
                stat = _COMMIT_STAT.search(result_text(o, b))
                if m and stat and not b.get("is_error"):
                    inside = folder.rstrip("/") + "/"
                    files = {p for p in edited if p.startswith(inside)} | changed.get(folder,
                                                                                       set())
                    if files and int(stat.group(2)) == len(files) and folder not in changed:
                        out.append((sid, stat.group(1)[:7], files))
                    edited = [p for p in edited if not p.startswith(inside)]
                    changed.pop(folder, None)
                elif not all(_READS.match(part) for part in re.split(r"&&|;|\|\|", command)):
                    # (it may have changed files: the folders edited so far are not known)
                    for p in edited:
                        changed.setdefault(p.rsplit("/", 1)[0], set())
                if cd:
                    shell = folder
    return out


def test_every_commit_of_a_files_change_is_named(corpus_home: Env) -> None:
    """Every file of every corpus session that a commit of every change holds
    by git's count (`commits_of_every_change`, from the JSON) names that
    commit in `vv files --json`: as its commit, or among its earlier ones
    (review 24 N2: 9e953218's acf21f1 and 42b4429 were named nowhere)."""
    import json

    found = [c for m in SESSIONS for c in commits_of_every_change(m)]
    checked = 0
    for sid, sha, files in found:
        for path in sorted(files):
            r = corpus_home.vv("files", "--json", path)
            rows = [row for row in json.loads(r.stdout) if row["session_id"] == sid
                    and row["path"] == path] if r.returncode == 0 else []
            if not rows:
                continue  # (changed back, or not the session's in the end: no row)
            (row,) = rows
            named = [row["commit"], *row["earlier_commits"]]
            assert any(s and s[:7] == sha for s in named), (sid, path, sha, named)
            checked += 1
    assert checked >= 1, found  # (9e953218's ef55c7b)


# -- review 24: the words quoted as Claude's, and which reply they come from -----------------

# Where Claude's words begin in a summary, and where they end: the next label,
# or the question the session ended on.
CLAUDE_SAID = re.compile(r"Claude(?:, earlier|, last|, before it)?: ")
CLAUDE_ENDS = re.compile(r" (?=Claude(?:, earlier|, last|, before it)?: |Claude Code's recap: "
                         r"|It ended with Claude asking: |It ended on a question from Claude\.)")


def claude_quotes(summary: str) -> list[str]:
    """Each run of words a summary labels as Claude's, in order."""
    out = []
    for m in CLAUDE_SAID.finditer(summary):
        if summary[:m.start()].endswith("Claude Code's recap: "):
            continue
        out.append(CLAUDE_ENDS.split(summary[m.end():], maxsplit=1)[0])
    return out


def _as_read(text: str) -> str:
    """Claude's Markdown as a reader compares words: no list marks, headings,
    emphasis or line breaks; links as their words (and where they point)."""
    text = re.sub(r"\[([^\[\]\n]+)\]\(([^()\s]+)\)", lambda m: m.group(1) if m.group(2).rstrip(
        "/").endswith(m.group(1).strip("`")) else f"{m.group(1)} ({m.group(2)})", text)
    text = re.sub(r"(?m)^\s*(?:[-*+•]|\d+[.)]|#+)\s+", "", text)
    return " ".join(text.replace("**", "").split())


def claude_texts(main: Path) -> list[tuple[str, str]]:
    """Every text Claude wrote in the main transcript: (time, words as read)."""
    return [(str(o.get("timestamp") or ""), _as_read(str(b.get("text") or "")))
            for o in objects(main) if o.get("type") == "assistant" and not o.get("isSidechain")
            for b in blocks(o) if b.get("type") == "text"]


def quote_pieces(quote: str) -> list[str]:
    """A quote's pieces as vv joins them: list items ("; "), the items under
    one ending in ":" (", "), sentences; vv's count of items left out dropped."""
    pieces = [p.strip() for p in re.split(r"; |, |(?<=[.!?…]) ", quote) if p.strip(" .…")]
    return [p for p in pieces if not re.fullmatch(r"(?:and )?(?:\d+ )?more\.?", p)]


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_claudes_quoted_words_are_his_and_no_cut_at_a_colon_is_closed(
        notes: dict[str, str], main: Path) -> None:
    """Every piece of every quote labelled Claude's is Claude's text in the
    JSON, word for word; a piece that ends in a full stop ends there in
    Claude's text too: never where Claude's words went on with a ":" and the
    list it announced (review 24 N1: cde341db "…blocking CLI exit by
    setting." where the settings followed the colon)."""
    summary = str(frontmatter(notes[str(expected_sid(main))])["summary"])
    said = [text for _, text in claude_texts(main)]
    for quote in claude_quotes(summary):
        for piece in quote_pieces(quote):
            if "[REDACTED" in piece:
                continue
            closed = piece.endswith(".") and not piece.endswith("…")
            body = piece.rstrip(" .…").removesuffix(" …")
            where = [(text, m.end()) for text in said
                     for m in re.finditer(re.escape(body), text)]
            assert where, (piece, summary)
            if closed:
                assert any(text[end:end + 1] != ":" for text, end in where), (piece, summary)


def edit_lines(main: Path) -> list[tuple[str, int, str]]:
    """Each request of the main transcript (typed, or words given when
    refusing a call): (its time, the lines its edit tools changed, by a diff
    of each successful call's strings: an Edit's old and new string, each of
    a MultiEdit's, a Write's patch or, with none, its content; Claude's
    final words in it, when its last block was text, else "")."""
    import difflib

    def diffed(old: str, new: str) -> int:
        return sum(1 for ln in difflib.ndiff(old.splitlines(), new.splitlines())
                   if ln[:2] in ("+ ", "- "))

    turns: list[tuple[str, int, str]] = []
    calls: dict[str, dict[str, Any]] = {}
    for o in objects(main):
        if o.get("isSidechain"):
            continue
        content = (o.get("message") or {}).get("content")
        if o.get("type") == "user" and not o.get("isMeta") and not o.get("isCompactSummary") and (
                (isinstance(content, str) and not content.startswith("<"))
                or (isinstance(content, list) and any(b.get("type") == "text" for b in blocks(o))
                    and not any(b.get("type") == "tool_result" for b in blocks(o)))):
            turns.append((str(o.get("timestamp") or ""), 0, ""))
        elif any(b.get("type") == "tool_result"
                 and str(result_text(o, b)).startswith("The user doesn't want to proceed")
                 and "the user said:" in result_text(o, b) for b in blocks(o)):
            turns.append((str(o.get("timestamp") or ""), 0, ""))  # words given when refusing
        for b in blocks(o):
            if not turns:
                break
            at, had, _ = turns[-1]
            if o.get("type") == "assistant" and b.get("type") in ("text", "tool_use"):
                words = str(b.get("text") or "") if b.get("type") == "text" else ""
                if words.strip() or b.get("type") == "tool_use":
                    turns[-1] = (at, had, words)
            if b.get("type") == "tool_use" and b.get("name") in EDIT_TOOLS:
                calls[str(b.get("id"))] = b
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                    and not b.get("is_error"):
                call = calls.pop(str(b["tool_use_id"]))
                inp = call.get("input") if isinstance(call.get("input"), dict) else {}
                r = o.get("toolUseResult") if isinstance(o.get("toolUseResult"), dict) else {}
                if call.get("name") == "Write":
                    patch = r.get("structuredPatch")
                    lines = sum(1 for h in patch or [] for ln in h.get("lines", [])
                                if ln[:1] in "+-") if patch else \
                        len(str(inp.get("content") or "").splitlines())
                else:
                    edits = inp.get("edits") if isinstance(inp.get("edits"), list) else [inp]
                    lines = sum(diffed(str(e.get("old_string") or ""),
                                       str(e.get("new_string") or "")) for e in edits)
                turns[-1] = (at, had + lines, turns[-1][2])
    return turns


# The test's own words of a change made, in a reply ("Increased the timeout", "I've added").
SAYS_CHANGED = re.compile(
    r"(?im)(?:^|[.!]\s+|\s[-\u2013\u2014]\s)(?:[-*•\d.)\s✅`]|\*\*)*"
    r"(?:added|update[ds]?|fixed|created|increased|changed|removed"
    r"|implemented|moved|rewrote|replaced|switched)\b|\bI(?:'ve| have)\s+(?:\w+ly\s+)?"
    r"(?:added|updated|fixed|created|increased|changed|removed|implemented|moved|rewritten"
    r"|replaced|switched)\b")


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_reply_quoted_first_reports_the_main_change(notes: dict[str, str],
                                                         main: Path) -> None:
    """Where the session's edits changed lines, the reply the summary quotes
    first (the "earlier" slot, or the only one) was written at or after the
    request whose edits changed the most lines (by the JSON, the latest of
    equals); and when Claude's first final words from then on say a change
    was made (a line opening on "Added", "Increased", "I've updated"…), they
    are the words quoted first, not a later, smaller step (review 24:
    488c5296 quoted "Added `retry: 1`", not the timeout 20m → 45m; acdd84ab
    "Committed `6706f449`."; b74fb8cb the PR's last display-name commit)."""
    summary = str(frontmatter(notes[str(expected_sid(main))])["summary"])
    quotes = claude_quotes(summary)
    turns = edit_lines(main)
    if not quotes or not turns or max(lines for _, lines, _ in turns) == 0:
        return
    first, since, reply = first_quote_and_main_reply(main, quotes, turns)
    body = first.rstrip(" .…").removesuffix(" …")
    when = [at for at, text in claude_texts(main) if body in text]
    assert when, (first, summary)
    # (a last request answered in words alone, no tool called, looks back on
    # the work: its words may be quoted when they say a change too)
    looked_back = not tools_in_last_request(main) and SAYS_CHANGED.search(turns[-1][2])
    source = next(text for at, text in claude_texts(main) if body in text)
    if body not in _as_read(reply) and SAYS_CHANGED.search(source) \
            and " Claude, earlier: " in summary:
        # (another change set, the first request's, reported before the
        # reply to the main one, when that reply is the last: by the JSON, at
        # least a third as many lines were changed up to it as after it;
        # review 25 M1, 063071b3's conventions commit before "simplify")
        before = sum(lines for t, lines, _ in turns if t <= min(when))
        after = sum(lines for t, lines, _ in turns if t > min(when))
        assert before * 3 >= after, (first, since, summary)
        return
    assert max(when) >= since, (first, since, when, summary)
    if SAYS_CHANGED.search(reply) and not looked_back and not re.search(
            r"The last request got no answer[^.]*\.$|still on the last request \(after .*\.$",
            re.split(r" Claude[,:]", summary, maxsplit=1)[0]):
        assert body in _as_read(reply), (first, reply[:300], summary)


def first_quote_and_main_reply(main: Path, quotes: list[str],
                               turns: list[tuple[str, int, str]]) -> tuple[str, str, str]:
    """The first piece of the summary's first quote, when the request whose
    edits changed the most lines began (the latest of equals) and Claude's
    first final words from then on (by the JSON)."""
    top = max(lines for _, lines, _ in turns)
    main_turn = max(k for k, (_, lines, _) in enumerate(turns) if lines == top)
    first = next((p for p in quote_pieces(quotes[0]) if "[REDACTED" not in p), "")
    reply = next((words for _, _, words in turns[main_turn:] if words), "")
    return first, turns[main_turn][0], reply


def tools_in_last_request(main: Path) -> int:
    """How many tools Claude called after the main transcript's last request."""
    turns = edit_lines(main)
    since = turns[-1][0] if turns else ""
    return sum(1 for o in objects(main) if o.get("type") == "assistant"
               and not o.get("isSidechain") and str(o.get("timestamp") or "") >= since
               for b in blocks(o) if b.get("type") == "tool_use")


def test_the_corpus_has_quotes_after_an_earlier_main_change(notes: dict[str, str]) -> None:
    """The rule above means something: sessions whose last request changed
    fewer lines than an earlier one, and whose summaries quote the reply
    after the main change first, then the last; and one whose summary
    quotes a change set reported before the main one."""
    earlier = before_main = 0
    for main in SESSIONS:
        turns = edit_lines(main)
        if len(turns) < 2 or max(lines for _, lines, _ in turns) == 0:
            continue
        summary = str(frontmatter(notes[str(expected_sid(main))])["summary"])
        if turns[-1][1] < max(lines for _, lines, _ in turns):
            earlier += " Claude, earlier: " in summary
        quotes = claude_quotes(summary)
        if quotes and " Claude, earlier: " in summary:
            first, _, reply = first_quote_and_main_reply(main, quotes, turns)
            before_main += first.rstrip(" .…").removesuffix(" …") not in _as_read(reply)
    assert earlier >= 3, earlier
    # (and a change set reported before the main one: 063071b3's conventions commit)
    assert before_main >= 1, before_main


# -- titles: a preamble sentence is not the title when the same prompt asks later ------------

# The test's own reading of a sentence: a statement opening on who or what it
# is about ("I've noticed …", "There's …", "Ok, so we …"), and a request: a
# form that asks ("can you", "I'd like to", "let's", "please") with at least
# three words after it, or an imperative opening it.
STATEMENT = re.compile(r"(?i)^(?:ok(?:ay)?,?\s+(?:so,?\s+)?|so,?\s+)?(?:I(?:'ve|'m| am| have"
                       r"| had| was)?|we(?:'ve|'re| have| are)?|there(?:'s| is| are)|it(?:'s| is)"
                       r"|this|the)\b")
ASKS = re.compile(r"(?i)\b(?:(?:can|could|would|will) you|please|I(?:'d| would) like(?: to)?"
                  r"|I (?:want|need)(?: you)? to|let'?s|help me)\s+(?:\S+\s+){2}\S")
ASK_ONLY = re.compile(r"(?i)^(?:(?:can|could|would|will) you|please|I(?:'d| would) like(?: to)?"
                      r"|I (?:want|need)(?: you)? to|let'?s)\s+")
OPENING_VERB = re.compile(r"(?i)^(?:add|fix|make|create|update|remove|implement|write|change"
                          r"|move|rename|refactor|run|build|check|review|investigate|debug"
                          r"|explain|find|show|tell|list|commit|push|give|use|port)\s")


def first_typed_prompt(main: Path) -> str:
    """The session's first prompt as typed (a plain string, not a command)."""
    for o in objects(main):
        content = (o.get("message") or {}).get("content")
        if o.get("type") == "user" and not o.get("isMeta") and isinstance(content, str) \
                and content.strip() and not content.lstrip().startswith("<"):
            return content
    return ""


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_title_never_opens_on_a_preamble_before_the_request(notes: dict[str, str],
                                                              main: Path) -> None:
    """A session titled by its first prompt (Claude Code gave it no title of
    its own): when that prompt's first sentence is a statement that asks for
    nothing and a later sentence of it asks for something, the title holds
    the request, not the statement alone (cde341db: "I've noticed … there's
    a few hundred millis delay …. I'd like to add a flame graph or tracing …")."""
    kind, _ = own_title(main)
    prompt = first_typed_prompt(main)
    if kind or not prompt:
        return
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", prompt.split("\n", 1)[0].strip()) if s]
    if len(sentences) < 2 or not STATEMENT.match(sentences[0]) or ASKS.search(sentences[0]) \
            or OPENING_VERB.match(sentences[0]):
        return
    if not any(ASKS.search(s) or OPENING_VERB.match(s) for s in sentences[1:]):
        return
    title = str(frontmatter(notes[str(expected_sid(main))])["title"])
    asked = next(s for s in sentences[1:] if ASKS.search(s) or OPENING_VERB.match(s))
    form = ASKS.search(asked) or OPENING_VERB.match(asked)
    assert form is not None
    head = " ".join(asked[form.start():].split()[:4]).rstrip(",.;:?!")
    # (or its verb and object, the words that ask left out where room is short:
    # "Add a flame graph …" for "I'd like to add a flame graph …", review 25)
    verb = " ".join(ASK_ONLY.sub("", asked[form.start():]).split()[:2]).rstrip(",.;:?!")
    assert head.lower() in title.lower() or verb.lower() in title.lower(), (title, asked)


def test_the_corpus_has_a_request_after_a_preamble() -> None:
    """The rule above is checked on at least one session it applies to."""
    applies = 0
    for main in SESSIONS:
        prompt = first_typed_prompt(main)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", prompt.split("\n", 1)[0].strip()) if s]
        applies += (len(sentences) >= 2 and bool(STATEMENT.match(sentences[0]))
                    and not ASKS.search(sentences[0]) and not OPENING_VERB.match(sentences[0])
                    and any(ASKS.search(s) or OPENING_VERB.match(s) for s in sentences[1:])
                    and not own_title(main)[0])
    assert applies >= 1, applies


def test_a_change_through_a_link_is_credited_by_gits_count(corpus_home: Env) -> None:
    """Every file `vv files` says was committed by another name (review 25 N3:
    b74fb8cb's CLAUDE.md, a link to AGENTS.md, in 60e969f): git's count of that
    commit, as the JSON prints it, is the other name plus the files the commit
    holds by their own names, and its lines are exactly the session's lines,
    from the JSON, to those files and to this one."""
    import sqlite3

    db = sqlite3.connect(corpus_home.state / "vault.db")
    rows = db.execute(
        "SELECT s.session_id, c.path, c.sha, c.change FROM changes c JOIN sessions s"
        " ON s.doc = c.doc WHERE c.committed = 1 AND c.sha != ''").fetchall()
    note_of = dict(db.execute("SELECT session_id, note FROM sessions").fetchall())
    db.close()
    mains = {str(expected_sid(m)): m for m in SESSIONS}
    seen = 0
    for sid, path, sha, change in rows:
        m = re.search(r"committed as (\S+), by git's count", change)
        if not m:
            continue
        seen += 1
        stat = git_counts(mains[sid])[sha[:7]]
        own = [p for s, p, h, c in rows if s == sid and h == sha and "by git's count" not in c]
        lines = file_lines(mains[sid])
        assert stat[0] == len(own) + 1, (path, sha, own, stat)
        counted = [lines[p] for p in [*own, path]]
        assert all(exact for _, _, exact in counted), (path, counted)
        assert (sum(a for a, _, _ in counted), sum(r for _, r, _ in counted)) == stat[1:], \
            (path, sha, counted, stat)
        assert any(p.endswith("/" + m.group(1)) and "the session's change to" in c
                   for s, p, h, c in rows if s == sid and h == sha), (path, sha)
        # The note's Files table says it as `vv files` does (review 26 #19),
        # in one row: the other name is the same file (review 27 #7).
        note = (corpus_home.vault / note_of[sid]).read_text(encoding="utf-8")
        assert f"committed as {m.group(1)}, by git's count |" in note, path
        table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0]
        assert "the session's change to" not in table, path
        assert not any(x.startswith(f"| `{m.group(1)}` |") or f"/{m.group(1)}` |" in x
                       for x in table.splitlines()), (path, table)
    assert seen >= 1
