"""What the registry keeps of a session: its Record, made from its state.

Pure but for `stamp` (one `os.stat`): the Stop hook's path imports this
module, never the database (so the layout of staged records is here too).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import Struct, field

from vibe_vault.atomic import StrPath
from vibe_vault.figures import (
    Figures,
    RenderOptions,
    fallback_title,
    figures,
    named_title,
    open_thread_words,
    request_words,
)
from vibe_vault.state import SessionState, token_total, worth_a_note
from vibe_vault.times import utc_iso


class FileStamp(Struct, array_like=True):
    path: str
    size: int
    mtime_ns: int
    inode: int


class Record(Struct, omit_defaults=True):
    session_id: str
    project: str = ""
    note: str = ""
    title: str = ""
    summary: str = ""
    cwd: str = ""  # where the session ran: to resume it from
    started: str = ""
    ended: str = ""
    status: str = "active"
    end_reason: str = ""
    duration_minutes: int = 0
    active_minutes: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float = 0.0
    tokens_by_model: dict[str, list[int]] = field(default_factory=dict)
    cost_by_model: dict[str, float] = field(default_factory=dict)
    files_changed: list[str] = field(default_factory=list)
    tool_calls: int = 0
    prompts: int = 0
    # Replies whose usage the client recorded before they ended, and about how
    # many output tokens more than counted their text is: totals are lower bounds.
    output_short: int = 0
    output_unrecorded: int = 0
    open_tasks: list[str] = field(default_factory=list)
    files: list[FileStamp] = field(default_factory=list)
    first_parent: str = ""
    logical_parent: str = ""
    leaf_refs: list[str] = field(default_factory=list)
    # Summaries this session's file holds of other sessions, by the uuid of the
    # entry they end at (Claude Code 1.0 writes a session's summary into the next one).
    summaries: dict[str, str] = field(default_factory=dict)
    tail_uuids: list[str] = field(default_factory=list)
    has_note: bool = False
    unknown: dict[str, int] = field(default_factory=dict)  # entry types by Claude Code version
    previous: str = ""  # the links last written into the note, so a link pass
    next: str = ""  # can tell what changed without loading every state
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)
    told_elsewhere: str = ""  # this session's summary from another session's file, as applied
    title_tag: str = ""  # what tells its title from the same title of other sessions
    # Its first request's words (all its lines): where the words that tell it
    # from another session opened alike come from.
    request_words: str = ""
    # Its title's parts, so the index can tell its title with another summary:
    # Claude Code's name for it in its own file, else what stands in for one.
    named_title: str = ""
    fallback_title: str = ""


def total_tokens(rec: Record | Any) -> int:
    """A record's tokens (or a registry Summary's: the same fields), as its note
    shows them (state.token_total)."""
    return int(token_total(rec.input_tokens, rec.output_tokens, rec.cache_read_tokens,
                           rec.cache_creation_tokens))


def stamp(path: StrPath, read: int | None = None) -> FileStamp | None:
    """A file's stamp as the registry keeps it: what tells a later run the
    file is as it was read. `read`: the bytes of it the state has folded; a
    file read only in part (a SessionEnd its deadline cut short) is stamped
    with that size, so no run takes it for read whole and passes it over."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    from vibe_vault.stored_paths import file_key

    size = st.st_size if read is None or read >= st.st_size else read
    # (by its key, not its path: a folder may be named with a token, see stored_paths)
    return FileStamp(path=file_key(os.fspath(path)), size=size,
                     mtime_ns=st.st_mtime_ns, inode=st.st_ino)


def _read_of(state: SessionState, files: Sequence[StrPath]) -> list[int | None]:
    """For each file (the transcript, then subagent files), the bytes of it
    the state has folded (None: a file the state does not know)."""
    from vibe_vault.locations import agent_key

    out: list[int | None] = []
    for i, path in enumerate(files):
        if i == 0:
            out.append(state.cursor.offset)
            continue
        agent = state.agents.get(agent_key(files[0], path))
        out.append(agent.cursor.offset if agent is not None else None)
    return out


