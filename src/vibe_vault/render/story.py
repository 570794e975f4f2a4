"""The story of a session: its turns in order, each with the prompt, a line for
every action and what Claude answered."""


from collections.abc import Callable
from functools import partial

from vibe_vault import text as tx
from vibe_vault.figures import duration, n, plural, short_tokens
from vibe_vault.fold import HEAD_TURNS
from vibe_vault.fold.story import TASK_ASSIGNMENT
from vibe_vault.fold.subagents import LAUNCHED, NOT_STARTED, SPAWNED
from vibe_vault.markdown import (
    Md,
    code,
    emphasis,
    fenced,
    indented,
    labelled_quote,
    md,
    quote,
    strong,
    text,
    text_before_colon,
)
from vibe_vault.paths import runnable, shown_path
from vibe_vault.render.page import Page, part, status_word
from vibe_vault.state import (
    CLARIFY,
    FINISH_PLAN,
    FROM_TEAM,
    INTERRUPTED_ANSWERING,
    NOT_RUN,
    USER_SHELL,
    Action,
    Recap,
    SessionState,
    Turn,
)
from vibe_vault.text import rx
from vibe_vault.times import day, epoch, hhmm, hhmm_and_day, utc_iso_of_epoch
from vibe_vault.work import agents_of_tasks, calls_of_task

ACTION_LINE_CHARS = 200  # a story line, as long as a person reads at a glance
GIST_CHARS = 400
PROVISIONAL = "**Claude** (provisional, from the Stop hook):"


def story(page: Page) -> list[Md]:
    state = page.state
    f = state.fold
    out = [md("## Story")]
    if not f.turns:
        out.append(md("*No prompts yet.*") if not state.provisional else
                   md("*The transcript is not written yet.*"))
        out.append(md(""))
        if state.provisional:
            out.append(md(PROVISIONAL))
            out.append(quote(state.provisional))
            out.append(md(""))
    last = len(f.turns) - 1
    switches = list(f.model_switches)
    recaps = list(f.recaps)
    dropped = [f.recaps_dropped]  # (the state keeps the latest MAX_RECAPS)
    shown_day = day(f.first_ts) if f.first_ts else ""  # the header's date
    if f.turns and f.turns[0].ts:
        shown_day = _recaps_before(out, page, recaps, dropped, f.turns[0].ts, shown_day)
    for i, t in enumerate(f.turns):
        if f.turns_dropped and i == HEAD_TURNS:
            out.append(md("*… {} turns in between are not shown.*", text(n(f.turns_dropped))))
            out.append(md(""))
            # Recaps written among the turns not shown: told here, not lost.
            shown_day = _recaps_before(out, page, recaps, dropped, t.ts, shown_day)
        when, shown_day = heading_time(t.ts, shown_day)
        if i == last or page.memo is None:
            _turn(out, t, page, i == last, when)
        else:
            out.extend(page.memo.lines(t, state, page.opts.show_thinking, when,
                                       partial(_settled, page=page, when=when)))
        # The model changes that came before the next turn (by /model, a
        # fallback, a hook): told where they happened, once (a change Claude
        # Code's own notice announced is told by that notice, among the actions).
        upto = f.turns[i + 1].ts if i < last else ""
        while switches and (not upto or not switches[0].ts or switches[0].ts < upto):
            sw = switches.pop(0)
            if sw.noticed:
                continue
            out.extend(part(page, _switch_lines, sw.was, sw.to, hhmm(sw.ts)))
        # Claude Code's recaps written before the next turn (when the user came
        # back), where they came; those of turns not shown after the gap.
        if i == last or (upto and not (f.turns_dropped and i == HEAD_TURNS - 1)):
            shown_day = _recaps_before(out, page, recaps, dropped, upto, shown_day)
    _recaps_before(out, page, recaps, dropped, "", shown_day)  # (a story with no turns)
    return out


def _recaps_before(out: list[Md], page: Page, recaps: list[Recap], dropped: list[int],
                   upto: str, shown_day: str) -> str:
    """Tell (and take from `recaps`) the recaps written before `upto` (an
    entry's time; "" for all of them); the day shown by then. Before the
    first, how many earlier ones the state left out (`dropped`, told once)."""
    while recaps and (not upto or not recaps[0].ts or recaps[0].ts < upto):
        recap = recaps.pop(0)
        if dropped[0]:
            out.append(md("*… {} by Claude Code not shown (the note keeps the latest {}).*",
                          text(plural(dropped[0], "earlier recap")), len(recaps) + 1))
            out.append(md(""))
            dropped[0] = 0
        when, shown_day = heading_time(recap.ts, shown_day)
        # (kept by the memo as a settled turn is: a long session's recaps
        # were escaped anew at every Stop)
        out.extend(part(page, _recap_lines, when, recap.text))
    return shown_day


def _recap_lines(when: str, text: str) -> list[Md]:
    """A recap of Claude Code's (`when`: its time as shown)."""
    return [md("{}Claude Code's recap", _when(when)), quote(text), md("")]


