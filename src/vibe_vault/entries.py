"""Transcript entries as msgspec Structs, and decoding one JSONL line.

Every field is optional and unknown fields are ignored, because Claude Code adds
entry types and fields every few weeks. Volatile subtrees (`data`,
`snapshot`, `attachment`, tool_result content) stay `msgspec.Raw`, and of a
`toolUseResult` only a few fields are read, so a line only pays for what the
fold reads, and a surprising shape in them never costs the rest of the line.
"""


from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import msgspec
from msgspec import Raw, Struct

# Entry types the fold knows about; anything else is counted as unknown.
KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "attachment",
        "pr-link",
        "ai-title",
        "custom-title",
        "agent-name",
        "last-prompt",
        "mode",
        "permission-mode",
        "atis-latch",
        "worktree-state",
        "relocated",
        "bridge-session",
        "frame-link",
        "started",
        "result",
        "cost-state",
        "agent-setting",
        "task-summary",
        # 2.1.2xx-2.1.332: the request the client sent (its shape holds the whole
        # system prompt, CLAUDE.md and memory included; a blob, a message's text),
        # the tools a turn used. Never read: see `PRIVATE_TYPES`.
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "tools-used",
    }
)

# Entry types whose lines are large and private (the whole system prompt, the
# user's CLAUDE.md and memory, every message's text again): recognised from the
# first bytes of the line as Claude Code writes it (`{"type":"api-request-shape"`)
# and skipped without decoding; nothing of them is stored or indexed.
PRIVATE_TYPES = frozenset({"api-request-shape", "api-request-blob"})
_PRIVATE_HEADS = tuple(b'{"type":"' + t.encode() + b'"' for t in sorted(PRIVATE_TYPES))
_PRIVATE_LEN = max(len(h) for h in _PRIVATE_HEADS)

# The system lines Claude Code writes once a turn's last answer is in (its
# Stop hooks' summary, its duration). At the head of a file, before any prompt
# or answer (a checkpoint cut after them), they close a turn the file does not
# hold, and say nothing of when its session started.
TURN_CLOSERS = frozenset({"stop_hook_summary", "turn_duration"})


def closes_a_turn_before(kind: str | None, subtype: str | None, talked: bool) -> bool:
    """Whether a line is a leftover closing a turn before the file's first
    message (`talked`: a prompt or an answer came before it)."""
    return not talked and kind == "system" and subtype in TURN_CLOSERS


KNOWN_SYSTEM_SUBTYPES = frozenset(
    {
        "compact_boundary",
        "microcompact_boundary",
        "turn_duration",
        "api_error",
        "local_command",
        "away_summary",
        "informational",
        "stop_hook_summary",
        "session_start",
        "api_refusal",
        "error",
        "model_refusal_fallback",
        "deferred_tools_delta",
        "mcp_instructions_delta",
    }
)


