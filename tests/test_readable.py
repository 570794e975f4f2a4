"""Notes worth reading: commands as a person recognises them, Claude's own words
for what each command was for, and how to resume the session.

Expectations come from the corpus JSON, read here independently of vv.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import Env, frontmatter, main_files
from conftest import json_objects as objects
from test_backfill import backfill, lay_out
from vibe_vault.fold.commands import shorten


def test_shorten_drops_noise_a_person_would_not_type() -> None:
    cwd = "/home/me/proj"
    assert shorten("cd /home/me/proj && pytest -q", cwd) == "pytest -q"
    # another folder is a fact worth keeping
    assert shorten("cd /tmp && ls", cwd) == "cd /tmp && ls"
    assert shorten('cd "/home/me/proj/" && make', cwd) == "make"
    assert shorten("FOO=1 BAR='a b' npm test", cwd) == "npm test"
    # a pipe is part of the command: `| tail` decides what its exit status says
    assert shorten("cargo build 2>&1 | head -50", cwd) == "cargo build 2>&1 | head -50"
    assert shorten("cargo build 2>&1 | tail -n 20", cwd) == "cargo build 2>&1 | tail -n 20"
    assert shorten("ps aux | grep vv", cwd) == "ps aux | grep vv"
    # the first meaningful line of a script, marked as having more
    assert shorten("# set up\ncd sub\nmake all\nmake test", cwd) == "make all …"
    assert shorten("echo one", cwd) == "echo one"
    # never empty while the command was not
    assert shorten("FOO=1", cwd) == "FOO=1"
    assert shorten("2>&1 | head -5", cwd) != ""


def _bash_calls(path: Path) -> list[tuple[str, str]]:
    """(command, description) of every Bash call in a transcript, in order."""
    calls = []
    for o in objects(path):
        content = (o.get("message") or {}).get("content")
        if o.get("type") != "assistant" or not isinstance(content, list):
            continue
        for block in content:
            if (isinstance(block, dict) and block.get("type") == "tool_use"
                    and block.get("name") == "Bash"):
                inp = block.get("input") or {}
                if isinstance(inp.get("command"), str):
                    calls.append((inp["command"], str(inp.get("description") or "")))
    return calls


@pytest.mark.corpus
def test_commands_are_told_in_claudes_own_words(env: Env) -> None:
    """Corpus: the headless 2.1.14 run. Each described Bash call shows up as
    "<description>: `<command>`" in the story."""
    main = next(p for p in main_files() if "coverage-test-fix" in str(p))
    calls = [(c, d) for c, d in _bash_calls(main) if d and "\n" not in c]
    assert calls, "the chosen transcript has described one-line commands"
    lay_out(env, [main])
    backfill(env)
    (note,) = env.notes().values()
    for command, description in calls:
        assert f"{description.rstrip('.')}: `{command}`" in note, (command, description)


@pytest.mark.corpus
def test_every_note_says_how_to_resume_it(env: Env) -> None:
    mains = [p for p in main_files() if "coverage-test-fix" in str(p) or "windows" in str(p).lower()]
    lay_out(env, mains)
    backfill(env)
    notes = env.notes().values()
    assert notes
    for note in notes:
        sid = str(frontmatter(note)["session_id"])
        resume = next(ln for ln in note.splitlines() if ln.startswith("**Resume**"))
        assert resume.endswith(f"claude --resume {shlex.quote(sid)}`"), resume
    for path in mains:
        cwd = next(o["cwd"] for o in objects(path) if isinstance(o.get("cwd"), str))
        if ":" not in cwd[:3]:  # POSIX folders are quoted the shell's way
            assert any(f"`cd {shlex.quote(cwd)} && claude --resume" in n for n in notes)


def test_paths_under_the_session_folder_are_shown_relative() -> None:
    from vibe_vault.paths import readable, shown_path

    cwd = "/home/me/proj"
    assert readable("pytest /home/me/proj/tests/a.py -q", cwd) == "pytest tests/a.py -q"
    # a sibling folder sharing the prefix is another folder
    assert readable("cat /home/me/projx/a", cwd) == "cat /home/me/projx/a"
    assert readable("echo /home/me/proj", cwd) == "echo /home/me/proj"
    assert readable('cat "/home/me/proj/a b"', cwd + "/") == 'cat "a b"'
    assert readable(r"type C:\Users\Me\proj\src\a.py", r"c:\users\me\proj") == r"type src\a.py"
    assert shown_path("/home/me/proj/src/a.py", cwd) == "src/a.py"


def test_claude_codes_scratch_folder_is_shortened() -> None:
    """Hand-written: the corpus has no scratchpad paths. macOS, Linux and $TMPDIR forms."""
    from vibe_vault.paths import readable, shown_path

    for prefix in ("/private/tmp/claude-501/-Users-me-proj/3f2a/",
                   "/tmp/claude-1000/-home-me-proj/3f2a/",
                   "/var/folders/x1/abc/T/claude/"):
        assert readable(f"cat {prefix}scratchpad/plan.md", "/Users/me/proj") == \
            "cat scratchpad/plan.md"
        assert shown_path(f"{prefix}scratchpad/notes/a.md", "/home/me") == "scratchpad/notes/a.md"
    # a folder of the user's own named scratchpad is theirs
    assert readable("ls /home/me/scratchpad/x", "") == "ls /home/me/scratchpad/x"


@pytest.mark.corpus
def test_commands_in_a_worktree_session_read_relative(env: Env) -> None:
    """Corpus: a session whose subagents ran `ls <cwd>/.claude/worktrees/…`; the
    note shows those commands from the session's folder."""
    main = next(p for p in main_files() if "ef958aa1" in p.name)
    cwd = next(o["cwd"] for o in objects(main) if isinstance(o.get("cwd"), str))
    agents = sorted((main.parent / main.stem / "subagents").glob("*.jsonl"))
    commands = [c for a in agents for c, _ in _bash_calls(a) if c.startswith(f"ls {cwd}/")]
    assert commands
    lay_out(env, [main])
    backfill(env)
    (note,) = env.notes().values()
    for command in commands:
        assert f"`ls {command[len(f'ls {cwd}/'):]}`" in note, command
        assert f"`{command}`" not in note