def _switch_lines(was: str, to: str, when: str) -> list[Md]:
    """A model change (`when`: its time as shown)."""
    at = md(" at {}", text(when)) if when else md("")
    return [md("*Model {} → {}{}*", code(was), code(to), at), md("")]


def _settled(turn: Turn, page: Page, when: str) -> list[Md]:
    """The lines of a turn that is not the last."""
    out: list[Md] = []
    _turn(out, turn, page, False, when)
    return out


def heading_time(timestamp: str, shown_day: str) -> tuple[str, str]:
    """A turn heading's time (`14:05`), with its date (`2026-11-27 00:10`)
    on the first heading of a local day other than the one last shown; and
    the day shown by then."""
    when, its_day = hhmm_and_day(timestamp)
    if not when:
        return "", shown_day
    if its_day != shown_day:
        return f"{its_day} {when}", its_day
    return when, shown_day


def _when(when: str) -> Md:
    """A turn's heading's start: `### HH:MM · `, or `### ` when it has no time."""
    return md("### {} · ", text(when)) if when else md("### ")


def _turn(out: list[Md], turn: Turn, page: Page, last: bool, when: str) -> None:
    state = page.state
    if turn.kind == "compact":
        trigger = turn.text or "manual"
        before = (md(", {} tokens before", text(short_tokens(turn.tokens))) if turn.tokens
                  else md(""))
        at = md("### {} · ", text(when)) if when else md("### · ")
        out.append(md("{}Compacted ({}{})", at, text(trigger), before))
        out.append(md(""))
        if turn.detail:
            out.append(md("> [!summary]- Summary Claude kept"))
            out.append(quote(turn.detail))
            out.append(md(""))
    elif turn.kind == "continued":
        out.append(md("### {} · Continued", text(when)))
        out.append(md(""))
        if turn.detail:
            out.append(md("> [!summary]- Summary of the earlier conversation"))
            out.append(quote(turn.detail))
            out.append(md(""))
    elif (turn.kind == "command" and not turn.actions and not turn.more_actions
            and not turn.answer and not (last and state.provisional)):
        # a slash command that did nothing to tell (`/ide`, `/clear`): one line,
        # with what it printed (`/model`: "Set model to opus")
        said = md(" — {}", text(tx.one_line(turn.detail, 120))) if turn.detail else md("")
        out.append(md("{}{}{}", _when(when), code(tx.one_line(turn.text, 80)), said))
        out.append(md(""))
        return
    elif turn.kind == FROM_TEAM:
        # a teammate's session woken by its team's messages (its lead's, a
        # peer's): not a prompt of the user's, nor a turn continued
        out.append(md("{}From {}", _when(when), emphasis(turn.text)))
        out.append(md(""))
    elif turn.kind == USER_SHELL:
        # a command the user ran themselves (`!` in the prompt), and how it ended
        out.append(md("{}You ran {}", _when(when), code(tx.one_line_command(turn.text, 120))))
        out.append(md(""))
        if turn.detail.startswith("printed: "):
            out.append(md("*It printed:* {}", text(turn.detail.removeprefix("printed: "))))
            out.append(md(""))
        elif turn.detail:
            out.append(md("*Outcome:* {}", text(turn.detail)))
            out.append(md(""))
    else:
        label = ("Command" if turn.kind == "command" else
                 "Prompt (typed while Claude worked)" if turn.detail == "queued" else
                 "Prompt (given when rejecting the plan)" if turn.detail == "refused:plan" else
                 "Prompt (given when refusing a tool call)" if turn.detail == "refused" else
                 "Prompt")
        out.append(md("{}{}{}", _when(when), text(label), _left(turn)))
        if turn.rewound:
            out.append(_rewind(turn))
            out.append(md(""))
        out.append(quote(pasted_cut(str(turn.text))))
        out.append(md(""))
        if turn.reply:
            out.append(labelled_quote("**Claude:**", gist(turn.reply)))
            out.append(md(""))
        if turn.kind == "command" and turn.detail:
            out.append(md("*It printed:* {}", text(tx.one_line(turn.detail, 160))))
            out.append(md(""))
    stopped = _stopped(turn, page, last)
    listed = turn.actions[:-1] if stopped else turn.actions
    if stopped is not None and _told_when_stopped(turn):
        listed = listed[:-1]  # "Interrupted … after: <it>" tells it: once is enough
    told = [(a, describe(a, state)) for a in listed]
    if any(line for _, line in told) or turn.more_actions:
        # The last thing that happened above: the prompt, then each call and
        # its result (a line not shown happened all the same).
        happened = epoch(turn.ts) if turn.ts else None
        for a, line in told:
            came = _action_time(a) if line else None
            called = epoch(a.ts) if a.kind in ANSWERED and a.ts else None
            if called is not None and happened is not None:
                happened = max(happened, called)  # (told at its answer: its call came first)
            if happened is not None and came is not None and came - happened > LATER_SECONDS:
                # Work long after what came before it (a plan or a question
                # answered hours later, a return to the session): said where
                # it resumed, not filed under the time the turn began.
                out.append(md(""))
                out.append(md("*{} later, at {}:*", text(_span(came - happened)),
                              text(_marker_time(came, turn.ts))))
                out.append(md(""))
            if line:
                out.append(md("- {}{}", line, _waited(a, state, turn.ts)))
            happened = _last_event(a, happened)
            if a.kind == "plan" and a.detail:
                out.extend(_plan_text(a))
            if a.kind == "agent" and line:
                out.extend(_report(a, state))
        if turn.more_actions:
            out.append(md("- … and {} more actions", text(n(turn.more_actions))))
        out.append(md(""))
    if page.opts.show_thinking and turn.thinking:
        out.append(md("> [!quote]- Thinking"))
        out.append(quote(turn.thinking))
        out.append(md(""))
    answer = turn.answer
    if last and state.fold.last_answer_whole and answer == state.fold.last_answer:
        answer = state.fold.last_answer_whole  # the last answer whole, not its first 700
    provisional = False
    if last and state.provisional:
        answer, provisional = state.provisional, True
    if stopped is not None:
        out.append(stopped)
        out.append(md(""))
        return
    if answer:
        label = PROVISIONAL if provisional else "**Claude:**"
        # The last answer whole; before it, the gist: a note read in a minute
        # tells what each turn came to, not every word Claude said on the way.
        out.append(labelled_quote(label, answer if last else gist(answer)))
        out.append(md(""))


