"""A password, a token or an API key said in people's words (attack 23:
section 2 rows N47-N64 and N66, section 1 row #5), and prose about one that
must stay whole (section 3).

Generated: sentences of this file's own, in 36 languages that GitHub users
write in (each in the forms people write: a colon, the
language's "is", a word saying which one, "set ... to", an arrow, guillemets,
"(currently X)", a user then a slash, a key emoji, a branch's or a folder's
name, a commit message) x values drawn as a password manager draws them
(letters and digits; with symbols; lower case and digits; letters of both
cases; a key with a single digit). The oracle is the value the test drew: no
run of 6 of its characters is left in what the gate returns, nor in the note
or the state a session saying it in many places folds to, nor (end to end) in
any file, table, search term or output of `vv`.
"""

from __future__ import annotations

import json
import random
import string
import uuid
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_folder_keys import shown, texts_of_database, written_files

# -- what people write --------------------------------------------------------------

# A value said after a colon, a copula or an arrow, or quoted: any value a
# password manager draws, letters only too.
SAID = (
    # English
    "my password is {v}", "The password for the staging database is {v}.",
    "The password appears to be {v}, so I will use it to log in.", "API key → {v}",
    "the API key is {v}", "Here is the token I generated: {v}", "the access token is '{v}'",
    "password -> {v}", "the root password was changed to {v}",
    # German, French, Spanish, Portuguese, Italian, Catalan
    "Das Passwort lautet {v}", "Das Kennwort für den Server ist {v}.",
    "Mein API-Schlüssel lautet {v}", "Le mot de passe du serveur est « {v} »",
    "le mot de passe est {v}", "la clé API est {v}", "mi contraseña es {v}",
    "mi token de acceso es {v}", "la clave de la API es {v}", "a minha senha é {v}",
    "a chave da API é {v}", "la password del database è {v}", "la chiave API è {v}",
    "il token di accesso è {v}", "la contrasenya és {v}",
    # Dutch, Swedish, Danish, Norwegian, Finnish
    "het wachtwoord van de database is {v}", "de API-sleutel is {v}", "lösenordet är {v}",
    "lösenordet till servern är {v}", "API-nyckeln är {v}", "adgangskoden er {v}",
    "passordet er {v}", "salasana on {v}", "salasanani on {v}",
    # Polish, Czech, Slovak, Hungarian, Romanian, Turkish
    "hasło to {v}", "moje hasło: {v}", "hasło do bazy to {v}", "heslo je {v}",
    "heslo k serveru je {v}", "a jelszó: {v}", "parola este {v}", "parola mea este {v}",
    "şifre: {v}", "API anahtarı: {v}",
    # Russian, Ukrainian, Bulgarian, Serbian, Greek
    "пароль от базы: {v}", "пароль — {v}", "Пароль это {v}", "токен: {v}", "API ключ: {v}",
    "ключ API: {v}", "паролата е {v}", "lozinka je {v}", "лозинка је {v}", "κωδικός: {v}",
    "ο κωδικός πρόσβασης είναι {v}", "το κλειδί API είναι {v}",
    # Hebrew, Arabic, Persian, Hindi, Bengali, Thai, Vietnamese, Indonesian, Malay
    "הסיסמה היא {v}", "סיסמה: {v}", "كلمة المرور هي {v}", "كلمة المرور: {v}",
    "رمز عبور: {v}", "पासवर्ड: {v}", "পাসওয়ার্ড: {v}", "รหัสผ่าน: {v}", "รหัสผ่านคือ {v}",
    "mật khẩu là {v}", "mật khẩu: {v}", "kata sandi saya adalah {v}",
    "kata laluan ialah {v}",
    # Chinese, Japanese, Korean
    "密码是{v}", "密码：{v}", "API密钥是 {v}", "访问令牌：{v}", "パスワードは {v} です",
    "APIトークンは {v} です", "パスワード：{v}", "비밀번호는 {v} 입니다", "비밀번호: {v}",
    "토큰: {v}",
)
# A value given loosely (no colon, no "is"): one with a digit, as a password
# manager's nearly always has.
LOOSE = (
    "use password {v} for the admin account", "my login is bob and password {v}",
    "login: admin / {v}", "creds are admin/{v}", "Test login with admin / {v}", "🔑 {v}",
    "I set the root password to {v} on the new box.", "changed the password to {v} yesterday",
    "Rotate DB password (currently {v}) after launch", "the wifi password {v} works",
    'git commit -m "temp: use password {v} for staging db"', "feat/hotfix/db-password-{v}",
    "/home/dev/pw_{v}", "/home/dev/_srv_postgres:__app:{v}@db", "мой пароль {v}",
    "мій пароль {v}", "a jelszavam {v}", "şifrem {v}", "मेरा पासवर्ड {v} है",
    "Passwort auf {v} geändert", "сменил пароль на {v}", "token {v} expires tomorrow",
)


