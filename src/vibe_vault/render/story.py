"""The story of a session: its turns in order, each with the prompt, a line for
every action and what Claude answered."""


import re
from collections.abc import Callable

from vibe_vault import text as tx
from vibe_vault.figures import duration, n, plural, short_tokens
from vibe_vault.fold import HEAD_TURNS
from vibe_vault.markdown import code, labelled_quote, quote
from vibe_vault.paths import readable, shown_path
from vibe_vault.render.page import Page, status_word
from vibe_vault.state import Action, SessionState, Turn
from vibe_vault.times import hhmm

ACTION_LINE_CHARS = 200  # a story line, as long as a person reads at a glance
GIST_CHARS = 400


def story(page: Page) -> list[str]:
    state = page.state
    f = state.fold
    out = ["## Story"]
    if not f.turns:
        out.append("*No prompts yet.*" if not state.provisional else
                   "*The transcript is not written yet.*")
        out.append("")
        if state.provisional:
            out.append("**Claude** (provisional, from the Stop hook):")
            out.append(quote(state.provisional))
            out.append("")
    last = len(f.turns) - 1
    switches = list(f.model_switches)
    for i, t in enumerate(f.turns):
        if f.turns_dropped and i == HEAD_TURNS:
            out.append(f"*… {n(f.turns_dropped)} turns in between are not shown.*")
            out.append("")
        _turn(out, t, page, i == last)
        # The model changes that came before the next turn (by /model, a
        # fallback, a hook): told where they happened.
        upto = f.turns[i + 1].ts if i < last else ""
        while switches and (not upto or not switches[0].ts or switches[0].ts < upto):
            sw = switches.pop(0)
            when = hhmm(sw.ts)
            out.append(f"*Model {code(sw.was)} → {code(sw.to)}" + (f" at {when}*" if when else "*"))
            out.append("")
    return out


def _turn(out: list[str], t: Turn, page: Page, last: bool) -> None:
    state = page.state
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
        # a slash command that did nothing to tell (`/ide`, `/clear`): one line,
        # with what it printed (`/model`: "Set model to opus")
        said = f" — {tx.one_line(t.detail, 120)}" if t.detail else ""
        out.append(f"### {when} · {code(tx.one_line(t.text, 80))}{said}".replace(
            "###  ·", "###"))
        out.append("")
        return
    else:
        label = ("Command" if t.kind == "command" else
                 "Prompt (typed while Claude worked)" if t.detail == "queued" else "Prompt")
        out.append(f"### {when} · {label}" if when else f"### {label}")
        out.append(quote(t.text))
        out.append("")
        if t.kind == "command" and t.detail:
            out.append(f"*It printed:* {tx.one_line(t.detail, 160)}")
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
    if page.opts.show_thinking and t.thinking:
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


def under_heading(paragraphs: list[str]) -> str:
    """The first sentence of words under an answer's leading heading(s), or ""."""
    lines = [ln.strip() for p in paragraphs for ln in p.splitlines()]
    for ln in lines:
        if not ln or ln.startswith("#") or set(ln) <= set("-*_= "):
            continue  # a heading, or a rule under it
        if ln.startswith(("```", "|")):
            return ""
        words = _ITEM.sub("", ln).replace("**", "")
        sentence = re.split(r"(?<=[.!?])\s+", words, maxsplit=1)[0].strip()
        return tx.cut(sentence, GIST_CHARS).rstrip() if sentence else ""
    return ""


_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


def gist(answer: str) -> str:
    """An answer's first paragraph of words (at most GIST_CHARS, no code), and
    an ellipsis when Claude said more."""
    whole = answer.strip()
    words = [p for p in whole.split("\n\n") if p.strip() and not p.lstrip().startswith(
        ("```", "|", "    "))]
    first = words[0] if words else ""
    if first.lstrip().startswith("#"):
        # `## ✅ Feature Complete`: a heading names the answer; the sentence
        # under it says what was done.
        under = under_heading(words)
        if under:
            return under if under == whole else under + " …"
    if first.endswith(":") and len(words) > 1:
        first += "\n\n" + words[1]  # "Here is what I found:" says little alone
    first = first.split("```", 1)[0].rstrip()  # never half a code block
    if len(first) > GIST_CHARS:
        first = tx.cut(first, GIST_CHARS).rstrip()
    if not first:
        return whole if len(whole) <= GIST_CHARS else "…"
    return whole if first == whole else first + " …"


