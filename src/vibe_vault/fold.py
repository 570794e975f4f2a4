"""Fold transcript entries into session state.

`fold(state, entries)` applies entries one at a time, so for any split
`fold(fold(s, A), B) == fold(s, A + B)`: the state after a hook's small reads
equals the state after one read of the whole file. Nothing here touches files.
The state passed in is updated in place and returned (copying a large state on
every Stop would cost more than the fold itself).

Texts are cleaned and redacted here, once, so neither the saved state nor the
note ever holds a secret, and rendering stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from vibe_vault import text as tx
from vibe_vault.entries import (
    KNOWN_SYSTEM_SUBTYPES,
    KNOWN_TYPES,
    Block,
    Entry,
    Malformed,
    ToolInput,
    ToolResult,
    agent_progress,
    decode_raw,
    queued_prompt,
)
from vibe_vault.redact import DEFAULT, Redactor
from vibe_vault.state import (
    Action,
    AgentFold,
    Command,
    Commit,
    ErrorRec,
    FileChange,
    Fold,
    Pending,
    PullRequest,
    Queued,
    Subagent,
    Todo,
    Tokens,
    Turn,
)
from vibe_vault.text import rx

# Entry types that only bring a time, a cwd and a branch.
PASSIVE_TYPES = frozenset({"progress", "file-history-snapshot", "file-history-delta",
                           "queue-operation", "attachment", "last-prompt", "mode",
                           "permission-mode", "atis-latch", "agent-name", "bridge-session",
                           "worktree-state", "relocated", "frame-link", "started", "result",
                           "cost-state", "agent-setting"})

NO_INPUT = ToolInput()

# Caps keep a note readable and the state small for sessions of tens of
# thousands of entries; what is dropped is counted and said in the note.
HEAD_TURNS = 10  # the first turns say what the session was for: always kept
TAIL_TURNS = 50  # and the latest ones; the turns between are counted, not kept
USAGE_WINDOW = 256  # message ids kept for dedup; older ones settle into totals
AGENT_USAGE_WINDOW = 64
MAX_ACTIONS = 60
MAX_FILES = 1000
MAX_COMMANDS = 100  # as many as the note shows
MAX_ERRORS = 50  # as many as the note shows
MAX_COMMITS = 100
MAX_RECENT_TOOLS = 64
MAX_PENDING = 256
MAX_SUBAGENTS = 200
MAX_TASKS = 200
TAIL_UUIDS = 50
PROMPT_CHARS = 500
RAW_PROMPT_CHARS = 64_000
ANSWER_CHARS = 700
THINKING_CHARS = 500
COMMAND_CHARS = 240
ERROR_CHARS = 400
ERROR_LINES = 4  # "Task failed due to the following issue:" says nothing on its own
MAX_FAILED_KEYS = 100
SUMMARY_CHARS = 4000
IDLE_GAP_S = 300.0

COUNTED_IN_N3 = frozenset({"explore", "fetch", "tool"})
MAX_FOREIGN_SUMMARIES = 20
MAX_QUEUED = 20
RECAP_CHARS = 400
PLAN_CHARS = 3000
# Built-in slash commands that say nothing of what a session is about: never a title.
TOPICLESS_COMMANDS = frozenset(
    {"/clear", "/exit", "/quit", "/compact", "/cost", "/help", "/status", "/config",
     "/model", "/resume", "/login", "/logout", "/doctor", "/memory", "/permissions",
     "/hooks", "/mcp", "/context", "/usage", "/statusline", "/theme", "/vim", "/ide",
     "/terminal-setup", "/add-dir", "/agents", "/bashes", "/export", "/release-notes",
     "/rewind", "/todos", "/upgrade", "/privacy-settings", "/output-style", "/plugin",
     "/fast", "/effort", "/keybindings", "/feedback", "/bug", "/rename", "/tasks"})
EXPLORE_READ = frozenset({"Read", "NotebookRead"})
EXPLORE_SEARCH = frozenset({"Grep", "Glob", "ToolSearch", "LSP"})
EXPLORE_LIST = frozenset({"LS"})
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
AGENT_TOOLS = frozenset({"Task", "Agent"})
QUIET_TOOLS = frozenset(
    {"TodoWrite", "TodoRead", "BashOutput", "KillShell", "KillBash", "TaskList", "TaskGet",
     "TaskOutput", "TaskStop", "TaskCreate", "TaskUpdate"}
)

_EXIT_CODE = r"^Exit code (-?\d+)"
_COMMIT = r"(?m)^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$"
_PR_URL = r"https://github\.com/([\w.\-]+/[\w.\-]+)/pull/(\d+)"
_TEST_CMD = (  # a runner may be called by path: .venv/bin/pytest, vendor/bin/phpunit
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|python\d?(?:\.\d+)? -m (?:pytest|unittest)|tox|nox"
    r"|go test|cargo (?:test|nextest)|(?:npm|pnpm|yarn|bun)(?: run)? test|npx (?:jest|vitest)"
    r"|jest|vitest|mocha|rspec|phpunit|ctest|mvn test|gradle test|\./gradlew test|dotnet test"
    r"|make test|just test|deno test|swift test|mix test)\b"
)
_BUILD_CMD = (
    r"(?:^|[\s;&|(/])(?:cargo build|go build|npm run build|pnpm (?:run )?build|yarn build"
    r"|make(?:\s|$)|cmake --build|mvn (?:package|install)|gradle build|tsc\b|python -m build"
    r"|uv build|docker build|vite build|next build)"
)
_PUSH_CMD = r"(?:^|[\s;&|(])git push\b"
# `git commit` in any form: `git -C dir commit`, `git -c k=v commit --amend`, after `&&`.
_COMMIT_CMD = r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+commit\b"
_COMMIT_MESSAGE = r"""\s-m\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))"""
# What `git log --oneline`, `git log`/`git show` and `git rev-parse` print.
_ONELINE = r"(?m)^\*?\s*([0-9a-f]{7,40}) (?:\([^)]*\) )?(.+)$"
_LONG_LOG = r"(?m)^commit ([0-9a-f]{40})\b.*\n(?:(?!\n).*\n)*?\n    (.+)$"
_REV_PARSE = r"^\s*([0-9a-f]{40})\s*$"
# Every alternative of the patterns above contains one of these: most commands
# (git, ls, cat, grep) are classified without running a regex.
_TEST_HINTS = ("test", "tox", "nox", "jest", "mocha", "spec", "phpunit")
_BUILD_HINTS = ("build", "make", "tsc", "mvn")


def epoch(ts: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 stamp; None if it is not one.
    (datetime.fromisoformat is C: faster than any parsing by hand in Python.)"""
    try:
        return datetime.fromisoformat(ts).timestamp()
    except ValueError:
        return None


