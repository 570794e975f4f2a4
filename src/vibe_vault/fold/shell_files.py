"""Files a shell command writes: `cat > f <<'EOF'` (and `cat <<EOF > f`,
`tee f <<EOF`, `>>` to append), whose lines are in the command itself, and
`echo … > f`, `printf … > f`, `cat a > f`, whose lines are not; files it
deletes (`rm`, `git rm`, `unlink`), renames (`mv`, `git mv`), copies to
(`cp`, `install`, `rsync`), makes (`cargo init`/`new`, `uv init`,
`npm`/`pnpm`/`yarn`/`bun init`) and rewrites in place (formatters and
fixers: `ruff format`, `black`, `prettier --write`, `gofmt -w` …, whose
output may name the files). Pure: a command (or its output) in, the
changes out, the paths as written with the folder a `cd` (or `git -C`)
before them moved to (a relative one is the caller's to place)."""

from __future__ import annotations

from msgspec import Struct, field

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
           r"(?P<target>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|<>()'\"`])+))"
           r"|(?P<other>[^'\"&|;()`$>]+|.)")
_WRITERS = ("cat", "tee", "echo", "printf")
_NOT_FILES = ("$", "`", "*", "?", "~", "{")  # not a known file (as written)


def _not_file(path: str, chars: tuple[str, ...] = _NOT_FILES) -> bool:
    """A path that is no file (a device: `/dev/null`; not `/home/dev/x`), or
    holds what makes it not known (a variable, a pattern, `~` not read)."""
    return path.startswith("/dev/") or any(x in path for x in chars)
GLOB = ("*", "?", "[")  # a pattern: the caller matches it against the files it knows
# Commands that may delete, rename or make files, or move to another folder:
# a command line without any of these words is not parsed further for them.
_CHANGERS = (r"\b(?:rm|unlink|mv|ln|init|new|cd|pushd|cp|install|rsync|submodule|fmt|format"
             r"|black|isort|prettier|gofmt|goimports|rustfmt|eslint|ruff|fix|clang-format)\b")
# Redirections in a simple command's text, left out of its words.
_REDIRECTION = r"""(?<![^\s])(?:\d*|&)(?:>>?|<)&?\s*(?:"[^"]*"|'[^']*'|[^\s;&|<>]+)"""
LOST = "\0"  # `at` after a `cd` to a folder not known (`cd $X`, `cd -`, `cd`)

# What a command deletes, renames or makes (ShellWrite.kind); "" a write.
DELETE = "delete"  # a file (`rm f`, `git rm f`)
TREE = "tree"  # `rm -r p`: p, and every file the session knows under it
MOVE = "move"  # `mv p to`: p (a file, or a folder with what is known under it) to `to`
MADE = "made"  # a file a scaffolding command makes (`cargo init`: Cargo.toml)
COPY = "copy"  # `cp p to`: the file p copied to `to` (into it when a folder)
COPY_TREE = "copytree"  # `cp -r p to`, `rsync -a p to`: a folder's files copied
RSYNC = "rsync"  # `rsync p to`: what it sent (a file, a folder's files)
FORMAT = "format"  # a formatter or fixer rewrote files in place (`to`: which, as a label)
LINK = "link"  # `ln -s to p`: p made, a symbolic link to `to` (into: p is a folder to put it in)
SUBMODULE = "submodule"  # `git submodule add … p`: p, a repository of its own, added there
# `git submodule update --remote p`: the commit the submodule p is at moved on
# (the repository's entry for it changed, as a commit of it then holds)
SUBMODULE_MOVED = "submodule moved"


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
    # The command line's exit status is not this command's (it is followed by
    # `;`, `||`, `|` or a newline): whether it did anything is for its output to say.
    unsure: bool = False
    listed: bool = False  # COPY, COPY_TREE, FORMAT: its output names the files (`cp -v`)
    quiet: bool = False  # its error output is thrown away (`2>/dev/null`)
    # It may not have run at all (joined by `&&` or `||` to the one before);
    # `guarded`: and silently so (an `||`, or a test before it in its list).
    skippable: bool = False
    guarded: bool = False
    # What would show it ran: what the commands joined to it by `&&` after it
    # would show of themselves (_signs).
    proofs: list[str] = field(default_factory=list)


