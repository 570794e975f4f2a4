"""What the search index holds of a session: its redacted text by kind, and
the files it changed. Pure: a session state in, a Document out.

Only text the state holds is used, and the state holds only text that passed
the redaction gate, so the index can never find a secret the notes do not show.
"""

from __future__ import annotations

import re

import msgspec
from msgspec import Struct, field

from vibe_vault.figures import Figures, title_of
from vibe_vault.fold.context import SAID_PIECE
from vibe_vault.fold.files import change_words, lines_mark
from vibe_vault.linediff import MAX_EDITS
from vibe_vault.linked_files import changed_by_another_name, linked_words
from vibe_vault.paths import is_windows_path
from vibe_vault.project import other_repository, repo_file
from vibe_vault.state import USER_SHELL, Commit, FileChange, SessionState, worth_a_note
from vibe_vault.times import epoch
from vibe_vault.work import work_of


class FileRow(Struct, array_like=True):
    """A file the session changed, and the commit the session shows holds the change."""

    path: str
    added: int
    removed: int
    commit: str = ""  # its sha (may be empty when git did not print one)
    subject: str = ""
    committed: bool = False
    mark: str = ""  # as the note's table tells its figures: "" exact, "≈" estimated, "?" unknown
    # A file renamed (`mv a b`, `git mv a b`): the new path's row says where
    # from, and a row under the old path says where to (so both find it).
    renamed_from: str = ""
    renamed_to: str = ""
    # What happened to it, in the note's words ("modified", "deleted by a
    # command", "copied by a command, modified"…): `vv files` tells it too.
    change: str = ""
    # The commit's own count, as git printed it (`2 files changed, 17
    # insertions(+), 1 deletion(-)`; files 0: none printed), and whether that
    # count shows it cannot hold all of the session's lines to this file
    # (review 22 #8). `earlier`: commits of the session before the file's
    # last change that hold it too.
    commit_files: int = 0
    commit_added: int = 0
    commit_removed: int = 0
    partly: bool = False
    earlier: list[str] = field(default_factory=list)


class Document(Struct):
    session_id: str
    project: str
    cwd: str
    started: int  # seconds since 1970, 0 when unknown
    ended: int
    note: str
    status: str
    texts: dict[str, str] = field(default_factory=dict)  # by column of search_query.COLUMNS
    files: list[FileRow] = field(default_factory=list)