def tokens_of(model: str, u: Any) -> Tokens:
    """One message's usage snapshot, as kept for its message id."""
    cc = u.cache_creation
    creation = u.cache_creation_input_tokens or 0
    return Tokens(
        model=model,
        input=u.input_tokens or 0,
        output=u.output_tokens or 0,
        cache_read=u.cache_read_input_tokens or 0,
        cache_creation=creation,
        cache_5m=(cc.ephemeral_5m_input_tokens or 0) if cc else creation,
        cache_1h=(cc.ephemeral_1h_input_tokens or 0) if cc else 0,
    )


def _note_usage(usage: dict[str, Tokens], settled: dict[str, Tokens], models: list[str],
                e: Entry, window: int = USAGE_WINDOW) -> bool:
    """Record an assistant entry's usage; True when the message id is new."""
    m = e.message
    if m is None:
        return False
    return note_usage(usage, settled, models, m.model or "", m.usage,
                      m.id or e.requestId or e.uuid, window)


def note_usage(usage: dict[str, Tokens], settled: dict[str, Tokens], models: list[str],
               model: str, u: Any, key: str | None, window: int = USAGE_WINDOW) -> bool:
    """Record an API message's usage; True when the message id is new.

    Streaming writes several snapshots of one message (one per content block);
    the one with the most output is kept, so each message counts once. Snapshots
    of one message are written close together, so only the last `window` ids
    are kept for dedup; older messages are added to per-model totals, which
    keeps the state (and every Stop) the same size however long the session grows.
    """
    if u is None or model == "<synthetic>":
        return False
    if model and model not in models:
        models.append(model)
    if key is None:
        return False
    old = usage.get(key)
    if old is None:
        usage[key] = tokens_of(model, u)
        if len(usage) > window:
            add_tokens(settled, usage.pop(next(iter(usage))))
        return True
    if (u.output_tokens or 0) > old.output:
        usage[key] = tokens_of(model, u)
    return False


def add_tokens(totals: dict[str, Tokens], t: Tokens, model: str | None = None) -> None:
    """Add `t` to the running total of its model (or of `model`)."""
    model = t.model if model is None else model
    acc = totals.get(model)
    if acc is None:
        acc = totals[model] = Tokens(model=model)
    acc.input += t.input
    acc.output += t.output
    acc.cache_read += t.cache_read
    acc.cache_creation += t.cache_creation
    acc.cache_5m += t.cache_5m
    acc.cache_1h += t.cache_1h


def _unknown(counts: dict[str, int], what: str, version: str | None) -> None:
    key = f"{what}@{version or '?'}"
    counts[key] = counts.get(key, 0) + 1