def _value(rng: random.Random, style: str) -> str:
    """A value as a password manager or a vendor draws it."""
    n = rng.randint(14, 24)
    if style == "letters":  # both cases, no digit
        while True:
            v = "".join(rng.choice(string.ascii_letters) for _ in range(n))
            if any(c.isupper() for c in v[1:]) and any(c.islower() for c in v):
                return v
    if style == "one digit":  # a key with a single digit (attack 23 #5)
        v = [rng.choice(string.ascii_letters) for _ in range(n - 1)]
        v.insert(rng.randrange(1, n - 1), rng.choice(string.digits))
        return "".join(v)
    chars = {"alnum": string.ascii_letters + string.digits,
             "lower": string.ascii_lowercase + string.digits,
             "symbols": string.ascii_letters + string.digits + "!@#%^*_+=-"}[style]
    while True:
        v = "".join(rng.choice(chars) for _ in range(n))
        if sum(c.isdigit() for c in v) >= 2 and any(c.isalpha() for c in v) \
                and v[0].isalnum() and v[-1].isalnum():
            return v


def values(styles: tuple[str, ...]) -> st.SearchStrategy[str]:
    # (seeded: hypothesis shrinks a drawn text to `aaaaaaaa0aaa`, which reads
    # as a word and a number, no password a manager draws)
    return st.builds(lambda seed, style: _value(random.Random(seed), style),
                     st.integers(0, 2**32), st.sampled_from(styles))


SAID_VALUES = values(("alnum", "lower", "symbols", "letters", "one digit"))
LOOSE_VALUES = values(("alnum", "lower", "symbols", "one digit"))


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str]:
    """(a sentence saying a secret, the secret)."""
    if draw(st.booleans()):
        template, v = draw(st.sampled_from(SAID)), draw(SAID_VALUES)
    else:
        template, v = draw(st.sampled_from(LOOSE)), draw(LOOSE_VALUES)
    before = draw(st.sampled_from(["", "ok so ", "Note:\n", "FYI, "]))
    after = draw(st.sampled_from(["", "\n", " thanks", "\n\nthen deploy"]))
    return before + template.format(v=v) + after, v


def runs(value: str) -> list[str]:
    return [value[i:i + 6] for i in range(len(value) - 5)]


def left(out: str, value: str) -> list[str]:
    return [r for r in runs(value) if r in out]


@settings(max_examples=examples(150, 1500), deadline=None)
@given(planted())
def test_a_secret_said_in_any_language_is_hidden(case: tuple[str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    text, v = case
    found: list[str] = []
    out, n = DEFAULT.redact(text, found)
    assert n >= 1 and not left(out, v), (text, out)
    # (handed on to be learned: whole, or in parts where a rule before hid
    # what follows a `=` in it)
    assert any(v in f for f in found) or "=" in v, (text, found)


def test_every_sentence_of_the_table_hides_every_style() -> None:
    """Each sentence once with each style of value (a sampled test may miss one)."""
    from vibe_vault.redact import DEFAULT

    rng = random.Random(23)
    for templates, styles in ((SAID, ("alnum", "lower", "symbols", "letters", "one digit")),
                              (LOOSE, ("alnum", "lower", "symbols", "one digit"))):
        for template in templates:
            for style in styles:
                v = _value(rng, style)
                out = DEFAULT.redact(template.format(v=v))[0]
                assert not left(out, v), (template, style, out)


def test_a_security_answer_is_hidden() -> None:
    from vibe_vault.redact import DEFAULT

    rng = random.Random(66)
    for template in ("security answer: mothers maiden {w}", "Security question answer: {w}",
                     "my mother's maiden name is {w}.", "the answer to my security question: {w}",
                     "secret answer = {w}", "run security answer: mothers maiden {w} now",
                     "Security question answer: {w} then log in"):
        for _ in range(20):
            w = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(8, 12)))
            out = DEFAULT.redact(template.format(w=w))[0]
            assert not left(out, w), (template, out)


# -- prose about a secret ----------------------------------------------------------

