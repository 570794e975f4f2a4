"""What a session is called, and Claude Code's own recaps of it.

Feeds the note's title (`figures.title_of`: custom-title > ai-title > the
session's own summary, wherever it is written > first request (a prompt, or a
slash command with arguments) > recap > opening slash command), its aliases,
its summary line and the recaps in its story.
"""

from __future__ import annotations

from vibe_vault import text as tx
from vibe_vault.entries import Entry, decode_raw
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted
from vibe_vault.state import USER_SHELL, Fold, Recap, Turn

MAX_FOREIGN_SUMMARIES = 20
RECAP_CHARS = 1000  # whole: Claude Code's recaps are a few sentences
MAX_RECAPS = 50
TITLE_CHARS = 80
# Built-in slash commands that say nothing of what a session is about: never a title.
TOPICLESS_COMMANDS = frozenset(
    {"/clear", "/exit", "/quit", "/compact", "/cost", "/help", "/status", "/config",
     "/model", "/resume", "/login", "/logout", "/doctor", "/memory", "/permissions",
     "/hooks", "/mcp", "/context", "/usage", "/statusline", "/theme", "/vim", "/ide",
     "/terminal-setup", "/add-dir", "/agents", "/bashes", "/export", "/release-notes",
     "/rewind", "/todos", "/upgrade", "/privacy-settings", "/output-style", "/plugin",
     "/fast", "/effort", "/keybindings", "/feedback", "/bug", "/rename", "/tasks"})
RECAP_HINT = "(disable recaps in /config)"
# The option of a menu a command offered, chosen before the words that follow
# it ("B) I'd like to add …", "(2) …", "c. …"): kept only when nothing follows.
MENU_CHOICE = r"^\(?(?:[A-Ha-h]|[1-9])[.)]\s+(?=\S)"


def on_summary(ctx: Context, entry: Entry) -> None:
    """Resumed 1.0 sessions start with summaries of *other* sessions: one is
    this session's only when the entry it ends at is in this file."""
    facts = ctx.facts
    leaf = ctx.uuid(entry.leafUuid) if entry.leafUuid else Redacted("")
    if leaf and not facts.conversational and len(facts.leaf_refs) < 10:
        facts.leaf_refs.append(leaf)
    if not entry.summary:
        return
    text = ctx.line(entry.summary, 200)
    if leaf and leaf in facts.tail_uuids:
        facts.own_summary = text
    elif leaf and len(facts.foreign_summaries) < MAX_FOREIGN_SUMMARIES:
        facts.foreign_summaries[leaf] = text


def claim_summary(ctx: Context, uuid: Redacted) -> None:
    """An entry whose uuid a summary named earlier: that summary was this session's."""
    facts = ctx.facts
    facts.own_summary = facts.foreign_summaries.pop(uuid)


def on_ai_title(ctx: Context, entry: Entry) -> None:
    """Claude Code writes its AI title again after every turn (2.1.235): the
    latest one is the name its session list shows."""
    if entry.aiTitle:
        ctx.facts.ai_title = ctx.line(entry.aiTitle, TITLE_CHARS)


def on_custom_title(ctx: Context, entry: Entry) -> None:
    if entry.customTitle:
        ctx.facts.custom_title = ctx.line(entry.customTitle, TITLE_CHARS)


def on_task_summary(ctx: Context, entry: Entry, timestamp: str) -> None:
    if entry.summary:
        _recap(ctx, entry.summary, timestamp)


def on_away_summary(ctx: Context, entry: Entry, timestamp: str) -> None:
    content = decode_raw(entry.content)
    if isinstance(content, str) and content.strip():
        _recap(ctx, content.strip().removesuffix(RECAP_HINT).rstrip(), timestamp)


def _recap(ctx: Context, raw: str, timestamp: str) -> None:
    """A recap, kept with the others (a row written again with the same words,
    as session-state rows are, is the same recap)."""
    facts = ctx.facts
    text = ctx.line(raw, RECAP_CHARS)
    if not text or (facts.recaps and facts.recaps[-1].text == text):
        return
    facts.recaps.append(Recap(text, timestamp))
    if len(facts.recaps) > MAX_RECAPS:
        del facts.recaps[0]
        facts.recaps_dropped += 1


# What Claude Code writes before a plan it was asked to carry out in a fresh
# context (a plan approved with "clear context"): not the user's words, and
# the same for every such session. The plan's own first line (its heading)
# says what the session is about.
PLAN_PREAMBLE = "Implement the following plan:"


