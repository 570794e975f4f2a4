"""Render a session's state as a Markdown note with flat YAML frontmatter.

Pure: the same state gives the same bytes (no clock, no environment). The user's
own section is not rendered here; `note.py` keeps it.
"""


import re
from datetime import UTC, datetime
from typing import Any

from msgspec import Struct, field

from vibe_vault import pricing
from vibe_vault import text as tx
from vibe_vault.fold import HEAD_TURNS, add_tokens, epoch
from vibe_vault.paths import readable, shown_path
from vibe_vault.redact import Redacted
from vibe_vault.resume import resume_command
from vibe_vault.state import Action, AgentFold, ErrorRec, SessionState, Tokens, Turn
from vibe_vault.work import MAIN, Work, work_of

USER_HEADING = "## My notes"
USER_HINT = "<!-- Everything below this heading is yours: vibe-vault never changes it. -->"
# Said at the top of every generated note, where a user would start typing.
REWRITE_NOTICE = ("<!-- vibe-vault rewrites this note as the session goes on: anything typed "
                  "above \"## My notes\" is replaced. Write below that heading. -->")

SECTION_ROWS = 200
COMMAND_ROWS = 100
ACTION_LINE_CHARS = 200  # a story line, as long as a person reads at a glance
ERROR_ROWS = 50
ERRORS_IN_FULL = 5  # the last errors, shown with their output; the earlier collapsed


class RenderOptions(Struct):
    pricing: dict[str, Any] = field(default_factory=dict)
    show_thinking: bool = False


# -- small formatting helpers --------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/@-]*\Z")
_YAML_WORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", ".nan", ".inf"}
)
_NUMBERISH = re.compile(r"^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)\Z")


# Characters a double-quoted YAML scalar must escape (or replace, for lone surrogates).
_YAML_ESCAPE = re.compile(r'[\x00-\x1f"\\\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]')
_YAML_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def options_for(cfg: Any) -> RenderOptions:
    """The rendering options a config sets."""
    return RenderOptions(pricing=cfg.get("pricing"), show_thinking=cfg.get("show_thinking"))


def _yaml_escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    named = _YAML_NAMED.get(ch)
    if named is not None:
        return named
    o = ord(ch)
    return "\\ufffd" if 0xD800 <= o < 0xE000 or o in (0xFFFE, 0xFFFF) else f"\\u{o:04x}"


def yaml_list(items: list[str] | list[Redacted]) -> str:
    """A YAML list on one line, every item double-quoted (a flow list ends
    plain scalars at a comma or bracket)."""
    return "[" + ", ".join('"' + _YAML_ESCAPE.sub(_yaml_escape, s) + '"' for s in items) + "]"


def yaml_str(s: str) -> str:
    """A YAML scalar for `s`: plain when unambiguous, else double-quoted."""
    if _PLAIN.match(s) and s.lower() not in _YAML_WORDS and not _NUMBERISH.match(s):
        return s
    return '"' + _YAML_ESCAPE.sub(_yaml_escape, s) + '"'


def code(s: str) -> str:
    """Inline code that survives backticks inside."""
    if not s:
        return "``"
    if "`" not in s:
        return f"`{s}`"
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if s.startswith("`") or s.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def cell(s: str) -> str:
    """Text for a table cell: a `|` cannot end the cell, a newline the row.
    (A table escapes `|` even inside code spans and wikilinks, and nothing
    else: doubling backslashes would show them doubled in code.)"""
    return s.replace("|", "\\|").replace("\n", " ")


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _inert(line: str) -> str:
    """A line of quoted text whose HTML tags (`<script>`, `<img onerror=…>`)
    and `[[links]]` show as text instead of being rendered or linked, except
    inside inline code."""
    parts = re.split(r"(`+)", line)
    in_code = False
    for i, part in enumerate(parts):
        if part.startswith("`"):
            in_code = not in_code
        elif not in_code:
            part = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", part)
            parts[i] = part.replace("[[", "\\[\\[")
    return "".join(parts)


def quote(s: str) -> str:
    """A blockquote of text from the transcript. Its lines cannot form headings
    of their own (Obsidian's outline lists headings inside quotes), and a code
    fence left open where the text was cut is closed, so it cannot swallow the
    rest of the note."""
    out: list[str] = []
    open_fence = ""
    for line in s.splitlines() or [""]:
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if not open_fence:
                open_fence = mark
            elif mark[0] == open_fence[0] and len(mark) >= len(open_fence) \
                    and not line.strip()[len(mark):]:
                open_fence = ""
        elif not open_fence:
            if line.startswith("#"):
                line = "\\" + line
            if "<" in line or "[[" in line:
                line = _inert(line)
        out.append("> " + line if line else ">")
    if open_fence:
        out.append("> " + open_fence)
    return "\n".join(out)


