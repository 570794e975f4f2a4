"""Commands run with Bash: what they were (test, build, other), how they
ended, how long they took. Feeds the story and the note's Commands section;
their output goes on to `git` for commits, pushes and PRs."""

from __future__ import annotations

from bisect import bisect_left
from functools import cache

import msgspec

from vibe_vault import text as tx
from vibe_vault.entries import Entry, ToolInput
from vibe_vault.fold import files, todos, verdicts
from vibe_vault.fold.context import CallEnd, Context
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, Command, Pending
from vibe_vault.text import rx

MAX_COMMANDS = 100  # as many as the note shows
COMMAND_CHARS = 240

_EXIT_CODE = r"^Exit code (-?\d+)"
# A command's own usage text, printed instead of doing anything (arguments it
# did not take): its first line says so (`usage: git [-v | --version] …`,
# `Usage: grep [OPTION]…`, Go's `Usage of ./tool:`).
_USAGE = r"\A\s*(?:usage|Usage|USAGE)(?::| of \S+:)"
# Asked for it: `--help`, `-h`, `-?`, `help` as a word of its own.
_ASKS_HELP = r"(?:^|\s)(?:--help|-h|-\?|-help|--usage|help)(?=\s|$|[;&|)])"
USAGE = "usage"  # a command's status: it printed its usage text, not asked for
# A command's status: it ran and its tool marked no error, but it printed an
# error record (PowerShell carries on after one): neither "ok" nor "failed".
PRINTED_ERROR = "printed error"
# A test command's status when it ran no test, though nothing failed: the
# runner found none ("no tests ran", "collected 0 items"), or what ran was not
# the runner (a usage error, a command not found, its status hidden by a pipe:
# ff36d868's `rtk bun run test 2>&1 | head -100`). Not a passing run.
NO_TESTS = "no tests"
NOT_RUN_TESTS = "tests not run"
# The status a line printed of the command before (`…; echo "exit: $?"`), as
# its last line: `exit: 2`, `Exit code: 129`, `rc=1`.
_ECHOED_STATUS = (r"(?im)^\s*(?:(?:exit(?: code| status)?|rc|status|code)\s*[:=]?\s*)?"
                  r"(\d{1,3})\s*\Z")
# Test runners, one a row: what a command says to run its tests (a task
# runner's `test` task counts, `mise run test:unit` too). A runner may be
# called by path (.venv/bin/pytest, vendor/bin/phpunit) or through another
# (`uv run pytest`, `poetry run pytest`, `bundle exec rspec`: the runner's own
# row finds it).
TEST_RUNNERS: tuple[str, ...] = (
    r"pytest", r"py\.test", r"python\d?(?:\.\d+)? -m (?:pytest|unittest)", r"tox", r"nox",
    r"hatch test",
    r"go test", r"cargo (?:test|nextest)", r"swift test", r"deno test", r"bun test",
    r"(?:npm|pnpm|yarn|bun)(?: run)? test", r"npx (?:jest|vitest)", r"jest", r"vitest",
    r"mocha",
    r"rspec", r"rake (?:test|spec)", r"phpunit", r"mix test", r"ctest",
    r"mvn(?: -\S+)* test", r"gradle test", r"\./gradlew test", r"dotnet test",
    r"make test", r"just test", r"task test", r"mise (?:run )?test",
    r"act\b[^;&|\n]*\s-j\s*\S*test",  # a CI workflow's test job, run locally (nektos/act)
)
_TEST_CMD = r"(?:^|[\s;&|(/])(?:" + "|".join(TEST_RUNNERS) + r")\b"
_BUILD_CMD = (
    r"(?:^|[\s;&|(/])(?:cargo build|go build|npm run build|pnpm (?:run )?build|yarn build"
    r"|make(?:\s|$)|cmake --build|mvn (?:package|install)|gradle build|tsc\b|python -m build"
    r"|uv build|docker build|vite build|next build)"
)
# A package manager's install of packages (`pip install respx pytest-asyncio`,
# `npm i -D vitest`): the runners it names are packages it installs, not a run
# (review 30 #14: c461850b's "Install test dependencies" said "passed").
_INSTALLS = (
    r"(?:^|(?<=[;&|(\n]))[ \t]*+(?:sudo[ \t]++)?(?:[A-Za-z_]\w*+=\S*+[ \t]++)*+"
    r"(?:\S*/)?(?:pip3?|python\d?(?:\.\d+)? -m pip|uv pip|uv add|uv tool install|poetry add"
    r"|pipx install|conda install|mamba install|(?:npm|pnpm|bun) (?:i|install|add)"
    r"|yarn (?:global )?add|cargo (?:install|add)|go (?:install|get)|gem install"
    r"|brew install|apt(?:-get)? install)\b[^;&|\n]*+")