def note_prompt(ctx: Context, words: str, shown: Redacted) -> None:
    """The first real prompt (not a filler like "continue") may title the session."""
    facts = ctx.facts
    if ((not facts.first_prompt_title or facts.title_open) and not tx.is_filler(words)
            and words != "[image]"):
        if shown.startswith(PLAN_PREAMBLE):
            lines = shown[len(PLAN_PREAMBLE):].splitlines()
            first = next((ln.strip().lstrip("#").strip() for ln in lines if ln.strip()), "")
            shown = Redacted(first) if first else shown  # (a line of a gated text)
        title = Redacted(tx.title_line(shown, TITLE_CHARS))  # cut from a gated text
        title = _with_command_before(ctx, title, shown)
        if title and not title.startswith("/"):
            facts.first_prompt_title = title
            facts.title_open = False
    elif (facts.prompts == 1 and is_skill_title(facts.first_prompt_title, facts)
          and not tx.is_filler(words)):
        # The user's first words after a plugin's command that opened the
        # session (`/superpowers:brainstorm`, then what to brainstorm): its topic.
        # (a menu letter before it, "B) I'd like to add …", is the option the
        # command offered, not the user's words about the work: review 22 #4)
        words_typed = tx.rx(MENU_CHOICE).sub("", tx.one_line(shown, 1 << 30), count=1)
        facts.first_prompt_title = Redacted(tx.title_line(
            f"{facts.first_prompt_title}: {words_typed}", TITLE_CHARS))


SHELL_IN_TITLE_CHARS = 60


def _with_command_before(ctx: Context, title: Redacted, shown: Redacted) -> Redacted:
    """A request that only points ("please fix these") right after a command
    the user ran themselves (`!uv run ty check`) points at what it printed:
    the title says which command, in its own words (review 22 #3), not a
    guess at what the output held."""
    turns = ctx.facts.turns
    before = turns[-2] if len(turns) >= 2 and turns[-1].text == shown else None
    if (before is None or before.kind != USER_SHELL or not before.text
            or title != shown or not tx.points_at_output(shown)):
        return title
    command = tx.one_line_command(before.text, SHELL_IN_TITLE_CHARS)
    quoted = f"`{command}`" if "`" not in command else command
    return Redacted(f"{title} (after {quoted})")  # (both gated texts)


def interrupted_early(ctx: Context, t: Turn | None) -> None:
    """The user stopped turn `t` before Claude did anything (no tool call,
    no words): when it is the first request, what they type next (often the
    same request, completed) titles the session instead; an aside stopped at
    once is not what the session was about (issue 29, F1)."""
    facts = ctx.facts
    if (t is not None and t.kind in ("prompt", "command") and facts.prompts <= 1
            and not t.actions and not ctx.has_answer(t) and facts.first_prompt_title):
        facts.title_open = True


def is_skill_title(title: str, facts: Fold) -> bool:
    """Whether the title is still only the plugin command that opened the session."""
    command = facts.first_command_title
    return bool(title) and ":" in command and title == command_words(command)


def command_words(name: str) -> str:
    """A slash command's name as a title says it: without its slash, and a
    plugin's command without the plugin's name before it, which only says
    where the command comes from (`/claude-md-management:claude-md-improver`
    says "claude-md-improver", `/superpowers:brainstorm` "brainstorm";
    review 26: b74fb8cb's title opened on 41 characters of that lead-in)."""
    return name.strip().lstrip("/").rsplit(":", 1)[-1] or name.strip().lstrip("/")


def is_request(command: str) -> bool:
    """A slash command with words after it (`/plan add a CSV export`), other
    than a built-in's setting (`/model opus`): something the user asked for."""
    name, _, args = command.partition(" ")
    return bool(args.strip()) and name not in TOPICLESS_COMMANDS