class Folder:
    """Applies entries to a `Fold`. One per call; holds only the redactor."""

    def __init__(self, state: Fold, redactor: Redactor, keep_thinking: bool = False,
                 agent: bool = False) -> None:
        self.s = state
        self.r = redactor
        # A subagent's work: its entries are sidechain ones, its usage is counted
        # apart, and it has no story of its own (its Task call tells it).
        self.agent = agent
        self.side: Folder | None = None  # inline subagents' work, in the main file
        # Thinking is a third of all the text a session has; it is cleaned, redacted
        # and kept only when notes show it (update_session re-reads when that changes).
        self.keep_thinking = state.keeps_thinking = keep_thinking
        self.memo: dict[tuple[str, int | None, bool], tuple[str, int]] = {}
        self.ep = 0.0  # the current entry's time, parsed once
        self.branch = ""  # the last git branch seen, to skip the list check
        self.held_no = -1
        self.held_answer: str | None = None
        self.held_thinking: str | None = None
        # TodoWrite lists: by call, until their result says whether they took
        # effect (a denied one did not); the last accepted one is worked out
        # at finish(), as is a call whose result has not come yet.
        self.todo_calls: dict[str, list[Any]] = {}
        self.todos: list[Any] | None = None
        # The ids of recent_tools as a set: every tool_use block is checked against them.
        self.recent = set(state.recent_tools)

    # -- text -------------------------------------------------------------
    def redacted(self, text: str, limit: int | None,
                 stated: bool = False) -> tuple[str, int]:
        """`note_text`, memoised for this fold call."""
        key = (text, limit, stated)
        hit = self.memo.get(key)
        if hit is not None:
            return hit  # todo lists and paths recur on every call: same text, same answer
        out = note_text(text, limit, self.r, stated)
        if len(self.memo) > 4096:
            self.memo.clear()
        self.memo[key] = out
        return out

    def safe(self, text: str, limit: int | None = None, stated: bool = False) -> str:
        text, n = self.redacted(text, limit, stated)
        self.s.redactions += n
        return text

    def safe_line(self, text: str, limit: int) -> str:
        text, n = self.line_text(text, limit)
        self.s.redactions += n
        return text

    def line_text(self, text: str, limit: int) -> tuple[str, int]:
        """`redacted` for a text shown as one line."""
        return self.redacted(tx.one_line(tx.cut(text, max(limit * 8, 4096)), limit * 2), limit)

    # -- a turn's answer and thinking ------------------------------------------
    # Claude writes many text blocks per turn and only the last is kept, so the
    # text is held raw and cleaned and redacted once: when the turn closes or
    # the fold ends. Each turn remembers how many secrets its kept texts had,
    # so the session's count is the same however the transcript was chunked.
    def hold(self, kind: str, raw: str, ts: str) -> None:
        if self.agent:
            return
        if self.turn() is None:
            self.new_turn(Turn(kind="continued", ts=ts))
        no = self.turn_no()
        if self.held_no != no:
            self.flush()
            self.held_no = no
        if kind == "answer":
            self.held_answer = raw
        else:
            self.held_thinking = raw

    def flush(self) -> None:
        if self.held_no < 0:
            return
        t = self.turn_at(self.held_no)
        s = self.s
        if t is not None and self.held_answer is not None:
            text, n = self.redacted(self.held_answer, ANSWER_CHARS, stated=True)
            s.redactions += n - t.answer_redactions
            t.answer, t.answer_redactions = text, n
            s.last_answer = text
        if t is not None and self.held_thinking is not None:
            text, n = self.redacted(self.held_thinking, THINKING_CHARS, stated=True)
            s.redactions += n - t.thinking_redactions
            t.thinking, t.thinking_redactions = text, n
        self.held_no, self.held_answer, self.held_thinking = -1, None, None

    def finish(self) -> None:
        """Work out what was held for the end of this read."""
        if self.side is not None:
            self.side.finish()
        self.flush()
        s = self.s
        if self.todo_calls:
            tid, raw = next(reversed(self.todo_calls.items()))
            s.todos_waiting, s.todos_waiting_secrets = self.todo_list(raw)
            s.todos_waiting_id = tid
            self.todo_calls.clear()
        if self.todos is not None:
            self.set_todos(*self.todo_list(self.todos))
            self.todos = None

    def todo_list(self, raw: list[Any]) -> tuple[list[Todo], int]:
        todos: list[Todo] = []
        secrets = 0
        for t in raw[:100]:
            if isinstance(t, dict):
                text, n = self.line_text(str(t.get("content") or ""), 160)
                todos.append(Todo(text=text, status=str(t.get("status") or "pending")))
                secrets += n
        return todos, secrets

    def set_todos(self, todos: list[Todo], secrets: int) -> None:
        s = self.s
        # Like a turn's answer, the list counts the secrets it holds now, so the
        # session's count does not depend on how many reads the list was seen in.
        s.redactions += secrets - s.todo_redactions
        s.todos, s.todo_redactions = todos, secrets

    def todo_result(self, tid: str, ok: bool) -> None:
        """A TodoWrite's result: its list takes effect only when it succeeded."""
        s = self.s
        raw = self.todo_calls.pop(tid, None)
        if ok:
            if raw is not None:
                self.todos = raw
            elif tid == s.todos_waiting_id:
                self.todos = None
                self.set_todos(s.todos_waiting, s.todos_waiting_secrets)
        if ok or tid == s.todos_waiting_id:
            # An accepted list supersedes any older one still waiting.
            s.todos_waiting, s.todos_waiting_secrets, s.todos_waiting_id = [], 0, ""

    # -- turns and actions -----------------------------------------------
    def turn(self) -> Turn | None:
        s = self.s
        return s.turns[-1] if s.turns else None

    def new_turn(self, t: Turn) -> None:
        if self.agent:
            return
        self.flush()
        s = self.s
        s.turns.append(t)
        if len(s.turns) > HEAD_TURNS + TAIL_TURNS:
            del s.turns[HEAD_TURNS]  # the oldest of the tail
            s.turns_dropped += 1

    def turn_no(self) -> int:
        return self.s.turns_dropped + len(self.s.turns) - 1

    def turn_at(self, no: int) -> Turn | None:
        """The turn numbered `no` (0 = first of the session), if still kept."""
        if no < 0:
            return None
        i = no if no < HEAD_TURNS else no - self.s.turns_dropped
        if no >= HEAD_TURNS and i < HEAD_TURNS:
            return None  # dropped from between head and tail
        if i < len(self.s.turns):
            return self.s.turns[i]
        return None

    def action_at(self, p: Pending) -> Action | None:
        t = self.turn_at(p.turn_no)
        if t is None or not 0 <= p.action_no < len(t.actions):
            return None
        return t.actions[p.action_no]

    def add_action(self, a: Action, merge: bool = False) -> int:
        """Append an action to the current turn; returns its index or -1."""
        if self.agent:
            return -1
        t = self.turn()
        if t is None:
            t = Turn(kind="continued", ts=a.ts)
            self.new_turn(t)
        if merge and t.actions:
            last = t.actions[-1]
            if last.kind == a.kind and last.text == a.text and a.kind != "bash":
                last.n1 += a.n1
                last.n2 += a.n2
                # Explore, fetch and tool actions count their calls in n3 (listings,
                # fetches, uses); an edit or an interruption counts its repeats there.
                last.n3 += a.n3 if a.kind in COUNTED_IN_N3 else 1
                return len(t.actions) - 1
        if len(t.actions) >= MAX_ACTIONS:
            t.more_actions += 1
            return -1
        t.actions.append(a)
        return len(t.actions) - 1

    # -- entries -----------------------------------------------------------
    def apply(self, e: Entry | Malformed) -> None:
        s = self.s
        if isinstance(e, Malformed):
            s.malformed += 1
            return
        s.entries += 1
        ts = e.timestamp or ""
        self.ep = self.clock(ts) if ts else 0.0
        version = e.version
        if version:
            s.version = version
        t = e.type
        if t not in KNOWN_TYPES:
            _unknown(s.unknown, t or "(none)", version)
            return
        if s.foreign_summaries and e.uuid in s.foreign_summaries:
            # A summary written before the entry it sums up: it was this session's after all.
            s.own_summary = s.foreign_summaries.pop(e.uuid or "")
        if not s.cwd and e.cwd:
            s.cwd = e.cwd
        branch = e.gitBranch
        if branch and branch != self.branch:
            self.branch = branch
            if branch not in s.branches and len(s.branches) < 20:
                s.branches.append(branch)
        if e.isSidechain and not self.agent and t in ("assistant", "user"):
            # An inline subagent: its usage is the session's, its work is told apart.
            if t == "assistant":
                _note_usage(s.usage, s.settled, s.models, e)
            self.sidechain_folder().apply(e)
        elif t == "assistant":
            self.conversation(e)
            self.assistant(e, ts)
        elif t == "user":
            self.conversation(e)
            self.user(e, ts)
        elif t in PASSIVE_TYPES:
            if t == "progress" and e.data:
                self.progress(e)
            elif t == "queue-operation" and not self.agent:
                self.queue(e, ts)
            elif t == "attachment" and e.attachment and not self.agent:
                raw = queued_prompt(e.attachment)
                if raw is not None:
                    self.queued_attachment(raw, ts)
            return  # a quarter of all lines: only their time and place count
        elif t == "system":
            self.system(e, ts)
        elif t == "summary":
            if e.leafUuid and not s.conversational and len(s.leaf_refs) < 10:
                s.leaf_refs.append(e.leafUuid)
            if e.summary:
                # Resumed 1.0 sessions start with summaries of *other* sessions: one
                # is this session's only when the entry it ends at is in this file.
                text = self.safe_line(e.summary, 200)
                leaf = e.leafUuid or ""
                if leaf and leaf in s.tail_uuids:
                    s.own_summary = text
                elif leaf and len(s.foreign_summaries) < MAX_FOREIGN_SUMMARIES:
                    s.foreign_summaries[leaf] = text
        elif t == "task-summary":
            if e.summary:
                s.recap = self.safe_line(e.summary, RECAP_CHARS)
        elif t == "ai-title":
            if e.aiTitle:
                s.ai_title = self.safe_line(e.aiTitle, 80)
        elif t == "custom-title":
            if e.customTitle:
                s.custom_title = self.safe_line(e.customTitle, 80)
        elif t == "pr-link" and e.prUrl:
            self.pr(e.prUrl, e.prNumber, e.prRepository or "")

    # -- prompts typed while Claude was working -------------------------------
    # Held as the note will show them (cleaned, redacted): the state holds no
    # raw transcript text.
    def queue(self, e: Entry, ts: str) -> None:
        s = self.s
        op = e.operation
        if op == "enqueue":
            content = decode_raw(e.content)
            if isinstance(content, str) and _typed(content) and len(s.queued) < MAX_QUEUED:
                text, secrets = self.queued_text(content)
                if text:
                    s.queued.append(Queued(text=text, secrets=secrets))
        elif op in ("dequeue", "remove") and s.queued:
            self.show_queued(s.queued.pop(0), ts)  # Claude takes it now
        elif op == "popAll":
            s.queued.clear()  # back to the input box; sent later as a prompt, if at all

    def queued_text(self, raw: str) -> tuple[str, int]:
        words = tx.strip_wrappers(tx.cut(raw, RAW_PROMPT_CHARS))
        return self.redacted(words, PROMPT_CHARS, stated=True) if words else ("", 0)

    def queued_attachment(self, raw: str, ts: str) -> None:
        """Claude Code records some queued prompts both as queue operations and
        as an attachment where Claude reads them: shown once."""
        s = self.s
        text, secrets = self.queued_text(raw)
        if not text:
            return
        for i, q in enumerate(s.queued):
            if q.text == text:
                self.show_queued(s.queued.pop(i), ts)
                return
        if text not in s.queued_shown:
            self.show_queued(Queued(text=text, secrets=secrets), ts)

    def show_queued(self, q: Queued, ts: str) -> None:
        s = self.s
        s.queued_shown.append(q.text)
        del s.queued_shown[:-5]
        s.redactions += q.secrets
        s.prompts += 1
        self.new_turn(Turn(kind="prompt", ts=ts, text=q.text, detail="queued"))

    def sidechain_folder(self) -> Folder:
        if self.side is None:
            s = self.s
            if s.sidechain is None:
                s.sidechain = Fold()
            self.side = Folder(s.sidechain, self.r, agent=True)
            self.side.memo = self.memo
        return self.side

    def progress(self, e: Entry) -> None:
        """Usage of a subagent message streamed into the main file: real API
        spend, which some versions record nowhere else. Kept per agent, so the
        note can prefer the agent's own file when there is one."""
        p = agent_progress(e.data)
        if p is None or p.message is None or p.message.message is None:
            return
        s = self.s
        agent = p.agentId or "?"
        af = s.progress.get(agent)
        if af is None:
            if len(s.progress) >= MAX_SUBAGENTS:
                return
            af = s.progress[agent] = AgentFold(agent_id=agent)
        m = p.message.message
        note_usage(af.usage, af.settled, af.models, m.model or "", m.usage,
                   m.id or e.uuid, AGENT_USAGE_WINDOW)

    def conversation(self, e: Entry) -> None:
        """Note a main-chain message's uuid: the last ones let a later session link here."""
        uuid = e.uuid
        if not uuid or e.isSidechain:
            return
        s = self.s
        if not s.conversational:
            s.first_parent = e.parentUuid or ""
        s.conversational += 1
        tail = s.tail_uuids
        tail.append(uuid)
        if len(tail) > TAIL_UUIDS:
            del tail[0]

    def clock(self, ts: str) -> float:
        """Track first/last stamps and active time; the entry's epoch (0 if none)."""
        ep = epoch(ts)
        if ep is None:
            return 0.0
        s = self.s
        if not s.first_ts:
            # The first entry in file order, not the earliest stamp: a later line
            # may carry an earlier time, and the note's name must not depend on
            # how much of the file had been read when it was first written.
            s.first_ts = ts
        last = s.last_epoch
        if ep >= last:
            if last:
                gap = ep - last
                if gap < IDLE_GAP_S:
                    s.gap_ms += int(gap * 1000)
            s.last_epoch = ep
            s.last_ts = ts
        return ep

    def pr(self, url: str, number: int | None, repo: str) -> None:
        s = self.s
        if any(p.url == url for p in s.prs):
            return
        s.prs.append(PullRequest(url=url, number=number, repo=repo))

    def system(self, e: Entry, ts: str) -> None:
        s = self.s
        sub = e.subtype
        if sub is None:
            return  # pre-subtype system lines: hook progress chatter
        if sub not in KNOWN_SYSTEM_SUBTYPES:
            _unknown(s.unknown, f"system:{sub}", e.version)
            return
        if sub == "compact_boundary":
            s.compactions += 1
            md = e.compactMetadata
            trigger = (md.trigger or "") if md else ""
            pre = int(md.preTokens or 0) if md else 0
            self.new_turn(Turn(kind="compact", ts=ts, text=self.safe_line(trigger, 20),
                               tokens=pre))
            if e.logicalParentUuid and not s.conversational and not s.logical_parent:
                s.logical_parent = e.logicalParentUuid
        elif sub == "turn_duration":
            if isinstance(e.durationMs, (int, float)):
                s.turn_ms += int(e.durationMs)
        elif sub == "api_error" or sub == "error":
            s.api_errors += 1
            info = decode_raw(e.error)
            msg = ""
            if isinstance(info, dict):
                status = info.get("status")
                msg = str(info.get("message") or (f"HTTP {status}" if status else ""))
            self.error("API", msg or "API error (retried)", ts)
        elif sub == "away_summary":
            content = decode_raw(e.content)
            if isinstance(content, str) and content.strip():
                s.recap = self.safe_line(_without_recap_hint(content), RECAP_CHARS)
        elif sub == "local_command":
            content = decode_raw(e.content)
            if isinstance(content, str):
                cmd = tx.slash_command(content)
                if cmd:
                    self.add_action(Action(kind="slash", text=self.safe_line(cmd, 120), ts=ts))

    def error(self, tool: str, text: str, ts: str, key: str = "") -> None:
        s = self.s
        s.errors.append(ErrorRec(tool=tool, text=self.error_text(text), ts=ts, seq=s.seq,
                                 key=key))
        if len(s.errors) > MAX_ERRORS:
            del s.errors[0]
            s.errors_dropped += 1
        if key and (key in s.failed_keys or len(s.failed_keys) < MAX_FAILED_KEYS):
            s.failed_keys[key] = s.seq

    def error_text(self, text: str) -> str:
        """An error's first non-empty lines, each collapsed, up to the limits."""
        lines: list[str] = []
        for raw in tx.cut(text, ERROR_CHARS * 4).splitlines():
            line = " ".join(raw.split())
            if line:
                lines.append(line)
            if len(lines) == ERROR_LINES:
                break
        return self.safe(tx.trim("\n".join(lines), ERROR_CHARS))

    def mended(self, key: str) -> None:
        """A success of what failed before: those errors later succeeded."""
        s = self.s
        if not key or key not in s.failed_keys:
            return
        del s.failed_keys[key]
        for err in s.errors:
            if err.key == key:
                err.later_ok = True

    # -- assistant -----------------------------------------------------------
    def assistant(self, e: Entry, ts: str) -> None:
        s = self.s
        m = e.message
        if m is None:
            return
        # A subagent's usage is counted where its file is folded.
        new = False if self.agent else _note_usage(s.usage, s.settled, s.models, e)
        sidechain = bool(e.isSidechain) and not self.agent
        if m.model != "<synthetic>":
            s.has_assistant = True
        if new and not sidechain:
            s.assistant_messages += 1
        if e.isApiErrorMessage:
            s.api_errors += 1
            text = ""
            if isinstance(m.content, list):
                text = next((b.text for b in m.content if isinstance(b, Block) and b.text), "")
            self.error("API", text or "API error", ts)
            return
        content = m.content
        if not isinstance(content, list):
            return
        for b in content:
            if not isinstance(b, Block):
                continue
            if b.type == "tool_use" and b.id:
                if b.id in s.pending or b.id in self.recent:
                    continue  # a streaming snapshot repeating a block we have
                self.tool_use(b, ts, sidechain)
            elif b.type == "thinking" and self.keep_thinking and b.thinking and not sidechain:
                raw = decode_raw(b.thinking)
                raw = raw.strip() if isinstance(raw, str) else ""
                if raw:
                    self.hold("thinking", raw, ts)
            elif b.type == "text" and b.text and not sidechain:
                raw = b.text.strip()
                if raw:
                    self.hold("answer", raw, ts)

    def tool_use(self, b: Block, ts: str, sidechain: bool) -> None:
        s = self.s
        name = b.name or "?"
        s.tool_calls[name] = s.tool_calls.get(name, 0) + 1
        s.seq += 1
        inp = b.input if isinstance(b.input, ToolInput) else NO_INPUT
        if sidechain:
            return  # inline subagent work: counted, told by its Task call
        p = Pending(name=name, seq=s.seq, ep=self.ep, tool_id=b.id or "")
        a: Action | None = None
        merge = False
        if name in EXPLORE_READ:
            a, merge = Action(kind="explore", n1=1, ts=ts), True
        elif name in EXPLORE_SEARCH:
            a, merge = Action(kind="explore", n2=1, ts=ts), True
        elif name in EXPLORE_LIST:
            a, merge = Action(kind="explore", n3=1, ts=ts), True
        elif name in EDIT_TOOLS:
            path = str(inp.file_path or inp.notebook_path or "")
            p.path = self.safe(path, 300)
            p.key = "file:" + p.path
            p.est_added, p.est_removed = _estimate(name, inp)
            # Edits in a row to one file read as one line: "Edited `x` (+9 −2) ×3".
            a, merge = Action(kind="edit", text=p.path, detail=name, ts=ts,
                              tool_id=b.id or ""), True
        elif name == "Bash":
            cmd = str(inp.command or "")
            # Only the first line is shown: a heredoc's body need not be scanned.
            text = self.safe(tx.cut(cmd, COMMAND_CHARS * 4), None)
            shown = tx.one_line(text, COMMAND_CHARS)
            if text.count("\n") and not shown.endswith("…"):
                shown += " …"
            low = cmd.lower()
            kind = ("test" if _mentions(low, _TEST_HINTS) and rx(_TEST_CMD).search(cmd)
                    else "build" if _mentions(low, _BUILD_HINTS)
                    and rx(_BUILD_CMD).search(cmd) else "command")
            a = Action(kind="bash", text=shown, detail=kind, ts=ts, tool_id=b.id or "")
            p.key = "cmd:" + " ".join(text.split())
            p.action_cmd = s.commands_dropped + len(s.commands)
            s.commands_run += 1
            s.commands.append(Command(command=shown, kind=kind, ts=ts, tool_id=b.id or ""))
            if len(s.commands) > MAX_COMMANDS:
                del s.commands[0]
                s.commands_dropped += 1
            # What the output may tell: only git commands print commits or pushes.
            if "git" in cmd:
                pushed = "git push" in cmd and rx(_PUSH_CMD).search(cmd)  # `in` is 20x cheaper
                p.path = "git push" if pushed else "git"
                if "commit" in cmd and rx(_COMMIT_CMD).search(cmd):
                    p.commits = True
                    m = rx(_COMMIT_MESSAGE).search(cmd)
                    if m:
                        words = next(g for g in m.groups() if g is not None)
                        p.subject = self.safe_line(words.replace('\\"', '"'), 120)
        elif name in AGENT_TOOLS:
            sub = Subagent(
                tool_id=b.id or "",
                type=self.safe_line(str(inp.subagent_type or "general-purpose"), 60),
                description=self.safe_line(str(inp.description or ""), 120),
                ts=ts,
            )
            if len(s.subagents) < MAX_SUBAGENTS:
                s.subagents.append(sub)
                p.sub_no = len(s.subagents) - 1
            else:
                s.subagents_dropped += 1
            a = Action(kind="agent", text=sub.type, detail=sub.description, ts=ts)
        elif name == "ExitPlanMode":
            plan = inp.plan if isinstance(inp.plan, str) else ""
            a = Action(kind="plan", ts=ts, detail=self.safe(plan.strip(), PLAN_CHARS, stated=True))
        elif name == "EnterPlanMode":
            a = Action(kind="tool", text="Entered plan mode", ts=ts)
        elif name == "AskUserQuestion":
            qs = inp.questions
            q = str(inp.question or "")  # before 2.0.5x: one question, no list
            if isinstance(qs, list) and qs and isinstance(qs[0], dict):
                q = str(qs[0].get("question") or qs[0].get("header") or "")
            a = Action(kind="question", text=self.safe_line(q, 200), ts=ts)
        elif name == "WebFetch":
            url = str(inp.url or "")
            host = url.split("://", 1)[-1].split("/", 1)[0]
            a, merge = Action(kind="fetch", text=self.safe_line(host, 100), n3=1, ts=ts), True
        elif name == "WebSearch":
            a = Action(kind="search", text=self.safe_line(str(inp.query or ""), 120),
                       ts=ts)
        elif name == "TodoWrite":
            if isinstance(inp.todos, list):
                # Each call replaces the whole list, once its result says it did.
                self.todo_calls[b.id or ""] = inp.todos
                if len(self.todo_calls) > 8:
                    del self.todo_calls[next(iter(self.todo_calls))]
        elif name == "TaskCreate":
            subj = str(inp.subject or inp.description or "")
            p.path = self.safe_line(subj, 160)
        elif name == "TaskUpdate":
            tid = str(inp.taskId or "")
            status = inp.status
            if tid in s.tasks and isinstance(status, str):
                s.tasks[tid].status = status
        elif name in ("Skill", "SlashCommand"):
            what = str(inp.skill or inp.command or name)
            a = Action(kind="skill", text=self.safe_line(what, 80), ts=ts)
        elif name not in QUIET_TOOLS:
            label = name
            if name.startswith("mcp__"):
                parts = name.split("__")
                label = f"{parts[1]}: {parts[-1]}" if len(parts) >= 3 else name
            a, merge = Action(kind="tool", text=self.safe_line(label, 80), n3=1, ts=ts), True
        if a is not None:
            p.turn_no = self.turn_no()
            p.action_no = self.add_action(a, merge)
        s.pending[b.id or ""] = p
        if len(s.pending) > MAX_PENDING:
            # Calls whose results never came (interrupted): forget the oldest.
            del s.pending[next(iter(s.pending))]

    # -- user ------------------------------------------------------------------
    def user(self, e: Entry, ts: str) -> None:
        m = e.message
        if m is None:
            return
        content = m.content
        if isinstance(content, list):
            texts: list[str] = []
            images = 0
            for b in content:
                if isinstance(b, str):
                    texts.append(b)
                elif b.type == "tool_result":
                    self.tool_result(b, e, ts)
                elif b.type == "text" and b.text:
                    texts.append(b.text)
                elif b.type == "image":
                    images += 1
            if texts or images:
                self.prompt(e, "\n".join(texts), images, ts)
        elif isinstance(content, str):
            self.prompt(e, content, 0, ts)

    def prompt(self, e: Entry, raw: str, images: int, ts: str) -> None:
        s = self.s
        # A pasted log can be megabytes; a note keeps 500 characters of a prompt, and
        # the wrapper tags to strip come first. Bounding the text bounds the regexes.
        raw = tx.cut(raw, RAW_PROMPT_CHARS)
        if e.isSidechain:
            return
        if e.isCompactSummary:
            summary = self.safe(raw.strip(), SUMMARY_CHARS, stated=True)
            t = self.turn()
            if t is not None and t.kind == "compact" and not t.detail:
                t.detail = summary
            else:
                self.new_turn(Turn(kind="continued", ts=ts, detail=summary))
            return
        if e.isMeta:
            return
        stripped = raw.lstrip()
        if stripped.startswith("[Request interrupted by user"):
            s.interruptions += 1
            self.add_action(Action(kind="interrupt", ts=ts), merge=True)
            return
        if stripped.startswith(("<local-command-stdout>", "<local-command-stderr>",
                                "Caveat: The messages below were generated")):
            return
        if stripped.startswith(("<bash-input>", "<bash-stdout>", "<bash-stderr>")):
            return
        if stripped.startswith("<task-notification>"):
            return
        cmd = tx.slash_command(raw)
        if cmd is not None:
            text = self.safe(cmd, PROMPT_CHARS)
            self.new_turn(Turn(kind="command", ts=ts, text=text))
            if not s.first_command_title and cmd.split(" ", 1)[0] not in TOPICLESS_COMMANDS:
                s.first_command_title = tx.one_line(text, 80)
            return
        words = tx.strip_wrappers(raw)
        if images:
            words = (words + " " + " ".join(["[image]"] * min(images, 5))).strip()
        if not words:
            return
        text = self.safe(words, PROMPT_CHARS, stated=True)
        s.prompts += 1
        self.new_turn(Turn(kind="prompt", ts=ts, text=text))
        if not s.first_prompt_title and not tx.is_filler(words) and words != "[image]":
            title = tx.one_line(text, 80)
            if title and not title.startswith("/"):
                s.first_prompt_title = title

    def tool_result(self, b: Block, e: Entry, ts: str) -> None:
        s = self.s
        tid = b.tool_use_id or ""
        p = s.pending.pop(tid, None)
        if p is None:
            return
        s.recent_tools.append(tid)
        self.recent.add(tid)
        if len(s.recent_tools) > MAX_RECENT_TOOLS:
            self.recent.discard(s.recent_tools.pop(0))
        # Decoded with the line, and only its few fields: a Read's result is a whole file.
        r = e.toolUseResult
        result = r if isinstance(r, ToolResult) else None
        is_error = bool(b.is_error)
        content = None
        # The tool_result text is decoded only when it is read: an error's message,
        # or a command's output when the structured result has no stdout.
        if is_error or (p.name == "Bash" and not (result and result.stdout)):
            content = _result_text(decode_raw(b.content))
        a = self.action_at(p)
        ms = int((self.ep - p.ep) * 1000) if p.ep and self.ep >= p.ep else None
        if is_error:
            text = content or "error"
            denied = text.startswith(("The user doesn't want to", "Permission to use",
                                      "The user doesn't want to take this action"))
            status = "denied" if denied else "failed"
            if not denied:
                self.error(p.name, text, ts, p.key)
        else:
            status = "ok"
            s.last_ok[p.name] = p.seq
            if s.failed_keys:
                self.mended(p.key)
        if a is not None and a.kind not in ("explore", "tool", "fetch"):
            # A line standing for several edits stays "edited" if any of them
            # succeeded; the failures are listed under Errors.
            if not (a.kind == "edit" and a.status == "ok"):
                a.status = status
            a.ms = ms
        if p.name == "Bash":
            self.bash_result(p, a, status, content or "", result, ms, ts)
        elif p.name in EDIT_TOOLS and status == "ok":
            self.file_change(p, a, result)
        elif p.sub_no >= 0 and p.sub_no < len(s.subagents):
            sub = s.subagents[p.sub_no]
            sub.status = status if status != "ok" else "completed"
            if result is not None:
                sub.agent_id = str(result.agentId or "")
                sub.tokens = _int(result.totalTokens)
                sub.ms = _int(result.totalDurationMs)
                sub.tool_calls = _int(result.totalToolUseCount)
                st = result.status
                if isinstance(st, str) and st:
                    sub.status = st
        elif p.name == "TodoWrite":
            self.todo_result(tid, status == "ok")
        elif p.name == "ExitPlanMode" and a is not None:
            a.status = "approved" if status == "ok" else ("rejected" if status == "denied"
                                                         else status)
        elif p.name == "AskUserQuestion" and a is not None and result is not None:
            answers = result.answers
            if isinstance(answers, dict) and answers:
                a.detail = self.safe_line(str(next(iter(answers.values()))), 160)
        elif p.name == "TaskCreate" and result is not None:
            task = result.task
            if isinstance(task, dict) and task.get("id") is not None:
                if len(s.tasks) >= MAX_TASKS:
                    return
                s.tasks[str(task["id"])] = Todo(
                    text=self.safe_line(str(task.get("subject") or p.path), 160))

    def bash_result(self, p: Pending, a: Action | None, status: str, content: str,
                    result: ToolResult | None, ms: int | None, ts: str) -> None:
        s = self.s
        code: int | None = 0 if status == "ok" else None
        stdout = ""
        if result is not None:
            stdout = str(result.stdout or "")
            if result.interrupted:
                status = "interrupted"
        if status == "failed":
            m = rx(_EXIT_CODE).match(content)
            code = int(m.group(1)) if m else None
        if a is not None:
            a.code = code
            a.status = status
        i = p.action_cmd - s.commands_dropped
        if 0 <= i < len(s.commands) and s.commands[i].tool_id == p.tool_id:
            c = s.commands[i]
            c.status, c.code, c.ms = status, code, ms
        out = stdout or content
        # git's own `[branch sha] subject` line is a commit even when a later
        # command of the same line failed.
        found = False
        for m in rx(_COMMIT).finditer(out) if p.path and "] " in out else ():
            found = True
            self.commit(m.group(2), self.safe_line(m.group(3), 120),
                        self.safe_line(m.group(1), 60), ts)
        if status == "ok" and p.commits and not found:
            # `git commit -q`, `-F -`, a commit in a script: no line to read, but a
            # commit all the same. A later `git log` or `rev-parse` may name it.
            self.commit("", p.subject, self.safe_line(self.branch, 60), ts)
        if status == "ok" and out:
            if p.path and any(not c.sha for c in s.commits):
                self.name_commits(out)
            for m in rx(_PR_URL).finditer(out) if "/pull/" in out else ():
                self.pr(m.group(0), int(m.group(2)), m.group(1))
            if p.path == "git push":
                s.pushes += 1

    def commit(self, sha: str, subject: str, branch: str, ts: str) -> None:
        s = self.s
        if sha and any(c.sha == sha for c in s.commits):
            return
        s.commits.append(Commit(sha=sha, subject=subject, branch=branch, ts=ts))
        del s.commits[:-MAX_COMMITS]

    def name_commits(self, out: str) -> None:
        """Give commits made without git's line their sha, from what `git log`,
        `git show` or `git rev-parse` printed later: by subject, or, for a bare
        sha, the latest commit when it is the one without one."""
        s = self.s
        unnamed = [c for c in s.commits if not c.sha]
        known = {c.sha for c in s.commits if c.sha}
        pairs = [(m.group(1), m.group(2)) for m in rx(_LONG_LOG).finditer(out)]
        pairs += [(m.group(1), m.group(2)) for m in rx(_ONELINE).finditer(out)]
        for sha, subject in pairs:
            subject = self.safe_line(subject, 120)
            for c in unnamed:
                if not c.sha and c.subject and subject == c.subject and sha[:7] not in known:
                    c.sha = sha[:7]
                    known.add(c.sha)
        last = s.commits[-1]
        m = rx(_REV_PARSE).match(out)
        if m and not last.sha:
            last.sha = m.group(1)[:7]

    def file_change(self, p: Pending, a: Action | None, result: ToolResult | None) -> None:
        s = self.s
        path = p.path
        if not path:
            return
        added = removed = 0
        estimated = False
        op = "modified"
        if result is not None:
            if result.type == "create":
                op = "created"
            patch = result.structuredPatch
            if isinstance(patch, list) and patch:
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
                added = _count_json_lines(result.content)
            else:
                estimated = True
        else:
            estimated = True
        if estimated:
            added, removed = p.est_added, p.est_removed
        if p.name == "Write" and op == "modified" and result is None:
            op = "written"
        fc = s.files.get(path)
        if fc is None:
            if len(s.files) >= MAX_FILES:
                s.files_dropped += 1
                return
            fc = s.files[path] = FileChange()
        if op not in fc.ops:
            fc.ops.append(op)
        fc.added += added
        fc.removed += removed
        fc.estimated = fc.estimated or estimated
        if a is not None:
            a.n1 += added
            a.n2 += removed
            if op == "created":
                a.detail = "created"


