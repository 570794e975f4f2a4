"""Files a shell command writes: `cat > f <<'EOF'` (and `cat <<EOF > f`,
`tee f <<EOF`, `>>` to append), whose lines are in the command itself, and
`echo … > f`, `printf … > f`, `cat a > f`, whose lines are not; files it
deletes (`rm`, `git rm`, `unlink`), renames (`mv`, `git mv`), and makes
(`cargo init`/`new`, `uv init`, `npm`/`pnpm`/`yarn`/`bun init`). Pure: a
command in, the changes out, the paths as written with the folder a `cd`
(or `git -C`) before them moved to (a relative one is the caller's to place)."""

from __future__ import annotations

from msgspec import Struct

from vibe_vault.text import rx

MAX_WRITES = 20  # a command's file writes followed; more are not told

# A here-document's operator and its word: `<<EOF`, `<<'EOF'`, `<< "EOF"`,
# `<<\EOF`, `<<-EOF` (tabs stripped).
_HEREDOC = r"<<(-?)\s*(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\\?)([A-Za-z_][A-Za-z0-9_]*))"
# Pieces of a line: a quoted string (whatever it holds), a boundary between
# simple commands, an output redirection with its target (`> f`, `>>f`,
# `1> f`; not `2>`, `&>`, `>&2`), or anything else.
_PIECES = (r"(?P<quoted>'[^']*'|\"(?:[^\"\\]|\\.)*\")"
           r"|(?P<boundary>&&|\|\||\$\(|[;|()`])"
           r"|(?P<redirect>(?<![0-9&>])1?(?P<op>>>?)(?!&)\s*"
           r"(?P<target>\"[^\"\n]+\"|'[^'\n]+'|[^\s;&|<>()'\"`]+))"
           r"|(?P<other>[^'\"&|;()`$>]+|.)")
_WRITERS = ("cat", "tee", "echo", "printf")
_NOT_FILES = ("/dev/", "$", "`", "*", "?", "~", "{")  # not a file, or not a known one
GLOB = ("*", "?", "[")  # a pattern: the caller matches it against the files it knows
# Commands that may delete, rename or make files, or move to another folder:
# a command line without any of these words is not parsed further for them.
_CHANGERS = r"\b(?:rm|unlink|mv|init|new|cd|pushd)\b"
# Redirections in a simple command's text, left out of its words.
_REDIRECTION = r"""(?<![^\s])(?:\d*|&)(?:>>?|<)&?\s*(?:"[^"]*"|'[^']*'|[^\s;&|<>]+)"""
LOST = "\0"  # `at` after a `cd` to a folder not known (`cd $X`, `cd -`, `cd`)

# What a command deletes, renames or makes (ShellWrite.kind); "" a write.
DELETE = "delete"  # a file (`rm f`, `git rm f`)
TREE = "tree"  # `rm -r p`: p, and every file the session knows under it
MOVE = "move"  # `mv p to`: p (a file, or a folder with what is known under it) to `to`
MADE = "made"  # a file a scaffolding command makes (`cargo init`: Cargo.toml)


class ShellWrite(Struct, array_like=True, omit_defaults=True):
    """A file a command writes: its path as written, and its lines when the
    command holds them (a here-document's body)."""

    path: str
    body: str | None = None
    append: bool = False  # `>>`, `tee -a`
    exact: bool = False  # `body` is what was written (no `$` expanded in it)
    kind: str = ""  # "" written; DELETE, TREE, MOVE, MADE
    to: str = ""  # MOVE: where to, as written
    into: bool = False  # MOVE: `to` is a folder for sure (several sources, a trailing `/`)
    forced: bool = False  # `rm -f`: nothing need have been there
    at: str = ""  # the folder a `cd` or `git -C` before it moved to, as written ("" none)


