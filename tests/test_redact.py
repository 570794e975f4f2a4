"""The redactor: each kind of secret found, look-alikes left, the user's allow
list and patterns, and its fast paths equal to the plain patterns."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.redact import Redactor
from vibe_vault.secret_rules import RULES

SECRETS = {
    "aws-access-key": "AKIAQ3EGHT7XKZ2MBN4V",  # (not AWS's documented example: left)
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "gitlab-token": "glpat-" + "Abc123Def456Ghi789Jk",
    "anthropic-key": "sk-ant-api03-" + "x" * 40,
    "openai-key": "sk-proj-" + "Ab3" * 12,
    "google-api-key": "AIza" + "SyD" * 11 + "xx",
    "slack-token": "xoxb-1234567890-abcdefghijkl",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind,secret", SECRETS.items())
def test_redactor_finds_each_kind(kind: str, secret: str) -> None:
    text, n = Redactor().redact(f"use {secret} here")
    assert secret not in text and n == 1
    assert "[REDACTED:" in text


def test_redactor_assignments_urls_and_keys() -> None:
    r = Redactor()
    for raw, gone in [
        ("export DB_PASSWORD=hunter2Secret!", "hunter2Secret!"),
        ("postgres://admin:s3cr3tPass@db:5432/app", "s3cr3tPass"),
        ('{"api_key": "Zx81kQ02pLm"}', "Zx81kQ02pLm"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ]:
        text, n = r.redact(raw)
        assert gone not in text and n >= 1, raw


def test_redactor_leaves_look_alikes() -> None:
    r = Redactor()
    for text in ["commit 6322cf4a9b1e0c7d5f3a2b1c0d9e8f7a6b5c4d3e",
                 "session c64cc478-3430-40fe-8e9c-4ee9986e9754",
                 "integrity sha512-Jz8Cw7gPOkGxHbqWm1aKNsWqTz2x3zOa4Y3w5VdNkYpQy==",
                 "token = None", "password: str", "secret=os.environ['X']"]:
        assert r.redact(text) == (text, 0), text


def test_redactor_allow_list_and_extra_patterns() -> None:
    r = Redactor(extra=[("internal", r"itk_[a-z0-9]{8}")], allow=["AKIAIOSFODNN7EXAMPLE"])
    text, n = r.redact("AKIAIOSFODNN7EXAMPLE and itk_abcd1234")
    assert "AKIAIOSFODNN7EXAMPLE" in text and "[REDACTED:internal]" in text and n == 1


_PIECES = st.sampled_from([
    "password", "PASSWORD", "Token", "api_key", "secret", "AWS_SECRET_ACCESS_KEY", "Bearer",
    "authorization: bearer", " = ", ": ", "=", '"', "'", " ", "\n", "os.environ['X']",
    "hunter2Secret!", "Zx81kQ02pLmQ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "eyJhbGciOiJIUzI1NiJ9", "İstanbul", "ß", "x" * 30, "None", "test",
])


# (No deadline: the first example compiles every rule a text triggers, twice,
# which a loaded machine takes over 200 ms to do.)
@settings(max_examples=examples(40, 500), deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_folded_redaction_equals_case_insensitive_patterns(text: str) -> None:
    """Running the (?i) rules as plain patterns on the lower-cased text gives
    exactly what the (?i) patterns give on the text itself."""
    fast = Redactor()
    reference = Redactor()
    reference._folded = {}
    assert fast.redact(text) == reference.redact(text)


@settings(max_examples=examples(100, 300))
@given(st.lists(st.sampled_from(["a", "Zm9v", "+/", " ", "\n", "\t", "x" * 37, "=", "\x0b",
                                 "\u2028", "é", "data:image/png;base64,"]), max_size=120)
       .map("".join))
def test_clean_shortcuts_change_nothing(text: str) -> None:
    """The cheap pre-checks in clean() never change its result."""

    from vibe_vault import text as tx

    expected = re.sub(tx._BASE64_RUN, "[base64 data]",
                      re.sub(tx._DATA_URI, "[base64 data]", text)).translate(tx._CONTROL)
    assert tx.clean(text) == expected


def _near_pieces() -> st.SearchStrategy[str]:
    """Pieces of text about the triggers of token shapes: each trigger (as
    typed and upper-cased), filled samples of every shaped and run rule, long
    random runs, and what separates them."""
    from vibe_vault.redact import RUN_RULES, SHAPED_RULES
    from vibe_vault.secret_rules import RULES, samples

    triggers = sorted({t for i in SHAPED_RULES | RUN_RULES for t in RULES[i].triggers})
    filled = [s.text for i in sorted(SHAPED_RULES | RUN_RULES) for s in samples(RULES[i])]
    run = st.text(alphabet="abcdefXYZ0123456789_-=", min_size=1, max_size=60)
    return st.one_of(st.sampled_from(triggers), st.sampled_from(triggers).map(str.upper),
                     st.sampled_from(filled), run,
                     st.sampled_from([" ", "\n", "/", ".", '"', "=", ":", "é", "x" * 70]))


@settings(max_examples=examples(40, 400), deadline=None)
@given(st.lists(_near_pieces(), max_size=25).map("".join))
def test_near_triggers_by_search_equal_the_trigger_regex(text: str) -> None:
    """Which token rules run on a text (the triggers near its long runs),
    found by searching for each trigger in turn, as the first few thousand
    characters a process meets are, is what the trie-shaped regex finds:
    the text redacted the same, the same secrets found."""
    searched, compiled = Redactor(), Redactor()
    searched._searched = -(10 ** 12)  # always one search per trigger
    compiled._searched = 10 ** 12  # always the regex, as every text was before
    found_searched: list[str] = []
    found_compiled: list[str] = []
    assert searched.redact(text, found_searched) == compiled.redact(text, found_compiled)
    assert found_searched == found_compiled


def _word_pieces() -> st.SearchStrategy[str]:
    """Pieces of text about the trigger words: each word of every rule (as
    typed, in capitals, a letter dropped: half a word), every rule's
    filled samples and look-alike, and noise in ASCII and other scripts."""
    from vibe_vault.secret_rules import LOOK_ALIKES, samples

    words = sorted({t for r in RULES for t in r.triggers})
    filled = [s.text for r in RULES for s in samples(r)]
    look = [*LOOK_ALIKES, *(r.look_alike for r in RULES if r.look_alike)]
    noise = st.text(alphabet="abcxyzAZ09 -_:=\"'\n\t.()/$éßİ—→키密пароль", max_size=12)
    return st.one_of(st.sampled_from(words), st.sampled_from(words).map(str.upper),
                     st.sampled_from(words).map(lambda w: w[:-1]), st.sampled_from(filled),
                     st.sampled_from(look), noise,
                     st.sampled_from([" ", "\n", ": ", "=", '"', "é", "—", "x" * 70]))


@settings(max_examples=examples(60, 600), deadline=None)
@given(st.lists(_word_pieces(), max_size=20).map("".join))
def test_trigger_words_by_regex_equal_a_search_for_each(text: str) -> None:
    """Which root words of the trigger tree a text holds, found by the
    regex of `_RootFinder` (every text after the first WORD_SEARCH_CHARS a
    process meets), is what a search for each word finds: the same words,
    so the text redacted the same and the same secrets found."""
    from vibe_vault.redact import _WORD_TREE

    searched, compiled = Redactor(), Redactor()
    searched._word_chars = -(10 ** 12)  # always one search per word
    compiled._word_chars = 10 ** 12  # always the regex
    low = text.lower()
    expected = sorted(node[0] for node in _WORD_TREE if node[0] in low)
    assert sorted(node[0] for node in compiled._roots_in(low)) == expected
    assert sorted(node[0] for node in searched._roots_in(low)) == expected
    found_searched: list[str] = []
    found_compiled: list[str] = []
    assert searched.redact(text, found_searched) == compiled.redact(text, found_compiled)
    assert found_searched == found_compiled


def test_trigger_words_by_regex_redact_every_sample_and_look_alike_alike() -> None:
    """Every sample and look-alike of the rule table, alone and in a line of
    prose in another script, redacted the same whichever way the trigger
    words are found."""
    from vibe_vault.secret_rules import LOOK_ALIKES, samples

    searched, compiled = Redactor(), Redactor()
    searched._word_chars = -(10 ** 12)
    compiled._word_chars = 10 ** 12
    texts = [*(s.text for r in RULES for s in samples(r)), *LOOK_ALIKES,
             *(r.look_alike for r in RULES if r.look_alike)]
    for text in texts:
        for framed in (text, f"Voilà — {text} (키)"):
            assert searched.redact(framed) == compiled.redact(framed), framed


def test_root_finder_searches_alone_a_word_another_begins() -> None:
    """A root word another root begins (none in the rules' tree, but the
    regex would find only one of them at a place) is found all the same."""
    from vibe_vault.redact import _RootFinder

    roots = [(w, (i,), []) for i, w in enumerate(["ab", "abc", "bcd", "-", "키", "密码"])]
    finder = _RootFinder(roots)  # type: ignore[arg-type]
    for low in ("abcd", "xabx", "bcd-", "키 ab", "密码abc", "密", ""):
        assert sorted(n[0] for n in finder.found(low)) == sorted(
            w for w, _, _ in roots if w in low), low


@given(st.dictionaries(st.text(alphabet="ab-_", min_size=1, max_size=6),
                       st.sets(st.integers(0, 20), max_size=4), max_size=30))
def test_trigger_rules_with_prefixes_are_the_union_over_every_prefix(
        rules_of: dict[str, set[int]]) -> None:
    """Each trigger stands for its rules and those of every trigger it begins
    with: the union over all its prefixes, however it is computed."""
    from vibe_vault.redact import with_prefixes

    expected = {w: frozenset().union(*(rules_of.get(w[:k], ()) for k in range(1, len(w) + 1)))
                for w in rules_of}
    assert with_prefixes(rules_of) == expected


@settings(deadline=None)
@given(st.dictionaries(st.text(alphabet="ab-_:\n", min_size=1, max_size=6),
                       st.sets(st.integers(0, 20), max_size=4), max_size=30))
def test_trigger_word_tree_puts_each_word_under_the_longest_it_holds(
        rules_of: dict[str, set[int]]) -> None:
    """The trigger words' tree: each word under the longest other word it
    holds (the first of those as long, in the rules' order), as a test of
    each word in each has it; words holding none are the roots, in order."""
    from vibe_vault.redact import _word_tree

    words = {**{g: set() for g in ("-", "_", ":")}, **rules_of}

    def holds(word: str) -> list[str]:
        return [u for u in words if u != word and u in word]

    def shape(nodes: list[tuple[str, tuple[int, ...], list]]) -> list[object]:  # type: ignore[type-arg]
        return [(w, ids, shape(kids)) for w, ids, kids in nodes]

    def expected(parent: str | None) -> list[object]:
        return [(w, tuple(sorted(words[w])), expected(w)) for w in sorted(words)
                if (max(holds(w), key=len) if holds(w) else None) == parent]

    assert shape(_word_tree(rules_of)) == expected(None)


_SECRET_WORDS = next(r for r in RULES if r.id == "secret-assignment").triggers
# A password's name in every language the prose rules know, one word each.
_PASSWORD_NAMES = tuple(sorted({t for r in RULES if r.id == "prose-password"
                                for t in r.triggers if t.isalpha()}))


@settings(max_examples=examples(60, 300), deadline=None)
@given(word=st.sampled_from(_SECRET_WORDS + _PASSWORD_NAMES),
       other=st.sampled_from(_SECRET_WORDS + _PASSWORD_NAMES),
       shape=st.sampled_from(["FAILED tests/test_{w}.py::test_{o} - assert 1 == 2",
                              "tests/unit/{w}_store.py::Test{O}::test_rotates PASSED",
                              "{W}::new_{o}_value()", "let k = {W}{O}::default();",
                              "ERROR src/{w}.py::test_{o}[case-1]"]))
def test_a_scope_or_a_test_id_is_no_name_given_a_value(word: str, other: str,
                                                        shape: str) -> None:
    """`name::member` (a pytest test's id, a Rust or C++ path) names a thing
    by its parts; a secret's keyword in a part is no value assigned, whatever
    the keyword (every trigger of the assignment rule, a password's name in every
    language of the prose rules: `TestHaslo::test_reset`) and wherever it stands."""
    text = shape.format(w=word, o=other, W=word.capitalize(), O=other.capitalize())
    assert Redactor().redact(text)[0] == text


@settings(max_examples=examples(60, 400), deadline=None)
@given(word=st.sampled_from(["pass", "password", "secret", "token", "api_key", "auth", "pwd"]),
       ext=st.sampled_from(["md", "py", "json", "ts", "go", "toml", "rs"]),
       line=st.integers(0, 9999), col=st.integers(0, 200), end=st.booleans(),
       before=st.sampled_from(["", "see ", "/Users/dev/site/", "cci:1://file:///x/"]))
def test_a_place_in_a_file_named_for_a_secret_is_no_secret(
        word: str, ext: str, line: int, col: int, end: bool, before: str) -> None:
    """`password.py:12:3` and `pass.md:0:0-0:0`, as editors and compilers name a place
    in a file, are a file and a position: shown as written. The same name given a
    value that is not a position, or a secret's name with a dot in it, still hides it."""
    from vibe_vault.redact import DEFAULT

    place = f"{line}:{col}" + (f"-{line + 3}:{col + 1}" if end else "")
    text = f"{before}{word}.{ext}:{place} is where"
    assert DEFAULT.redact(text) == (text, 0)
    out, n = DEFAULT.redact(f"{before}{word}.{ext}:hunter{line}x{col} is where")
    assert n == 1 and "hunter" not in out, out
    out, n = DEFAULT.redact(f"db.{word}:Q{line:04d}z{col:03d}")
    assert n == 1 and "REDACTED" in out, out


@settings(max_examples=examples(60, 300), deadline=None)
@given(pieces=st.lists(st.text("abcdefABCDEF0123456789", min_size=1, max_size=15),
                       min_size=2, max_size=12),
       joins=st.lists(st.sampled_from(["%2F", "%2B", "%3D", "%", "+", "%25"]),
                      min_size=11, max_size=11),
       before=st.sampled_from(["", "cookie d: ", "SLACK_COOKIE_D=", "d=", "curl -b 'd="]))
def test_a_url_encoded_token_is_hidden_however_short_its_pieces(
        pieces: list[str], joins: list[str], before: str) -> None:
    """Slack's `d` cookie (`xoxd-…`) is URL-encoded: `%2F`, `%2B`, `%3D` (or a
    bare `+`) may come every few characters, so no run of 16 letters and digits
    need be in it. Whatever its pieces, the whole value is hidden (a fresh
    clone drew `xoxd-0000000000%000…%A`, shown as written)."""
    body = pieces[0] + "".join(j + p for j, p in zip(joins, pieces[1:], strict=False))
    value = "xoxd-" + body
    if len(body) < 20:
        value += "%2B" + "a1" * 10
    out, n = Redactor().redact(before + value)
    assert n >= 1 and value not in out and "xoxd-" not in out, out
