"""`vv search QUERY`: find past sessions by what was said and done in them;
`vv search --file PATH` (also `vv files PATH`): every session that changed a file.

Reads the vault's database (vaultdb), first catching it up with the sessions
that changed since they were indexed.
"""

from __future__ import annotations

import os
import re
import sys
import time

from vibe_vault import times
from vibe_vault.config import Config

TYPE_CHECKING = False  # typing costs a search 3 ms to import
if TYPE_CHECKING:
    import argparse
    import sqlite3
    from types import SimpleNamespace
    from typing import Any

    from vibe_vault.vaultdb import Change, Hit

EXAMPLES = """examples:
  vv search login redirect
  vv search '"rate limit"' -flaky --since 2w
  vv search migrat* --project api --json
  vv search --file src/auth.py"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from vibe_vault.helpformat import Formatter

    p = sub.add_parser(
        "search",
        help="find past sessions by what was asked, said and done in them",
        description="Full-text search over every session's title, prompts, answers, subagents, "
        "actions, commands, files, commits, errors and todos (the redacted text the notes "
        "hold), best match first. Words must all match, each in any of its forms (improve: "
        "improved, improvements); \"a phrase\" matches as written; "
        "prefix* matches words starting so; -word leaves out sessions that have it.",
        epilog=EXAMPLES,
        formatter_class=Formatter,
    )
    p.add_argument("query", nargs="*", metavar="QUERY")
    p.add_argument("--file", metavar="PATH",
                   help="instead: every session that changed this file, newest first")
    add_filters(p)
    p.add_argument("--open", action="store_true",
                   help="open the best hit's note (in Obsidian when the vault is one, "
                   "else in $EDITOR)")
    p.add_argument("--reindex", action="store_true",
                   help="build the search index again from scratch first")
    p.set_defaults(func=run, negations=True)


# What the parser above makes of `vv search WORD...` beside the words: every
# option's default (tests/test_cli.py checks this against the parser itself).
WORDS_ONLY_DEFAULTS: dict[str, object] = {
    "vault": None, "file": None, "project": None, "since": None, "limit": None, "json": False,
    "open": False, "reindex": False, "negations": True, "literal": []}


def words_only(argv: list[str]) -> SimpleNamespace | None:
    """`vv search WORD...` parsed as the parser above parses it, when every
    argument after `search` is a word to look for (none begins with "-"):
    the commonest search, spared argparse, which with gettext and locale
    costs it ~5 ms, a tenth of the answer. None for anything else."""
    words = argv[1:]
    if argv[:1] != ["search"] or not words or not all(w and w[0] != "-" for w in words):
        return None
    from types import SimpleNamespace

    return SimpleNamespace(command="search", query=list(words), func=run,
                           **{k: list(v) if isinstance(v, list) else v
                              for k, v in WORDS_ONLY_DEFAULTS.items()})


def add_filters(parser: argparse.ArgumentParser) -> None:
    from vibe_vault.helpformat import count_between

    parser.add_argument("--project", metavar="NAME", help="only this project's sessions")
    parser.add_argument("--since", metavar="DATE",
                   help="only sessions started on or after DATE (2026-11-01, or 3d, 2w, 6m, 1y)")
    parser.add_argument("--limit", type=count_between(1, 100_000), metavar="N",
                   help="at most N results (default 10 sessions, or 100 changes of a file)")
    parser.add_argument("--json", action="store_true",
                   help="print a JSON array of objects instead of text")


def since_date(text: str, now: float | None = None) -> str:
    """An ISO date from `YYYY-MM-DD` or an age like `3d`, `2w`, `6m`, `1y`."""
    text = text.strip().lower()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            time.strptime(text, "%Y-%m-%d")
        except ValueError:  # (its own words, "day is out of range for month", name no option)
            raise ValueError(f"--since {text!r} is not a date of the calendar") from None
        return text
    if text in ("today", "yesterday"):
        text = "0d" if text == "today" else "1d"
    m = re.fullmatch(r"(\d+)\s*([dwmy])", text)
    if not m:
        raise ValueError(f"--since {text!r}: give a date (2026-11-01) or an age (3d, 2w, 6m, 1y)")
    days = int(m.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]
    when = (time.time() if now is None else now) - days * 86400
    return times.day_of_epoch(when)  # the day it was where the user is


def open_db(cfg: Config, reindex: bool = False) -> sqlite3.Connection | None:
    """The database, caught up; None (with a message) when it cannot be had."""
    import contextlib
    import sqlite3

    from vibe_vault import vaultdb
    from vibe_vault.lock import backfill_running

    busy = not reindex and backfill_running(cfg.state_dir)
    if busy:
        print("vv: a backfill is at work: sessions it has not reached yet are not found",
              file=sys.stderr)
    try:
        conn = vaultdb.ready(cfg.state_dir, reindex=reindex, caught_up=not busy)
        # A secret learned late leaves the file too (busy: the next reader or
        # `vv index` purges).
        with contextlib.suppress(sqlite3.OperationalError):
            vaultdb.purge_soon(conn, cfg)
        older = vaultdb.older_states(conn)
        if older:
            # (after an upgrade: their states are rebuilt from the transcripts
            # by a backfill, or by the session's next hook)
            print(f"vv: {older} session{'s' if older != 1 else ''} saved by an older vv "
                  "cannot be found until `vv backfill` reads them again", file=sys.stderr)
        return conn
    except sqlite3.OperationalError as exc:
        if vaultdb.trouble(exc) != "busy":
            raise  # damaged (rebuilt, once) or read-only: one line from the command line
        print(f"vv: the search index is busy ({exc}); try again in a moment", file=sys.stderr)
    except OSError as exc:
        print(f"vv: cannot open the search index: {exc.strerror or exc}", file=sys.stderr)
    return None


def find_session(conn: sqlite3.Connection, given: str, projects_root: str = "") -> Hit | None:
    """The session a full or short id names (any case), or None with a message:
    too short, no such session, or a session that has no note (one whose
    transcript is missing: only its subagents' files in `projects_root`)."""
    from vibe_vault.session_ids import SHORT, SessionNotFound, pick
    from vibe_vault.vaultdb import sessions_starting

    typed = given.strip()
    named = re.fullmatch(_NOTE_NAME, typed)
    # (the note's own name, or its path, names its session by the short id
    # it ends with: review 27, G14)
    given = (named.group(1) if named else typed).lower()  # ids are lower-case UUIDs
    if len(given) < SHORT:
        print(f"vv: {typed!r} is too short: give at least {SHORT} characters of the "
              "session id (the short id in the note's name)", file=sys.stderr)
        return None
    candidates = {h.session_id: h for h in sessions_starting(conn, given, 50)}
    if not candidates:
        # The short id in a note's name is a digest of an id that is not a
        # UUID (`ses_stage0_small`'s note ends in `-a33b5c10.md`).
        candidates = {h.session_id: h for h in _named_in_note(conn, given)}
    try:
        return candidates[pick(given, candidates, shortest=SHORT,
                               typed=typed if named is None else given)]
    except SessionNotFound as exc:
        print(f"vv: {_without_note(conn, given) or _orphaned(projects_root, given) or exc}",
              file=sys.stderr)
        return None


# A note's name as the vault writes it (`2026-01-21-1050-839b35f7`), alone or
# as a path, with or without `.md`: the short id is its last part.
_NOTE_NAME = r"(?:.*[/\\])?\d{4}-\d\d-\d\d-\d{4}-([0-9A-Za-z]{8,})(?:\.md)?"


def _named_in_note(conn: sqlite3.Connection, given: str) -> list[Hit]:
    """The sessions whose note's name ends with a short id starting with `given`."""
    from vibe_vault.vaultdb import sessions_whose_note

    out = []
    for hit in sessions_whose_note(conn, f"%-{given}%.md", 50):
        stem = hit.note.rsplit("/", 1)[-1][:-3]
        if stem.rsplit("-", 1)[-1].lower().startswith(given):
            out.append(hit)
    return out


def _without_note(conn: sqlite3.Connection, given: str) -> str:
    """What to say of an id that names only sessions with no note, or ""."""
    from vibe_vault.registry import records_where

    found = list(records_where(
        conn, "session_id >= ? AND session_id < ? AND NOT has_note",
        (given, given + "\U0010ffff")))[:2]
    if len(found) != 1:
        return ""
    rec = found[0]
    if rec.files and rec.files[0].size == 0:  # (the transcript's stamp comes first)
        # A transcript Claude Code made and wrote nothing to, or emptied
        # (review 27 #15, #13: 2c5941bd; 6c2214d7, whose subagents' files remain).
        agents = "; only its subagents' files hold entries" if any(
            f.size for f in rec.files[1:]) else ""
        return (f"session {rec.session_id} has no note: its transcript is empty (0 bytes"
                f"{agents}), so there is nothing to show or resume")
    return (f"session {rec.session_id} has no note: its transcript holds no request of yours "
            "(nothing asked, nothing answered), so there is nothing to show or resume")


def _orphaned(projects_root: str, given: str) -> str:
    """What to say of an id that names only subagent files, their session's
    transcript missing (review 28 G: the corpus's agent-1674bc8c.jsonl, of
    session 5b97e2d4, was "no session '5b97e2d4' is known"), or ""."""
    from vibe_vault.discover import orphan_agents
    from vibe_vault.text import terminal_safe

    if not projects_root or not os.path.isdir(projects_root):
        return ""
    found = orphan_agents(projects_root, given)
    if len(found) != 1:
        return ""
    (sid, paths), = found.items()
    folders = sorted({os.path.dirname(p) for p in paths})
    where = folders[0] if len(folders) == 1 else os.path.commonpath(folders)
    files = f"{len(paths)} file{'s' if len(paths) != 1 else ''}"
    return (f"session {terminal_safe(sid)} has no note: its transcript is missing; only its "
            f"subagents' files are here ({files} in {terminal_safe(where)}), so there is "
            "nothing to show or resume")


def session_named(cfg: Config, given: str) -> tuple[Hit | None, int]:
    """The session a full or short id names, and the exit code when there is none
    (the message said)."""
    conn = open_db(cfg)
    if conn is None:
        return None, 1
    try:
        hit = find_session(conn, given, cfg.projects_root)
    finally:
        conn.close()  # the last connection out folds SQLite's write-ahead log back in
    return hit, 0 if hit is not None else 2


def day_and_time(iso_ts: str) -> str:
    return times.day_and_time(iso_ts) if iso_ts else "(no date)"  # where the user is


def read_note(cfg: Config, hit: Hit, limit: int = 1 << 20) -> str:
    from vibe_vault.regular import read_text

    try:  # (a FIFO or device in the vault is refused, never waited on)
        return read_text(os.path.join(cfg.vault, *hit.note.split("/")), limit)[:limit]
    except OSError:
        return ""


def title_in(note: str) -> str:
    """The `title:` of a note's frontmatter (a plain or a double-quoted YAML
    scalar, as vibe-vault writes them; its escapes are JSON's)."""
    for line in note[:8192].split("\n")[1:]:
        if line == "---":
            break
        if line.startswith("title: "):
            value = line[7:]
            inner = value[1:-1]
            if (len(value) > 1 and value[0] == value[-1] == '"'
                    and "\\" not in inner and '"' not in inner):
                return inner  # nothing escaped: no need to import json (1 ms a search)
            if value.startswith('"'):
                import json

                try:
                    return str(json.loads(value))
                except ValueError:
                    return value.strip('"')
            return value
    return ""


def hit_object(cfg: Config, hit: Hit, note: str, snippet: str = "") -> dict[str, Any]:
    from vibe_vault.resume import resume_command

    return {
        "session_id": hit.session_id, "title": title_in(note), "project": hit.project,
        "started": hit.started, "ended": hit.ended, "status": hit.status,
        "note": os.path.join(cfg.vault, *hit.note.split("/")), "cwd": hit.cwd,
        "resume": resume_command(hit.cwd, hit.session_id), "snippet": snippet,
        "score": hit.score,
    }


def _bold(text: str, tty: bool) -> str:
    return f"\x1b[1m{text}\x1b[0m" if tty else text


def print_hit(obj: dict[str, Any], lines: list[str], tty: bool) -> None:
    from vibe_vault.text import terminal_safe

    print(_bold(terminal_safe(obj["title"] or "(untitled)"), tty))
    print(terminal_safe(f"  {day_and_time(obj['started'])} · {obj['project']} · "
                        f"{obj['session_id'][:8]}"))
    for line in lines:
        line = terminal_safe(line)
        if tty:
            line = re.sub(r"\*\*(.+?)\*\*", "\x1b[1m\\1\x1b[0m", line)
        print(f"  {line}")
    print(terminal_safe(f"  {obj['note']}"))
    print(terminal_safe(f"  {obj['resume']}"))


def query_words(given: list[str], literal: list[str]) -> list[str]:
    """The query's words; those given after `--` are words to look for even
    when they start with `-`: the dashes, which the index does not hold, are
    dropped, so `-flag` is the word `flag`, matching its forms as a word does
    (quoted when what is left holds a quote or ends with `*`, which the
    query syntax would read)."""
    out = list(given)
    for word in literal:
        if word.startswith("-"):
            word = word.lstrip("-")
            if '"' in word or word.endswith("*"):
                word = '"' + word.replace('"', " ") + '"'
        out.append(word)
    return out


def run(args: argparse.Namespace | SimpleNamespace, cfg: Config) -> int:
    if args.file:
        return file_history(args, cfg, args.file)
    try:
        since = since_date(args.since) if args.since else ""
    except ValueError as exc:
        print(f"vv: {exc}", file=sys.stderr)
        return 2
    words = " ".join(query_words(args.query, getattr(args, "literal", [])))
    if not words.strip() and not args.reindex:
        print("vv: what should I look for? (vv search --help)", file=sys.stderr)
        return 2
    from vibe_vault.search_query import BadQuery, parse

    query = None
    if words.strip():
        try:
            query = parse(words)
        except BadQuery as exc:
            print(f"vv: {exc}", file=sys.stderr)
            return 2
    conn = open_db(cfg, reindex=args.reindex)
    if conn is None:
        return 1
    from vibe_vault import vaultdb

    try:
        if query is None:
            count = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            print(f"search index rebuilt: {count} sessions")
            return 0
        # Each word typed plainly also matches its other forms the index holds
        # (improve: improvements, improver), so sessions holding those are found.
        # ... and the words related to it (related.py: subfolder, folder,
        # directory), found below the word itself.
        query = query.widened(lambda word: vaultdb.forms_of(conn, word),
                              lambda word, forms: vaultdb.related_of(conn, word, forms))
        own = query.exact
        hits = vaultdb.search(conn, query.fts, project=args.project or "", since=since,
                              limit=max(args.limit or 10, 1), phrase=query.together,
                              tiers=query.tiers, left_out=query.left_out,
                              as_typed=query.as_typed, near=query.near,
                              exact=(own.together, own.tiers, own.near) if own else None)
        limit = max(args.limit or 10, 1)
        # for each hit, the wanted parts it holds (all, unless a closest match)
        held = [query.parts] * len(hits)
        if len(hits) < limit and len(query.parts) > 1:
            # Fewer sessions hold every word than were asked for: the sessions
            # holding most of them follow, said as such (people type sentences).
            found = {hit.doc for hit in hits}
            exact = ({part: bare for part, bare in zip(query.wanted, own.wanted, strict=True)
                      if part != bare} if own else None)
            near = [(hit, parts) for hit, parts in vaultdb.closest(
                conn, query.parts, query.unwanted, project=args.project or "",
                since=since, limit=limit, exact=exact) if hit.doc not in found][:limit - len(hits)]
            hits += [hit for hit, _ in near]
            held += [parts for _, parts in near]
        shown: list[tuple[str, str]] = []
        if hits:  # (the snippet's module and the vault's rules it reads by: ~1.5 ms)
            from vibe_vault.snippet import snippet_in

            # The line that matched, from the session's whole text (not the note's
            # cut): the one showing the rarest of the words (weighed as bm25 weighs
            # them; a query of one word has none to weigh against another).
            weighed = None
            if len(set(query.groups)) > 1:
                weight = vaultdb.weights(conn, query.wanted)
                weighed = [weight[part] for part in query.groups]
            # A closest match's line marks the words of the parts it holds
            # only (`NEAR(use pnpm)` holds "pnpm", not the phrase "near use",
            # so "use" is not marked as found).
            for hit, parts in zip(hits, held, strict=True):
                keep = [query.wanted[group] in parts for group in query.groups]
                shown.append(snippet_in(
                    vaultdb.texts_of(conn, hit.doc),
                    [t for t, k in zip(query.terms, keep, strict=True) if k],
                    roots=[r for r, k in zip(query.roots, keep, strict=True) if k],
                    weights=None if weighed is None else
                    [w for w, k in zip(weighed, keep, strict=True) if k]))
    finally:
        conn.close()  # the last connection out folds SQLite's write-ahead log back in
    from vibe_vault.search_query import PARTS

    objects = []
    for i, (hit, (column, line)) in enumerate(zip(hits, shown, strict=True)):
        obj = hit_object(cfg, hit, read_note(cfg, hit, 8192), line)
        obj["matched"] = PARTS.get(column, "")
        obj["words"] = {"held": len(held[i]), "of": len(query.parts) if query else 0}
        objects.append(obj)
    if args.json:
        import json

        print(json.dumps(objects, ensure_ascii=False, indent=2))
    elif not objects:
        print("no session matches" + (" (vv search --help for the syntax)" if '"' in words
                                      or "*" in words else ""))
    else:
        tty = sys.stdout.isatty()
        for i, obj in enumerate(objects):
            words = obj["words"]
            partial = words["held"] < words["of"]
            if partial and (i == 0 or objects[i - 1]["words"]["held"] == words["of"]):
                # (the stop words typed are not asked, so not counted: said,
                # lest "holds 3 of the 4 words" read wrong for a query of 8)
                ignored = query.ignored if query else ()
                print(("\n" if i else "") + ("no session has every word" if i == 0 else
                                              "sessions with some of the words")
                      + ": the closest first (the rarer the words it holds, the closer)"
                      + (f"; common words not counted: {', '.join(ignored)}"
                         if ignored else ""))
            if i:
                print()
            lines = [f"{obj['matched']}: {obj['snippet']}"] if obj["snippet"] else []
            if partial:
                lines.insert(0, f"holds {words['held']} of the {words['of']} words")
            print_hit(obj, lines, tty)
    if args.open and objects:
        return open_note(cfg, objects[0]["note"])
    return 0  # finding nothing is an answer, not a failure


def _repo_root(start: str) -> str:
    folder = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return ""
        folder = parent


def file_candidates(given: str, cwd: str, root: str) -> tuple[list[str], str]:
    """The absolute paths PATH may mean (as typed from `cwd`, or from `root`,
    the top of the repository there, if any), and the relative form to match
    by its end."""
    path = os.path.expanduser(given)
    if os.path.isabs(path) or re.match(r"^[A-Za-z]:[\\/]", path):
        given_paths = [os.path.normpath(path) if os.path.isabs(path) else path]
        return given_paths + _in_repo(given_paths), ""
    paths = [os.path.normpath(os.path.join(cwd, path))]
    if root:
        paths.append(os.path.normpath(os.path.join(root, path)))
    rel = os.path.normpath(path)
    paths.append(path)  # as the transcript may hold it, when Claude used a relative path
    return list(dict.fromkeys(paths + _in_repo(paths))), "" if rel.startswith("..") else rel


def _in_repo(paths: list[str]) -> list[str]:
    """Paths in a git worktree as its repository holds them: the index keeps a
    file changed in a worktree under the repository's path (project.repo_file)."""
    from vibe_vault.paths import split_path
    from vibe_vault.project import join_like, worktree_parts

    out = []
    for path in paths:
        inside = worktree_parts(split_path(path))
        if inside is not None and inside[2]:
            out.append(join_like(path, inside[0] + inside[2]))
    return out


def file_history(args: argparse.Namespace | SimpleNamespace, cfg: Config,
                 given: str) -> int:
    try:
        since = since_date(args.since) if args.since else ""
    except ValueError as exc:
        print(f"vv: {exc}", file=sys.stderr)
        return 2
    conn = open_db(cfg, reindex=getattr(args, "reindex", False))
    if conn is None:
        return 1
    from vibe_vault import vaultdb

    here = os.getcwd()
    root = _repo_root(here)
    paths, suffix = file_candidates(given, here, root)
    # By the path's end only in this repository's sessions (another checkout
    # of it): README.md alone must not bring every project's README.
    from vibe_vault.project import project_name

    suffix_project = project_name(root or here)
    limit = max(args.limit or 100, 1)
    elsewhere: list[tuple[str, str]] = []
    grouped: list[tuple[str, list[str], list[Change]]] = []  # (project, paths, changes)
    try:
        changes = vaultdb.changes_of(conn, paths, suffix, project=args.project or "",
                                     since=since, limit=limit, suffix_project=suffix_project)
        if not changes and suffix:
            # Not a file of this repository's sessions: the files of that name
            # anywhere. Asked outside any repository, one is the answer; else
            # they are a hint (in another repository, its end alone is not
            # that repository's file).
            elsewhere = vaultdb.paths_ending(conn, suffix, args.project or "")
            if (not root or args.project) and len({path for path, _ in elsewhere}) == 1:
                changes = vaultdb.changes_of(conn, [elsewhere[0][0]],
                                             project=args.project or "", since=since,
                                             limit=limit)
                if changes and not args.json:
                    from vibe_vault.text import terminal_safe

                    print(terminal_safe(f"vv: {given} is not a file here; the one file of "
                                        f"that name a session changed: {elsewhere[0][0]}"),
                          file=sys.stderr)
            elif not args.json or not root:
                # Several files of that name: the sessions that changed each,
                # by project (review 26 #21: a list of paths to copy answered
                # nothing; `--project` picks one). With --json, asked outside
                # any repository, they are the answer, each row naming its
                # project and path (review 28: exit status 2 and no rows told a
                # script less than the text told a person).
                for project in dict.fromkeys(project for _, project in elsewhere):
                    paths_there = [path for path, of in elsewhere if of == project]
                    grouped.append((project, paths_there, vaultdb.changes_of(
                        conn, paths_there, project=project, since=since, limit=limit)))
    finally:
        conn.close()
    objects = [change_object(cfg, c) for c in changes]
    if args.json:
        import json

        if not objects and not root:
            # (in a repository, other projects' files of that name are a hint
            # to a person, not the file asked for: `[]`)
            objects = [change_object(cfg, c) for _, _, there in grouped for c in there]
        print(json.dumps(objects, ensure_ascii=False, indent=2))
        return 0
    if not objects:
        from vibe_vault.text import terminal_safe

        if len(elsewhere) > 1 or (root and elsewhere):
            # (not "no session changed" above its list: review 20 read that as
            # contradicting the files below it)
            count = len({path for path, _ in elsewhere})
            projects = len(grouped)
            print(terminal_safe(
                f"no session changed {given} in this repository; the sessions that changed "
                "files of that name elsewhere, by project:" if root else
                f"{count} file{'s' * (count != 1)} named {given} "
                f"{'were' if count != 1 else 'was'} changed by sessions"
                + (f" in {projects} projects" if projects > 1 else "")
                + "; the sessions that changed each, by project"
                + (" (--project NAME for one project's):" if projects > 1 else ":")))
            tty = sys.stdout.isatty()
            for project, paths_there, changes_there in grouped:
                print()
                print(_bold(terminal_safe(f"{project}: {', '.join(paths_there)}"), tty))
                for change in changes_there:
                    print()
                    print_change(change_object(cfg, change), tty)
        else:
            print(terminal_safe(f"no session changed {given}"))
        return 0  # finding nothing is an answer, not a failure
    tty = sys.stdout.isatty()
    for i, obj in enumerate(objects):
        if i:
            print()
        print_change(obj, tty)
    if getattr(args, "open", False):
        return open_note(cfg, objects[0]["note"])
    return 0


def print_change(obj: dict[str, Any], tty: bool) -> None:
    """A file's change by a session, as `vv files` shows it."""
    # Figures marked as the note marks them: estimated (≈), not known (?).
    mark = {"estimated": "≈", "unknown": "?"}.get(obj["lines"], "")
    added, removed = ("", "") if mark == "?" else (obj["added"], obj["removed"])
    # What happened to it, as the note's table says (a file deleted reads
    # "deleted by a command", not only "+? −?": review 22 #9).
    told = f" ({obj['change']})" if obj["change"] else \
        f" (renamed to {obj['renamed_to']})" if obj["renamed_to"] else \
        f" (renamed from {obj['renamed_from']})" if obj["renamed_from"] else ""
    line = f"{obj['path']}{told} +{mark}{added} −{mark}{removed}"
    if obj["commit"] or obj["commit_subject"]:
        line += f" · commit {obj['commit'][:10]} {obj['commit_subject']}".replace("  ", " ")
        if obj["in_commit"] == "partly":
            # (not the session's figure as the commit's: review 22 #8)
            stat = obj["commit_stat"]
            line += (f" (part of these lines: git counted +{stat['added']} "
                     f"−{stat['removed']} in {stat['files']} "
                     f"file{'s' * (stat['files'] != 1)})")
    if obj["earlier_commits"]:
        line += f" · also in earlier commit{'s' * (len(obj['earlier_commits']) > 1)} " + \
            ", ".join(sha[:10] for sha in obj["earlier_commits"])
    print_hit(obj, [line], tty)


def change_object(cfg: Config, change: Change) -> dict[str, Any]:
    obj = hit_object(cfg, change.session, read_note(cfg, change.session, 8192))
    del obj["snippet"], obj["score"]
    obj.update(path=change.path, added=change.added, removed=change.removed,
               lines={"≈": "estimated", "?": "unknown"}.get(change.mark, "exact"),
               commit=change.sha if change.committed else "",
               commit_subject=change.subject if change.committed else "",
               renamed_from=change.renamed_from, renamed_to=change.renamed_to,
               change=change.change,
               # git's own count of the commit (all its files), when it printed
               # one; "partly" when that count is less than the session's lines
               # to this file: `added`/`removed` are the session's, not the
               # commit's (review 22 #8)
               commit_stat={"files": change.commit_files, "added": change.commit_added,
                            "removed": change.commit_removed}
               if change.committed and change.commit_files else None,
               in_commit="partly" if change.committed and change.partly else "",
               earlier_commits=change.earlier.split())
    return obj


def open_note(cfg: Config, note: str) -> int:
    """Open a note: through Obsidian when the vault is an Obsidian vault, else
    in $VISUAL/$EDITOR."""
    import shlex
    import subprocess

    if os.path.isdir(os.path.join(cfg.vault, ".obsidian")):
        from urllib.parse import quote

        rel = os.path.relpath(note, cfg.vault)
        uri = (f"obsidian://open?vault={quote(os.path.basename(cfg.vault.rstrip(os.sep)))}"
               f"&file={quote(rel.replace(os.sep, '/'))}")
        opener = {"darwin": ["open"], "win32": ["cmd", "/c", "start", ""]}.get(
            sys.platform, ["xdg-open"])
        try:
            return subprocess.call([*opener, uri])
        except OSError as exc:
            print(f"vv: cannot open {uri}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        print(f"vv: set $EDITOR to open notes; the note is {note}", file=sys.stderr)
        return 1
    try:
        return subprocess.call([*shlex.split(editor), note])
    except OSError as exc:
        print(f"vv: cannot run {editor}: {exc.strerror or exc}", file=sys.stderr)
        return 1