# A story line more than this long after the time last shown above it gets a
# line of its own saying when it came.
LATER_SECONDS = 30 * 60
# Actions whose line tells the user's answer (its time: when the answer came).
ANSWERED = frozenset({"plan", "question"})


def _action_time(a: Action) -> float | None:
    """When an action's line happened: its call, or for a plan or a question
    the user answered, when the answer came (`ms` after the call)."""
    at = epoch(a.ts) if a.ts else None
    if at is not None and a.kind in ANSWERED and a.ms and a.status:
        at += a.ms / 1000
    return at


# A call whose result came this long after it says so on its line.
LONG_WAIT_SECONDS = 10 * 60


def _last_event(a: Action, last: float | None) -> float | None:
    """The latest of `last` and an action's own times: its call, its answer,
    its (last) result."""
    start = epoch(a.ts) if a.ts else None
    times = [t for t in (last, start, _action_time(a),
                         start + a.done_ms / 1000 if start is not None and a.done_ms else None)
             if t is not None]
    return max(times) if times else None


def _waited(a: Action, state: SessionState, since: str) -> Md:
    """After a single call's line: when its result came, if that was
    LONG_WAIT_SECONDS or more after the call and the line tells a run time
    shorter (a command that ran 3 s and waited an hour for a permission nobody
    was there to give). A plan's or a question's line is told at its answer; a
    background command's result comes as it starts."""
    if (not a.done_ms or a.done_ms < LONG_WAIT_SECONDS * 1000 or a.times > 1
            or a.kind in ANSWERED or a.kind == "explore" or a.status == "background"
            or not a.ts):
        return md("")
    told = state.durations.get(a.tool_id) if a.tool_id else None
    if told is None and a.kind == "bash":
        told = a.ms
    if told is None and a.kind != "agent":
        # Its run time not known: the wait may be the user's, for a permission
        # (review 26 #7: a7da6a22's pytest read as an hour's run). Told only
        # beside a run time that shows it was not the run. (A subagent asks
        # none: its result came when it was done.)
        return md("")
    if told is not None and told >= a.done_ms - 60_000:
        return md("")  # (its run time, told on the line, is the wait)
    start = epoch(a.ts)
    if start is None:
        return md("")
    return md(" (its result came {} later, at {})", text(_span(a.done_ms / 1000)),
              text(_marker_time(start + a.done_ms / 1000, since)))