def n(x: int) -> str:
    return f"{x:,}"


def plural(k: int, word: str, many: str | None = None) -> str:
    """`1 file`, `3 files` (or the given plural)."""
    return f"{k} {word if k == 1 else (many or word + 's')}"


def short_tokens(x: int) -> str:
    if x >= 1_000_000:
        return f"{x / 1_000_000:.1f}M"
    if x >= 1000:
        return f"{x / 1000:.0f}k"
    return str(x)


def iso(ts: str) -> str:
    """An ISO 8601 timestamp with an explicit offset, to the second."""
    try:
        dt = datetime.fromisoformat(ts)
    except ValueError:
        return ts
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).replace(microsecond=0).isoformat()


def hhmm(ts: str) -> str:
    try:
        return datetime.fromisoformat(ts).astimezone(UTC).strftime("%H:%M")
    except ValueError:
        return ""


def duration(ms: int) -> str:
    s = ms // 1000
    if s < 60:
        return f"{s}s" if s else f"{ms}ms"
    m = s // 60
    if m < 60:
        return f"{m}m {s % 60:02d}s" if m < 10 else f"{m}m"
    return f"{m // 60}h {m % 60:02d}m"


# -- derived figures -----------------------------------------------------------


def tokens_by_model(state: SessionState) -> dict[str, Tokens]:
    """Usage of every API message of the session (main and subagent files), each
    message counted once, by model."""
    agents = sorted((a for a in state.agents.values() if not a.foreign),
                    key=lambda a: a.fold.agent_id)
    recent = dict(state.fold.usage)
    for af in agents:
        for key, t in af.fold.usage.items():
            old = recent.get(key)
            if old is None or t.output > old.output:
                recent[key] = t
    # Usage streamed into progress lines counts for the agents whose own file
    # is not here: where it is, the file has every message of the agent.
    with_files = {af.fold.agent_id for af in agents if af.fold.agent_id}
    streamed = [pf for agent, pf in sorted(state.fold.progress.items())
                if agent not in with_files]
    for pf in streamed:
        for key, t in pf.usage.items():
            old = recent.get(key)
            if old is None or t.output > old.output:
                recent[key] = t
    by_model: dict[str, Tokens] = {}
    parts = [*recent.values(), *state.fold.settled.values()]
    for af in agents:
        parts.extend(af.fold.settled.values())
    for pf in streamed:
        parts.extend(pf.settled.values())
    for t in parts:
        add_tokens(by_model, t)
    return dict(sorted(by_model.items()))


def title_of(state: SessionState) -> str:
    f = state.fold
    return (
        f.custom_title
        or f.ai_title
        or tx.one_line(f.own_summary, 80)
        or _first_sentence(f.recap, 80)
        or f.first_prompt_title
        or f.first_command_title
        or f"Session {state.session_id[:8]}"
    )


def _first_sentence(text: str, limit: int) -> str:
    """The first sentence of a recap, as a title."""
    if not text:
        return ""
    end = re.search(r"[.;!?](?:\s|$)", text)
    first = text[: end.start()] if end else text
    return tx.one_line(first, limit)


class Figures(Struct):
    title: str
    summary: str
    activity: str
    tokens: dict[str, Tokens]
    costs: dict[str, float]  # USD by model, for the models with a price
    total: Tokens
    cost: float
    unpriced: list[str]
    wall_minutes: int
    active_minutes: int
    files_changed: int
    tool_calls: int
    tests: str  # "", passed, failed
    work: Work  # the main agent's and the subagents' work together
    models: list[str]  # every model that produced usage, subagents' included