def document_of(state: SessionState, fig: Figures | None = None) -> Document | None:
    """The session as the index holds it; None for a session with no note.
    `fig`, when the caller has rendered the note from them, saves working the
    session's work and title out again."""
    f = state.fold
    if not state.note or not worth_a_note(f):
        return None
    work = fig.work if fig is not None else work_of(state)
    title = fig.title if fig is not None else title_of(state)
    # The conversation in full (the turns keep a cut of it, and not the middle
    # turns): every prompt and answer text, subagents' too.
    prompts: list[str] = [s.text for s in f.said if s.kind == "prompt"]
    answers: list[str] = [s.text for s in f.said if s.kind == "answer"]
    # Subagents: what each was asked to do, and what it answered, as the
    # session saw them, then their own conversations (their files, or inline
    # in older layouts; these may repeat the former: kept once). A part of
    # their own, so a hit there says `subagent`, not the session's answer.
    subagents = [f"{sub.type} {sub.description}" for sub in f.subagents]
    subagents.extend(s.text for s in f.said if s.kind in ("task", "report"))
    for agent in state.agents.values():
        if not agent.foreign:
            subagents.extend(s.text for s in agent.fold.work.said)
    if f.sidechain is not None:
        subagents.extend(s.text for s in f.sidechain.said)
    actions: list[str] = []
    # The user's own `!` commands, whole: commands, not prompts nor Claude's actions.
    shell = [s.text for s in f.said if s.kind == "shell"]
    # What Claude Code wrote when it compacted the conversation: its summary
    # of the session so far, neither the user's words nor Claude's answer.
    compactions: list[str] = []
    for turn in f.turns:
        if turn.kind == USER_SHELL:
            pass  # (told whole in `shell`)
        elif turn.kind == "command" or turn.detail == "queued":
            prompts.append(turn.text)  # (a queued prompt: as the note shows it)
        elif turn.kind != "prompt" and turn.detail:
            compactions.append(turn.detail)
        for action in turn.actions:
            if action.kind == "agent":
                continue  # a subagent started: its type and description, under subagents
            parts = [action.said, action.text]
            if action.kind not in ("bash", "edit"):  # there `detail` is a label of ours
                parts.append(action.detail)
            actions.append(" ".join(p for p in parts if p))
    prompts.extend(q.text for q in f.queued)
    prompts, pasted = asked_and_pasted(prompts)
    commits = [c for _, c in work.commits]
    todos = [t.text for t in (f.todos or list(f.tasks.values()))]
    texts = {
        "title": "\n".join(dict.fromkeys(t for t in (title, f.custom_title, f.ai_title,
                                                    f.own_summary) if t)),
        "prompts": "\n".join(prompts),
        "commits": "\n".join([f"{c.sha} {c.subject}" for c in commits]
                             + [p.url for p in f.prs]),
        "files": "\n".join(work.files),
        "actions": "\n".join(a for a in actions if a),
        "commands": "\n".join([*(c.command for _, c in work.commands), *shell]),
        "errors": "\n".join(e.text for _, e in work.errors),
        "todos": "\n".join(todos),
        "subagents": "\n".join(dict.fromkeys(s for s in subagents if s.strip())),
        "answers": "\n".join(dict.fromkeys(answers)),
        "pasted": "\n".join(pasted),
        "compactions": "\n".join(compactions),
        "recaps": "\n".join(r.text for r in f.recaps),
        "models": " ".join(dict.fromkeys([*f.models, *(m for a in state.agents.values()
                                                      if not a.foreign
                                                      for m in a.fold.models)])),
    }
    cwd = f.cwd or state.cwd_hint
    rows: list[FileRow] = []
    linked = changed_by_another_name(work.files, work.committed, commits, cwd)
    for path, fw in sorted([*work.files.items(), *work.committed.items()]):
        own = [c for c in commits if _holds(c, path, cwd)]
        together = {p: w.change for p, w in work.files.items()
                    if own and all(_holds(c, p, cwd) for c in own)}
        # A command that changed files it did not name there: git's count of
        # a commit's files says nothing of which ones.
        blind = any(all(_holds(c, _inside(str(u.folder)), cwd) for c in own)
                    for _, u in work.unnamed)
        held, earlier = _commit_after(path, [path, *fw.paths], fw.change, own,
                                      {} if blind else together, cwd)
        link = linked.get(path)
        if held is None and link is not None:
            held = link[0]
        row = FileRow(path, fw.change.added, fw.change.removed,
                      *(("" if held.stale else held.sha, held.subject, True) if held else
                        ("", "", False)),
                      mark=lines_mark(fw.change), earlier=earlier)
        if held is not None and held.count:
            row.commit_files, row.commit_added, row.commit_removed = \
                held.count, held.inserted, held.deleted
            row.partly = _more_than_held(fw.change, held)
        rows.append(row)
        old = repo_file(str(fw.change.moved_from), cwd)[0] if fw.change.moved_from else ""
        row.change = change_words(fw.change, old)
        if link is not None:  # (one name of a file whose other name git counted)
            row.change = linked_words(row.change, link[1], path in work.files)
        if old and old != path and old not in work.files:
            row.renamed_from = old
            rows.append(msgspec.structs.replace(row, path=old, renamed_from="", renamed_to=path,
                                                change=f"renamed to {path} by a command"))
    return Document(
        session_id=state.session_id, project=state.project,
        cwd=cwd, started=int(epoch(f.first_ts) or 0),
        ended=int(epoch(f.last_ts) or 0), note=state.note, status=state.status,
        texts=texts, files=rows)


