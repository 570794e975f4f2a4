"""What a command is for, when a later command of another spelling does the
same: a failure "later succeeded" when one of the same purpose succeeds
(review 22 #11). Pure: a command line in, its purpose out ("" when none is
told, and then only the same command mends its failure).

Two classes, both narrow on purpose (a marker saying "later succeeded" when
nothing did is worse than none):
- a test run (pytest, `go test`, `cargo test`) with flags that change only
  what it prints, or when it stops after a failure (`-v`, `-q`, `-s`,
  `--tb=short`, `-x`…), piped to `tail`/`head` or not: the same tests, so
  one passing says the failure is mended; a flag that picks other tests
  (`-k`, `-m`, `--lf`, a path) or that this table does not know makes another
  purpose;
- `gh pr create` retried with another base, title, body or draft flag: a
  pull request from the same head branch (and repository) was made. Its
  purpose holds the branch the session is on, given by the caller.
A leading `cd DIR &&` and `VAR=value` assignments are part of the purpose
as written; anything else chained (`;`, `&&`, `||`, other pipes,
redirections) makes the command's purpose not told.
"""

from __future__ import annotations

from vibe_vault.text import lazy

PURPOSE_CHARS = 400
_WORDS = ("pytest", "py.test", "go test", "cargo test", "gh pr create")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ">", ">>", "<", ">&", "<<", "(", ")", ";;"})
# Runners of Python modules and scripts, before the test tool's own name.
_WRAPPERS = (("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"),
             ("hatch", "run"), ("rye", "run"))
_PYTHONS = frozenset({"python", "python3"})

# pytest's options that change only what it prints (or that it stops at the
# first failures: a run that passes with them passes without).
_PYTEST_FLAGS = frozenset({
    "-v", "-vv", "-vvv", "--verbose", "-q", "-qq", "--quiet", "-s", "-x", "--exitfirst",
    "-l", "--showlocals", "--no-header", "--no-summary", "--disable-warnings",
    "--disable-pytest-warnings"})
_REPORT = lazy(r"-r[fEsxXpPaAwN]+")  # `-rA`: which outcomes its summary lists
_PYTEST_VALUED = ("--tb", "--color", "--capture", "--durations", "--maxfail",
                  "--durations-min")
_PYTEST_CLUSTER = frozenset("vqsxl")  # `-xvs`: each letter one of these flags
_GO_FLAGS = frozenset({"-v", "-failfast", "-json"})
_GO_VALUED = ("-count",)
_CARGO_FLAGS = frozenset({"-q", "--quiet", "-v", "--verbose"})
_CARGO_VALUED = ("--color",)
# After cargo test's `--`: the test binary's own, output only.
_CARGO_HARNESS = frozenset({"--nocapture", "--show-output", "-q", "--quiet"})

# gh pr create's options that take a value; those that do not; a run that
# opens a browser or only tries makes no pull request.
_GH_VALUED = frozenset({"-t", "--title", "-b", "--body", "-F", "--body-file", "-B", "--base",
                        "-H", "--head", "-R", "--repo", "-a", "--assignee", "-l", "--label",
                        "-m", "--milestone", "-p", "--project", "-r", "--reviewer",
                        "-T", "--template"})
_GH_FLAGS = frozenset({"-d", "--draft", "-f", "--fill", "--fill-first", "--fill-verbose",
                       "--no-maintainer-edit"})
_GH_KEPT = {"-H": "--head", "--head": "--head", "-R": "--repo", "--repo": "--repo"}


def purpose(command: str, branch: str = "") -> str:
    """The purpose of `command` ("" when not told): equal for two commands
    exactly when a success of one mends a failure of the other. `branch`:
    the branch the session is on (a pull request's head when none is named)."""
    if not any(word in command for word in _WORDS):
        return ""  # (most commands: not split at all)
    split = _one_command(command)
    if split is None:
        return ""
    prefix, rest = split
    told = _test_run(rest)
    if told is None:
        told = _pull_request(rest, branch)
    if told is None:
        return ""
    import shlex

    said = shlex.join([*prefix, *told])
    return said if len(said) <= PURPOSE_CHARS and "\n" not in said else ""


