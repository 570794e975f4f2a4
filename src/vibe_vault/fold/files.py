"""Files changed by Edit, MultiEdit, Write and NotebookEdit, with lines added
and removed. Feeds the note's Files changed section."""

from __future__ import annotations

import zlib
from typing import Any

from vibe_vault.entries import ToolInput, decode_raw
from vibe_vault.fold.context import Context, Outcome
from vibe_vault.fold.tools import is_secrets_file, learn_file
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, FileChange, Pending

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
MAX_FILES = 1000
PATH_CHARS = 300


# Where Claude Code keeps a plan made in plan mode; the model writes it there.
PLAN_FOLDER = "/.claude/plans/"
PLAN_CHARS = 3000


def on_call(ctx: Context, call: Pending, inp: ToolInput, ts: str) -> tuple[Action | None, bool]:
    path = str(inp.file_path or inp.notebook_path or "")
    if is_secrets_file(path):
        # A .env, credentials or key file written or edited: what goes into it
        # is kept out wherever it comes back (a shell's `cat > .env` is too).
        written = [decode_raw(inp.content), decode_raw(inp.new_string)]
        if isinstance(inp.edits, list):
            written += [e.get("new_string") for e in inp.edits if isinstance(e, dict)]
        for text in written:
            if isinstance(text, str) and text:
                learn_file(ctx, text)
    if call.name == "Write" and PLAN_FOLDER in path.replace("\\", "/"):
        plan = decode_raw(inp.content)
        if isinstance(plan, str):
            ctx.facts.plan_draft = ctx.text(plan.strip(), PLAN_CHARS, stated=True)
    call.file = ctx.name(path, PATH_CHARS)
    call.key = Redacted("file:" + call.file)
    call.est_added, call.est_removed = _estimate(call.name, inp)
    if call.name == "Write":
        call.digest = content_digest(inp.content)
    # Edits in a row to one file read as one line: "Edited `x` (+9 −2) ×3".
    return Action(kind="edit", text=call.file, detail=call.name, ts=ts,
                  tool_id=call.tool_id), True


def on_result(ctx: Context, call: Pending, action: Action | None, outcome: Outcome) -> None:
    if outcome.status != "ok" or not call.file:
        return
    facts = ctx.facts
    result = outcome.result
    added = removed = 0
    estimated = False
    op = "modified"
    if result is not None:
        if result.type == "create":
            op = "created"
        patch = result.structuredPatch
        if result.type == "update" and isinstance(patch, list) and not patch:
            pass  # the tool's own patch, empty: the file was written as it was
        elif isinstance(patch, list) and patch:
            for hunk in patch:
                lines = hunk.get("lines") if isinstance(hunk, dict) else None
                if not isinstance(lines, list):
                    continue
                try:  # counted in C over one joined string, not line by line
                    joined = "\n" + "\n".join(lines)
                except TypeError:
                    continue  # not all strings: a shape we do not know
                added += joined.count("\n+")
                removed += joined.count("\n-")
        elif op == "created" and result.content:
            added = count_json_lines(result.content)
        else:
            estimated = True
    else:
        estimated = True
    change = facts.files.get(call.file)
    if estimated and call.digest and change is not None and change.digest == call.digest:
        # No patch, but the very content this session last wrote there: nothing changed.
        estimated = False
    if estimated:
        added, removed = call.est_added, call.est_removed
    if call.name == "Write" and op == "modified" and result is None:
        op = "written"
    if change is None:
        if len(facts.files) >= MAX_FILES:
            facts.files_dropped += 1
            return
        change = facts.files[call.file] = FileChange()
    if call.name == "Write":
        change.digest = call.digest
    elif call.digest != change.digest:
        change.digest = ""  # an edit: what was written last is no longer what is there
    if op not in change.ops:
        change.ops.append(op)
    change.added += added
    change.removed += removed
    change.estimated = change.estimated or estimated
    if action is not None:
        action.added += added
        action.removed += removed
        if op == "created":
            action.detail = Redacted("created")


def _estimate(name: str, inp: ToolInput) -> tuple[int, int]:
    """Lines added/removed judged from a tool's input, for results without a patch."""
    if name == "Write":
        return count_json_lines(inp.content), 0
    if name == "NotebookEdit":
        return count_json_lines(inp.new_source), 0
    if name != "MultiEdit":
        return count_json_lines(inp.new_string), count_json_lines(inp.old_string)
    added = removed = 0
    if isinstance(inp.edits, list):
        for edit in inp.edits:
            if isinstance(edit, dict):
                added += count_lines(str(edit.get("new_string") or ""))
                removed += count_lines(str(edit.get("old_string") or ""))
    return added, removed


def content_digest(value: Any) -> str:
    """A short fingerprint of a Write's content, taken from its raw JSON bytes:
    a later Write of the same bytes changes nothing."""
    raw = bytes(value)
    return f"{zlib.crc32(raw):08x}{len(raw):x}" if raw else ""


def count_json_lines(value: Any) -> int:
    """Lines of a JSON string given raw (msgspec.Raw), without decoding it: a
    whole created file need not be copied into a str just to be counted."""
    raw = bytes(value)
    if not raw.startswith(b'"'):
        text = decode_raw(value)
        return count_lines(text) if isinstance(text, str) else 0
    if b"\\\\" in raw:
        # An escaped backslash is one character, and must not pair with what follows.
        raw = raw.replace(b"\\\\", b"_")
    if len(raw) <= 2:  # ""
        return 0
    return raw.count(b"\\n") + (0 if raw.endswith(b'\\n"') else 1)


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