def _recaps(path: Path) -> list[str]:
    """Claude Code's own recaps in a transcript, in file order."""
    return [text for _, text in _timed_recaps(path)]


def _timed_recaps(path: Path) -> list[tuple[str, str]]:
    out = []
    for o in objects(path):
        if o.get("type") == "system" and o.get("subtype") == "away_summary":
            content = o.get("content")
            if isinstance(content, str) and content.strip():
                out.append((str(o.get("timestamp") or ""), content.strip()))
        elif o.get("type") == "task-summary" and isinstance(o.get("summary"), str):
            out.append((str(o.get("timestamp") or ""), o["summary"].strip()))
    return out


def _last_typed_prompt(path: Path) -> str:
    """When the user last typed a prompt in the main chain (text, not a tool's
    result or Claude Code's own wrapper lines)."""
    last = ""
    for o in objects(path):
        if o.get("type") != "user" or o.get("isMeta") or o.get("isSidechain") \
                or o.get("isCompactSummary"):
            continue
        content = (o.get("message") or {}).get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if isinstance(b, dict)
            and b.get("type") == "text"] if isinstance(content, list) else []
        typed = [t for t in texts if t.strip() and not t.lstrip().startswith(
            ("<local-command", "Caveat:", "[Request interrupted", "<task-notification>",
             "<bash-")) and not ("<command-name>" in t  # `/exit`: no request
                                 and not re.search(r"<command-args>\s*[^<\s]", t))]
        if typed and isinstance(o.get("timestamp"), str):
            last = o["timestamp"]
    return last


@pytest.mark.corpus
def test_the_summary_is_claude_codes_latest_recap(env: Env) -> None:
    """Corpus: every session with an away_summary or task-summary line. The
    latest recap is the summary's words, labelled, when it is newer than the
    last prompt (issue 29: an older one may say "Next: commit" of a commit made)."""
    mains = [p for p in main_files() if _recaps(p)]
    assert mains, "the corpus has recaps"
    lay_out(env, mains)
    backfill(env)
    by_id = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    for path in mains:
        sid = next(o["sessionId"] for o in objects(path) if isinstance(o.get("sessionId"), str))
        summary = str(frontmatter(by_id[sid])["summary"])
        when, text = _timed_recaps(path)[-1]
        latest = " ".join(text.split())
        if when >= _last_typed_prompt(path):
            assert f"Claude Code's recap: {latest[:40]}" in summary, (path.name, summary)
        else:
            assert "recap" not in summary, (path.name, summary)


