"""Names that hold a secret's word but name no secret (review 29): a git
revision before `:path` (`git show origin/feat/auth-profile:"app/Edit.tsx"`)
was read as `auth-profile: <value>`, and the file's name learned and hidden
in every note and search; `echo $SSH_AUTH_SOCK` was read as printing a
secret (`AUTH`), and ssh-add's "The agent has no identities." learned.

Generated: revisions (branch words holding auth, token, password, secret,
creds, key) x paths of words (directories, `[locale]`, camel, kebab and
snake case names, extensions) x git commands x quoting; names of where a
secret is (a socket, a file, a URL, a host…) in every case style.
Oracle: the text the test wrote; the control: a random value in the same
place is still hidden, and a variable named for the secret itself still
teaches what `echo` printed.
"""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from test_secret_forms_small_leaks import shannon_bits, token
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.redact import DEFAULT
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

_WORDS = ["profile", "analytics", "docs", "refresh", "reset", "flow", "fix", "page", "login",
          "rotation", "cleanup", "events", "hooks", "avatar", "settings"]
_SECRET_WORDS = ["auth", "token", "password", "secret", "creds", "api-key", "oauth", "pwd"]


@st.composite
def revision(draw: st.DrawFn, secret_words: list[str] = _SECRET_WORDS) -> str:
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=0, max_size=3))
    at = draw(st.integers(0, len(words)))
    branch = "-".join([*words[:at], draw(st.sampled_from(secret_words)), *words[at:]])
    prefix = draw(st.sampled_from(["feat/", "fix/", "feature/", "chore/", "hotfix/"]))
    remote = draw(st.sampled_from(["", "origin/", "upstream/"]))
    # (a name with no `/` is no revision git would be given alone: `auth:x`)
    return remote + prefix + branch


def _camel(words: list[str]) -> str:
    return "".join(w.capitalize() for w in words)


@st.composite
def path_of_words(draw: st.DrawFn) -> str:
    dirs = draw(st.lists(st.sampled_from(["app", "src", "lib", "[locale]", "[eventId]",
                                          "(auth)", "components", "hooks", "e", "perfil",
                                          "edita", "v2", "internal"]), max_size=5))
    words = draw(st.lists(st.sampled_from([*_WORDS, "use", "edit", "event", "user"]),
                          min_size=1, max_size=4))
    name = draw(st.sampled_from([_camel(words), words[0] + _camel(words[1:]), "-".join(words),
                                 "_".join(words), "README", "index"]))
    ext = draw(st.sampled_from([".ts", ".tsx", ".py", ".md", ".json", ".go", ".rb", ".yaml"]))
    # (`(auth)`, a route group, holds a `(`: git takes it, as a path)
    return "/".join([d for d in dirs if "(" not in d] + [name + ext])


@st.composite
def git_revision_path(draw: st.DrawFn) -> tuple[str, str]:
    rev, path = draw(revision()), draw(path_of_words())
    written = draw(st.sampled_from([path, f'"{path}"', f"'{path}'"]))
    command = draw(st.sampled_from(["git show {}", "git cat-file -p {}", "git diff HEAD {}",
                                    "git show {} | head -50", "git log -p {} -- ."]))
    return command.format(f"{rev}:{written}"), path


@settings(max_examples=examples(100, 1000), deadline=None)
@given(git_revision_path())
def test_a_revisions_file_is_left(case: tuple[str, str]) -> None:
    text, _ = case
    assert DEFAULT.redact(text) == (text, 0), DEFAULT.redact(text)


@settings(max_examples=examples(50, 300), deadline=None)
@given(revision([w for w in _SECRET_WORDS if w != "oauth"]),  # (`oauth` names no secret)
       token(14, 32).filter(lambda v: shannon_bits(v) >= 3.5))
def test_a_random_value_after_a_revision_is_still_hidden(rev: str, value: str) -> None:
    out, n = DEFAULT.redact(f"{rev}:{value}")
    assert n >= 1 and value not in out, out


@settings(max_examples=examples(10, 60), deadline=None)
@given(git_revision_path())
def test_a_revisions_file_is_named_in_the_note(case: tuple[str, str]) -> None:
    command, path = case
    t = Transcript()
    t.prompt("port the change from the other branch")
    t.bash(command, "export function x() {}\n", "Show the file on the branch")
    t.write_file(f"/work/app/{path}", "export function x() { return 1 }\n", "old\n")
    base = path.rsplit("/", 1)[-1]
    t.say(f"Ported the change to {base}.")
    note = render(SessionState(session_id="s", project="app",
                               fold=fold(Fold(), (decode_line(x) for x in t.encoded()))))
    assert "REDACTED" not in note
    assert f"Ported the change to {base}." in note


# -- a name of where a secret is: `echo $SSH_AUTH_SOCK` ---------------------------------------

_ABOUT = ["SOCK", "SOCKET", "FILE", "PATH", "URL", "HOST", "PORT", "DIR", "TYPE", "PROVIDER",
          "DOMAIN", "ISSUER", "TTL", "TIMEOUT", "METHOD"]
_MESSAGES = ["The agent has no identities.", "Could not open a connection to your agent.",
             "not set", "/private/tmp/com.apple.launchd.socket/Listeners",
             "https://auth.example.com/oauth/authorize", "localhost", "bearer"]


def _style(words: list[str], style: str) -> str:
    if style == "screaming":
        return "_".join(w.upper() for w in words)
    if style == "snake":
        return "_".join(w.lower() for w in words)
    return words[0].lower() + _camel([w.lower() for w in words[1:]])


@st.composite
def about_name(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["SSH", "DB", "APP", "GITHUB", ""]))
    word = draw(st.sampled_from(["AUTH", "TOKEN", "PASSWORD", "SECRET", "CREDENTIALS"]))
    words = [w for w in (head, word, draw(st.sampled_from(_ABOUT))) if w]
    return _style(words, draw(st.sampled_from(["screaming", "snake", "camel"])))


def _echoed(name: str, printed: str, later: str) -> str:
    t = Transcript()
    t.prompt("why does signing fail?")
    t.bash(f"echo ${name}; ssh-add -l 2>&1", printed, "Check the agent")
    t.say(later)
    return render(SessionState(session_id="s", project="app",
                               fold=fold(Fold(), (decode_line(x) for x in t.encoded()))))


@settings(max_examples=examples(30, 200), deadline=None)
@given(about_name(), st.lists(st.sampled_from(_MESSAGES), min_size=1, max_size=3, unique=True))
def test_what_echo_printed_of_a_secrets_place_is_no_secret(name: str,
                                                            printed: list[str]) -> None:
    later = f'ssh-add says "{printed[-1]}", so the agent is not running.'
    note = _echoed(name, "\n".join(printed), later)
    assert later in note, note
    assert "REDACTED" not in note


@settings(max_examples=examples(20, 100), deadline=None)
@given(st.sampled_from(["GITHUB_TOKEN", "DB_PASSWORD", "API_SECRET", "authToken"]),
       token(20, 40, string.ascii_letters + string.digits).filter(
           lambda v: shannon_bits(v) >= 3.5))
def test_what_echo_printed_of_a_secret_is_still_learned(name: str, value: str) -> None:
    note = _echoed(name, value, f"The value {value} works.")
    assert value not in note
