"""`vv` run inside the test process (`Env.vv_here`, `run_here`) does what `vv` run
as a process does: the same exit code, the same bytes on stdout and stderr, the
same files left in the vault and the state folder, whatever ran in the process
before. Many generated end-to-end cases run `vv` this way (one of each runs it as
a process); these tests are why that proves what a process would."""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import vibe_vault
from conftest import FIXTURES, PROCESS_STATE, Env, share_line_key

# Module-level caches that are a function of their arguments alone (or of the
# installed code and data), so a call in a process that made them earlier gets
# what a new process would compute: left as they are between in-process calls.
PURE = {
    "vibe_vault.fold.looks._hook_run": "a decoder of a hook run's line, a constant type",
    "vibe_vault.secret_dress._dress": "the dress pattern for two flags, from the module's tables",
    "vibe_vault.secret_dress._fold_char": "what a character and a flag read as (NFKC, accents)",
    "vibe_vault.secret_dress._combining": "the combining marks' code points, a constant",
    "vibe_vault.secret_names._weak_test": "patterns compiled from the module's name tables",
    "vibe_vault.stopwords.stop_words": "the stop words of the module's lists, folded",
    "vibe_vault.text.title_line": "a title of a text and a limit, a function of them alone",
    "vibe_vault.redact._cut_rules": "the vendor rules whose prefix is their own, from the rule tables",
    "vibe_vault.redact._short_token_rules": "those of _cut_rules a short prefix begins",
    "vibe_vault.redact._join_rules": "the rules a value of literals joined is given to, from the rule table",
    "vibe_vault.redact._glued_random": "the token rules' prefixes a word may end in, from the rule tables",
    "vibe_vault.archive._SYNCFS": "the C library's syncfs, if it has one",
    "vibe_vault.atomic._RENAMEAT2": "whether the C library has renameat2",
    "vibe_vault.backfill._NO_AGENTS": "an empty list shared by jobs, never changed",
    "vibe_vault.entries._attachment_decoder": "a decoder of a fixed type",
    "vibe_vault.entries._envelope_decoder": "a decoder of a fixed type",
    "vibe_vault.entries._progress_decoder": "a decoder of a fixed type",
    "vibe_vault.entries._streamed_decoder": "a decoder of a fixed type",
    "vibe_vault.entries._usage_decoder": "a decoder of a fixed type",
    "vibe_vault.state._kept_decoder": "a decoder of a fixed type",
    "vibe_vault.state._version_decoder": "a decoder of a fixed type",
    "vibe_vault.fold.commands._progress": "a decoder of a fixed type",
    "vibe_vault.fold.context._IN_PROGRESS": "a recursion guard, empty between calls",
    "vibe_vault.fold.context._fields": "a type's fields",
    "vibe_vault.fold.context._holds": "whether a type holds text",
    "vibe_vault.fold.usage._model_usage": "a decoder of a fixed type",
    "vibe_vault.paths._compiled": "a pattern's compiled form",
    "vibe_vault.patterns._kept": "programs of the package's patterns, by pattern",
    "vibe_vault.patterns._new": "those of them made here, for `save` (which cli.entry calls)",
    "vibe_vault.patterns._read": "whether the kept programs were read",
    "vibe_vault.paths._under": "a folder's pattern",
    "vibe_vault.paths._run_here": "a folder's pattern (where a command runs a program there)",
    "vibe_vault.paths.relative_to": "a path's relative form",
    "vibe_vault.pricing._table": "the price table in the package's data",
    "vibe_vault.project._repo_of": "a folder's repository parts",
    "vibe_vault.figures._folders_of": "a folder's parts",
    "vibe_vault.reader._spare": "spare read buffers (their content is overwritten)",
    "vibe_vault.redact._disguising": "a character class's characters",
    "vibe_vault.redact._near_gate": "a pattern's compiled gate",
    "vibe_vault.redact.english_trigrams": "a table from the package's data",
    "vibe_vault.render.memo.code_stamp": "the source files' sizes and times",
    "vibe_vault.search_query._diacritics": "a character's folded form",
    "vibe_vault.search_query.cjk": "a text's CJK runs",
    "vibe_vault.search_query.piece": "a word's query form",
    "vibe_vault.seed_phrase._FLAGS": "patterns from the package's data",
    "vibe_vault.stem.stem": "a word's stem",
    "vibe_vault.stem._other_spelling": "the other spelling of a word, by stem, from a table",
    "vibe_vault.stem._ize": "a pattern",
    "vibe_vault.seed_phrase.words": "the word list in the package's data",
    "vibe_vault.stored_paths.stored_folder": "a folder's stored form",
    "vibe_vault.stored_paths.folder_key": "a folder's key in the database",
    "vibe_vault.text.rx": "a pattern's compiled form",
    "vibe_vault.text.users_rx": "a user's pattern's compiled form",
}