# Every alternative of the patterns above contains one of these: most commands
# (git, ls, cat, grep) are classified without running a regex.
_TEST_HINTS = ("test", "tox", "nox", "jest", "mocha", "spec", "phpunit")
_BUILD_HINTS = ("build", "make", "tsc", "mvn")


# PowerShell's error records, as it prints them: PowerShell 7's concise view
# heads each with the error's category (the ErrorCategory names), the command
# that failed (`Get-Item: …`) or the exception's type, then `: `; Windows
# PowerShell's normal view adds `+ CategoryInfo :` and `+ FullyQualifiedErrorId :`
# lines. PowerShell carries on after such an error (and the tool says no
# error), so the call printed one although it "ran".
_PS_CATEGORIES = (
    "NotSpecified|OpenError|CloseError|DeviceError|DeadlockDetected|InvalidArgument"
    "|InvalidData|InvalidOperation|InvalidResult|InvalidType|MetadataError|NotImplemented"
    "|NotInstalled|ObjectNotFound|OperationStopped|OperationTimeout|SyntaxError|ParserError"
    "|PermissionDenied|ResourceBusy|ResourceExists|ResourceUnavailable|ReadError|WriteError"
    "|FromStdErr|SecurityError|ProtocolError|ConnectionError|AuthenticationError"
    "|LimitsExceeded|QuotaExceeded|NotEnabled")
_PS_ERROR_RECORD = (r"(?m)^(?:\x1b\[[0-9;]*m)*(?:(?:" + _PS_CATEGORIES +
                    r"|[A-Z][a-z]+-[A-Z][A-Za-z]+|(?:[A-Z][A-Za-z.]*)?Exception): \S"
                    r"|\s*\+ (?:CategoryInfo|FullyQualifiedErrorId)\s*: ).*")
_ANSI = r"\x1b\[[0-9;?]*[A-Za-z]"  # PowerShell 7 colours its records
# A native program's stderr line (git's progress, a warning) that Windows
# PowerShell wrapped as a record: no error of the command's.
_PS_NATIVE_STDERR = ("NativeCommandError", "RemoteException")


def powershell_error(output: str) -> str:
    """The output from its first error record on ("" when it holds none, a
    native program's stderr wrapped as one aside)."""
    if ": " not in output:
        return ""
    for m in rx(_PS_ERROR_RECORD).finditer(output):
        if not any(w in m.group() for w in _PS_NATIVE_STDERR):
            # the normal view's record opens two lines above its CategoryInfo
            start = m.start()
            if m.group().lstrip().startswith("+"):
                above = output.rfind("\nAt line:", 0, start)
                start = output.rfind("\n", 0, above) + 1 if above >= 0 else start
            return rx(_ANSI).sub("", output[start:])
    return ""


# A message given on the command line (`git commit -m "…"`, `gh pr create
# --body '…'`) or as a here-document (`-F - <<'MSG'`, `"$(cat <<'EOF' … EOF)"`):
# words, not commands. A commit whose message says "pytest" runs no tests.
_QUOTED_MESSAGE = (r"(?:^|\s)(?:-m|-F|--message|--body|--title|--notes)(?:\s+|=)"
                   r"(?:\"(?:[^\"\\]|\\.)*\"|'[^']*')")