# A record's bytes, as the registry's rows and a staged record hold them.
encode_record = msgspec.msgpack.Encoder().encode


class Row(Struct, array_like=True):
    """A record as its rows are written: the columns, the whole record encoded
    (`body`), its files' stamps and unknown entry types. Made where the
    record is (a backfill worker), so the process that writes the database
    neither decodes a whole record nor encodes it again."""

    session_id: str
    project: str
    started: str
    ended: str
    status: str
    has_note: bool
    note: str
    active_minutes: int
    cost_usd: float
    body: bytes
    files: list[FileStamp]
    unknown: dict[str, int]


def row_of(rec: Record) -> Row:
    return Row(rec.session_id, rec.project, rec.started, rec.ended, rec.status, rec.has_note,
               rec.note, rec.active_minutes, rec.cost_usd, encode_record(rec), rec.files,
               rec.unknown)


def make_record(state: SessionState, files: Sequence[StrPath], opts: RenderOptions,
                fig: Figures | None = None) -> Record:
    """The registry record of a session, from its state (and its figures, when
    the note was just rendered from them)."""
    fig = fig or figures(state, opts)
    f = state.fold
    by_model = {model: [t.input, t.output, t.cache_read, t.cache_creation]
                for model, t in fig.tokens.items()}
    cost_by_model = {model: round(c, 6) for model, c in fig.costs.items()}
    stamps = [s for s in (stamp(p, read) for p, read in zip(files, _read_of(state, files),
                                                             strict=True)) if s is not None]
    project = state.project
    if not project and f.foreign_summaries and f.cwd:
        # No note, but summaries of the project's sessions: found by its project.
        from vibe_vault.project import project_name

        project = project_name(f.cwd)
    return Record(
        session_id=state.session_id,
        project=project,
        note=state.note,
        title=fig.title,
        summary=fig.summary,
        cwd=f.cwd,
        started=utc_iso(f.first_ts) if f.first_ts else "",
        ended=utc_iso(f.last_ts) if f.last_ts else "",
        status=state.status,
        end_reason=fig.end_reason,
        duration_minutes=fig.wall_minutes,
        active_minutes=fig.active_minutes,
        input_tokens=fig.total.input,
        output_tokens=fig.total.output,
        cache_read_tokens=fig.total.cache_read,
        cache_creation_tokens=fig.total.cache_creation,
        cost_usd=fig.cost,
        tokens_by_model=by_model,
        cost_by_model=cost_by_model,
        # As the note counts them: the subagents' too, a worktree's file under
        # its path in the repository, not one changed back to what it was.
        files_changed=sorted(fig.work.changed)[:200],
        tool_calls=fig.tool_calls,
        prompts=f.prompts,
        output_short=fig.total.short,
        output_unrecorded=fig.total.unrecorded,
        open_tasks=open_thread_words(state, fig.ending)[:22],
        files=stamps,
        first_parent=f.first_parent,
        logical_parent=f.logical_parent,
        leaf_refs=list(f.leaf_refs),
        summaries={str(leaf): str(text) for leaf, text in f.foreign_summaries.items()},
        tail_uuids=list(f.tail_uuids),
        has_note=bool(state.note) and worth_a_note(f),
        unknown=_unknown(state),
        previous=state.previous,
        next=state.next,
        continues=state.continues,
        continued_by=list(state.continued_by),
        told_elsewhere=state.told_elsewhere,
        title_tag=state.title_tag,
        named_title=named_title(state),
        fallback_title=fallback_title(state),
        request_words=request_words(state),
    )


def _unknown(state: SessionState) -> dict[str, int]:
    counts: dict[str, int] = {str(kind): n for kind, n in state.fold.unknown.items()}
    for af in state.agents.values():
        for k, n in af.fold.unknown.items():
            counts[k] = counts.get(k, 0) + n
    return counts