def modules() -> list[object]:
    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(vibe_vault.__path__, "vibe_vault.")
            if not info.name.endswith("__main__")]  # (importing it starts `vv`)


def caches() -> set[str]:
    """Every functools cache vibe_vault's modules define, by module.name."""
    return {f"{module.__name__}.{name}" for module in modules()
            for name, value in vars(module).items()
            if hasattr(value, "cache_clear") and value.__module__ == module.__name__}


def module_globals() -> dict[str, str]:
    """What each module-level value of vibe_vault's modules holds (a repr;
    modules, functions and classes left out), by module.name."""
    import types

    return {f"{module.__name__}.{name}": repr(value) for module in modules()
            for name, value in vars(module).items()
            if not isinstance(value, (types.ModuleType, types.FunctionType, type))
            and not hasattr(value, "cache_clear") and not name.startswith("__")}


def test_every_cache_is_put_back_between_calls_or_pure() -> None:
    """A new cache is put back before each call in this process
    (conftest.PROCESS_STATE) or said here to be pure; else a generated case
    could pass in-process on what an earlier case left in it."""
    assert caches() - set(PROCESS_STATE) - set(PURE) == set(), \
        "add them to conftest.PROCESS_STATE or to PURE"
    for name in [*PROCESS_STATE, *PURE]:  # (a renamed one is not silently dropped)
        module_name, attribute = name.rsplit(".", 1)
        assert hasattr(importlib.import_module(module_name), attribute), name


def test_the_state_put_back_is_what_a_new_process_holds(tmp_path: Path) -> None:
    """PROCESS_STATE's values are those a module holds just imported."""
    code = ("import functools, importlib, json, sys; sys.path.insert(0, sys.argv[1]);"
            "from conftest import PROCESS_STATE;"
            "values = {name: getattr(importlib.import_module(name.rsplit('.', 1)[0]),"
            " name.rsplit('.', 1)[1]) for name in PROCESS_STATE};"
            "print(json.dumps({name: repr(value.cache_info().currsize if initial is"
            " functools.cache else value) for (name, value), initial in"
            " zip(values.items(), PROCESS_STATE.values())}))")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                       capture_output=True, check=False, env=Env(tmp_path).env)
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout) == {
        name: repr(0 if initial is functools.cache else initial)
        for name, initial in PROCESS_STATE.items()}


RECORDED = FIXTURES / "claude-2.1.332" / "projects"
CWD = "/home/dev/vv-fixture-project"


def sessions() -> list[Path]:
    return sorted(RECORDED.glob("*/*.jsonl"))