# -- one line an action ----------------------------------------------------------


def _times(a: Action) -> str:
    return f" ×{a.times}" if a.times > 1 else ""


def _explore(a: Action, state: SessionState) -> str:
    parts = []
    if a.reads:
        parts.append(plural(a.reads, "read"))
    if a.searches:
        parts.append(plural(a.searches, "search", "searches"))
    if a.listings:
        parts.append(plural(a.listings, "listing"))
    return f"Explored the codebase ({', '.join(parts)})"


def _edit(a: Action, state: SessionState) -> str:
    path = shown_path(a.text, state.fold.cwd)
    verb = "Created" if a.detail == "created" else "Edited"
    if a.status in ("failed", "denied"):
        return f"Tried to edit {code(path)} — {status_word(a.status, a.code)}"
    if not a.status:
        return f"Editing {code(path)}"
    return f"{verb} {code(path)} (+{a.added} −{a.removed}){_times(a)}"


def _bash(a: Action, state: SessionState) -> str:
    ms = state.durations.get(a.tool_id) if a.tool_id else None
    if ms is None:
        ms = a.ms
    took = f", {duration(ms)}" if ms is not None and ms >= 1000 else ""
    outcome = f"{status_word(a.status, a.code, a.detail)}{took}"
    said = tx.one_line(a.said, 120).rstrip(".")
    # A story line stays readable: the command gives way to Claude's words.
    room = ACTION_LINE_CHARS - len(said) - len(outcome) - 10
    command = code(tx.one_line(readable(a.text, state.fold.cwd), max(room, 50)))
    if said:  # Claude's own words for what the command was for
        return f"{said}: {command} — {outcome}"
    what = {"test": "Ran tests", "build": "Built"}.get(a.detail, "Ran")
    return f"{what} {command} — {outcome}"


def _agent(a: Action, state: SessionState) -> str:
    desc = f": {a.detail}" if a.detail else ""
    st = f" — {a.status}" if a.status and a.status not in ("ok", "completed") else ""
    if not a.status:  # its result never came
        st = " — still at work" if state.status == "active" else " — unfinished (no result)"
    return f"Delegated to subagent *{a.text}*{desc}{st}"


def _plan(a: Action, state: SessionState) -> str:
    return {"approved": "Plan approved", "rejected": "Plan rejected"}.get(
        a.status, "Proposed a plan")


def _question(a: Action, state: SessionState) -> str:
    asked = tx.one_line(a.text, 110 if a.detail else ACTION_LINE_CHARS - 15)
    ans = f" → **{tx.one_line(a.detail, ACTION_LINE_CHARS - len(asked) - 25)}**" \
        if a.detail else ""
    return f"Asked: “{asked}”{ans}"


def _tools(a: Action, state: SessionState) -> str:
    if a.text:
        return f"Loaded the tools {a.text}"
    return f"Looked for tools matching “{a.detail}”"


# How each kind of action is told, by the action's kind; a kind not here is
# not told.
DESCRIBE: dict[str, Callable[[Action, SessionState], str]] = {
    "explore": _explore,
    "edit": _edit,
    "bash": _bash,
    "agent": _agent,
    "plan": _plan,
    "question": _question,
    "fetch": lambda a, state: f"Fetched {a.text}{_times(a)}",
    "search": lambda a, state: f"Searched the web for “{a.text}”",
    "tools": _tools,
    "skill": lambda a, state: f"Used {code(a.text)}",
    "slash": lambda a, state: f"Ran {code(a.text)}" + (
        f" — {tx.one_line(a.detail, 120)}" if a.detail else ""),
    # "Claude Opus 4 limit reached, now using Sonnet 4"
    "model": lambda a, state: tx.one_line(a.text, ACTION_LINE_CHARS),
    "interrupt": lambda a, state: "Interrupted by the user" + _times(a),
    "tool": lambda a, state: f"Used {a.text}{_times(a)}",
}


def describe(a: Action, state: SessionState) -> str:
    """One line for an action, as a person would say it."""
    tell = DESCRIBE.get(a.kind)
    return tell(a, state) if tell is not None else ""
