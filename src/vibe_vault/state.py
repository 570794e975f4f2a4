"""The session state: everything a note needs, folded from transcript entries.

`Fold` is what the main transcript folds into; `AgentFold` what one subagent
file folds into. They are kept apart (and merged only when rendering) so the
result does not depend on how the hook's reads of different files interleave.
`SessionState` adds the bookkeeping (cursors, note path, status) and is what
is saved per session, as msgpack, versioned: a state of another version is
rebuilt from the transcript, keeping only where its note is and the user's
words in it (`decode_kept`).
"""


import os
from functools import cache

import msgspec
from msgspec import Struct, field

from vibe_vault.locations import said_file
from vibe_vault.paths import safe_id
from vibe_vault.reader import Cursor
from vibe_vault.redact import Redacted
from vibe_vault.regular import open_regular, read_fd

MAX_STATE = 256 << 20  # far above any state (every structure in it is bounded)

# Bump whenever a change to these Structs or to the fold would make an old
# state render differently from a fresh parse.
STATE_VERSION = 137


# The gitBranch Claude Code writes on a detached HEAD (a rebase, a checkout of
# a commit): no branch.
DETACHED = "HEAD"
# The status of an interrupt Action when Claude was writing (its words are
# the latest thing in the turn), not after a tool call.
INTERRUPTED_ANSWERING = "answering"

class Tokens(Struct, array_like=True):
    """Usage of one API message (the largest snapshot seen)."""

    model: Redacted = Redacted("")
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    cache_5m: int = 0
    cache_1h: int = 0
    # Requests whose prompt (input, cache reads and writes) went over this many
    # tokens (one of usage.LONG_CONTEXTS); some models bill them at long-context
    # rates. 0: not over.
    context: int = 0
    fast: bool = False  # `usage.speed` "fast": priced at the model's fast-mode rates
    us_only: bool = False  # `usage.inference_geo` "us": data residency, priced 1.1x
    # Characters the message wrote (text, thinking, tool inputs), and whether
    # its usage was recorded before it ended: some clients (1.0.x, 2.0.5-2.1.114
    # in the corpus) write every snapshot of a reply with the output counted so
    # far, so a 6,650-character Write can carry `output_tokens: 3`. `short`
    # counts such messages, `unrecorded` the output tokens their length implies
    # beyond what was recorded (about 4 characters a token).
    written: int = 0
    short: int = 0
    unrecorded: int = 0

    @property
    def total(self) -> int:
        """The tokens a note shows (`token_total`)."""
        return token_total(self.input, self.output, self.cache_read, self.cache_creation)


def token_total(input_: int, output: int, cache_read: int, cache_creation: int) -> int:
    """The tokens a session, project or model is said to have used: input,
    output, cache reads and cache writes, summed. The one definition: a note's,
    a record's (records.total_tokens), the database's sums (aggregates) and
    `vv stats` all count this."""
    return input_ + output + cache_read + cache_creation


class ModelCost(Struct, array_like=True):
    """What Claude Code itself counted for one model (a `cost-state` line)."""

    cost: float = 0.0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0


def add_tokens(into: dict[str, Tokens], key: str, tokens: Tokens) -> None:
    """Add `tokens` to the running total kept under `key` (one made when missing)."""
    acc = into.get(key)
    if acc is None:
        acc = into[key] = Tokens(model=tokens.model, context=tokens.context, fast=tokens.fast,
                                 us_only=tokens.us_only)
    acc.input += tokens.input
    acc.output += tokens.output
    acc.cache_read += tokens.cache_read
    acc.cache_creation += tokens.cache_creation
    acc.cache_5m += tokens.cache_5m
    acc.cache_1h += tokens.cache_1h
    acc.written += tokens.written
    acc.short += tokens.short
    acc.unrecorded += tokens.unrecorded


def add_cost(into: dict[Redacted, ModelCost], model: Redacted, mc: ModelCost) -> None:
    acc = into.get(model)
    if acc is None:
        into[model] = ModelCost(mc.cost, mc.input, mc.output, mc.cache_read, mc.cache_creation)
        return
    acc.cost += mc.cost
    acc.input += mc.input
    acc.output += mc.output
    acc.cache_read += mc.cache_read
    acc.cache_creation += mc.cache_creation


class ClientCost(Struct, omit_defaults=True):
    """The client's own running cost of the session (`cost-state` lines, 2.1.2xx
    and later). Each line is a running total since `start`; a line with another
    start (a process that did not carry the total on) or a smaller total begins
    a new run, and the last line of each run counts."""

    start: float = 0.0
    total: float = 0.0  # the current run's
    models: dict[Redacted, ModelCost] = field(default_factory=dict)  # the current run's
    settled_total: float = 0.0  # earlier runs'
    settled: dict[Redacted, ModelCost] = field(default_factory=dict)
    unknown: bool = False  # the client met a model it had no price for


class Action(Struct, array_like=True, omit_defaults=True):
    """One condensed thing done in a turn; `kind` says how to read the rest."""

    kind: str
    text: Redacted = Redacted("")
    detail: Redacted = Redacted("")
    status: str = ""  # "", ok, failed, denied, interrupted, background (a command left running)
    code: int | None = None  # exit code of a command
    added: int = 0  # lines, for an edit
    removed: int = 0
    times: int = 1  # calls this line stands for: edits in a row to one file, fetches, uses
    ts: str = ""
    tool_id: str = ""
    ms: int | None = None
    reads: int = 0  # for an exploring line: the calls of each kind it stands for
    searches: int = 0
    listings: int = 0
    said: Redacted = Redacted("")  # a command's description, in Claude's words
    # When its (last) result came, in ms after `ts`: the line's last event, from
    # which a later gap in the story is measured (a permission prompt answered
    # an hour later is a wait, not the run time `ms` tells).
    done_ms: int | None = None


# A question's status (Action of kind "question") when the user picked a
# choice of Claude Code's question dialog instead of answering it
# (fold.calls.dialog_choice): "Chat about this", to clarify the questions; or,
# in plan mode's interview, enough answers given: finish the plan.
CLARIFY = "clarify"
FINISH_PLAN = "finish plan"


USER_SHELL = "shell"  # a Turn's kind: a command the user ran themselves (`!`)
# A Turn's kind in a teammate's session: its lead's (or a peer's) messages
# woke it, as a prompt wakes a session (`text`: who sent the first).
FROM_TEAM = "team"


class Turn(Struct, array_like=True, omit_defaults=True):
    """A user prompt and what followed, or a compaction marker."""

    kind: str  # prompt, command, shell (the user ran a `!` command), team, compact, continued
    ts: str = ""
    text: Redacted = Redacted("")
    detail: Redacted = Redacted("")  # compaction summary, or the trigger
    tokens: int = 0  # tokens before a compaction
    actions: list[Action] = field(default_factory=list)
    more_actions: int = 0
    answer: Redacted = Redacted("")
    thinking: Redacted = Redacted("")  # the turn's last thinking block, shown only when configured
    answer_redactions: int = 0  # secrets replaced in `answer`, part of the session's count
    thinking_redactions: int = 0
    # Claude's last word in the turn was a tool call, not text: `answer` (if
    # any) was written before later work, and the turn has no final answer yet.
    working: bool = False
    # A turn opened by words given when refusing a call or a plan: what Claude
    # said to them before it acted again ("No — too small for an agent team").
    reply: Redacted = Redacted("")
    # The answer Claude ended on before a Stop hook kept it at work (the
    # latest such): what it said it had done, before the turn went on.
    held: Redacted = Redacted("")
    # The uuid of the turn's latest line of the main chain: a prompt naming it
    # as its parent goes on from this turn (fold.rewinds).
    end: Redacted = Redacted("")
    # A rewind: the prompt of a later time went on from an earlier turn, and
    # this one was left out of the conversation Claude continued ("-": untimed).
    left: str = ""
    rewound: int = 0  # this prompt rewound the conversation: how many turns it left
    rewound_to: str = ""  # and the time of the turn it went on from
    # Claude's answer to the turn's request when a background task's news (a
    # `<task-notification>` the client sent, not the user) made it answer
    # again: what it said of the request, not of the task (issue 29: 8463c716,
    # 4d5611e5 closed on "Background task completed successfully…"); whole,
    # as `Fold.last_answer_whole` keeps the last answer.
    asked_answer: Redacted = Redacted("")