def writes(command: str) -> list[ShellWrite]:
    """The files `command` writes by cat, tee, echo or printf, and those it
    deletes, renames or makes, in order."""
    changes = bool(rx(_CHANGERS).search(command))
    if ">" not in command and "tee" not in command and not changes:
        return []
    out: list[ShellWrite] = []
    lines = command.split("\n")
    i = 0
    at = [""]  # the folder `cd` moved to, carried from line to line
    while i < len(lines) and len(out) < MAX_WRITES:
        line = lines[i]
        i += 1
        bodies: list[tuple[str, bool]] = []
        for m in rx(_HEREDOC).finditer(line):  # each body follows the line, in order
            word = m.group(2) or m.group(3) or m.group(5)
            body: list[str] = []
            while i < len(lines):
                text = lines[i].lstrip("\t") if m.group(1) else lines[i]
                i += 1
                if text == word:
                    break
                body.append(text)
            quoted = not m.group(5) or bool(m.group(4))
            exact = quoted or not any("$" in b or "`" in b for b in body)
            bodies.append(("".join(b + "\n" for b in body), exact))
        out.extend(_line_writes(rx(_HEREDOC).sub(" <<HEREDOC ", line), bodies, at, changes))
    return out[:MAX_WRITES]


def _line_writes(line: str, bodies: list[tuple[str, bool]], at: list[str],
                 changes: bool) -> list[ShellWrite]:
    """The writes of one line's simple commands; `bodies` are its
    here-documents', in order (each marked `<<HEREDOC` in the line). `at`
    holds the folder a `cd` moved to, updated as one is met; `changes`: the
    line may delete, rename or make files (else only writes are looked for)."""
    out: list[ShellWrite] = []
    words: list[str] = []
    targets: list[ShellWrite] = []
    docs = 0
    start = 0
    for m in rx(_PIECES).finditer(line + ";"):
        if m.group("boundary"):
            doc = bodies[docs] if "<<HEREDOC" in words and docs < len(bodies) else None
            docs += words.count("<<HEREDOC")
            found = _command_writes(words, targets, doc)
            if changes and not found:
                found = _command_changes(line[start:m.start()], at)
            for w in found:
                w.at = w.at or at[0]
            # A relative path from a folder not known: not told.
            found = [w for w in found if w.at != LOST or _absolute(w.path)]
            out.extend(found)
            words, targets = [], []
            start = m.end()
        elif m.group("redirect"):
            targets.append(ShellWrite(path=_unquote(m.group("target")),
                                      append=m.group("op") == ">>"))
        elif m.group("quoted"):
            words.append(m.group("quoted"))
        else:
            words.extend(m.group(0).split())
    return out


def _command_writes(words: list[str], targets: list[ShellWrite],
                    doc: tuple[str, bool] | None) -> list[ShellWrite]:
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]  # NAME=value before the command
    if words and words[0] in ("sudo", "command", "builtin"):
        words = words[1:]
    tool = words[0].rsplit("/", 1)[-1] if words else ""
    if tool not in _WRITERS:
        return []
    if tool == "tee":
        append = any(w in ("-a", "--append") for w in words[1:])
        targets = [ShellWrite(path=_unquote(w), append=append) for w in words[1:]
                   if not w.startswith("-") and w != "<<HEREDOC"] + targets
    out = []
    for w in targets:
        if not w.path or any(x in w.path for x in _NOT_FILES):
            continue
        if tool in ("cat", "tee") and doc is not None:
            w.body, w.exact = doc
        out.append(w)
    return out


def _unquote(word: str) -> str:
    if len(word) > 1 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _absolute(path: str) -> bool:
    return path.startswith(("/", "\\")) or (len(path) > 2 and path[1] == ":" and path[2] in "/\\")


def _moved(at: str, to: str) -> str:
    """The folder `cd to` moves to from `at` (LOST when not known)."""
    if not to or to == "-" or any(x in to for x in _NOT_FILES) or (
            at == LOST and not _absolute(to)):
        return LOST
    if _absolute(to) or not at:
        return to
    return f"{at.rstrip('/')}/{to}"


def _command_changes(text: str, at: list[str]) -> list[ShellWrite]:
    """What one simple command (its text) deletes, renames or makes; a `cd`
    updates `at`."""
    import shlex  # only for a command that may change files: kept off most hooks' path

    try:
        words = shlex.split(rx(_REDIRECTION).sub(" ", text), comments=False, posix=True)
    except ValueError:  # an unbalanced quote: not a command to read
        return []
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]  # NAME=value before the command
    if words and words[0] in ("sudo", "command", "builtin", "exec"):
        words = words[1:]
    if not words:
        return []
    tool = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if tool in ("cd", "pushd"):
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        at[0] = _moved(at[0], operands[0] if operands else "")
        return []
    here = at[0]
    if tool == "git":
        while args and args[0].startswith("-"):  # git's own options: -C dir moves it
            option = args.pop(0)
            if option in ("-C", "-c") and args:
                value = args.pop(0)
                if option == "-C":
                    here = _moved(here, value)
        if not args or args[0] not in ("rm", "mv"):
            return []
        tool, args = "git " + args[0], args[1:]
    out = _changes_of(tool, args)
    if here != at[0]:
        for w in out:
            w.at = here
    return out