def writes(command: str, home: str = "") -> list[ShellWrite]:
    """The files `command` writes by cat, tee, echo or printf, and those it
    deletes, renames or makes, in order; their paths as the shell reads them
    (`home`: the folder `~` and `$HOME` stand for, "" not known)."""
    changes = bool(rx(_CHANGERS).search(command))
    if ">" not in command and "tee" not in command and not changes:
        return []
    out: list[ShellWrite] = []
    lines = command.split("\n")
    i = 0
    at = [""]  # the folder `cd` moved to, carried from line to line
    # The shell's variables the command line sets (`S=/tmp/x`, `export S=…`),
    # carried from line to line; None: set to a value not known (`S=$(…)`).
    # (Not from one command line to the next: Claude Code runs each in a
    # shell of its own.)
    names: dict[str, str | None] = {"HOME": home} if home else {}
    # Each simple command: how it is joined on, its writes, what would show
    # it ran (_signs), and whether it is a test that fails silently (_quiet_test).
    runs: list[tuple[str, list[ShellWrite], list[str], bool]] = []
    join = [_NEUTRAL]
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
        out.extend(_line_writes(rx(_HEREDOC).sub(" <<HEREDOC ", line), bodies, at, changes,
                                runs, join, names))
    # The command line's exit status is its last command's, and those joined
    # to it by `&&`: the others' may have failed whatever it says.
    sure = True
    end = len(runs)  # the end of the `&&` chain the run is in
    # Only the writes told are weighed: each weighing reads the whole chain,
    # and a command of thousands of writes (`echo x >` repeated) read it for
    # each, quadratic in the command's length.
    told = {id(w) for w in out[:MAX_WRITES]}
    for k in range(len(runs) - 1, -1, -1):
        joined, found, _, _ = runs[k]
        found = [w for w in found if id(w) in told]
        # Its list (from the last `;` or newline): a test before it that fails
        # without a word (`[ -f x ] &&`), or an `||`, may have skipped it silently.
        start = k
        while found and start > 0 and runs[start][0] in (_AND, _OR):
            start -= 1
        guarded = bool(found) and any(runs[j][3] or runs[j][0] == _OR
                                      for j in range(start, k + 1))
        for w in found:
            # (after `||` it ran only if what came before failed)
            w.unsure = not sure or joined in (_SUB, _OR)
            # After `&&` or `||` it may not have run at all.
            w.skippable = joined in (_AND, _OR)
            w.guarded = guarded
            # When the line failed (or the run may not have run), one after
            # it in its `&&` chain showing it ran says it ran and succeeded:
            # the list up to it did (`p && a && b`: b ran, so `p && a` ended
            # well). Not after `||`: `p || a && b` ran b when p succeeded.
            # (Nor what another may show as well: `ls x && cp a b && ls y`'s
            # "ls: …" is either's, as it is in `cp a b && ls y || ls z`.)
            others = {sign for run in [*runs[:k + 1], *runs[end:]] for sign in run[2]}
            w.proofs = [] if joined == _OR else list(dict.fromkeys(
                sign for run in runs[k + 1:end] for sign in run[2]
                if sign not in others))[:MAX_PROOFS]
        sure = sure and joined in (_AND, _NEUTRAL)
        if joined not in (_AND, _NEUTRAL):
            end = k
    return out[:MAX_WRITES]


MAX_PROOFS = 8


def _signs(words: list[str], found: list[ShellWrite]) -> list[str]:
    """What would show a simple command ran, as `ShellWrite.proofs` keeps it:
    the line an `echo` prints (ECHOED), the name its errors start with
    (TOOL: `npm ERR! …`), its name and a file it writes (WRITES: a refusal
    of it naming the file, `cp: cannot stat 'x'`: it ran, and failed)."""
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]
    if not words:
        return []
    tool = words[0].rsplit("/", 1)[-1]
    out = [TOOL + tool] if rx(r"^[A-Za-z][\w.+-]*$").match(tool) else []
    if tool == "echo":
        args = words[1:]
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        said = " ".join(read_word(a, {}) for a in args if a != "<<HEREDOC").strip()
        if said and not any(c in said for c in "$`\\"):
            out.append(ECHOED + said)
    if out and out[0].startswith(TOOL):  # (`cp: cannot stat 'x'`: from this one)
        out.extend(f"{WRITES}{tool}:{p}" for w in found if w.kind != FORMAT
                   for p in (w.path, w.to) if p)
    return out


ECHOED, TOOL, WRITES = "echo:", "tool:", "path:"  # ShellWrite.proofs' kinds