def figures(state: SessionState, opts: RenderOptions) -> Figures:
    f = state.fold
    by_model = tokens_by_model(state)
    total = Tokens(model=Redacted("all"))
    prices = pricing.table(opts.pricing)
    costs: dict[str, float] = {}
    unpriced: list[str] = []
    for model, t in by_model.items():
        total.input += t.input
        total.output += t.output
        total.cache_read += t.cache_read
        total.cache_creation += t.cache_creation
        price = pricing.price_for(t.model, prices, t.context)
        if price is None:
            if t.input or t.output or t.cache_read or t.cache_creation:
                unpriced.append(model)
        else:
            costs[model] = pricing.cost(t, price)
    cost = sum(costs.values())
    a, b = epoch(f.first_ts), epoch(f.last_ts)
    wall = int((b - a) // 60) if a is not None and b is not None else 0
    active_ms = f.turn_ms or f.gap_ms
    tool_calls = sum(f.tool_calls.values()) + sum(
        af.fold.tool_calls for af in state.agents.values() if not af.foreign
    ) + (sum(f.sidechain.tool_calls.values()) if f.sidechain is not None else 0)
    work = work_of(state)
    tests = work.tests
    title = title_of(state)
    # Every model that produced usage, in the order met: the main agent's,
    # then the subagents' (from their files, or their streamed messages).
    ordered: list[str] = []
    file_agents = [af for af in state.agents.values() if not af.foreign]
    with_files = {af.fold.agent_id for af in file_agents if af.fold.agent_id}
    for models in [f.models, *(af.fold.models for af in file_agents),
                   *(pf.models for a, pf in sorted(f.progress.items()) if a not in with_files)]:
        ordered.extend(m for m in models if m not in ordered)
    return Figures(
        title=title,
        summary=_summary(state, title, tests, work),
        activity=_activity(state, work),
        tokens=by_model,
        costs=costs,
        total=total,
        cost=round(cost, 4),
        unpriced=unpriced,
        wall_minutes=max(wall, 0),
        active_minutes=active_ms // 60000,
        files_changed=len(work.files) + work.files_dropped,
        tool_calls=tool_calls,
        tests=tests,
        work=work,
        models=ordered,
    )


def _summary(state: SessionState, title: str, tests: str, work: Work) -> str:
    f = state.fold
    facts: list[str] = []
    if work.files:
        added = sum(fw.change.added for fw in work.files.values())
        removed = sum(fw.change.removed for fw in work.files.values())
        k = len(work.files) + work.files_dropped
        facts.append(f"{plural(k, 'file')} changed (+{added} −{removed})")
    if tests:
        facts.append("tests pass" if tests == "passed" else "tests failing")
    if work.commits:
        facts.append(plural(len(work.commits), "commit"))
    if f.prs:
        facts.append(plural(len(f.prs), "PR"))
    if f.subagents:
        facts.append(plural(len(f.subagents) + f.subagents_dropped, "subagent"))
    open_items = sum(1 for t in _todos(state) if t.status != "completed")
    if open_items:
        facts.append(plural(open_items, "open task"))
    if f.api_errors and not f.has_assistant:
        facts.append("no answer: " + plural(f.api_errors, "API error"))
    if not work.files:
        lead = plural(f.prompts, "prompt")
        if work.commands_run:
            lead += ", " + plural(work.commands_run, "command")
        facts.insert(0, lead + ", no files changed")
    text = ", ".join(facts)
    words = _in_words(state)
    if words:
        return f"{words} {text[:1].upper()}{text[1:]}."
    if title.endswith("…"):
        # A prompt cut to make a title reads badly twice: the facts stand alone.
        return text[:1].upper() + text[1:] + "."
    # "Print the greeting.: 1 prompt" reads badly: the title's own stop goes.
    return f"{title.rstrip('.!?:;,')}: {text}."


SUMMARY_WORDS = 240
# Sentences that say nothing of the work: "Perfect!", "Done.", "Great, all set!"
_FILLER = re.compile(r"(?i)^(?:perfect|great|excellent|done|awesome|good|ok(?:ay)?|all set|"
                     r"sure|got it|nice|alright|understood)\b[\w ,]{0,20}[.!]?$")


def _in_words(state: SessionState) -> str:
    """What came of the session, in words: Claude Code's own latest recap, else
    the first real sentence of Claude's final answer; ending in a full stop."""
    f = state.fold
    text = f.recap
    if not text:
        answers = [t.answer for t in f.turns if t.answer and t.kind != "compact"]
        text = Redacted(_first_real_sentence(answers[-1])) if answers else Redacted("")
    if not text:
        return ""
    words = tx.one_line(text, SUMMARY_WORDS)
    return words if words.endswith(("…", ".", "!", "?")) else words + "."


def _first_real_sentence(answer: str) -> str:
    """The first sentence of prose in an answer: past headings, lists' markers,
    tables, code and fillers like "Perfect!"."""
    paragraphs: list[list[str]] = [[]]
    in_code = False
    for line in answer.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
        elif in_code or not stripped or stripped.startswith(("#", "|", ">")):
            if paragraphs[-1]:
                paragraphs.append([])
        else:
            paragraphs[-1].append(stripped.lstrip("-*+ ").replace("**", ""))
    for paragraph in paragraphs:
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(paragraph)):
            sentence = sentence.strip()
            if not _FILLER.match(sentence) and len(sentence.split()) >= 3:
                return sentence.rstrip(":")
    return ""


def _activity(state: SessionState, work: Work) -> str:
    f = state.fold
    calls: dict[str, int] = {str(name): n for name, n in f.tool_calls.items()}
    if work.files:
        failing = any(c.kind == "test" and c.status == "failed" for _, c in work.commands)
        return "debugging" if failing and len(work.errors) > 2 else "implementation"
    if calls.get("ExitPlanMode") or calls.get("EnterPlanMode"):
        return "planning"
    explore = sum(calls.get(k, 0) for k in ("Read", "Grep", "Glob", "WebFetch", "WebSearch"))
    if explore:
        return "research"
    if work.commands_run:
        return "operations"
    return "conversation"