_HEREDOC_OPENER = r"<<-?\s*+['\"]?(\w++)['\"]?"
_HEREDOC_END = r"(?m)^[ \t]*+(\w++)[ \t]*+\r?$"


def without_messages(command: str) -> str:
    """`command` without the messages it passes (see _QUOTED_MESSAGE)."""
    if "-" in command and ("\"" in command or "'" in command):
        command = rx(_QUOTED_MESSAGE).sub(" -m ''", command)
    if "<<" in command:
        command = without_heredocs(command)
    return command


def without_heredocs(command: str) -> str:
    """`command` with each here-document's body and end line left out
    (`cat <<'EOF'⏎…⏎EOF` reads `cat <<EOF`): see `heredocs`."""
    out: list[str] = []
    last = 0
    for opener, word, _, end in heredocs(command):
        out += [command[last:opener], "<<", word]
        last = end
    return "".join(out) + command[last:] if out else command


def heredoc_bodies(command: str) -> list[tuple[int, int]]:
    """Where each here-document's body (and end line) is in `command`."""
    return [(start, end) for _, _, start, end in heredocs(command)]


def heredocs(command: str) -> list[tuple[int, str, int, int]]:
    """Each here-document of `command`: where its opener starts, its word,
    where its body starts and where its end line ends. The body runs from
    the line after its opener to the first line after it that holds only the
    opener's word; one with no such line is none. In one pass: a pattern
    looking for each opener's end from the opener ran to the text's end and
    back for each unended one (a command of `cat > f <<EOF` lines, 32 kB,
    took seconds)."""
    ends: dict[str, list[tuple[int, int]]] = {}
    for m in rx(_HEREDOC_END).finditer(command):
        ends.setdefault(m.group(1), []).append(m.span())
    found: list[tuple[int, str, int, int]] = []
    last = newline = 0
    for m in rx(_HEREDOC_OPENER).finditer(command):
        if m.start() < last:
            continue  # (inside a body already left out)
        if newline < m.end():
            newline = command.find("\n", m.end())
            if newline < 0:
                break
        spans = ends.get(m.group(1), [])
        at = bisect_left(spans, (newline + 1, -1))
        if at == len(spans):
            continue
        last = spans[at][1]
        found.append((m.start(), m.group(1), newline + 1, last))
    return found


def kind_of(command: str) -> str:
    """test, build or command (what it runs: not the words of a message it
    passes)."""
    command = without_messages(command)
    low = command.lower()
    if _mentions(low, _TEST_HINTS) and rx(_TEST_CMD).search(
            rx(_INSTALLS).sub(" ", command)):
        return "test"
    if _mentions(low, _BUILD_HINTS) and rx(_BUILD_CMD).search(command):
        return "build"
    return "command"


