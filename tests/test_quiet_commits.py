"""Quiet commits take the sha a later output prints beside their subject
(issue 29; review 31 F3, F4, F5).

A model of two repositories (the session's, and a sibling it `cd`s into)
runs generated commits, each with its message given one of the ways Claude
writes them (`-m`, `-qm`, `-m "$(cat <<'EOF' …)"`, `-F - <<'EOF'`, `-F file`
written by a heredoc in the same command, `-C <sha>` reusing an earlier
commit's message), quiet (`-q`: git prints nothing) or not, several in one
line, subjects drawn from a few so that one is made again (a branch re-cut),
message bodies holding option-like words (`-manifest`, `-m 1`), and `git log
--oneline -N` in either repository. Git's outputs are written as git prints
them. The oracle is the model: each commit's subject is the one it was made
with, and its sha is the one git gave it when any output after it printed
that sha (in its repository), else none.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState
from vibe_vault.work import work_of

SID = "5e551011-0000-4000-8000-000000000031"
HOME, LIB = "/work/app", "/work/lib"
SUBJECTS = ["fix parser", "add tests", "docs: readme", "feat(cli): accept ids",
            "chore: bump deps"]
# Lines of a message's body that look like options of `git commit`.
BODIES = ["", "Run it as\n\n    sem-bench -manifest bench/repos.fast.json",
          "grep -m 1 x finds it; -F - reads stdin", "see -C 1234567 and -c abcdef0",
          "Keeps \"quotes\" and 'apostrophes' as they were."]
FORMS = ["m", "qm", "heredoc-m", "stdin", "file", "reuse"]


class Transcript:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        line = {"type": kind, "uuid": f"m{self.n:07d}-0000-4000-8000-000000000000",
                "parentUuid": self.lines[-1]["uuid"] if self.lines else None,
                "sessionId": SID, "cwd": HOME, "gitBranch": "feature", "version": "2.1.199",
                "message": message,
                "timestamp": f"2026-03-01T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z"}
        self.lines.append(line)
        return line

    def prompt(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def bash(self, command: str, out: str) -> None:
        tid = f"toolu_{self.n:05d}"
        self._line("assistant", {
            "id": f"msg_{tid}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                         "input": {"command": command}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        line = self._line("user", {"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": tid,
            "content": out or "(Bash completed with no output)"}]})
        line["toolUseResult"] = {"stdout": out, "stderr": "", "interrupted": False}


class Model:
    """Both repositories' branches, newest last: [sha, subject, made in the
    session, printed by an output after it was made]."""

    def __init__(self) -> None:
        self.shas = (f"{n:07x}" for n in range(0xabc0000, 0xabc0000 + 99_999, 13))
        self.branch: dict[str, list[list[Any]]] = {
            HOME: [[next(self.shas), "before the session", False, True]],
            LIB: [[next(self.shas), "lib before the session", False, True]]}
        self.made: list[tuple[str, list[Any]]] = []  # (repository, its commit), in order


def _message(form: str, subject: str, body: str, n: int) -> tuple[str, str]:
    """What stands before the `git commit` (a heredoc writing a file) and
    its options, for a message given as `form`."""
    text = subject + ("\n\n" + body if body else "")
    if form == "m":
        return "", f"-m '{subject}'" if not body else f"-m '{subject}' -m '{body}'"
    if form == "qm":
        return "", f'-qm "{subject}"'
    if form == "heredoc-m":
        return "", f"-m \"$(cat <<'EOF'\n{text}\nEOF\n)\""
    if form == "stdin":
        return "", f"-F - <<'EOF'\n{text}\nEOF"
    path = f"/tmp/msg{n}.txt"
    return f"cat > {path} <<'MSG'\n{text}\nMSG\n", f"-F {path}"


commit_op = st.tuples(st.just("commit"), st.sampled_from([HOME, LIB]),
                      st.lists(st.tuples(st.sampled_from(FORMS), st.sampled_from(SUBJECTS),
                                         st.sampled_from(BODIES), st.booleans()),
                               min_size=1, max_size=3))
log_op = st.tuples(st.just("log"), st.sampled_from([HOME, LIB]), st.integers(1, 6))


def play(ops: list[tuple[Any, ...]]) -> tuple[Transcript, Model]:
    t, model = Transcript(), Model()
    t.prompt("commit the work")
    for k, (kind, repo, what) in enumerate(ops):
        cd = f"cd {LIB} && " if repo == LIB else ""
        branch = model.branch[repo]
        if kind == "log":
            shown = branch[::-1][:what]
            for c in shown:
                c[3] = True
            t.bash(f"{cd}git log --oneline -{what}", "".join(f"{c[0]} {c[1]}\n" for c in shown))
            continue
        before, parts, out = "", [], []
        # (`-C` names a commit whose sha an output printed before the line:
        # its subject is known)
        told = [c for c in branch if c[2] and c[3]]
        for j, (form, subject, body, quiet) in enumerate(what):
            if form == "reuse":
                if not told:
                    form = "qm"
                else:
                    subject, body = told[-1][1], ""
            c = [next(model.shas), subject, True, not quiet]
            pre, options = _message(form, subject, body, k * 10 + j) if form != "reuse" \
                else ("", f"-C {told[-1][0]}")
            before += pre
            parts.append(f"git add -A && git commit{' -q' if quiet else ''} {options}")
            if not quiet:
                out.append(f"[{'feature' if repo == HOME else 'main'} {c[0]}] {subject}\n"
                           " 1 file changed, 1 insertion(+)\n")
            branch.append(c)
            model.made.append((repo, c))
        t.bash(cd + before + "\n".join(parts), "".join(out))
    return t, model


@settings(max_examples=examples(80, 800), deadline=None)
@given(ops=st.lists(commit_op | log_op, min_size=1, max_size=10))
def test_each_commit_has_its_subject_and_the_sha_printed_after_it(
        ops: list[tuple[Any, ...]]) -> None:
    t, model = play(ops)
    state = SessionState(session_id=SID, project="app", status="ended",
                         fold=fold(Fold(), (decode_line(json.dumps(x).encode())
                                            for x in t.lines)))
    listed = [(str(c.folder), str(c.sha), str(c.subject)) for _, c in work_of(state).commits]
    want = [("" if repo == HOME else LIB, c[0] if c[3] else "", c[1]) for repo, c in model.made]
    assert sorted(listed) == sorted(want), (listed, want)


def test_a_manifest_option_in_a_message_read_from_stdin_is_no_subject() -> None:
    """Review 31 F5: 5632e712's `-F - <<'EOF'` whose body runs `sem-bench
    -manifest …` was shown as "anifest"."""
    t, _ = play([("commit", HOME, [("stdin", "add tests", BODIES[1], True)])])
    state = SessionState(session_id=SID, project="app", status="ended",
                         fold=fold(Fold(), (decode_line(json.dumps(x).encode())
                                            for x in t.lines)))
    assert [str(c.subject) for _, c in work_of(state).commits] == ["add tests"]
