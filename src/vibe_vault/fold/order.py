"""Claude's answer written before the prompt it answers.

Claude Code 2.1.197 (an instant API, an interactive session) may write the
answer's line before the prompt's: the answer's `parentUuid` names a line that
comes after it (the prompt, or an attachment chained to it). Folded in file
order, the answer would open a turn of its own ("Continued") or land in the
turn before, and the prompt would read as unanswered.

So an assistant line whose parent is none of the latest lines' uuids is kept
in mind (`Fold.orphan`, in the state: the fold law holds at every split) with
the lines chained to it, and where they were folded. When the parent comes,
and a prompt opened a turn since, what they brought (their actions, the
answer, the thinking) moves into that turn, and the turn they were folded into
gets back what it held before them. A parent that never comes (a compaction, a
resumed session, a parent in another file: common) changes nothing: the record
is dropped after ORPHAN_AGE lines that are not theirs.
"""

from __future__ import annotations

from vibe_vault.entries import Entry
from vibe_vault.fold.context import MAX_ACTIONS, Context
from vibe_vault.redact import Redacted
from vibe_vault.state import Orphan, Turn

RECENT_UUIDS = 32  # a line's parent is almost always among the few lines before it
ORPHAN_AGE = 32  # lines (not chained to them) waited for the parent of words written before it
MAX_RUN = 16  # the latest uuids of the lines chained to those words, to follow the chain
ASKED = ("prompt", "command")  # the turns an answer can belong to


def before(ctx: Context, entry: Entry) -> None:
    """Before a main-transcript line is folded: an answer whose parent is not
    known yet starts a record of where it is folded."""
    facts = ctx.facts
    parent = entry.parentUuid
    if entry.type != "assistant" or entry.isSidechain or not parent or not entry.uuid:
        return
    uuids = ctx.recent_uuids()
    key = ctx.uuid(parent)
    if key in uuids:
        return
    rec = facts.orphan
    if rec is not None and rec.open and key in rec.run:
        return  # chained to words already waiting: part of them
    ctx.flush()  # (what the turn held before them is in the state now)
    t = ctx.turn()
    facts.orphan = Orphan(
        parent=key, turn_no=ctx.turn_no(), first_action=len(t.actions) if t else 0,
        working=t.working if t else False,
        answer=t.answer if t else Redacted(""),
        answer_redactions=t.answer_redactions if t else 0,
        thinking=t.thinking if t else Redacted(""),
        thinking_redactions=t.thinking_redactions if t else 0)
    ctx.orphan_began = True


def after(ctx: Context, entry: Entry) -> None:
    """After a main-transcript line is folded: follow the waiting words' chain,
    or, the line being their parent, move them where they belong."""
    facts = ctx.facts
    rec = facts.orphan
    uuid = ctx.uuid(entry.uuid) if entry.uuid else None
    if rec is not None:
        if ctx.orphan_began:
            ctx.orphan_began = False
            _began(ctx, rec, uuid)
        elif uuid is not None and uuid == rec.parent:
            facts.orphan = None
            _adopt(ctx, rec)
            t = ctx.turn()
            if t is not None and rec.run:
                t.end = rec.run[-1]  # (the latest line chained to the parent: fold.rewinds)
        else:
            _follow(ctx, rec, entry, uuid)
    if uuid is not None:
        seen(ctx, uuid)


def seen(ctx: Context, uuid: object) -> None:
    """A line's uuid, among the latest lines'."""
    if not isinstance(uuid, str):
        return
    key = ctx.uuid(uuid)
    recent = ctx.facts.recent_uuids
    uuids = ctx.recent_uuids()
    recent.append(key)
    uuids.add(key)
    if len(recent) > RECENT_UUIDS:
        gone = recent.pop(0)
        if gone not in recent:
            uuids.discard(gone)