def note_text(text: str, limit: int | None, redactor: Redactor,
              stated: bool = False) -> tuple[str, int]:
    """A transcript text as a note may hold it: cleaned, redacted and cut to
    `limit`; and how many secrets were replaced.

    The text is first cut at a space near twice the limit, so the regex work is
    bounded and no token-like secret is split in two. `stated` says the limit
    where a long text was cut (prompts, answers, summaries).
    """
    if limit is not None:
        text = tx.cut(text, limit * 2)
    text, n = redactor.redact(tx.clean(text))
    if limit is not None:
        cut = tx.trim(text, limit)
        if stated and cut != text.strip():
            cut += f" [cut at {limit:,} characters]"
        text = cut
    return text, n


def _estimate(name: str, inp: ToolInput) -> tuple[int, int]:
    """Lines added/removed judged from a tool's input, for results without a patch."""
    if name == "Write":
        return _count_json_lines(inp.content), 0
    if name == "NotebookEdit":
        return _count_json_lines(inp.new_source), 0
    if name != "MultiEdit":
        return _count_json_lines(inp.new_string), _count_json_lines(inp.old_string)
    added = removed = 0
    if isinstance(inp.edits, list):
        for ed in inp.edits:
            if isinstance(ed, dict):
                added += _count_lines(str(ed.get("new_string") or ""))
                removed += _count_lines(str(ed.get("old_string") or ""))
    return added, removed