# Commands whose "no" is a status, not a word: `[ -f x ]`, `grep -q`, `false`.
_QUIET_TESTS = ("[", "[[", "test", "false", "which", "command", "type", "pgrep", "cmp",
                "true")


def _quiet_test(words: list[str]) -> bool:
    """Whether a simple command may fail without printing anything."""
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]
    if not words:
        return False
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
    if tool in _QUIET_TESTS or tool.startswith("!"):
        return True
    flags = [a for a in args if a.startswith("-")]
    quiet = any(f in ("-q", "--quiet", "-s", "--silent", "--exit-code") or (
        not f.startswith("--") and ("q" in f[1:])) for f in flags)
    return quiet and tool in ("grep", "egrep", "fgrep", "rg", "diff", "git", "cmp", "test")


# How a simple command is joined to the one before it (see `writes`).
_AND, _OR, _NEUTRAL, _OTHER, _SUB = "&&", "||", "", ";", "$("


def _joiner(boundary: str) -> str:
    if boundary in ("&&", "||"):
        return boundary
    if boundary in ("(", ")"):
        return _NEUTRAL
    return _SUB if boundary in ("$(", "`") else _OTHER


def _line_writes(line: str, bodies: list[tuple[str, bool]], at: list[str],
                 changes: bool, runs: list[tuple[str, list[ShellWrite], list[str], bool]],
                 join: list[str], names: dict[str, str | None]) -> list[ShellWrite]:
    """The writes of one line's simple commands; `bodies` are its
    here-documents', in order (each marked `<<HEREDOC` in the line). `at`
    holds the folder a `cd` moved to, updated as one is met; `changes`: the
    line may delete, rename or make files (else only writes are looked for).
    Each simple command met is added to `runs` with how it is joined to the
    one before (`join`, carried on); `names`: the shell's variables set so
    far, updated as assignments are met."""
    out: list[ShellWrite] = []
    words: list[str] = []  # as written, quotes kept: pieces with no blank between are one
    glued = False  # the last piece ended a word that the next continues
    targets: list[ShellWrite] = []
    docs = 0
    start = 0
    for m in rx(_PIECES).finditer(line + ";"):
        if m.group("boundary"):
            doc = bodies[docs] if "<<HEREDOC" in words and docs < len(bodies) else None
            docs += words.count("<<HEREDOC")
            found = _command_writes(words, targets, doc, names)
            if changes and not found:
                found = _command_changes(line[start:m.start()], at, names)
            for w in found:
                w.at = w.at or at[0]
            # A relative path (or copy's, move's target) from a folder not
            # known: not told (3535d4da's `cd ~/… && cp /tmp/d.go internal/x.go`).
            found = [w for w in found if w.at != LOST or (_absolute(w.path) and (
                not w.to or w.kind in (FORMAT, LINK) or _absolute(w.to)))]
            out.extend(found)
            _assigned(words, names, m.group("boundary") in ("$(", "`"))
            glued = False
            # (the line's end, `;` added above: a newline, as `;`)
            boundary = m.group("boundary") if m.end() <= len(line) else ";"
            if line[start:m.start()].strip():
                runs.append((join[0], found, _signs(words, found), _quiet_test(words)))
                join[0] = _joiner(boundary)
            elif join[0] != _SUB:
                # Nothing between: the weaker join holds (`a && (b)`: `&&`).
                following = _joiner(boundary)
                join[0] = join[0] if following == _NEUTRAL else (
                    following if join[0] in (_AND, _NEUTRAL) else join[0])
            words, targets = [], []
            start = m.end()
        elif m.group("redirect"):
            targets.append(ShellWrite(path=read_word(m.group("target"), names),
                                      append=m.group("op") == ">>"))
            glued = False
        elif m.group("quoted"):
            if glued and words:
                words[-1] += m.group("quoted")
            else:
                words.append(m.group("quoted"))
            glued = True
        else:
            text = m.group(0)
            parts = text.split()
            if parts and glued and words and not text[0].isspace():
                words[-1] += parts.pop(0)
            words.extend(parts)
            glued = bool(text) and not text[-1].isspace()
    return out


_NAME = r"^[A-Za-z_][A-Za-z0-9_]*="
_DECLARERS = ("export", "declare", "local", "readonly", "typeset")


