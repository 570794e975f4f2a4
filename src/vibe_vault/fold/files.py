"""Files changed by Edit, MultiEdit, Write and NotebookEdit, with lines added
and removed. Feeds the note's Files changed section."""

from __future__ import annotations

import posixpath
from typing import Any

from vibe_vault.entries import ToolInput, ToolResult, decode_raw
from vibe_vault.fold import errors, shell_files
from vibe_vault.fold.context import CallEnd, Context
from vibe_vault.fold.todos import PLAN_FULL_CHARS
from vibe_vault.fold.tools import is_secrets_file, learn_file
from vibe_vault.linediff import (
    HASH,
    apply_edits,
    apply_patch,
    diff_counts,
    edit_lines,
    key_id,
    line_hashes,
    patch_counts,
    reversed_patch,
)
from vibe_vault.paths import is_windows_path
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, FileChange, Fold, Pending, ShellFile, Unnamed
from vibe_vault.text import rx

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
MAX_FILES = 1000
MAX_FILE_LINES = 20_000  # a longer file's contents are not followed: its changes are summed
MAX_KEPT = 2 << 20  # bytes of line fingerprints a session's state keeps, all files together
PATH_CHARS = 300
CREATED_SAID = "File created successfully"
# A file's figures as git's output counted them (vibe_vault.work): said on its row.
GIT_COUNTED = "lines: git's count"
REVERTED = "reverted "  # how fold.reverts tells a file put back as it was (its ops start so)


# Where Claude Code keeps a plan made in plan mode; the model writes it there.
PLAN_FOLDER = "/.claude/plans/"


def is_plan_file(path: str) -> bool:
    return PLAN_FOLDER in path.replace("\\", "/")