def _span(seconds: float) -> str:
    """`2 h 5 min`, `45 min`, `3 days 2 h`: a wait, to the minute."""
    minutes = int(seconds // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [plural(days, "day")] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{mins} min"] if mins and not days else []
    return " ".join(parts) or "0 min"


def _marker_time(at: float, since: str) -> str:
    """`04:36`, with the date when it is not the day of `since` (the turn's)."""
    stamp = utc_iso_of_epoch(at)
    when, its_day = hhmm_and_day(stamp)
    return when if its_day == day(since) else f"{its_day} {when}"


def _left(turn: Turn) -> Md:
    """After a turn's label: that a later rewind left it out of the conversation."""
    if not turn.left:
        return md("")
    at = hhmm(turn.left)
    return md(" (left by the rewind at {})", text(at)) if at else md(" (left by a rewind)")


def _rewind(turn: Turn) -> Md:
    """Above a prompt that rewound the conversation: where it went on from."""
    to = hhmm(turn.rewound_to)
    where = md("the turn of {}", text(to)) if to else md("an earlier turn")
    left = ("the turn after it was" if turn.rewound == 1 else
            f"the {n(turn.rewound)} turns after it were")
    return md("*Rewound to {}: {} left out of the conversation Claude went on with.*",
              where, text(left))


def _stopped(turn: Turn, page: Page, last: bool) -> Md | None:
    """How a turn the user interrupted ended (it stands for the turn's last
    action line and for its answer): while Claude wrote, with those words; else
    with what was last done, not words Claude wrote before its last tool call."""
    stop = turn.actions[-1] if turn.actions else None
    if (stop is None or stop.kind != "interrupt" or not turn.working or turn.more_actions
            or (last and page.state.provisional)):
        return None
    times = md(" ({} times)", text(n(stop.times))) if stop.times > 1 else md("")
    if stop.status == INTERRUPTED_ANSWERING and turn.answer:
        return labelled_quote(f"**Claude** (interrupted by the user{times}):",
                              turn.answer if last else gist(turn.answer))
    done = describe(turn.actions[-2], page.state) if len(turn.actions) > 1 else md("")
    if done and not _told_when_stopped(turn):  # (a plan, listed above with its text)
        return md("> **Interrupted** by the user{} after the plan above.", times)
    if done:
        return md("> **Interrupted** by the user{} after: {}", times, done)
    if len(turn.actions) > 1:  # (its last action is one not told: a ToolSearch)
        return md("> **Interrupted** by the user{}.", times)
    return md("> **Interrupted** by the user{} before Claude did anything.", times)


def _told_when_stopped(turn: Turn) -> bool:
    """Whether the line telling the turn's interruption (`_stopped`) names
    its last action ("after: …"), so the list above it leaves that one out.
    A plan keeps its line: its text follows it."""
    stop = turn.actions[-1]
    if stop.status == INTERRUPTED_ANSWERING and turn.answer:
        return False
    before = turn.actions[-2] if len(turn.actions) > 1 else None
    return before is not None and not (before.kind == "plan" and before.detail)


def under_heading(paragraphs: list[str]) -> str:
    """The first sentence of words under an answer's leading heading(s), or ""."""
    lines = [ln.strip() for p in paragraphs for ln in p.splitlines()]
    said = ""
    for ln in lines:
        if not ln or ln.startswith("#") or set(ln) <= set("-*_= "):
            continue  # a heading, or a rule under it
        if ln.startswith(("```", "|")):
            break
        words = _ITEM.sub("", ln).replace("**", "")
        sentence = tx.rx(r"(?<=[.!?])\s+").split(words, maxsplit=1)[0].strip()
        said = f"{said} {sentence}".strip()
        if not (sentence.endswith(":") and _LEAD_IN.match(sentence)):
            break  # ("Here's the timeline:" says what comes: the line after it too)
    return tx.cut(said, GIST_CHARS).rstrip() if said else ""


_ITEM = tx.lazy(r"^(?:[-*+]|\d+[.)])\s+")


def _code_after_colon(paragraphs: list[str]) -> list[str]:
    """A sentence that ends "…with:" before a code block keeps the code's first
    line, inline: a gist drops code, and would leave the colon dangling."""
    out: list[str] = []
    for p in paragraphs:
        if p.lstrip().startswith(("```", "~~~")) and out and out[-1].rstrip().endswith(":"):
            lines = [ln.strip().replace("`", "") for ln in p.strip().splitlines()[1:]]
            first = next((ln for ln in lines if ln and not ln.startswith(("```", "~~~"))), "")
            if first:
                out[-1] = f"{out[-1].rstrip()} `{first}`"
                continue
        out.append(p)
    return out


# A sentence that only announces what Claude is about to do or say ("Let me
# explain.", "Now let me provide a summary response…", "Here's what I found:"):
# a gist made of it alone stops before the answer. ("I'll…", "Let's…" are
# often the answer itself: a decision.)
_LEAD_IN = tx.lazy(
    r"(?i)^(?:(?:ok(?:ay)?|now|so|great|good|perfect|alright|first|finally)[,!.]?\s+)*"
    r"(?:let me|here(?:['’]s| is| are)|below is)\b")


_INTERJECTION = tx.lazy(
    r"(?i)^(?:ok(?:ay)?|now|so|great|good|perfect|alright|excellent|got it|done)\W*$")


def _sentences(paragraph: str) -> list[str]:
    return [s for s in tx.rx(r"(?<=[.!?:])\s+").split(paragraph.strip()) if s]


def _only_lead_in(paragraph: str) -> bool:
    """Whether every sentence of a paragraph of words only announces what
    follows (`Now let me provide a summary response to clarify it.`)."""
    said = [s for s in _sentences(paragraph.replace("**", "")) if not _INTERJECTION.match(s)]
    return bool(said) and all(_LEAD_IN.match(s) for s in said)


def _is_heading(paragraph: str) -> bool:
    return paragraph.lstrip().startswith("#")


_CUT = tx.lazy(r"\[cut at [\d,]+ characters\]")  # (fold.context: the rest was not kept)


def _announces(paragraphs: str) -> bool:
    """Whether a gist ends on a colon: what it announces is not in it."""
    return paragraphs.rstrip(" *_").endswith(":")


def _concludes(paragraph: str) -> bool:
    """A paragraph of words that can close an answer: not a list, table, code
    or heading, neither a question nor another announcement, nor cut short."""
    p = paragraph.strip()
    return bool(p) and not _is_heading(p) and not _ITEM.match(p) and not _CUT.search(p) \
        and "```" not in p and "~~~" not in p and not p.startswith(("|", "    ")) \
        and not _announces(p) and not p.rstrip(" *_").endswith("?")


def gist(answer: str) -> str:
    """An answer's first paragraph of words (at most GIST_CHARS, no code), and
    an ellipsis when Claude said more. A paragraph that only announces the
    answer ("Now let me provide a summary response.") gives way to the one
    after it; one that ends with a colon keeps what follows it (the sentence
    under a heading when that is a heading): the gist says the answer."""
    whole = answer.strip()
    words = [p for p in _code_after_colon(whole.split("\n\n")) if p.strip()
             and not p.lstrip().startswith(("```", "|", "    "))]
    while len(words) > 1 and not _is_heading(words[0]) and _only_lead_in(words[0]) \
            and not words[0].rstrip().endswith(":"):
        words = words[1:]  # "Now let me sum up." then the answer
    first = words[0] if words else ""
    if _is_heading(first):
        # `## ✅ Feature Complete`: a heading names the answer; the sentence
        # under it says what was done.
        under = under_heading(words)
        if under:
            return under if under == whole else under + " …"
    if first.endswith(":") and len(words) > 1:
        # "Here is what I found:" says little alone; "Let me explain:" before a
        # heading, nothing: the sentence under the heading says it.
        under = under_heading(words[1:]) if _is_heading(words[1]) else ""
        if under:
            # The heading's words stay: without them what it heads reads as
            # what the colon announced ("There are two separate things:
            # Nothing.", review 30 #10: bb5159a3's heading "What travels with
            # `git push` automatically" was dropped).
            head = words[1].strip().split("\n", 1)[0].lstrip("#").strip().strip("*").strip()
            first += f" {head} — {under}" if head else " " + under
        elif not _is_heading(words[1]):
            first += "\n\n" + words[1]
    first = first.split("```", 1)[0].rstrip()  # never half a code block
    if _announces(first):
        # Still only announcing ("Let me trace through it:", then "The
        # states would have been:" and a walk-through): the answer's
        # conclusion, its last paragraph of words, says how it came out.
        told = len(first.split("\n\n"))
        last = next((p for p in reversed(words[told:]) if _concludes(p)), "")
        if last:
            first = f"{words[0]}\n\n… {last.strip()}"
    if len(first) > GIST_CHARS:
        first = tx.cut(first, GIST_CHARS).rstrip()
    if not first:
        return whole if len(whole) <= GIST_CHARS else "…"
    return whole if first == whole else first + " …"


# -- one line an action ----------------------------------------------------------


# A prompt's pasted log or JSON (a HAR file, a server's log): its first lines
# show what it was; the rest, up to the note's cut, buries the question asked
# around it (review 26 #4: 9e953218's ~200 quoted lines of a HAR before "Are
# you sure the HTML is the issue?"). Every word stays searchable.
PASTE_LINES = 12  # lines of no prose in a row that are a paste
PASTE_SHOWN = 4  # of them, shown
_PROSE_WORD = r"^[^\W\d_][^\W\d_'’\-]*[,.;:!?'’)]*$"
_NOTE_CUT = r"\s*…?\s*\[cut at [\d,]+ characters\]\s*$"


def _prose(line: str) -> bool:
    """A line of the user's own words: four words or more, most of them words."""
    words = line.split()
    if rx(r'^\s*(?:[{}\[\]]|"[^"]{0,200}"\s*:)').match(line):
        return False  # (JSON's: a brace, a key)
    return len(words) >= 4 and sum(1 for w in words if rx(_PROSE_WORD).match(w)) \
        >= 0.6 * len(words)


_JSON_OPENING = r'^(?:[{\[]|"[^"\n]{0,200}"\s*:)'
_MARKDOWN_LINE = r"^\s{0,3}(?:#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|```|>\s|---\s*$)"


def _pasted_what(run: list[str]) -> str:
    """What a paste is, from its lines: JSON when its first line that is not
    blank opens as JSON does; Markdown when lines of it are Markdown's
    (headings, items, fences, rules); else text. (A first line of spaces
    read as JSON: bb5159a3's pasted Markdown prompt, review 30 #8.)"""
    filled = [ln for ln in run if ln.strip()]
    if filled and rx(_JSON_OPENING).match(filled[0].strip()):
        return "JSON"
    marked = sum(1 for ln in filled if rx(_MARKDOWN_LINE).match(ln))
    return "Markdown" if marked >= max(2, len(filled) // 10) else "text"


def pasted_cut(prompt: str) -> str:
    """The prompt with each paste (a block between blank lines of PASTE_LINES
    lines or more, most of them no prose: a log, JSON) cut to its first
    PASTE_SHOWN lines and a line saying how many more there were ("… 190
    more lines of pasted JSON"); the user's own lines opening or closing
    the block are kept whole."""
    cut_at = rx(_NOTE_CUT).search(prompt)
    body = prompt[:cut_at.start()] if cut_at else prompt
    lines = body.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        # (a line of spaces is the paste's: a log alternates stamps, lines and those)
        if not lines[k].rstrip("\r"):
            out.append(lines[k])
            k += 1
            continue
        end = k
        while end < len(lines) and lines[end].rstrip("\r"):
            end += 1
        block = lines[k:end]
        first, last = 0, len(block)
        while first < last and _prose(block[first]):
            first += 1
        while last > first and _prose(block[last - 1]):
            last -= 1
        run = block[first:last]
        pasted = len(run) >= PASTE_LINES and sum(1 for ln in run if not _prose(ln)) \
            >= 0.5 * len(run)
        if not pasted:
            out.extend(block)
        else:
            what = _pasted_what(run)
            cut = " (the note keeps the prompt's first characters)" \
                if cut_at is not None and end == len(lines) and last == len(block) else ""
            # (a paste the note's cut ends: how many lines it had past the cut
            # is not known, only that there were more: review 30 #8)
            more = f"at least {len(run) - PASTE_SHOWN:,}" if cut else f"{len(run) - PASTE_SHOWN:,}"
            out.extend([*block[:first], *run[:PASTE_SHOWN],
                        f"… {more} more lines of pasted {what}{cut}",
                        *block[last:]])
            if cut:
                cut_at = None
        k = end
    text = "\n".join(out)
    return text + prompt[cut_at.start():] if cut_at else text


def _times(action: Action) -> Md:
    return md(" ×{}", action.times) if action.times > 1 else md("")


def _explore(action: Action, state: SessionState) -> Md:
    parts = []
    if action.reads:
        parts.append(plural(action.reads, "read"))
    if action.searches:
        parts.append(plural(action.searches, "search", "searches"))
    if action.listings:
        parts.append(plural(action.listings, "listing"))
    return md("Explored the codebase ({})", text(", ".join(parts)))


def _edit(action: Action, state: SessionState) -> Md:
    path = code(shown_path(action.text, state.fold.cwd))
    verb = "Created" if action.detail == "created" else "Edited"
    if action.status in ("failed", NOT_RUN) or action.status.startswith("denied"):
        return md("Tried to edit {} — {}", path, text(status_word(action.status, action.code)))
    if not action.status:
        return md("Editing {}", path)
    if action.times > 1:  # figures of several changes: said to be their sum, not each one's
        return md("{} {} ({} changes, +{} −{} in all)", text(verb), path, action.times,
                  action.added, action.removed)
    return md("{} {} (+{} −{})", text(verb), path, action.added, action.removed)


def _bash(action: Action, state: SessionState) -> Md:
    ms = state.durations.get(action.tool_id) if action.tool_id else None
    if ms is None:
        ms = action.ms
    took = f", {duration(ms)}" if ms is not None and ms >= 1000 else ""
    outcome = f"{status_word(action.status, action.code, action.detail)}{took}"
    said = tx.one_line(action.said, 120).rstrip(".")
    # A story line stays readable: the command gives way to Claude's words.
    room = ACTION_LINE_CHARS - len(said) - len(outcome) - 10
    shown = tx.one_line_command(runnable(action.text, state.fold.cwd), max(room, 50))
    command = code(shown)
    if said and not shown.strip():  # no words of the command left to show: its description
        return md("{} — {}", text(said), text(outcome))
    if said:  # Claude's own words for what the command was for
        return md("{}: {} — {}", text_before_colon(said), command, text(outcome))
    what = {"test": "Ran tests", "build": "Built"}.get(action.detail, "Ran")
    if not shown.strip():
        return md("{} a command — {}", text(what), text(outcome))
    return md("{} {} — {}", text(what), command, text(outcome))


def _agent(action: Action, state: SessionState) -> Md:
    desc = md(": {}", text(action.detail)) if action.detail else md("")
    st = md(" — {}", text(status_word(action.status, None) if action.status.startswith("denied")
                            else action.status)) \
        if action.status and action.status not in ("ok", "completed") else md("")
    calls = calls_of_task(state, action.tool_id) if action.status == "denied" else 0
    if calls:  # the user stopped it at work, not before it began
        st = md(" — stopped by the user after {}", text(plural(calls, "call")))
    sub = next((s for s in state.fold.subagents if action.tool_id and s.tool_id == action.tool_id),
               None)
    finished = sub is not None and bool(sub.status)
    if sub is not None and sub.status in (NOT_STARTED, SPAWNED):
        st = md(" — {}", text("did not start: its launch failed" if sub.status == NOT_STARTED
                              else "spawned as a teammate, working in a session of its own"))
    elif not action.status and not finished:  # its result never came, nor did it end its turn
        st = md(" — still at work") if state.status == "active" else \
            md(" — unfinished (no result)")
    elif sub is not None and sub.background:  # its end is its notification's, if any came
        st = md(" — in the background{}", md(", {}", text(
            "still running" if state.status == "active" else
            "still running when the transcript ends")) if sub.status == LAUNCHED else
            md(", {}", text(sub.status)) if sub.status != "completed" else md(""))
    return md("Delegated to subagent {}{}{}", emphasis(action.text), desc, st)


# Words of a report that say the subagent changed something.
_CLAIMS = (r"(?i)\b(?:fix(?:ed|es)?|updat(?:ed|es)|chang(?:ed|es)|modifi(?:ed|es)|creat(?:ed|es)"
           r"|add(?:ed|s)|implement(?:ed|s)|wrote|written|remov(?:ed|es)|delet(?:ed|es)"
           r"|refactor(?:ed|s)|renam(?:ed|es)|replac(?:ed|es)|edit(?:ed|s)|resolved)\b")


def _report(action: Action, state: SessionState) -> list[Md]:
    """Under a subagent's line: the gist of the report it finished with, as
    its words; and where those words claim a change the subagent made no edit
    for, that it changed no file (review 23 #1: df749439's subagent reported
    a fix it never made)."""
    subs = state.fold.subagents
    at = next((i for i, s in enumerate(subs) if action.tool_id and s.tool_id == action.tool_id),
              -1)
    if at < 0 or not subs[at].report:
        return []
    sub = subs[at]
    said = report_gist(str(sub.report))
    label = "*Its report:*"
    if rx(_CLAIMS).search(said) and not _made_edits(state, at):
        label = "*Its report (it changed no file):*"
    return indented(labelled_quote(label, said), "  ")


# A subagent's words on getting ready to report ("Now I have a comprehensive
# understanding.", "Let me compile my findings:"): not the report.
_READY = tx.lazy(r"(?i)^(?:(?:ok(?:ay)?|now|so|great|good|perfect|alright|excellent)[,!.]?\s+)*"
                 r"(?:i (?:now )?have (?:enough|all|everything|a (?:\w+ )?(?:understanding|picture|"
                 r"view)|comprehensive|the information)|let me|here(?:['’]s| is| are)|below is)\b")


def report_gist(report: str) -> str:
    """A subagent's report as its gist: past the paragraphs that only say it
    is ready to report ("Excellent! Now I have enough information. Let me
    compile my findings:"), what the report says first."""
    paragraphs = [p for p in report.strip().split("\n\n")
                  if p.strip() and p.strip() not in ("---", "***", "___")]  # (a rule)
    while len(paragraphs) > 1 and all(
            _INTERJECTION.match(x) or _READY.match(x)
            for x in _sentences(paragraphs[0].replace("**", ""))):
        paragraphs = paragraphs[1:]
    return gist("\n\n".join(paragraphs))


def _made_edits(state: SessionState, at: int) -> bool:
    """Whether the subagent of the Task at `at` edited a file or ran a command
    that may have (its file's work; an inline one's edit calls); unknown
    counts as made."""
    sub = state.fold.subagents[at]
    af = agents_of_tasks(state)[at]
    if af is not None and af.tool_calls:
        return bool(af.work.files or af.work.commands_run or af.work.unnamed)
    if sub.side_calls:
        return sub.side_edits > 0
    return sub.tool_calls > 0  # known only by its result's count: what it did is not


def _plan(action: Action, state: SessionState) -> Md:
    """A plan put to the user, and how it stands to the one put before it
    (fold.todos.against_last_plan)."""
    said = text({"approved": "Plan approved", "rejected": "Plan rejected"}.get(
        action.status, "Proposed a plan"))
    if not action.text:
        return said
    when = hhmm(action.text)
    earlier = md("the plan of {}", text(when)) if when else md("the plan above")
    if not action.added and not action.removed:
        return md("{} ({}, unchanged)", said, earlier)
    return md("{} ({} from {})", said, text(_lines_changed(action)), earlier)


def _lines_changed(action: Action) -> str:
    unit = 'line' if action.added + action.removed == 1 else 'lines'
    return f"+{action.added} −{action.removed} {unit}"


def _plan_shown_whole(action: Action) -> bool:
    """Whether a plan action's detail is the plan itself (else the lines it
    changed from the plan before it)."""
    return action.status == "approved" or not action.text


def _plan_text(action: Action) -> list[Md]:
    """Under a plan's line, folded: the plan, or what changed in it."""
    if _plan_shown_whole(action):
        return [md("  > [!abstract]- The plan"), *indented(quote(action.detail), "  ")]
    head = md("  > [!abstract]- What changed ({})", text(_lines_changed(action)))
    diff = "\n".join(fenced(action.detail, "diff"))
    return [head, *indented(quote(diff), "  ")]


def _plan_file(action: Action, state: SessionState) -> Md:
    """Claude Code's plan file written or edited (told as the plan, not a file
    of the project)."""
    verb = "Wrote the plan" if action.detail == "Write" else "Edited the plan"
    if action.status in ("failed", NOT_RUN) or action.status.startswith("denied"):
        return md("{} — {}", text("Tried to write the plan" if action.detail == "Write" else
                                  "Tried to edit the plan"),
                  text(status_word(action.status, action.code)))
    return md("{}{}", text(verb), _times(action))


def _question(action: Action, state: SessionState) -> Md:
    if action.status == "failed":  # never put to the user ("No such tool available")
        return md("Tried to ask: “{}” — failed",
                  text(tx.one_line(action.text, ACTION_LINE_CHARS - 30)))
    asked = tx.one_line(action.text, 110 if action.detail else ACTION_LINE_CHARS - 15)
    ans = md(" → {}", strong(tx.one_line(action.detail, ACTION_LINE_CHARS - len(asked) - 25))) \
        if action.detail else md("")
    # A choice of the dialog, not an answer: Claude Code's text sent with it
    # is its instructions to Claude, never told as the user's words.
    chose = md(" — {}", text(DIALOG_CHOICES[action.status])) \
        if action.status in DIALOG_CHOICES else md("")
    return md("Asked: “{}”{}{}", text(asked), ans, chose)


DIALOG_CHOICES = {CLARIFY: "you chose to clarify Claude's questions",
                  FINISH_PLAN: "you told Claude to stop asking and finish the plan"}


# How each kind of action is told, by the action's kind; a kind not here is
# not told: "tools" (ToolSearch, Claude Code loading the schemas of tools it
# defers) is the client's plumbing, not work the user asked for (review 17,
# finding 17: three "Loaded the tools …" lines in one story).
DESCRIBE: dict[str, Callable[[Action, SessionState], Md]] = {
    "explore": _explore,
    "edit": _edit,
    "bash": _bash,
    "agent": _agent,
    "plan": _plan,
    "plan-file": _plan_file,
    "question": _question,
    "fetch": lambda a, state: md("Fetched {}{}", text(a.text), _times(a)),
    "search": lambda a, state: md("Searched the web for “{}”", text(a.text)),
    "skill": lambda a, state: md("Ran the {} skill", code(a.text)),
    "slash": lambda a, state: md("Ran {}{}", code(a.text), md(
        " — {}", text(tx.one_line(a.detail, 120))) if a.detail else md("")),
    # "Claude Opus 4 limit reached, now using Sonnet 4"
    "model": lambda a, state: text(tx.one_line(a.text, ACTION_LINE_CHARS)),
    "interrupt": lambda a, state: md("Interrupted by the user{}", _times(a)),
    # a message from an agent team's member (its notice's state, its words)
    "teammate": lambda a, state: _teammate(a, str(state.fold.teammate)),
    # a Stop hook blocked Claude's stop: what came next in the turn is why
    "stop-hook": lambda a, state: md("A Stop hook{} kept Claude going{}", md(
        " ({})", code(a.detail)) if a.detail else md(""), md(": “{}”", text(a.text))
        if a.text else md("")),
    "tool": lambda a, state: md("Used {}{}{}", text(a.text), md(": {}", text(a.detail))
                                if a.detail else md(""), _times(a)),
}


# A teammate's notice, by its type (fold.story keeps it without "_notification",
# "_" said as " "), in a sentence that fits it (review 30 #13: "is teammate
# terminated", "is shutdown approved"); another type is named as sent.
TEAMMATE_STATES = {
    "idle": "is idle",
    "shutdown request": "was asked to shut down",
    "shutdown approved": "agreed to shut down",
    "shutdown rejected": "declined to shut down",
    "teammate terminated": "has shut down",
    "plan approval request": "asks the lead to approve its plan",
    "plan approval response": "answered a plan approval",
    "task completed": "completed a task",
}
# The sender of the team's own notices ("dev-alice has shut down."): no teammate.
TEAM_SYSTEM = "system"


def _teammate(a: Action, own: str = "") -> Md:
    """A message from an agent team: who (a teammate, or the team's own
    notice), the state it reports or that it wrote, when, and its words."""
    at = md(" at {}", text(hhmm(a.ts))) if a.ts else md("")
    words = md(": “{}”", text(a.detail)) if a.detail else md("")
    state = str(a.said)
    if str(a.text) == TEAM_SYSTEM:
        return md("Agent team notice{}{}", at, words if a.detail else md(
            ": {}", text(state)) if state else md(""))
    if state == TASK_ASSIGNMENT:
        # The sender gave the task to the session whose note this is (review
        # 32 #21: "Teammate *team-lead* was assigned a task" said the reverse).
        task = md(" {}", text(a.detail)) if a.detail else md("")
        if own and str(a.text) == own:
            return md("Took task{} at {}", task, text(hhmm(a.ts))) if a.ts else \
                md("Took task{}", task)
        return md("{} assigned task{}{}", emphasis(a.text), task, at)
    told = TEAMMATE_STATES.get(state)
    doing = (md(" {}", text(told)) if told else md(" sent a “{}” notice", text(state))
             if state else md(" wrote"))
    return md("Teammate {}{}{}{}", emphasis(a.text), doing, at, words)


def describe(action: Action, state: SessionState) -> Md:
    """One line for an action, as a person would say it."""
    tell = DESCRIBE.get(action.kind)
    return tell(action, state) if tell is not None else md("")