class ShellFile(Struct, array_like=True, omit_defaults=True):
    """A file a shell command writes, deletes, renames or makes
    (fold.shell_files), as the state keeps it: its path (through the gate) and
    its lines' fingerprints, never its text."""

    path: Redacted
    lines: bytes = b""  # a here-document's lines (linediff.line_hashes)
    count: int = 0  # how many
    told: bool = False  # the command holds the lines written (a here-document)
    exact: bool = False  # they are the bytes written (no `$` expanded in them)
    append: bool = False
    kind: str = ""  # "" written; or fold.shell_files' DELETE, TREE, MOVE, MADE
    to: Redacted = Redacted("")  # MOVE: where to
    into: bool = False  # MOVE: `to` is a folder for sure
    forced: bool = False  # `rm -f`: nothing need have been there
    # The command line's exit status is not this command's (`rm f || true`,
    # `rm f; ls`): its output says whether it did anything.
    unsure: bool = False
    listed: bool = False  # a copy or formatter whose output names the files (`cp -v`)
    quiet: bool = False  # its errors were thrown away (`2>/dev/null`)
    # It may not have run at all; what would show it ran (fold.shell_files.ShellWrite).
    skippable: bool = False
    guarded: bool = False
    proofs: list[Redacted] = field(default_factory=list)


class Unnamed(Struct, array_like=True, omit_defaults=True):
    """Files a command changed that its output does not name: a formatter
    that says only how many it rewrote ("6 files reformatted"), or nothing; a
    folder copied (`cp -r`). `label` says which (fold.shell_files' formatter
    labels, or "cp -r", "rsync"), `folder` where it ran or copied to, `counts`
    how many each run said (-1: not said)."""

    label: Redacted
    folder: Redacted = Redacted("")
    counts: list[int] = field(default_factory=list)


class Pending(Struct, array_like=True, omit_defaults=True):
    """A tool call waiting for its result."""

    name: Redacted
    turn_no: int = -1
    action_no: int = -1
    seq: int = 0
    called_at: float = 0.0  # epoch seconds
    file: Redacted = Redacted("")  # the file an edit tool changes
    sub_no: int = -1  # the subagent a Task call started, by its place in `subagents`
    tool_id: str = ""
    est_added: int = 0  # lines, judged from the input, for results that carry no patch
    est_removed: int = 0
    command_no: int = -1  # the command's number in the session, for its table row
    git: str = ""  # "git", "git push": the output may tell of commits; or a file of secrets
    commits: bool = False  # a `git commit` command
    rebase: bool = False  # a `git rebase` or `git pull --rebase`: it may rewrite commits
    autosquash: bool = False  # with `--autosquash`
    asks_help: bool = False  # `--help`, `-h`, `help`: its usage text is what was asked for
    # fold.staged: the folder git stages or commits in, the paths it stages,
    # whether it stages every change (`add -A`, `commit -a`), whether it is
    # a `git status` (its list is what is staged) or a `git reset` (none is)
    stage_in: Redacted = Redacted("")
    staged: list[Redacted] = field(default_factory=list)
    stage_all: bool = False
    tracked: bool = False  # of it, only files git tracks (`commit -a`, `add -u`)
    status: bool = False
    unstage: bool = False
    commit_subject: Redacted = Redacted("")  # its message's first line, from -m, when it had one
    amend: bool = False  # a `git commit --amend`: its commit replaces the branch's last
    merge: bool = False  # a `git merge`: a merge commit when git says it made one
    # A command's: the subagent calls (their keys) still at work when it was
    # called; Claude Code may hold its result back till theirs (fold.commands.run_ms).
    beside: list[str] = field(default_factory=list)
    squash: Redacted = Redacted("")  # a `git merge --squash <branch>`: the branch
    folder: Redacted = Redacted("")  # git run in another repository: its folder (Commit.folder)
    elsewhere: bool = False  # git run in another folder (`git -C dir`, `cd dir &&`): its branch
    # The branches the command creates (`git checkout -b x`, `git switch -c x`,
    # `git branch x`): made when it succeeds (fold.git).
    new_branches: list[Redacted] = field(default_factory=list)
    # Where each of them starts, when the command names it (`git branch x
    # origin/main`): "" for HEAD, the branch checked out then.
    branch_starts: list[Redacted] = field(default_factory=list)
    task_subject: Redacted = Redacted("")  # what a TaskCreate call names
    key: Redacted = Redacted("")  # what a later success must repeat: command or file
    # Or a command's purpose (fold.retries), when another spelling does the same.
    purpose: Redacted = Redacted("")
    lines: bytes = b""  # a Write's content, as line fingerprints (linediff.line_hashes)
    kept: bool = False  # `lines` holds them (a Write of a file not too long to keep)
    # An Edit's or MultiEdit's replacements as line fingerprints
    # (linediff.edit_lines), made in the file's known lines where its result
    # does not tell the content after it (a subagent file of 2.1.114).
    edits: list[bytes] = field(default_factory=list)
    whole: bool = False  # a Read of a whole file (no offset, no limit)
    background: bool = False  # a command started with run_in_background
    # Claude said, in its words just before the call or in its description,
    # that the check is to fail (fold.verdicts.expects_failure).
    expects_failure: bool = False
    # … or that it tries an error case (fold.verdicts.tries_error_case).
    tries_error_case: bool = False
    prints_secrets: str = ""  # what a command's output holds to learn (fold.shell_secrets)
    # A check (tests, build, linter) whose exit status is not its own (`| tail`,
    # `|| true`): its kind, and its output says how it ended (fold.verdicts).
    masked: str = ""
    test: bool = False  # a test command (fold.commands.kind_of): ran it any test?
    pr: str = ""  # "create", "merge": a `gh pr` command whose output names a PR of the session
    pr_url: Redacted = Redacted("")  # the PR a `gh pr merge` names by its URL
    plan: bool = False  # a change of Claude Code's plan file (plan mode): not the project's
    shell_files: list[ShellFile] = field(default_factory=list)  # files a command writes
    ran_at: float = 0.0  # epoch seconds the command started running, by the client's progress lines
    # What its error is to name, from its input (fold.errors.about): Claude's
    # words for it, what it ran or looked for, where.
    said: Redacted = Redacted("")
    subject: Redacted = Redacted("")
    place: Redacted = Redacted("")
    # fold.staged: the paths a `git reset <path>`/`git restore --staged <path>`
    # unstages; those a `git commit <path>…` (`--only`) commits, the rest of
    # what is staged left staged; `unknown`: a command that changes what is
    # staged in a way not told (a pathspec, a glob, a message not parsed).
    unstaged: list[Redacted] = field(default_factory=list)
    only: list[Redacted] = field(default_factory=list)
    unknown: bool = False
    git_counts: bool = False  # its output may hold git's count of files (fold.git_counts)
    # … a count of what a commit holds: a `git commit`'s own, or `git diff
    # --cached`/`--staged` (what the next commit takes).
    counts_commit: bool = False
    status_short: bool = False  # a `git status` in short form (`-s`, `--porcelain`): fold.staged
    # fold.reverts: a listing of what changed (`git status`, `git diff`) or a
    # restore of paths (`git checkout -- p`), where git ran, the paths, and
    # whether the listing is whole as printed; `moves`: it moves HEAD or the index.
    revert: str = ""
    revert_in: Redacted = Redacted("")
    revert_paths: list[Redacted] = field(default_factory=list)
    revert_whole: bool = False
    moves: bool = False
    # A `git push` before the line's `git commit` (`git push && git commit`):
    # the push, of the same moment, does not send that commit.
    push_first: bool = False
    # The subjects of the line's other `git commit`s, after the first's
    # (`commit_subject`), one each ("" where its message is not told): a
    # successful line made them all (review 30 #19: `git commit -q -m A &&
    # git add … && git commit -q -m B`).
    more_subjects: list[Redacted] = field(default_factory=list)
    merging: Redacted = Redacted("")  # the branch a `git merge` names (one)
    # Its commits are made in a throwaway repository (fold.git.scratch_of):
    # one the session made by `git init`/`git clone` in a temporary folder.
    scratch: bool = False
    # The branches a `git push` of the line sends by its words (fold.git):
    # what it sent when git's output names none.
    push_refs: list[Redacted] = field(default_factory=list)
    # The branches a `git branch -d|-D` of the line deletes (fold.git): gone
    # when it succeeds, quiet (`-q`) or not.
    deletes: list[Redacted] = field(default_factory=list)
    # The commits its `git reset`s move the branch to (`main`, `HEAD~1`, a
    # sha), in order; the last `resets_after` of them come after the line's
    # first `git commit`.
    resets: list[Redacted] = field(default_factory=list)
    resets_after: int = 0