# Top-level fields of transcript lines that vibe-vault knows: the ones `Entry`
# reads, and the ones it deliberately leaves alone. `vv doctor` reports others.
IGNORED_FIELDS = frozenset({
    "userType", "slug", "isSnapshotUpdate", "snapshot", "messageId",
    "attachment", "toolUseID", "todos", "thinkingMetadata", "promptId",
    "promptSource", "origin", "sourceToolAssistantUUID", "sourceToolUseID", "toolDenialKind",
    "isVisibleInTranscriptOnly", "interruptedMessageId", "toolEndsTurn", "mcpMeta",
    "classifierMetaLines", "interruptedByShutdown", "sessionKind", "turnCompanion",
    "planContent", "effort", "isAbortedMidStream", "errorDetails", "supersedesUuids",
    "attributionSkill", "attributionPlugin", "attributionAgent", "mode",
    "lastPrompt", "path", "frameUrl", "title", "key", "result", "relocatedCwd",
    "worktreeSession", "bridgeSessionId", "lastSequenceNum", "ownerAccountUuid",
    "ownerOrganizationUuid", "atis", "snapshotMessageId", "trackingPath", "backup",
    "pendingBackgroundAgentCount", "scope", "microcompactMetadata", "direction", "source",
    "refusedUserMessageUuid", "retractedMessageUuids", "apiRefusalCategory",
    "apiErrorStatus",  # the HTTP status of an API error entry (isApiErrorMessage)
    "apiRefusalExplanation", "originalModel", "fallbackModel", "trigger", "cause",
    "maxRetries", "retryAttempt", "retryInMs", "messageCount", "hookCount", "hookInfos",
    "hookErrors", "hookAdditionalContext", "preventedContinuation", "stopReason",
    "hasOutput", "session_id", "imagePasteIds", "level",
    # 2.1.2xx-2.1.332: how a line was made and shown, and what the request was
    "rowSource", "sentAtMs", "turnOrigin", "turnPosition", "rendered", "renderedRole",
    "renderedBesideToolResult", "apiBlockIndex", "madeBy", "perTurnEffort",
    "promptCacheRequested", "requestRef", "requestedModel", "thinkingDisplay",
    "thinkingDurationMs", "toolInputStreamMs", "permissionDecision", "sandboxed",
    "failedHookErrorIndexes", "apiErrorType", "failedResponseHadNoToolCall",
    "queueSkipAttachments", "commandRun", "serverClassifierRequest",
    # api-request, api-request-shape, api-request-blob, tools-used lines
    "shape", "shapeHash", "hash", "params", "cacheControl", "echoWireToolInputs", "id",
    "keep", "querySource", "requestDigest", "tail", "thread", "base", "tools",
    # cost-state lines beyond the cost the fold reads
    "totalAPIDuration", "totalAPIDurationWithoutRetries", "totalDuration",
    "totalLinesAdded", "totalLinesRemoved", "totalToolDuration",
})


class CacheCreation(Struct, omit_defaults=True):
    ephemeral_5m_input_tokens: int | None = None
    ephemeral_1h_input_tokens: int | None = None


class Usage(Struct, omit_defaults=True):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_creation: CacheCreation | None = None
    speed: Any = None  # "fast": fast mode, priced apart
    inference_geo: Any = None  # "us": US-only inference, priced 1.1x


class ToolInput(Struct):
    """The fields of a tool call's input the fold reads, whatever the tool.
    A Write's file and an Edit's strings are only counted in lines, so they
    stay raw JSON: no copy of a whole file into a str."""

    file_path: Any = None
    notebook_path: Any = None
    command: Any = None
    description: Any = None
    run_in_background: Any = None
    subagent_type: Any = None
    prompt: Any = None  # a subagent's instructions (Task/Agent); WebFetch's question
    question: Any = None
    questions: Any = None
    url: Any = None
    query: Any = None
    todos: Any = None
    subject: Any = None
    taskId: Any = None
    status: Any = None
    skill: Any = None
    edits: Any = None
    plan: Any = None
    task_id: Any = None  # TaskStop/TaskOutput: a background task
    shell_id: Any = None  # KillShell/KillBash/BashOutput (older), TaskStop (deprecated)
    cron: Any = None  # CronCreate: its schedule
    id: Any = None  # CronDelete: the job
    bash_id: Any = None  # BashOutput (older clients): a background command
    agentId: Any = None  # AgentOutputTool (2.0.x): the background agent it asks about
    reason: Any = None  # ScheduleWakeup: why it waits this long
    stop: Any = None  # ScheduleWakeup: true ends the loop
    pattern: Any = None  # Grep, Glob: what was looked for
    path: Any = None  # Grep, Glob: where; an MCP tool's file or folder
    name: Any = None  # an MCP tool's argument (fold.errors.MAIN_ARGUMENTS); an Agent's name
    title: Any = None  # an MCP tool's argument
    offset: Any = None  # Read: the first line read
    limit: Any = None  # Read: how many lines
    replace_all: Any = None  # Edit: every place the old string is found
    recipient: Any = None  # SendMessage: the teammate written to
    type: Any = None  # SendMessage: message, broadcast, shutdown_request, shutdown_response
    summary: Any = None  # SendMessage: its words in brief
    approve: Any = None  # SendMessage: a shutdown_response's answer
    content: Raw = Raw()
    new_source: Raw = Raw()
    old_string: Raw = Raw()
    new_string: Raw = Raw()


