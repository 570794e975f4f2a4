"""A paste in a prompt is named for what it is, and its lines counted truly
(review 30 #8: bb5159a3's pasted Markdown prompt, its first line a row of
spaces, was "21 more lines of pasted JSON" — it was Markdown, and it ran on
past the note's cut to 209 lines).

Generated prompts: a line of the user's words, then a block of Markdown (or
of JSON), its lines maybe padded with spaces as a terminal copies them, long
enough or not to pass the note's cut. The oracle is the drawn block: JSON is
named so iff it is JSON; the count of lines not shown equals the block's
lines less those shown, or, when the note's cut ends the block, is said as a
bound no greater than that.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

MARKDOWN = ("## Context", "### Step {n}", "- run `git-ai debug`", "```bash", "```",
            "git-ai version", "---", "* check {n}", "> note {n}")
SHOWN = 4  # lines of a paste the story shows (render.story.PASTE_SHOWN)


@settings(max_examples=examples(25, 120), deadline=None)
@given(kinds=st.lists(st.sampled_from(MARKDOWN), min_size=12, max_size=120),
       pad=st.sampled_from((0, 40, 200)), lead_spaces=st.booleans(), is_json=st.booleans())
def test_a_paste_is_named_and_counted_truly(tmp_path_factory: Any, kinds: list[str], pad: int,
                                            lead_spaces: bool, is_json: bool) -> None:
    if is_json:
        block = json.dumps({f"k{n}": [n, "v"] for n in range(len(kinds) // 4 + 3)},
                           indent=2).splitlines()
    else:
        block = [k.format(n=n) for n, k in enumerate(kinds)]
        if lead_spaces:  # (a terminal's copy: the first line a row of spaces)
            block = [" " * 30, *block]
    block = [ln + " " * pad for ln in block]
    t = Transcript()
    t.prompt("Here is the full prompt to paste into a new session:\n\n" + "\n".join(block))
    t.say("Understood.")
    t.prompt("go")  # (the paste's turn is not the session's only one)
    t.say("Done.")
    note = t.note(tmp_path_factory, "paste kinds")
    said = re.search(r"… (at least )?([\d,]+) more lines of pasted (\w+)", note)
    assert said is not None, note[:3000]
    assert (said.group(3) == "JSON") == is_json, said.group(0)
    more = int(said.group(2).replace(",", ""))
    cut = "the note keeps the prompt's first characters" in note
    assert bool(said.group(1)) == cut, said.group(0)
    assert more == len(block) - SHOWN if not cut else more <= len(block) - SHOWN, (
        said.group(0), len(block))