def _tokens(command: str) -> list[str] | None:
    """The command's words and operators; None when it does not split (an
    unclosed quote)."""
    import shlex  # (here: a Stop of prose must not load it, test_hook_contract)

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def _one_command(command: str) -> tuple[list[str], list[str]] | None:
    """`command`'s leading prefix (`cd x &&`, assignments) and the words of
    its one command after it, without an output tail (`| tail`, `2>&1`);
    None when it does not split, or runs more than one command."""
    tokens = _tokens(command)
    if tokens is None:
        return None
    prefix, whole = _prefix(tokens)
    rest = _without_output_tail(whole)
    if rest is None or any(t in _OPERATORS for t in rest):
        return None
    return prefix, rest


def _prefix(tokens: list[str]) -> tuple[list[str], list[str]]:
    """Leading `cd DIR &&` steps and `VAR=value` words (kept as written), and the rest."""
    at = 0
    while at + 2 < len(tokens) and tokens[at] == "cd" and tokens[at + 2] == "&&":
        at += 3
    while at < len(tokens) and "=" in tokens[at] and tokens[at].split("=", 1)[0].isidentifier():
        at += 1
    return tokens[:at], tokens[at:]


def _without_output_tail(tokens: list[str]) -> list[str] | None:
    """The command without `2>&1` and a last `| tail …` / `| head …` (what
    it prints, not what it does); None when a pipe goes elsewhere."""
    out = list(tokens)
    if "|" in out:
        at = out.index("|")
        tail = out[at + 1:]
        if not tail or tail[0] not in ("tail", "head") or any(t in _OPERATORS for t in tail):
            return None
        out = out[:at]
    for i in range(len(out) - 2):
        if out[i:i + 3] == ["2", ">&", "1"]:
            return out[:i] + out[i + 3:] if i + 3 == len(out) else None
    return out


def _test_run(tokens: list[str]) -> list[str] | None:
    """A test run's words without those that change only its output; None
    when it is not one this module knows."""
    at = 0
    for wrapper in _WRAPPERS:
        if tuple(tokens[:2]) == wrapper:
            at = 2
            break
    head = tokens[at:]
    # (`python -m pytest` is kept apart from `pytest`: it puts the folder on
    # the import path, which may change what passes)
    runner = 3 if len(head) >= 3 and head[0].rsplit("/", 1)[-1] in _PYTHONS \
        and head[1] == "-m" and head[2] == "pytest" else \
        1 if head and head[0].rsplit("/", 1)[-1] in ("pytest", "py.test") else 0
    if runner:
        args = [t for t in head[runner:] if not _REPORT.fullmatch(t)]
        return [*tokens[:at + runner],
                *_kept(args, _PYTEST_FLAGS, _PYTEST_VALUED, _PYTEST_CLUSTER)]
    if at:
        return None
    if head[:2] == ["go", "test"]:
        return ["go", "test", *_kept(head[2:], _GO_FLAGS, _GO_VALUED)]
    if head[:2] == ["cargo", "test"]:
        own, sep, harness = _split(head[2:])
        kept = _kept(own, _CARGO_FLAGS, _CARGO_VALUED)
        rest = [t for t in harness if t not in _CARGO_HARNESS]
        return ["cargo", "test", *kept, *([sep, *rest] if rest else [])]
    return None


def _split(tokens: list[str]) -> tuple[list[str], str, list[str]]:
    if "--" in tokens:
        at = tokens.index("--")
        return tokens[:at], "--", tokens[at + 1:]
    return tokens, "", []