class GitLines(Struct, array_like=True, omit_defaults=True):
    """What git's own output last said of a file (fold.git_counts): its lines
    inserted and deleted (-1: not told), and whether a commit made or removed
    it ("create", "delete")."""

    ts: str = ""
    added: int = -1
    removed: int = -1
    mode: str = ""
    # Each count of what a commit holds (Pending.counts_commit), the latest
    # MAX_TOLD: (when, inserted, deleted). A file two commits hold is the sum
    # of theirs (vibe_vault.work; review 32 #5: the last commit's count alone
    # was shown as the file's).
    told: list[tuple[str, int, int]] = field(default_factory=list)


class FileChange(Struct, array_like=True, omit_defaults=True):
    """A file the session wrote or edited. `added` and `removed` are its net
    lines: from the first content the session saw to the last (what `git diff`
    would show, changes made between the session's own by a formatter hook or
    the user's editor included), exact where both are known, else `estimated`
    (each change's own lines summed where contents are not known)."""

    ops: list[str] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    estimated: bool = False
    # The contents known, as line fingerprints (linediff): `base` the first
    # (when `anchored`), `now` the last; `known` while `now` is the file's
    # content after its last change.
    known: bool = False
    base: bytes = b""
    now: bytes = b""
    # Lines counted outside what `base` to `now` tells: changes made before
    # the first content known, or whose contents were no longer followed.
    settled_added: int = 0
    settled_removed: int = 0
    steps: int = 0  # changes that succeeded (a net +0 −0 after some is a revert)
    anchored: bool = False  # `base` holds a content the session saw
    guessed: bool = False  # the first content is not known: the figures are estimated
    # The first content taken as nothing (a Write over a file not known):
    # estimated, until git's output says a commit created the file.
    new_guess: bool = False
    # Changes since `now` stopped being the file's content (a change whose
    # content after is not known), until a content is known again.
    loose_added: int = 0
    loose_removed: int = 0
    uncounted: bool = False  # written by a command whose lines are not told (`echo … > f`)
    gone: bool = False  # deleted by a command, as of the last change
    moved_from: Redacted = Redacted("")  # renamed (`mv`, `git mv`) from this path
    # When it was changed (entry times, each once, in order; the latest
    # MAX_CHANGE_TIMES kept, `times_cut` when earlier ones were let go): which
    # files changed between two commits, for git's count of a commit's files.
    times: list[str] = field(default_factory=list)
    times_cut: bool = False
    # Fold.may_write + 1 when the session's own change last told `now`; 0 when
    # no change of the session did (fold.files: changed outside the session).
    mark: int = 0
    # The session's first change of it wrote it whole where no file was known
    # (`cat > f <<EOF`, `echo … > f` over a path not seen): a file it made,
    # as a copy's target is (fold.files.made_and_gone), wherever it moves.
    fresh: bool = False
    # Lines changed outside the session between its own changes (the user's
    # editor: CHANGED_OUTSIDE), in the net lines above: the headline tells
    # the session's own edits without them (fold.files.own_lines).
    outside_added: int = 0
    outside_removed: int = 0


class Command(Struct, array_like=True, omit_defaults=True):
    command: Redacted
    kind: str = "command"  # command, test, build
    status: str = ""
    code: int | None = None
    ts: str = ""
    tool_id: str = ""
    ms: int | None = None
    # A test run's count of tests that failed (errors too) and passed, by
    # its output (fold.verdicts.tally); -1 when it said none.
    failed: int = -1
    passed: int = -1


# An error's key (below) by what failed: a command ("cmd:", fold.commands), a
# file an edit tool changes ("file:", fold.files), a file read ("read:"), a
# page fetched ("url:"). What follows is what the note names the error by.
READ_KEY = "read:"
# A call's status when Claude Code cancelled it unrun: a call made beside it
# in the same message failed ("Sibling tool call errored"). No error of its own.
NOT_RUN = "not run"
URL_KEY = "url:"


class ErrorRec(Struct, array_like=True, omit_defaults=True):
    tool: Redacted
    text: Redacted  # its first lines, up to ERROR_LINES and ERROR_CHARS
    ts: str = ""
    seq: int = 0
    key: Redacted = Redacted("")  # the command (whitespace collapsed) or the file, when it had one
    # The same command, an edit of the same file, or a command of the same
    # purpose (fold.retries) later succeeded.
    later_ok: bool = False
    # What failed, from the call's input (Pending's fields of the same names):
    # a command's description and the command as the story shows it; a
    # subagent's type and description; a search's pattern and path; an MCP
    # tool's main argument.
    said: Redacted = Redacted("")
    subject: Redacted = Redacted("")
    place: Redacted = Redacted("")
    purpose: Redacted = Redacted("")  # the command's, when told (fold.retries)
    # A test run that failed as Claude said just before it meant it to (a
    # TDD red phase: "let's run the tests to confirm they fail"), its output
    # a test's failure, not a build's or a collection's.
    expected: bool = False
    # A command that failed as Claude said it tried an error case on purpose.
    error_case: bool = False
    # A check's fixing form (`cargo fmt` after `cargo fmt --check`) later
    # succeeded: that command, as the story shows it (fold.retries.fix_purpose).
    fixed_by: Redacted = Redacted("")


class Commit(Struct, array_like=True, omit_defaults=True):
    sha: Redacted
    subject: Redacted = Redacted("")
    branch: Redacted = Redacted("")
    ts: str = ""
    # What a later output of the session showed of it: its branch deleted
    # (`Deleted branch x (was …)`), its pull request squash-merged as another
    # commit (`<sha> <subject> (#N)` in a log, N a PR of the session).
    branch_deleted: bool = False
    landed: Redacted = Redacted("")
    landed_pr: int = 0
    # The folder it was made in when that is another repository than the
    # session's (a sibling it `cd`s into, `git -C ../other`); "" for its own.
    folder: Redacted = Redacted("")
    # Rewritten in the session (`git commit --amend`, `git rebase`): the sha
    # it had first, and how (AMENDED, REBASED). `stale`: a rebase replaced it
    # and no later output printed its new sha (`sha` is still the old one).
    was: Redacted = Redacted("")
    how: str = ""
    stale: bool = False
    # The files it holds, by the session's evidence (fold.staged): named by
    # its output, or staged before it; `everything` after `git add -A` or
    # `commit -a`, with `count`, the files git said it changed (0: unknown).
    files: list[Redacted] = field(default_factory=list)
    count: int = 0
    everything: bool = False
    # A later push sent it on another branch than its own: one made from
    # its branch after it (`git branch x && git push origin x`, after a push
    # to a protected main was rejected), or a range ending at it (fold.git).
    sent: bool = False
    folded: int = 0  # `fixup!`/`squash!` commits `rebase --autosquash` put in it (work.py)
    # Commits of its subject a `git reset` took off its branch before it was
    # made (a branch re-cut: `git reset --soft main`, then commit again):
    # counted in it, not as commits of their own (work.py; review 31 F4).
    recut: int = 0
    # Its "everything" is every change to files git tracks (`commit -a`, `add
    # -u`): a file made since the last `git add -A` is not in it.
    tracked: bool = False
    # The time of the last `git add -A` (`.`, `-u`) before it when its own
    # line staged nothing more: a change made after that add is not staged by it.
    staged_at: str = ""
    # The paths `git add` named since the last `git status` that are not in
    # `files` (one may have had no change to stage): vibe_vault.document
    # counts those the session changed against git's count.
    added: list[Redacted] = field(default_factory=list)
    added_at: list[str] = field(default_factory=list)  # the last time each was named
    # The lines git said it inserted and deleted, in all its files (with
    # `count`; nothing when `count` is 0): no file's lines in it can be more.
    inserted: int = 0
    deleted: int = 0
    # A merge commit's merged branch (`git merge origin/main`): said as "a
    # merge of origin/main" while no output printed its subject (git's own
    # is not guessed: review 30 #2).
    merged: Redacted = Redacted("")
    # Made in a throwaway repository (a `git init` in `mktemp -d`, a clone
    # into the scratchpad): a probe, not the session's work (review 30 #3, #18).
    scratch: bool = False
    # An amend that staged nothing the session shows and gave a message
    # (`git commit --amend -m …`): it changed the last commit's message, not
    # its content; git's count is the whole commit's (review 31 F9).
    reworded: bool = False