class Block(Struct, omit_defaults=True):
    """One content block of a message: text, thinking, tool_use, tool_result, image."""

    type: str = ""
    text: str | None = None
    thinking: Raw = Raw()  # decoded only when notes show thinking
    id: str | None = None
    name: str | None = None
    input: ToolInput | str | list[Raw] | int | float | bool | None = None
    tool_use_id: str | None = None
    content: Raw = Raw()
    is_error: bool | None = None


class ToolResult(Struct):
    """The few fields of a `toolUseResult` the fold reads, decoded in the same
    pass as the line. Everything else (an Edit's `originalFile` is a whole
    file, a Read's result is one) is skipped by the decoder unread; every field
    takes any JSON value, so no shape here can cost the rest of the line."""

    type: Any = None
    structuredPatch: Any = None
    content: Raw = Raw()  # a Write's whole file: counted from the raw bytes
    stdout: Any = None
    stderr: Any = None  # a command's errors (`rm: f: No such file or directory`)
    interrupted: Any = None
    agentId: Any = None
    totalTokens: Any = None
    totalDurationMs: Any = None
    durationMs: Any = None  # the client's own count of how long the tool ran (Glob, …)
    totalToolUseCount: Any = None
    status: Any = None
    usage: Raw = Raw()  # a Task's: its subagent's last API message (fold.subagents)
    answers: Any = None
    task: Any = None
    backgroundTaskId: Any = None  # a Bash command started in the background
    id: Any = None  # a CronCreate's job
    humanSchedule: Any = None  # a CronCreate's schedule, in words
    taskId: Any = None  # a Monitor's task
    scheduledFor: Any = None  # a ScheduleWakeup's time (epoch ms)
    plan: Any = None  # an ExitPlanMode's plan, as the plan file held it
    file: Raw = Raw()  # a Read's file, decoded only for a file of secrets
    filenames: Any = None  # the files a Glob or Grep found
    originalFile: Raw = Raw()  # an Edit's or Write's file before it, decoded only there
    originalFileContents: Raw = Raw()  # a MultiEdit's (Claude Code 1.0.x), the same
    oldString: Raw = Raw()  # an Edit's, as applied
    newString: Raw = Raw()
    replaceAll: Any = None
    edits: Raw = Raw()  # a MultiEdit's, as applied
    gitOperation: Any = None  # 2.1.3xx: a commit, push or PR the command made, as the client saw


# Any JSON value: an object is read as a ToolResult; a string (older errors) or
# a list (MCP content blocks, possibly images) is kept but never read.
ToolUseResult = ToolResult | str | list[Raw] | int | float | bool | None


class Message(Struct, omit_defaults=True):
    id: str | None = None
    model: str | None = None
    content: str | list[Block | str] | None = None
    usage: Usage | None = None
    stop_reason: Any = None  # "end_turn": the reply ended its turn (any type: not trusted)


class CompactMetadata(Struct, omit_defaults=True):
    trigger: str | None = None
    preTokens: int | float | None = None


class Entry(Struct, omit_defaults=True):
    """A transcript line. Field names follow the transcript (camelCase)."""

    type: str = ""
    subtype: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    sessionId: str | None = None
    timestamp: str | None = None
    cwd: str | None = None
    version: str | None = None
    gitBranch: str | None = None
    isSidechain: bool | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    isApiErrorMessage: bool | None = None
    agentId: str | None = None
    requestId: str | None = None
    requestSessionId: str | None = None  # 2.1.332: the session that made the request
    entrypoint: str | None = None  # what wrote the line: "cli", "sdk-cli", "claude-desktop"…
    message: Message | None = None
    toolUseResult: ToolUseResult = None
    userFeedback: Any = None  # 2.1.3xx: what the user typed when refusing a tool call
    teamName: Any = None  # 2.1.3x: the agent team the session leads or works in
    agentName: Any = None  # and, in a teammate's session, its name in the team
    compactMetadata: CompactMetadata | None = None
    durationMs: int | float | None = None
    content: Raw = Raw()
    error: Raw = Raw()
    summary: str | None = None
    leafUuid: str | None = None
    aiTitle: str | None = None
    customTitle: str | None = None
    prNumber: int | None = None
    prUrl: str | None = None
    prRepository: str | None = None
    data: Raw = Raw()  # a progress line's payload: read for subagent usage and command timing
    parentToolUseID: str | None = None  # a progress line's tool call
    permissionMode: str | None = None  # a prompt's (2.1.x) or a permission-mode line's
    operation: str | None = None  # queue-operation: enqueue, dequeue, remove, popAll
    attachment: Raw = Raw()  # read only for prompts queued while Claude worked
    # cost-state (2.1.2xx+): the client's own running cost of the session file
    # (any JSON value: a surprising shape here must not cost the line)
    totalCostUSD: Any = None
    hasUnknownModelCost: Any = None
    startTime: Any = None  # when the running total began: kept across a resume
    modelUsage: Raw = Raw()  # by model: tokens and costUSD, read by fold.usage


