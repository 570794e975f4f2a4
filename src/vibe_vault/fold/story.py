"""The story of a session: prompts (queued ones too), Claude's answers and
thinking, compactions and slash commands, turn by turn. Feeds the note's Story;
tool calls in a message go on to `calls`."""

from __future__ import annotations

from vibe_vault import text as tx
from vibe_vault.entries import Block, Entry, decode_raw, queued_prompt
from vibe_vault.fold import active, calls, errors, titles
from vibe_vault.fold.context import PRIVATE_WORD, Context
from vibe_vault.fold.usage import note_entry_usage
from vibe_vault.redact import Redacted
from vibe_vault.state import INTERRUPTED_ANSWERING, Action, Queued, Turn
from vibe_vault.text import rx

PROMPT_CHARS = 500
RAW_PROMPT_CHARS = 64_000
SUMMARY_CHARS = 4000
TAIL_UUIDS = 50
MAX_QUEUED = 20
# What Claude Code itself puts in a user message: not a prompt.
_NOT_TYPED = ("<local-command-stdout>", "<local-command-stderr>",
              "Caveat: The messages below were generated", "<bash-input>", "<bash-stdout>",
              "<bash-stderr>", "<task-notification>")


def note_message(ctx: Context, e: Entry) -> None:
    """A main-chain message's uuid: the last ones let a later session link here."""
    uuid = e.uuid
    if not uuid or e.isSidechain:
        return
    facts = ctx.facts
    if not facts.conversational:
        facts.first_parent = ctx.uuid(e.parentUuid) if e.parentUuid else Redacted("")
    facts.conversational += 1
    tail = facts.tail_uuids
    tail.append(ctx.uuid(uuid))
    if len(tail) > TAIL_UUIDS:
        del tail[0]


# -- Claude ----------------------------------------------------------------------------


def on_assistant(ctx: Context, e: Entry, ts: str) -> None:
    note_message(ctx, e)
    facts = ctx.facts
    m = e.message
    if m is None:
        return
    # A subagent's usage is counted where its file is folded.
    new = (False if ctx.agent else
           note_entry_usage(ctx, facts.usage, facts.settled, facts.models, e))
    sidechain = bool(e.isSidechain) and not ctx.agent
    # Claude Code's own placeholder ("No response requested." after `/exit`):
    # not Claude's words, so never a turn's answer.
    synthetic = m.model == "<synthetic>"
    if not synthetic:
        facts.has_assistant = True
    if new and not sidechain:
        facts.assistant_messages += 1
    if e.isApiErrorMessage:
        facts.api_errors += 1
        text = ""
        if isinstance(m.content, list):
            text = next((b.text for b in m.content if isinstance(b, Block) and b.text), "")
        errors.error(ctx, errors.API, text or "API error", ts)
        return
    content = m.content
    if not isinstance(content, list):
        return
    for b in content:
        if not isinstance(b, Block):
            continue
        if b.type == "tool_use" and b.id:
            key = ctx.key(b.id)
            if key not in facts.pending and key not in ctx.recent:
                calls.on_tool_use(ctx, b, ts)
            # (else a streaming snapshot repeating a block we have: its order
            # still says what came last)
            t = ctx.turn()
            if t is not None and not sidechain and not ctx.agent:
                t.working = True  # any text before this call is not the turn's answer
        elif b.type == "thinking" and ctx.keep_thinking and b.thinking and not sidechain:
            raw = decode_raw(b.thinking)
            raw = raw.strip() if isinstance(raw, str) else ""
            if raw:
                ctx.hold("thinking", raw, ts)
        elif b.type == "text" and b.text and not sidechain and not synthetic:
            raw = b.text.strip()
            if raw:
                ctx.hold("answer", raw, ts)
                ctx.say("answer", raw)
                t = ctx.turn()
                if t is not None and not ctx.agent:
                    t.working = False


# -- the user ------------------------------------------------------------------------------