class Staged(Struct, array_like=True, omit_defaults=True):
    """What is staged in one folder, as far as the session shows (fold.staged)."""

    paths: list[Redacted] = field(default_factory=list)
    exact: bool = False  # a `git status` listed them (else `git add` named them)
    everything: bool = False  # `git add -A` / `.`: every change there
    tracked: bool = False  # only to files git tracks (`git add -u`)
    # How many of `paths`, the first ones, the last `git status` listed: staged
    # for sure (a later `git add` of other paths does not unstage them), where
    # a path `git add` named may have had no change to stage.
    listed: int = 0
    everything_at: str = ""  # the time of the last `git add -A` (`everything`)
    named_at: dict[Redacted, str] = field(default_factory=dict)  # path -> last `git add` of it
    # Some of "every change" was unstaged since (`git reset <path>`, a commit
    # of paths): what else is staged is not told, so git's count of the next
    # commit is neither of every change nor of the paths named.
    blurred: bool = False


AMENDED = "amended"
REBASED = "rebased"
# A printed commit (Fold.printed) that is a branch's tip as a `git push`
# reported it (`6c08f5a5..b02b3c07  main -> main`): its sha and branch, no subject.
PUSHED = "pushed"
# A commit the session's own later `git log` shows above one it made, with a
# subagent at work between: a subagent's (fold.git.logged).
BY_SUBAGENT = "made by a subagent"


class Rewrite(Struct, array_like=True, omit_defaults=True):
    """A `git rebase` (or `git pull --rebase`) that said it rewrote a branch:
    the session's commits made on it before are replaced by new ones; or a
    `git reset` that moved a branch back (`to`)."""

    ts: str
    branch: Redacted
    # The commits it printed itself (`git rebase --continue`: `[detached HEAD
    # <sha>] <subject>`): new shas of rewritten commits.
    made: list[Commit] = field(default_factory=list)
    # `--autosquash`: a `fixup! S` or `squash! S` commit went into the commit S.
    autosquash: bool = False
    # A `git reset <commit>` instead (review 31 F4): the commit it moved the
    # branch to, as written (`main`, `HEAD~2`, a sha); its repository (as
    # Commit.folder); `after`: it came after the commits of its own line
    # (which share its time), not before them.
    to: Redacted = Redacted("")
    folder: Redacted = Redacted("")
    after: bool = False


class Push(Struct, array_like=True, omit_defaults=True):
    """The latest push of one branch from one repository (fold.git): it sent
    the branch's commits made before it. `ref` "": the output named no branch
    (`Everything up-to-date`, a quiet push, `HEAD -> main`): any branch.
    `first`: the command pushed before it committed, at the same moment."""

    ts: str
    folder: Redacted = Redacted("")  # as Commit.folder: "" for the session's own repository
    ref: Redacted = Redacted("")
    first: bool = False


class Forced(Struct, array_like=True, omit_defaults=True):
    """A push that replaced a branch's commits on the remote (git's `+
    old...new src -> dst (forced update)`, fold.git): the branch, the sha it
    replaced and the one it put there (7 hex digits), the replaced commit's
    subject when an output of the session showed it."""

    ts: str
    ref: Redacted
    old: Redacted
    new: Redacted
    subject: Redacted = Redacted("")
    folder: Redacted = Redacted("")  # as Commit.folder


class Fork(Struct, array_like=True, omit_defaults=True):
    """A branch the session created (fold.git): from which branch (its
    HEAD then, or the start the command named) and when, in which folder;
    it holds that branch's commits made before."""

    name: Redacted
    base: Redacted
    ts: str
    folder: Redacted = Redacted("")


class PullRequest(Struct, array_like=True, omit_defaults=True):
    url: Redacted  # "" when only its number is known (`gh pr merge` printed no URL)
    number: int | None = None
    repo: Redacted = Redacted("")
    merged: bool = False  # the session merged it (`gh pr merge`)
    # The session closed it unmerged (`gh pr close`; a later `gh pr reopen`
    # opens it again): review 32 #9, a PR opened and closed read as delivered.
    closed: bool = False


class Todo(Struct, array_like=True, omit_defaults=True):
    text: Redacted
    status: str = "pending"
    # A task made while an agent team existed: it is on the team's task list,
    # which TeamDelete removes (fold.todos.on_team_deleted).
    team: bool = False


class ModelSwitch(Struct, array_like=True, omit_defaults=True):
    """The main agent's model changed (/model, a fallback, a switch hook)."""

    to: Redacted
    was: Redacted = Redacted("")
    ts: str = ""
    # Claude Code's own notice ("… limit reached, now using …") came before it,
    # after the old model's last answer: the story tells it by that notice.
    noticed: bool = False


class Recap(Struct, array_like=True, omit_defaults=True):
    """A recap Claude Code wrote of the session (`away_summary` when the user
    came back, `task-summary`): its words and when."""

    text: Redacted
    ts: str = ""


class Queued(Struct, array_like=True, omit_defaults=True):
    """A prompt typed while Claude worked, as the note will show it."""

    text: Redacted
    secrets: int = 0  # replaced in `text`; counted when it is shown
    # A slash command (`/skills`): run when taken from the queue, told where it
    # runs (its own entry), not a prompt to Claude.
    command: bool = False


class Orphan(Struct, array_like=True, omit_defaults=True):
    """Claude's words written before the line they answer (fold.order): where
    they were folded, to move them into the turn their parent opens when it
    comes, and what that place held before them."""

    parent: Redacted  # the uuid the first of them names as its parent, not seen yet
    run: list[Redacted] = field(default_factory=list)  # the latest uuids of their chain
    turn_no: int = -1  # the turn they were folded into
    made: bool = False  # that turn was opened by them (no turn was under way)
    first_action: int = 0  # their actions there: first_action..last_action-1
    last_action: int = 0
    open: bool = True  # lines chained to them may still follow
    wrote: bool = False  # they hold words of Claude's (the turn's answer is theirs)
    thought: bool = False  # and thinking
    working: bool = False  # the turn's `working` before them
    answer: Redacted = Redacted("")  # and its answer, thinking, and their secrets
    answer_redactions: int = 0
    thinking: Redacted = Redacted("")
    thinking_redactions: int = 0
    age: int = 0  # lines not theirs folded since; waited for at most order.ORPHAN_AGE


class Said(Struct, array_like=True):
    """A prompt or a piece of an answer in full (cleaned, redacted): what the
    search index holds of the conversation, beyond what the note shows."""

    # prompt, answer, shell (a `!` command); task, report: a subagent's instructions, answer
    kind: str
    text: Redacted


