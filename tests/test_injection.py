"""Every interpolated value is escaped for where it lands: no field can forge a
heading, the user's section, a link, a table column, HTML or a terminal line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter
from vibe_vault.vault import REWRITE_NOTICE, USER_HINT

SID = "1a2b3c4d-0000-4000-8000-000000000001"
HOSTILE = "x\n## My notes\nforged | col ]] [[evil]] #tag ^block <script>alert(1)</script>\u202e\x9b"
USER_HEADING = re.compile(r"^##[ \t]+my[ \t]+notes[ \t]*$", re.IGNORECASE | re.MULTILINE)


def hostile_session(env: Env) -> Path:
    one = HOSTILE.replace("\n", " ")
    base = {"sessionId": SID, "cwd": "/tmp/proj" + one, "gitBranch": HOSTILE,
            "version": HOSTILE}
    entries: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", **base,
         "message": {"role": "user", "content": HOSTILE}},
        {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z", **base,
         "message": {"id": "m1", "model": HOSTILE, "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash",
              "input": {"command": HOSTILE}},
             {"type": "tool_use", "id": "t2", "name": "mcp__a__b" + HOSTILE, "input": {}},
             {"type": "tool_use", "id": "t3", "name": "Edit",
              "input": {"file_path": "/tmp/proj/" + HOSTILE, "old_string": "a",
                        "new_string": "b"}},
             # (failed calls an error names by their URL, their file)
             {"type": "tool_use", "id": "t4", "name": "WebFetch",
              "input": {"url": "https://example.org/" + HOSTILE, "prompt": "x"}},
             {"type": "tool_use", "id": "t5", "name": "Read",
              "input": {"file_path": "/tmp/proj/" + HOSTILE}}],
             "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "user", "uuid": "u2", "timestamp": "2026-01-01T00:00:02Z", **base,
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": HOSTILE, "is_error": True},
             {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
             {"type": "tool_result", "tool_use_id": "t3", "content": "ok"},
             {"type": "tool_result", "tool_use_id": "t4", "content": HOSTILE, "is_error": True},
             {"type": "tool_result", "tool_use_id": "t5", "content": HOSTILE,
              "is_error": True}]}},
        {"type": "assistant", "uuid": "a2", "timestamp": "2026-01-01T00:00:03Z", **base,
         "message": {"id": "m2", "model": "claude-x", "role": "assistant",
                     "content": [{"type": "text", "text": HOSTILE}]}},
        {"type": "ai-title", "aiTitle": HOSTILE, "sessionId": SID},
    ]
    path = env.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_no_field_can_forge_structure(env: Env) -> None:
    path = hostile_session(env)
    end = {"hook_event_name": "SessionEnd", "session_id": SID, "transcript_path": str(path),
           "reason": HOSTILE, "cwd": "/tmp"}
    assert env.hook(end).returncode == 0
    assert env.vv("backfill").returncode == 0
    notes = env.all_notes()
    note = next(v for k, v in notes.items() if "/sessions/" in k)
    assert len(USER_HEADING.findall(note)) == 1
    fm = frontmatter(note)
    assert fm["session_id"] == SID
    for text in notes.values():
        body = text.split("\n---\n", 1)[1]  # YAML strings are quoted, never rendered
        shown = re.sub(r"(?s)```.*?```|`[^`\n]*`", "", body)
        assert "<script" not in shown, shown
        assert "\u202e" not in text and "\x9b" not in text
        # Every table row has as many cells as its header.
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("|---") or line.startswith("|--"):
                width = _cells(lines[i - 1])
                for row in lines[i + 1:]:
                    if not row.startswith("|"):
                        break
                    assert _cells(row) == width, row
        # Every wikilink names a note that exists.
        for target in re.findall(r"\[\[([^\]|#^\\]+)(?:\\?\|[^\]]*)?\]\]",
                                 shown.replace("\\[\\[", "")):
            # (a link to another kind of file, the Base, names it whole)
            assert ((env.vault / (target + ".md")).exists()
                    or (target.endswith(".base") and (env.vault / target).exists())), target


def _cells(row: str) -> int:
    """Cells of a table row: `|` that are not escaped, and not in a code span."""
    row = re.sub(r"`[^`]*`", "", row.replace("\\|", ""))
    return row.count("|")


def test_terminal_output_holds_no_control_or_bidi(env: Env) -> None:
    hostile_session(env)
    assert env.vv("backfill").returncode == 0
    for args in (["stats"], ["stats", "--csv"], ["doctor"]):
        r = env.vv(*args)
        out = (r.stdout + r.stderr).decode()
        assert "\u202e" not in out and "\x9b" not in out and "\x1b" not in out, args


@pytest.mark.corpus
def test_a_project_named_like_a_yaml_word_stays_a_string_tag(env: Env) -> None:
    """`null`, `yes`, `0x1f`: a tag YAML would read as null, a bool or a number
    is quoted, so the note's tags are the project's name as written."""
    from test_hook_contract import SESSION

    for i, name in enumerate(["null", "yes", "0x1f", "1_000"]):
        sid = f"1a2b3c4d-0000-4000-8000-00000000010{i}"
        lines = [json.loads(line) for line in SESSION.read_text().splitlines() if line]
        for entry in lines:
            if "cwd" in entry:
                entry["cwd"] = f"/work/{name}"
            if "sessionId" in entry:
                entry["sessionId"] = sid
        path = env.claude / "projects" / f"-work-{name}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert env.vv("backfill").returncode == 0
    tags = {str(frontmatter(n)["project"]): frontmatter(n)["tags"]
            for n in env.notes().values()}
    assert set(tags) == {"null", "yes", "0x1f", "1_000"}
    for name, got in tags.items():
        assert got[1] == name and all(isinstance(t, str) for t in got), (name, got)


# -- every section, every payload, through a CommonMark parser -----------------
#
# Transcript text is drawn from the payload classes (HTML tags, wikilinks,
# embeds, Obsidian comments, Dataview fields, script and file links, code
# fences and backticks, block starters, entities) and from arbitrary words, put
# in every place of a session that reaches a note (prompt, answer, title, a
# command and Claude's words for it, a commit subject, todos, a subagent's type
# and task, a fetched URL, a search, a tool's name, an error, the model, the
# branch, the project), and the note, its project note and the home note are
# parsed by markdown-it (CommonMark). Nothing may become a tag, link, image,
# embed, comment or inline field, and the words must still be there to read.

PAYLOADS = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "Fix List<String> parsing",
    "[[Secret note]]", "![[image.png]]", "%%hidden%%", "key:: value", "[x](javascript:alert(1))",
    "[f](file:///etc/passwd)", "<javascript:alert(1)>", "![i](https://evil.example/x.png)",
    "`code` and ``", "a`b", "# heading", "- item", "1. one", "> quote", "---", "&lt;b&gt;",
    "#tag ^block", "<!-- c -->", "[^1]", "[ref]: https://x.example", "<https://x.example>",
    "\\[[x]]", "```", "~~~", "|a|b|", "JavaScript:void(0)", "FILE:///c", "x\\`y`",
]
# Arbitrary words, but no emphasis marks: `*` and `_` may still emphasise (that
# makes no tag or link), and would make the shown words differ from the typed.
WORDS = st.text(alphabet=st.characters(categories=["L", "N", "P", "S", "Zs"],
                                       exclude_characters="*_\u2028\u2029"), max_size=20)
PAYLOAD = st.lists(st.one_of(st.sampled_from(PAYLOADS), WORDS), min_size=1, max_size=3).map(
    " ".join).map(str.strip).filter(bool)

FORBIDDEN_TOKENS = {"html_block", "html_inline", "image", "link_open"}
# Obsidian's and Dataview's syntax that CommonMark does not know, in source
# that is neither code nor escaped. A scheme counts at a word's start only:
# GFM's and Obsidian's autolinks begin a URL there, so the `file:` inside
# `https://r.examplefile:///x` is part of an https address, not a file link;
# and only with an address after it: "file: `cmd`" (a description ending in
# "file" before the line's colon) links nothing.
# A tag is Obsidian's: `#` and a run of letters, digits, `_`, `-` or `/` that is not
# digits alone (`#9: x`, "PR #47", is no tag); a block id `^` before anything.
OBSIDIAN = re.compile(r"\[\[|%%|::|\b(?i:javascript|file):(?=\S)"
                      r"|(?:^|\s)(?:\^[^\s#^]|#(?=[\w/-]*[^\d\W]|[\w/-]*[/-]))")
OWN_WIKILINK = re.compile(
    r"\[\[(?:(?:Projects|Daily)/[^\[\]|]*|Sessions\.base)(?:\|[^\[\]]*)?\]\]")


def _unescaped_source(inline: str) -> str:
    """An inline's source with escaped characters and code spans blanked out,
    and the wikilinks vibe-vault itself wrote taken out. Read left to right as
    CommonMark does: a backslash escapes outside a code span only (inside one
    it is literal, so `` `a\\` `` is a span that ends at its second backtick)."""
    out: list[str] = []
    i, n = 0, len(inline)
    while i < n:
        c = inline[i]
        if c == "\\" and i + 1 < n and _ESCAPABLE.match(inline[i + 1]):
            out.append("\0\0")
            i += 2
            continue
        if c != "`":
            out.append(c)
            i += 1
            continue
        run = _BACKTICKS.match(inline, i)
        assert run is not None
        closer = next((m for m in _BACKTICKS.finditer(inline, run.end())
                       if len(m.group(0)) == len(run.group(0))), None)
        if closer is None:
            out.append(run.group(0))  # no span: the backticks are text
            i = run.end()
        else:
            i = closer.end()  # the span, blanked out
    return OWN_WIKILINK.sub("", "".join(out))


_ESCAPABLE = re.compile(r"[!-/:-@\[-`{-~]")
_BACKTICKS = re.compile(r"`+")


def _check_markdown(note: str) -> str:
    """Parse a note's body as CommonMark: no markup from the transcript; return
    the words a reader sees (whitespace collapsed, backticks left out)."""
    from markdown_it import MarkdownIt

    body = note.split("\n---\n", 1)[1] if note.startswith("---\n") else note
    shown: list[str] = []
    tokens = MarkdownIt("commonmark").parse(body)
    for token in tokens:
        if token.type == "html_block" and token.content.strip() in (REWRITE_NOTICE, USER_HINT):
            continue  # vibe-vault's own notes to the reader
        assert token.type not in FORBIDDEN_TOKENS, (token.type, token.content)
        if token.type in ("fence", "code_block"):
            shown.append(token.content)
        if token.type != "inline":
            continue
        source = _unescaped_source(token.content)
        found = OBSIDIAN.search(source)
        assert found is None, (found, token.content)
        for child in token.children or []:
            assert child.type not in FORBIDDEN_TOKENS, (child.type, token.content)
            if child.type in ("text", "code_inline"):
                shown.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                shown.append(" ")
        shown.append(" ")
    return _words("".join(shown))


# What a quote of Markdown shows as formatting, not words: a fence's marker
# line, a list item's or quote's marker, a thematic break (three or more of one
# of `-*_` and nothing else on the line: `--- -->` is words, CommonMark 4.1).
_FORMATTING = re.compile(
    r"^\s*(?:(?:```|~~~).*|([-*_])(?:[ \t]*\1){2,}[ \t]*$|(?:>\s*)+|[-+*]\s+|\d{1,9}[.)]\s+)")


def _markdown_words(text: str) -> str:
    """The words a prompt or answer, quoted as the Markdown it is, shows. A
    line of dashes right under a line of words would underline it into a
    heading: `quote` keeps headings out of quotes, so those dashes are shown
    as typed (they are no thematic break there, CommonMark 4.3). Nor can a
    list item interrupt a line of words unless it is numbered 1 and holds
    words (CommonMark 5.3): `2) two` there is words."""
    out: list[str] = []
    words_above = False
    for line in text.split("\n"):
        if words_above and (
                re.fullmatch(r" {0,3}-+[ \t]*", line)
                or re.match(r" {0,3}(?!1[.)])\d{1,9}[.)](?:[ \t]|$)", line)
                or re.fullmatch(r" {0,3}(?:[-+*]|\d{1,9}[.)])[ \t]*", line)):
            out.append(line)
            continue
        shown = _FORMATTING.sub(" ", line)
        out.append(shown)
        words_above = bool(shown.strip()) and not line.lstrip().startswith(("```", "~~~"))
    return "\n".join(out)


_MD_LINK = re.compile(r"\[([^\[\]\n]+)\]\(([^()\s]+)\)")


def _links_read(text: str) -> str:
    """Quoted words with each Markdown link as the README says it reads: its
    words, and where it points when that is more than its words."""
    def read(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        if "://" in target and target.split("://")[0] not in ("http", "https"):
            # an editor's or file address: the path in it (review 16, finding 10)
            rest = target.split("://", 1)[1]
            target = rest[len("file://"):] if rest.startswith("file://") else \
                rest[len("file"):] if rest.startswith("file/") else rest
        if "://" not in target:
            target = re.sub(r"(:\d+)+(-\d+(:\d+)?)?$", "", target) or target
        return label if target.rstrip("/").endswith(label.strip("`")) else f"{label} ({target})"

    return _MD_LINK.sub(read, text)


def _words(s: str) -> str:
    return " ".join(s.replace("`", "").split())


def _session(p: dict[str, str]) -> list[dict[str, Any]]:
    base = {"sessionId": SID, "cwd": "/tmp/proj", "gitBranch": p["branch"], "version": "2.1.0"}

    def at(i: int) -> str:
        return f"2026-01-01T00:00:{i:02d}Z"

    def assistant(i: int, content: list[dict[str, Any]], model: str = "claude-x") -> dict[
            str, Any]:
        return {"type": "assistant", "uuid": f"a{i}", "timestamp": at(i), **base,
                "message": {"id": f"m{i}", "model": model, "role": "assistant",
                            # recorded whole (a token a character at most): a reply's
                            # usage recorded before it ended is told, in either note
                            "content": content, "usage": {
                                "input_tokens": 1,
                                "output_tokens": max(1, len(json.dumps(content)))}}}

    def results(i: int, *items: tuple[str, str, bool]) -> dict[str, Any]:
        return {"type": "user", "uuid": f"u{i}", "timestamp": at(i), **base,
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tid, "content": out, "is_error": err}
                    for tid, out, err in items]}}

    todos = [{"content": p["todo"], "status": "pending", "activeForm": "x"},
             {"content": p["done"], "status": "completed", "activeForm": "y"}]
    return [
        {"type": "user", "uuid": "u1", "timestamp": at(1), **base,
         "message": {"role": "user", "content": p["prompt"]}},
        assistant(2, [
            {"type": "tool_use", "id": "t1", "name": "Bash",
             "input": {"command": p["command"], "description": p["said"]}},
            {"type": "tool_use", "id": "t2", "name": "Bash",
             "input": {"command": "git commit -m x", "description": ""}},
            {"type": "tool_use", "id": "t3", "name": "TodoWrite", "input": {"todos": todos}},
            {"type": "tool_use", "id": "t4", "name": "Task",
             "input": {"subagent_type": p["agent"], "description": p["task"], "prompt": "go"}},
            {"type": "tool_use", "id": "t5", "name": "WebFetch",
             "input": {"url": p["url"], "prompt": "read"}},
            {"type": "tool_use", "id": "t6", "name": "WebSearch", "input": {"query": p["query"]}},
            {"type": "tool_use", "id": "t7", "name": "mcp__srv__" + p["tool"], "input": {}},
        ], model=p["model"]),
        results(3, ("t1", p["error"], True), ("t2", f"[main abc1234] {p['subject']}", False),
                ("t3", "ok", False), ("t4", "done", False), ("t5", "page", False),
                ("t6", "hits", False), ("t7", "ok", False)),
        assistant(4, [{"type": "text", "text": p["answer"]}]),
        {"type": "ai-title", "aiTitle": p["title"], "sessionId": SID},
    ]


PLACES = ("prompt", "answer", "title", "command", "said", "subject", "todo", "done", "agent",
          "task", "url", "query", "tool", "error", "model", "branch", "project")
@settings(max_examples=examples(10, 30), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.fixed_dictionaries({place: PAYLOAD for place in PLACES}))
def test_no_transcript_text_becomes_markup_in_any_section(payloads: dict[str, str]) -> None:
    from vibe_vault.entries import decode_line
    from vibe_vault.figures import RenderOptions, figures
    from vibe_vault.fold import fold
    from vibe_vault.index import ProjectSums, render_home, render_project
    from vibe_vault.records import make_record
    from vibe_vault.redact import DEFAULT
    from vibe_vault.render import render
    from vibe_vault.state import Fold, SessionState
    from vibe_vault.vault import note_relpath

    # A payload the redaction gate changes is not shown as typed, by design.
    assume(all(DEFAULT.redact(v)[0] == v for v in payloads.values()))
    lines = [json.dumps(e).encode() for e in _session(payloads)]
    state = SessionState(session_id=SID, project=payloads["project"],
                         fold=fold(Fold(), (decode_line(line) for line in lines)))
    state.note = note_relpath(state.project, SID, state.fold.first_ts)
    opts = RenderOptions()
    fig = figures(state, opts)
    note = render(state, opts, fig)
    shown = _check_markdown(note)
    # The note shows what the state holds of each (the fold cleans and
    # redacts transcript text; the note's job is to show that, every word).
    f = state.fold
    kept = {"prompt": f.turns[0].text, "answer": f.turns[-1].answer,
            "todo": f.todos[0].text, "done": f.todos[1].text,
            "subject": f.commits[0].subject, "task": f.subagents[0].description}
    for place, words in kept.items():
        if place in ("prompt", "answer"):
            words = _markdown_words(words)
            # (a Markdown link there reads as its words; inside a code span it stays)
            assert (_words(words) in shown or _words(_links_read(words)) in shown), (
                place, words, shown)
            continue
        assert _words(words) in shown, (place, words, shown)
    assert len(USER_HEADING.findall(note)) == 1
    record = make_record(state, [], opts, fig)
    from vibe_vault.aggregates import Sums
    from vibe_vault.index import ProjectView

    # (a cost by model, so the pie's label is made of the hostile model name too)
    project = render_project(ProjectView(
        state.project, Sums(sessions=1), [], [], {payloads["model"]: 1.0}, record.started,
        record.started, [record]))
    home = render_home([ProjectSums(state.project, 1, record.started, 1, 0.0)], [record])
    for index_note in (project, home):
        shown = _check_markdown(index_note)
        assert _words(payloads["project"]) in shown
        # A label keeps its words; only what would close or split the link
        # is replaced.
        as_label = fig.title.replace("|", "-").replace("]", ")").replace("[", "(")
        assert _words(as_label) in shown


def test_only_the_escapers_make_markdown() -> None:
    """`Md` is made in markdown.py alone, and every `md(...)` line's template is
    our own text (literals and names joined, never a formatted or fetched
    string): the way around the escapers is closed, as `Redacted` closes the
    way around the redaction gate."""
    import ast

    src = Path(__file__).resolve().parents[1] / "src" / "vibe_vault"

    def ours(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return True
        if isinstance(node, ast.Name):
            return True  # a constant or a local made of constants (`key`, `est`)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return ours(node.left) and ours(node.right)
        if isinstance(node, ast.IfExp):
            return ours(node.body) and ours(node.orelse)
        return False

    bad: list[str] = []
    checked = 0
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path.relative_to(src)}:{node.lineno}"
            if path.name != "markdown.py" and (
                    # markdown.Md(...), or cast(Md, ...) / cast("Md", ...)
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "Md")
                    or (isinstance(node.func, (ast.Name, ast.Attribute))
                        and getattr(node.func, "id", getattr(node.func, "attr", "")) == "cast"
                        and node.args and (
                            (isinstance(node.args[0], ast.Name) and node.args[0].id == "Md")
                            or (isinstance(node.args[0], ast.Attribute)
                                and node.args[0].attr == "Md")
                            or (isinstance(node.args[0], ast.Constant)
                                and node.args[0].value == "Md")))):
                bad.append(f"{where}: Md made outside markdown.py")
            if not isinstance(node.func, ast.Name):
                continue
            if node.func.id == "Md" and path.name != "markdown.py":
                bad.append(f"{where}: Md(...) outside markdown.py")
            if node.func.id == "md":
                checked += 1
                if not node.args or not ours(node.args[0]):
                    bad.append(f"{where}: md() with a template that is not ours")
    assert checked > 50  # the sections are written with md()
    assert bad == []


def test_index_notes_are_written_with_the_escapers_only() -> None:
    """The project, home and daily notes (and their charts) build every line
    as `Md` with `md()` (mypy refuses a raw string there): no f-string, `%`
    or `.format` makes one of their lines, so no transcript word can reach
    them unescaped."""
    import ast

    src = Path(__file__).resolve().parents[1] / "src" / "vibe_vault"
    renders = {"index.py": ("render_project", "render_home", "render_daily", "_base_block",
                            "_iso", "_money", "_minutes", "_tokens", "_counted"),
               "charts.py": ("activity", "cost_pie", "pictures")}
    seen = 0
    for name, functions in renders.items():
        for node in ast.walk(ast.parse((src / name).read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in functions:
                seen += 1
                for inner in ast.walk(node):
                    assert not isinstance(inner, ast.JoinedStr), (name, node.name, inner.lineno)
                    assert not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mod)
                                and isinstance(inner.left, ast.Constant)), (name, node.name)
                    assert not (isinstance(inner, ast.Call)
                                and isinstance(inner.func, ast.Attribute)
                                and inner.func.attr == "format"), (name, node.name)
                if node.returns is not None and node.name not in ("render_project",
                                                                  "render_home", "render_daily"):
                    assert "Md" in ast.unparse(node.returns), (name, node.name)
    assert seen == sum(len(f) for f in renders.values())


# -- Mermaid labels -------------------------------------------------------------
#
# The oracle is Mermaid's own grammar, as facts: a pie slice and an xychart's
# category are a double-quoted string (`"[^"]*"`) on one line; `%%{…}%%` is a
# directive wherever it stands; `#name;` and `#123;` are entity codes Mermaid
# decodes; labels are drawn as HTML; a fence at a line's start ends the block.

MERMAID_HOSTILE = st.lists(st.one_of(
    st.sampled_from(['"', '"]; click A call alert()', "%%{init: {'theme':'dark'}}%%", "%%",
                     "#quot;", "#35;", "<b>x</b>", "</br>", "`md`", "```", "~~~", "\n", "\r",
                     "\x00", "\u202e", "\u2066", "\u200b", "\u2028", "\t", "end", ": 5",
                     "x-axis [a, b]", "pie title X", "[[Note]]", "|"]),
    WORDS), min_size=1, max_size=5).map("".join)


@settings(max_examples=200, deadline=None)
@given(MERMAID_HOSTILE)
def test_a_mermaid_label_is_one_quoted_string_of_the_words(words: str) -> None:
    from vibe_vault.markdown import md, mermaid_block, mermaid_label

    label = mermaid_label(words, max_chars=10_000)
    block = mermaid_block([md("pie"), md("{} : {}", label, 3)])
    assert block[0] == "```mermaid" and block[-1] == "```" and len(block) == 4
    slice_line = block[2]
    m = re.fullmatch(r'"([^"\n\r]*)" : 3', slice_line)
    assert m, slice_line
    inner = m.group(1)
    assert "%%" not in inner and not re.search(r"#\w+;", inner)
    assert "<" not in inner and ">" not in inner and "`" not in inner
    assert inner.isprintable() and not re.search("[\u202a-\u202e\u2066-\u2069]", inner)
    # The words are there: every letter and digit typed, in order.
    assert [c for c in inner if c.isalnum()] == [c for c in words if c.isalnum()
                                                 and c.isprintable()]
    # Cut at max_chars with an ellipsis.
    assert len(mermaid_label("x" * 100, max_chars=20)) == 22


# -- the class of injection: hostile strings in every field --------------------
#
# Not a list of known payloads: a strategy that composes every construct
# CommonMark, Obsidian, Dataview, YAML and Mermaid give meaning to, with line
# breaks, NUL, bidi and zero-width characters, into a real session transcript
# in every field that reaches a note. The oracle is independent of the
# escapers: markdown-it's parse of the written note (CommonMark with tables)
# must have exactly the block structure of the same session written with
# plain words in those fields (outside the quotes of prompts and answers,
# which keep the user's own Markdown), no html, link or image anywhere, no
# Obsidian syntax outside code; `yaml.safe_load` of the frontmatter is a
# mapping with the same keys, and its title is the title; and the words the
# state keeps are shown as text.

CONSTRUCTS = [
    # CommonMark
    "[link](https://evil.example)", "![img](https://evil.example/x.png)", "<https://a.example>",
    "<a@b.example>", "<b>bold</b>", "<script>x()</script>", "<!-- c -->", "<?php x ?>",
    "<![CDATA[x]]>", "&amp;", "&#x3C;", "# h1", "## My notes", "###### h6", "Setext\n===",
    "x\n---", "- item", "* item", "+ item", "1. one", "2) two", "> quote", "    indented code",
    "```", "```js", "~~~", "`code`", "``", "***", "___", "[ref]: https://r.example",
    "[ref]", "[x][ref]", "\\", "\\`", "*em*", "**strong**", "_u_",
    # tables
    "|", "| a | b |", "|---|---|", "a|b",
    # footnotes, Obsidian, Dataview
    "[^1]", "[^1]: note", "[[Note]]", "[[Note|label]]", "![[embed.png]]", "![[Note#h]]",
    "#tag", "#nested/tag", "%%comment%%", "%%", "==highlight==", "^block-id", "key:: value",
    "[key:: value]", "$$x$$", "> [!note] callout",
    # schemes
    "javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "vbscript:x",
    # YAML
    ": x", "- a", "? q", "{a: b}", "[a, b]", "&anchor", "*alias", "!!python/object:os.system",
    "---", "...", "'", '"', "key: value", "null", "yes", "0x1f", "@at",
    # Mermaid
    '"]; click A call alert()', "%%{init: {'theme':'dark'}}%%", "#quot;", "#35;", "</br>",
    "end", "-->", "x-axis [a, b]", "pie title X",
]
CONTROLS = ["\n", "\n\n", "\r\n", "\r", "\t", "\x00", "\x1b[31m", "\x9b", "\x7f", "\u202e",
            "\u2066", "\u200b", "\u200d", "\ufeff", "\u2028", "\u2029", "\u0085"]
HOSTILE_TEXT = st.lists(
    st.one_of(st.sampled_from(CONSTRUCTS), st.sampled_from(CONTROLS), WORDS,
              st.sampled_from([" ", " ", "\n"])),
    min_size=1, max_size=6).map("".join).filter(lambda s: any(c.isalnum() for c in s))

# Every field of a transcript that reaches a note.
FIELDS = ("prompt", "answer", "title", "summary", "command", "said", "path", "pattern",
          "error", "subject", "agent", "task", "model", "branch", "todo", "query", "url",
          "project")
PLAIN = {place: f"plain{place}" for place in FIELDS}
PLAIN["path"] = "plain.py"


def _full_session(p: dict[str, str]) -> list[dict[str, Any]]:
    entries = _session({**p, "done": p["todo"] + " done", "tool": "plain",
                        "said": p["said"]})
    # The Bash call's commit prints the subject; an Edit of a file, a Grep
    # with a pattern, and a summary of this session close the transcript.
    base = {k: entries[0][k] for k in ("sessionId", "cwd", "gitBranch", "version")}
    entries[1]["message"]["content"].append(
        {"type": "tool_use", "id": "t8", "name": "Edit",
         "input": {"file_path": "/tmp/proj/" + p["path"], "old_string": "a", "new_string": "b"}})
    entries[1]["message"]["content"].append(
        {"type": "tool_use", "id": "t9", "name": "Grep", "input": {"pattern": p["pattern"]}})
    entries[2]["message"]["content"] += [
        {"type": "tool_result", "tool_use_id": "t8", "content": "ok", "is_error": False},
        {"type": "tool_result", "tool_use_id": "t9", "content": "x", "is_error": False}]
    entries.insert(-1, {"type": "summary", "summary": p["summary"], "leafUuid": "a4", **base})
    return entries


def _strings(value: Any) -> list[str]:
    """Every string a JSON value holds, keys and values."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _state(p: dict[str, str]) -> Any:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold, SessionState
    from vibe_vault.vault import note_relpath

    lines = [json.dumps(e).encode() for e in _full_session(p)]
    state = SessionState(session_id=SID, project=p["project"],
                         fold=fold(Fold(), (decode_line(line) for line in lines)))
    state.note = note_relpath(state.project, SID, state.fold.first_ts)
    return state


