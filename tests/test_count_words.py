"""The project and home notes' headline counts read as English does: "1
session", "2 sessions", "1 project" (review 21 F8: "1 sessions")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples


def counted(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


@settings(max_examples=examples(20, 80), deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=4))
def test_headline_counts_agree_in_number(per_project: list[int]) -> None:
    from vibe_vault.aggregates import Sums
    from vibe_vault.index import ProjectSums, ProjectView, render_home, render_project

    for k, sessions in enumerate(per_project):
        view = ProjectView(f"p{k}", Sums(sessions=sessions), [], [], {}, "", "", [])
        head = next(line for line in render_project(view).splitlines()
                    if line.startswith("**") and "Claude worked" in line)
        assert head.startswith(f"**{counted(sessions, 'session')}** ·"), head
    sums = [ProjectSums(f"p{k}", n, f"2026-11-2{k}", 0, 0.0) for k, n in enumerate(per_project)]
    home = render_home(sums, [])
    total = sum(per_project)
    assert (f"**{counted(total, 'session')}** in "
            f"**{counted(len(per_project), 'project')}**") in home, home[:500]