def _assigned(words: list[str], names: dict[str, str | None], substituted: bool) -> None:
    """A simple command that only sets variables (`S=/tmp/x`, `export S=…`):
    their values from now on, as the shell reads them (None: not known, a
    command's output `S=$(…)`, another variable not known). A `for` or
    `read` sets its names to values not known. (`S=x cmd` sets S for cmd
    alone.)"""
    if not words:
        return
    head = words[0]
    if head in _DECLARERS:
        words = [w for w in words[1:] if not w.startswith("-")]
    elif head == "for" and len(words) > 1:
        names[words[1]] = None
        return
    elif head == "read":
        for w in words[1:]:
            if not w.startswith("-") and rx(r"^[A-Za-z_][A-Za-z0-9_]*$").match(w):
                names[w] = None
        return
    if not words or not all(rx(_NAME).match(w) for w in words):
        return
    for k, w in enumerate(words):
        name, _, value = w.partition("=")
        read = read_word(value, names)
        # (the last one before `$(`: its value is the substitution's output)
        unknown = (substituted and k == len(words) - 1) or any(c in read for c in "$`")
        names[name] = None if unknown else read


def read_word(word: str, names: dict[str, str | None]) -> str:
    """A word as the shell reads it: its quotes taken away, `~` at its start
    and `$NAME`, `${NAME}` replaced by their values in `names` (`~`, `$HOME`:
    names["HOME"]). A variable whose value is not known (or would be split
    into words, or read as a pattern, unquoted) is left as written, `$`
    included, so that no path is made of its name."""
    if "'" not in word and '"' not in word and "\\" not in word and "$" not in word and \
            not word.startswith("~"):
        return word
    out: list[str] = []
    i, size = 0, len(word)
    home = names.get("HOME")
    if word.startswith("~") and (size == 1 or word[1] == "/") and home:
        out.append(home)
        i = 1
    quote = ""
    while i < size:
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
            i += 1
        elif c == "\\" and i + 1 < size:
            nxt = word[i + 1]
            out.append(nxt if not quote or nxt in '$`"\\' else c + nxt)
            i += 2
        elif c == "'" and not quote:
            quote = "'"
            i += 1
        elif c == '"':
            quote = "" if quote else '"'
            i += 1
        elif c == "$":
            m = rx(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))").match(word, i)
            value = names.get(m.group(1) or m.group(2)) if m else None
            if m is None or value is None or (not quote and any(
                    ch.isspace() or ch in "*?[" for ch in value)):
                out.append(m.group(0) if m else c)
            else:
                out.append(value)
            i = m.end() if m else i + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def home_of(cwd: str) -> str:
    """The user's home folder, as a session's folder under it shows it
    (`/Users/u/…`, `/home/u/…`, `/root/…`); "" when it does not."""
    m = rx(r"^(?:/Users/[^/]+|/home/[^/]+|/root|/var/root)(?=/|$)").match(cwd)
    return m.group(0) if m else ""


def _command_writes(words: list[str], targets: list[ShellWrite],
                    doc: tuple[str, bool] | None,
                    names: dict[str, str | None]) -> list[ShellWrite]:
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]  # NAME=value before the command
    if words and words[0] in ("sudo", "command", "builtin"):
        words = words[1:]
    tool = words[0].rsplit("/", 1)[-1] if words else ""
    if tool not in _WRITERS:
        return []
    if tool == "tee":
        append = any(w in ("-a", "--append") for w in words[1:])
        # (not its options, nor a redirection: `<in`, `2>/dev/null`)
        targets = [ShellWrite(path=read_word(w, names), append=append) for w in words[1:]
                   if not w.startswith("-") and w != "<<HEREDOC"
                   and not rx(r"^(?:\d*|&)[<>]").match(w)] + targets
    out = []
    for w in targets:
        if not w.path or _not_file(w.path):
            continue
        if tool in ("cat", "tee") and doc is not None:
            w.body, w.exact = doc
        out.append(w)
    return out


def _absolute(path: str) -> bool:
    return path.startswith(("/", "\\")) or (len(path) > 2 and path[1] == ":" and path[2] in "/\\")


def _moved(at: str, to: str) -> str:
    """The folder `cd to` moves to from `at` (LOST when not known)."""
    if not to or to == "-" or _not_file(to) or (
            at == LOST and not _absolute(to)):
        return LOST
    if _absolute(to) or not at:
        return to
    return f"{at.rstrip('/')}/{to}"