# Sentences about a password, a token or a key, which say none: left whole.
ABOUT = (
    "the password must be at least 12 characters", "reset your password",
    "password is required", "the password is stored in the vault",
    "use password authentication for ssh", "set the password to something secure",
    "change password to a stronger one", "API key → Settings → API keys",
    "the token expired after 3600 seconds", "pass the token to the client",
    "The password appears to be wrong, so I will reset it.",
    "Rotate DB password (currently stored in SSM) after launch", "login: admin / settings",
    "sign in with Google / GitHub", "hash the password with sha256 before storing",
    "the password hash uses Argon2id with 64MB", "save the password to 1Password",
    "feat/password-reset-flow", "tests/test_password_hashing.py", "fix/token-refresh-v2",
    "the API key is in .env", "Das Passwort ist falsch", "le mot de passe est incorrect",
    "la contraseña es obligatoria", "het wachtwoord is verlopen", "lösenordet är fel",
    "пароль неверный", "пароль должен быть не менее 12 символов", "パスワードが違います",
    "密码错误", "비밀번호가 틀렸습니다", "the key to success is practice",
    "use token-based auth for the api", "Token count: 1234567890", "access token lifetime 3600s",
    'git commit -m "fix password reset for users"', "client secret rotation (currently 90 days)",
    "See the token 550e8400-e29b-41d4-a716-446655440000 in the log",
    "API token → header X-Api-Key", "the password on the server is the same", "user: bob/home",
    "user 42/100", "account settings/billing2024", "max_tokens 4096", "input_tokens: 1234",
    "the security answer is stored hashed", "Passwort: erforderlich", "password: Optional[str]",
    "salasana on väärä", "hasło to podstawa", "the token is 0123456789abcdef",
    "la clé API est obligatoire", "the access key is AKIA-style, twenty characters",
    "pw_hash_v2", "the password reset token for user2 expired",
    # attack 23's false positives: a key's id of words and a year, an Ansible tag
    "api_key_id: key_2024_rotation", "auth_token: !vault |",
)


@st.composite
def about(draw: st.DrawFn) -> str:
    """A sentence of ABOUT, or a key's id or an Ansible vault tag of drawn words."""
    kind = draw(st.sampled_from(["about", "id", "tag"]))
    if kind == "about":
        return draw(st.sampled_from(ABOUT))
    word = draw(st.sampled_from(["rotation", "primary", "staging", "legacy", "backup", "main"]))
    name = draw(st.sampled_from(["api_key_id", "token_id", "secret_key_id", "access_key_name"]))
    if kind == "id":
        year = draw(st.integers(2015, 2030))
        return f"{name}: key_{year}_{word}"
    return f"{name.replace('_id', '').replace('_name', '')}: !vault |"


@settings(max_examples=examples(100, 600), deadline=None)
@given(about(), st.sampled_from(["", "ok, ", "Note: "]), st.sampled_from(["", ".", "\n"]))
def test_prose_about_a_secret_is_left_whole(text: str, before: str, after: str) -> None:
    from vibe_vault.redact import DEFAULT

    whole = before + text + after
    assert DEFAULT.redact(whole) == (whole, 0)


# -- every place of a session --------------------------------------------------------

PLACES = ("prompt", "answer", "earlier answer", "thinking", "todo", "task", "commit", "branch",
          "cwd", "subagent")
# A secret in a branch's or a folder's name: glued to its name by `-`, `_` or
# `/`, or a URL whose slashes the folder's name made `_`.
NAMES = ("db-password-{v}", "hotfix/token-{v}", "pw_{v}", "secret-{v}-fix", "api_key_{v}",
         "_srv_postgres:__app:{v}@db", "passwort_{v}", "tmp/password_{v}_old")