def _notes(p: dict[str, str]) -> tuple[Any, Any, dict[str, str]]:
    """A session's state, figures and every note it reaches: its own, its
    project's, the home note and its day's note."""
    from vibe_vault.aggregates import Sums
    from vibe_vault.figures import RenderOptions, figures
    from vibe_vault.index import (
        ProjectSums,
        ProjectView,
        render_daily,
        render_home,
        render_project,
    )
    from vibe_vault.records import make_record
    from vibe_vault.render import render

    state = _state(p)
    opts = RenderOptions()
    fig = figures(state, opts)
    record = make_record(state, [], opts, fig)
    view = ProjectView(state.project, Sums(sessions=1), [], [], {p["model"]: 1.0},
                       record.started, record.started, [record])
    return state, fig, {
        "session": render(state, opts, fig),
        "project": render_project(view),
        "home": render_home([ProjectSums(state.project, 1, record.started, 1, 0.0)], [record]),
        "daily": render_daily(record.started[:10], [record]),
    }


def _blocks(note: str) -> list[str]:
    """The note's block structure as markdown-it (CommonMark and tables) parses
    it: every block token's type and nesting, a quote as one block (a quoted
    prompt or answer keeps its own Markdown), and a table's cells."""
    from markdown_it import MarkdownIt

    body = note.split("\n---\n", 1)[1] if note.startswith("---\n") else note
    out: list[str] = []
    depth = 0
    for token in MarkdownIt("commonmark").enable("table").parse(body):
        if token.type == "blockquote_open":
            depth += 1
        # A fence is code (an error's output below its first line): inert, and
        # there or not by the text's lines; what must not change is the rest.
        if depth == 0 and token.type not in ("inline", "fence", "code_block"):
            out.append(f"{token.level}:{token.type}:{token.tag}")
        if token.type == "blockquote_close":
            depth -= 1
            if depth == 0:
                out.append("quote")
    return out