def _command_changes(text: str, at: list[str],
                     names: dict[str, str | None]) -> list[ShellWrite]:
    """What one simple command (its text) deletes, renames or makes; a `cd`
    updates `at`."""
    raw = _split_words(rx(_REDIRECTION).sub(" ", text))
    if raw is None:  # an unbalanced quote: not a command to read
        return []
    words = [read_word(w, names) for w in raw]
    while words and rx(r"^[A-Za-z_][A-Za-z0-9_]*=").match(words[0]):
        words = words[1:]  # NAME=value before the command
    if words and words[0] in ("sudo", "command", "builtin", "exec"):
        words = words[1:]
    words = _unwrapped(words)
    if not words:
        return []
    tool = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if tool in ("cd", "pushd"):
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        at[0] = _moved(at[0], operands[0] if operands else "")
        return []
    here = at[0]
    out: list[ShellWrite] = []
    if tool == "git":
        while args and args[0].startswith("-"):  # git's own options: -C dir moves it
            option = args.pop(0)
            if option in ("-C", "-c") and args:
                value = args.pop(0)
                if option == "-C":
                    here = _moved(here, value)
        if args[:2] == ["submodule", "add"]:
            out = _submodule(args[2:])
        elif args[:2] == ["submodule", "update"] and "--remote" in args[2:]:
            _, operands = _split_options(args[2:], ("--depth", "--reference", "-j", "--jobs"))
            out = [ShellWrite(path=path.rstrip("/"), kind=SUBMODULE_MOVED)
                   for path in operands if path.rstrip("/") and _usable(path.rstrip("/"))
                   and not any(x in path for x in GLOB)]
        elif not args or args[0] not in ("rm", "mv"):
            return []
        else:
            tool, args = "git " + args[0], args[1:]
    if tool == "git":
        for w in out:
            if here != at[0]:
                w.at = here
        return out
    out = _changes_of(tool, args)
    # Its errors not printed (`2>/dev/null`): silence does not say it worked.
    # (`2>&1` keeps them; `>/dev/null 2>&1` does not)
    quiet = bool(rx(r"(?:^|\s)(?:2|&)>>?\s*(?!&)\S").search(text)) or (
        "2>&1" in text and bool(rx(r"(?:^|\s)1?>\s*/dev/null").search(text)))
    for w in out:
        w.quiet = quiet
        if here != at[0]:
            w.at = here
    return out


def _split_words(text: str) -> list[str] | None:
    """`text`'s words as written (quotes kept), split where the shell splits
    them: at blanks outside quotes; None when a quote is not closed."""
    words: list[str] = []
    word: list[str] = []
    quote = ""
    i, size = 0, len(text)
    while i < size:
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < size:
                word.append(c)
                i += 1
                c = text[i]
        elif c in "'\"":
            quote = c
        elif c == "\\" and i + 1 < size:
            word.append(c)
            i += 1
            c = text[i]
        elif c.isspace():
            if word:
                words.append("".join(word))
                word = []
            i += 1
            continue
        word.append(c)
        i += 1
    if quote:
        return None
    if word:
        words.append("".join(word))
    return words


def _submodule(args: list[str]) -> list[ShellWrite]:
    """`git submodule add [-b b] [--name n] <repository> [<path>]`: the path
    (by default the repository's name) added as a submodule, and the
    `.gitmodules` git writes its entry in (where git runs: the top of the
    repository, as Claude Code runs it)."""
    _, operands = _split_options(args, ("-b", "--branch", "--name", "--reference", "--depth"))
    if not operands or len(operands) > 2:
        return []
    if len(operands) == 2:
        path = operands[1].rstrip("/")
    else:
        path = operands[0].rstrip("/").rpartition("/")[2].rpartition(":")[2]
        path = path[:-4] if path.endswith(".git") else path
    if not path or not _usable(path) or any(x in path for x in GLOB):
        return []
    return [ShellWrite(path=path, kind=SUBMODULE), ShellWrite(path=".gitmodules")]


# Runners a tool is started through (`uv run ruff format`, `npx prettier`):
# the words they take before it, options aside.
_RUNNERS = {"uv": ("run",), "poetry": ("run",), "pipenv": ("run",), "pdm": ("run",),
            "hatch": ("run",), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"),
            "npm": ("exec",), "bun": ("x", "run")}
_RUNNER_VALUED = ("--with", "--python", "-p", "--project", "--directory", "--extra",
                  "--group", "--package", "--from", "-m")