def _todos(state: SessionState) -> list[Any]:
    f = state.fold
    return list(f.todos) or [f.tasks[k] for k in sorted(f.tasks, key=_natural)]


def _natural(k: str) -> tuple[int, str]:
    return (int(k), "") if k.isdigit() else (1 << 30, k)


# -- the note --------------------------------------------------------------------


def frontmatter(state: SessionState, fig: Figures) -> list[str]:
    f = state.fold
    lines = ["---", "type: session", f"session_id: {yaml_str(state.session_id)}"]
    lines.append(f"title: {yaml_str(fig.title)}")
    lines.append(f"aliases: {yaml_list([fig.title])}")
    lines.append(f"summary: {yaml_str(fig.summary)}")
    lines.append(f"project: {yaml_str(state.project)}")
    lines.append(f"started: {iso(f.first_ts) if f.first_ts else 'null'}")
    lines.append(f"ended: {iso(f.last_ts) if f.last_ts else 'null'}")
    lines.append(f"status: {state.status}")
    lines.append(f"end_reason: {yaml_str(state.end_reason) if state.end_reason else 'null'}")
    lines.append(f"duration_minutes: {fig.wall_minutes}")
    lines.append(f"active_minutes: {fig.active_minutes}")
    lines.append(f"cwd: {yaml_str(f.cwd) if f.cwd else 'null'}")
    lines.append(f"branch: {yaml_str(f.branches[-1]) if f.branches else 'null'}")
    if len(f.branches) > 1:
        lines.append(f"branches: {yaml_list(f.branches)}")
    lines.append(f"models: {yaml_list(fig.models)}")
    lines.append(f"claude_code_version: {yaml_str(f.version) if f.version else 'null'}")
    t = fig.total
    lines.append(f"input_tokens: {t.input}")
    lines.append(f"output_tokens: {t.output}")
    lines.append(f"cache_read_tokens: {t.cache_read}")
    lines.append(f"cache_creation_tokens: {t.cache_creation}")
    lines.append(f"cost_usd: {fig.cost:.4f}")
    if fig.unpriced:
        lines.append(f"unpriced_models: {yaml_list(fig.unpriced)}")
    lines.append(f"tool_calls: {fig.tool_calls}")
    lines.append(f"files_changed: {fig.files_changed}")
    lines.append(f"prompts: {f.prompts}")
    w = fig.work
    lines.append(f"commands: {w.commands_run}")
    # Counts of what most sessions have none of are left out at zero (a
    # missing property reads as none in Obsidian and Dataview).
    for key, count in (("errors", len(w.errors) + w.errors_dropped),
                       ("commits", len(w.commits)), ("compactions", f.compactions),
                       ("subagents", len(f.subagents) + f.subagents_dropped),
                       ("redactions", f.redactions)):
        if count:
            lines.append(f"{key}: {count}")
    for key in ("previous", "next", "continues"):
        target = getattr(state, key)
        if target:
            lines.append(f"{key}: {yaml_str(wikilink(target))}")
    if state.continued_by:
        lines.append(f"continued_by: {yaml_list([wikilink(t) for t in state.continued_by])}")
    lines.append(f"tags: [session, {yaml_str(_tag(state.project))}, {fig.activity}]")
    lines.append("---")
    return lines


def wikilink(note: str, label: str = "") -> str:
    """An Obsidian wikilink to a note path relative to the vault; the label is
    kept from closing the link or splitting it."""
    target = note[:-3] if note.endswith(".md") else note
    label = label.replace("|", "-").replace("]", ")").replace("[", "(")
    return f"[[{target}|{label}]]" if label else f"[[{target}]]"


def _tag(name: str) -> str:
    tag = re.sub(r"[^\w/-]+", "-", name).strip("-") or "project"
    return tag if not tag.isdigit() else f"project-{tag}"