class QueuedCommand(Struct):
    """An attachment, of which only a queued prompt and a structured output
    are read."""

    type: str | None = None
    prompt: Any = None
    commandMode: str | None = None
    data: Raw = Raw()  # a `structured_output`'s: the run's answer (`--json-schema`)


# Made when first needed: a Stop whose new lines hold none of these does not
# build their decoders (each costs a hook's start some 0.1-0.3 M instructions).
@cache
def _attachment_decoder() -> msgspec.json.Decoder[QueuedCommand]:
    return msgspec.json.Decoder(QueuedCommand)


@cache
def _usage_decoder() -> msgspec.json.Decoder[Usage]:
    return msgspec.json.Decoder(Usage)


def result_usage(raw: Raw) -> Usage | None:
    """The usage a Task's result carries (its subagent's last API message),
    or None when it holds none or not in usage's shape."""
    if not raw:
        return None
    try:
        u = _usage_decoder().decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    counts = (u.input_tokens, u.output_tokens, u.cache_read_input_tokens,
              u.cache_creation_input_tokens)
    if all(c is None for c in counts) or any(c is not None and c < 0 for c in counts):
        return None
    return u


def _queued(attachment: Raw) -> tuple[str | None, str] | None:
    """A `queued_command` attachment's mode and words (None for any other,
    or words that are not text)."""
    if not attachment:
        return None
    try:
        a = _attachment_decoder().decode(attachment)
    except msgspec.DecodeError:
        return None
    if a.type != "queued_command" or not isinstance(a.prompt, str):
        return None
    return a.commandMode, a.prompt


def structured_output(attachment: Raw) -> tuple[bool, Any]:
    """(True, its data) for a `structured_output` attachment: the answer a
    headless run asked for by a JSON schema, which its StructuredOutput call
    gave; (False, None) for any other."""
    if not attachment:
        return False, None
    try:
        a = _attachment_decoder().decode(attachment)
        if a.type != "structured_output" or not a.data:
            return False, None
        return True, msgspec.json.decode(a.data)
    except msgspec.DecodeError:
        return False, None


def queued_prompt(attachment: Raw) -> str | None:
    """The prompt of a `queued_command` attachment: typed while Claude worked,
    read by Claude here."""
    queued = _queued(attachment)
    if queued is None or queued[0] not in (None, "prompt"):
        return None
    return queued[1] if queued[1].strip() else None


def queued_notification(attachment: Raw) -> str | None:
    """The `<task-notification>` a `queued_command` attachment hands Claude
    (`commandMode` "task-notification", 2.1.21x): background work that
    stopped while Claude worked, read here."""
    queued = _queued(attachment)
    if queued is None:
        return None
    return queued[1] if queued[1].lstrip().startswith("<task-notification>") else None


class _StreamedMessage(Struct):
    id: str | None = None
    model: str | None = None
    usage: Usage | None = None


class _Streamed(Struct):
    type: str | None = None
    message: _StreamedMessage | None = None


class AgentProgress(Struct):
    """A subagent's message streamed into the main transcript (`progress` lines
    whose `data.type` is `agent_progress`, 2.0/2.1): of it, only what usage needs."""

    type: str | None = None
    agentId: str | None = None
    message: _Streamed | None = None