def _unwrapped(words: list[str]) -> list[str]:
    """The command a runner starts (`uv run ruff format` → `ruff format`,
    `npx prettier`, `python -m black`); the words as they are otherwise."""
    tool = words[0].rsplit("/", 1)[-1] if words else ""
    rest: list[str] | None = None
    if tool in _RUNNERS and len(words) > 1 and words[1] in _RUNNERS[tool]:
        rest = words[2:]
    elif tool in ("npx", "bunx", "uvx", "pipx") or (tool == "yarn" and len(words) > 1
                                                    and words[1] in _FORMATTERS):
        rest = words[1:]
        if tool == "pipx" and rest and rest[0] == "run":
            rest = rest[1:]
    elif tool.startswith("python") and len(words) > 2 and words[1] == "-m":
        rest = words[2:]
    if rest is None:
        return words
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in _RUNNER_VALUED and "=" not in option and rest:
            rest.pop(0)
    return rest


def _changes_of(tool: str, args: list[str]) -> list[ShellWrite]:
    if tool in _SCAFFOLDS:
        made = [ShellWrite(path=p, kind=MADE) for p in _scaffold(tool, args)]
        if made or tool != "cargo":
            return made
    if tool in _FORMATTERS or (tool in ("go", "cargo", "terraform") and args
                               and args[0] == "fmt"):
        return _formatter(tool, args)
    if tool in ("cp", "install", "rsync"):
        return _copies(tool, args)
    if tool == "ln":
        return _link(args)
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


# Formatters and fixers that rewrite files in place, by the command's first word.
_FORMATTERS = ("ruff", "black", "isort", "prettier", "gofmt", "goimports", "rustfmt",
               "eslint", "clang-format")
# What each prints of the files it rewrote (see `formatted`): "names" one a
# line, "count" only how many, "" nothing.
LISTS, COUNTS, SILENT = "names", "count", ""


def _formatter(tool: str, args: list[str]) -> list[ShellWrite]:
    """A formatter or fixer run that rewrites files (not a check, a diff or a
    dry run): one ShellWrite of kind FORMAT, `to` its label ("ruff format")."""
    # (black's `-l 88` leaves 88 an operand: only ruff's, go's and cargo's first one is read)
    flags, operands = _split_options(args, ("--config", "--stdin-filename", "--target-version",
                                            "--line-length", "--settings-path"))
    letters = "".join(f[1:] for f in flags if not f.startswith("--"))
    checking = any(f in flags for f in ("--check", "--diff", "--check-only", "-c", "--dry-run",
                                        "--fix-dry-run", "-check", "-n", "--list-different")
                   ) or "--check" in args  # (`cargo fmt -- --check`: rustfmt's)
    label = ""
    listed = False
    if tool == "ruff":
        sub = operands[0] if operands else ""
        if sub == "format":
            label = "ruff format"
        elif (sub == "check" or sub not in ("format", "rule", "config", "server", "version",
                                            "linter", "clean", "analyze")) and \
                "--fix" in flags and "--no-fix" not in flags:
            label = "ruff check --fix"
    elif tool in ("black", "isort"):
        label = tool
    elif tool == "prettier" and ("--write" in flags or "w" in letters):
        label = "prettier --write"
    elif tool in ("gofmt", "goimports") and "w" in letters:
        label, listed = f"{tool} -w", "l" in letters
    elif tool in ("go", "terraform") and operands[:1] == ["fmt"]:
        label, listed = f"{tool} fmt", True
    elif tool == "cargo" and operands[:1] == ["fmt"]:
        label = "cargo fmt"
    elif tool == "rustfmt":
        label, listed = "rustfmt", "l" in letters or "--files-with-diff" in flags
    elif tool == "eslint" and "--fix" in flags:
        label = "eslint --fix"
    elif tool == "clang-format" and "i" in letters:
        label = "clang-format -i"
    if not label or checking:
        return []
    return [ShellWrite(path=".", kind=FORMAT, to=label, listed=listed)]


def prints(label: str) -> str:
    """What a formatter prints of the files it rewrote: LISTS, COUNTS or SILENT."""
    if label in ("black", "isort", "go fmt", "terraform fmt", "prettier --write"):
        return LISTS
    return COUNTS if label in ("ruff format", "ruff check --fix") else SILENT