def _emphasis(note: str) -> list[str]:
    """The emphasis outside quotes, in order: markdown-it's em, strong and
    strike (GFM's `~~`) and Obsidian's `==` highlight in unescaped source.
    Outside the quoted prompts and answers all of it is vibe-vault's own (a
    title, a task, a commit subject, a table cell is a label: `*args` and
    `__init__.py` are shown as typed)."""
    from markdown_it import MarkdownIt

    body = note.split("\n---\n", 1)[1] if note.startswith("---\n") else note
    # The target of a wikilink of ours is a vault path, which Obsidian reads as
    # a whole before any emphasis (a project folder `a-~~~` strikes nothing);
    # markdown-it knows no wikilinks, so the target is left out here. The
    # label after `|` is parsed: it is escaped words.
    body = re.sub(r"\[\[(?:Projects|Daily)/[^\[\]|]*", "[[target", body)
    out: list[str] = []
    depth = 0
    for token in MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(body):
        depth += token.type == "blockquote_open"
        depth -= token.type == "blockquote_close"
        if depth or token.type != "inline":
            continue
        out += [c.type for c in token.children or []
                if c.type in ("em_open", "strong_open", "s_open")]
        out += ["highlight"] * _unescaped_source(token.content).count("==")
    return out


def _bare(s: str) -> str:
    """The words, as a reader compares them: emphasis marks and characters
    that show nothing (controls, bidi, zero-width) left out."""
    import unicodedata

    return _words("".join(c if c.isprintable() else "" if unicodedata.category(c) == "Cf"
                          else " " for c in re.sub(r"[*_]", "", s)))