def on_call(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
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
    if is_plan_file(path):
        # Claude Code's own plan file (plan mode), under ~/.claude/plans/: the
        # plan, told as such where it is put to the user, not a change to the
        # project (never among the files changed).
        call.plan = True
        call.key = Redacted("file:" + ctx.name(path, PATH_CHARS))  # what an error names
        if call.name == "Write":
            plan = decode_raw(inp.content)
            if isinstance(plan, str):
                ctx.facts.plan_draft = ctx.text(plan.strip(), PLAN_FULL_CHARS, stated=True)
        return Action(kind="plan-file", detail=Redacted(call.name), ts=timestamp,
                      tool_id=call.tool_id), True
    name = ctx.name(path, PATH_CHARS)
    call.file = linked(ctx.facts, name)  # (through a link the session made: its target)
    call.key = Redacted("file:" + name)
    call.est_added, call.est_removed = _estimate(call.name, inp)
    if call.name == "Write" and call.est_added <= MAX_FILE_LINES:
        content = decode_raw(inp.content)
        if isinstance(content, str):
            call.lines, call.kept = line_hashes(content), True
    elif call.name in ("Edit", "MultiEdit"):
        call.edits = _edit_lines(call.name, inp)
    # Edits in a row to one file read as one line: "Edited `x` (+9 −2) ×3".
    return Action(kind="edit", text=name, detail=call.name, ts=timestamp,
                  tool_id=call.tool_id), True


def on_result(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    """A change that succeeded: its own lines (the story's "+9 −2"), and the
    file's net lines from the first content the session saw to the last (the
    table's)."""
    if call.plan and outcome.status == "ok" and call.name in ("Edit", "MultiEdit"):
        # The plan edited: as its result tells it, for when it is put to the user.
        original = _original(outcome.result)
        edited = _edited(original, outcome.result) if original is not None else None
        if edited is not None:
            ctx.facts.plan_draft = ctx.text(edited.strip(), PLAN_FULL_CHARS, stated=True)
    if outcome.status != "ok" or not call.file:
        return
    facts = ctx.facts
    result = outcome.result
    change = _change_of(facts, call.file)
    if change is None:
        return
    op = "modified"
    patch = result.structuredPatch if result is not None else None
    if (result is not None and result.type == "create") or (
            call.name == "Edit" and result is None and outcome.text.startswith(CREATED_SAID)):
        # (an Edit of an empty old string makes a file not there: Claude Code
        # says so, "File created successfully at: …", and it is one created)
        op = "created"
    # The content before: as the result gives it (Claude Code 1.0.x and 2.x),
    # none for a file created, or as the session last knew it.
    original = _original(result)
    before = line_hashes(original) if original is not None else None
    outside = before is not None and original is not None and _outside(ctx, change, before,
                                                                       original)
    if outside and before is not None:
        # What was changed outside: from what the session left to what the
        # result says the file held (c5607325: a line the user typed).
        plus, minus = diff_counts(change.now, before)
        change.outside_added += plus
        change.outside_removed += minus
    if before is None and op == "created":
        before = b""
    after: bytes | None = None
    if call.name == "Write" and call.kept:
        after = call.lines
        if before is None and isinstance(patch, list) and result is not None and \
                result.type == "update":
            # A Write's patch turned round on its content: the file before it
            # (an empty patch: the same content).
            before = apply_patch(after, reversed_patch(patch))
    # The file as last read whole (where no result tells it), after its last change.
    read = facts.read_lines.pop(call.file, None)
    if before is None and read is not None:
        before = read
    if before is None and change.known:
        before = change.now
    if after is None and call.name in ("Edit", "MultiEdit") and before is not None:
        edited = _edited(original, result) if original is not None else None
        # Without the text, the tool's patch applied to the lines (its lines
        # are as shown: where they are not the file's, nothing is followed);
        # without a patch, the input's replacements made in them.
        after = line_hashes(edited) if edited is not None else apply_patch(before, patch) \
            if isinstance(patch, list) else apply_edits(before, call.edits)
    step = patch_counts(patch) if isinstance(patch, list) and (
        patch or (result is not None and result.type == "update")) else None
    estimated = False
    if step is None and before is not None and after is not None:
        step = diff_counts(before, after)
    if step is None and op == "created" and result is not None and result.content:
        step = count_json_lines(result.content), 0
    if step is None:
        estimated = True
        step = call.est_added, call.est_removed
    if after is not None and len(after) > MAX_FILE_LINES * HASH:
        after = None  # too long to keep: counted, not followed
    _follow(facts.files, change, call.name, before, after, step, estimated)
    change.mark = facts.may_write + 1 if change.known else 0
    _touched(ctx, call.file)
    change.gone = False
    if call.name == "Write" and op == "modified" and result is None:
        op = "written"
    if op not in change.ops:
        change.ops.append(op)
    if outside and CHANGED_OUTSIDE not in change.ops:
        change.ops.append(CHANGED_OUTSIDE)
    change.steps += 1
    if action is not None:
        action.added += step[0]
        action.removed += step[1]
        if op == "created":
            action.detail = Redacted("created")


# What the table adds of a file the session found changed between its own
# changes, with nothing of the session's run in between that may have changed
# it: the user's editor, a hook, another program.
CHANGED_OUTSIDE = "changed outside the session too"


def _outside(ctx: Context, change: FileChange, before: bytes, original: str) -> bool:
    """Whether to mark `change` CHANGED_OUTSIDE: the content a result says the file
    had (`before`, from `original`) is not the one the session's last change
    left, and nothing the session ran since may have changed it (a command
    that does not only look, a subagent, anything in the background). The
    main agent's only: a subagent's file does not say what the others did."""
    facts = ctx.facts
    if ctx.agent or not change.known or change.mark != facts.may_write + 1 or \
            facts.unwatched or before == change.now:
        return False
    # The same lines but for their ends (the tool writing them as the file
    # had them) or blank lines at the end (a newline the tool adds at the
    # end: 326189cf's MultiEdit): not a change of anyone's.
    lines = original.replace("\r\n", "\n").rstrip("\n")
    now = _no_blank_end(change.now)
    return all(_no_blank_end(line_hashes(x)) != now for x in (lines, lines + "\n"))


def _no_blank_end(lines: bytes) -> bytes:
    blank = line_hashes("\n")
    while lines.endswith(blank):
        lines = lines[:-len(blank)]
    return lines


MAX_CHANGE_TIMES = 64
MAX_READS = 64  # files whose lines as read are kept, the latest
MAX_READ_LINES = 2000  # a Read's own limit: a file of as many lines may go on
MAX_READ_LINE_CHARS = 2000  # a longer line is cut short in what a Read shows
_NUMBERED = r"^ *(\d+)(?:\t|\u2192)"  # "12\tline" (2.1.1xx), "    12→line" (before)


def on_read(ctx: Context, call: Pending, outcome: CallEnd) -> None:
    """A whole file read where no result tells its content (2.1.114's
    subagent files): its lines, as the Read shows them numbered, are what a
    change of it made next (with no result to say) is made in."""
    if not call.whole or outcome.status != "ok" or not call.file:
        return
    content = numbered_content(outcome.text) if outcome.result is None else \
        _whole_file(outcome.result)
    if content is None:
        return
    reads = ctx.facts.read_lines
    reads.pop(call.file, None)
    reads[call.file] = line_hashes(content)
    from vibe_vault.fold import reverts  # (it imports this module)

    reverts.on_read(ctx, call.file, reads[call.file])
    while len(reads) > MAX_READS or sum(map(len, reads.values())) > MAX_KEPT // 4:
        del reads[next(iter(reads))]


def _whole_file(result: ToolResult) -> str | None:
    """The file a Read's result holds (`file.content`), when it is the whole
    file (as many lines as the file has): what a later `rm` of it removes."""
    if not bytes(result.file):
        return None
    read = decode_raw(result.file)
    if not isinstance(read, dict):
        return None
    content, lines, total = read.get("content"), read.get("numLines"), read.get("totalLines")
    if not isinstance(content, str) or (isinstance(total, int) and lines != total) or \
            read.get("startLine", 1) != 1 or content.count("\n") > MAX_FILE_LINES:
        return None
    return content


def numbered_content(text: str) -> str | None:
    """The file a Read shows as numbered lines ("1\tline": an empty last
    line is the file's last newline), with only Claude Code's reminders after
    them; None when it may not be the whole file (as many lines as a Read
    shows at most, a line as long as it cuts) or is not in that shape."""
    pattern = rx(_NUMBERED)
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        m = pattern.match(line)
        if m is None or int(m.group(1)) != len(out) + 1:
            break
        out.append(line[m.end():])
    rest = "\n".join(lines[len(out):]).strip()
    if not out or len(out) >= MAX_READ_LINES or any(len(x) >= MAX_READ_LINE_CHARS for x in out) \
            or (rest and not rest.startswith("<system-reminder>")):
        return None
    return "\n".join(out)


def _touched(ctx: Context, path: Redacted) -> None:
    """The file at `path` changed now: its net lines are worked out at the
    read's end (finish), and the time is kept (FileChange.times)."""
    ctx.files_touched.add(path)
    ctx.facts.read_lines.pop(path, None)  # (read before this change: not its content now)
    change = ctx.facts.files.get(path)
    if change is not None and change.ops and change.ops[-1].startswith(REVERTED):
        change.ops.pop()  # (changed again since it was reverted)
    ts = ctx.entry_ts
    if change is None or not ts or (change.times and change.times[-1] == ts):
        return
    change.times.append(ts)
    if len(change.times) > MAX_CHANGE_TIMES:
        del change.times[0]
        change.times_cut = True


def created_by_commit(ctx: Context, path: Redacted) -> None:
    """git's output says a commit created the file (`create mode 100644 f`):
    it was nothing before, as a Write over a file not known took it."""
    change = ctx.facts.files.get(path)
    if change is not None and change.new_guess and change.anchored and not change.base:
        change.new_guess = False
        ctx.files_touched.add(path)  # (its figures: no longer estimated for that)


def _change_of(facts: Fold, path: Redacted) -> FileChange | None:
    """The file's change so far, made when new; None (and counted as dropped)
    when the note already lists as many files as it keeps."""
    change = facts.files.get(path)
    if change is None:
        if len(facts.files) >= MAX_FILES:
            facts.files_dropped += 1
            return None
        change = facts.files[path] = FileChange()
    return change


def _original(result: ToolResult | None) -> str | None:
    """The file before the change, when the result has it (only for a while:
    the state keeps its lines' fingerprints, never its text)."""
    if result is None:
        return None
    raw = result.originalFile if bytes(result.originalFile) else result.originalFileContents
    if not bytes(raw):
        return None
    text = decode_raw(raw)
    if not isinstance(text, str) or text.count("\n") > MAX_FILE_LINES:
        return None
    return text


def _edited(text: str, result: ToolResult | None) -> str | None:
    """The file after an Edit's or MultiEdit's replacements, as the result
    gives them, are made in `text`; None when one is not found there."""
    if result is None:
        return None
    edits: Any = decode_raw(result.edits) if bytes(result.edits) else None
    if not isinstance(edits, list):
        edits = [{"old_string": decode_raw(result.oldString),
                  "new_string": decode_raw(result.newString),
                  "replace_all": result.replaceAll}]
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
            return None
        text = text.replace(old, new) if edit.get("replace_all") is True else \
            text.replace(old, new, 1)
    return text


def _follow(files: dict[Redacted, FileChange], change: FileChange, tool: str,
            before: bytes | None, after: bytes | None, step: tuple[int, int],
            estimated: bool) -> None:
    """Move the file's known contents on by one change.

    The net lines are those between the first content known and the last:
    a content known before a change that differs from the one the session
    left (a formatter hook, the user's editor) is simply the file's content
    from then on, so what was changed in between is counted once, as git
    shows it. Where a change's content after is not known, its own lines
    are counted (estimated) until a content is known again."""
    if not change.anchored:
        first = change.steps == 0 and not change.settled_added and not change.settled_removed
        if before is not None:
            change.anchored, change.base = True, before
            change.guessed = change.guessed or not first
        elif after is not None and tool == "Write" and first:
            # A Write over contents not known: its lines are counted as all
            # new (estimated, until git says it made the file), as if the
            # file had been empty.
            change.anchored, change.base, change.new_guess = True, b"", True
        elif after is not None:
            change.settled_added += step[0]
            change.settled_removed += step[1]
            change.anchored, change.base, change.guessed = True, after, True
        else:
            # Nothing known: each change's own lines, exact only for a lone one.
            change.settled_added += step[0]
            change.settled_removed += step[1]
            change.guessed = change.guessed or estimated or not first
    if change.anchored:
        if after is not None:
            change.known, change.now = True, after
            change.loose_added = change.loose_removed = 0
        else:
            if before is not None:
                change.now, change.loose_added, change.loose_removed = before, 0, 0
            change.known = False
            change.loose_added += step[0]
            change.loose_removed += step[1]
        if sum(len(c.base) + len(c.now) for c in files.values()) > MAX_KEPT:
            _settle(change)  # the state keeps no more lines: counted from here on
    if not change.anchored:
        change.added, change.removed = change.settled_added, change.settled_removed
        change.estimated = change.guessed


def finish(ctx: Context) -> None:
    """The net lines of each file this read changed, once (not at each change:
    a file edited 50 times in a read is compared once, first with last)."""
    for path in ctx.files_touched:
        change = ctx.facts.files.get(path)
        if change is None or not change.anchored:
            continue
        plus, minus = diff_counts(change.base, change.now)
        change.added = change.settled_added + plus + change.loose_added
        change.removed = change.settled_removed + minus + change.loose_removed
        change.estimated = change.guessed or change.new_guess or not change.known
    ctx.files_touched.clear()


def rekey(facts: Fold) -> None:
    """Fingerprints made with another key (an older version's, unkeyed) are
    never compared with new ones: the files followed stop being followed
    (their net lines so far are counted) and calls waiting forget their lines."""
    current = key_id()
    if facts.lines_key == current:
        return
    for change in facts.files.values():
        _settle(change)
    for call in facts.pending.values():
        call.lines, call.kept = b"", False
    facts.lines_key = current


def _settle(change: FileChange) -> None:
    """Stop following the file's contents: their net lines so far are counted,
    and the figures are estimated from here on."""
    if change.anchored:
        plus, minus = diff_counts(change.base, change.now)
        change.settled_added += plus + change.loose_added
        change.settled_removed += minus + change.loose_removed
    change.known = change.anchored = False
    change.base = change.now = b""
    change.loose_added = change.loose_removed = 0
    change.guessed = True


# -- files a shell command wrote, deleted, renamed or made ------------------------------

MAX_SEEN = 1000
MAX_TREES = 50  # folders removed whole, the latest
DELETED_BY_COMMAND = "deleted by a command"


def on_listed(ctx: Context, call: Pending, outcome: CallEnd) -> None:
    """Files the session now knows are there: one it read, those a Glob or
    Grep found (what a later `rm -r dir` takes with it)."""
    if outcome.status != "ok":
        return
    facts = ctx.facts
    if call.name in ("Read", "NotebookRead"):
        found: list[Redacted] = [call.file] if call.file else []
    else:
        names = outcome.result.filenames if outcome.result is not None else None
        if not isinstance(names, list):
            return
        found = [ctx.name(_placed(n, str(facts.cwd)), PATH_CHARS)
                 for n in names[:MAX_SEEN] if isinstance(n, str) and n]
    if not found:
        return
    known = set(facts.seen)
    facts.seen.extend(p for p in dict.fromkeys(found) if p not in known)
    if len(facts.seen) > MAX_SEEN:
        del facts.seen[:len(facts.seen) - MAX_SEEN]


def shell_writes(ctx: Context, command: str) -> list[ShellFile]:
    """The files a Bash command writes (`cat > f <<'EOF'`, `tee f`, `echo … >
    f`), deletes, renames or makes: placed under the session's folder (or the
    one a `cd` before them names), with a here-document's lines as fingerprints."""
    cwd = str(ctx.facts.cwd)
    found = shell_files.writes(command, shell_files.home_of(cwd))
    if not found:
        return []
    out = []
    for w in found:
        base = _placed(w.at, cwd) if w.at else cwd
        path = _placed(w.path, base)
        if not path or is_plan_file(path):
            continue
        if w.body is not None and is_secrets_file(path):
            learn_file(ctx, w.body)  # what goes into a .env is kept out wherever it comes back
        sf = ShellFile(path=ctx.name(path, PATH_CHARS), append=w.append, kind=w.kind,
                       into=w.into, forced=w.forced, unsure=w.unsure, listed=w.listed,
                       quiet=w.quiet, skippable=w.skippable, guarded=w.guarded,
                       proofs=[ctx.name(p, PATH_CHARS) for p in w.proofs])
        if w.kind == shell_files.FORMAT:
            sf.to = Redacted(w.to)  # (its label: vibe-vault's own words)
        elif w.kind == shell_files.LINK:
            # A link's target is placed from the link's own folder, not from here.
            link = _joined(path, _base_name(w.to)) if w.into else path
            sf.path = ctx.name(link, PATH_CHARS)
            sf.to = ctx.name(_placed(w.to, link[:max(link.rfind("/"), 0)] or "/"), PATH_CHARS)
        elif w.to:
            sf.to = ctx.name(_placed(w.to, base), PATH_CHARS)
        if w.body is not None:
            sf.told, sf.exact, sf.count = True, w.exact, count_lines(w.body)
            if w.exact and sf.count <= MAX_FILE_LINES:
                sf.lines = line_hashes(w.body)
        out.append(sf)
    return out


# A command a task runner printed as it ran it: mise's `[fmt] $ gofmt -s -w .`,
# npm's (and pnpm's, yarn's) `> app@1.0.0 fmt` line and then `> prettier --write .`.
_ECHOED = r"(?m)^(\[[\w:./@-]+\] )\$ (.+?)\s*$|^> \S+@\S* \S+.*\n> (.+?)\s*$"


def on_echoed(ctx: Context, call: Pending, output: str) -> None:
    """A formatter a task runner ran (`mise run fmt` printing `[fmt] $ gofmt
    -s -w .`): the files it rewrote, as if the command line had run it (told
    as files it rewrote without naming them where its output names none)."""
    if "$ " not in output and "\n> " not in output:
        return
    ran = {str(sf.to) for sf in call.shell_files if sf.kind == shell_files.FORMAT}
    cwd = str(ctx.facts.cwd)
    for m in rx(_ECHOED).finditer(output):
        printed = output
        task = m.group(1)
        if task:  # (mise puts the task's name before each line the task printed)
            printed = "\n".join(line.removeprefix(task) for line in output.splitlines()
                                if line.startswith(task) and not line.startswith(task + "$ "))
        for w in shell_files.writes(m.group(2) or m.group(3)):
            if w.kind != shell_files.FORMAT or w.to in ran:
                continue
            ran.add(w.to)
            sf = ShellFile(path=ctx.name(_placed(w.path, cwd), PATH_CHARS),
                           kind=shell_files.FORMAT, listed=w.listed)
            sf.to = Redacted(w.to)
            _formatted(ctx, sf, printed)


def _placed(path: str, base: str) -> str:
    """`path` as written in a command, made absolute against `base`."""
    if path.startswith("/") or is_windows_path(path) or not base:
        return path
    if is_windows_path(base):
        import ntpath  # only for a Windows folder: kept off the hook's start

        return ntpath.normpath(ntpath.join(base, path.replace("/", "\\")))
    return posixpath.normpath(posixpath.join(base, path))


def on_output(ctx: Context, output: str) -> None:
    """Any command's output: the files a formatter's check says it would
    rewrite (`ruff format --check`, a CI log holding it), for a later run of
    that formatter that names none."""
    found = shell_files.would_format(output)
    if not found:
        return
    cwd = str(ctx.facts.cwd)
    checked: dict[Redacted, list[Redacted]] = {}
    for family, path in found:
        names = checked.setdefault(Redacted(family), [])
        if len(names) < MAX_SEEN:
            names.append(ctx.name(_placed(path, cwd), PATH_CHARS))
    ctx.facts.would_format.update(checked)


def on_shell_result(ctx: Context, call: Pending, status: str, output: str = "") -> None:
    """A command that ran: the files it wrote, deleted, renamed, copied to,
    made or reformatted are changed files. A here-document's lines are
    counted (a file the session knew: the lines between; else all of them,
    estimated, as a Write over a file not known); an append or an `echo … >
    f` is counted as not known. Where the command's own exit status is not
    the line's (`rm f || true`), what it printed says whether it failed.
    A line that failed changed what its output shows ran (_ran)."""
    if status not in ("ok", "failed"):
        return
    facts = ctx.facts
    # Its line's status does not say it ran: it failed (and this one may
    # be the one that did), or this one may have been skipped without a
    # word (after `||` or a quiet test, or where something printed an error).
    doubtful = [((status == "failed" and not sf.unsure) or (sf.unsure and sf.skippable and (
        sf.guarded or errors.shows_failure(output)))) and not _ran(sf, output)
        for sf in call.shell_files]
    # One that made the file a later change that ran moved or copied did run
    # (3535d4da: `cat > s/p.go <<EOF … mv s/p.go m.go 2>/dev/null; mv m.go
    # cmd/p/main.go`: the last mv ran, so m.go was there, so p.go was).
    needed: set[Redacted] = set()
    for k in range(len(call.shell_files) - 1, -1, -1):
        sf = call.shell_files[k]
        made = sf.to if sf.kind in (shell_files.MOVE, shell_files.COPY) else \
            sf.path if not sf.kind else None
        if doubtful[k] and made is not None and made in needed:
            doubtful[k] = False
        if not doubtful[k] and sf.kind in (shell_files.MOVE, shell_files.COPY):
            needed.add(sf.path)
    for sf, doubt in zip(call.shell_files, doubtful, strict=True):
        if doubt:
            continue
        if sf.kind == shell_files.FORMAT:
            _formatted(ctx, sf, output)
            continue
        if sf.kind and (_refused(output, str(sf.path)) or (
                sf.kind in (shell_files.COPY, shell_files.MOVE) and _refused(output, str(sf.to)))):
            continue  # it printed that it could not (`rm: f: No such file or directory`)
        if sf.kind:
            _shell_change(ctx, sf, output)
            continue
        fresh = not sf.append and sf.path not in facts.files and sf.path not in facts.seen
        change = _change_of(facts, sf.path)
        if change is None:
            continue
        change.fresh = change.fresh or (fresh and not change.steps)
        after = sf.lines if sf.exact and not sf.append and (sf.lines or not sf.count) else None
        if not sf.told:
            change.uncounted = change.guessed = True
        _follow(facts.files, change, "Write" if after is not None else "Bash", None, after,
                (sf.count, 0), True)
        _touched(ctx, sf.path)
        change.gone = False
        _add_op(change, "appended by a command" if sf.append else "written by a command")
        change.steps += 1


def _ran(shell_file: ShellFile, output: str) -> bool:
    """Whether a command whose line's status does not say it ran (the line
    failed, or it may have been skipped) changed its files, by what the line
    printed: a copy that names what it copied (`cp -v`) did; another did when
    a command joined to it by `&&` after it shows it ran (the line an `echo`
    prints, an error that command's name starts, a refusal naming a file it
    writes): all before it succeeded. Else it is not told (it may be the one
    that failed, or come after it, or not have run)."""
    if shell_file.listed and shell_file.kind in (shell_files.COPY, shell_files.COPY_TREE,
                                                 shell_files.RSYNC):
        return True
    if not output:
        return False
    lines: list[str] | None = None
    for proof in shell_file.proofs:
        kind, _, what = str(proof).partition(":")
        if not what:
            continue
        if lines is None:
            lines = [ln.strip() for ln in output.splitlines()]
        if kind + ":" == shell_files.ECHOED and what in lines:
            return True
        if kind + ":" == shell_files.TOOL and any(_said_by(ln, what) for ln in lines):
            return True
        if kind + ":" == shell_files.WRITES:
            tool, _, path = what.partition(":")
            if any(ln.startswith(tool + ": ") and _refused(ln, path) for ln in lines):
                return True
    return False


def _said_by(line: str, tool: str) -> bool:
    """Whether an output line is one a command `tool` printed of itself (or
    the shell of it): `cp: cannot stat …`, `npm ERR! …`, git's `fatal: …`,
    `bash: foo: command not found`."""
    return line.startswith((tool + ": ", tool + " ERR!", tool + " error ")) or (
        tool == "git" and line.startswith("fatal: ")) or line.endswith(
        (f" {tool}: command not found", f"command not found: {tool}"))


def _add_op(change: FileChange, op: str) -> None:
    if op not in change.ops:
        change.ops.append(op)


def _known(facts: Fold) -> dict[Redacted, bool]:
    """Every file the session knows of: those it changed (True while they are
    there) and those it saw."""
    out = dict.fromkeys(facts.seen, True)
    out.update((p, not c.gone) for p, c in facts.files.items())
    return out


def _under(path: str, folder: str) -> str | None:
    """`path`'s part under `folder` ("" for the folder itself), or None."""
    if path == folder:
        return ""
    for sep in ("/", "\\"):
        head = folder.rstrip(sep) + sep
        if path.startswith(head):
            return path[len(head):]
    return None


def _matching(pattern: str, known: dict[Redacted, bool]) -> list[Redacted]:
    """The known files a shell pattern names (`src/*.py`: in that folder only)."""
    import fnmatch  # only for a pattern in a deleting command

    folder, _, name = pattern.replace("\\", "/").rpartition("/")
    return [p for p, there in known.items() if there
            and p.replace("\\", "/").rpartition("/")[0] == folder
            and fnmatch.fnmatchcase(p.replace("\\", "/").rpartition("/")[2], name)]


_REFUSALS = (r"No such file|cannot |Cannot |can't |not match|Permission denied|Not a directory"
             r"|Is a directory|bad source|not under version control|Operation not permitted"
             r"|are the same file|File exists|Directory not empty|failed|not permitted")


def _refused(output: str, path: str) -> bool:
    """The command printed an error about `path` (by its name): `rm: cannot
    remove 'f': No such file or directory`, `mv: rename a to b: …`, git's
    `fatal: pathspec 'f' did not match any files`."""
    if not output:
        return False
    name = path.replace("\\", "/").rstrip("/").rpartition("/")[2]
    if not name or name not in output:
        return False
    return any(_names(line, name) and rx(_REFUSALS).search(line)
               for line in output.splitlines())


def _names(line: str, name: str) -> bool:
    """Whether `line` holds the file name `name` whole: "cannot access
    'gone.txt'" does not name `e.txt`. (No pattern made of the name: the
    package's patterns are kept compiled in a file, and a name is the user's.)"""
    at = line.find(name)
    while at >= 0:
        before = line[at - 1] if at else " "
        after = line[at + len(name):at + len(name) + 2]
        if not (before.isalnum() or before in "_.-") and not (
                after[:1].isalnum() or after[:1] in "_-" or (
                    after[:1] == "." and after[1:2].isalnum())):
            return True
        at = line.find(name, at + 1)
    return False


def _claimed(shell_file: ShellFile, known: dict[Redacted, bool], path: Redacted) -> bool:
    """Whether a command acted on a file: one the session knows is there, or
    one it does not know when the command's success says it was there (`rm
    f && …`; or `rm f; …` that printed no error, its errors not thrown away).
    `rm -f` of a file not known: nothing need have been there."""
    there = known.get(path)
    if there is not None:
        return there
    return not shell_file.forced and (not shell_file.unsure or not shell_file.quiet)


def _shell_change(ctx: Context, shell_file: ShellFile, output: str = "") -> None:
    """A file (or files) a command that ran deleted, renamed, copied to or made."""
    facts = ctx.facts
    known = _known(facts)
    path = str(shell_file.path)
    if shell_file.kind in (shell_files.DELETE, shell_files.TREE):
        if any(c in path for c in shell_files.GLOB):
            targets = _matching(path, known)
        elif shell_file.kind == shell_files.TREE:
            # The path itself (a file, or `rm -r` of one), and what the session knows under it.
            # (a folder none of whose files the session knows: none told here;
            # a later commit's deletions under it are the session's: work)
            targets = [p for p, there in known.items() if there and _under(p, path) is not None]
            trees = facts.removed_trees
            trees.pop(shell_file.path, None)
            trees[shell_file.path] = ctx.entry_ts
            while len(trees) > MAX_TREES:
                del trees[next(iter(trees))]
        else:
            # `rm f` succeeded: f was there. `rm -f f`: only if the session knew it.
            targets = [shell_file.path] if _claimed(shell_file, known, shell_file.path) else []
        for target in targets:
            _deleted(ctx, target)
    elif shell_file.kind in (shell_files.COPY, shell_files.COPY_TREE, shell_files.RSYNC):
        _copied(ctx, shell_file, known, output)
    elif shell_file.kind == shell_files.MOVE:
        to = str(shell_file.to)
        moved = {p: rest for p, there in known.items() if there
                 and (rest := _under(p, path)) is not None}
        if not moved:
            if not _claimed(shell_file, known, shell_file.path):
                return
            moved = {shell_file.path: ""}  # a file not known: renamed all the same
        folder = shell_file.into or any(_under(p, to) for p, there in known.items() if there)
        if folder:  # into the folder `to`: under its name there
            to = _joined(to, _base_name(path))
        for old, rest in moved.items():
            _renamed(ctx, old, Redacted(_joined(to, rest) if rest else to))
    elif shell_file.kind == shell_files.LINK:
        _linked(ctx, shell_file.path, shell_file.to)
    elif shell_file.kind == shell_files.SUBMODULE:
        # A repository of its own, added at the path.
        _submodule_entry(ctx, shell_file.path, "added as a submodule", added=True)
    elif shell_file.kind == shell_files.SUBMODULE_MOVED:
        # The submodule's entry now names its remote's latest commit.
        _submodule_entry(ctx, shell_file.path, "moved on to its remote's latest commit",
                         added=False)
    elif shell_file.kind == shell_files.MADE:
        change = _change_of(facts, shell_file.path)
        if change is None:
            return
        if shell_file.path in known or change.steps:
            _add_op(change, "written by a command")  # it was there: its lines not known
            change.uncounted = change.guessed = True
            _follow(facts.files, change, "Bash", None, None, (0, 0), True)
        else:
            # Made from nothing: its lines are those of the file's first content known.
            _add_op(change, "created by a command")
            change.uncounted = True
            _follow(facts.files, change, "Bash", b"", None, (0, 0), True)
        change.gone = False
        change.steps += 1
        _touched(ctx, shell_file.path)


MAX_LINKS = 100
# A symbolic link the session made, as the table tells it: a file git keeps
# (its target's path is its one line), made (fold.files.MADE_OPS).
LINKED = "made by a command: a symbolic link"


def _linked(ctx: Context, link: Redacted, target: Redacted) -> None:
    """`ln -s target link` ran: the link is a file made, and a change made
    through it from now on is one of its target, counted once under the
    target's name, as git counts it (Fold.links)."""
    facts = ctx.facts
    if link == target:
        return
    if link in facts.links or len(facts.links) < MAX_LINKS:
        facts.links[link] = facts.links.get(target, target)
    change = _change_of(facts, link)
    if change is None:
        return
    _add_op(change, LINKED)
    _follow(facts.files, change, "Bash", b"" if not change.steps else None,
            line_hashes(str(target)), (1, 0), False)
    change.steps += 1
    change.gone = False
    _touched(ctx, link)


def linked(facts: Fold, name: Redacted) -> Redacted:
    """The file a change of `name` is a change of: the target of a link the
    session made, else itself."""
    return facts.links.get(name, name) if facts.links else name


def _submodule_entry(ctx: Context, path: Redacted, op: str, added: bool) -> None:
    """A command changed the submodule at `path` (`op` says how): git keeps a
    submodule as one entry, the commit it is at, so a change of it is no lines
    of the session's repository. `added`: the entry is there (again); added
    once more after it was gone, that is said last."""
    change = _change_of(ctx.facts, path)
    if change is None:
        return
    if added:
        if change.gone and op in change.ops:
            change.ops.remove(op)
        change.gone = False
    _add_op(change, op)
    change.uncounted = change.guessed = True
    _follow(ctx.facts.files, change, "Bash", None, None, (0, 0), True)
    change.steps += 1
    _touched(ctx, path)


def _rewritten(ctx: Context, path: Redacted, op: str, content: bytes | None = None) -> None:
    """A file a command wrote whole: its lines not known (`content`: they are,
    a copy of a file the session knows)."""
    facts = ctx.facts
    fresh = path not in facts.files and path not in facts.seen
    change = _change_of(facts, path)
    if change is None:
        return
    if content is None and fresh and op == "copied by a command":
        # A copy over a file not known, of lines not known: as a Write over a
        # file not known, counted from nothing (estimated) once a content is,
        # until git's output says a commit made the file (`create mode`).
        change.uncounted = change.new_guess = True
        change.anchored, change.base, change.now, change.known = True, b"", b"", False
    else:
        if content is None:
            change.uncounted = change.guessed = True
        _follow(facts.files, change, "Write" if content is not None else "Bash", None,
                content, (len(content) // HASH if content is not None else 0, 0), True)
    _touched(ctx, path)
    change.gone = False
    _add_op(change, op)
    change.steps += 1


def _unnamed(ctx: Context, label: str, folder: Redacted, count: int) -> None:
    """Files a command changed without naming them: told apart, by how many
    each run said it changed (-1 not said)."""
    facts = ctx.facts
    for u in facts.unnamed:
        if u.label == label and u.folder == folder:
            if len(u.counts) < MAX_RUNS:
                u.counts.append(count)
            return
    if len(facts.unnamed) < MAX_UNNAMED:
        facts.unnamed.append(Unnamed(label=Redacted(label), folder=folder, counts=[count]))


MAX_RUNS = 50
MAX_UNNAMED = 50


def _formatted(ctx: Context, shell_file: ShellFile, output: str) -> None:
    """A formatter or fixer that ran: the files its output names, or those its
    latest check named when it says as many (or no number); else told as
    files it rewrote without naming them."""
    facts = ctx.facts
    label, folder = str(shell_file.to), str(shell_file.path)
    names, count = shell_files.formatted(label, shell_file.listed, output)
    op = ("fixed by " if "fix" in label else "reformatted by ") + label
    if names:
        for name in names[:MAX_SEEN]:
            _rewritten(ctx, ctx.name(_placed(name, folder), PATH_CHARS), op)
        return
    if count == 0:
        return
    family = Redacted(shell_files.family(label))
    checked = facts.would_format.get(family, [])
    if checked and label != "ruff check --fix" and (
            count == len(checked) or (count is None and shell_files.prints(label) ==
                                      shell_files.SILENT)) and \
            all(_under(str(p), folder) is not None for p in checked):
        del facts.would_format[family]
        for p in checked:
            _rewritten(ctx, p, op)
        return
    _unnamed(ctx, label, shell_file.path, -1 if count is None else count)


def _copied(ctx: Context, shell_file: ShellFile, known: dict[Redacted, bool], output: str) -> None:
    """Files a copy wrote: those its output names (`cp -v`, `rsync -v`); a
    file copied to a file, or into a folder (a known one, or one for sure),
    where it lands; a folder's files not named, told as such."""
    facts = ctx.facts
    to = str(shell_file.to)
    if shell_file.listed:
        cwd = str(facts.cwd)
        if "->" in output:
            pairs = [(ctx.name(_placed(a, cwd), PATH_CHARS), _placed(b, cwd))
                     for a, b in shell_files.copied(True, output)]
        else:
            # (rsync's names are relative to the target, and to the source's
            # folder: to the source itself when it ends in `/`)
            path = str(shell_file.path)
            sent = path if path.endswith("/") else posixpath.dirname(path)
            pairs = [(ctx.name(_placed(b, sent), PATH_CHARS), _placed(b, to))
                     for b in shell_files.rsync_listed(output)]
        placed = [(a, ctx.name(b, PATH_CHARS)) for a, b in pairs[:MAX_SEEN]]
        # (a folder cp -rv printed: the files printed under it are what was written)
        names = {str(b) for _, b in placed}
        for a, b in placed:
            if not any(n != str(b) and _under(n, str(b)) is not None for n in names):
                was = facts.files.get(a)
                _rewritten(ctx, b, "copied by a command", was.now if was is not None
                           and was.known and was.anchored else None)
        if placed or shell_file.kind == shell_files.COPY:
            return
    if shell_file.kind != shell_files.COPY:
        _unnamed(ctx, "rsync" if shell_file.kind == shell_files.RSYNC else "cp -r",
                 shell_file.to, -1)
        return
    source = str(shell_file.path)
    if any(c in source for c in shell_files.GLOB):
        # `cp dir/*.h to/`: the files the pattern names, those the session
        # knows copied each; else files copied into `to`, not named (never a
        # file named `*.h`: 3535d4da's `tree_sitter/*.h` row).
        matched = _matching(source, known)
        if not matched:
            _unnamed(ctx, "cp", shell_file.to, -1)
            return
        for p in matched[:MAX_SEEN]:
            was = facts.files.get(p)
            _rewritten(ctx, Redacted(_joined(to, _base_name(str(p)))), "copied by a command",
                       was.now if was is not None and was.known and was.anchored else None)
        return
    if not _claimed(shell_file, known, shell_file.path):
        return
    cwd = str(facts.cwd)
    folder = shell_file.into or any(there and _under(p, to) for p, there in known.items()) or \
        _under(cwd, to) is not None
    if not folder and known.get(shell_file.to) is None and "." not in _base_name(to) and \
            "." in _base_name(source):
        return  # `cp x.py build`: into a folder, or to a file named build? not told
    target = _joined(to, _base_name(source)) if folder else to
    change = facts.files.get(shell_file.path)
    content = change.now if change is not None and change.known and change.anchored else None
    _rewritten(ctx, Redacted(target), "copied by a command", content)


def _base_name(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rpartition("/")[2]


def _joined(folder: str, rest: str) -> str:
    sep = "\\" if "\\" in folder and "/" not in folder else "/"
    return folder.rstrip(sep) + sep + rest.replace("/", sep) if rest else folder


def _deleted(ctx: Context, path: Redacted) -> None:
    """The file is gone: a content known before it, it loses all its lines
    (the net lines are exact where the first content is known); else its
    lines are not known ("?")."""
    facts = ctx.facts
    change = _change_of(facts, path)
    if change is None:
        return
    read = facts.read_lines.get(path)
    if not change.anchored and not change.steps and read is not None:
        # Read whole before, never changed: all its lines, as read, removed.
        _follow(facts.files, change, "Bash", read, b"", (0, len(read) // HASH), False)
    elif change.anchored:
        _follow(facts.files, change, "Bash", None, b"", (0, 0), False)
    else:
        # Lines not known of a file deleted whose content never was: not counted
        # as +0 −0, nor as the changes made to it before (they went with it).
        change.settled_added = change.settled_removed = change.added = change.removed = 0
        change.uncounted = change.guessed = change.estimated = True
    change.gone = True
    _add_op(change, DELETED_BY_COMMAND)
    change.steps += 1
    _touched(ctx, path)


def _renamed(ctx: Context, old: Redacted, new: Redacted) -> None:
    """The file moved: its change so far goes with it, under its new path."""
    facts = ctx.facts
    if old == new:
        return
    change = facts.files.pop(old, None)
    if change is None:
        # Not changed before: the same lines under a new name (a rename
        # changes no line: not a step whose lines are not known).
        change = FileChange(moved_from=old)
    cwd = str(facts.cwd)
    if cwd and _under(str(old), cwd) is None and \
            _under(str(new), cwd) is not None:
        change.fresh = True  # (from outside the session's folder into it: a file new there)
    elif not change.moved_from and "created" not in change.ops and \
            "created by a command" not in change.ops:
        change.moved_from = old
    facts.files.pop(new, None)  # what was there is replaced
    if len(facts.files) >= MAX_FILES:
        facts.files_dropped += 1
        return
    facts.files[new] = change
    _add_op(change, "renamed by a command")
    ctx.files_touched.discard(old)
    _touched(ctx, new)
    if old in facts.seen:
        facts.seen[facts.seen.index(old)] = new


def unknown_lines(change: FileChange) -> bool:
    """A file whose lines are not known at all: only written by commands that
    do not say them (`echo … > f`): shown as "?", not as +0 −0."""
    return change.uncounted and not change.added and not change.removed


def own_lines(change: FileChange) -> tuple[int, int]:
    """The file's net lines without those changed outside the session between
    its own changes (c5607325: +4 in the table, a line of them the user's:
    the session's own +3). An outside line the session removed again is one
    it removed."""
    added = change.added - change.outside_added
    removed = change.removed - change.outside_removed
    if added < 0:
        added, removed = 0, removed - added
    if removed < 0:
        added, removed = added - removed, 0
    return added, removed


def lines_mark(change: FileChange) -> str:
    """How a file's figures are told wherever they are shown (the note's
    table, `vv files`): "?" not known at all, "≈" estimated, "" exact."""
    if unknown_lines(change):
        return "?"
    return "≈" if change.estimated else ""


# How a session brings a file into being (a copy's target is taken as new:
# review 28's probes `cp x zzz_probe_test.go` … `rm zzz_probe_test.go`).
MADE_OPS = ("created", "created by a command", "copied by a command",
            "made by a command: a symbolic link")


def made_and_gone(change: FileChange) -> bool:
    """A file the session made and deleted again (a probe, a throwaway test):
    nothing of it is left, whatever lines it held meanwhile (review 28 #6, #9:
    "copied by a command, deleted by a command ≈0 ≈0" counted as changed)."""
    return change.gone and bool(change.ops) and (change.ops[0] in MADE_OPS or change.fresh)


def no_net_change(change: FileChange) -> bool:
    """A file the session changed back to what it was (or rewrote as it was):
    exact counts, +0 −0, not renamed, and not a file it created (unless it
    deleted it again); or one it made and deleted again."""
    if made_and_gone(change):
        return True
    made = "created" in change.ops or "created by a command" in change.ops
    return (not change.estimated and not change.added and not change.removed
            and not change.moved_from and (not made or change.gone))


def change_words(change: FileChange, moved_from: str = "") -> str:
    """What happened to a file, in the words of the note's table wherever it
    is told (the note, `vv files`): "modified", "deleted by a command",
    "copied by a command, modified"… `moved_from`: the old path as shown
    there, for a file renamed."""
    told = [f"renamed from {moved_from} by a command"
            if op == "renamed by a command" and moved_from else op for op in change.ops
            if op != GIT_COUNTED]
    net = " (made and deleted in this session: no net change)" if made_and_gone(change) else \
        " (no net change)" if no_net_change(change) else ""
    return ", ".join(told) + net + (
        f"; {GIT_COUNTED}" if GIT_COUNTED in change.ops else "")


def _edit_lines(name: str, inp: ToolInput) -> list[bytes]:
    """An Edit's or MultiEdit's replacements as line fingerprints
    (linediff.edit_lines); none where one replaces every place it is found
    (which places is not known from lines)."""
    edits: Any = inp.edits if name == "MultiEdit" else [
        {"old_string": decode_raw(inp.old_string), "new_string": decode_raw(inp.new_string),
         "replace_all": inp.replace_all}]
    if not isinstance(edits, list):
        return []
    out: list[bytes] = []
    for edit in edits:
        if not isinstance(edit, dict) or edit.get("replace_all") is True:
            return []
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return []
        group = edit_lines(old, new)
        if not any(group):
            return []
        out += group
    return out


def _estimate(name: str, inp: ToolInput) -> tuple[int, int]:
    """Lines added/removed judged from a tool's input, for results without a
    patch: an Edit's, the lines between its old and new strings (the lines
    they share are not changed: an insertion that repeats its anchor line
    adds only the new ones)."""
    if name == "Write":
        return count_json_lines(inp.content), 0
    if name == "NotebookEdit":
        return count_json_lines(inp.new_source), 0
    edits: list[Any] = [{"old_string": decode_raw(inp.old_string),
                         "new_string": decode_raw(inp.new_string)}]
    if name == "MultiEdit":
        edits = inp.edits if isinstance(inp.edits, list) else []
    added = removed = 0
    for edit in edits:
        if isinstance(edit, dict):
            old, new = edit.get("old_string"), edit.get("new_string")
            plus, minus = diff_counts(line_hashes(old if isinstance(old, str) else ""),
                                      line_hashes(new if isinstance(new, str) else ""))
            added += plus
            removed += minus
    return added, removed


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