def render(state: SessionState, opts: RenderOptions | None = None,
           fig: Figures | None = None) -> str:
    """The generated part of the note, ending with the user-notes heading.
    `fig`, when the caller has them, are this state's figures."""
    opts = opts or RenderOptions()
    fig = fig or figures(state, opts)
    f = state.fold
    out = frontmatter(state, fig)
    out.append(REWRITE_NOTICE)
    out.append(f"# {fig.title}")
    out.append(quote(fig.summary))
    out.append("")
    project_note = f"Projects/{state.project}/{state.project}"
    facts = [f"**Project** {wikilink(project_note, state.project)}"]
    if f.first_ts:
        facts.append(f"**Started** {iso(f.first_ts).replace('T', ' ')[:16]} UTC")
    if fig.wall_minutes:
        facts.append(f"**Duration** {fig.wall_minutes} min ({fig.active_minutes} active)")
    elif f.first_ts:
        facts.append("**Duration** under a minute")
    if len(fig.models) == 1:
        facts.append(f"**Model** {cell(fig.models[0])}")
    facts.append(f"**Tokens** {short_tokens(fig.total.total)}")
    facts.append(f"**Cost** ${fig.cost:.2f}" + (" + unpriced" if fig.unpriced else ""))
    if state.status == "active":
        facts.append("**Status** active")
    # One paragraph, its lines kept apart by hard breaks (a backslash at the end).
    head = [" · ".join(facts), f"**Resume** {code(resume_command(f.cwd, state.session_id))}"]
    nav = []
    if state.previous:
        nav.append(f"← {wikilink(state.previous, 'previous session')}")
    if state.continues:
        nav.append(f"continues {wikilink(state.continues, 'an earlier session')}")
    nav.extend(f"continued in {wikilink(t, 'a later session')}" for t in state.continued_by)
    if state.next:
        nav.append(f"{wikilink(state.next, 'next session')} →")
    if nav:
        head.append(" · ".join(nav))
    out.append("\\\n".join(head))
    out.append("")
    _story(out, state, opts)
    _files(out, state, fig.work)
    _commits(out, state, fig.work)
    _commands(out, state, fig.work)
    _errors(out, state, fig.work)
    _open_threads(out, state)
    _subagents(out, state, fig.work)
    _tokens(out, fig)
    out.append(USER_HEADING)
    out.append(USER_HINT)
    return "\n".join(out) + "\n"


def _story(out: list[str], state: SessionState, opts: RenderOptions) -> None:
    f = state.fold
    out.append("## Story")
    if not f.turns:
        out.append("*No prompts yet.*" if not state.provisional else
                   "*The transcript is not written yet.*")
        out.append("")
        if state.provisional:
            out.append("**Claude** (provisional, from the Stop hook):")
            out.append(quote(state.provisional))
            out.append("")
    last = len(f.turns) - 1
    for i, t in enumerate(f.turns):
        if f.turns_dropped and i == HEAD_TURNS:
            out.append(f"*… {n(f.turns_dropped)} turns in between are not shown.*")
            out.append("")
        _turn(out, t, state, i == last, opts)


def _turn(out: list[str], t: Turn, state: SessionState, last: bool,
          opts: RenderOptions) -> None:
    when = hhmm(t.ts)
    if t.kind == "compact":
        trigger = t.text or "manual"
        before = f", {short_tokens(t.tokens)} tokens before" if t.tokens else ""
        out.append(f"### {when} · Compacted ({trigger}{before})".replace("###  ·", "### ·"))
        out.append("")
        if t.detail:
            out.append("> [!summary]- Summary Claude kept")
            out.append(quote(t.detail))
            out.append("")
    elif t.kind == "continued":
        out.append(f"### {when} · Continued".rstrip())
        out.append("")
        if t.detail:
            out.append("> [!summary]- Summary of the earlier conversation")
            out.append(quote(t.detail))
            out.append("")
    elif t.kind == "command" and not t.actions and not t.more_actions and not t.answer and not (
            last and state.provisional):
        # a slash command that did nothing to tell (`/ide`, `/clear`): one line
        out.append(f"### {when} · {code(tx.one_line(t.text, 80))}".replace("###  ·", "###"))
        out.append("")
        return
    else:
        label = ("Command" if t.kind == "command" else
                 "Prompt (typed while Claude worked)" if t.detail == "queued" else "Prompt")
        out.append(f"### {when} · {label}" if when else f"### {label}")
        out.append(quote(t.text))
        out.append("")
    if t.actions or t.more_actions:
        for a in t.actions:
            line = describe(a, state)
            if line:
                out.append(f"- {line}")
            if a.kind == "plan" and a.detail:
                out.append("  > [!abstract]- The plan")
                out.extend("  " + q for q in quote(a.detail).split("\n"))
        if t.more_actions:
            out.append(f"- … and {n(t.more_actions)} more actions")
        out.append("")
    if opts.show_thinking and t.thinking:
        out.append("> [!quote]- Thinking")
        out.append(quote(t.thinking))
        out.append("")
    answer = t.answer
    provisional = False
    if last and state.provisional:
        answer, provisional = state.provisional, True
    if answer:
        label = "**Claude** (provisional, from the Stop hook):" if provisional else "**Claude:**"
        # The last answer whole; before it, the gist: a note read in a minute
        # tells what each turn came to, not every word Claude said on the way.
        out.append(labelled_quote(label, answer if last else gist(answer)))
        out.append("")


def labelled_quote(label: str, text: str) -> str:
    """A quote whose first line starts with its label (on a line of its own
    when the text opens with a code fence, which must start its line)."""
    quoted = quote(text)
    if quoted.startswith("> ") and not _FENCE.match(quoted[2:]):
        return f"> {label} {quoted[2:]}"
    return f"{label}\n{quoted}"