def _count_json_lines(value: Any) -> int:
    """Lines of a JSON string given raw (msgspec.Raw), without decoding it: a
    whole created file need not be copied into a str just to be counted."""
    raw = bytes(value)
    if not raw.startswith(b'"'):
        text = decode_raw(value)
        return _count_lines(text) if isinstance(text, str) else 0
    if b"\\\\" in raw:
        # An escaped backslash is one character, and must not pair with what follows.
        raw = raw.replace(b"\\\\", b"_")
    if len(raw) <= 2:  # ""
        return 0
    return raw.count(b"\\n") + (0 if raw.endswith(b'\\n"') else 1)


def _count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _typed(content: str) -> bool:
    """A queued item a person typed, not a background task's notification."""
    head = content.lstrip()[:1]
    return bool(head) and head not in "{<"


def _without_recap_hint(text: str) -> str:
    """A recap without the settings hint Claude Code appends to it."""
    text = text.strip()
    hint = "(disable recaps in /config)"
    return text[: -len(hint)].rstrip() if text.endswith(hint) else text


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    # A plain loop, not any() over a generator, which costs more than the searches.
    for w in words:  # noqa: SIM110
        if w in text:
            return True
    return False


def _int(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(c.get("text") or "")
            for c in content
            if isinstance(c, dict) and c.get("type") == "text"
        ]
        return "\n".join(parts)
    return ""


