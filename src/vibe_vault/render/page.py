"""What every section of a note is given, and the one shape a section has."""


from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

from vibe_vault.figures import Figures, RenderOptions
from vibe_vault.markdown import Md, md, text
from vibe_vault.state import NOT_RUN, SessionState

if TYPE_CHECKING:
    from vibe_vault.render.memo import Memo


class Page(Struct):
    """One note being rendered: the state, the options and the state's figures."""

    state: SessionState
    opts: RenderOptions
    fig: Figures
    # The story's settled turns as last rendered (None: every turn renders).
    memo: "Memo | None" = None


# A section of the note: its lines (none when it has nothing to say), each
# made by an escaper of markdown.py.
Section = Callable[[Page], list[Md]]


def part(page: Page, make: Callable[..., list[Md]], *args: object) -> list[Md]:
    """`make(*args)`, from the memo when the page has one (`Memo.part`): `make`
    reads nothing but its arguments."""
    if page.memo is None:
        return make(*args)
    return page.memo.part(make, *args)


def parts(page: Page, make: Callable[..., list[Md]], *args: object) -> list[Md]:
    """`make(row, *args)` as `part` keeps it, where `row(f, *a)` is `part(page,
    f, *a)`, which gives the lines `f(*a)` gives: a part made of parts (a whole
    section kept while nothing it is made of changed, its rows kept apart for
    when something did)."""
    def row(section: Callable[..., list[Md]], *a: object) -> list[Md]:
        return part(page, section, *a)

    if page.memo is None:
        return make(row, *args)
    return page.memo.part(make, *args, rows=row)


# Who refused a tool call, as its status says (fold.calls.refusal).
DENIED_BY = {"denied": "denied by the user", "denied:rule": "denied by a permission rule",
             "denied:mode": "denied (Claude Code ran in don't-ask mode)",
             "denied:hook": "denied by a hook", "denied:check": "denied by a safety check"}


def status_word(status: str, code: int | None, kind: str = "") -> str:
    """How a tool call or command ended, in words."""
    if status == "ok":
        return "passed" if kind == "test" else "ok"
    if status == "failed":
        return f"failed (exit {code})" if code is not None else "failed"
    if status.startswith("denied"):
        return DENIED_BY.get(status, "denied")
    if status == "interrupted":
        return "interrupted"
    if status == NOT_RUN:
        return "not run (a call made beside it failed)"
    if status == "unknown":
        # a test run piped on (`| tail`): exit 0 was the pipe's, and its
        # output shows neither a pass nor a failure
        return "result unknown (exit status masked)"
    if status == "background":
        return "started in the background"  # (Open threads says whether it still runs)
    if status == "usage":  # (fold.commands.USAGE)
        return "printed its usage (the arguments were not taken)"
    if status == "no tests":  # (fold.commands.NO_TESTS)
        return "ran no tests"
    if status == "tests not run":  # (fold.commands.NOT_RUN_TESTS)
        return "ran no tests (a usage error or a command not found)"
    if status == "printed error":  # (fold.commands.PRINTED_ERROR)
        return "ran, but printed an error (the tool marked no failure)"
    return status or "no result yet"


def doer(label: str) -> Md:
    """Who did it, for a row of the session's work: blank for the main agent."""
    return md("*{}*", text(label)) if label else text("main")