def _began(ctx: Context, rec: Orphan, uuid: Redacted | None) -> None:
    """The answer that began the record is folded: where it went."""
    no = ctx.turn_no()
    if no != rec.turn_no:  # it opened a turn (none was under way)
        rec.turn_no, rec.made, rec.first_action = no, True, 0
    if uuid is not None:
        rec.run.append(uuid)
    _note(ctx, rec)


def _follow(ctx: Context, rec: Orphan, entry: Entry, uuid: Redacted | None) -> None:
    """A line after the waiting words, not their parent: one chained to them
    (in the same turn) is theirs; any other line ends them, and counts
    towards how long their parent is waited for."""
    facts = ctx.facts
    same_turn = ctx.turn_no() == rec.turn_no
    if rec.open and same_turn and uuid is not None and not entry.isSidechain and entry.parentUuid \
            and ctx.uuid(entry.parentUuid) in rec.run:
        rec.run.append(uuid)
        del rec.run[:-MAX_RUN]  # (a chain's next line names one of its latest)
        _note(ctx, rec)
        return
    if uuid is None and same_turn:
        return  # (a line without a uuid: a snapshot, a title) chained to nothing
    rec.open = False
    if uuid is not None:
        rec.age += 1
        if rec.age > ORPHAN_AGE:
            facts.orphan = None  # its parent is elsewhere (another file, a compaction)


def _note(ctx: Context, rec: Orphan) -> None:
    """What the waiting lines brought to their turn so far."""
    t = ctx.turn()
    if t is None:
        return
    rec.last_action = len(t.actions)
    if ctx.held_turn == rec.turn_no:
        rec.wrote = rec.wrote or ctx.held_answer is not None
        rec.thought = rec.thought or ctx.held_thinking is not None


def _adopt(ctx: Context, rec: Orphan) -> None:
    """The parent has come: what the waiting lines brought moves into the turn
    under way, if a prompt opened it since they were folded."""
    facts = ctx.facts
    no = ctx.turn_no()
    src, dst = ctx.turn_at(rec.turn_no), ctx.turn()
    if no <= rec.turn_no or src is None or dst is None or dst.kind not in ASKED:
        return
    ctx.flush()
    first, last = rec.first_action, min(rec.last_action, len(src.actions))
    moved = src.actions[first:last]
    room = max(0, MAX_ACTIONS - len(dst.actions))
    base = len(dst.actions)
    del src.actions[first:last]
    dst.actions.extend(moved[:room])
    dst.more_actions += max(0, len(moved) - room)
    for call in facts.pending.values():
        if call.turn_no != rec.turn_no or call.action_no < first:
            continue
        if call.action_no >= last:
            call.action_no -= len(moved)
        elif call.action_no - first < room:
            call.turn_no, call.action_no = no, base + call.action_no - first
        else:
            call.turn_no = call.action_no = -1
    if moved or rec.wrote:  # the turn's latest word is theirs: did it end in a call?
        dst.working, src.working = src.working, rec.working
    if rec.wrote:
        facts.redactions += rec.answer_redactions - dst.answer_redactions
        dst.answer, dst.answer_redactions = src.answer, src.answer_redactions
        src.answer, src.answer_redactions = rec.answer, rec.answer_redactions
    if rec.thought:
        facts.redactions += rec.thinking_redactions - dst.thinking_redactions
        dst.thinking, dst.thinking_redactions = src.thinking, src.thinking_redactions
        src.thinking, src.thinking_redactions = rec.thinking, rec.thinking_redactions
    if rec.made and not facts.turns_dropped and _empty(src):
        _drop_turn(ctx, rec.turn_no)


def _empty(turn: Turn) -> bool:
    return turn.kind == "continued" and not (turn.actions or turn.more_actions or turn.answer
                                          or turn.thinking or turn.detail or turn.reply)


def _drop_turn(ctx: Context, no: int) -> None:
    """Take out turn `no` (numbered as kept: nothing was dropped before it)."""
    facts = ctx.facts
    del facts.turns[no]
    for call in facts.pending.values():
        if call.turn_no > no:
            call.turn_no -= 1
