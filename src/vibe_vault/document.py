"""What the search index holds of a session: its redacted text by kind, and
the files it changed. Pure: a session state in, a Document out.

Only text the state holds is used, and the state holds only text that passed
the redaction gate, so the index can never find a secret the notes do not show.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct, field

from vibe_vault.figures import Figures, title_of
from vibe_vault.fold.files import lines_mark
from vibe_vault.paths import is_windows_path
from vibe_vault.project import other_repository, repo_file
from vibe_vault.state import USER_SHELL, Commit, SessionState, worth_a_note
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
    answers: list[str] = [f.recap] if f.recap else []
    # Answers, and subagents' instructions and reports as the session saw them
    # (their own files, folded below, may repeat them: kept once).
    answers.extend(s.text for s in f.said if s.kind in ("answer", "task", "report"))
    for agent in state.agents.values():
        if not agent.foreign:
            answers.extend(s.text for s in agent.fold.work.said)
    if f.sidechain is not None:
        answers.extend(s.text for s in f.sidechain.said)
    actions: list[str] = []
    last_change: dict[str, str] = {}  # path -> when it was last edited
    for turn in f.turns:
        if turn.kind == USER_SHELL:
            actions.append(turn.text)  # the user's own command (its words are in `said` too)
        elif turn.kind == "command" or turn.detail == "queued":
            prompts.append(turn.text)  # (a queued prompt: as the note shows it)
        elif turn.kind != "prompt" and turn.detail:
            answers.append(turn.detail)  # a compaction's summary
        for action in turn.actions:
            if action.kind == "edit" and action.text and action.ts:
                last_change[action.text] = max(last_change.get(action.text, ""), action.ts)
            parts = [action.said, action.text]
            if action.kind not in ("bash", "edit"):  # there `detail` is a label of ours
                parts.append(action.detail)
            actions.append(" ".join(p for p in parts if p))
    prompts.extend(q.text for q in f.queued)
    for sub in f.subagents:
        actions.append(f"{sub.type} {sub.description}")
    commits = [c for _, c in work.commits]
    todos = [t.text for t in (f.todos or list(f.tasks.values()))]
    texts = {
        "title": " ".join(dict.fromkeys(t for t in (title, f.custom_title, f.ai_title,
                                                    f.own_summary) if t)),
        "prompts": "\n".join(prompts),
        "commits": "\n".join([f"{c.sha} {c.subject}" for c in commits]
                             + [p.url for p in f.prs]),
        "files": "\n".join(work.files),
        "actions": "\n".join(a for a in actions if a),
        "commands": "\n".join(c.command for _, c in work.commands),
        "errors": "\n".join(e.text for _, e in work.errors),
        "todos": "\n".join(todos),
        "answers": "\n".join(dict.fromkeys(answers)),
        "models": " ".join(dict.fromkeys([*f.models, *(m for a in state.agents.values()
                                                      if not a.foreign
                                                      for m in a.fold.models)])),
    }
    cwd = f.cwd or state.cwd_hint
    times = {path: _changed_at(last_change, fw.paths) for path, fw in work.files.items()}
    rows: list[FileRow] = []
    for path, fw in sorted(work.files.items()):
        own = [c for c in commits if _holds(c, path, cwd)]
        together = [p for p in times if own and all(_holds(c, p, cwd) for c in own)]
        row = FileRow(path, fw.change.added, fw.change.removed,
                      *_commit_after([path, *fw.paths], times[path], own,
                                     {p: times[p] for p in together}),
                      mark=lines_mark(fw.change))
        rows.append(row)
        old = repo_file(str(fw.change.moved_from), cwd)[0] if fw.change.moved_from else ""
        if old and old != path and old not in work.files:
            row.renamed_from = old
            rows.append(msgspec.structs.replace(row, path=old, renamed_from="", renamed_to=path))
    return Document(
        session_id=state.session_id, project=state.project,
        cwd=cwd, started=int(epoch(f.first_ts) or 0),
        ended=int(epoch(f.last_ts) or 0), note=state.note, status=state.status,
        texts=texts, files=rows)


def _holds(c: Commit, path: str, cwd: str) -> bool:
    """Whether the commit `c` may hold the file at `path`: both are in the
    same repository (the session's own, or the other one the commit was made
    in). A relative path is the session's own."""
    folder = path[: max(path.rfind("/"), path.rfind("\\"))]
    if not folder or not (path.startswith(("/", "\\")) or is_windows_path(path)):
        return not c.folder
    return not other_repository(folder, c.folder or cwd)


def _changed_at(last_change: dict[str, str], paths: list[str]) -> str:
    """When the main agent last edited the file, at any of the paths it was
    changed at (its copies in worktrees)."""
    return max((last_change.get(p, "") for p in paths), default="")


def _commit_after(paths: list[str], changed: str, commits: list[Commit],
                  times: dict[str, str]) -> tuple[str, str, bool]:
    """The first commit after a file's last change in the session (any, when
    no time tells it) that holds it by the session's evidence (fold.staged):
    its output or what was staged before it names the file; or it took every
    change (`git add -A`, `commit -a`) and git's count of files equals the
    files the session changed there since the commit before it, none changed
    after it (`times`: the last change of each, where known). None else: a commit made after a
    change need not hold it (the user may have committed it meanwhile)."""
    before = ""
    for c in commits:
        if changed and c.ts and c.ts < changed:
            before = c.ts
            continue
        holds = any(p in c.files for p in paths)
        if not holds and c.everything and c.count and changed and c.ts:
            # (only last changes are known: a file changed again after the
            # commit may have been in it too, so none may have been)
            since = [p for p, t in times.items() if t and before < t <= c.ts]
            holds = (before < changed and len(since) == c.count and all(times.values())
                     and all(t <= c.ts for t in times.values()))
        if holds:
            return ("" if c.stale else c.sha), c.subject, True
        before = c.ts or before
    return "", "", False
