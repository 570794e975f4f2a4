"""The other tools, each in a word of the story: exploring (Read, Grep, Glob,
LS), the web, questions to the user, skills, MCP and any tool not known yet."""

from __future__ import annotations

from vibe_vault.entries import ToolInput, decode_raw
from vibe_vault.fold.context import EXPLORE, CallEnd, Context
from vibe_vault.redact import Redacted
from vibe_vault.state import READ_KEY, URL_KEY, Action, Pending
from vibe_vault.text import rx

EXPLORE_READ = frozenset({"Read", "NotebookRead"})
SECRETS_FILE = "secrets-file"
# Files whose every value is a secret: .env (not .env.example), credentials,
# .netrc, .pgpass, .npmrc, .pypirc, key files, docker's and kubectl's configs.
_SECRETS_FILE = (r"(?i)(?:^|[/\\])(?:\.env(?:\.(?!example|sample|template|dist)[\w.]+)?"
                 r"|credentials(?:\.\w+)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials"
                 r"|secrets?\.(?:json|ya?ml|toml|env)|[^/\\]*\.(?:pem|key)"
                 r"|\.docker[/\\]config\.json|\.kube[/\\]config|g?shadow-?)$")
# `NAME=value`, `name: value`, `password value` (netrc): the value.
_KEY_VALUE = (r"(?m)^\s*(?:export\s+)?([\w.\-]+)\s*(?:=|:|\s)\s*"
              r"([^\s#][^\n#]*?)\s*(?:#.*)?$")
URL_CHARS = 300
EXPLORE_SEARCH = frozenset({"Grep", "Glob", "LSP"})
EXPLORE_LIST = frozenset({"LS"})
# Tools that leave nothing to tell in the story (their effect is told elsewhere).
QUIET_TOOLS = frozenset(
    {"TodoWrite", "TodoRead", "BashOutput", "KillShell", "KillBash", "TaskList", "TaskGet",
     "TaskOutput", "AgentOutputTool", "TaskStop", "TaskCreate", "TaskUpdate"}
)