def session(sid: str, text: str, places: list[str],
            name: str = "") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A session saying `text` in each of `places` (main file, subagent file),
    `name` as its branch's and its working directory's name."""
    one = " ".join(text.split())
    cwd = "/home/dev/" + name if "cwd" in places and name else "/home/dev/app"
    branch = "feat/" + name if "branch" in places and name else "main"
    n = iter(range(10_000))

    def entry(kind: str, **fields: Any) -> dict[str, Any]:
        i = next(n)
        return {"type": kind, "uuid": f"{sid[:8]}-{i}", "parentUuid": None, "sessionId": sid,
                "cwd": cwd, "gitBranch": branch, "version": "2.1.120",
                "timestamp": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", **fields}

    def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
        return entry("assistant", message={"id": f"msg_{next(n)}", "model": "claude-x",
                                           "role": "assistant", "content": list(blocks),
                                           "stop_reason": "end_turn",
                                           "usage": {"input_tokens": 1, "output_tokens": 1}})

    def tool(name: str, result: str, **inp: Any) -> list[dict[str, Any]]:
        tid = f"toolu_{next(n)}"
        return [assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}),
                entry("user", message={"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tid, "content": result}]},
                      toolUseResult={"stdout": result, "stderr": "", "interrupted": False})]

    prompt = text if "prompt" in places else "Please set up the deployment."
    main = [entry("user", message={"role": "user", "content": prompt})]
    if "earlier answer" in places:
        main.append(assistant({"type": "text", "text": text}))
    if "thinking" in places:
        main.append(assistant({"type": "thinking", "thinking": text, "signature": "s"},
                              {"type": "text", "text": "Working on it."}))
    if "todo" in places:
        main += tool("TodoWrite", "Todos have been modified successfully.",
                     todos=[{"content": one, "status": "pending", "activeForm": "Doing it"}])
    if "commit" in places:
        main += tool("Bash", f"[main 1a2b3c4] {one}\n 1 file changed",
                     command="git commit -m " + json.dumps(one, ensure_ascii=False),
                     description="Commit")
    agent: list[dict[str, Any]] = []
    if "task" in places or "subagent" in places:
        tid = f"toolu_{next(n)}"
        main.append(assistant({"type": "tool_use", "id": tid, "name": "Task", "input": {
            "description": one if "task" in places else "Review the config",
            "prompt": "Check it", "subagent_type": "general-purpose"}}))
        main.append(entry("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": [
                {"type": "text", "text": "Checked."}]}]},
            toolUseResult={"status": "completed", "agentId": "agent1", "content": [
                {"type": "text", "text": "Checked."}]}))
        if "subagent" in places:
            agent = [{**entry("user", message={"role": "user", "content": text}),
                      "isSidechain": True, "agentId": "agent1"},
                     {**assistant({"type": "text", "text": "Found: " + text}),
                      "isSidechain": True, "agentId": "agent1"}]
    final = text if "answer" in places else "All set."
    main.append(assistant({"type": "text", "text": final}))
    return main, agent


def _fold(text: str, places: list[str], name: str) -> tuple[str, bytes]:
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import SessionState

    main, _ = session("s" * 8 + "-0000-4000-8000-" + "0" * 12, text, places, name)
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(json.dumps(e).encode()) for e in main])
    # (the state's digests of what was learned are hex: a hex value's run of
    # 6 is in one of them by chance, the control's are other digests)
    saved = msgspec.to_builtins(state)
    saved["fold"].pop("learned", None)
    return render(state), msgspec.json.encode(saved)


@settings(max_examples=examples(30, 300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(planted(), st.lists(st.sampled_from(PLACES[:-1]), min_size=1, max_size=4, unique=True),
       st.sampled_from(NAMES))
def test_the_value_is_in_no_note_and_no_state(case: tuple[str, str], places: list[str],
                                              name: str) -> None:
    text, v = case
    note, state = _fold(text, places, name.format(v=v))
    assert not left(note, v), (text, places, note)
    assert not left(state.decode("utf-8", "replace"), v), (text, places)


def test_the_value_reaches_no_file_table_term_or_output_of_vv(tmp_path: Path) -> None:
    """End to end, as the attacker ran it: sessions saying drawn secrets in
    every place (a branch's name, the working directory, a commit message,
    thinking, a todo, a Task's description, a subagent), then `vv backfill`,
    `vv show` and `vv search` of each; no run of 6 of any value in a file vv
    wrote, a table of its database (bodies decompressed), a search term or
    what it printed."""
    env = Env(tmp_path)
    env.configure("show_thinking = true\n")  # (as the attacker ran it)
    rng = random.Random(2323)
    cases = []
    templates = [(t, ("alnum", "symbols", "one digit")) for t in LOOSE] + [
        (t, ("alnum", "letters", "one digit")) for t in SAID]
    rng.shuffle(templates)
    for i, (template, styles) in enumerate(templates[:examples(12, len(templates))]):
        v = _value(rng, rng.choice(styles))
        sid = str(uuid.UUID(int=i + 1, version=4))
        text = template.format(v=v)
        main, agent = session(sid, text, list(PLACES), rng.choice(NAMES).format(v=v))
        folder = env.claude / "projects" / f"-home-dev-case{i}"
        (folder / sid / "subagents").mkdir(parents=True)
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in main))
        (folder / sid / "subagents" / "agent-agent1.jsonl").write_text(
            "".join(json.dumps(e) + "\n" for e in agent))
        cases.append((sid, v, text))
    outputs = []
    r = env.vv_here("backfill", "--json")
    assert r.returncode == 0, r.stderr
    outputs.append(r.stdout + r.stderr)
    for sid, v, _ in cases:
        for args in (["show", sid[:8]], ["search", v[:8]], ["search", "--json", "password"]):
            r = env.vv_here(*args)
            outputs.append(r.stdout + r.stderr)
    files = written_files(env)
    database = texts_of_database(env.state / "vault.db") if (
        env.state / "vault.db").exists() else {}
    assert database, "no database"
    for _, v, text in cases:
        where = {**shown(files, set(runs(v))), **shown(database, set(runs(v)))}
        where.update(shown({"search terms (lower case)": database.get("search terms", "")},
                           set(runs(v.lower()))))
        where.update({f"output {i}": left(out.decode("utf-8", "replace"), v)
                      for i, out in enumerate(outputs)
                      if left(out.decode("utf-8", "replace"), v)})
        assert not where, (text, where)