class Subagent(Struct, array_like=True, omit_defaults=True):
    tool_id: str
    type: Redacted = Redacted("")
    description: Redacted = Redacted("")
    status: str = ""
    agent_id: Redacted = Redacted("")
    tokens: int = 0
    ms: int = 0
    tool_calls: int = 0
    ts: str = ""
    # The usage its result carries (`toolUseResult.usage`): that of the
    # subagent's last API message, the final answer, which a subagent with no
    # file of its own records nowhere else (its streamed progress lines stop
    # before it). Its model is not said (figures.tokens_by_model finds it).
    usage: Tokens | None = None
    # An inline subagent's (older layout: its entries in the main file, told
    # apart by the chain from the entry carrying its prompt): a checksum of
    # the prompt it was given, the tool calls its entries made, and its
    # first and last entries' times (fold.subagents.on_sidechain).
    prompt_key: str = ""
    side_calls: int = 0
    side_from: str = ""
    side_to: str = ""
    # The name the call gave it ("alice": an Agent call's `name`, a team's
    # member), which the user's prompts and the commits use; "" when none.
    name: Redacted = Redacted("")
    # Its final report (the Task's result, or an inline one's last reply that
    # ended its turn), its first REPORT_CHARS, without Claude Code's trailer;
    # and the calls an inline one made that change files or may (edits, shell
    # commands): its claims of a change are weighed by them.
    report: Redacted = Redacted("")
    side_edits: int = 0
    # Launched in the background (its result only says it started): its end,
    # calls, tokens and report come with its `<task-notification>`
    # (fold.subagents.on_notice), or not at all.
    background: bool = False
    # The commits its report names (7 hex digits, from a line that speaks of
    # a commit): the subagent's words, not facts of the transcript. One a
    # later output prints beside a subject is a commit (fold.git.reported);
    # the others are not told (render.work._reported says why).
    reported: list[Redacted] = field(default_factory=list)
    # Its end told only by its own file, ending in its final answer (no
    # notification came: work.settle_by_files), so undone should the file go on.
    by_file: bool = False


def agent_kind(kind: str, name: str) -> str:
    """A subagent's type as the note names it, with its name when the call
    gave one: "alice (general-purpose)"."""
    return f"{name} ({kind})" if name and kind else name or kind


class LeftRunning(Struct, array_like=True, omit_defaults=True):
    """Work a session set going that runs on by itself: a command started in
    the background (Bash `run_in_background`), a Monitor, a scheduled prompt
    (CronCreate) or wakeup (ScheduleWakeup), until the transcript says it
    stopped (or, a wakeup, fired)."""

    kind: str  # "shell", "monitor", "cron" or "wakeup"
    # the client's id for it: a background task's, a cron job's; a wakeup's prompt
    job: Redacted
    text: Redacted  # the command; the monitor's description; the prompt (and its schedule)
    status: str = ""  # "" while it runs (or stays scheduled); else how it ended
    tool_id: str = ""  # the call that started it
    ts: str = ""
    until: str = ""  # a wakeup's time (UTC ISO): it has fired once the session is past it


class Running(Struct, array_like=True, omit_defaults=True):
    """A background task or a scheduled prompt as Claude Code listed it at a
    Stop (`background_tasks`, `session_crons`: client 2.1.145+), through the
    gate: what the session waits on, whether or not its transcript tells it."""

    kind: Redacted  # "cron"; else the task's type as the client names it (shell, monitor, ...)
    job: Redacted  # the client's id for it
    text: Redacted  # a task's command (else its description); a cron's prompt
    said: Redacted = Redacted("")  # a task's description; a cron's schedule
    once: bool = False  # a cron that fires once (not recurring)


