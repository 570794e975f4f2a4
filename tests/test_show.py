"""Review 15, finding 13: `vv show` on a terminal prints the words, not the
Markdown escapes that keep them from being markup (`\\#wip`, `\\## Stack`);
the note's file keeps its escapes, and a pipe gets the file as it is.

The oracle is the text itself: generated words, full of the characters the
escapers act on, put in a note line by the escapers the notes use, read back
by a terminal reader, equal the words; a code span or fenced block stays
byte for byte.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_headlines import Transcript
from vibe_vault.markdown import code, fenced, for_terminal, md, quote, text

# Words with the characters Markdown would act on, as prompts and commands hold them.
WORDS = st.text(alphabet=st.sampled_from(list("ab #*_`\\[]<>&%:!-+.1)(|~=^")), min_size=1,
                max_size=40).map(lambda s: " ".join(s.split())).filter(bool)


@settings(max_examples=examples(150, 400), deadline=None)
@given(words=WORDS, command=WORDS)
def test_a_terminal_reads_the_words_the_escapes_kept(words: str, command: str) -> None:
    line = md("- {}: {}", text(words), code(command))
    shown = for_terminal(line)
    assert shown == f"- {words}: {code(command)}", (line, shown)
    assert for_terminal(str(text(words))) == words


@settings(max_examples=100, deadline=None)
@given(words=WORDS, body=st.lists(WORDS, min_size=1, max_size=4))
def test_fenced_blocks_and_frontmatter_stay_as_written(words: str, body: list[str]) -> None:
    block = "\n".join(fenced("\n".join(body)))
    note = f"---\ntitle: \"a \\\\# b\"\n---\n{block}\n{quote(words)}\n"
    shown = for_terminal(note)
    assert shown.startswith(f"---\ntitle: \"a \\\\# b\"\n---\n{block}\n")


def test_vv_show_on_a_terminal_prints_the_words(env: Env) -> None:
    t = Transcript()
    t.prompt("let's start with #wip and <T> & co")
    t.say("## Stack 1\nPR #89 reverts PR #95.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (path,) = env.notes()
    saved = (env.vault / path).read_text()
    assert "\\#wip" in saved  # the file keeps its escapes (a tag's)
    piped = env.vv("show", t.sid[:8]).stdout.decode()
    assert piped == saved
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vibe_vault", "show", t.sid[:8]],
                            stdout=child, stderr=subprocess.PIPE, env=env.env)
    os.close(child)
    got = b""
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    proc.wait(timeout=30)
    os.close(main)
    shown = got.decode().replace("\r\n", "\n")
    assert "let's start with #wip and <T> & co" in shown, shown
    assert "PR #89 reverts PR #95" in shown and "\\#" not in shown.split("\n---\n", 1)[1]
    assert Path(env.vault / path).read_text() == saved