def on_read(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    path = str(inp.file_path or "")
    if rx(_SECRETS_FILE).search(path):
        call.git = SECRETS_FILE  # its result is read for values to keep out of the note
    if path:
        call.file = ctx.name(path, 300)  # a file known to be there (fold.files.on_listed)
        if ctx.facts.links:  # (read through a link the session made: its target's lines)
            call.file = ctx.facts.links.get(call.file, call.file)
        # (what an error names: a Read of a file that is not there)
        call.key = Redacted(READ_KEY + call.file)
        call.whole = inp.offset in (None, 0, 1) and inp.limit is None
    return Action(kind=EXPLORE, reads=1, ts=timestamp), True


def on_read_result(ctx: Context, call: Pending, action: Action | None,
                   outcome: CallEnd) -> None:
    """A file of secrets (`.env`, credentials, `.netrc`…) Claude read: each of its
    values is learned, so it is kept out wherever it comes back in the session."""
    result = outcome.result
    if call.git != SECRETS_FILE or result is None or not result.file:
        return
    read = decode_raw(result.file)
    content = read.get("content") if isinstance(read, dict) else None
    if not isinstance(content, str):
        return
    learn_file(ctx, content)


def is_secrets_file(path: str) -> bool:
    return bool(rx(_SECRETS_FILE).search(path))


def learn_file(ctx: Context, content: str) -> None:
    """Each value of a file of secrets, read or written, is learned; a key
    file's long lines too (`learn` takes the pieces of a long text)."""
    content = content[:200_000]
    values = [m.group(2).strip().strip("'\"") for m in rx(_KEY_VALUE).finditer(content)]
    if len(content) > 40 and "\n" in content.strip():
        values.append(content)
    ctx.learn([v for v in values if v])


def on_search(ctx: Context, call: Pending, inp: ToolInput,
              timestamp: str) -> tuple[Action | None, bool]:
    return Action(kind=EXPLORE, searches=1, ts=timestamp), True


def on_list(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    return Action(kind=EXPLORE, listings=1, ts=timestamp), True


def on_fetch(ctx: Context, call: Pending, inp: ToolInput,
             timestamp: str) -> tuple[Action | None, bool]:
    url = str(inp.url or "")
    host = url.split("://", 1)[-1].split("/", 1)[0]
    if url:
        call.key = Redacted(URL_KEY + ctx.line(url, URL_CHARS))  # what its error names
    return Action(kind="fetch", text=ctx.line(host, 100), ts=timestamp), True


def on_web_search(ctx: Context, call: Pending, inp: ToolInput,
                  timestamp: str) -> tuple[Action | None, bool]:
    return Action(kind="search", text=ctx.line(str(inp.query or ""), 120), ts=timestamp), False


def on_tool_search(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    """Claude loading the definitions of deferred tools: `select:A,B` names them."""
    query = str(inp.query or "")
    if query.startswith("select:"):
        names = ", ".join(n.strip() for n in query[len("select:"):].split(",") if n.strip())
        return Action(kind="tools", text=ctx.line(names, 120), ts=timestamp), False
    return Action(kind="tools", detail=ctx.line(query, 120), ts=timestamp), False


def on_question(ctx: Context, call: Pending, inp: ToolInput,
                timestamp: str) -> tuple[Action | None, bool]:
    questions = inp.questions
    question = str(inp.question or "")  # before 2.0.5x: one question, no list
    if isinstance(questions, list) and questions and isinstance(questions[0], dict):
        question = str(questions[0].get("question") or questions[0].get("header") or "")
    return Action(kind="question", text=ctx.line(question, 200), ts=timestamp), False


def on_answer(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    result = outcome.result
    if action is None or result is None:
        return
    answers = result.answers
    if isinstance(answers, dict) and answers:
        action.detail = ctx.line(str(next(iter(answers.values()))), 160)


def on_skill(ctx: Context, call: Pending, inp: ToolInput,
             timestamp: str) -> tuple[Action | None, bool]:
    what = str(inp.skill or inp.command or call.name)
    return Action(kind="skill", text=ctx.line(what, 80), ts=timestamp), False


def on_other(ctx: Context, call: Pending, inp: ToolInput,
             timestamp: str) -> tuple[Action | None, bool]:
    """Any other tool: `mcp__server__tool` as "server: tool", others by name."""
    if call.name in QUIET_TOOLS:
        return None, False
    label = call.name
    if label.startswith("mcp__"):
        parts = label.split("__")
        # Parts of a name that passed the gate.
        label = Redacted(f"{parts[1]}: {parts[-1]}") if len(parts) >= 3 else label
    # What the call was for, when the tool says (PowerShell, as Bash does).
    what = inp.description if isinstance(inp.description, str) else ""
    if call.name == SEND_MESSAGE:
        what = sent_message(inp)
    return Action(kind="tool", text=ctx.line(label, 80), detail=ctx.line(what, 120),
                  ts=timestamp), True


SEND_MESSAGE = "SendMessage"  # an agent team's messages (2.1.3x)


def sent_message(inp: ToolInput) -> str:
    """What a SendMessage said, and to whom (review 32 #26: "Used SendMessage
    ×2" hid the lead's words to its teammates): its summary, else its words'
    first line; a shutdown asked or answered as such."""
    kind = inp.type if isinstance(inp.type, str) else ""
    to = inp.recipient if isinstance(inp.recipient, str) else ""
    if kind == "shutdown_request":
        return f"asked {to} to shut down" if to else "asked a teammate to shut down"
    if kind == "shutdown_response":
        return "agreed to shut down" if inp.approve is True else "declined to shut down"
    content = decode_raw(inp.content) if inp.content else None
    said = inp.summary if isinstance(inp.summary, str) and inp.summary.strip() else \
        content if isinstance(content, str) else ""
    said = " ".join(said[:600].split())
    whom = "the whole team" if kind == "broadcast" else to
    return f"to {whom}: “{said}”" if whom and said else f"to {whom}" if whom else \
        f"“{said}”" if said else ""