def on_user(ctx: Context, e: Entry, ts: str) -> None:
    note_message(ctx, e)
    m = e.message
    if m is None:
        return
    content = m.content
    if isinstance(content, list):
        for b in content:
            if not isinstance(b, str) and b.type == "tool_result":
                refused = calls.on_tool_result(ctx, b, e, ts)
                if refused is not None and not e.isSidechain and not ctx.agent:
                    on_refusal_words(ctx, *refused, ts)
    words, images = typed_words(content)
    if words is not None and "<ide_" in words and not ctx.facts.ide:
        ctx.facts.ide = bool(rx(_IDE_TAG).search(words))
    if words is not None or images:
        on_prompt(ctx, e, words or "", images, ts)


def typed_words(content: object) -> tuple[str | None, int]:
    """What a user line's person typed: its words (None when it has none: a
    tool's result) and how many images came with them."""
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        return None, 0
    texts: list[str] = []
    images = 0
    for b in content:
        if isinstance(b, str):
            texts.append(b)
        elif b.type == "text" and b.text:
            texts.append(b.text)
        elif b.type == "image":
            images += 1
    return ("\n".join(texts) if texts else None), images


_IMAGE_MARK = r"\[Image #\d+\]"
_IDE_TAG = r"<ide_(?:opened_file|selection)>"


def on_prompt(ctx: Context, e: Entry, raw: str, images: int, ts: str) -> None:
    facts = ctx.facts
    # A pasted log can be megabytes; a note keeps 500 characters of a prompt, and
    # the wrapper tags to strip come first. Bounding the text bounds the regexes.
    raw = tx.cut(raw, RAW_PROMPT_CHARS)
    if e.isSidechain:
        if ctx.agent and not e.isMeta and raw.strip() and not raw.lstrip().startswith("<"):
            ctx.say("prompt", raw)  # a subagent's prompt, in its own file
        return
    if e.isCompactSummary:
        summary = ctx.text(raw.strip(), SUMMARY_CHARS, stated=True)
        t = ctx.turn()
        if t is not None and t.kind == "compact" and not t.detail:
            t.detail = summary
        else:
            ctx.new_turn(Turn(kind="continued", ts=ts, detail=summary))
        return
    if e.isMeta:
        return
    stripped = raw.lstrip()
    if stripped.startswith("[Request interrupted by user"):
        facts.interruptions += 1
        t = ctx.turn()
        # Stopped while Claude wrote (its words are the latest thing in the
        # turn), or after a tool call (its words, if any, came before that).
        answering = t is not None and not t.working and ctx.has_answer(t)
        ctx.add_action(Action(kind="interrupt", ts=ts,
                              status=INTERRUPTED_ANSWERING if answering else ""), merge=True)
        if t is not None:
            t.working = True  # the turn's words, if any, are not where it ended
        return
    if stripped.startswith(_NOT_TYPED):
        if stripped.startswith("<local-command-stdout>"):
            command_output(ctx, stripped)
        elif stripped.startswith(("<bash-input>", "<task-notification>")):
            ctx.begin_turn()  # a `!` command typed, a background task's news: Claude works again
        return
    raw, private = tx.hide_private(raw)
    if private:
        ctx.learn(private, PRIVATE_WORD)
    command = tx.slash_command(raw)
    if command is not None:
        ctx.begin_turn()
        shown = ctx.text(command, PROMPT_CHARS)
        ctx.new_turn(Turn(kind="command", ts=ts, text=shown))
        if titles.is_request(command):  # `/plan add a CSV export`: a request
            facts.prompts += 1
        titles.note_command(ctx, command, shown)
        return
    words = tx.strip_wrappers(raw)
    # Claude Code 1.0.9x+ writes `[Image #1]` where an image was pasted: those
    # images are told there already; only the others get an `[image]`.
    images -= len(rx(_IMAGE_MARK).findall(words)) if images and "[Image #" in words else 0
    if images > 0:
        words = (words + " " + " ".join(["[image]"] * min(images, 5))).strip()
    if not words:
        return
    shown, secrets = ctx.cleaned(words, PROMPT_CHARS, stated=True)
    ctx.say("prompt", words)
    last = ctx.turn()
    if (last is not None and last.detail == "queued" and last.text == shown
            and not last.actions and not last.answer):
        # Sent through the queue and taken at once (`claude -p`, the SDK): the
        # dequeue already told it, and counted it; this is the same prompt.
        last.detail = Redacted("")
    else:
        ctx.begin_turn()
        facts.redactions += secrets
        facts.prompts += 1
        ctx.new_turn(Turn(kind="prompt", ts=ts, text=shown))
    titles.note_prompt(ctx, words, shown)