GIST_CHARS = 400


def gist(answer: str) -> str:
    """An answer's first paragraph of words (at most GIST_CHARS, no code), and
    an ellipsis when Claude said more."""
    whole = answer.strip()
    words = [p for p in whole.split("\n\n") if p.strip() and not p.lstrip().startswith(
        ("```", "|", "    "))]
    first = words[0] if words else ""
    if first.endswith(":") and len(words) > 1:
        first += "\n\n" + words[1]  # "Here is what I found:" says little alone
    first = first.split("```", 1)[0].rstrip()  # never half a code block
    if len(first) > GIST_CHARS:
        first = tx.cut(first, GIST_CHARS).rstrip()
    if not first:
        return whole if len(whole) <= GIST_CHARS else "…"
    return whole if first == whole else first + " …"


def _status_word(status: str, code: int | None, kind: str = "") -> str:
    """How a tool call or command ended, in words."""
    if status == "ok":
        return "passed" if kind == "test" else "ok"
    if status == "failed":
        return f"failed (exit {code})" if code is not None else "failed"
    if status == "denied":
        return "denied by the user"
    if status == "interrupted":
        return "interrupted"
    return status or "no result yet"


def describe(a: Action, state: SessionState) -> str:
    """One line for an action, as a person would say it."""
    k = a.kind
    ms = state.durations.get(a.tool_id) if a.tool_id else None
    if ms is None:
        ms = a.ms
    took = f", {duration(ms)}" if ms is not None and ms >= 1000 else ""
    if k == "explore":
        parts = []
        if a.reads:
            parts.append(plural(a.reads, "read"))
        if a.searches:
            parts.append(plural(a.searches, "search", "searches"))
        if a.listings:
            parts.append(plural(a.listings, "listing"))
        return f"Explored the codebase ({', '.join(parts)})"
    if k == "edit":
        path = shown_path(a.text, state.fold.cwd)
        verb = "Created" if a.detail == "created" else "Edited"
        times = f" ×{a.times}" if a.times > 1 else ""
        if a.status in ("failed", "denied"):
            return f"Tried to edit {code(path)} — {_status_word(a.status, a.code)}"
        if not a.status:
            return f"Editing {code(path)}"
        return f"{verb} {code(path)} (+{a.added} −{a.removed}){times}"
    if k == "bash":
        outcome = f"{_status_word(a.status, a.code, a.detail)}{took}"
        said = tx.one_line(a.said, 120).rstrip(".")
        # A story line stays readable: the command gives way to Claude's words.
        room = ACTION_LINE_CHARS - len(said) - len(outcome) - 10
        command = code(tx.one_line(readable(a.text, state.fold.cwd), max(room, 50)))
        if said:  # Claude's own words for what the command was for
            return f"{said}: {command} — {outcome}"
        what = {"test": "Ran tests", "build": "Built"}.get(a.detail, "Ran")
        return f"{what} {command} — {outcome}"
    if k == "agent":
        desc = f": {a.detail}" if a.detail else ""
        st = f" — {a.status}" if a.status and a.status not in ("ok", "completed") else ""
        return f"Delegated to subagent *{a.text}*{desc}{st}"
    if k == "plan":
        return {"approved": "Plan approved", "rejected": "Plan rejected"}.get(
            a.status, "Proposed a plan")
    if k == "question":
        asked = tx.one_line(a.text, 110 if a.detail else ACTION_LINE_CHARS - 15)
        ans = f" → **{tx.one_line(a.detail, ACTION_LINE_CHARS - len(asked) - 25)}**" \
            if a.detail else ""
        return f"Asked: “{asked}”{ans}"
    if k == "fetch":
        times = f" ×{a.times}" if a.times > 1 else ""
        return f"Fetched {a.text}{times}"
    if k == "search":
        return f"Searched the web for “{a.text}”"
    if k == "tools":
        if a.text:
            return f"Loaded the tools {a.text}"
        return f"Looked for tools matching “{a.detail}”"
    if k == "skill":
        return f"Used {code(a.text)}"
    if k == "slash":
        return f"Ran {code(a.text)}"
    if k == "interrupt":
        return "Interrupted by the user" + (f" ×{a.times}" if a.times > 1 else "")
    if k == "tool":
        times = f" ×{a.times}" if a.times > 1 else ""
        return f"Used {a.text}{times}"
    return ""


def _by(label: str) -> str:
    """Who did it, for a row of the session's work: blank for the main agent."""
    return f"*{label}*" if label else "main"