_FORMATTED = {
    "black": r"^reformatted (.+?)\s*$",
    "isort": r"^Fixing (.+?)\s*$",
    # A file prettier 3 left as it was ends "(unchanged)" (or "(cached)").
    "prettier --write": r"^(.+?) \d+(?:\.\d+)?m?s(?! \((?:unchanged|cached)\))\s*$",
}
_LISTED_FILE = r"^\s*([^\s:][^:\n]*?\.[A-Za-z0-9]+)\s*$"  # gofmt -l, go fmt, terraform fmt


def formatted(label: str, listed: bool, output: str) -> tuple[list[str], int | None]:
    """The files a formatter's output says it rewrote, as printed, and how many
    it says it rewrote when it names none (None: not said). For `ruff check
    --fix` the count is of the fixes made ("3 fixed"), not of files."""
    from vibe_vault.text import strip_ansi

    output = strip_ansi(output)
    if label == "ruff format":
        m = rx(r"(\d+) files? reformatted").search(output)
        return [], int(m.group(1)) if m else (0 if "left unchanged" in output else None)
    if label == "ruff check --fix":
        m = rx(r"\((\d+) fixed").search(output)
        return [], int(m.group(1)) if m else (0 if "All checks passed" in output else None)
    if label == "prettier --write" and not rx(r"(?m)\d+m?s \((?:unchanged|cached)\)\s*$").search(
            output):
        # Prettier 2 prints every file it was given, changed or not.
        listed_all = rx(r"(?m)^.+ \d+(?:\.\d+)?m?s\s*$").findall(output)
        return [], None if listed_all else 0
    pattern = _FORMATTED.get(label)
    if pattern is None and (listed or label in ("go fmt", "terraform fmt")):
        pattern = _LISTED_FILE
    if pattern is None:
        return [], None
    names = [m.group(1) for m in rx("(?m)" + pattern).finditer(output)]
    return list(dict.fromkeys(n for n in names if not n.startswith(("Exit code", "error")))), \
        None


# What a check says a formatter would rewrite: (the formatter's family, pattern).
_CHECKED = (
    ("ruff format", r"Would reformat: (.+?)\s*$"),
    ("black", r"^would reformat (.+?)\s*$"),
    ("cargo fmt", r"^Diff in (.+?\.rs)(?::\d+:| at line \d+:)"),
    ("isort", r"^ERROR: (.+?) Imports are incorrectly sorted"),
)


def would_format(output: str) -> list[tuple[str, str]]:
    """(formatter, file) for each file a formatter's check printed it would
    rewrite (`ruff format --check`'s "Would reformat: f", `cargo fmt --check`'s
    "Diff in f:", a CI run's log holding them), in order, once each."""
    if "ould reformat" not in output and "Diff in " not in output and \
            "incorrectly sorted" not in output:
        return []
    from vibe_vault.text import strip_ansi

    out: list[tuple[str, str]] = []
    for raw in strip_ansi(output).splitlines():
        # (a CI log's prefix: `[CI/test-1]   | Would reformat: f`)
        line = rx(r"^\[[^\]]*\]\s*\|?\s*").sub("", raw)
        for family, pattern in _CHECKED:
            m = rx(pattern).search(line)
            if m and (family, m.group(1)) not in out:
                out.append((family, m.group(1)))
    return out


def family(label: str) -> str:
    """The check family a formatter run answers (`rustfmt` → cargo fmt's)."""
    return "cargo fmt" if label == "rustfmt" else label


# Options of cp, install and rsync that take a value (the next word).
_COPY_VALUED = ("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner",
                "-g", "--group", "-e", "--rsh", "--exclude", "--include", "--filter", "-f",
                "--exclude-from", "--include-from", "--files-from", "--chmod", "--chown",
                "--backup-dir", "--log-file", "--partial-dir", "--temp-dir")