REFUSED = "refused"  # a prompt's detail: typed when refusing a tool call
REFUSED_PLAN = "refused:plan"  # or a plan


def on_refusal_words(ctx: Context, words: str, tool: str, ts: str) -> None:
    """What the user typed when refusing a tool call or a plan ("use pnpm",
    "any chance we can consolidate this code?"): their next instruction, so a
    prompt of the story, counted as one, Claude's answer following it."""
    facts = ctx.facts
    raw, private = tx.hide_private(tx.cut(words, RAW_PROMPT_CHARS))
    if private:
        ctx.learn(private, PRIVATE_WORD)
    words = tx.strip_wrappers(raw)
    if not words:
        return
    shown, secrets = ctx.cleaned(words, PROMPT_CHARS, stated=True)
    ctx.say("prompt", words)
    facts.redactions += secrets
    facts.prompts += 1
    kind = REFUSED_PLAN if tool == "ExitPlanMode" else REFUSED
    ctx.new_turn(Turn(kind="prompt", ts=ts, text=shown, detail=Redacted(kind)))
    titles.note_prompt(ctx, words, shown)


_STDOUT = r"<local-command-stdout>([\s\S]*?)(?:</local-command-stdout>|$)"
_ANSI = r"\x1b\[[0-9;?]*[A-Za-z]"
OUTPUT_CHARS = 160


def slash_output(ctx: Context, text: str) -> None:
    """What a slash command run inside a turn printed: beside its line there."""
    t = ctx.turn()
    last = t.actions[-1] if t is not None and t.actions else None
    if last is None or last.kind != "slash" or last.detail:
        return
    m = rx(_STDOUT).search(text)
    line = tx.one_line(rx(_ANSI).sub("", m.group(1)) if m else "", 1 << 30)  # cut after the gate
    if line and line != "(no content)":
        last.detail = ctx.line(line, OUTPUT_CHARS)


def command_output(ctx: Context, text: str) -> None:
    """What a slash command printed (`Set model to opus`): one line, told
    beside the command in its turn."""
    t = ctx.turn()
    if t is None or t.kind != "command" or t.detail or t.actions or t.answer:
        return
    m = rx(_STDOUT).search(text)
    out = rx(_ANSI).sub("", m.group(1)) if m else ""
    line = tx.one_line(tx.cut(out, 4096), 1 << 30)  # cut after the gate
    if line and line != "(no content)":
        t.detail = ctx.line(line, OUTPUT_CHARS)


# -- prompts typed while Claude was working --------------------------------------------------
# Held as the note will show them (cleaned, redacted): the state holds no raw
# transcript text.


def on_queue_operation(ctx: Context, e: Entry, ts: str) -> None:
    facts = ctx.facts
    operation = e.operation
    if operation == "enqueue":
        content = decode_raw(e.content)
        if isinstance(content, str) and _typed(content) and len(facts.queued) < MAX_QUEUED:
            text, secrets = _queued_text(ctx, content)
            if text:
                facts.queued.append(Queued(text=text, secrets=secrets))
    elif operation in ("dequeue", "remove") and facts.queued:
        _show_queued(ctx, facts.queued.pop(0), ts)  # Claude takes it now
    elif operation == "popAll":
        facts.queued.clear()  # back to the input box; sent later as a prompt, if at all


