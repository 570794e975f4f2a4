"""The "Claude: …" of a headline is Claude's account of what this session did
(review 30 #11, #20).

- A session asked for a review (`/review`, `/security-review`, "review the
  branch") that changed nothing is said as a review with Claude's verdict:
  not the review's overview of the branch under review ("Adds a new provider
  contract…"), which reads as this session's work (39e938fb).
- A bold sub-heading of the answer ("**SQL** (74 files, nearly every goose
  migration)") is not quoted as what was done; the words before the answer's
  sections are (b999d973).

Inputs are generated; the oracle is the drawn parts of the answer.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=4, max_size=8)
head_word = st.text(alphabet="aeiouy", min_size=4, max_size=8)  # (never one of `word`)
REVIEW_ASKS = ("/review", "/security-review", "/code-review", "/pr-review")
PROMPT_ASKS = ("review the commits on this branch", "Please review the changes vs main",
               "Can you review this PR?")
VERDICT_HEADS = ("## Recommendation\n\n", "## Verdict\n\n", "**Verdict:** ",
                 "Overall assessment: ", "### Bottom line\n\n")
VERDICTS = ("Functionally close to ready.", "Ready to merge after the two small fixes.",
            "Not ready: two blocking bugs remain.")


@settings(max_examples=examples(25, 120), deadline=None)
@given(ask=st.sampled_from(REVIEW_ASKS + PROMPT_ASKS), scope=st.lists(word, min_size=2,
                                                                       max_size=4),
       name=word, head=st.sampled_from(VERDICT_HEADS), verdict=st.sampled_from(VERDICTS),
       edited=st.booleans())
def test_a_review_is_said_as_a_review(tmp_path_factory: Any, ask: str, scope: list[str],
                                      name: str, head: str, verdict: str,
                                      edited: bool) -> None:
    t = Transcript()
    if ask.startswith("/"):
        t.slash(ask[1:], "Scope: the commits unique to this branch vs " + " ".join(scope))
    else:
        t.prompt(ask)
    t.bash("git log --oneline origin/main..HEAD", "abc1234 add provider", "List commits")
    if edited:
        t.write_file("/work/app/notes.md", "# notes\n")
    overview = f"Adds a new `{name}` provider contract with snapshot commands."
    t.say(f"# Code Review: `{name}`\n\n**Scope:** 3 commits ahead.\n\n## Overview\n\n"
          f"{overview} Backed by new code in `provider.go`.\n\n## Correctness\n\n"
          f"- **Scanner over-matches** (`provider.go:524`). Track the block state.\n\n"
          f"{head}{verdict} Before merging I'd want the scanner fix.")
    summary = str(frontmatter(t.note(tmp_path_factory, "review words"))["summary"])
    if edited:  # (not a review alone: what it changed leads, as for any session)
        assert "reviewed the work" not in summary, summary
        return
    assert overview not in summary and "Adds a new" not in summary, summary
    assert f"Claude reviewed the work; its verdict: {verdict}" in summary, summary


@settings(max_examples=examples(25, 120), deadline=None)
@given(first=st.lists(word, min_size=3, max_size=8), heads=st.lists(head_word, min_size=1,
                                                                      max_size=3, unique=True),
       counted=st.integers(1, 99), note=st.sampled_from(("", "files", "suites")),
       lead=st.booleans())
def test_a_bold_subheading_is_not_quoted(tmp_path_factory: Any, first: list[str],
                                         heads: list[str], counted: int, note: str,
                                         lead: bool) -> None:
    t = Transcript()
    t.prompt("fix the parse errors")
    t.write_file("/work/app/parser.go", "package sem\n")
    opening = "Done. Both repos now stream " + " ".join(first) + " with zero parse errors."
    sections = "".join(
        f"\n\n**{h.upper()}**" + (f" ({counted} {note}, nearly every one)" if note else "")
        + f"\n- `SET {h} TO repo` — the mask only knew the `=` form.\n- Also handled `{h}` names."
        for h in heads)
    # (a lead-in that announces the fixes below: b999d973's "All fixes are
    # position-preserving masks in `internal/sem/parser.go`, …:")
    t.say(opening + (" All fixes are masks in `parser.go`, the pattern for grammar gaps:"
                     if lead else "") + sections)
    summary = str(frontmatter(t.note(tmp_path_factory, "subheadings"))["summary"])
    quoted = summary.split("Claude: ", 1)[1] if "Claude: " in summary else ""
    for h in heads:
        assert h.upper() not in quoted and h not in quoted, (summary, h)
    assert quoted in ("", opening.removeprefix("Done. ")), summary


labels = st.sampled_from(("Files modified", "Summary", "PR #89 Summary", "3 files, 3 fixes",
                          "Changes made", "What changed"))


@settings(max_examples=examples(25, 120), deadline=None)
@given(label=labels, did=st.lists(st.lists(word, min_size=3, max_size=6), min_size=1, max_size=3),
       colon_inside=st.booleans())
def test_a_bold_label_announcing_the_changes_is_no_subheading(
        tmp_path_factory: Any, label: str, did: list[list[str]], colon_inside: bool) -> None:
    """(The corpus' 198393f2, d1423492, e8106766 and 79e9becd: "All tests pass.
    Here's a summary:" then `**Files modified:**` over what was done. A label
    in bold that ends in ":" announces the account; the headline quotes it,
    not the bare "All tests pass." before it.)"""
    t = Transcript()
    t.prompt("add the agent field")
    t.write_file("/work/app/rewind.go", "package strategy\n")
    bold = f"**{label}:**" if colon_inside else f"**{label}**:"
    items = "".join(f"\n{i}. **`file{i}.go`** - Added " + " ".join(words) + " to the checkpoint."
                    for i, words in enumerate(did, 1))
    t.say("All tests pass. Here's what changed:\n\n" + bold + "\n" + items)
    summary = str(frontmatter(t.note(tmp_path_factory, "labels"))["summary"])
    quoted = summary.split("Claude: ", 1)[1] if "Claude: " in summary else ""
    assert " ".join(did[0]) in quoted, summary