@cache
def _progress_decoder() -> msgspec.json.Decoder[AgentProgress]:
    return msgspec.json.Decoder(AgentProgress)


def agent_progress(data: Raw) -> AgentProgress | None:
    """The subagent message a progress line carries, when it carries usage."""
    if not data:
        return None
    try:
        p = _progress_decoder().decode(data)
    except msgspec.DecodeError:
        return None
    if p.type != "agent_progress" or p.message is None or p.message.type != "assistant":
        return None
    if p.message.message is None or p.message.message.usage is None:
        return None
    return p


class _StreamedEntry(Struct):
    type: str | None = None
    agentId: str | None = None
    message: Raw = Raw()


@cache
def _streamed_decoder() -> msgspec.json.Decoder[_StreamedEntry]:
    return msgspec.json.Decoder(_StreamedEntry)


def streamed_entry(data: Raw) -> tuple[str, Entry] | None:
    """The subagent's own transcript entry an `agent_progress` line carries
    (its prompt, each block of its answers, its tool results), with its
    agent's id ("" when not named): the only record of its work where Claude
    Code (2.0/2.1) wrote no file for it."""
    if not data or b"agent_progress" not in bytes(data):
        return None
    try:
        p = _streamed_decoder().decode(data)
        if p.type != "agent_progress" or not p.message:
            return None
        entry = _entry_decoder.decode(p.message)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if entry.type not in ("user", "assistant"):
        return None
    return p.agentId if isinstance(p.agentId, str) else "", entry


def known_fields() -> frozenset[str]:
    return frozenset(Entry.__struct_fields__) | IGNORED_FIELDS


class Envelope(Struct):
    """The least we can read from any JSON object: used when `Entry` fails."""

    type: Any = None
    version: Any = None
    timestamp: Any = None
    sessionId: Any = None


_entry_decoder = msgspec.json.Decoder(Entry)
_any_decoder = msgspec.json.Decoder()


@cache
def _envelope_decoder() -> msgspec.json.Decoder[Envelope]:
    return msgspec.json.Decoder(Envelope)


class Malformed(Struct):
    """A line that could not be decoded into an Entry; kept only to be counted."""

    reason: str
    envelope: Envelope | None = None


def private_type(line: bytes | bytearray | memoryview) -> str | None:
    """The type of a line of a `PRIVATE_TYPES` entry, from its first bytes; None
    for any other line. Cheap enough for every line: one slice compared."""
    if line[9:21] != b"api-request-":
        return None
    head = bytes(line[:_PRIVATE_LEN])
    for h in _PRIVATE_HEADS:
        if head.startswith(h):
            return h[9:-1].decode()
    return None


def decode_line(line: bytes | memoryview) -> Entry | Malformed:
    """Decode one transcript line. Never raises."""
    private = private_type(line)
    if private is not None:
        return Entry(type=private)
    try:
        return _entry_decoder.decode(line)
    except msgspec.DecodeError:
        return decode_failed(line)


def decode_lines(lines: Iterable[bytes | bytearray | memoryview]) -> Iterator[Entry | Malformed]:
    """`decode_line` over many lines, without a Python call per line for the
    lines that decode (nearly all of them)."""
    decode = _entry_decoder.decode
    for line in lines:
        if line[9:21] == b"api-request-":
            private = private_type(line)
            if private is not None:
                yield Entry(type=private)  # nothing of its text is read
                continue
        try:
            yield decode(line)
        except msgspec.DecodeError:
            yield decode_failed(line)


def decode_failed(line: bytes | bytearray | memoryview) -> Malformed:
    """Why a line did not decode into an Entry, keeping what can be read of it."""
    try:
        _any_decoder.decode(line)
    except msgspec.DecodeError:
        return Malformed("invalid-json")
    # Valid JSON but some field has a shape we did not expect.
    try:
        return Malformed("unexpected-shape", _envelope_decoder().decode(line))
    except msgspec.DecodeError:
        return Malformed("not-an-object")


def decode_raw(raw: Raw | None) -> Any:
    """Decode a lazily kept subtree; None when absent, null or broken."""
    if not raw:
        return None
    try:
        return _any_decoder.decode(raw)
    except msgspec.DecodeError:
        return None