def on_attachment(ctx: Context, e: Entry, ts: str) -> None:
    """A `queued_command` attachment marks where Claude reads a queued prompt.
    Claude Code records some both ways: shown once."""
    raw = queued_prompt(e.attachment) if e.attachment else None
    if raw is None:
        return
    facts = ctx.facts
    text, secrets = _queued_text(ctx, raw)
    if not text:
        return
    for i, waiting in enumerate(facts.queued):
        if waiting.text == text:
            _show_queued(ctx, facts.queued.pop(i), ts)
            return
    if text not in facts.queued_shown:
        _show_queued(ctx, Queued(text=text, secrets=secrets), ts)


def _queued_text(ctx: Context, raw: str) -> tuple[Redacted, int]:
    raw, private = tx.hide_private(tx.cut(raw, RAW_PROMPT_CHARS))
    if private:
        ctx.learn(private, PRIVATE_WORD)
    words = tx.strip_wrappers(raw)
    return ctx.cleaned(words, PROMPT_CHARS, stated=True) if words else (Redacted(""), 0)


def _show_queued(ctx: Context, queued: Queued, ts: str) -> None:
    facts = ctx.facts
    if not facts.in_turn:
        ctx.begin_turn()  # taken at once (`claude -p`); else read within the turn under way
    facts.queued_shown.append(queued.text)
    del facts.queued_shown[:-5]
    facts.redactions += queued.secrets
    facts.prompts += 1
    ctx.new_turn(Turn(kind="prompt", ts=ts, text=queued.text, detail=Redacted("queued")))


def _typed(content: str) -> bool:
    """A queued item a person typed, not a background task's notification."""
    head = content.lstrip()[:1]
    return bool(head) and head not in "{<"


# -- Claude Code's own system lines ------------------------------------------------------------


_MODEL_SWITCH = r"limit reached, now using \S"


def on_plain_system(ctx: Context, e: Entry, ts: str) -> None:
    """A system line of no subtype: "Claude Opus 4 limit reached, now using
    Sonnet 4" is told in the story where it happened; the rest is chatter."""
    if ctx.agent or b"now using" not in bytes(e.content):
        return
    content = decode_raw(e.content)
    if isinstance(content, str) and rx(_MODEL_SWITCH).search(content):
        ctx.add_action(Action(kind="model", text=ctx.line(content, 160), ts=ts))
        ctx.facts.model_notice = True  # the change it announces is told by it


def on_system(ctx: Context, e: Entry, ts: str) -> None:
    facts = ctx.facts
    subtype = e.subtype
    if subtype == "compact_boundary":
        facts.compactions += 1
        md = e.compactMetadata
        trigger = (md.trigger or "") if md else ""
        before = int(md.preTokens or 0) if md else 0
        ctx.new_turn(Turn(kind="compact", ts=ts, text=ctx.line(trigger, 20), tokens=before))
        if e.logicalParentUuid and not facts.conversational and not facts.logical_parent:
            facts.logical_parent = ctx.uuid(e.logicalParentUuid)
    elif subtype == "turn_duration":
        if isinstance(e.durationMs, (int, float)) and not ctx.agent:
            active.timed(ctx, int(e.durationMs))
    elif subtype in ("api_error", "error"):
        facts.api_errors += 1
        info = decode_raw(e.error)
        message = ""
        if isinstance(info, dict):
            status = info.get("status")
            message = str(info.get("message") or (f"HTTP {status}" if status else ""))
        errors.error(ctx, errors.API, message or "API error (retried)", ts)
    elif subtype == "away_summary":
        titles.on_away_summary(ctx, e, ts)
    elif subtype == "local_command":
        content = decode_raw(e.content)
        if isinstance(content, str):
            command = tx.slash_command(content)
            if command:
                ctx.add_action(Action(kind="slash", text=ctx.line(command, 120), ts=ts))
            elif content.lstrip().startswith("<local-command-stdout>"):
                slash_output(ctx, content)