def fold(state: Fold, entries: Iterable[Entry | Malformed],
         redactor: Redactor = DEFAULT, keep_thinking: bool = False) -> Fold:
    """Apply entries in order to the main transcript's state."""
    f = Folder(state, redactor, keep_thinking)
    apply = f.apply
    for e in entries:
        apply(e)
    f.finish()
    return state


def fold_agent(state: AgentFold, entries: Iterable[Entry | Malformed],
               redactor: Redactor = DEFAULT) -> AgentFold:
    """Apply entries in order to one subagent file's state."""
    work = Folder(state.work, redactor, agent=True)
    for e in entries:
        if not isinstance(e, Malformed):
            work.apply(e)
        if isinstance(e, Malformed):
            state.malformed += 1
            continue
        state.entries += 1
        if e.type not in KNOWN_TYPES:
            _unknown(state.unknown, e.type or "(none)", e.version)
            continue
        if e.sessionId and not state.session_id:
            state.session_id = e.sessionId
        if e.agentId and not state.agent_id:
            state.agent_id = e.agentId
        ts = e.timestamp if isinstance(e.timestamp, str) else ""
        if ts:
            if not state.first_ts:
                state.first_ts = ts
            state.last_ts = ts
        if e.type == "assistant" and e.message is not None:
            # Many subagent files may hang off one session: a smaller window each.
            _note_usage(state.usage, state.settled, state.models, e, AGENT_USAGE_WINDOW)
            c = e.message.content
            if isinstance(c, list):
                state.tool_calls += sum(
                    1 for b in c if isinstance(b, Block) and b.type == "tool_use"
                )
    work.finish()
    return state
