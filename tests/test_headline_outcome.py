"""Issue 29 (#29 headlines): a headline leads with what came of the session.

Generated transcripts: commits that land or fail (a hook that refused, nothing
to commit), writes of generated sizes that go through or are refused, and an
answer to the request followed by a background task's news and Claude's reply
to it. The oracle is what was generated: the subjects git printed for the
commits made and the lines git counted, the lines each write that went
through changed, the words of each answer.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import MAIN_COMMIT_TIMES, RenderOptions, figures

# Words without vowels: none is an English word, so none reads as a claim, a
# status or a change verb the headline's rules react to.
word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=3, max_size=9)
subject = st.lists(word, min_size=2, max_size=6).map(" ".join)
REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
           "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
           "you are doing and wait for the user to tell you how to proceed.")
FAILED_COMMITS = ["nothing to commit, working tree clean",
                  "pre-commit hook failed: lint\nerror: 3 problems"]


def _summary(t: Transcript) -> str:
    return figures(t.state(), RenderOptions()).summary


@settings(max_examples=examples(40, 200), deadline=None)
@given(attempts=st.lists(st.tuples(subject, st.booleans(), st.integers(1, 60),
                                   st.integers(0, 60), st.integers(1, 4),
                                   st.sampled_from(FAILED_COMMITS)),
                         min_size=1, max_size=4, unique_by=lambda a: a[0]))
def test_the_headline_names_a_commit_that_landed_by_its_subject(
        attempts: list[tuple[str, bool, int, int, int, str]]) -> None:
    """Each attempt commits with a generated subject; git either prints the
    commit (`[main <sha>] <subject>` and its count) or refuses it. The
    headline opens on "Committed “<subject>”" of a commit made (the first,
    unless a later one git counted more than three times its lines), with
    git's count of it and how many more were made; a refused commit's subject
    is never named, and with none made nothing is said committed."""
    t = Transcript()
    t.prompt("make the change and commit it")
    t.write_file("/work/app/notes.txt", "one\ntwo\n")
    made: list[tuple[str, int, int, int]] = []
    for k, (subj, lands, ins, dels, files, refusal) in enumerate(attempts):
        command = f'git commit -m "{subj}"'
        if lands:
            out = (f"[main {k + 1:07x}] {subj}\n {files} file{'s' if files > 1 else ''} changed,"
                   f" {ins} insertion{'s' if ins > 1 else ''}(+)"
                   + (f", {dels} deletion{'s' if dels > 1 else ''}(-)" if dels else "") + "\n")
            t.bash(command, out)
            made.append((subj, ins, dels, files))
        else:
            t.call("Bash", {"command": command}, "Error: " + refusal,
                   "Exit code 1\n" + refusal, error=True)
    t.say("Thx.")
    head = _summary(t)
    for subj, lands, *_ in attempts:
        if not lands:
            assert f"“{subj}”" not in head, (head, attempts)
    if not made:
        assert not head.startswith("Committed"), (head, attempts)
        return
    first = made[0]
    bigger = [m for m in made[1:] if m[1] + m[2] > MAIN_COMMIT_TIMES * (first[1] + first[2])]
    subj, ins, dels, files = max(bigger, key=lambda m: m[1] + m[2]) if bigger else first
    named = f"Committed “{subj}” (+{ins} −{dels} in {files} file{'s' if files > 1 else ''}"
    assert head.startswith(named), (head, made)
    more = re.match(r"Committed “[^”]*” \([^)]*\)(?: and (\d+) more)?", head)
    assert more is not None and int(more.group(1) or 0) == len(made) - 1, (head, made)


@settings(max_examples=examples(40, 200), deadline=None)
@given(writes=st.lists(st.tuples(st.integers(1, 80), st.booleans()), min_size=1, max_size=5))
def test_the_file_most_lines_changed_in_is_one_written(
        writes: list[tuple[int, bool]]) -> None:
    """Files of generated sizes, each written or refused. When the files
    written are two or more and one holds more than half of their lines, the
    headline opens on it: its name, its folder and its lines; otherwise no
    file is said to hold most of the lines. A refused write is never named,
    and with none written the headline says no files changed."""
    t = Transcript()
    t.prompt("write the modules")
    written: dict[str, int] = {}
    for k, (size, refused) in enumerate(writes):
        path = f"/work/app/pkg{k}/mod{k}.txt"
        content = "".join(f"line {j}\n" for j in range(size))
        if refused:
            t.call("Write", {"file_path": path, "content": content}, "Error: " + REFUSED,
                   REFUSED, error=True)
        else:
            t.write_file(path, content)
            written[f"mod{k}.txt"] = size
    t.say("Thx.")
    head = _summary(t)
    for k, (_, refused) in enumerate(writes):
        if refused:
            assert f"`mod{k}.txt`" not in head, (head, writes)
    if not written:
        assert head.startswith("No files changed"), (head, writes)
        return
    top = max(written, key=lambda name: written[name])
    if len(written) >= 2 and written[top] * 2 > sum(written.values()):
        k = top.removeprefix("mod").removesuffix(".txt")
        assert head.startswith(f"Most lines changed in `{top}` (pkg{k}/, +{written[top]} −0)"
                               f" of {len(written)} files changed"), (head, written)
    else:
        assert "Most lines changed" not in head, (head, written)


def _notification(t: Transcript, task: str) -> None:
    t.prompt(f"<task-notification>\n<task-id>{task}</task-id>\n<output-file>/tmp/tasks/{task}"
             f".output</output-file>\n<status>completed</status>\n<summary>Background command "
             f"\"Run tests\" completed (exit code 0)</summary>\n</task-notification>\n"
             f"Read the output file to retrieve the result: /tmp/tasks/{task}.output")


@settings(max_examples=examples(40, 200), deadline=None)
@given(asked=subject, replies=st.lists(subject, min_size=1, max_size=3),
       worked=st.booleans(), later=st.booleans())
def test_a_reply_to_a_background_task_is_not_the_session_s_answer(
        asked: str, replies: list[str], worked: bool, later: bool) -> None:
    """Claude answers the request ("Fixed <words>."), then a background task's
    news arrives (not typed by the user) once or more, and Claude replies to
    each. The headline quotes the answer to the request, never a reply to the
    news; with a later request answered, that answer is quoted."""
    t = Transcript()
    t.prompt("fix the parser")
    t.write_file("/work/app/parser.txt", "a\nb\n")
    t.bash("pytest -q", "3 passed", background=True)
    t.say(f"Fixed {asked}.")
    for k, reply in enumerate(replies):
        _notification(t, f"b{k:06d}")
        if worked:
            t.bash("cat /tmp/tasks/out", "ok")
        t.say(f"Background task done: {reply}.")
    final = ""
    if later:
        t.prompt("and the lexer")
        t.write_file("/work/app/lexer.txt", "c\nd\ne\nf\n")  # (the main change)
        final = f"Fixed {replies[0]} zzz."
        t.say(final)
    head = _summary(t)
    quoted = re.search(r"Claude(?:, earlier)?: (.*)$", head)
    for reply in replies:
        assert f"Background task done: {reply}" not in head, head
    # (the first request's answer may be quoted as said earlier: it reported
    # a third of the change or more, review 25 M1)
    assert quoted is not None and quoted.group(1) in {f"Fixed {asked}.", final or "-"}, head
    if not later:
        assert f"Claude: Fixed {asked}." in head, head


def _title(t: Transcript) -> str:
    return figures(t.state(), RenderOptions()).title


LEADS = ["Now, ", "", "Then "]
FIRST_ASKS = ["hand over", "delegate", "assign", "have each teammate"]


@settings(max_examples=examples(40, 200), deadline=None)
@given(context=st.lists(st.lists(word, min_size=12, max_size=20).map(" ".join),
                        min_size=2, max_size=3),
       lead=st.sampled_from(LEADS), ask=st.sampled_from(FIRST_ASKS), what=subject,
       then=subject, later=st.lists(subject, min_size=1, max_size=3))
def test_a_long_prompt_is_titled_by_its_first_request(
        context: list[str], lead: str, ask: str, what: str, then: str,
        later: list[str]) -> None:
    """A long first prompt: sentences that ask for nothing (the setting, too
    long to title it with the request),
    then a sentence whose first clause asks ("hand over the research to …",
    "have each teammate write …") and later clauses ask more ("…, and add a
    section …"), then more sentences. The title starts with the first request,
    not a later clause (ef958aa1: "Have each teammate to read the other two,
    and add…" titled the experiment)."""
    sentences = [f"We {c}." for c in context]
    request = f"{lead}{ask} the {what} to the team, then, once done, add a {then} section"
    text = " ".join([*sentences, request + ".", *(f"When {x} is done they can stop."
                                                  for x in later)])
    t = Transcript()
    t.prompt(text)
    t.say("Ok.")
    title = _title(t)
    said, first = title.rstrip("…").lower(), f"{ask} the {what}".lower()
    assert len(said) >= len(ask) and (said.startswith(first) or first.startswith(said)), (
        title, text)


@settings(max_examples=examples(40, 200), deadline=None)
@given(sizes=st.lists(st.integers(1, 30), min_size=2, max_size=4), top=st.integers(0, 3),
       names=st.lists(word, min_size=4, max_size=4, unique=True), test_file=st.booleans())
def test_claude_s_words_of_the_file_the_headline_leads_with_come_first(
        sizes: list[int], top: int, names: list[str], test_file: bool) -> None:
    """Files of generated sizes, one of them holding most of the lines; Claude's
    answer lists one item per file ("Added <words> in `<file>`"), in the order
    written. The headline leads with that file, and the item of Claude's that
    names it is quoted first, whole (cde341db: the PostHog fix in telemetry.go,
    not the trace support in main.go); a test file holding most lines leaves
    the items in Claude's order (e8106766: the fix, not its tests)."""
    top %= len(sizes)
    sizes[top] = sum(sizes) + 1  # (more than all the others together)
    files = [f"{'test_' if test_file and k == top else ''}{names[k]}.py"
             for k in range(len(sizes))]
    t = Transcript()
    t.prompt("speed up the tool")
    for name, size in zip(files, sizes, strict=False):
        t.write_file(f"/work/app/src/{name}", "".join(f"x{j}\n" for j in range(size)))
    items = [f"- Added {names[k]} handling in `{files[k]}`" for k in range(len(sizes))]
    t.say("Summary of changes:\n\n" + "\n".join(items))
    head = _summary(t)
    assert head.startswith(f"Most lines changed in `{files[top]}` (src/, +{sizes[top]} −0)"), head
    quoted = head.split(" Claude: ", 1)[1]
    first = 0 if test_file else top
    assert quoted.startswith(items[first][2:]), (quoted, items)