def _kept(tokens: list[str], flags: frozenset[str], valued: tuple[str, ...],
          cluster: frozenset[str] = frozenset()) -> list[str]:
    """`tokens` without the output-only `flags`, `valued` options (`--tb=x`,
    `--tb x`) and clusters of one-letter flags (`-xvs`)."""
    out: list[str] = []
    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token in flags:
            pass
        elif token in valued:
            skip = True
        elif not (any(token.startswith(v + "=") for v in valued)
                  or (cluster and len(token) > 2 and token[0] == "-" and token[1] != "-"
                      and set(token[1:]) <= cluster)):
            out.append(token)
    return out


def _pull_request(tokens: list[str], branch: str) -> list[str] | None:
    """`gh pr create`'s purpose: its head branch (named, else the one the
    session is on) and repository; None for another command, an option not
    known, or a run that makes no pull request (`--web`, `--dry-run`)."""
    if tokens[:3] != ["gh", "pr", "create"]:
        return None
    kept: dict[str, str] = {}
    args = iter(tokens[3:])
    for token in args:
        name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in _GH_VALUED:
            if not eq:
                value = next(args, None)  # type: ignore[assignment]
                if value is None:
                    return None
            if name in _GH_KEPT:
                kept[_GH_KEPT[name]] = value
        elif token not in _GH_FLAGS:
            return None
    if "--head" not in kept:
        if not branch:
            return None
        kept["--head"] = branch
    return ["gh", "pr", "create", *(w for k in sorted(kept) for w in (k, kept[k]))]


# A check and the form of the same tool that makes it pass (review 26 #11:
# `cargo fmt --check` failed, `cargo fmt` ran, the error stayed unresolved).
# The tool's words; the flags that make a run a check; those that make it
# fix; whether a run with neither is the fixing form (`cargo fmt`, `black x`)
# or the check (`eslint .`, `ruff check .`).
_FIXERS: tuple[tuple[tuple[str, ...], frozenset[str], frozenset[str], bool], ...] = (
    (("cargo", "fmt"), frozenset({"--check"}), frozenset(), True),
    (("ruff", "format"), frozenset({"--check", "--diff"}), frozenset(), True),
    (("black",), frozenset({"--check", "--diff"}), frozenset(), True),
    (("isort",), frozenset({"--check", "--check-only", "-c", "--diff"}), frozenset(), True),
    (("prettier",), frozenset({"--check", "-c", "--list-different", "-l"}),
     frozenset({"--write", "-w"}), False),
    (("gofmt",), frozenset({"-l", "-d"}), frozenset({"-w"}), False),
    (("eslint",), frozenset(), frozenset({"--fix"}), False),
    (("ruff", "check"), frozenset(), frozenset({"--fix"}), False),
)
CHECK, FIX = "check: ", "fix: "  # how a check's purpose and its fixing form's begin


def fix_purpose(command: str) -> str:
    """For a formatter's or linter's check, "check: <tool and its other
    words>"; for its fixing form, "fix: <the same>"; else "". A fixing form's
    success fixes what the check of the same words found."""
    if not any(words[0] in command for words, *_ in _FIXERS):
        return ""
    split = _one_command(command)
    if split is None:
        return ""
    prefix, rest = split
    for words, checks, fixes, bare_fixes in _FIXERS:
        at = next((i for i in range(len(rest)) if tuple(rest[i:i + len(words)]) == words), -1)
        if at < 0 or any(t in _OPERATORS or "=" in t for t in rest[:at]):
            continue
        checking = any(t in checks for t in rest)
        fixing = any(t in fixes for t in rest)
        if checking == fixing and (checks and fixes):
            return ""  # (neither or both: not told)
        kept = [t for t in rest if t not in checks and t not in fixes]
        if kept and kept[-1] == "--" and words == ("cargo", "fmt"):
            kept.pop()  # (`cargo fmt -- --check`)
        fix = fixing or (not checking and bare_fixes)
        import shlex

        said = (FIX if fix else CHECK) + shlex.join([*prefix, *kept])
        return said if len(said) <= PURPOSE_CHARS else ""
    return ""
