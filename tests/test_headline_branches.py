"""Review 26: a headline that lists what the session did names the branches
it created (e4d579fb was asked "Make a feature branch add a code comment
somewhere, and then push it.", made `docs/comment-default-branch-resolution`
and ended before pushing: its headline said a file changed and nothing was
pushed, not that a branch was made).

Generated sessions plant branch commands of every form (`git checkout -b`,
`-B`, `git switch -c`, `--create`, `git branch x`, `git worktree add -b`),
succeeded, failed, or failed after git switched to the new branch, among
commands that make no branch (`git checkout x`, `git branch -d x`, a commit
message that says `git checkout -b x`). The oracle is what was planted.
Over the corpus, the branches are read from each session's JSON: every
branch command whose result is no error names its branch in the headline.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

name = st.from_regex(r"[a-z]{2,6}(/[a-z0-9]{2,6}){0,2}(-[a-z0-9]{2,5})?", fullmatch=True)
MAKES = ["git checkout -b {}", "git checkout -B {} origin/main", "git switch -c {}",
         "git switch --create {}", "git branch {}", "git branch -f {} HEAD~1",
         "git worktree add -b {} ../wt", "git -C ../app checkout --no-track -b {} origin/x"]
MAKES_NONE = ["git checkout {}", "git branch -d {}", "git branch -m {} other",
              "git commit -m 'git checkout -b {}'", "git log --oneline {}",
              "git push origin {}"]


def headline(t: Transcript) -> str:
    return figures(t.state(), RenderOptions()).summary


def named(summary: str) -> list[str]:
    """The branches the headline says were created, in its order."""
    m = re.search(r"(?i)\bbranch(?:es)? ((?:`[^`]+`(?:, | and )?)+)(?: and \d+ others?)? created",
                  summary)
    return re.findall(r"`([^`]+)`", m.group(1)) if m else []


@settings(max_examples=examples(60, 300), deadline=None)
@given(plan=st.lists(st.tuples(name, st.sampled_from(MAKES + MAKES_NONE),
                               st.sampled_from(["ok", "failed", "failed after switching"])),
                     min_size=1, max_size=5, unique_by=lambda x: x[0]),
       chained=st.booleans())
def test_the_headline_names_each_branch_the_session_created(
        plan: list[tuple[str, str, str]], chained: bool) -> None:
    """Each branch a command created (it succeeded, or git said it switched
    to it before a later command of the line failed) is named in the
    headline, once, in order; a failed one, or one a command only named,
    is not."""
    t = Transcript()
    t.prompt("make a feature branch and add a comment")
    made: list[str] = []
    for branch, form, outcome in plan:
        command = form.format(branch)
        if chained:
            command += " && git status -sb"
        makes = form in MAKES
        if outcome == "ok":
            out = f"Switched to a new branch '{branch}'\n" if makes and "switch" in form else ""
            t.call("Bash", {"command": command},
                   {"stdout": out, "stderr": "", "interrupted": False}, out)
        elif outcome == "failed":
            out = f"fatal: a branch named '{branch}' already exists"
            t.call("Bash", {"command": command}, None, f"Exit code 128\n{out}", error=True)
        else:
            out = (f"Switched to a new branch '{branch}'\nfatal: not a git repository"
                   if makes and "branch " not in form.split("{}")[0].split("git")[-1] else
                   "fatal: not a git repository")
            t.call("Bash", {"command": command}, None, f"Exit code 1\n{out}", error=True)
        if makes and (outcome == "ok" or f"Switched to a new branch '{branch}'" in out):
            made.append(branch)
    t.say("Done.")
    summary = headline(t)
    shown = named(summary)
    assert shown == made[:2], (summary, made)
    if len(made) > 2:
        assert f"and {len(made) - 2} other" in summary, summary
    for branch, _, _ in plan:
        if branch not in made:
            assert f"`{branch}`" not in summary, (summary, branch)


def test_e4d579fb_shape_names_the_branch_before_the_unanswered_request() -> None:
    """A branch made, a file edited, the session ended before the push it was
    asked for: the headline says all three."""
    t = Transcript()
    t.prompt("Make a feature branch add a code comment somewhere, and then push it.")
    t.bash("git checkout -b docs/comment origin/main && git status -sb",
           "Switched to a new branch 'docs/comment'\n## docs/comment...origin/main\n")
    t.write_file("/work/app/prune.ps1", "# resolves the default branch\n")
    t.bash("git diff", "+# resolves the default branch\n")
    state = t.state()
    state.status = "ended"
    summary = figures(state, RenderOptions()).summary
    assert named(summary) == ["docs/comment"], summary
    assert "nothing was pushed" in summary, summary


# -- the corpus ----------------------------------------------------------------------

def created_in(command: str) -> list[str]:
    """The branches a command asks git to create, read word by word (an
    oracle of its own: not the fold's pattern)."""
    try:
        words = shlex.split(command.replace("&&", " ; ").replace("||", " ; "), posix=True)
    except ValueError:
        return []
    out: list[str] = []
    for k, w in enumerate(words):
        if w != "git" or (k and words[k - 1] not in (";", "|", "(")):
            continue
        rest = words[k + 1:]
        while rest[:1] == ["-C"]:
            rest = rest[2:]
        sub, args = (rest[0], rest[1:]) if rest else ("", [])
        if sub == "worktree" and args[:1] == ["add"]:
            sub, args = "checkout", args[1:]
        if sub in ("checkout", "switch"):
            for j, a in enumerate(args[:-1]):
                if a in (";", "|"):
                    break
                if a in ("-b", "-B", "-c", "-C", "--create"):
                    out.append(args[j + 1])
                    break
        elif sub == "branch":
            plain = [a for a in args if a not in ("-f", "--force", "--no-track", "-q")]
            if plain and not plain[0].startswith("-") and plain[0] not in (";", "|"):
                out.append(plain[0])
    return out


@pytest.mark.corpus
def test_corpus_headlines_name_the_branches_their_sessions_created() -> None:
    """Every corpus session: each branch a shell command of its main agent
    created (its result no error) and none deleted after is named in the
    headline, when it is among the first two; no headline names a branch as
    created that none made."""
    checked = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs):
            continue
        calls: dict[str, str] = {}
        made: list[str] = []
        for o in objs:
            content = (o.get("message") or {}).get("content")
            if not isinstance(content, list) or o.get("isSidechain"):
                continue
            for b in content:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                    calls[b.get("id", "")] = str(b["input"].get("command", ""))
                elif b.get("type") == "tool_result" and not b.get("is_error"):
                    for branch in created_in(calls.get(b.get("tool_use_id", ""), "")):
                        if branch not in made:
                            made.append(branch)
                if b.get("type") == "tool_result":
                    # (one deleted again is not left made: review 31 F7)
                    said = b.get("content")
                    said = said if isinstance(said, str) else json.dumps(said)
                    for gone in re.findall(r"Deleted branch (\S+) \(was [0-9a-f]", said):
                        if gone in made and not re.search(
                                r"(?:^|[\s;&|(])(?:cd|pushd)\s|git\s+-C\s",
                                calls.get(b.get("tool_use_id", ""), "")):
                            made.remove(gone)
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in objs)))
        summary = figures(state, RenderOptions()).summary
        shown = named(summary)
        assert shown == made[:len(shown)] and len(shown) == min(2, len(made)), (
            path, made, summary)
        checked += bool(made)
    assert checked >= 3, checked  # e4d579fb, 7c6c8d44's entire-resume-test, mementor's