def _frontmatter(note: str) -> dict[str, Any]:
    import yaml

    assert note.startswith("---\n")
    loaded = yaml.safe_load(note[4:note.index("\n---\n", 4)])
    assert isinstance(loaded, dict), loaded
    return loaded


BIDI_AND_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@settings(max_examples=examples(10, 60), deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.generate])
@given(st.fixed_dictionaries({place: HOSTILE_TEXT for place in FIELDS}))
def test_hostile_text_in_every_field_stays_text(hostile: dict[str, str]) -> None:
    from vibe_vault.figures import ending
    from vibe_vault.redact import DEFAULT

    # A string the redaction gate changes is not shown as typed, by design:
    # every string of the session, not only the drawn ones (the completed
    # todo is the drawn one plus " done": `rclone obscure` + " done" hides
    # "done" as the password it names).
    assume(all(DEFAULT.redact(v)[0] == v for v in _strings(_full_session(hostile))))
    state, fig, notes = _notes(hostile)
    # An answer ending on a question is an open thread of its own (one more
    # list item, quoting it): the plain session asks one too, so the quote's
    # escaping is compared like every other place's.
    asks = bool(ending(state).question)
    plain_state, _, plain = _notes({**PLAIN, "answer": "plainanswer?"} if asks else PLAIN)
    assert bool(ending(plain_state).question) == asks
    f, pf = state.fold, plain_state.fold
    # The fold reads the same session: what it makes of a field's text (a
    # prompt that is all whitespace is no prompt) is the fold's business.
    assume(len(f.turns) == len(pf.turns) and len(f.commits) == len(pf.commits)
           and len(f.subagents) == len(pf.subagents) and len(f.todos) == len(pf.todos)
           and len(f.errors) == len(pf.errors) and bool(f.own_summary) == bool(pf.own_summary)
           and [t.kind for t in f.turns] == [t.kind for t in pf.turns]
           # An answer of nothing but terminal escapes is no answer once they are stripped.
           and [bool(t.answer) for t in f.turns] == [bool(t.answer) for t in pf.turns]
           and len(f.model_switches) == len(pf.model_switches)
           and all(c.subject.strip() for c in f.commits)
           # A subject that starts on the line after git's `[branch sha]` is
           # a commit with no sha known: vibe-vault says so in its own words.
           and [bool(c.sha) for c in f.commits] == [bool(c.sha) for c in pf.commits])
    for name, note in notes.items():
        assert not BIDI_AND_CONTROLS.search(note), (name, BIDI_AND_CONTROLS.search(note))
        assert _blocks(note) == _blocks(plain[name]), name
        assert _emphasis(note) == _emphasis(plain[name]), name
        shown = _check_markdown(note)
        if name == "session":
            fm = _frontmatter(note)
            assert fm.keys() == _frontmatter(plain[name]).keys()
            assert fm["title"] == fig.title and fm["project"] == state.project
            kept = {"prompt": _markdown_words(f.turns[0].text),
                    "answer": _markdown_words(f.turns[-1].answer),
                    "title": fig.title, "todo": f.todos[0].text,
                    "subject": f.commits[0].subject, "task": f.subagents[0].description}
            for place, words in kept.items():
                # Emphasis marks may emphasise (no element but em/strong); a
                # Markdown link in a prompt or answer reads as its words.
                assert _bare(words) in _bare(shown) or (
                    place in ("prompt", "answer")
                    and _bare(_links_read(words)) in _bare(shown)), (place, words, shown)
        else:
            assert _bare(state.project) in _bare(shown), name
        if name in ("project",):
            fm = _frontmatter(note)
            assert fm.keys() == _frontmatter(plain[name]).keys()
            assert fm["project"] == state.project