def _changes_of(tool: str, args: list[str]) -> list[ShellWrite]:
    if tool in _SCAFFOLDS:
        return [ShellWrite(path=p, kind=MADE) for p in _scaffold(tool, args)]
    flags, operands = _split_options(args, ())
    letters = "".join(f[1:] for f in flags if not f.startswith("--"))
    if tool in ("rm", "git rm", "unlink"):
        if "--cached" in flags or "-n" in flags or "--dry-run" in flags:
            return []  # the file stays (only git forgets it), or nothing is done
        tree = tool != "unlink" and ("r" in letters or "R" in letters or "--recursive" in flags)
        # `rm -f`: no file need have been there (`git rm -f` fails on a path it
        # does not know: its -f only overrides git's checks).
        forced = tool == "rm" and ("f" in letters or "--force" in flags)
        return [ShellWrite(path=p, kind=TREE if tree else DELETE, forced=forced)
                for p in operands if _usable(p)]
    if tool in ("mv", "git mv"):
        if "-n" in flags or "--dry-run" in flags or len(operands) < 2 or \
                any(f.startswith("-t") or f.startswith("--target") for f in flags):
            return []
        *sources, to = operands
        if not _usable(to) or any(x in to for x in GLOB):
            return []
        into = len(sources) > 1 or to.endswith("/")
        return [ShellWrite(path=p, kind=MOVE, to=to.rstrip("/") or to, into=into)
                for p in sources if _usable(p)]
    return []


def _usable(path: str) -> bool:
    """A path a command names that can be placed (a pattern can be matched)."""
    return bool(path) and not any(x in path for x in _NOT_FILES if x not in GLOB)


# Options that take a value (the next word), by scaffolding command: not operands.
_CARGO = ("--name", "--vcs", "--edition", "--registry", "--config", "-Z", "--color")
_VALUED: dict[str, tuple[str, ...]] = {
    "cargo": _CARGO,
    "uv": ("--name", "--python", "-p", "--build-backend", "--vcs", "--author-from",
           "--description", "--directory", "--project", "--cache-dir", "--config-file"),
    "npm": ("-w", "--workspace", "--scope"),
}
_SCAFFOLDS = ("cargo", "uv", "npm", "pnpm", "yarn", "bun")


def _split_options(args: list[str], valued: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """A command's options (`-rf`, `--lib`; a valued one's value skipped) and operands."""
    flags: list[str] = []
    operands: list[str] = []
    rest = iter(args)
    for a in rest:
        if a == "--":
            operands.extend(rest)
            break
        if a.startswith("-") and a != "-":
            flags.append(a)
            if a in valued:
                next(rest, None)
        else:
            operands.append(a)
    return flags, operands


def _scaffold(tool: str, args: list[str]) -> list[str]:
    """The files a scaffolding command makes, those it always makes (a file it
    makes only sometimes is not told): `cargo init [--lib] [dir]` Cargo.toml
    and src/main.rs (src/lib.rs), `cargo new dir` the same in dir, `uv init
    [dir]` pyproject.toml, `npm init` (pnpm, yarn, bun) package.json."""
    flags, operands = _split_options(args, _VALUED.get(tool, _VALUED["npm"]))
    if not operands or operands[0] not in ("init", "new"):
        return []
    sub, rest = operands[0], operands[1:]
    folder = (rest[0].rstrip("/") + "/") if rest else ""
    if tool == "cargo":
        if sub == "new" and not rest:
            return []
        source = "src/lib.rs" if "--lib" in flags else "src/main.rs"
        return [folder + "Cargo.toml", folder + source]
    if sub != "init":
        return []
    if tool == "uv":
        return [] if "--script" in flags else [folder + "pyproject.toml"]
    # `npm init vite`: an initializer makes what it makes.
    return [] if rest else ["package.json"]