def on_call(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    # (loaded by the first shell command a process meets: a turn with none
    # runs nothing of theirs)
    from vibe_vault.fold import git, looks, retries, shell_secrets

    facts = ctx.facts
    command = str(inp.command or "")
    # Only the first line is shown: a heredoc's body need not be scanned.
    text = ctx.text(tx.cut(command, COMMAND_CHARS * 4), None)
    # Cut from a text that passed the gate: still redacted.
    shown = Redacted(shorten(text, ctx.facts.cwd))
    kind = kind_of(command)
    call.key = Redacted("cmd:" + " ".join(text.split()))
    # What it is for, when another spelling would do the same (`-v`, `--tb=…`
    # of a test run; a pull request retried with another base): its success
    # mends their failures too (review 22 #11). Through the gate, as the key.
    aim = retries.purpose(command, str(facts.branch)) or retries.fix_purpose(command)
    if aim:
        call.purpose = ctx.cleaned_line(aim, retries.PURPOSE_CHARS)[0]
    call.command_no = facts.commands_dropped + len(facts.commands)
    facts.commands_run += 1
    if call.name != "Bash" or not looks.only_looks(command):
        facts.may_write += 1
        facts.unwatched = facts.unwatched or inp.run_in_background is True
    facts.commands.append(Command(command=shown, kind=kind, ts=timestamp, tool_id=call.tool_id))
    if len(facts.commands) > MAX_COMMANDS:
        del facts.commands[0]
        facts.commands_dropped += 1
    git.note_command(ctx, call, command)
    if verdicts.masked(command):
        call.masked = kind
    call.test = kind == "test"
    call.asks_help = bool(rx(_ASKS_HELP).search(command))
    if call.name == "Bash":
        call.shell_files = files.shell_writes(ctx, command)
    # `cat .env`, `env`, `gh auth token`…: what it prints is learned from its result.
    call.prints_secrets = shell_secrets.kind(command)
    if inp.run_in_background is True:
        call.background = True
    said = ctx.line(str(inp.description), 160) if isinstance(inp.description, str) else ""
    # Claude said, just before or in the call's description, that it is to fail.
    call.expects_failure = facts.expects_failure or verdicts.expects_failure(
        str(inp.description or "")[:400])
    call.tries_error_case = facts.tries_error_case or verdicts.tries_error_case(
        str(inp.description or "")[:400])
    return Action(kind="bash", text=shown, detail=Redacted(kind), ts=timestamp,
                  tool_id=call.tool_id, said=Redacted(said)), False


# -- how long a command ran ----------------------------------------------------------------
# A tool result's time minus its call's includes any wait for the user to
# allow the command. It is shown as the command's run time only on evidence
# that it is one: the client's own progress lines (their elapsed seconds say
# when the command started), a mode that never asks, a time too short to
# hold much of a wait, or a run time the tool printed that the gap agrees with.
AUTO_APPROVED = frozenset({"bypassPermissions"})
PERMISSION_MODES = frozenset({"default", "acceptEdits", "plan", "bypassPermissions", "auto",
                              "dontAsk", "ask"})
QUICK_MS = 10_000  # a gap this short is shown: any wait in it is a few seconds at most
PROGRESS_AFTER_MS = 3_500  # a client writing progress lines writes one by then
# A command begins to run this soon after its call unless a permission prompt
# held it (its first progress line's elapsed time says when it began).
PRE_RUN_S = 1.0
SHELLS = ("Bash", "PowerShell")  # tools that run a command line: told and counted alike
# A run time the tool itself printed: (pattern, the unit of its first group;
# "m" is minutes and seconds).
REPORTED_TIMES: tuple[tuple[str, str], ...] = (
    (r"=+ .*\bin (\d+(?:\.\d+)?)s\b.*=+\s*$", "s"),  # pytest
    (r".*\bFinished in (\d+(?:\.\d+)?) ?s(?:econds)?\b", "s"),  # mise, rspec
    (r"Time:\s+(\d+(?:\.\d+)?) ?s\b", "s"),  # jest
    (r"\s*Duration\s+(\d+(?:\.\d+)?)s\b", "s"),  # vitest
    (r"Ran \d+ tests? in (\d+(?:\.\d+)?)s", "s"),  # unittest
    (r"real\s+(\d+m\d+(?:\.\d+)?)s", "m"),  # `time`
    # Of a part only (a package, the build before the tests): less than the run.
    (r"(?:ok|FAIL)\s+\S+\s+(\d+(?:\.\d+)?)s\s*$", "s"),  # go test, a package
    (r"\s*Finished .*\bin (\d+(?:\.\d+)?)s\s*$", "s"),  # cargo
    (r"test result: .*finished in (\d+(?:\.\d+)?)s", "s"),  # cargo test
)
WHOLE_RUN_TIMES = 6  # the first of REPORTED_TIMES: a tool's count of its whole run


class _Progress(msgspec.Struct):
    type: str = ""
    elapsedTimeSeconds: float | int | None = None


@cache
def _progress() -> msgspec.json.Decoder[_Progress]:
    """(made when first needed: few clients write these lines)"""
    return msgspec.json.Decoder(_Progress)


def on_progress(ctx: Context, entry: Entry) -> None:
    """A `bash_progress` line (2.1.17-2.1.59): the client's own count of how
    long the command has run, so when it started, past any permission wait."""
    if not entry.parentToolUseID or b"bash_progress" not in bytes(entry.data):
        return
    ctx.facts.bash_progress = True
    call = ctx.facts.pending.get(ctx.key(entry.parentToolUseID))
    if call is None or not ctx.entry_epoch:
        return
    try:
        p = _progress().decode(entry.data)
    except msgspec.DecodeError:
        return
    elapsed = p.elapsedTimeSeconds
    if p.type == "bash_progress" and isinstance(elapsed, (int, float)) and elapsed >= 0:
        started = ctx.entry_epoch - float(elapsed)
        if not call.ran_at and started - call.called_at > PRE_RUN_S \
                and ctx.facts.permission_mode not in AUTO_APPROVED:
            # it waited for the user's permission from its call till then
            ctx.waited_from, ctx.waited_until = call.called_at, started
        call.ran_at = min(call.ran_at, started) if call.ran_at else started


def on_permission_mode(ctx: Context, entry: Entry) -> None:
    mode = entry.permissionMode or ""
    ctx.facts.permission_mode = mode if mode in PERMISSION_MODES else "other"


def run_ms(ctx: Context, call: Pending, gap_ms: int | None, output: str) -> int | None:
    """How long a shell command ran, or None when the time from its call to its
    result may be mostly a wait for the user's permission."""
    if call.ran_at and ctx.entry_epoch >= call.ran_at:
        return int((ctx.entry_epoch - call.ran_at) * 1000)
    if after_a_subagent(ctx, call):
        return None  # its result held back till a subagent's beside it: its run not told
    if ctx.facts.bash_progress and gap_ms is not None and gap_ms > PROGRESS_AFTER_MS:
        return None  # it ran under ~2 s (no progress line came): the rest was a wait
    if gap_ms is None or ctx.facts.permission_mode in AUTO_APPROVED:
        return gap_ms
    if gap_ms < QUICK_MS:
        return gap_ms
    told = reported_ms(output)
    if told is not None and gap_ms <= 2 * told + QUICK_MS:
        return gap_ms
    # The gap may hold a wait for the user's permission: the run's time is
    # the tool's own count of its whole run, where it printed one (a7da6a22's
    # pytest, "1 failed, 37 passed in 2.95s", its result 1 h 9 min after the call).
    return reported_ms(output, whole=True)


def after_a_subagent(ctx: Context, call: Pending) -> bool:
    """A command called while a subagent was at work, whose result comes
    after that subagent's: Claude Code delivers the results of calls made
    together at once, so the time to it may be the subagent's."""
    return any(key not in ctx.facts.pending for key in call.beside)


def waited_for_permission(ctx: Context, call: Pending, gap_ms: int | None) -> bool:
    """The time from a call to its result was mostly the user's answer to a
    permission prompt, on evidence: a file edit (it runs in milliseconds)
    taking over QUICK_MS where edits are asked for, or a command that got no
    progress line on a client writing them (it ran under PROGRESS_AFTER_MS)."""
    mode = ctx.facts.permission_mode
    if gap_ms is None or mode in AUTO_APPROVED or call.ran_at or after_a_subagent(ctx, call):
        return False
    if call.name in files.EDIT_TOOLS:  # asked for unless acceptEdits
        return mode != "acceptEdits" and gap_ms > QUICK_MS
    return call.name in SHELLS and ctx.facts.bash_progress and gap_ms > PROGRESS_AFTER_MS


def reported_ms(output: str, whole: bool = False) -> int | None:
    """The longest run time the tool printed (pytest's "in 2.95s", go's per
    package, cargo's, jest's …), None when it printed none. `whole`: only a
    count of the whole run (not go's of one package, cargo's of its build)."""
    if not output:
        return None
    text = output[-20_000:]
    found: list[float] = []
    for pattern, unit in REPORTED_TIMES[:WHOLE_RUN_TIMES] if whole else REPORTED_TIMES:
        for m in rx("(?m)^" + pattern).finditer(text):
            value = m.group(1)
            if unit == "m":
                minutes, _, seconds = value.partition("m")
                found.append(int(minutes) * 60 + float(seconds))
            else:
                found.append(float(value))
    return int(max(found) * 1000) if found else None


def printed_usage(call: Pending, output: str) -> str:
    """How a shell command that Claude Code says ran ended, when what it
    printed is its own usage text, not asked for: it did nothing it was asked
    (its exit 0, none recorded, or the line's status another command's), an
    error all the same: "failed" when the line printed its nonzero status
    (`…; echo "exit: $?"`), else USAGE. "" for any other output."""
    if call.asks_help or call.name != "Bash" or not output or \
            not rx(_USAGE).match(tx.strip_ansi(output)[:200]):
        return ""
    return "failed" if usage_code(call, output) else USAGE


def usage_code(call: Pending, output: str) -> int | None:
    """The nonzero status a line printed of a command that printed its usage."""
    if "$?" not in str(call.key) or not rx(_USAGE).match(tx.strip_ansi(output)[:200]):
        return None
    shown = rx(_ECHOED_STATUS).search(output[-200:])
    return int(shown.group(1)) or None if shown else None


def masked_status(call: Pending, output: str) -> str:
    """How a check whose exit status was 0 but not its own ended, by what it
    printed: a test run by its runner's counts, NO_TESTS or NOT_RUN_TESTS when
    it ran none; "failed" on a tool's failure marker; a test run "ok" only on
    a pass marker, else "unknown"; any other check "ok"."""
    if call.masked == "test":
        why = no_test_status(output)
        if why:
            return why
    verdict = verdicts.judge(output)
    if verdict == "failed":
        return "failed"
    return "unknown" if call.masked == "test" and verdict != "passed" else "ok"


def no_test_status(output: str) -> str:
    """NO_TESTS or NOT_RUN_TESTS when a test command's output says it ran no
    test, else ""."""
    why = verdicts.ran_no_test(output)
    return NO_TESTS if why == "no tests" else NOT_RUN_TESTS if why else ""


def on_result(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    from vibe_vault.fold import git, shell_secrets  # (see on_call)

    facts = ctx.facts
    status = outcome.status
    code: int | None = 0 if status == "ok" else None
    result = outcome.result
    stdout = ""
    if result is not None:
        stdout = str(result.stdout or "")
        if result.interrupted:
            status = "interrupted"
    for printed in {stdout, outcome.text}:
        if call.prints_secrets:
            shell_secrets.learn_output(ctx, call.prints_secrets, printed)
        # Any command's `name: value` under a secret's name (terraform's JSON,
        # a kubeconfig, `git credential fill`): attack 25, R5.
        shell_secrets.learn_named(ctx, printed)
    if status == "ok" and call.background:
        # Its result came as it started: it ran on, for as long as no one can tell here.
        status = "background"
    if status == "failed":
        m = rx(_EXIT_CODE).match(outcome.text)
        code = int(m.group(1)) if m else usage_code(call, stdout or outcome.text)
    if action is not None:
        action.code = code
        action.status = status
    i = call.command_no - facts.commands_dropped
    if 0 <= i < len(facts.commands) and facts.commands[i].tool_id == call.tool_id:
        row = facts.commands[i]
        row.status, row.code, row.ms = status, code, outcome.ms
        if row.kind == "test":
            counted = verdicts.tally(outcome.text or stdout)
            if counted is not None:
                row.failed, row.passed = counted
    # (what the line's status says ran: a check piped on that failed, or a
    # usage text, does not undo the line's other commands)
    line = "ok" if outcome.exit_ok and status in ("failed", "unknown", USAGE, PRINTED_ERROR,
                                                    NO_TESTS, NOT_RUN_TESTS) else status
    git.on_output(ctx, call, line, stdout or outcome.text, outcome.ts,
                  refused=outcome.push_refused)
    if result is not None and result.gitOperation is not None and status == "ok":
        git.on_git_operation(ctx, result.gitOperation)
    printed = outcome.text or (stdout + "\n" + str(result.stderr or "") if result is not None
                               and result.stderr else stdout)
    if printed:
        files.on_output(ctx, printed)
        if status not in ("denied", "background"):
            files.on_echoed(ctx, call, printed)
    if call.shell_files:
        files.on_shell_result(ctx, call, line, printed)
    if status == "background":
        todos.started_in_background(ctx, call, action, outcome)


_CD_PREFIX = r"^\s*cd\s+(\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*"
# Words that declare variables: `export A=1`, `local x`, `declare -r Y=2`.
_DECLARERS = frozenset({"export", "local", "readonly", "declare", "typeset"})
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_WORD_END = frozenset(" \t\n;&|()<>")


def _word_end(text: str, i: int, opened: str = "") -> int | None:
    """Where the shell word starting at `i` ends: quotes, `$(…)`, `${…}`,
    backquotes and escapes kept whole, across lines (`opened`: a part opened
    before `i`, an array's `(`); None when one of them is not closed (a
    command cut short). One pass, a stack of what is open."""
    stack: list[str] = list(opened)  # the closing character of each open part
    n = len(text)
    while i < n:
        ch = text[i]
        top = stack[-1] if stack else ""
        if top == "'":  # (nothing is special inside single quotes)
            if ch == "'":
                stack.pop()
            i += 1
            continue
        if ch == "\\":
            i += 2
            continue
        if top and ch == top:
            stack.pop()
            i += 1
            continue
        if top == '"':
            if text.startswith("$(", i):
                stack.append(")")
                i += 2
            elif text.startswith("${", i):
                stack.append("}")
                i += 2
            elif ch == "`":
                stack.append("`")
                i += 1
            else:
                i += 1
            continue
        if not stack and ch in _WORD_END:
            return i
        if ch == "'" or ch == '"' or ch == "`":
            stack.append(ch)
        elif text.startswith("$(", i) or (ch == "(" and stack):
            stack.append(")")
            i += 1 if ch == "(" else 2
            continue
        elif text.startswith("${", i):
            stack.append("}")
            i += 2
            continue
        i += 1
    return None if stack else n


def _blank(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _assignment(text: str, i: int, declared: bool) -> int | None:
    """Where `NAME=value` (or, after `export`/`local`/…, a bare `NAME` or a
    `-x` flag) starting at `i` ends; None when it is not one."""
    if i < len(text) and text[i] == "-" and declared:
        return _word_end(text, i)
    if i >= len(text) or text[i] not in _NAME_START:
        return None
    j = i + 1
    while j < len(text) and text[j] in _NAME_CHARS:
        j += 1
    if text.startswith("+=", j):
        j += 1
    if j < len(text) and text[j] == "=":
        if text.startswith("(", j + 1):  # (an array: `A=(one two)`)
            return _word_end(text, j + 2, ")")
        return _word_end(text, j + 1)
    return j if declared and (j == len(text) or text[j] in _WORD_END) else None


def _statement_end(text: str, i: int) -> int | None:
    """Where a statement of assignments only, starting at `i`, ends (past its
    `;`, `&&`, `||` or newline), or None when it is no such statement. A
    statement with a command after its assignments (`A=1 foo`) is a command;
    `A=$(…) || true` an assignment, its fallback included."""
    declared = False
    j = end = i
    if j >= len(text) or text[j] not in _NAME_START:
        return None
    k = j
    while k < len(text) and text[k] in _NAME_CHARS:
        k += 1
    if text[j:k] in _DECLARERS and k < len(text) and text[k] in " \t":
        declared, j = True, _blank(text, k)
    count = 0
    while True:
        end_of = _assignment(text, j, declared)
        if end_of is None:
            break
        count += 1
        end = end_of
        j = _blank(text, end)
    if not count or (j < len(text) and text[j] not in ";&|\n" and not declared):
        return None
    j = _blank(text, end)
    if j >= len(text) or text[j] == "\n":
        return j
    if text[j] == ";" and not text.startswith(";;", j):
        return j + 1
    if text.startswith("&&", j):
        return j + 2
    if text.startswith("||", j):
        # Its fallback (`|| true`, `|| echo none`): to the end of the line or list.
        k = j + 2
        while k < len(text) and text[k] not in "\n;&":
            if text[k] in "{(":
                return None
            k += 1
        if text.startswith("&&", k):
            return k + 2
        if k < len(text) and text[k] == "&":  # (`&`: run in the background, a command)
            return None
        return k + (1 if k < len(text) and text[k] == ";" else 0)
    return None


def after_assignments(text: str) -> int:
    """Where the first real command of a script starts: past blank lines,
    comments, `cd DIR` lines and statements that only set variables, of any
    shape (`A=1; B="x y" &&`, `X=$(go env X)`, `export`/`local`/`readonly`/
    `declare` ones, values over several lines); a `NAME=value` before a
    command on its line (`FOO=1 pytest`) too. Linear in the script."""
    i, n = 0, len(text)
    while i < n:
        i = _blank(text, i)
        if i >= n:
            break
        if text[i] == "\n":
            i += 1
            continue
        if text[i] == "#":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        m = rx(r"cd[ \t]+[^\s;&|]+[ \t]*(?:\n|$)").match(text, i)
        if m is not None:
            i = m.end()
            continue
        end = _statement_end(text, i)
        if end is not None:
            i = end
            continue
        # A command, maybe after `NAME=value` words of its own environment.
        j = i
        while True:
            w = _assignment(text, j, False)
            if w is None or w >= n or text[w] not in " \t" or \
                    _blank(text, w) >= n or text[_blank(text, w)] in ";&|\n":
                break
            j = _blank(text, w)
        return j
    return n


def shorten(command: str, cwd: str) -> str:
    """A command as a person recognises it: its first real command, after
    `cd <the session's folder> &&` and the statements that only set
    variables (`SP=/tmp/x; foo` is `foo`; `_UPD=$(…)` on a line of its own
    too: review 27 #12, d8103a9b's 20-line script was shown by it); cut to
    COMMAND_CHARS, with " …" when more lines follow. A pipe stays (`go test
    ./... 2>&1 | tail -30`): it decides what the command's exit status says."""
    text = command.strip()
    rest = text[after_assignments(text):]
    m = rx(_CD_PREFIX).match(rest)
    if m and cwd and m.group(1).strip("\"'").rstrip("/") == cwd.rstrip("/"):
        rest = rest[m.end():]
        rest = rest[after_assignments(rest):]
    if not rest.strip():  # (only assignments: shown as they are)
        rest = text
    first, _, more = rest.partition("\n")
    shown = tx.one_line_command(first.strip(), COMMAND_CHARS)
    if any(ln.strip() and not ln.lstrip().startswith("#") for ln in more.splitlines()) \
            and not shown.endswith("…"):
        shown += " …"
    return shown


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    # A plain loop, not any() over a generator, which costs more than the searches.
    for w in words:  # noqa: SIM110
        if w in text:
            return True
    return False
