"""A file the session changed by one name and a commit holds by another (an
edit through a symlink, CLAUDE.md -> AGENTS.md), by git's count: for the
note's table (render.work) and `vv files` (document) alike. Its own module so
that a Stop, which renders the table, does not import `document` (the search
document is made at SessionEnd)."""

from __future__ import annotations

from vibe_vault.fold.files import lines_mark
from vibe_vault.project import repo_file
from vibe_vault.state import Commit
from vibe_vault.work import FileWork


def linked_words(words: str, other: str, changed: bool) -> str:
    """What happened to one name of a file whose other name git counted (the
    note's table and `vv files` alike)."""
    name = other.rsplit("/", 1)[-1]
    return (f"{words}; committed as {name}, by git's count" if changed else
            f"committed: the session's change to {name}, by git's count")


def changed_by_another_name(files: dict[str, FileWork], committed: dict[str, FileWork],
                             commits: list[Commit], cwd: str
                             ) -> dict[str, tuple[Commit, str]]:
    """A file the session changed by one name and a commit holds by another
    (an edit through a symlink, CLAUDE.md -> AGENTS.md, review 25 N3), by
    git's count: the commit's files are all known by name, one of them no
    change was seen to (`committed`), and the lines git counted beyond the
    session's exact lines to the others are exactly those of one file the
    session changed in that file's folder, before the commit, that no commit
    holds by its own name. Both names, each to (the commit, the other name)."""
    out: dict[str, tuple[Commit, str]] = {}
    for c in commits:
        if not (c.sha and c.count and c.ts) or len(c.files) != c.count:
            continue
        keys = [repo_file(str(p), cwd)[0] for p in c.files]
        unseen = [k for k in keys if k in committed]
        seen = [files.get(k) for k in keys if k not in committed]
        if len(unseen) != 1 or any(w is None or lines_mark(w.change) for w in seen):
            continue
        inserted = c.inserted - sum(w.change.added for w in seen if w is not None)
        deleted = c.deleted - sum(w.change.removed for w in seen if w is not None)
        other = unseen[0]
        folder = other.rsplit("/", 1)[0] if "/" in other else ""
        found = [k for k, w in files.items()
                 if k not in keys and (k.rsplit("/", 1)[0] if "/" in k else "") == folder
                 and not lines_mark(w.change) and (w.change.added, w.change.removed) ==
                 (inserted, deleted) and w.change.times and w.change.times[-1] < c.ts
                 and not any(repo_file(str(p), cwd)[0] == k for d in commits for p in d.files)]
        if len(found) == 1 and (inserted or deleted):
            out.setdefault(found[0], (c, other))
            out.setdefault(other, (c, found[0]))
    return out


def only_committed(files: dict[str, FileWork], committed: dict[str, FileWork],
                   commits: list[Commit], cwd: str) -> dict[str, FileWork]:
    """The files a commit of the session holds that no tool of it changed,
    less those that are another name of a file it changed (review 27 #7:
    b74fb8cb's AGENTS.md, the name git committed its CLAUDE.md edits by, was
    a second row beside CLAUDE.md's and "4 files changed" beside 5 rows):
    one file is one row, under the name the session changed it by, which
    says the other ("committed as AGENTS.md"). What the note's table, its
    summary and its frontmatter's `files_committed` count alike."""
    linked = changed_by_another_name(files, committed, commits, cwd)
    return {k: w for k, w in committed.items() if k not in linked}