def _files(out: list[str], state: SessionState, work: Work) -> None:
    if not work.files:
        return
    f = state.fold
    helped = any(fw.by != [MAIN] for fw in work.files.values())
    out.append("## Files changed")
    out.append("| File | Change | + | − |" + (" By |" if helped else ""))
    out.append("|---|---|--:|--:|" + ("---|" if helped else ""))
    items = sorted(work.files.items(), key=lambda kv: shown_path(kv[0], f.cwd))
    for path, fw in items[:SECTION_ROWS]:
        c = fw.change
        rel = shown_path(path, f.cwd)
        est = "≈" if c.estimated else ""
        ops = ", ".join(c.ops)
        by = f" {cell(', '.join(_by(b) for b in fw.by))} |" if helped else ""
        out.append(f"| {cell(code(rel))} | {ops} | {est}{c.added} | {est}{c.removed} |{by}")
    more = len(items) - SECTION_ROWS + work.files_dropped
    if more > 0:
        out.append(f"| … and {n(more)} more | | | |" + (" |" if helped else ""))
    out.append("")


class _Runs(Struct):
    """One distinct command of the digest: how often it ran, by whom, how it
    ended last, and how long all its runs took."""

    command: str
    kind: str
    runs: int = 0
    last: str = ""
    ms: int = 0
    timed: bool = False
    by: list[str] = field(default_factory=list)
    unseen: bool = False  # a run of it is not in the story (a subagent's, a turn not shown)


def _commands(out: list[str], state: SessionState, work: Work) -> None:
    """A digest of the commands run (the story has each run in its place):
    tests and builds with their runs and last outcome, the rest collapsed."""
    if not work.commands:
        return
    in_story = {a.tool_id for t in state.fold.turns for a in t.actions
                if a.kind == "bash" and a.tool_id}
    distinct: dict[str, _Runs] = {}
    for label, c in work.commands:
        shown = readable(c.command, state.fold.cwd)
        runs = distinct.get(shown)
        if runs is None:
            runs = distinct[shown] = _Runs(command=shown, kind=c.kind)
        runs.runs += 1
        runs.kind = c.kind if c.kind != "command" else runs.kind
        runs.last = _status_word(c.status, c.code, c.kind) if c.status else "no result yet"
        ms = state.durations.get(c.tool_id) if c.tool_id else None
        ms = c.ms if ms is None else ms
        if ms is not None:
            runs.ms += ms
            runs.timed = True
        if label not in runs.by:
            runs.by.append(label)
        if label != MAIN or not c.tool_id or c.tool_id not in in_story:
            runs.unseen = True
    checks = [r for r in distinct.values() if r.kind in ("test", "build")]
    others = [r for r in distinct.values() if r.kind not in ("test", "build")]
    out.append("## Commands")
    hidden = work.commands_dropped
    if hidden:
        out.append(f"- … {plural(hidden, 'earlier command')} not kept")
    for r in checks:
        out.append(f"- {_runs_line(r)}")
    if checks and others:
        out.append("")
    if others:
        total = sum(r.runs for r in others)
        word = "other commands" if checks else "commands"
        word = word if total != 1 else word[:-1]
        # Listed here only when the story does not show them: no command twice.
        unseen = [r for r in others if r.unseen]
        if not unseen:
            out.append(f"*{n(total)} {word}, each in the story above.*")
        else:
            seen = "" if len(unseen) == len(others) else \
                f", {n(len(others) - len(unseen))} more in the story above"
            out.append(f"> [!note]- {n(total)} {word}{seen}")
            out.extend(f"> - {_runs_line(r)}" for r in unseen[-COMMAND_ROWS:])
            if len(unseen) > COMMAND_ROWS:
                out.append(f"> - … and {n(len(unseen) - COMMAND_ROWS)} more before these")
    out.append("")


def _runs_line(r: _Runs) -> str:
    what = f"{n(r.runs)} runs, last {r.last}" if r.runs > 1 else r.last
    took = f", {duration(r.ms)}" if r.timed and r.ms >= 1000 else ""
    helpers = [b for b in r.by if b]
    by = f" (by {', '.join(_by(b) for b in r.by)})" if helpers else ""
    return f"{code(r.command)} — {what}{took}{by}"


def _commits(out: list[str], state: SessionState, work: Work) -> None:
    f = state.fold
    if not (work.commits or f.prs or work.pushes):
        return
    out.append("## Commits and PRs")
    for label, c in work.commits:
        branch = f" on {code(c.branch)}" if c.branch else ""
        sha = code(c.sha) if c.sha else "*(git printed no sha)*"
        subject = f" {c.subject}" if c.subject else ""
        by = f" (by subagent *{label}*)" if label else ""
        out.append(f"- {sha}{subject}{branch}{by}")
    if work.pushes:
        out.append(f"- Pushed {plural(work.pushes, 'time')}")
    for p in f.prs:
        label = f"{p.repo}#{p.number}" if p.repo and p.number else p.url
        out.append(f"- PR [{label}]({p.url})")
    out.append("")


