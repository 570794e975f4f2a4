"""Render a session's state as a Markdown note with flat YAML frontmatter.

Pure: the same state gives the same bytes (no clock, no environment). The note
is its sections in the order of SECTIONS, each a function of one Page; the
user's own section is not rendered here (`note.py` keeps it). What the note
says in numbers and words comes from `figures.py`; how each string is escaped,
from `markdown.py`.
"""


from typing import TYPE_CHECKING

from vibe_vault.figures import Figures, RenderOptions, figures
from vibe_vault.render.head import frontmatter, heading, user_heading
from vibe_vault.render.page import Page, Section
from vibe_vault.render.story import story
from vibe_vault.render.work import (
    commands,
    commits,
    errors,
    files,
    open_threads,
    subagents,
    tokens,
)
from vibe_vault.state import SessionState
from vibe_vault.times import set_zone

if TYPE_CHECKING:
    from vibe_vault.render.memo import Memo

# The note, top to bottom.
SECTIONS: tuple[Section, ...] = (
    frontmatter,
    heading,
    story,
    files,
    commits,
    commands,
    errors,
    open_threads,
    subagents,
    tokens,
    user_heading,
)


def render(state: SessionState, opts: RenderOptions | None = None,
           fig: Figures | None = None, memo: "Memo | None" = None) -> str:
    """The generated part of the note, ending with the user-notes heading.
    `fig`, when the caller has them, are this state's figures; `memo`, the
    story's settled turns as the state kept them (the same note, made faster:
    see render.memo)."""
    opts = opts or RenderOptions()
    set_zone(opts.timezone)
    page = Page(state=state, opts=opts, fig=fig or figures(state, opts), memo=memo)
    # (the last line's newline joined in, not added to a copy of the whole)
    return "\n".join([*(line for section in SECTIONS for line in section(page)), ""])