class Fold(Struct, omit_defaults=True):
    """What a transcript has told us so far, in slices: each is written by one
    module of `vibe_vault.fold` (named before it) and feeds one part of the note."""

    # fold (dispatch) and fold.context: the file itself, time, place, the turns
    entries: int = 0
    malformed: int = 0
    oversized: int = 0
    unknown: dict[Redacted, int] = field(default_factory=dict)
    first_ts: str = ""
    last_ts: str = ""
    last_epoch: float = 0.0  # the latest stamp of any entry (pauses are measured to it)
    last_own_epoch: float = 0.0  # of the entries that are the session's own (last_ts)
    first_epoch: float = 0.0  # of first_ts: the earliest of the session's own entries
    # A forked session's file opens with copies of the conversation it was
    # forked from (same uuids and message ids, their first times): they are
    # that session's, told and counted in its note, so this one skips them.
    own_begun: bool = False  # an answer of this session's own was met: no copy follows
    copy_uuids: list[Redacted] = field(default_factory=list)  # the latest copies' (fold._copied)
    opening_prompt: int = 0  # checksum of the prompt the file opened with (its enqueue)
    opened: float = 0.0  # the time of the file's first stamped line (fold._copied)
    copied: int = 0  # lines copied from an earlier session, skipped
    copied_usage: dict[str, Tokens] = field(default_factory=dict)  # their messages, by id
    copied_settled: dict[str, Tokens] = field(default_factory=dict)  # older ones, by model
    # Active time of turns Claude Code wrote no turn_duration for (fold.active):
    untimed_ms: int = 0  # of the turns that ended
    open_ms: int = 0  # of the turn under way, until its turn_duration replaces it
    in_turn: bool = False  # a turn is under way: a prompt came, no turn_duration since
    turn_from: float = 0.0  # when the turn under way began in this file (its first time here)
    wait_ms: int = 0  # the waits for the user in it so far (a turn_duration counts them)
    # The time up to queue lines (`queue-operation`) since the turn's last
    # other entry: the turn's if Claude works on after them, the user's if
    # they stamp the next prompt (2.0.x writes an enqueue and a dequeue, at
    # the prompt's own time, before every prompt: review 19, finding 1).
    queued_ms: int = 0
    # The time in it that Claude waited on its subagents (each Task from its
    # call to its result, overlaps once), and till when the latest ran: a
    # turn_duration shorter than that left it out (fold.active.timed).
    agents_ms: int = 0
    agents_until: float = 0.0
    # How Claude Code asked for permission, as of the last line that said
    # ("bypassPermissions": never, so a command's wait is its run), and whether
    # it writes bash_progress lines (2.1.17-2.1.59: a command running past ~2 s
    # gets them): both say whether a command's time includes a wait for the user.
    permission_mode: str = ""
    bash_progress: bool = False
    # A prompt came from an IDE (`<ide_opened_file>`, `<ide_selection>`): the
    # host answers permission prompts, and 2.0.0-2.0.36 write its answer bare.
    ide: bool = False
    cwd: Redacted = Redacted("")
    branches: list[Redacted] = field(default_factory=list)
    # The branch the session is on, as of its last entry that names one; in
    # the main transcript not a subagent's worktree branch leaking into it.
    # DETACHED (Claude Code's `HEAD`) while on no branch: never told as one.
    branch: Redacted = Redacted("")
    version: Redacted = Redacted("")
    redactions: int = 0
    learned: list[str] = field(default_factory=list)  # digests of secrets met so far
    # The keys of those it learned itself that every other session keeps out
    # too (random enough: context.shareable), for the home's shared_secrets.
    shared: list[str] = field(default_factory=list)
    lines_key: str = ""  # which key its line fingerprints are made with (linediff.key_id)
    turns: list[Turn] = field(default_factory=list)
    turns_dropped: int = 0
    keeps_thinking: bool = False  # turns hold their thinking (only when notes show it)
    last_answer: Redacted = Redacted("")
    # The same answer whole (up to LAST_ANSWER_CHARS) when `last_answer` is
    # cut: the note shows the last answer whole, what one resumes from.
    last_answer_whole: Redacted = Redacted("")
    # The question the last answer ended on ("should I: 1. … 2. …?"), "" when none.
    closing_question: Redacted = Redacted("")
    # fold.story: prompts, answers, compactions, links to other sessions
    turn_ms: int = 0  # sum of turn_duration entries (the turns Claude Code timed)
    first_parent: Redacted = Redacted("")  # the first message's parent: resumed from another file
    logical_parent: Redacted = Redacted("")  # where a compaction opening the file points
    tail_uuids: list[Redacted] = field(default_factory=list)  # last message ids, to link to
    # fold.order: the latest lines' uuids (any type), and Claude's words
    # written before the line they answer, waiting for it
    recent_uuids: list[Redacted] = field(default_factory=list)
    orphan: Orphan | None = None
    conversational: int = 0
    has_assistant: bool = False
    assistant_messages: int = 0
    prompts: int = 0
    interruptions: int = 0
    compactions: int = 0
    # The last turn is the user's `/exit` (or `/quit`, `/clear`, `/logout`): the
    # session ended there, for the reason Claude Code's SessionEnd would give.
    ended_by: str = ""
    queued: list["Queued"] = field(default_factory=list)  # typed while Claude worked, unread
    queued_shown: list[Redacted] = field(default_factory=list)  # the last ones shown, not to repeat
    # Taken from the queue before any turn: told by their own user line.
    taken_first: list[Redacted] = field(default_factory=list)
    # Queued ones taken back to the input box (`popAll`) and not sent since.
    taken_back: list["Queued"] = field(default_factory=list)
    # Every prompt and answer text in full, for search (the turns keep a cut
    # and drop the middle ones); bounded by SAID_CHARS, what is over counted.
    said: list[Said] = field(default_factory=list)
    said_chars: int = 0
    said_dropped: int = 0
    # A long session's `said` is most of its state and only grows: what came
    # before `said[0]` (entries 0..said_from-1) is kept in the state's side
    # file (`<key>.said`, its first said_bytes bytes), appended to, not
    # rewritten at every Stop. 0, 0 in every fold in memory but a state loaded
    # without that file (see `load_said`).
    said_from: int = 0
    said_bytes: int = 0
    # fold.usage: tokens and models
    models: list[Redacted] = field(default_factory=list)
    usage: dict[str, Tokens] = field(default_factory=dict)  # recent messages, by id
    settled: dict[str, Tokens] = field(default_factory=dict)  # older messages, by model
    progress: dict[str, "AgentFold"] = field(default_factory=dict)  # streamed, by agent id
    client_cost: ClientCost | None = None  # Claude Code's own count, when it writes one
    model: Redacted = Redacted("")  # the main agent's model, as of its last answer
    model_switches: list[ModelSwitch] = field(default_factory=list)
    model_notice: bool = False  # a "now using" notice since the main agent's last answer
    # fold.titles: what the session is called
    leaf_refs: list[Redacted] = field(default_factory=list)  # leafUuid of leading summaries
    own_summary: Redacted = Redacted("")  # the latest `summary` line about this session itself
    # Summaries whose leafUuid was not seen yet, by it.
    foreign_summaries: dict[Redacted, Redacted] = field(default_factory=dict)
    # Claude Code's own recaps (away_summary, task-summary), in the order
    # written, the latest MAX_RECAPS; the story tells each where it came.
    recaps: list[Recap] = field(default_factory=list)
    recaps_dropped: int = 0
    ai_title: Redacted = Redacted("")
    custom_title: Redacted = Redacted("")
    first_prompt_title: Redacted = Redacted("")
    first_command_title: Redacted = Redacted("")  # the slash command that opened the session
    # What the skill of a plugin's command that opened the session says it
    # does, in its author's words (fold.titles.note_skill).
    skill_about: Redacted = Redacted("")
    # The first request was interrupted before Claude did anything: the next
    # request (often the same words, completed) takes the title from it.
    title_open: bool = False
    # A ticket the first request names only by its id ("let's debug ENT-207"),
    # and its title as a tool of the session fetched it (fold.titles.note_ticket).
    ticket: Redacted = Redacted("")
    ticket_title: Redacted = Redacted("")
    # An agent team (2.1.3x): the team the session's lines name (`teamName`),
    # and, when the session is one of its teammates, its name in the team
    # (`agentName`: the lead's lines have none). A teammate's work comes as
    # its lead's messages, not prompts: its first task assignment (or the
    # lead's first words) is what it was asked (review 32 #21, #22).
    team_name: Redacted = Redacted("")
    teammate: Redacted = Redacted("")
    team_request: Redacted = Redacted("")
    # fold.calls: tool calls, paired with their results
    seq: int = 0
    # Claude's words since the last tool result said the next check is to
    # fail ("let's run the tests to confirm they fail (red phase)"), or that
    # it tries an error case ("now let me test the error case when there's no PR").
    expects_failure: bool = False
    tries_error_case: bool = False
    tool_calls: dict[Redacted, int] = field(default_factory=dict)
    pending: dict[str, Pending] = field(default_factory=dict)
    recent_tools: list[str] = field(default_factory=list)
    last_ok: dict[Redacted, int] = field(default_factory=dict)
    # fold.files
    files: dict[Redacted, FileChange] = field(default_factory=dict)
    files_dropped: int = 0
    # Files read whole where no result tells the content an edit changes
    # (fold.files.on_read): their lines, until the next change of the file.
    read_lines: dict[Redacted, bytes] = field(default_factory=dict)
    # What git's output said of files' lines, by path (fold.git_counts).
    git_lines: dict[Redacted, GitLines] = field(default_factory=dict)
    # When a git command last moved HEAD, the index or the work tree (fold.reverts).
    git_moved: str = ""
    # Symbolic links the session made (`ln -s`), each to its target (fold.files):
    # a change through one is its target's.
    links: dict[Redacted, Redacted] = field(default_factory=dict)
    # Other files the session knows are there (read, or listed by Glob or
    # Grep), the latest MAX_SEEN: what `rm -r dir` or `mv dir x` takes with it.
    seen: list[Redacted] = field(default_factory=list)
    # Files changed by commands that do not name them (fold.shell_files:
    # formatters, folders copied), told apart from the table's files.
    unnamed: list[Unnamed] = field(default_factory=list)
    # The files a formatter's latest check said it would rewrite, by the
    # formatter ("ruff format", "cargo fmt"): the files a run of it that names
    # none rewrote, when as many (or it says no number).
    would_format: dict[Redacted, list[Redacted]] = field(default_factory=dict)
    # fold.commands
    commands_run: int = 0
    # What may have changed files besides the session's edits: shell commands
    # that do not only look (fold.looks), the user's `!` ones, subagents
    # started; and whether one may still be at it in the background
    # (`unwatched`). A file found changed between two edits with none in
    # between was changed outside the session (fold.files).
    may_write: int = 0
    unwatched: bool = False
    # Folders the session's commands removed whole (`rm -rf d/`), and when
    # (the latest MAX_TREES): files under them a later commit holds as
    # deleted are the session's deletions, not changes made outside (work).
    removed_trees: dict[Redacted, str] = field(default_factory=dict)
    commands: list[Command] = field(default_factory=list)
    commands_dropped: int = 0
    # Test runs a hook ran (Claude Code 1.0.x writes a hook's command and
    # output as a system line: "Stop [uv run pytest] completed successfully:
    # … 138 passed"): the latest MAX_HOOK_TESTS, for the tests' last result.
    hook_tests: list[Command] = field(default_factory=list)
    # Test runs the user ran with `!` (`!uv run pytest -m browser`): the
    # latest MAX_HOOK_TESTS, for the tests' state before Claude's work
    # (review 26 #15: 8 failing, then "20 passed").
    user_tests: list[Command] = field(default_factory=list)
    # fold.git
    commits: list[Commit] = field(default_factory=list)
    # Commits a `git log` (or show, rev-parse) printed, sha and subject, the
    # latest PRINTED_KEPT: they name a commit another agent of the session
    # made without git's line (a subagent's merge the main agent's log shows).
    printed: list[Commit] = field(default_factory=list)
    rewrites: list[Rewrite] = field(default_factory=list)  # the latest MAX_REWRITES
    # The branch a `git merge --squash` staged, until the commit that takes it
    # is made (fold.git): that commit holds the branch's commits' work.
    squashing: Redacted = Redacted("")
    staged: dict[Redacted, Staged] = field(default_factory=dict)  # by the folder git ran in
    pushes: int = 0
    # Of them, those whose output said they sent nothing (`Everything
    # up-to-date`, every ref `= [up to date]`): review 31 F8, "Pushed 5
    # times" for three pushes that moved a branch.
    pushes_idle: int = 0
    # The branches the session created, each once, in order (fold.git): the
    # headline names them (a session that made a branch and ended before
    # pushing it made that much).
    branches_made: list[Redacted] = field(default_factory=list)
    # Of them, those it deleted again (`git branch -D x`: "Deleted branch x"),
    # taken out of `branches_made`: no branch it made is left of them
    # (review 31 F7: "branches `a` and `b` created", `a` deleted 45 s later).
    branches_gone: list[Redacted] = field(default_factory=list)
    # Where each branch made came from (the latest MAX_BRANCHES_MADE): a push
    # of it sends the commits it holds (fold.git).
    forks: list[Fork] = field(default_factory=list)
    # The branch git last said the session's folder was on (`[x 1a2b3c4] …`,
    # "Switched to branch 'x'"): what a branch made from HEAD starts at.
    head: Redacted = Redacted("")
    pushed_elsewhere: dict[Redacted, int] = field(default_factory=dict)  # of them, by folder
    # The latest push of each branch of each repository (at most MAX_PUSHED):
    # a commit is pushed when one of its branch came after it (figures).
    pushed: list[Push] = field(default_factory=list)
    # The pushes that replaced a branch's commits on the remote (a forced
    # update), the latest MAX_FORCED: review 32 #11, a `git push --force`
    # that dropped the PR branch's commit told as a plain push.
    forced: list[Forced] = field(default_factory=list)
    # Throwaway repositories the session made: folders a `git init` or `git
    # clone` made a repository in, in a temporary folder outside the
    # project (fold.git.scratch_of), the latest MAX_SCRATCH_REPOS.
    scratch_repos: list[Redacted] = field(default_factory=list)
    prs: list[PullRequest] = field(default_factory=list)
    # fold.errors
    api_errors: int = 0
    errors: list[ErrorRec] = field(default_factory=list)
    errors_dropped: int = 0
    failed_keys: dict[Redacted, int] = field(default_factory=dict)  # keys of errors not mended yet
    failed_purposes: dict[Redacted, int] = field(default_factory=dict)  # and their purposes
    # fold.todos: todos, tasks (plans are actions of the story)
    todos: list[Todo] = field(default_factory=list)
    todo_redactions: int = 0  # secrets replaced in `todos`, already in `redactions`
    # The last TodoWrite list whose result has not come yet: it takes effect
    # only if that result says it succeeded.
    todos_waiting: list[Todo] = field(default_factory=list)
    todos_waiting_secrets: int = 0
    todos_waiting_id: str = ""
    left_running: list[LeftRunning] = field(default_factory=list)  # background shells, crons
    # The plan as last written to Claude Code's plan file (~/.claude/plans/):
    # ExitPlanMode takes no plan of its own on 2.1.197-2.1.332.
    plan_draft: Redacted = Redacted("")
    # The last plan put to the user and answered (fold.todos.against_last_plan):
    # its text, when it was put, and whether the story shows it whole there.
    plan_last: Redacted = Redacted("")
    plan_last_ts: str = ""
    plan_last_whole: bool = False
    tasks: dict[str, Todo] = field(default_factory=dict)
    team: bool = False  # an agent team exists (TeamCreate, not yet TeamDelete)
    # fold.subagents
    subagents: list[Subagent] = field(default_factory=list)
    subagents_dropped: int = 0
    # A subagent's fold: the words the user typed when refusing its calls
    # (told under the subagent in the note; the main session's own are prompts).
    refusal_words: list[Redacted] = field(default_factory=list)
    # What inline subagents did (older layout: `isSidechain` entries in this file).
    sidechain: "Fold | None" = None
    # Their latest entries (by a checksum of the uuid) and the Task of each
    # (its index in `subagents`): a later entry names its parent.
    side_chains: dict[str, int] = field(default_factory=dict)