def commands(env: Env) -> list[tuple[list[str], bytes, Path | None]]:
    """A sample of what a user and Claude Code run, in order (arguments, stdin,
    working folder): hooks of every kind (a bad one too), every command that
    reads or writes, an unknown one. (Each runs three times, once as a
    process: a command's other forms are few.)"""
    first, second = sessions()[:2]
    projects = env.claude / "projects"

    def event(name: str, transcript: Path, **extra: object) -> bytes:
        path = projects / transcript.relative_to(RECORDED)
        return json.dumps({"hook_event_name": name, "session_id": transcript.stem,
                           "transcript_path": str(path), "cwd": CWD, **extra}).encode()

    return [(args, stdin, env.root / "work" if args[0] == "files" else None) for args, stdin in [
        (["hook"], event("Stop", first, stop_hook_active=False)),
        (["hook"], event("Stop", second, last_assistant_message="said last (from hook)")),
        (["hook"], event("PostToolUse", first, tool_use_id="toolu_1", duration_ms=12,
                         tool_name="Bash")),
        (["hook"], b"\x00not json"),
        (["hook"], event("SessionEnd", first, reason="clear")),
        (["backfill"], b""),
        (["backfill", "--dry-run"], b""),
        (["search", "file"], b""),
        (["search", "--json", "the"], b""),
        (["show", first.stem[:8]], b""),
        (["show", "--path", second.stem.upper()], b""),
        (["show", "abc"], b""),
        (["files", "--json", "--", "/home/dev/vv-fixture/project/notes.txt"], b""),
        (["files", "notes.txt"], b""),
        (["stats", "--json"], b""),
        (["index"], b""),
        (["forget", second.stem], b""),
        (["reprocess"], b""),
        (["archive", "--verify"], b""),
        (["resume", first.stem[:8]], b""),
        (["config", "show"], b""),
        (["--version"], b""),
        (["nonsense"], b""),
        (["backfill"], b""),
    ]]


# What differs between two worlds that did the same: where each lives, its files'
# inodes and times (in a state's cursors and the note's stamp, an archive's
# manifest, the database's stamps), the clock when a line was logged or a tool
# hook ran (and so how far into the journal of those a state has read: its
# lines hold the time with as many digits as it has).
STAMPS = {"inode", "note_stamp", "t", "journal_offset"}
CLOCK = re.compile(rb"^\S+ (\S+) pid=\d+ |^\S+ (?=SessionEnd )", re.MULTILINE)
# The database's tables and settings that hold files' stamps, and the full-text
# index itself and its own pages (their layout depends on how its merges fell,
# and the index keeps no rows to list; what a search finds is compared as `vv
# search` prints it).
DB_STAMPS = {"stamps", "indexed", "search", "search_data", "search_idx"}
META_STAMPS = {"states", "backfill_marks"}
FILE_KEY = re.compile(r"~[0-9a-f]{16}")


def unstamped(value: object) -> object:
    if isinstance(value, dict):
        return {k: "<stamp>" if k in STAMPS else unstamped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unstamped(v) for v in value]
    return value


def _rows_of(table: str) -> str:
    """A table's rows, in order; a neighbour key with the session of the
    record it points at, not the record's rowid: a record's rowid is where a
    backfill's parallel workers happened to finish it first (a record put
    again keeps it), storage, not what the key holds."""
    from vibe_vault import neighbours

    if table in neighbours.TABLES:
        return (f'SELECT h, (SELECT session_id FROM records WHERE records.rowid = rec) '
                f'FROM "{table}" ORDER BY 1, 2')
    return f'SELECT * FROM "{table}" ORDER BY 1'


def row_held(row: tuple[object, ...]) -> tuple[object, ...]:
    """A database row; a record's body (msgpack) as what it holds, the stamp of
    each of its files (path, size, time, inode) without the inode."""
    import msgspec

    out: list[object] = []
    for value in row:
        if isinstance(value, bytes) and value[:1] == b"\xde":  # (a msgpack map)
            body = msgspec.msgpack.decode(value)
            body["files"] = [[*stamp[:3], "<stamp>"] for stamp in body.get("files", [])]
            value = body
        out.append(value)
    return tuple(out)


