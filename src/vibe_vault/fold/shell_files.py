"""Files a shell command writes: `cat > f <<'EOF'` (and `cat <<EOF > f`,
`tee f <<EOF`, `>>` to append), whose lines are in the command itself, and
`echo … > f`, `printf … > f`, `cat a > f`, whose lines are not. Pure: a
command in, the writes out, the paths as written (a relative one is the
caller's to place)."""

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


class ShellWrite(Struct, array_like=True, omit_defaults=True):
    """A file a command writes: its path as written, and its lines when the
    command holds them (a here-document's body)."""

    path: str
    body: str | None = None
    append: bool = False  # `>>`, `tee -a`
    exact: bool = False  # `body` is what was written (no `$` expanded in it)


def writes(command: str) -> list[ShellWrite]:
    """The files `command` writes by cat, tee, echo or printf, in order."""
    if ">" not in command and "tee" not in command:
        return []
    out: list[ShellWrite] = []
    lines = command.split("\n")
    i = 0
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
        out.extend(_line_writes(rx(_HEREDOC).sub(" <<HEREDOC ", line), bodies))
    return out[:MAX_WRITES]


def _line_writes(line: str, bodies: list[tuple[str, bool]]) -> list[ShellWrite]:
    """The writes of one line's simple commands; `bodies` are its
    here-documents', in order (each marked `<<HEREDOC` in the line)."""
    out: list[ShellWrite] = []
    words: list[str] = []
    targets: list[ShellWrite] = []
    docs = 0
    for m in rx(_PIECES).finditer(line + ";"):
        if m.group("boundary"):
            doc = bodies[docs] if "<<HEREDOC" in words and docs < len(bodies) else None
            docs += words.count("<<HEREDOC")
            out.extend(_command_writes(words, targets, doc))
            words, targets = [], []
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