def worth_a_note(fold: Fold) -> bool:
    """Claude answered, or the user asked something (a prompt never answered is
    still the user's own words: kept, found and resumed like any other) in a
    folder known by then (a note is named by its project once: a prompt queued
    through the SDK, `queue-operation`, comes before any line telling it). A
    file of only meta lines or a bare command such as `/model` has none."""
    return fold.has_assistant or (fold.prompts > 0 and bool(fold.cwd))


class AgentFold(Struct, omit_defaults=True):
    """What one subagent file has told us so far."""

    entries: int = 0
    malformed: int = 0
    oversized: int = 0
    unknown: dict[Redacted, int] = field(default_factory=dict)
    agent_id: Redacted = Redacted("")
    session_id: Redacted = Redacted("")
    first_ts: str = ""
    last_ts: str = ""
    tool_calls: int = 0
    usage: dict[str, Tokens] = field(default_factory=dict)
    settled: dict[str, Tokens] = field(default_factory=dict)
    models: list[Redacted] = field(default_factory=list)
    # What the subagent did, folded as the main transcript is (files, commands,
    # commits, errors): the session's work as much as the main agent's.
    work: Fold = field(default_factory=Fold)
    # Its file ends in its final answer (words, no tool call after them): it
    # finished, whatever the main transcript says (review 31 F11).
    answered: bool = False


class AgentFile(Struct, omit_defaults=True):
    """A subagent transcript attached to the session."""

    cursor: Cursor = field(default_factory=Cursor)
    fold: AgentFold = field(default_factory=AgentFold)
    agent_type: Redacted = Redacted("")
    description: Redacted = Redacted("")
    foreign: bool = False  # a legacy agent file of another session


class Rendered(Struct, array_like=True):
    """A settled turn of the note's story as last rendered (`render.memo`):
    its lines, under the digest of everything they were made from."""

    key: bytes = b""
    lines: list[Redacted] = field(default_factory=list)
    # Of a part made of parts (render.page.parts): the keys of those parts.
    inner: list[bytes] = field(default_factory=list)


class SessionState(Struct, omit_defaults=True):
    # Set to STATE_VERSION as it is saved (encode_state). Not its default: a
    # field equal to its default is not written (omit_defaults), and states
    # saved so carried no version at all, so no bump ever told them apart.
    version: int = 0
    session_id: str = ""
    transcript: Redacted = Redacted("")
    note: str = ""  # path of the note relative to the vault, fixed once written
    project: str = ""
    status: str = "active"
    end_reason: Redacted = Redacted("")
    cursor: Cursor = field(default_factory=Cursor)
    fold: Fold = field(default_factory=Fold)
    agents: dict[str, AgentFile] = field(default_factory=dict)
    provisional: Redacted = Redacted("")  # last_assistant_message not yet in the transcript
    # What the client listed running at its last Stop (SubagentStops since
    # add to it): the session is paused on it, not finished (vibe_vault.running).
    running: list[Running] = field(default_factory=list)
    running_more: int = 0  # listed beyond what is kept
    running_malformed: int = 0  # entries of those lists not understood, counted
    journal_offset: int = 0
    durations: dict[str, int] = field(default_factory=dict)  # tool_use_id -> ms, from hooks
    previous: str = ""  # note paths of neighbouring sessions, set by the index
    next: str = ""
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)
    # This session's own `summary`, found in another session's file of the
    # project (set by the index, as the links are): it may title the note.
    told_elsewhere: Redacted = Redacted("")
    # Set by the index when another session of the project has the same title:
    # the day it started, shown after the title to tell them apart.
    title_tag: Redacted = Redacted("")  # tells its title from the same title of others
    # A note written from the Stop hook before the transcript existed: when,
    # and where the session ran, as the hook said.
    started_hint: str = ""
    cwd_hint: Redacted = Redacted("")
    # The user's part of the note (their heading and all below it) as last
    # written: what the note keeps when a read of it finds none.
    user_notes: str = ""
    # Words an editor saved into a note file a write had just replaced, that
    # no write has put back yet: the next write merges them in.
    user_pending: str = ""
    # The note file's stamp (device, inode, size, mtime) as vibe-vault's last
    # write left it: a note that still shows it is no editor's save.
    note_stamp: tuple[int, ...] = ()
    # The transcript's folder's stamp (inode, mtime) when every agent file in
    # it was known: while it shows the same, a Stop does not list the folder
    # (session.discover_agents).
    agents_folder: tuple[int, ...] = ()
    # The story's settled turns as the last write rendered them (render.memo):
    # not facts, a memo; a Stop renders only the turns that changed.
    rendered: list[Rendered] = field(default_factory=list)
    # The other sections' parts as the last write rendered them (Memo.part).
    rendered_parts: list[Rendered] = field(default_factory=list)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(SessionState)