def left_in(env: Env) -> dict[str, object]:
    """Every file `vv` left in the vault and the state folder, by relative
    path, what it holds but for the stamps above; the database as its rows."""
    import sqlite3

    import msgspec

    from vibe_vault.state import decode_state

    out: dict[str, object] = {}
    for root in (env.vault, env.state):
        for path in sorted(root.rglob("*")):
            if path.is_dir() or path.name.endswith(("-wal", "-shm")):
                continue
            data = path.read_bytes().replace(bytes(env.root), b"<root>")
            name, held = str(path.relative_to(env.root)), data
            if path.suffix == ".state":
                held = unstamped(msgspec.to_builtins(decode_state(path.read_bytes())))
                held = json.dumps(held).replace(json.dumps(str(env.root))[1:-1], "<root>")
            elif path.name == "manifest.json":
                held = unstamped(json.loads(data))
            elif path.parent.name == "journal":
                held = [unstamped(json.loads(line)) for line in data.splitlines()]
            elif path.name in ("vv.log", "last-run"):
                held = CLOCK.sub(rb"\1 ", data)
            elif path.suffix == ".db":
                conn = sqlite3.connect(path)
                tables = [t for (t,) in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    if t not in DB_STAMPS]
                # (a file's key digests its path, the world's folder too: see stored_paths)
                held = {t: [FILE_KEY.sub("~<key>", repr(row_held(row))).replace(
                                str(env.root), "<root>")
                            for row in conn.execute(_rows_of(t))
                            if not (t == "meta" and row[0] in META_STAMPS)] for t in tables}
                conn.close()
            out[name] = held
    return out


def world(root: Path, repository: str = "project") -> Env:
    """The recorded sessions where Claude Code keeps them, and a checkout of
    `repository` to run commands in."""
    env = Env(root)
    shutil.copytree(RECORDED, env.claude / "projects")
    share_line_key(env.state)  # (the line fingerprints of both alike)
    (env.root / "work" / ".git").mkdir(parents=True)
    (env.root / "work" / ".git" / "config").write_text(
        f'[remote "origin"]\n\turl = git@example.com:dev/{repository}.git\n')
    return env


def test_a_command_run_here_does_what_it_does_as_a_process(tmp_path: Path) -> None:
    """The same commands, one world run by processes and one in this process,
    with what an earlier world left in the process on the same paths (its
    transcripts cut short, its folders then deleted): every answer and every
    file alike, but for the folder each world lives in."""
    from conftest import fresh_process

    alone, here = world(tmp_path / "alone"), world(tmp_path / "here", "another")
    fresh_process()
    before = module_globals()
    for transcript in (here.claude / "projects").rglob("*.jsonl"):  # the earlier world
        data = transcript.read_bytes()
        transcript.write_bytes(data[: data.index(b"\n", len(data) // 2) + 1])
    for args, stdin, cwd in commands(here):
        here.vv_here(*args, stdin=stdin, cwd=cwd)
    # What those calls changed in the process is all put back before a call.
    changed = {name for name, value in module_globals().items() if before.get(name) != value}
    assert changed - set(PROCESS_STATE) - set(PURE) == set(), \
        "add them to conftest.PROCESS_STATE or to PURE"
    shutil.rmtree(here.root)
    here = world(tmp_path / "here")

    def seen(env: Env, r: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
        """What the user reads, but for the folder and how long it took."""
        return (r.returncode, *(re.sub(rb"(?<= in )[0-9.]+s\b", b"<time>", out).replace(
            bytes(env.root), b"<root>") for out in (r.stdout, r.stderr)))

    for (args, stdin, cwd), (_, stdin_here, cwd_here) in zip(
            commands(alone), commands(here), strict=True):
        want = seen(alone, alone.vv(*args, stdin=stdin, cwd=cwd))
        assert seen(here, here.vv_here(*args, stdin=stdin_here, cwd=cwd_here)) == want, args
    want_files, got_files = left_in(alone), left_in(here)
    assert got_files.keys() == want_files.keys()
    differ = [name for name, data in want_files.items() if got_files[name] != data]
    assert not differ, "\n".join(f"{name}: {where(want_files[name], got_files[name])}"
                                 for name in differ)


def where(want: object, got: object, at: str = "") -> str:
    """Where two values first differ, and how (for a failure's message)."""
    if isinstance(want, str) and want.startswith("{") and isinstance(got, str):
        want, got = json.loads(want), json.loads(got)
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted({*want, *got}, key=str):
            if want.get(key) != got.get(key):
                return where(want.get(key), got.get(key), f"{at}.{key}")
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if a != b:
                return where(a, b, f"{at}[{i}]")
    return f"{at or 'whole'}: {str(want)[:300]!r} as a process, {str(got)[:300]!r} here"