# A prompt longer than this is mostly something pasted into it (a log, a
# page's HTML, a file): its first HEAD and last TAIL characters, where people
# write what they ask ("why does this fail?"), are searched as the prompt; its
# middle as a part of its own (`pasted`), ranked with paths and commands, so
# a word scattered through a 40 kB paste does not rank the session above one
# that asked in those words.
LONG_PROMPT = 2000
HEAD = 1000
TAIL = 500
_WORD_CHAR = re.compile(r"[^\W_]")


def asked_and_pasted(prompts: list[str]) -> tuple[list[str], list[str]]:
    """The prompts as searched as the user's words (each long one's head and
    tail), and the middles of the long ones. Cut between words, never inside
    one (a word cut in two would be two words no one typed)."""
    asked: list[str] = []
    pasted: list[str] = []
    for text in prompts:
        if len(text) <= LONG_PROMPT:
            asked.append(text)
            continue
        head = _word_end(text, HEAD)
        # (a prompt the state kept a cut of, SAID_PIECE and its mark: its end
        # is the middle of what was pasted, not what the user typed after it)
        kept_whole = not (len(text) > SAID_PIECE // 2 and text.endswith("…"))
        tail = max(head, _word_end(text, len(text) - TAIL) if kept_whole else len(text))
        asked.append(text[:head] + "\n" + text[tail:] if tail < len(text) else text[:head])
        if text[head:tail].strip():
            pasted.append(text[head:tail])
    return asked, pasted


def _word_end(text: str, at: int) -> int:
    """`at`, or the start of the word `at` is inside (`at` itself inside a
    word of 100 characters or more: a run of base64 or a hash, no one's words)."""
    start = at
    while 0 < start < len(text) and _WORD_CHAR.match(text[start - 1]) \
            and _WORD_CHAR.match(text[start]):
        start -= 1
        if at - start >= 100:
            return at
    return start


def _holds(commit: Commit, path: str, cwd: str) -> bool:
    """Whether the commit `commit` may hold the file at `path`: both are in the
    same repository (the session's own, or the other one the commit was made
    in). A relative path is the session's own."""
    folder = path[: max(path.rfind("/"), path.rfind("\\"))]
    if not folder or not (path.startswith(("/", "\\")) or is_windows_path(path)):
        return not commit.folder
    return not other_repository(folder, commit.folder or cwd)


def _inside(folder: str) -> str:
    """A path in `folder`, to ask `_holds` which repository the folder is in."""
    return (folder.rstrip("/\\") or ".") + "/_"


_MADE = ("created", "created by a command", "copied by a command")


def _changed_between(files: dict[str, FileChange], after: str, until: str,
                     tracked: set[str] | None) -> set[str] | None:
    """The files changed after `after` until `until` (entry times), when the
    times of every change there are known; None else. `tracked` (not None):
    only those git tracks, so not one the session made unless an earlier
    commit is known to hold it (one in `tracked`)."""
    out: set[str] = set()
    for path, change in files.items():
        if not change.times or (change.times_cut and change.times[0] > after):
            return None  # changed at a time not known, or earlier changes let go
        if any(after < t <= until for t in change.times) and not (
                tracked is not None and path not in tracked
                and any(op in change.ops for op in _MADE)):
            out.add(path)
    return out


def _more_than_held(change: FileChange, commit: Commit) -> bool:
    """Whether git's count of the commit's lines (all its files) is less than
    the session's lines to this one: then the commit does not hold the
    change as the session counts it (some went into other commits, or was
    not committed). Only from exact figures of a shortest edit script
    (linediff): git's own diff of the same two contents is no shorter, and
    its insertions minus deletions are the same, so it inserts no fewer
    lines and deletes no fewer. Figures estimated (≈): when git's whole count
    is less than the session's lines to the file (9e953218's index.html, +75
    against ef55c7b's "5 deletions(-)"), it does not hold them as shown."""
    mark = lines_mark(change)
    if mark == "≈":
        return change.added + change.removed > commit.inserted + commit.deleted
    if mark:
        return False
    if change.added + change.removed <= MAX_EDITS:
        return change.added > commit.inserted or change.removed > commit.deleted
    # Past MAX_EDITS the figures are difflib's, maybe more than a shortest
    # script's; what any diff of the two contents inserts minus what it
    # deletes is still their difference in lines, and a shortest script is
    # over MAX_EDITS long (it was looked for that far): a7da6a22's
    # test_unit.py, +330 −13, inserts at least 317 lines, against e4e6a03's
    # "34 insertions(+)" of 2 files (review 25 L1).
    net = change.added - change.removed
    inserted = max(net, -(-(MAX_EDITS + 1 + net) // 2))
    deleted = max(-net, -(-(MAX_EDITS + 1 - net) // 2))
    return inserted > commit.inserted or deleted > commit.deleted


def _held_by_count(c: Commit, path: str, before: str, shown: set[str],
                   together: dict[str, FileChange], cwd: str) -> bool:
    """Whether commit `c` holds the file at `path` by git's count of its
    files: it took every change and the count equals the files of its
    repository the session changed since the commit before it (`before`), or
    `git add` named it since the session changed it and the count equals the
    files so named with those its output names."""
    if not (c.count and c.ts and together):
        return False
    if c.everything:
        since = _changed_between(together, before, c.staged_at or c.ts,
                                 shown if c.tracked else None)
        return since is not None and path in since and len(since) == c.count
    if not c.added:
        return False
    # (each named after a change of it since the commit before: staged)
    named: set[str] = set()
    by_time: dict[str, set[str] | None] = {}
    for p, at in zip(c.added, c.added_at, strict=False):
        until = at or c.ts
        if until not in by_time:
            by_time[until] = _changed_between(together, before, until, None)
        key = repo_file(str(p), cwd)[0]
        if key in (by_time[until] or ()):
            named.add(key)
    held = named | {repo_file(str(p), cwd)[0] for p in c.files}
    return path in named and len(held) == c.count


def _commit_after(path: str, paths: list[str], change: FileChange, commits: list[Commit],
                  together: dict[str, FileChange], cwd: str) -> tuple[Commit | None, list[str]]:
    """The first commit after a file's last change in the session (any, when
    no time tells it) that holds it by the session's evidence (fold.staged):
    its output or what was staged before it names the file; or it took every
    change (`git add -A`, `commit -a`) and git's count of files equals the
    files of its repository (`together`) the session changed since the commit
    before it there and before that add, this one among them ({} when that
    cannot be told); or `git add` named it since the session changed it, and
    git's count equals the files so named with those known held. None else:
    a commit made after a change need not hold it (the user may have
    committed it meanwhile). With it, the earlier commits (their shas) that
    hold the file by its name and were made after a change of it."""
    last = change.times[-1] if change.times else ""
    before = ""
    shown: set[str] = set()  # the files earlier commits are known to hold
    earlier: list[str] = []
    for c in commits:
        holds = any(p in c.files for p in paths)
        if last and c.ts and c.ts < last:
            # An earlier commit holds it by the same evidence as the last one
            # (9e953218's acf21f1 and 42b4429, `git add -A && git commit`,
            # "2 files changed" after the session changed two files there).
            if c.sha and not c.stale and change.times[0] < c.ts and (
                    holds or _held_by_count(c, path, before, shown, together, cwd)):
                earlier.append(str(c.sha))
            before = c.ts
            shown.update(repo_file(str(p), cwd)[0] for p in c.files)
            continue
        if not holds and last:
            holds = _held_by_count(c, path, before, shown, together, cwd)
        if holds:
            return c, earlier
        before = c.ts or before
        shown.update(repo_file(str(p), cwd)[0] for p in c.files)
    return None, earlier
