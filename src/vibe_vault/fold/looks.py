"""Shell commands that only look: they list, print, count or search, and
change no file (`ls`, `cat f | head`, `grep -n x f`, `git status && git log`).
A file found changed between two of the session's edits with only such
commands run in between was changed outside the session (fold.files).

Read the safe way round: a command is one that may change files unless
every part of it is known to only look. Quoted words are words (a `>` or `;`
in them is no redirection or separator), but a `$(…)` or backquote in double
quotes runs, and is read as a command of its own; a redirection to a file,
a program not listed, an option that writes (`find -delete`, `sed -i`) or an
unknown shape makes it one that may."""

from __future__ import annotations

from functools import cache

import msgspec

from vibe_vault.text import rx

# Programs that only read their files and print (none writes but by a redirection).
_LOOKERS = frozenset({
    "ls", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "wc", "echo", "printf",
    "pwd", "which", "type", "file", "stat", "du", "df", "tree", "sort", "uniq", "cut", "tr",
    "column", "nl", "diff", "cmp", "date", "whoami", "uname", "realpath", "dirname",
    "basename", "readlink", "true", "false", "test", "[", "[[", "jq", "cd", "md5sum",
    "sha256sum", "shasum", "hexdump", "xxd", "od", "less", "more", "bat", "fd", "exa", "eza",
    "comm", "fold", "rev", "seq", "sleep", "lsof", "ps", "id", "hostname",
})
# git's subcommands that only read the repository.
_GIT_LOOKS = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "blame",
                        "describe", "shortlog", "rev-list", "ls-tree", "cat-file", "grep",
                        "reflog", "whatchanged", "merge-base", "ls-remote"})
# The options of `git branch`, `stash list`, `tag`, `config` that list.
_LISTING = frozenset({"-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "-l",
                      "--show-current", "--get", "--get-all", "--no-color", "--oneline"})
# Words that open a part of a compound command; the command follows them.
_KEYWORDS = frozenset({"do", "then", "else", "elif", "if", "while", "until", "!", "time",
                       "{", "}", "done", "fi", "esac"})
# Options of listed programs that write or run something else.
_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf",
                     "-fls", "-o", "--output", "-w", "--write"})
MAX_LOOKED = 4000  # a longer command is not read: it may change files
MAX_NESTED = 8  # `$(…$(…))`: deeper is not read

_SEPARATORS = r"&&|\|\||[;|&\n(){}]"
_REDIRECT = r"(?<![<>])\d*>>?(?!&)\s*(\S*)"
_QUIET = r"\d*>>?\s*/dev/null|\d*>&\d|<"
# A program that runs a program given in quotes, which may write (`print >
# "f"`, `system(…)`): awk's, when it holds one of these.
_AWK = r"\b[gm]?awk\b"
_AWK_WRITES = r"system\s*\(|>\s*\"|\|\s*\"|\bclose\s*\("


def only_looks(command: str) -> bool:
    """Whether shell `command` changes no file: every part of it a listed
    program (or git subcommand) run without an option that writes, and no
    redirection but to /dev/null."""
    if len(command) > MAX_LOOKED or "<<" in command:
        return False
    if rx(_AWK).search(command) and rx(_AWK_WRITES).search(command):
        return False
    scanned = _scan(command, 0, "")
    if scanned is None:
        return False
    for bare in scanned[0]:
        if any(m.group(1) != "/dev/null" for m in rx(_REDIRECT).finditer(bare)):
            return False
        bare = rx(_QUIET).sub(" ", bare)
        if not all(_part_looks(part.split()) for part in rx(_SEPARATORS).split(bare)):
            return False
    return True


def _scan(text: str, i: int, closer: str, level: int = 0) -> tuple[list[str], int] | None:
    """The command from `i` (to `closer`, a substitution's `)`) with its
    quoted words as `Q`, then the commands its substitutions run, each so;
    and where it ended. None for a shape not read (an unclosed quote, a
    backquote, substitutions nested deeper than MAX_NESTED)."""
    if level > MAX_NESTED:
        return None
    bare: list[str] = []
    inner: list[str] = []
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            bare.append(" Q ")
            i = j + 1
        elif c == "\\":
            bare.append(" Q ")  # (an escaped character is a word's, never an operator)
            i += 2
        elif c == "`":
            return None
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 2
                elif text.startswith("$(", i):
                    sub = _scan(text, i + 2, ")", level + 1)
                    if sub is None:
                        return None
                    inner.extend(sub[0])
                    i = sub[1]
                elif text[i] == "`":
                    return None
                else:
                    i += 1
            if i >= n:
                return None
            bare.append(" Q ")
            i += 1
        elif text.startswith("$(", i):
            sub = _scan(text, i + 2, ")", level + 1)
            if sub is None:
                return None
            inner.extend(sub[0])
            bare.append(" Q ")
            i = sub[1]
        elif c == "(":
            depth += 1
            bare.append(c)
            i += 1
        elif c == ")" and not depth and closer:
            return ["".join(bare), *inner], i + 1
        else:
            if c == ")" and depth:
                depth -= 1
            bare.append(c)
            i += 1
    return (None if closer else (["".join(bare), *inner], i))


def _part_looks(words: list[str]) -> bool:
    while words and (words[0] in _KEYWORDS or rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0])):
        words = words[1:]
    if not words:
        return True
    if words[0] in ("for", "case", "select", "in"):
        return True  # a loop's or a case's header: its words are no command
    program = words[0].rsplit("/", 1)[-1]
    if program == "git":
        rest = [w for w in words[1:] if not w.startswith("-")]
        if rest[:1] == ["remote"]:  # `git remote -v`, `git remote show x`
            return rest[1:2] in ([], ["show"], ["get-url"])
        options = [w for w in words[1:] if w.startswith("-")]
        if rest[:1] in (["branch"], ["tag"]):  # listing them, not making one: `git branch -a`
            return rest[1:] == [] and all(w in _LISTING for w in options)
        if rest[:1] == ["stash"]:
            return rest[1:2] in (["list"], ["show"])
        if rest[:1] == ["config"]:  # `git config --get user.name`, `--list`
            return any(w in ("--get", "--get-all", "--list", "-l") for w in options)
        return bool(rest) and rest[0] in _GIT_LOOKS and not any(
            w.startswith("--output") for w in words)
    if program in ("awk", "gawk"):
        return True  # (its program is a quoted word: read below, with the command's)
    return program in _LOOKERS and not any(w in _WRITES for w in words[1:])


class _HookRun(msgspec.Struct):
    type: str = ""
    command: str = ""


@cache
def _hook_run() -> msgspec.json.Decoder[_HookRun]:
    """(made when first needed: few sessions have hooks)"""
    return msgspec.json.Decoder(_HookRun)


def hook_may_write(raw: bytes) -> bool:
    """Whether a line's payload tells a hook's command run (2.x: a
    `hook_progress` progress line, a `hook_success` attachment) that does
    not only look (a formatter run after each edit). `callback` is Claude
    Code's own (no program of the user's)."""
    if b'"hook' not in raw or b'"command"' not in raw:
        return False
    try:
        run = _hook_run().decode(raw)
    except msgspec.DecodeError:
        return False
    return run.type.startswith("hook_") and bool(run.command) and run.command != "callback" \
        and not only_looks(run.command)