def encode_state(state: SessionState) -> bytes:
    if isinstance(state, SessionState):  # (tests encode a Fold alone, to compare two)
        state.version = STATE_VERSION
    return _encoder.encode(state)


class _Version(Struct):
    version: int = 0


@cache
def _version_decoder() -> msgspec.msgpack.Decoder[_Version]:
    """(made when first needed: a state saved by encode_state is read without it)"""
    return msgspec.msgpack.Decoder(_Version)


# What msgspec raises for bytes that are not a state: a damaged string's
# bytes are no UTF-8 (UnicodeDecodeError): such a state is rebuilt, as any
# other that cannot be read.
_UNREADABLE = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)

# How a state saved by encode_state begins: a map whose first key is
# "version" (its first field, always written), then the version, an int.
_MAP_HEADS = {**{0x80 + n: 1 for n in range(16)}, 0xDE: 3, 0xDF: 5}  # fixmap, map16, map32
_VERSION_KEY = b"\xa7version"
_UINTS = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}  # msgpack's uint8 to uint64


def saved_version(data: bytes) -> int:
    """The version of a saved state (0 when it has none, or is no state),
    read from its first bytes when it begins as encode_state writes one (a
    decoder's pass over a long session's whole state cost a Stop ~1.5 M
    instructions), else by decoding it."""
    at = _MAP_HEADS.get(data[0], 0) if data else 0
    if at and data[at:at + len(_VERSION_KEY)] == _VERSION_KEY:
        at += len(_VERSION_KEY)
        first = data[at] if at < len(data) else 0xC1  # (0xC1: msgpack's never-used byte)
        if first <= 0x7F:  # a positive fixint
            return first
        size = _UINTS.get(first, 0)
        if size and at + 1 + size <= len(data):
            return int.from_bytes(data[at + 1:at + 1 + size], "big")
    try:
        return _version_decoder().decode(data).version
    except _UNREADABLE:
        return 0


def decode_state(data: bytes) -> SessionState | None:
    """The saved state, or None when it is unreadable or of another version."""
    if saved_version(data) != STATE_VERSION:
        return None  # (before its fields, which may not decode as they are now)
    try:
        state = _decoder.decode(data)
    except _UNREADABLE:
        return None
    # (the full decode's word, should a map name its version twice)
    return state if state.version == STATE_VERSION else None


class _Kept(Struct):
    """What a state of another version must not lose when the session is
    rebuilt from its transcript: where its note is (a note renamed by a new
    rule, or written twice, would break links and split the user's words) and
    the user's part of it. Fields whose type has not changed across versions."""

    session_id: str = ""
    note: str = ""
    project: str = ""
    status: str = "active"
    end_reason: Redacted = Redacted("")
    user_notes: str = ""
    user_pending: str = ""


@cache
def _kept_decoder() -> msgspec.msgpack.Decoder[_Kept]:
    """(made when first needed: only a state of another version is read with it)"""
    return msgspec.msgpack.Decoder(_Kept)


def decode_kept(data: bytes) -> SessionState | None:
    """A state of another version, as a new state holding only what it must
    keep (see _Kept); None when unreadable."""
    try:
        kept = _kept_decoder().decode(data)
    except _UNREADABLE:
        return None
    return SessionState(session_id=kept.session_id, note=kept.note, project=kept.project,
                        status=kept.status, end_reason=kept.end_reason,
                        user_notes=kept.user_notes, user_pending=kept.user_pending)


# The side file: frames of (4-byte big-endian length, msgpack list of Said).
SAID_SPILL_CHARS = 64 << 10  # said text a state holds before it goes to the side file
_said_encoder = msgspec.msgpack.Encoder()
_said_decoder = msgspec.msgpack.Decoder(list[Said])


def said_path(state_path: str) -> str:
    """The side file of the state at `state_path`."""
    return said_file(state_path)


def load_said(state: SessionState, state_path: str) -> bool:
    """Make `state.fold.said` whole again (every entry of the session, as a
    state that was never split holds them); False when the side file does not
    hold what the state says it does (then the state cannot be trusted: it is
    rebuilt from the transcript)."""
    f = state.fold
    if not f.said_from:
        return True
    try:
        fd, st = open_regular(said_path(state_path), follow_symlinks=False)
        try:
            data = read_fd(fd, f.said_bytes) if st.st_size >= f.said_bytes else b""
        finally:
            os.close(fd)
    except OSError:
        return False
    if len(data) != f.said_bytes:
        return False
    early: list[Said] = []
    at = 0
    try:
        while at < len(data):
            size = int.from_bytes(data[at : at + 4], "big")
            if at + 4 + size > len(data):
                return False
            early.extend(_said_decoder.decode(data[at + 4 : at + 4 + size]))
            at += 4 + size
    except _UNREADABLE:
        return False
    if len(early) != f.said_from:
        return False
    f.said = early + f.said
    f.said_from = f.said_bytes = 0
    return True


def spill_said(state: SessionState, state_path: str) -> SessionState:
    """The state as it is saved: when its `said` holds more than
    SAID_SPILL_CHARS, all of it but the last entry (which the fold compares the
    next one with) is appended to the side file and left out. `state` itself is
    not changed: the whole `said` stays in memory (for the search document)."""
    f = state.fold
    if len(f.said) < 2 or sum(len(s.text) for s in f.said) <= SAID_SPILL_CHARS:
        return state
    moving = f.said[:-1]
    frame = _said_encoder.encode(moving)
    data = len(frame).to_bytes(4, "big") + frame
    path = said_path(state_path)
    if not f.said_bytes:
        # Written anew (a new or re-read session, or one scrubbed of a secret
        # learned late): whole, so a reader never meets half of it.
        from vibe_vault.atomic import write_atomic

        write_atomic(path, data, mode=0o600)
    else:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            # What is past the bytes the state counts was written by a run
            # that died before saving its state: written over.
            os.ftruncate(fd, f.said_bytes)
            view = memoryview(data)
            at = f.said_bytes
            while view:
                n = os.pwrite(fd, view, at)
                view, at = view[n:], at + n
        finally:
            os.close(fd)
    kept = msgspec.structs.replace(f, said=f.said[-1:], said_from=f.said_from + len(moving),
                                   said_bytes=f.said_bytes + len(data))
    return msgspec.structs.replace(state, fold=kept)


def read_saved(path: str, key: str) -> tuple[SessionState | None, os.stat_result | None]:
    """The state saved at `path` when it is the state of session `key` (its
    safe id), and the file's stat: (None, stat) for a file that is another
    session's or unreadable as a state, (None, None) for no regular file.
    Sets nothing aside: for readers of states (the search index, a registry
    rebuild), not for the hooks that own them."""
    try:
        fd, st = open_regular(path, follow_symlinks=False)
        try:
            data = read_fd(fd, min(st.st_size, MAX_STATE))
        finally:
            os.close(fd)
    except OSError:
        return None, None
    state = decode_state(data)
    if state is None or safe_id(state.session_id) != key or not load_said(state, path):
        return None, st
    return state, st