def test_without_a_recap_the_summary_is_the_final_answers_first_real_sentence() -> None:
    from test_trust import folded, line
    from vibe_vault.figures import RenderOptions, figures

    answer = ("Perfect! Done.\n\n## Summary\n\n- **Added** `multiply` to the math module"
              " and its tests. Also more.\n\n```\ncode\n```")
    prompt = line(type="user", uuid="u1", timestamp="2026-01-01T00:00:00Z", sessionId="s",
                  cwd="/p", message={"role": "user", "content": "add multiply"})
    edit = line(type="assistant", uuid="a0", timestamp="2026-01-01T00:00:02Z", sessionId="s",
                message={"role": "assistant", "id": "m0", "model": "claude-sonnet-4-5",
                         "content": [{"type": "tool_use", "id": "t1", "name": "Edit", "input": {
                             "file_path": "/p/math.py", "old_string": "", "new_string": "x"}}],
                         "usage": {"input_tokens": 1, "output_tokens": 1}})
    done = line(type="user", uuid="u2", timestamp="2026-01-01T00:00:03Z", sessionId="s",
                message={"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
                toolUseResult={"structuredPatch": [{"lines": ["+def multiply(): ..."]}]})
    said = line(type="assistant", uuid="a1", timestamp="2026-01-01T00:00:05Z", sessionId="s",
                message={"role": "assistant", "id": "m1", "model": "claude-sonnet-4-5",
                         "content": [{"type": "text", "text": answer}],
                         "usage": {"input_tokens": 1, "output_tokens": 1}})
    summary = figures(folded([prompt, edit, done, said]), RenderOptions()).summary
    # The facts first, then Claude's words, labelled as Claude's (issue 29).
    assert summary == ("1 file changed (+1 −0): math.py. "
                       "Claude: Added `multiply` to the math module and its tests."), summary
    # Claude's claim of an edit that no fact shows is not repeated as one.
    assert figures(folded([prompt, said]), RenderOptions()).summary == \
        "No files changed, 1 prompt."


@pytest.mark.corpus
def test_the_commands_section_is_a_digest_of_distinct_runs(env: Env) -> None:
    """Corpus: every main file with Bash calls from the main agent. Each
    distinct command is in the note: in the Commands section at most once,
    with its number of runs when it ran more than once, or else in the story."""
    from collections import Counter

    mains = [p for p in main_files()
             if "coverage-test-fix" in str(p) or "fe869ecb" in p.name]
    lay_out(env, mains)
    backfill(env)
    by_id = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    checked = 0
    for path in mains:
        sid = next(o["sessionId"] for o in objects(path) if isinstance(o.get("sessionId"), str))
        note = by_id[sid]
        section = note.split("\n## Shell commands\n", 1)[1].split("\n## ", 1)[0]
        entries = [ln for ln in section.splitlines() if ln.lstrip("> ").startswith("- `")]
        shown = [ln.split("`")[1] for ln in entries]
        assert len(shown) == len(set(shown)), path
        runs = Counter(c for c, _ in _bash_calls(path) if "\n" not in c and "&&" not in c
                       and "|" not in c and "=" not in c.split()[0])
        story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
        for command, count in runs.items():
            listed = [ln for ln in entries if f"`{command}`" in ln]
            if not listed:
                assert story.count(f"`{command}`") == count, (command, path)
                checked += 1
                continue
            (entry,) = listed
            if count > 1:
                assert f"— {count} runs, last " in entry, entry
            else:
                assert " runs, " not in entry, entry
            checked += 1
    assert checked >= 5


@pytest.mark.corpus
def test_tool_search_is_not_told_in_the_story() -> None:
    """Corpus: a ToolSearch call (Claude Code loading the schemas of tools it
    defers) is the client's plumbing, not work: no story line tells it
    (review 17, finding 17: three "Loaded the tools …" lines in ef958aa1),
    and the turns around it keep their other lines."""
    from test_trust import folded
    from vibe_vault.render import render

    checked = 0
    for path in main_files():
        searches = 0
        for o in objects(path):
            content = (o.get("message") or {}).get("content")
            if o.get("type") != "assistant" or o.get("isSidechain") or not isinstance(content, list):
                continue
            searches += sum(1 for b in content
                            if isinstance(b, dict) and b.get("name") == "ToolSearch")
        if not searches:
            continue
        state = folded(path)
        story = render(state).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
        assert "Loaded the tools" not in story and "Looked for tools" not in story, path.name
        assert "\n- \n" not in story and "\n\n\n" not in story, path.name
        assert sum(1 for t in state.fold.turns for a in t.actions if a.kind == "tools") \
            == searches, path.name
        checked += 1
    assert checked


@pytest.mark.corpus
def test_the_vault_gets_a_sessions_base_once_and_keeps_the_users_changes(env: Env) -> None:
    main = next(p for p in main_files() if "coverage-test-fix" in str(p))
    lay_out(env, [main])
    backfill(env)
    base = env.vault / "Sessions.base"
    text = base.read_text(encoding="utf-8")
    assert 'type == "session"' in text and "views:" in text
    # every property the base shows is one the session notes carry
    (note,) = env.notes().values()
    fields = set(frontmatter(note))
    shown = {ln.strip()[2:] for ln in text.splitlines() if ln.strip().startswith("- ")
             and "(" not in ln and "==" not in ln and ":" not in ln}
    # (`files_committed`, as `commits`, is left out of a note where it is 0:
    # this session committed no file it did not change itself)
    assert shown - {"file.name", "files_committed"} <= fields, shown - fields
    base.write_text(text + "# mine\n", encoding="utf-8")
    env.vv("reprocess")
    backfill(env)
    assert base.read_text(encoding="utf-8").endswith("# mine\n")
    base.unlink()
    outside = env.root / "outside.base"
    base.symlink_to(outside)
    env.vv("reprocess")
    assert not outside.exists()
    base.unlink()
    env.vv("reprocess")  # deleted: written again, as the home note would be
    assert base.read_text(encoding="utf-8") == text


@pytest.mark.corpus
def test_the_home_note_says_how_to_resume_the_latest_sessions(env: Env) -> None:
    mains = [p for p in main_files() if "coverage-test-fix" in str(p) or "fe869ecb" in p.name]
    lay_out(env, mains)
    backfill(env)
    home = (env.vault / "index.md").read_text(encoding="utf-8")
    for path in mains:
        sid = next(o["sessionId"] for o in objects(path) if isinstance(o.get("sessionId"), str))
        cwd = next(o["cwd"] for o in objects(path) if isinstance(o.get("cwd"), str))
        assert f"`cd {shlex.quote(cwd)} && claude --resume {sid}`" in home


def test_an_assignment_of_a_command_substitution_is_passed_as_any_other() -> None:
    """Review 27 (d8103a9b): `_UPD=$(…)` then the script was shown by its
    assignment; the command shown is the first that is not one (1e94d92)."""
    cwd = "/p"
    command = 'P=$(go env GOMODCACHE)/x && grep -A 30 "func" $P/a.go'
    assert shorten(command, cwd) == 'grep -A 30 "func" $P/a.go'
    assert shorten('A="1 2" B=x make', cwd) == "make"


def test_a_command_is_shown_by_what_runs_after_its_assignments() -> None:
    """Issue 29: `SP=/x; foo`, an assignment on a line of its own, `export B=y &&`:
    the command is what runs after them, never the assignment alone."""
    cwd = "/p"
    assert shorten("X=1 && make", cwd) == "make"
    assert shorten("SP=/private/tmp/x; foo --bar", cwd) == "foo --bar"
    assert shorten("SP=/private/tmp/x\nB=~/.claude/skills/y\n$B/run.sh $SP", cwd) == \
        "$B/run.sh $SP"
    assert shorten('export A="1 2" && make', cwd) == "make"
    assert shorten("X=1", cwd) == "X=1"  # nothing runs: the line itself


@pytest.mark.corpus
def test_no_story_line_is_longer_than_a_glance(env: Env) -> None:
    """Corpus: the sessions with the longest described commands."""
    mains = [p for p in main_files() if any(len(c) + len(d) > 200 for c, d in _bash_calls(p))]
    assert mains
    lay_out(env, mains)
    backfill(env)
    for note in env.notes().values():
        story = note.split("\n## Story\n", 1)[-1].split("\n## ", 1)[0]
        for ln in story.splitlines():
            if ln.startswith("- ") and "`" in ln:
                assert len(ln) <= 200, ln


@pytest.mark.corpus
def test_errors_beyond_the_last_five_are_collapsed(env: Env) -> None:
    """Corpus: every main file. The last five errors are shown with their output,
    the earlier ones a line each in a collapsed callout; none is left out."""
    import re

    mains = [p for p in main_files() if 2000 < p.stat().st_size < 3_000_000]
    lay_out(env, mains)
    backfill(env)
    collapsed = 0
    for note in env.notes().values():
        errors = int(str(frontmatter(note).get("errors", 0)))
        if not errors:
            assert "\n## Errors\n" not in note
            continue
        section = note.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
        earlier = re.search(r"^> \[!failure\]- (\d+) earlier errors?$", section, re.M)
        heads = [ln for ln in section.splitlines() if re.match(r"- (?:\d\d:\d\d )?\*\*", ln)]
        inside = [ln for ln in section.splitlines() if re.match(r"> - (?:\d\d:\d\d )?\*\*", ln)]
        assert len(heads) == min(errors, 5), note[:200]
        if earlier:
            collapsed += 1
            assert int(earlier.group(1)) == len(inside) == min(errors, 50) - 5
    assert collapsed