def _copies(tool: str, args: list[str]) -> list[ShellWrite]:
    """`cp a b`, `cp a b dir/`, `cp -t dir a`, `install -m 644 a b`: the files
    copied (kind COPY: `path` the source, `to` the target); `cp -r`: a
    folder's files (COPY_TREE); `rsync`: what it sent (RSYNC). Links (`cp -s`, `-l`), a dry run, a
    remote end (`host:path`) and `install -d` (folders) tell nothing."""
    flags, operands = _split_options(args, _COPY_VALUED)
    letters = "".join(f[1:] for f in flags if not f.startswith("--"))
    target = ""
    for i, a in enumerate(args):  # -t dir, --target-directory=dir
        if a in ("-t", "--target-directory") and i + 1 < len(args):
            target = args[i + 1]
        elif a.startswith("--target-directory="):
            target = a.partition("=")[2]
    if tool == "install" and ("d" in letters or "--directory" in flags):
        return []
    if tool == "cp" and ("s" in letters or "l" in letters or "--symbolic-link" in flags
                         or "--link" in flags or "--attributes-only" in flags):
        return []
    if tool == "rsync" and ("n" in letters or "--dry-run" in flags or "--list-only" in flags):
        return []
    if not target:
        if len(operands) < 2:
            return []
        *operands, target = operands
    if not _usable(target) or any(x in target for x in GLOB) or any(
            ":" in p.split("/", 1)[0] and not _absolute(p) for p in [*operands, target]):
        return []
    tree = tool == "cp" and ("r" in letters or "R" in letters or "a" in letters
                             or "--recursive" in flags or "--archive" in flags)
    # A folder for sure: several sources, a trailing `/`, `-t`; rsync's
    # trailing `/` on a source copies what is in it.
    into = len(operands) > 1 or target.endswith("/") or any(
        a in ("-t", "--target-directory") or a.startswith("--target-directory=") for a in args)
    listed = "v" in letters or "--verbose" in flags
    kind = RSYNC if tool == "rsync" else COPY_TREE if tree else COPY
    return [ShellWrite(path=p, kind=kind, to=target.rstrip("/") or target,
                       into=into, listed=listed) for p in operands if _usable(p)]


def _link(args: list[str]) -> list[ShellWrite]:
    """`ln -s target link` (`-f`, `-n` too), `ln -s target` (named as the
    target, here), `ln -s target folder/`: the link made (kind LINK, `to` its
    target as written). A hard link, `-t`, several targets tell nothing."""
    flags, operands = _split_options(args, ("-S", "--suffix"))
    letters = "".join(f[1:] for f in flags if not f.startswith("--"))
    if ("s" not in letters and "--symbolic" not in flags) or len(operands) not in (1, 2) or any(
            f in ("-t", "-T") or f.startswith("--target") or f == "--no-target-directory"
            for f in flags):
        return []
    target = operands[0]
    link = operands[1] if len(operands) == 2 else "."
    if not _usable(target) or not _usable(link) or any(x in target + link for x in GLOB):
        return []
    into = len(operands) == 1 or link.endswith("/") or link == "."
    return [ShellWrite(path=link.rstrip("/") or link, kind=LINK, to=target, into=into)]


def copied(tool_listed: bool, output: str) -> list[tuple[str, str]]:
    """(source, target) of each file a verbose copy printed: cp's `'a' -> 'b'`
    (BSD: `a -> b`); rsync's files are its lines that are not its own words,
    (None, name under the target)."""
    if not tool_listed:
        return []
    from vibe_vault.text import strip_ansi

    out: list[tuple[str, str]] = []
    for line in strip_ansi(output).splitlines():
        m = rx(r"^(?:'((?:[^']|'\\'')*)'|(\S.*?)) -> (?:'((?:[^']|'\\'')*)'|(.+?))"
               r"(?: \(backup: .*\))?\s*$").match(line)
        if m:
            out.append((m.group(1) or m.group(2) or "", m.group(3) or m.group(4) or ""))
    return out


_RSYNC_WORDS = (r"^(?:sending incremental file list|receiving incremental file list"
                r"|building file list|created directory |sent \d|total size is |\./$"
                r"|deleting |skipping |\s|$|rsync[: ]|Transfer starting|Number of )")


def rsync_listed(output: str) -> list[str]:
    """The files a verbose rsync printed it transferred, relative to its target."""
    from vibe_vault.text import strip_ansi

    lines = strip_ansi(output).splitlines()
    out: list[str] = []
    listing = False  # (what other commands of the line printed is not rsync's list)
    for ln in lines:
        if ln.endswith("incremental file list") or ln == "building file list ... done":
            listing = True
        elif not ln.strip() or ln.startswith("sent "):
            listing = False
        elif listing and not rx(_RSYNC_WORDS).match(ln) and not ln.endswith("/") and \
                " -> " not in ln:
            out.append(ln.rstrip())
    return out


def _usable(path: str) -> bool:
    """A path a command names that can be placed (a pattern can be matched)."""
    return bool(path) and not _not_file(path, tuple(x for x in _NOT_FILES if x not in GLOB))


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