def _errors(out: list[str], state: SessionState, work: Work) -> None:
    if not work.errors:
        return
    out.append("## Errors")
    if work.errors_dropped:
        out.append(f"- … {n(work.errors_dropped)} earlier errors not shown")
    shown = work.errors[-ERROR_ROWS:]
    # The last few in full; the earlier ones a line each, collapsed: most were
    # fixed along the way, and the story says where.
    earlier, recent = shown[:-ERRORS_IN_FULL], shown[-ERRORS_IN_FULL:]
    if earlier:
        out.append(f"> [!failure]- {plural(len(earlier), 'earlier error')}")
        for label, e in earlier:
            first = readable(e.text, state.fold.cwd).partition("\n")[0]
            out.append("> " + _error_head(e, first, label))
        out.append("")
    for label, e in recent:
        first, _, rest = readable(e.text, state.fold.cwd).partition("\n")
        out.append(_error_head(e, first, label))
        if rest:
            out.extend("  " + line for line in fenced(rest))
    out.append("")


def _error_head(e: ErrorRec, first: str, label: str) -> str:
    """An error's line: when, which tool, who, its first line, and its fate."""
    fate = " — later succeeded" if e.later_ok else ""
    by = f" (subagent *{label}*)" if label else ""
    when = hhmm(e.ts)
    return f"- {when + ' ' if when else ''}**{e.tool}**{by}: {code(first)}{fate}"


def fenced(text: str) -> list[str]:
    """A fenced code block holding `text`: its fence longer than any run of
    backticks inside, so no text can close it early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *text.split("\n"), fence]


def _open_threads(out: list[str], state: SessionState) -> None:
    """What was left to do at the end (todos pending or in progress), and,
    collapsed, what was done."""
    todos = _todos(state)
    if not todos:
        return
    left = [t for t in todos if t.status != "completed"]
    done = [t for t in todos if t.status == "completed"]
    out.append("## Open threads")
    for t in left:
        suffix = " *(in progress)*" if t.status == "in_progress" else ""
        out.append(f"- [ ] {t.text}{suffix}")
    if not left:
        out.append("Nothing left open.")
    out.append("")
    if done:
        out.append(f"> [!done]- {len(done)} done")
        out.extend(f"> - [x] {t.text}" for t in done)
        out.append("")


def _subagents(out: list[str], state: SessionState, work: Work) -> None:
    f = state.fold
    if not f.subagents:
        return
    by_agent: dict[str, AgentFold] = {
        af.fold.agent_id: af.fold for af in state.agents.values()
        if af.fold.agent_id and not af.foreign
    }
    out.append("## Subagents")
    for s in f.subagents:
        af = by_agent.get(s.agent_id) or f.progress.get(s.agent_id)
        calls = af.tool_calls if af is not None and af.tool_calls else s.tool_calls
        bits = [f"{calls} tool calls"]
        if af is not None:
            did = af.work
            if did.files:
                bits.append(f"{plural(len(did.files) + did.files_dropped, 'file')} changed")
            if did.commands_run:
                bits.append(plural(did.commands_run, "command"))
            if did.commits:
                bits.append(plural(len(did.commits), "commit"))
            # What it spent, from its own messages: not its final context size.
            used = sum(t.total for t in [*af.usage.values(), *af.settled.values()])
            if used:
                bits.append(f"{short_tokens(used)} tokens used")
        if s.ms:
            bits.append(duration(s.ms))
        if s.status and s.status != "completed":
            bits.append(s.status)
        desc = f": {s.description}" if s.description else ""
        out.append(f"- *{s.type}*{desc} ({', '.join(bits)})")
    if f.subagents_dropped:
        out.append(f"- … and {n(f.subagents_dropped)} more")
    out.append("")


def _tokens(out: list[str], fig: Figures) -> None:
    if not fig.tokens:
        return
    if len(fig.tokens) == 1 and not fig.unpriced:
        return  # one model: the header has tokens and cost, the frontmatter the split
    out.append("## Tokens and cost")
    out.append("| Model | Input | Output | Cache read | Cache write | Cost |")
    out.append("|---|--:|--:|--:|--:|--:|")
    for model, t in fig.tokens.items():
        c = f"${fig.costs[model]:.2f}" if model in fig.costs else "unpriced"
        out.append(f"| {cell(model)} | {n(t.input)} | {n(t.output)} | {n(t.cache_read)} | "
                   f"{n(t.cache_creation)} | {c} |")
    t = fig.total
    out.append(f"| **Total** | {n(t.input)} | {n(t.output)} | {n(t.cache_read)} | "
               f"{n(t.cache_creation)} | **${fig.cost:.2f}** |")
    if fig.unpriced:
        out.append("")
        out.append(f"*No price known for {', '.join(fig.unpriced)}; not included in the cost.*")
    out.append("")