def note_command(ctx: Context, command: str, shown: Redacted) -> None:
    """A slash command with arguments is a request, and may title the session
    as the first prompt would ("plan: add a CSV export"); a bare one only when
    nothing else does."""
    facts = ctx.facts
    if command.split(" ", 1)[0] in TOPICLESS_COMMANDS:
        return
    if is_request(command) and (not facts.first_prompt_title or facts.title_open):
        name, _, args = shown.partition(" ")
        # The command is the verb and its arguments' first paragraph what it
        # is asked to do: a later paragraph is an afterthought, however much
        # it reads as a request ("…setup credo, dialyzer, mix_audit (…)" then
        # "Maybe there are igniter scripts?": review 27, 491e126e).
        request = tx.rx(r"\n\s*\n").split(args.strip(), maxsplit=1)[0]
        title = Redacted(tx.title_line(f"{command_words(name)}: {request}", TITLE_CHARS))
        if args.strip() and not tx.is_filler(args.strip()):
            facts.first_prompt_title = title  # cut from a gated text
            facts.title_open = False
    elif (":" in command and " " not in command and not facts.first_prompt_title
          and not facts.prompts and not facts.first_command_title):
        # A plugin's command opening the session (`/claude-md-management:
        # claude-md-improver`) is its request, arguments or not: its title
        # rather than a remark typed later (issue 29).
        facts.first_prompt_title = Redacted(tx.title_line(command_words(shown), TITLE_CHARS))
    if not facts.first_command_title:
        facts.first_command_title = Redacted(tx.one_line(shown, TITLE_CHARS))


# How Claude Code opens the text of a skill a command runs (an `isMeta` line
# right after the command): its folder, then the skill's own heading and words.
SKILL_TEXT = "Base directory for this skill:"
SKILL_ABOUT_CHARS = 200


def note_skill(ctx: Context, text: str) -> None:
    """The text of the skill a plugin's command that opened the session runs,
    with no words of the user's after it (`/claude-md-management:claude-md-
    improver`): its first line of prose, under its heading ("Audit, evaluate,
    and improve CLAUDE.md files across a codebase …"), says what the user
    asked for, in the skill author's words (b74fb8cb; before, the title took
    the subject of Claude's first commit: review 27 #4). Only the text that
    comes right after that command: a skill Claude runs later is its choice."""
    facts = ctx.facts
    t = ctx.turn()
    if (facts.skill_about or not is_skill_title(facts.first_prompt_title, facts)
            or t is None or t.kind != "command" or t.actions):
        return
    for line in text.splitlines()[1:40]:
        words = " ".join(line.split())
        if words and not words.startswith(("#", "---", "|", "```", "<")):
            facts.skill_about = ctx.line(words, SKILL_ABOUT_CHARS)
            return


# A ticket's id as trackers give it (Linear, Jira, YouTrack): "ENT-207", "PROJ-12".
TICKET_ID = r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d{1,6}(?![\w-])"
# Its title in what a tracker's tool returns (JSON): the "title" (Linear,
# GitHub) or "summary" (Jira) of the object whose "identifier" or "key" is
# the id, before or after it, in that object (no brace between them).
_TICKET_FIELDS = (r'"(?:identifier|key)"\s*:\s*"{id}"[^{{}}]*?"(?:title|summary)"\s*:\s*'
                  r'"((?:[^"\\]|\\.){{1,400}}?)"'
                  r'|"(?:title|summary)"\s*:\s*"((?:[^"\\]|\\.){{1,400}}?)"[^{{}}]*?'
                  r'"(?:identifier|key)"\s*:\s*"{id}"')
TICKET_TITLE_CHARS = 200


def ticket_named(facts: Fold) -> str:
    """The ticket id the first request names, "" when it names none."""
    if not facts.first_prompt_title or "-" not in facts.first_prompt_title:
        return ""
    m = tx.rx(TICKET_ID).search(facts.first_prompt_title)
    return m.group() if m else ""


def note_ticket(ctx: Context, text: str) -> None:
    """A tool's result that gives the title of the ticket the first request
    names only by its id: what the session is about, in the ticket's words
    (e8106766: "let's debug - ENT-207 in linear", the title fetched from
    Linear "Default `Agent` tag being used for checkpoints …"; review 26)."""
    facts = ctx.facts
    wanted = ticket_named(facts)
    if not wanted or f'"{wanted}"' not in text:
        return
    m = tx.rx(_TICKET_FIELDS.format(id=wanted)).search(text)
    if m is None:
        return
    raw = next(g for g in m.groups() if g is not None)
    import json  # (here: its import, ~5.7 M instructions, is no Stop's without a ticket)

    try:
        words = str(json.loads(f'"{raw}"'))
    except ValueError:
        return
    if words.strip():
        facts.ticket = Redacted(wanted)  # (words of the gated title)
        facts.ticket_title = ctx.line(words, TICKET_TITLE_CHARS)
