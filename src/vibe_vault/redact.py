"""Keep secrets out of the vault.

Every text the fold copies from a transcript passes `Redactor.redact` first.
A secret is replaced by `[REDACTED:<kind>]`; the count goes in the note's
frontmatter. Patterns are anchored on the shape of real credentials (prefixes,
lengths, key names) so that git SHAs, UUIDs and lock-file hashes stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from itertools import pairwise
from typing import Any, NewType, TypeVar

from vibe_vault import patterns, secret_dress, secret_keys, secret_names
from vibe_vault.text import rx, users_rx

# A string that passed the redaction gate (`fold.context.Context.text`, `line`,
# `name`, `note_text`), or a constant of vibe-vault's own. The session state's
# text fields are of this type, so mypy refuses a transcript string that did
# not pass the gate.
Redacted = NewType("Redacted", str)

# Seconds one of the user's own patterns may take on one text. A pattern that
# backtracks without end (`(a+)+$`) is stopped there, and the whole text is
# withheld rather than shown unredacted.
USER_PATTERN_BUDGET = 0.5
# Texts a pattern that backtracks without end is likely to meet; `check_pattern`
# runs each user pattern over them at load.
_PROBES = tuple(c * 30 + "!" for c in ("a", "A", "1", " ", "_", "-", "x=", "a1", "\t"))

# The rules are data (`secret_rules.RULES`). A rule runs only when its trigger
# says so (see there), and is compiled the first time it runs: most texts
# trigger nothing, and compiling every pattern up front would cost each hook
# several milliseconds. The whole match is replaced unless the pattern has a
# group named "v" (or v2, v3...), in which case only that group is.
# What a Redactor reads of them is `rule_table()`'s (kept: see there), so the
# modules that make them are imported only when the table is made anew.


def _rule_sources() -> tuple[tuple[str, int, int], ...] | None:
    """What the rule table is made from, as each file's name, size and time:
    every `secret_*.py` of the package (the rule modules, and any added),
    this module (which works the table out) and those the rule modules use
    (`text`, `patterns` and the `kept_modules` it reads its file with); None
    when they cannot be listed (then the table is made, not kept).
    tests/test_rule_table.py checks that the rule modules import nothing else
    of the package."""
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        names = sorted(n for n in os.listdir(here) if n.startswith("secret_") and n.endswith(".py"))
        stamps = []
        for name in (*names, *RULE_TABLE_MODULES):
            st = os.stat(os.path.join(here, name))
            stamps.append((name, st.st_size, st.st_mtime_ns))
    except OSError:
        return None
    return tuple(stamps)


# Besides the secret_*.py files: the modules the rule table depends on.
RULE_TABLE_MODULES = ("redact.py", "text.py", "patterns.py", "kept_modules.py")


def make_rule_table() -> tuple[Any, ...]:
    """The rules as a Redactor reads them, worked out from secret_rules.RULES
    (each field as `rule_table` names it)."""
    from vibe_vault import secret_positional
    from vibe_vault.secret_rules import LINE_OR_UPPER, RULES, RUN, SHAPED, WORD, B

    word_rules: dict[str, set[int]] = {}
    near: dict[str, set[int]] = {}
    for i, rule in enumerate(RULES):
        for t in rule.triggers:
            if rule.how == WORD:
                word_rules.setdefault(t, set()).add(i)
            else:
                near.setdefault(t, set()).add(i)
    run = frozenset(i for i, r in enumerate(RULES) if r.how == RUN)
    return (
        tuple((r.id, r.pattern.removeprefix(B)) for r in RULES),
        {i: glued for i, r in enumerate(RULES) if r.pattern.startswith(B)
         if (glued := tuple(t for t in r.triggers if glue_proof(t)))},
        frozenset(i for i, r in enumerate(RULES) if r.pattern.startswith("(?i)")),
        _word_tree(word_rules),
        near,
        frozenset(i for i, r in enumerate(RULES) if r.pattern.startswith(B)),
        {i: r.line for i, r in enumerate(RULES) if r.line},
        frozenset(i for i, r in enumerate(RULES) if r.how == SHAPED),
        run,
        sorted(i for i in run if not RULES[i].triggers),
        tuple(secret_positional.KINDS),
        LINE_OR_UPPER,
    )


def rule_table() -> tuple[Any, ...]:
    """`make_rule_table()`, kept beside the compiled patterns while the files
    it is made from are unchanged (`_rule_sources`): importing the rule
    modules and working the table out cost a Stop ~15 M instructions (the
    floor, `import msgspec`, is ~170 M), reading it back ~1 M."""
    sources = _sources[0] = _rule_sources()
    if sources is None:
        return make_rule_table()
    return patterns.kept("redact-rules", sources, (), make_rule_table)


# The stamps `rule_table` read as this module was imported: the tables kept
# beside its table are made from the same files (read again: ~0.3 M instructions).
_sources: list[tuple[tuple[str, int, int], ...] | None] = [None]


# Rules whose value must hold a letter and a digit: a name there is no proof.
_MIXED = frozenset({"generic-key", "password-value", "azure-devops-pat"})
# gitleaks' least entropy (bits a character) for its generic key: below it a
# value is a word, a version, a name.
GENERIC_ENTROPY = 3.5
# Keys a vendor's documentation prints as examples, which no account holds
# (AWS's access key id and secret key): shown where a note quotes the docs.
_DOCUMENTED_EXAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE",
                                  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
# A media type whose data URI's body is bytes (`data:image/png;base64,`), up to
# its `;base64,`; how far back from a match its `;base64,` is looked for.
# A key public by its vendor's design, whatever name it is given (`data-key=`):
# Stripe's publishable key, which every payment page shows.
_PUBLIC_BY_DESIGN = r"pk_(?:live|test)_[A-Za-z0-9]{10,}\Z"
_MEDIA_DATA_URI = (r"data:(?:image|font|audio|video)/[\w.+\-]{1,60}"
                   r"(?:;[\w.+\-]{1,30}=[\w.+\-]{1,60})*\Z")
_DATA_URI_SPAN = 1_000_000
# Two letters of Chinese, Japanese or Korean (a sentence's words, which these
# scripts write without spaces; a password is made of Latin letters and digits).
_CJK_WORDS = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]{2}"
_HEX = r"[0-9a-f\-]+\Z"  # a hash or a UUID (on the lower-cased value)
# On the lower-cased text; `=` counts (base64's padding, and inside some keys).
_LONG_RUN = r"[a-z0-9_\-=%+]{16,}"
# The gate's readings after its rules, by the numbers `Redactor._rules_once`
# knows them by (below the rules' own, which count from 0).
_KEYS, _SEEDS, _K8S, _COLUMNS, _ENV = -1, -2, -3, -4, -5
_STEPS = (_KEYS, _SEEDS, _K8S, _COLUMNS, _ENV)
# Characters of run windows a Redactor searches for each trigger in turn
# before it compiles the trigger regex instead (see Redactor._near_words).
NEAR_SEARCH_CHARS = 8192
# Characters of texts a Redactor searches for each root trigger word in turn
# before it finds them with one regex instead (see Redactor._roots_in): about
# what those searches cost (~0.2 µs a character more) by the time making the
# regex from the kept programs (~1 ms) has paid for itself.
WORD_SEARCH_CHARS = 16_384
# Root trigger words a text nearly always holds near its start (the three
# characters the tree puts words under, see _word_tree): each is looked for
# alone, a search in C that stops at once. In the regex for the others every
# place they occur would be a match, and a step in Python.
_FREQUENT_WORDS = frozenset({"-", "_", ":"})
# A text longer than HUGE_TEXT (a tool's output of a megabyte on one line) is
# gated in pieces of PIECE characters, each reaching PIECE_OVERLAP further
# into the next, so that a form up to that long is read whole by one of them
# wherever it falls. The pieces are read until HUGE_TEXT_BUDGET seconds have
# passed on the text (or the Redactor's deadline, a hook's, has come); what
# is left then is withheld, never shown unchecked.
HUGE_TEXT = 131_072
PIECE = 65_536
PIECE_OVERLAP = 8_192
HUGE_TEXT_BUDGET = 1.0


def _trie(words: Iterable[str]) -> str:
    """A regex finding any of `words`, as a trie: one pass over a text instead
    of a substring search per word (twice as fast here)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


_Node = tuple[str, tuple[int, ...], list[Any]]


def _word_tree(words: dict[str, set[int]]) -> list[_Node]:
    """The trigger words as a tree: each under the longest other word it
    holds ("--pass" under "pass"), the roots those that hold none. Words
    with a "-", "_" or ":" go under that character: one search skips them."""
    words = {**{g: set() for g in ("-", "_", ":")}, **words}
    # (rules as tuples: a kept tree is read back twice as fast as with frozensets)
    nodes: dict[str, _Node] = {w: (w, tuple(sorted(ids)), []) for w, ids in words.items()}
    # Which words each word holds, found by searching all the words at once
    # (one string, a word a line) for each word, in C: a pair of loops over
    # the words, testing each in each, was a twelfth of a Stop's instructions.
    # A word's parent is the longest word it holds, the first in `words`'
    # order of those as long.
    joined = "\n".join(words) + "\n"
    if joined.count("\n") != len(words):  # (a word of lines: none of the rules')
        return _word_tree_pairwise(words, nodes)
    parent: dict[str, str] = {}
    for inner in words:
        at = joined.find(inner)
        while at >= 0:
            end = joined.find("\n", at)
            word = joined[joined.rfind("\n", 0, at) + 1:end]
            if len(word) > len(inner) > len(parent.get(word, "")):
                parent[word] = inner
            at = joined.find(inner, end)
    roots: list[_Node] = []
    for word in sorted(words):
        if word in parent:
            nodes[parent[word]][2].append(nodes[word])
        else:
            roots.append(nodes[word])
    return roots


def _word_tree_pairwise(words: dict[str, set[int]], nodes: dict[str, _Node]) -> list[_Node]:
    """`_word_tree` testing each word in each."""
    roots: list[_Node] = []
    for word in sorted(words):
        inside = [u for u in words if u != word and u in word]
        if inside:
            nodes[max(inside, key=len)][2].append(nodes[word])
        else:
            roots.append(nodes[word])
    return roots


class _RootFinder:
    """Which root words of the trigger tree a (lower-cased) text holds, as
    `[node for node in roots if node[0] in low]` says, in far fewer steps
    (on the corpus those searches, one per root, were two fifths of the
    gate's time):

    - "-", "_" and ":" by a search each (_FREQUENT_WORDS);
    - the rest in ASCII by one trie-shaped regex. Roots hold no other root,
      so none begins another: at a place where one of them begins no other
      does, and the regex, searched again from the place after each match,
      meets every one, overlapping or not. (A word that another would begin,
      none in the rules' tree, is searched for alone instead.)
    - the words in other scripts by a search each, only when the text holds
      the word's first character outside ASCII (as a set of the text's
      characters outside ASCII says): a text in Korean is not searched for
      the words in Thai, nor a text whose only such character is a dash
      for any."""

    def __init__(self, roots: list[_Node]) -> None:
        alone = [node for node in roots if node[0] in _FREQUENT_WORDS or not node[0].isascii()]
        rest = {node[0]: node for node in roots
                if node[0] not in _FREQUENT_WORDS and node[0].isascii()}
        for word in list(rest):
            if any(word[:k] in rest for k in range(1, len(word))):
                alone.append(rest.pop(word))
        self.node_of = rest
        self.alone = [node for node in alone if node[0].isascii()]
        self.by_char: dict[str, list[_Node]] = {}
        for node in alone:
            if not node[0].isascii():
                first = next(c for c in node[0] if not c.isascii())
                self.by_char.setdefault(first, []).append(node)
        # (a regex of no words would match everywhere: then there is none.
        # The regex is kept beside the compiled patterns: working it out
        # cost more than a search for each word over a hook's texts.)
        words = tuple(rest)
        self.words = rx(patterns.kept("redact-root-words", words, (_trie.__code__,),
                                      lambda: _trie(words))) if words else None

    def found(self, low: str) -> list[_Node]:
        found = [node for node in self.alone if node[0] in low]
        if not low.isascii():
            by_char = self.by_char
            for c in set(rx(r"[^\x00-\x7f]").findall(low)):
                found += [node for node in by_char.get(c, ()) if node[0] in low]
        words = self.words
        if words is not None:
            seen: set[str] = set()
            m = words.search(low)
            while m is not None:
                seen.add(m.group())
                m = words.search(low, m.start() + 1)
            node_of = self.node_of
            found += [node_of[w] for w in seen]
        return found


def with_prefixes(rules_of: dict[str, set[int]]) -> dict[str, frozenset[int]]:
    """Each word's rules with those of every other word it begins with
    ("sk-ant-" with "sk-"'s): from the shortest words up, each takes the set
    its longest such prefix already holds (a third of the time of a union
    over every prefix, which a hook paid at import)."""
    out: dict[str, frozenset[int]] = {}
    for word in sorted(rules_of, key=len):
        rules = set(rules_of[word])
        for k in range(len(word) - 1, 0, -1):
            shorter = out.get(word[:k])
            if shorter is not None:
                rules |= shorter
                break
        out[word] = frozenset(rules)
    return out




@cache
def _near_gate() -> str:
    # In a lookahead: words that overlap ("pat" in "patwitter") are all found.
    # (the triggers of the SHAPED and RUN rules: those the near-words table has)
    return "(?=(" + _trie(_NEAR_RULES) + "))"


# Values that are exact, obvious placeholders, not secrets: `your-token-here`,
# `YOUR_API_KEY`, `sk-...`, `<token>`, `${VAR}`, `changeme`, `password`.
# (A name in capitals, `YOUR_API_KEY`, `DB_PASSWORD`, `OAUTH2_TOKEN`, is one when each
# of its parts is a word, a version's digit or two allowed after it: `AA_0000000` or
# `ADMIN_2024` is a password someone chose, not a variable's name.)
_PLACEHOLDER = (
    r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}?|\$[A-Za-z_][A-Za-z0-9_]*|%\([a-z_]+\)s"
    r"|%[A-Za-z_][A-Za-z0-9_]*%|\$env:[A-Za-z_][A-Za-z0-9_]*"
    # (a template's variable, filters after it: `{{ user_password | password_hash('sha512') }}`,
    # Go's `{{ .Values.db.password }}`; not a literal, `{{ 'X' | password_hash }}`)
    r"|\{\{-?\s*[A-Za-z_.$][\w.$]*(?:\[[^\]\n]*\])*\s*(?:\|[^{}\n]*)?-?\}\}|<[^<>]+>|\*{3,}|x{3,}|\.{3}|…|changeme|\[redacted[^\]]*\]?"
    # (a mask a tool or a person printed for it: `•••••`; a masked pair quoted
    # whole, `password=secret=***`: review 31 F6)
    r"|[•●∙·]{3,}|[A-Za-z_][\w.\-]{0,64}[=:](?:\*{3,}|x{3,}|[•●∙·]{3,}|<[^<>]+>|\[redacted[^\]]*\]?)"
    # (a vendor's prefix then a mask: `ghp_xxxxxxxxxxxx`, `sk-xxxx`, `sk_live_••••`)
    r"|(?:[a-z0-9]{1,12}[_\-]){1,3}(?:x{4,}|[•●]{4,})"
    r"|[<{\[]?your\b.*|your[_\-].*"
    r"|.*[_\- ]here|.*(?:\.{3}|…)|(?-i:[A-Z]+\d{0,2}(?:_[A-Z]+\d{0,2})+)"
    r"|(?:example|sample|dummy|placeholder|fake|test|password|secret|token|hidden|masked"
    r"|redacted|filtered|sensitive|omitted|xxx+|x+-x+(?:-x+)*|todo|tbd|fixme)s?"
    # (its mask taken off as Markdown's emphasis: `password=secret=***` read `secret=`)
    r"[=:]?"
    # (a value saying it is to be replaced: `change-me-in-production`, `REPLACE_ME`)
    r"|(?:change|replace|set|update)[_\-]?(?:me|this|it)(?:[_\-][\w\-]*)?"
    # (a shell's command substitution, `$(cat /run/secrets/pw)`, `$(pass show db)`:
    # the secret is read from elsewhere; a format string's field, `{password}`)
    r"|\$\(.*|\{[A-Za-z_][\w.]*\}?"
    # (a template's words in braces, `{source_key per intersection file}`: what goes there)
    r"|\{[A-Za-z_][\w.\-]*(?:[ \t]+[\w.\-]+){1,12}\}"
    # a mask a tool prints for a value (Terraform's `(sensitive value)`, `(known after
    # apply)`; Rails' `[FILTERED]`): a value cut at its space keeps only `(sensitive`
    r"|\((?:sensitive|known|hidden|redacted|masked|secret|encrypted|filtered|omitted"
    r"|not[ _]shown|unknown|none|empty|blank|unset|not[ _]set|null|n/a)\b[^)]*\)?"
    r"|\[(?:sensitive|hidden|masked|secret|encrypted|filtered|omitted)\b[^\]]*\]?"
)
# Values of `key = value` that are code or placeholders, not secrets. Anything
# else is redacted, all-letter passwords and "test_" keys too.
_NOT_A_VALUE = (
    r"none|null|nil|true|false|undefined|string|str|bytes|int|bool|optional\[.*"
    # (a word saying there is none, `primary pass = nothing`: prose)
    r"|(?:none|null|nil|nothing|empty|blank|unset|missing|absent|n/a)[.,;!?]?"
    # (fetch's `credentials: include`, `same-origin`, `omit`: an option, no secret;
    # a shell's default that is a variable, `${TOKEN:-$OTHER}`, or its error, `${PW:?unset}`:
    # words, where `?S3Npguqok` is a password that begins with `?`)
    r"|include|same-origin|omit|-\$\{?[A-Za-z_]\w*\}?|\?[a-z_ ]*"
    # (a type, named in quotes as a forward reference: `token: "List[str]"`)
    r"|(?:typing\.)?(?:list|dict|tuple|set|frozenset|type|union|literal|callable|sequence"
    r"|mapping|iterable|iterator|annotated|classvar|final|awaitable|generator)\[.*\]"
    r"|(?:os\.environ|os\.getenv|process\.env|getenv|env|settings|config|self|this|args"
    r"|options|req|request|ctx)\b[.\[(].*"
    # a file's path (`--from-file=password=./pw.txt`): where the secret is
    r"|(?:\.{1,2}|~)/[\w.\-/]+"
    r"|/(?:etc|run|var|home|tmp|opt|usr|srv|mnt|secrets|Users|root|data)/[\w.\-/]+"
)
_NOT_A_SECRET = (
    r"(?i)^(?:" + _NOT_A_VALUE
    # (a call's `)` may be cut off: a bare value ends before it)
    + r"|[A-Za-z_][A-Za-z0-9_]*\(.*|[A-Za-z_][\w.]*\[.*|[A-Za-z_][\w.]*\.[A-Za-z_]\w*\(.*"
    # a reference to a type or a name (Rust's `tokenizer: &Tokenizer`, `&[Entry]`, C's `&x`)
    r"|&(?:mut\s+)?\[?[A-Za-z_][\w:.]*\]?"
    r"|" + _PLACEHOLDER + r")$"
)
# The same for a quoted value (`AUTH_SALT='A0000001(2'`): a string, not a call
# or a subscript, though a type's name or a reference to the environment still
# says no secret (`"password": "string"`, `token: "Optional[str]"`).
_NOT_A_QUOTED_SECRET = r"(?i)^(?:" + _NOT_A_VALUE + r"|" + _PLACEHOLDER + r")$"
# A quoted literal given to a secret's name (`define('X', '…')`): code it is
# not, a placeholder it may be.
_NOT_A_LITERAL = r"(?i)^(?:" + _PLACEHOLDER + r")$"
# What may come before a LINE rule's match on its line: indentation, a
# prompt (`$ `, `host:6379> `, `>>> `, `ftp> `), a protocol log's `C: ` or
# `-> `, and an IMAP command's tag (`a001 `, `. `).
_LINE_PREFIX = (r"[ \t]*(?:[\w.:@~/\[\]\-]*[>$#%][ \t]*|[CS]:[ \t]*|-+>[ \t]*)?"
                r"(?:[A-Za-z]{0,3}\d{1,4}[ \t]+|\.[ \t]+)?\Z")
# A URL's user that is a name, not a token: words in lower case or capitalised
# (`deploymentbot`, `JohnSmith`, `x-access-token`), a number of up to four digits
# after them (`deploy01`). A run of over 16 lower-case letters is no word.
_URL_USER = r"(?:(?:[a-z]{1,16}|[A-Z][a-z]{2,15})(?:[A-Z][a-z]{2,15})*\d{0,4}(?:[_\-]+|\Z))+\Z"
# A value that is a number (a count, a limit: `max_tokens: 4096`).
_NUMBER = r"[\d_.,]+[kKmMbB]?\Z"
# A value that is code: a snake_case name (or a dotted path of them).
_IDENTIFIER = r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*\Z"
# A file's name (`password.py`: an extension that names no secret) and a place in it
# (`12`, `12:3`, `20:8-23:9`), as editors and compilers write them: no name given a value.
_FILE_POSITION = r"[\w.\-]*\.(?!\w*(?:pass|pw|secret|token|key|auth|cred))[a-z0-9]{1,5}\Z"
_POSITION = r"\d+(?::\d+)?(?:-\d+(?::\d+)?)?\Z"
MIN_SECRET = 6  # a shorter value of a name that means a secret: only a password's

# A `.env` file being written or dumped by a shell command.
_ENV_FILE_CMD = (
    r"(?:>>?\s*|cat\s+|tee\s+(?:-a\s+)?"
    r"|\bsed\s+(?:-[a-zA-Z]*\s+)*-i\S*(?:\s+'')?\s+(?:'[^'\n]*'|\"[^\"\n]*\"|\S+)\s+)"
    r"\S*\.env(?:\.(?!example|sample|template|dist)[\w.]+)?\b"
)
_ENV_LINE = r"(?m)^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=)(.+)$"
# In the command that writes the file, a line it adds (`echo 'KEY=v' >> .env`,
# `printf 'KEY=v\n' > .env`), and what a `sed -i s/…/KEY=v/ .env` puts in.
_ENV_SED_VALUE = (r"(\bs([/|#,@:])(?:(?!\2)[^\n])*\2(?:[A-Za-z_][A-Za-z0-9_]*=)?)"
                  r"((?:(?!\2)[^\n'\"])+)(?=\2)")
_ENV_INLINE = r"(?<![\w$.\-])([A-Za-z_][A-Za-z0-9_]*=)((?!\[REDACTED)[^\s'\"\\;|&>]+)"


# A Kubernetes Secret (`kind: Secret`); its `data:` map's values are base64 of
# secrets whatever their names. An empty value or a `{{ template }}` is none.
_K8S_SECRET = r"\bkind:[ \t]*[\"']?secret\b"
_K8S_DATA = r"\bdata:"
# One `name: value` of the map (a block scalar's `|` or `>` allowed before it).
_K8S_VALUE = (r"\s+[\w.\-]+:(?:[ \t]*(?:\||>[-+]?)\s+)?[ \t]*[\"']?"
              r"(?P<v>[A-Za-z0-9+/]{10,}={0,3})[\"']?")


def _k8s_values(text: str, found: list[str] | None) -> tuple[str, int]:
    """Hide every value of every `data:` map within 200 characters of a
    `kind: Secret` (before or after it, as gitleaks reads a manifest)."""
    low = text.lower()
    kinds = [m.start() for m in rx(_K8S_SECRET).finditer(low)]
    spans: list[tuple[int, int]] = []
    for data in rx(_K8S_DATA).finditer(text.lower()):
        if not any(k - 300 <= data.start() <= k + 300 for k in kinds):
            continue
        at = data.end()
        value = rx(_K8S_VALUE)
        # The map's first value may follow a little other text; then each
        # next one follows the last.
        first = rx(r"[\s\S]{0,100}?" + _K8S_VALUE).match(text, at)
        m = first
        while m is not None:
            spans.append(m.span("v"))
            m = value.match(text, m.end())
    return _spans_hidden(text, spans, "kubernetes-secret", found)


def _column_values(text: str, low: str, found: list[str] | None) -> tuple[str, int]:
    """Hide the values of a table's or an SQL INSERT's column named for a
    secret (see secret_tables)."""
    spans: list[tuple[int, int]] = []
    if len(low) == len(text):
        if any(w in low for w in _COLUMN_WORDS):
            from vibe_vault.secret_tables import aligned_spans, row_spans, table_spans

            if "\n" in low:
                spans += table_spans(text, low, _cell_hides)
                spans += aligned_spans(text, low, _cell_hides)
            if "|" in low:
                spans += row_spans(text, low, _cell_hides)
        if "insert" in low and "values" in low:
            from vibe_vault.secret_tables import sql_spans

            spans += sql_spans(text, low, _cell_hides)
    return _spans_hidden(text, spans, "secret-column", found)


def _spans_hidden(text: str, spans: list[tuple[int, int]], label: str,
                  found: list[str] | None) -> tuple[str, int]:
    """`text` with each span (the first of overlapping ones) hidden as
    `[REDACTED:label]`, and how many; each hidden value added to `found`."""
    if not spans:
        return text, 0
    out: list[str] = []
    last = 0
    for start, end in sorted(set(spans)):
        if start < last:
            continue
        if found is not None:
            found.append(text[start:end])
        out += [text[last:start], f"[REDACTED:{label}]"]
        last = end
    return "".join(out) + text[last:], len(out) // 2


# Words one of which a column's name holds when it names a secret.
_COLUMN_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "credential")
# What a password's column may hold that is no password: a dash, "n/a", "none".
_NO_VALUE = r"(?i)(?:-+|—|n/?a|none|null|nil|empty|unset|not set|\?+|\*+)\Z"


def _cell_hides(value: str, password: bool) -> bool:
    """Whether a cell of a column named for a secret holds one. In a
    password's column any value but a placeholder, a word saying what the
    password is (`required`, `hidden`) or a sentence; in a token's or a key's,
    one that is no number, word, name in code or sentence either."""
    if value.startswith("[REDACTED") or rx(_NO_VALUE).match(value) \
            or rx(_NOT_A_LITERAL).match(value) or len(value) < 4:
        return False
    if " " in value.strip():
        return password and not sentence(value)
    if password:
        # (letters and digits mixed, 8 or more: a value, whatever its letters
        # spell, `a00ABILLAKED`; CI drew it in an HTML table)
        return (len(value) >= 8 and any(c.isdigit() for c in value)
                and sum(c.isalpha() for c in value) >= 2) or not describes(value, colon=True)
    return not (rx(_NUMBER).match(value) or reads_as_word(value) or len(value) < 8
                or (value.isalpha() and not _random_letters(value)))


# Words of a sentence (not of a passphrase of words chosen at random): a run of
# words holding one is prose (`set at install`, `must be changed`).
_FUNCTION_WORDS = frozenset((
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "with", "by", "from", "and",
    "or", "but", "not", "no", "nor", "is", "are", "was", "were", "be", "been", "being",
    "it", "its", "this", "that", "these", "those", "as", "if", "then", "than", "so",
    "must", "should", "can", "could", "will", "would", "may", "might", "need", "needs",
    "do", "does", "did", "has", "have", "had", "your", "my", "our", "their", "his",
    "her", "you", "we", "they", "he", "she", "i", "me", "us", "them", "per", "via",
    "into", "onto", "about", "after", "before", "when", "where", "which", "who", "what",
    "how",
))


def sentence(value: str) -> bool:
    """Whether words are a sentence's (one of them a function word, or one
    that says what a password is), not a passphrase's (`correct horse battery
    staple`: words drawn at random, none of them a sentence's glue)."""
    words = value.lower().replace("-", " ").split()
    return any(w.strip(".,;:!?") in _FUNCTION_WORDS for w in words) \
        or any(describes(w.strip(".,;:!?")) for w in words if w.strip(".,;:!?").isalpha()
               and w.strip(".,;:!?") not in ("correct", "incorrect", "right", "wrong"))


def _about_the_answer(value: str) -> bool:
    """Words after a security answer's name that say what it is, not which
    (`stored hashed`, `must be three words`): the first a sentence's word or
    one that describes."""
    first = value.lower().split()[0].strip(".,;:!?") if value.split() else ""
    return first in _FUNCTION_WORDS or (first.isalpha() and describes(first))


def _random_letters(value: str) -> bool:
    """Letters drawn at random (`MUtUCNFgOmEtLrWs`, `qidwcnokmdttewlymed`), not
    a word or a name of words (`checked`, `PasswordInput`, `LPAREN`): capitals
    inside that begin no part of three letters or more, or parts whose runs of
    three letters are not English words' (one in six of its letters, or a part
    with no vowel); or eight lower-case letters or more with five such runs, or
    three and fewer vowels than three in ten (see reads_as_word)."""
    if not value.isupper() and any(c.isupper() for c in value[1:]):
        # (a short run of capitals may be a part: `macOS`, `getURL`, `IPv`)
        parts = rx(r"(?<![A-Z])[A-Z]{2,3}(?![A-Za-z])|[A-Z][a-z]+|[a-z]+").findall(value)
        if "".join(parts) != value or any(len(p) < 3 and not p.isupper() for p in parts[1:]):
            return True
        words = [p.lower() for p in parts if not p.isupper()]
        return (sum(map(_unseen_trigrams, words)) * 6 > len(value)
                or any(len(w) >= 3 and not any(c in "aeiouy" for c in w) for w in words))
    if len(value) < 8:
        return False
    # (a word may have three or four such runs, `encrypted`, `postgresql`: then
    # its vowels tell, three in ten or more)
    unseen = _unseen_trigrams(value.lower())
    return unseen >= 5 or (unseen >= 3 and sum(c in "aeiouy" for c in value.lower()) * 10
                           < 3 * len(value))


# The end of a name that names something about a secret, not the secret
# (where it is, what it is called, its kind, its size): `secret_name`,
# `private_key_path`, `TOKEN_URL`, `tokenType`, `API_KEY_ID`, `password_hash`.
_ABOUT = ("name", "path", "file", "dir", "url", "uri", "type", "id", "count", "length", "len",
          "size", "field", "header", "prefix", "env", "var", "ref", "arn", "version",
          "endpoint", "label", "format", "policy", "hash", "location", "kind", "mode",
          # (where it is served or how it is checked: `SSH_AUTH_SOCK`, `AUTH_HOST`)
          "sock", "socket", "host", "port", "domain", "provider", "method", "issuer",
          "audience", "ttl", "expiry", "expires", "timeout", "scope", "scopes")
_ABOUT_A_SECRET = (r"(?:[_.\-](?i:" + "|".join(_ABOUT) + r")|(?<=[a-z])(?:"
                   + "|".join(w.capitalize() for w in _ABOUT) + r"))\Z")


def about_a_secret(name: str) -> bool:
    """Whether a name names something about a secret, not the secret (where
    it is, what it is called, its kind, its size): `SSH_AUTH_SOCK`,
    `DB_PASSWORD_FILE`, `tokenType`."""
    return bool(rx(_ABOUT_A_SECRET).search(name))


# A name that says its key is public, as it ends before the key's word.
_PUBLIC_NAME = r"(?i)(?<![a-z0-9])(?:public|pub|publishable)[_.\-]?\Z"
_NAMED_KEY_KINDS = frozenset({"secret-assignment", "generic-key"})
# The next line's name and its `=` (`SECRET=`), read as a value across a line's end.
_NEXT_NAME = r"[A-Za-z_][\w.\-]*[ \t]*[=:]"

# A YAML tag (Ansible's `!vault`, CloudFormation's `!Ref`, `!!binary`) given
# where a value would be: it says what the value that follows is.
_YAML_TAG = (r"(?i)!!?(?:vault|ref|sub|getatt|importvalue|join|select|split|base64|findinmap"
             r"|getazs|cidr|if|equals|not|and|or|condition|secret|env(?:_var)?|include"
             r"|reference|str|binary|unsafe|sops|encrypted(?:/[\w.\-]+)?)\Z")

# Words after a flag that say the text is about the flag, not its value.
_FLAG_PROSE = frozenset(("flag", "flags", "option", "options", "argument", "arguments",
                         "parameter", "parameters", "switch", "setting", "value"))
# A value in capitals naming what goes there (`-pPASSWORD`, `--token TOKEN`).
_FLAG_PLACEHOLDERS = frozenset(("password", "passwd", "pass", "pwd", "pw", "secret", "token",
                                "key", "apikey", "api_key", "your_password", "yourpassword",
                                "mypassword", "db_password", "root_password", "passphrase"))


# Rules of a secret said in prose (secret_prose), judged by
# _Replacer._not_said_as_password.
_PROSE_KINDS = frozenset({"prose-password", "prose-token"})
# A value that is a hex digest, a UUID, a number or a version: no password
# given loosely (`use password sha 3f9a2b1c…`, `token v1.2.3`).
_DIGEST_OR_NUMBER = r"(?:[0-9a-f\-]+|[\d_.,:\-]+|v?\d+(?:\.\w+)+)\Z"


def words_and_numbers(value: str) -> bool:
    """A name made of words and short numbers (`key_2024_rotation`,
    `sha256`, `utf8mb4`, `Argon2id`, `1Password`): each run of letters a word
    (short, or reading as one), each run of digits four or fewer, and few of
    them, where a random run changes between letters and digits often."""
    if any(c in _SYMBOLS and c not in "_/" for c in value):
        return False  # (`Kl+L%p1m*3#`: a name's parts are joined by `_`, `-`, `.`)
    runs = rx(r"[A-Za-z]+|\d+|[^A-Za-z\d]+").findall(value)
    letters = [r for r in runs if r.isalpha()]
    digits = [r for r in runs if r.isdigit()]
    if not letters or any(len(d) > 4 for d in digits):
        return False
    changes = sum(1 for a, b in pairwise(runs) if a.isalnum() and b.isalnum())
    if len(value) >= 12 and value.isalnum() and _digits_inside(runs):
        return False  # (`97ph5nimboegge`: no name's parts run on with digits between them)
    # (a year is one word of a name: `key_2025_q3_rotation` has a quarter's digit too)
    years = [d for d in digits if rx(r"(?:19|20)\d\d\Z").match(d)]
    return changes <= 3 and len(digits) <= 2 + bool(years) \
        and sum(map(len, digits)) - 4 * min(len(years), 1) <= 4 \
        and all(w.islower() or w.isupper() or w.istitle() for w in letters) \
        and all(map(_a_word, letters))


# The word before a bare `key` that makes it a key's bytes (`signing_key`,
# `MASTER_KEY`, `hmacKey`, `wg_psk_key`), read up to the `key`.
_CRYPTO_KEY_WORD = (r"(?i)(?:sign(?:ing)?|encrypt(?:ion)?|decrypt(?:ion)?|master|private|priv"
                    r"|hmac|aes|crypt|crypto|cipher|jwt|session|secret|license|licence|psk"
                    r"|root|kms|gpg|pgp|ssh|rsa|ecdsa|ed25519|x25519|wireguard|wg|otp|totp"
                    r"|mfa|recovery|backup|vault|unseal|seal|shared|symmetric|data|content"
                    r"|wrap(?:ping)?|kek|dek|mac|salt|pepper|nacl|age|sops|seed|wallet)[_.\-]?\Z")


def _words_joined(value: str) -> bool:
    """Words joined by `_`, `-` or `.`, two or more, each a word in one case
    (a short number after one: `user_profile_v2`): a name, `off_price_retail`,
    `created_at_desc`, `order-create-retry`; a key's run is no such words."""
    parts = rx(r"[_\-.]").split(value.strip())
    if not 2 <= len(parts) <= 12 or sum(map(len, parts)) < 6:
        return False
    words = 0
    for part in parts:
        if part.isdigit() and len(part) <= 4:
            continue
        m = rx(r"([A-Za-z]+)\d{0,2}\Z").match(part)
        w = m.group(1) if m else ""
        # (a word by the list's runs, or a short one with a vowel: `north`, `desc`)
        if not w or not (w.islower() or w.isupper() or w.istitle()) or not (
                _a_word(w) or (any(c in "aeiouyAEIOUY" for c in w) and reads_as_word(w)
                               and not _random_letters(w))):
            return False
        words += 1
    return words >= 2


def _a_place_of_words(value: str) -> bool:
    """A path whose parts are words and short numbers
    (`local/001`, `gh/team/entire-brain`, `prod/db/main`): where a thing is
    kept, never a random key's run, which no `/` cuts into words."""
    # (a value a rule cut at a placeholder begins or ends in its `/`: `local/`
    # of `local/<x>`, `/local` of `<x>/local`; undressed of its tag-like
    # placeholders, `gh/<owner>/main` reads `gh//main`)
    parts = [p for p in value.split("/") if p]
    if "/" not in value or not value.strip("/") or _looks_like_a_key(value):
        return False
    # (each piece between `/`, `-`, `_`, `.`: a number of four digits or fewer,
    # or a word in one case by either of the gate's readings: `north`, `staging`)
    # (a placeholder is a word of it: `gh/<owner>/<repo>`, review 31 F6)
    pieces = [p.strip("<>") if rx(r"<[a-z][\w\-]*>\Z").match(p) else p
              for part in parts for p in rx(r"[-_.]").split(part)]
    # (letters and digits mixed only in a short piece, `v1`, `ec2`, `utf8`: a long
    # one, `h0123Aababacd`, is a random run however its letters read)
    return all(p and ((p.isdigit() and len(p) <= 4) or (len(p) <= 6 and words_and_numbers(p)) or (
        p.isalpha() and (p.islower() or p.isupper() or p.istitle())
        and (_a_word(p) or reads_as_word(p)))) for p in pieces)


def _digits_inside(runs: list[str]) -> bool:
    """Whether a run of digits that is no year has letters on both sides
    (`ab3cd`, not `server2024prod`)."""
    return any(a.isalpha() and b.isdigit() and c.isalpha() and not rx(r"(?:19|20)\d\d\Z").match(b)
               for a, b, c in zip(runs, runs[1:], runs[2:], strict=False))


def _a_word(letters: str) -> bool:
    """Whether a run of letters inside a name reads as a word: two letters;
    three with a vowel (`sha`, `utf`, `ipv`); longer, not drawn at random and
    at most two of its runs of three in no listed word, a quarter of a short
    one's letters vowels (`legacy`, `prod`, `Argon`; not `pjurc`, `kmj`)."""
    low = letters.lower()
    if len(low) <= 3:
        return len(low) <= 2 or any(c in "aeiouy" for c in low)
    if _random_letters(letters) or _unseen_trigrams(low) > 2:
        return False
    return len(low) >= 8 or sum(c in "aeiouy" for c in low) * 4 >= len(low)


def random_value(value: str) -> bool:
    """A value given loosely after a secret's name (`use password X for…`,
    `db-password-X`) that is a secret: no path, option, digest, number or
    version; a run of letters and digits that is no word or name of words
    and numbers, or 12 letters or more drawn at random (`MUtUCNFgOmEtLrWs`)."""
    if len(value) < 8 or "/" in value or value[0] in "-$%{<&.~" \
            or rx(_DIGEST_OR_NUMBER).match(value.lower()):
        return False
    if value.isalpha():
        return len(value) >= 12 and _random_capitals(value)
    if not any(c.isalpha() for c in value):
        return False
    return not (words_and_numbers(value) or a_name(value))


def a_name(value: str) -> bool:
    """A name people give a thing, never a secret wherever it stands: words
    around a date or a time (`guidance_primary_BURL_2023-03-02T08.30`, a
    ticker's call: review 31 F13), or a path whose parts are words, numbers
    and globs (`/tmp/gu_BURL_*.json`). The one judgement the gate's rules
    (token_value, random_value) and the fold's learners (fold/shell_secrets,
    Context.learn) share: a value the gate leaves is never learned from an
    output, and a learned secret's piece that is a name is not hidden in
    every text of the session."""
    value = value.strip()
    # (a path's every part such a name, or words and short numbers: not a
    # base64 key's run, which no `/` cuts into words, `k8ZpQx3aLm/Zz9+Qw`)
    return _words_around_a_date(value) or ("/" in value and all(
        _words_around_a_date(part) or all(map(_a_named_piece, rx(r"[-_.]").split(part)))
        for part in value.split("/")))


def _a_named_piece(piece: str) -> bool:
    """A piece of a name between `/`, `-`, `_`, `.`: a glob, a number of four
    digits or fewer, a word or a short name of words and numbers (`v1`,
    `ec2`), a ticker or acronym in capitals (`BURL`)."""
    p = piece.strip("*?~")  # (a glob; a home, `~/data`)
    return not p or (p.isdigit() and len(p) <= 4) or (len(p) <= 6 and words_and_numbers(p)) or (
        p.isalpha() and (p.islower() or p.isupper() or p.istitle())
        and ((p.isupper() and len(p) <= 5) or _a_word(p) or reads_as_word(p)))


def _words_around_a_date(value: str) -> bool:
    """A name of words around a date or a time (`guidance_primary_BURL_2023-03-02T08`,
    a file of a ticker's call: review 31 F13): each other piece a word in one
    case or a short number (`backup_2024-01-01_02`), no other digit; a random
    run holds no such date, or a piece of letters and digits mixed besides it."""
    # (a date set off by the name's separators or its ends: `Xk20230302` is a
    # random run that holds eight digits, no name's date)
    rest = rx(r"(?:^|(?<=[-_.:/+*]))(?:" + _DATE_TIME + r")(?=[-_.:/+*]|\Z)").sub("_", value)
    if rest == value:
        return False
    # (a shell's glob is a word of it too: `/tmp/extract_pass_*_BURL_2023-03-02T08.30.json`)
    pieces = rx(r"[-_.:+]").split(rest)
    return all(map(_a_named_piece, pieces))


# An ISO date, maybe with its time, its fraction of a second and its zone
# (`2023-03-02`, `2023-03-02T08.30`, `20230302T0830`, `2024-01-01T10:00:00.123Z`).
_DATE_TIME = (r"(?<![0-9])(?:19|20)\d\d-?(?:0[1-9]|1[0-2])-?(?:0[1-9]|[12]\d|3[01])"
              r"(?:T(?:[01]\d|2[0-3])(?:[:.]?[0-5]\d){0,2}(?:[.,]\d{1,9})?"
              r"(?:Z|[+\-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?(?![0-9])")


def token_value(value: str, quoted: bool = False) -> bool:
    """A value said to be a token or a key (`the API key is X`, `la chiave API
    è X`): 10 characters or more (quoted, 6), no path, URL, number, short hex
    (`1234567890abcdef`) or name of words (`required_for_all`); a digit in it,
    or letters drawn at random. (Not gitleaks' entropy: `zVQnJAAJqfVCC4enzBAq`,
    a key a vendor gave, has little.)"""
    if len(value) < (6 if quoted else 10) or "/" in value or "://" in value \
            or value[0] in "-$%{<&." or rx(r"[\d_.,:\-]+\Z").match(value) \
            or (rx(_HEX).match(value.lower()) and len(value) < 20):
        return False
    if not any(c.isdigit() for c in value):  # (`AKIA-style`: words)
        letters = "".join(c for c in value if c.isalpha())
        return len(letters) >= 10 and _random_capitals(letters)
    if not any(c.isalpha() for c in value):
        return False
    return not (words_and_numbers(value) or a_name(value))


def _name_in_capitals_before(text: str, at: int) -> bool:
    """Whether a word in capitals comes just before `at` (`ADMIN PASS:`, `DB
    PASS:`): a name written in capitals; a runner's verdict opens its line or
    follows marks, times, counts or words (`--- PASS:`, `so PASS: a.sh`)."""
    return bool(rx(r"(?<![\w\-])[A-Z][A-Z0-9]+[ \t]\Z").search(text[max(0, at - 40):at]))


def _random_capitals(value: str) -> bool:
    """Letters drawn at random in both cases (`MUtUCNFgOmEtLrWs`): a word of
    a language no list of English words holds (`abgelaufen`) has its
    capital, if any, first."""
    return any(c.isupper() for c in value[1:]) and any(c.islower() for c in value) \
        and _random_letters(value)


def _a_path_of_words(value: str) -> bool:
    """A file's path whose every part reads as words and short numbers
    (`app/[locale]/perfil/EditProfileAvatar.tsx`, `README.md`), not a random run."""
    value = value.strip("\"'")
    if not value or len(value) > 400 or not rx(r"[\w.\-\[\]@+/]+\Z").match(value) \
            or ("/" not in value and not rx(r"[^.]+\.[A-Za-z][A-Za-z0-9]{0,7}\Z").match(value)):
        return False
    # (each part no key, `x7Kq9Lm2`, nor random letters of eight or more;
    # a name of capitalised words is words, `AnalyticsEvents`)
    return not any(_looks_like_a_key(p) or (
        p.isalpha() and len(p) >= 8 and not _capitalised_words(p) and _random_letters(p))
        for p in rx(r"[/.\-_\[\]@+]+").split(value))


def _capitalised_words(value: str) -> bool:
    """Words joined in camel or Pascal case, each of two letters or more with
    a vowel (`useEventAnalytics`, `EditProfileAvatar`), not random capitals
    (`MUtUCNFgOmEtLrWs`)."""
    parts = rx(r"[A-Z]?[a-z]+|[A-Z]{2,5}(?![a-z])").findall(value)
    return len(parts) > 1 and "".join(parts) == value and all(
        len(p) >= 2 and any(c in "aeiouyAEIOUY" for c in p) for p in parts)


def _looks_like_a_key(value: str) -> bool:
    """A value as random as a key (gitleaks' generic key: a letter and a
    digit, 3.5 bits a character, no hex digest), and no path or URL."""
    return (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            and "/" not in value and " " not in value and not rx(_HEX).match(value.lower())
            and entropy(value) >= GENERIC_ENTROPY)


def _seed_phrases(text: str, low: str, found: list[str] | None) -> tuple[str, int]:
    """Hide BIP-39 seed phrases written with no label (see seed_phrase)."""
    from vibe_vault import seed_phrase

    spans = seed_phrase.spans(low)
    if not spans:
        return text, 0
    out: list[str] = []
    last = 0
    for start, end in spans:
        if found is not None:
            found.append(text[start:end])
        out += [text[last:start], "[REDACTED:seed-phrase]"]
        last = end
    return "".join(out) + text[last:], len(spans)


class _Groups:
    """A name and a value, read as a match's two groups are."""

    def __init__(self, name: str, value: str) -> None:
        self._groups = ("", name, value)

    def group(self, i: int) -> str:
        return self._groups[i]


class Redactor:
    """Redacts known secret shapes; extra patterns and an allow-list come from the config."""

    def __init__(
        self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()
    ) -> None:
        extra = list(extra)
        self._rules = list(_RULE_PATTERNS)
        # Case-insensitive rules also get a plain form, run on the lower-cased text:
        # (?i) keeps the regex engine from skipping ahead by literal prefix, and
        # costs those rules about six times as much.
        self._folded: frozenset[int] = _FOLDED
        # Words that trigger rules, as a tree: a word holding another ("storepass"
        # holds "pass") is looked for only in a text that has the shorter one,
        # so a text meets about twenty searches however many words there are.
        # Token shapes (a prefix and a long random run) are tried only on a
        # text that has such a run at all, which most texts do not.
        # The gate finds the longest trigger at a place ("sk-ant-", not "sk-"):
        # each trigger stands for those it begins with too (worked out when
        # a text first has a run to search near: `_near_of`).
        self._near_rules: dict[str, set[int]] = _NEAR_RULES
        self._near_of: dict[str, frozenset[int]] | None = None
        # Rules that begin "not after a letter or digit" are compiled without
        # that test (which keeps the engine from skipping ahead to a literal
        # prefix: a hundred times slower), and it is made on each match.
        self._bounded: frozenset[int] = _BOUNDED
        self._line: dict[int, str] = _LINES
        self._words: list[_Node] = _WORD_TREE
        # The trees of words in ASCII: all a text in ASCII (most are) can
        # hold; a word in another script, and every word under it, cannot.
        # (Searching for the 69 of 265 others was a tenth of the gate's time
        # on the corpus.)
        self._ascii_words = [node for node in _WORD_TREE if node[0].isascii()]
        # The same roots found by a regex (`_RootFinder`), made once this
        # Redactor has searched WORD_SEARCH_CHARS of texts word by word: a
        # hook's few texts do not pay for making it.
        self._finder: _RootFinder | None = None
        self._word_chars = 0
        self._run_rules: list[int] = _RUN_ONLY
        # A user's pattern has no trigger we could know: it always runs.
        self._always = list(range(len(self._rules), len(self._rules) + len(extra)))
        self._rules += [(kind, p) for kind, p in extra]
        self._allow = frozenset(allow)
        self._too_slow: set[int] = set()
        # Characters of run windows searched one trigger at a time (_near_words).
        self._searched = 0
        # When a hook must be done (time.monotonic()): a huge text's pieces
        # not read by then are withheld (see HUGE_TEXT).
        self.deadline: float | None = None
        # The rules the last text read (`_redact`) met the triggers of.
        self._hits: set[int] = set()
        # Which of them hid something, and the text's long runs.
        self._hid: set[int] = set()
        self._runs: list[tuple[int, int]] = []

    def redact(self, text: str, found: list[str] | None = None) -> tuple[str, int]:
        """Return the text with secrets replaced, and how many were; the
        secrets themselves are added to `found` when it is given.

        A text over HUGE_TEXT characters is read in overlapping pieces, in
        bounded time: what is not read in time is withheld.
        """
        if len(text) > HUGE_TEXT:
            return self._redact_pieces(text, found)
        return self._redact_read(text, found)

    def _redact_pieces(self, text: str, found: list[str] | None) -> tuple[str, int]:
        """`redact` of a huge text: each piece (PIECE characters and the
        PIECE_OVERLAP after them; a piece begins after a line's end when one
        is near) through the gate, and every span any of them hid hidden."""
        import time

        deadline = time.monotonic() + HUGE_TEXT_BUDGET
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
        spans: list[tuple[int, int, str]] = []
        at = 0
        while at < len(text):
            if time.monotonic() > deadline:
                spans.append((at, len(text),
                              f"[REDACTED:unchecked ({len(text) - at} characters withheld)]"))
                break
            end = min(len(text), at + PIECE + PIECE_OVERLAP)
            piece = text[at:end]
            out, _ = self._redact_read(piece, found)
            gaps = _gaps(piece, out) if out != piece else []
            if gaps is None:  # (they did not line up: hide it all)
                gaps = [(0, len(piece), "[REDACTED:obfuscated (text withheld)]")]
            spans += [(at + a, at + b, markers) for a, b, markers in gaps]
            if end == len(text):
                break
            # (any form beginning before the next piece, and no longer than
            # the overlap, ends inside this one)
            line_end = text.rfind("\n", at + PIECE - PIECE_OVERLAP, at + PIECE)
            at = line_end + 1 if line_end >= 0 else at + PIECE
        hidden, merged = _hide_spans(text, spans)
        return hidden, sum(markers.count("[REDACTED") for _, _, markers in merged)

    def _redact_read(self, text: str, found: list[str] | None = None) -> tuple[str, int]:
        """`redact` of a text read whole.

        When the text hides a form from the rules (`_view`: full-width
        letters, zero-width characters, Cyrillic or Greek look-alikes, %-escapes,
        a line continued by a backslash), the rules run again on the text as
        it reads, and what they find is redacted in the text as written: the
        marker covers the original characters."""
        out, count = self._redact(text, found)
        # (a vendor's token cut where it was written is looked for only when
        # the gate met one of the vendors' prefixes near a long run: `_cut_view`)
        cut_rules = self._hits & _cut_rules().keys()
        if "A" in text and any(p in text for p in _SHORT_PREFIXES):
            # (an AWS key id is 20 characters: cut in two, no piece is a long
            # run, and no search for one starts; its prefix, in capitals, is
            # looked for alone)
            cut_rules |= _short_token_rules()
        cut = _cut_view(text, cut_rules) if cut_rules else None
        views: list[_View] = []
        if not text.isascii() or "%" in text or "\\u" in text or _continues(text) \
                or _escapes_markup(text):
            view = _view(text)
            if view is not None:
                # A %-escape and a continued line read at once can end a value where
                # neither does alone (`--password \⏎ a0%20 x` reads `a0 x` joined and
                # decoded, but its value as written is `a0%20`): each is read alone
                # too, and whatever any reading finds is hidden.
                views.append(view)
                if view.escapes and view.joins:
                    views += [v for v in (_view(text, "%"), _view(text, "\n")) if v is not None]
        if views or secret_dress.may_be_dressed(text):
            dressed = _dressed_view(text, views[0] if views else None)
            if dressed is not None:
                views.append(dressed)
        if cut is not None:
            views.append(cut)
        spaced = _spaced_view(text)
        if spaced is not None:
            views.append(spaced)
        # (a run of literals joined is read only where a name a value is
        # given to was met: a rule that judges one was triggered)
        joined = _joined_view(text) if not self._hits.isdisjoint(_join_rules()) else None
        if joined is not None:
            views.append(joined)
        if not views:
            return out, count
        seen: list[str] = []
        second: list[tuple[int, int, str]] = []
        for v in views:
            read, more = self._redact(v.text, seen)
            if not more:
                continue
            spans_read = v.gaps(read)
            if spans_read is None:  # (they did not line up: hide it all)
                return "[REDACTED:obfuscated (text withheld)]", count + 1
            if v.cuts:  # (only a token read across a cut: the rest was read as written)
                spans_read = _across_a_cut(spans_read, v.cuts)
            second += spans_read
        if not second:
            return out, count
        # What any found, as spans of the text as written: the first pass's
        # markers where it put them, the others' where their text came from.
        first = _gaps(text, out)
        if first is None:  # (they did not line up: hide it all)
            return "[REDACTED:obfuscated (text withheld)]", count + 1
        hidden, merged = _hide_spans(text, first + second)
        if found is not None:
            found.extend(seen)
            found.extend(text[a:b] for a, b, _ in second if text[a:b] not in seen)
        return hidden, count + max(0, len(merged) - len(first))

    def redact_escaped(self, text: str, escape: Callable[[str], str],
                       found: list[str] | None = None) -> tuple[str, int]:
        r"""`escape(text)` (made safe for where it lands) with secrets replaced.

        An escape that drops characters (a bidi control, an escape sequence)
        takes away what bounded a token: `q\u202enpm_…\u202eRZ` reads
        `qnpm_…RZ`, one long run no rule matches; and it can join a token's
        pieces (`npm_ab\x1b[0mcd…`). So when escaping changes the text, it
        is gated as written (each token still bounded), then escaped and
        gated again (a token joined only by the escape)."""
        escaped = escape(text)
        if escaped == text:
            return self.redact(text, found)
        text, first = self.redact(text, found)
        out, second = self.redact(escape(text), found)
        return out, first + second

    def _redact(self, text: str, found: list[str] | None = None) -> tuple[str, int]:
        """`_rules_once`, and where two forms' matches overlap (a Dropbox
        token holding `_MII…`, which the private-key rule, run first, took
        the rest of), the union of them hidden. Each rule runs on the text
        the rules before it left, so a rule whose match an earlier marker
        cut, or whose words around it a marker took (`curl --cert f:PASS`
        after `bw unlock`'s value took `curl`), finds nothing or less, and
        the rest of its match shows. So when a rule hid something, each
        rule after it (and each of the readings after the rules) is run
        again alone on the text as written, and what any finds is hidden
        too: where it overlaps or touches what is, the union, under the
        marker of the longest match."""
        out, count = self._rules_once(text, found)
        if not count:
            return out, count
        hits, hid = self._hits, self._hid
        spans = _gaps(text, out)
        if spans is None:
            return out, count
        low = text.lower()
        first = min((i for i in hid if i >= 0), default=len(self._rules))
        learned: list[str] = []
        alone: list[tuple[int, int, str]] = []
        again = [i for i in sorted(hits) if i > first and i not in self._always]
        steps = set(_STEPS)
        for i in [*again, *_STEPS]:
            if i >= 0:
                read, n = self.apply_rule(i, text, low, learned)
            else:
                read, n = self._apply_rules(text, low, set(), learned, steps - {i},
                                            set(), self._runs)
            if n:
                alone += _gaps(text, read) or []
        self._hits, self._hid = hits, hid
        # (each span with the length of the longest single match it holds)
        merged = [(a, b, markers, b - a) for a, b, markers in spans]
        grown = False
        for a, b, markers in sorted(alone):
            meets = [m for m in merged if a <= m[1] and m[0] <= b]
            if meets and all(m[0] <= a and b <= m[1] for m in meets):
                continue  # (hidden already)
            grown = True
            count += not meets
            marker, size = markers, b - a
            for m in meets:
                if m[3] >= size:
                    marker, size = m[2], m[3]
            union = (min([a, *(m[0] for m in meets)]), max([b, *(m[1] for m in meets)]),
                     marker, size)
            merged = sorted([m for m in merged if m not in meets] + [union])
        if not grown:
            return out, count
        if found is not None:
            found.extend(learned)
        parts: list[str] = []
        at = 0
        for a, b, markers, _ in merged:
            parts += [text[at:a], markers]
            at = b
        return "".join(parts) + text[at:], count

    def _rules_once(self, text: str, found: list[str] | None = None) -> tuple[str, int]:
        """Each rule the text triggers run on it in the table's order, then
        the gate's other readings (a key's body, a seed phrase, a table's
        columns…). The rules triggered are left in `_hits`, those (and the
        readings, by their negative numbers) that hid something in `_hid`."""
        if not text:
            return text, 0
        low = text.lower()
        hid: set[int] = set()
        self._hid = hid
        hits: set[int] = set()
        self._hits = hits
        found_words = self._roots_in(low)
        while found_words:
            nodes = []
            for _, rules, children in found_words:
                hits.update(rules)
                nodes.extend(children)
            found_words = [node for node in nodes if node[0] in low]
        runs = self._runs = [m.span() for m in rx(_LONG_RUN).finditer(low)]
        if runs:
            # A token's prefix is at the start of its run (or just before it:
            # "sg.", "hvs."), a service's name and its `=` a little before it:
            # only those few characters are searched, by one trie-shaped regex.
            # Rules for a run with no prefix of its own (Discord) always run.
            hits.update(self._run_rules)
            windows: list[tuple[int, int]] = []
            lo, hi = max(0, runs[0][0] - 64), runs[0][1] + 8
            for start, end in runs[1:]:  # windows that meet are searched as one
                if start - 64 > hi:
                    windows.append((lo, hi))
                    lo = start - 64
                hi = end + 8
            windows.append((lo, hi))
            self._near_words(low, windows, hits)
        hits.update(self._always)
        return self._apply_rules(text, low, hits, found, set(), hid, runs)

    def _apply_rules(self, text: str, low: str, hits: set[int], found: list[str] | None,
                     off: set[int], hid: set[int],
                     runs: list[tuple[int, int]]) -> tuple[str, int]:
        """`_rules_once` of the rules `hits`, once they are known (`runs`:
        the long runs of the text), but not the readings after them `off`."""
        count = 0
        for i in sorted(hits):  # in the table's order, as the patterns expect
            if i not in self._always:
                text, n = self.apply_rule(i, text, low, found)
            else:
                kind, pattern = self._rules[i]
                sub = self._replacer(f"[REDACTED:{kind}]", kind, found)
                done = (None if i in self._too_slow else
                        within_budget(USER_PATTERN_BUDGET, users_rx(pattern).subn, sub, text))
                if done is None:
                    # What it would have hidden cannot be known: nothing it
                    # would have read is shown, for the rest of this run.
                    self._too_slow.add(i)
                    return f"[REDACTED:{kind} (pattern too slow; text withheld)]", count + 1
                text, n = done
                n -= sub.skipped
            if n:
                count += n
                hid.add(i)
                low = text.lower()
        # (the readings after the rules, `off` and `hid` by negative numbers)
        if len(low) == len(text) and _KEYS not in off:
            # (a key's body by its lines' width, codes under a label…)
            text, m = secret_keys.hidden(text, low, found, runs, reads_as_word)
            if m:
                count += m
                hid.add(_KEYS)
                low = text.lower()
        if len(low) == len(text) and low.count(" ") + low.count("\n") >= 11 \
                and _SEEDS not in off:
            text, m = _seed_phrases(text, low, found)
            if m:
                count += m
                hid.add(_SEEDS)
                low = text.lower()
        if "kind:" in low and "data:" in low and _K8S not in off \
                and rx(_K8S_SECRET).search(low):
            text, m = _k8s_values(text, found)
            count += m
            if m:
                hid.add(_K8S)
            low = text.lower()
        if ("\n" in low or "values" in low or "|" in low) and _COLUMNS not in off:
            text, m = _column_values(text, low, found)
            if m:
                count += m
                hid.add(_COLUMNS)
                low = text.lower()
        if ".env" in low and _ENV not in off and rx(_ENV_FILE_CMD).search(text):
            # Whatever is written into, or dumped from, a .env file is a secret.
            def env_value(match: re.Match[str] | _Groups) -> str:
                if found is not None:
                    found.append(match.group(2).strip().strip("'\""))
                return match.group(1) + "[REDACTED:env-file]"

            text, m = rx(_ENV_LINE).subn(env_value, text)
            env = m
            m = 0
            if "sed" in low:
                text, m = rx(_ENV_SED_VALUE).subn(
                    lambda m: env_value(_Groups(m.group(1), m.group(3))), text)
                env += m
            if not m:  # (a sed script's own `KEY=.*` is no value)
                text, m = rx(_ENV_INLINE).subn(env_value, text)
                env += m
            if env:
                count += env
                hid.add(_ENV)
        return text, count

    def _roots_in(self, low: str) -> list[_Node]:
        """The root nodes of the trigger tree whose words `low` holds: one
        search per word on the first WORD_SEARCH_CHARS characters this
        Redactor meets, then `_RootFinder`'s regex (which the kept programs
        make cheap to build, but not free: a hook's texts do without)."""
        finder = self._finder
        if finder is None:
            if self._word_chars + len(low) <= WORD_SEARCH_CHARS:
                self._word_chars += len(low)
                return [node for node in (self._ascii_words if low.isascii() else self._words)
                        if node[0] in low]
            finder = self._finder = _RootFinder(self._words)
        return finder.found(low)

    def apply_rule(self, i: int, text: str, low: str | None = None,
                   found: list[str] | None = None) -> tuple[str, int]:
        """Rule `i` of the table (`secret_rules.RULES[i]`) run on `text`
        (`low` its lower case, when known), whatever its triggers: the text
        with what it hides replaced, and how many."""
        kind, pattern = self._rules[i]
        marker = f"[REDACTED:{kind}]"
        if low is None:
            low = text.lower()
        if i in self._folded and len(low) == len(text):
            # (the pattern begins "(?i)": no B before it, see _rule_patterns)
            return self._sub_folded(rx(pattern[4:]), low, text, marker, kind, found,
                                    self._line.get(i, ""))
        sub = self._replacer(marker, kind, found)
        sub.bounded = i in self._bounded
        sub.glued = self._glued_of(i)
        sub.glued_random = _glued_random().get(i, ())
        sub.line = self._line.get(i, "")
        text, n = rx(pattern).subn(sub, text)
        return text, n - sub.skipped

    def _near_words(self, low: str, windows: list[tuple[int, int]], hits: set[int]) -> None:
        """Add to `hits` the rules of every trigger found inside one of the
        `windows` of `low`. A trigger found inside a window stands for the
        rules of each trigger it begins with (`_near_of`), so the rules are those
        of every trigger the window holds, however it is looked for: one
        search per trigger on the first few thousand characters a process
        meets (a hook's few runs: a session file's name, a hash), then the
        trie-shaped regex, whose compiling (~2 ms, more than all the searches
        a Stop makes) is paid only once the texts are many."""
        by_word = self._near_of
        if by_word is None:
            # (the same table every process: kept beside the compiled
            # patterns, as the word tree is; working it out cost a Stop ~2.7 M
            # instructions, reading it back ~1 M)
            near_rules = self._near_rules
            by_word = self._near_of = patterns.kept(
                "redact-near-words", near_rules, (with_prefixes.__code__,),
                lambda: with_prefixes(near_rules))
        size = sum(hi - lo for lo, hi in windows)
        if self._searched + size <= NEAR_SEARCH_CHARS:
            self._searched += size
            for lo, hi in windows:
                window = low[lo:hi]
                for t, rules in by_word.items():
                    if t in window:
                        hits.update(rules)
            return
        near = rx(_near_gate())
        for lo, hi in windows:
            for t in near.findall(low, lo, hi):
                hits.update(by_word[t])

    def _glued_of(self, i: int) -> tuple[str, ...]:
        """The prefixes of rule `i` that make a token of it even glued after letters."""
        glued: tuple[str, ...] = _GLUED.get(i, ())
        return glued

    def _replacer(self, marker: str, kind: str, found: list[str] | None = None) -> _Replacer:
        return _Replacer(marker, kind, self._allow, found)

    def _sub_folded(self, rx: re.Pattern[str], low: str, text: str, marker: str,
                    kind: str, found: list[str] | None = None,
                    line: str = "") -> tuple[str, int]:
        """Replace what `rx` finds in `low` at the same places in `text` (which
        has the same length), deciding on the original-case value."""
        keep = _Replacer(marker, kind, self._allow)
        keep.line, keep.original = line, text
        out: list[str] = []
        last = n = 0
        for m in rx.finditer(low):
            start, end = _value_span(m)
            if keep.skips_dressed(m, text[start:end]):
                continue
            hidden, learned = _hidden(text[start:end], marker)
            if found is not None and learned:
                found.append(learned)
            out.append(text[last:start])
            out.append(hidden)
            last = end
            n += 1
        if not n:
            return text, 0
        out.append(text[last:])
        return "".join(out), n


class _Replacer:
    """Replaces one match by its marker, and counts the matches it left alone
    (allow-listed values, earlier markers, code that only looks like a secret)."""

    def __init__(self, marker: str, kind: str, allow: frozenset[str],
                 found: list[str] | None = None) -> None:
        self.marker, self.kind, self.allow = marker, kind, allow
        self.found = found
        self.skipped = 0
        self.bounded = False  # a match right after a letter or digit is inside a word
        self.glued: tuple[str, ...] = ()  # unless it begins with one of these prefixes
        # or with one of these and a token's random run after it (`_glued_token`)
        self.glued_random: tuple[str, ...] = ()
        self.line = ""  # where on its line a match may begin (secret_rules.LINE)
        self.original: str | None = None  # the text, when matches are on its lower case
        # (the text's id, a data URI's body's start, how far it was found base64)
        self._data_uri: tuple[int, int, int] = (0, -1, -1)

    def skips_dressed(self, match: re.Match[str], secret: str) -> bool:
        """`skips_match`, of the value as written or, worn in Markdown's or
        HTML's emphasis or code (`password: **required**`, `<code>None</code>`),
        of what it wears: dress makes no secret of a word."""
        if self.skips_match(match, secret):
            return True
        inner = secret_dress.unwrapped(secret)
        return inner is not None and self.skips_match(match, inner)

    def skips_match(self, match: re.Match[str], secret: str) -> bool:
        """`skips`, knowing the match: `password = user_password` (a bare
        identifier after a spaced `=`) is code; `DB_PASSWORD=hunter` is not;
        `max_tokens: 4096` is a number, `PGPASSWORD=12345` a password."""
        if self.bounded and match.start() and match.string[match.start() - 1].isascii() \
                and match.string[match.start() - 1].isalnum() and not (
                    self.glued and match.group(0)[:24].lower().startswith(self.glued)) \
                and not _glued_token(match.group(0), self.glued_random):
            return True
        if self.line and not self._begins_line(match):
            return True
        if self._public_by_design(match, secret):
            return True  # `data-key="pk_live_…"`: a publishable key, public by design
        if self._in_a_media_data_uri(match):
            return True  # an image's bytes (`data:image/png;base64,iVBOR…EAAA…`), no key
        if self._in_a_revisions_file(match):
            return True  # `git show origin/feat/auth-x:"app/a.tsx"`: a revision's file
        if "bounded" in match.re.groupindex and match.start() \
                and match.string[match.start() - 1].isascii() \
                and match.string[match.start() - 1].isalnum() and not self._camel_hump(match):
            return True  # inside a word (secret_prose.BOUNDED)
        if self.kind in _NAMED_KEY_KINDS and self._names_public_material(match):
            return True  # `PublicKey = …` (WireGuard's peer), `public_key:`, `pubkey`
        if self.kind == "generic-key" and _a_place_of_words(secret) and not any(
                w in match.string[match.start():_value_span(match)[0]].lower()
                for w in ("pass", "pw", "pasw", "psw")):
            return True  # `"repo_key":"local/main/23/145"`: where a thing is kept
        if self.kind == "generic-key" and rx(_NEXT_NAME).match(secret) \
                and "\n" in match.string[match.start():_value_span(match)[0]]:
            return True  # `API_KEY=⏎SECRET=…`: a name with no value, then the next line's
        if self.kind == "wifi-psk" and match.groupdict().get("v4") is not None \
                and rx(_NOT_A_SECRET).match(secret):
            return True  # `psk = Optional[str]`, `psk = None`: code, not a bare passphrase
        if self.kind in ("bearer-token", "authorization") and rx(_NOT_A_LITERAL).match(secret):
            return True  # `Bearer YOUR_TOKEN_HERE`, `Bearer <token>`, `Bearer xxxxxxxx`
        if self.kind == "private-key" and self._in_public_armour(match):
            return True  # a certificate's or a public key's body, between its armour lines
        if self.kind == "secret-assignment":
            groups = match.groupdict()
            sep = groups.get("sep") or ""
            if "\n" in sep and secret.endswith(":"):
                return True  # `class TokenUsage:` then `input_tokens: int`: a name, no value
            if self._names_no_secret(match) and (not _looks_like_a_key(secret) or words_and_numbers(
                    secret.rstrip(".,;:!?"))):
                return True  # `secret_name = 'db-credentials'`, `private_key_path = '~/…'`
            if rx(_CJK_WORDS).match(secret):
                return True  # `パスワード：必須項目です（8文字以上）`: words of a sentence
            if "foreign" in groups and not any(c.isdigit() or c in _SYMBOLS for c in secret) \
                    and not _random_capitals(secret):
                # `PAROLANIZ: gerekli`, `api_sleutel = verplicht`: a word of its language
                # (secret_prose), which English letters' odds would call random
                return True
            if groups.get("v3") is not None and rx(_YAML_TAG).match(secret):
                return True  # `auth_token: !vault |`: a tag saying what follows is, no value
            if groups.get("v4") is not None:  # a YAML block's text: a literal, never code
                return secret in self.allow or secret.startswith("[REDACTED") or bool(
                    rx(_NOT_A_LITERAL).match(secret))
            if groups.get("v3") is not None and sep != sep.strip():
                if "=" in sep:  # `password = user_password`: code
                    if rx(_IDENTIFIER).match(secret) and reads_as_word(secret):
                        return True
                elif any(c in secret for c in "_.") and rx(_IDENTIFIER).match(secret) \
                        and not self._said_in_prose(match, _name_end(match)):
                    return True  # `db_password: user_password`, `{ password: user_password }`
                elif self._a_word_saying_what_it_is(match, secret, colon=True):
                    return True  # `password: required`, not `my password: hunter2`
            name = match.string[match.start():_name_end(match)].lower()
            text = self.original if self.original is not None else match.string
            before = text[match.start() - 1:match.start()]
            if sep.strip() == ":" and text[match.start():match.start("sep")] == "PASS" \
                    and not (before.isalnum() or (before != "" and before in "_.-")) \
                    and not _name_in_capitals_before(text, match.start()):
                # a test runner's verdict (`--- PASS: TestX`, `PASS: a.sh`,
                # `12:01:07 PASS: t1`), not a name that ends so (`ADMIN PASS: X`)
                return True
            if sep == ":" and rx(_FILE_POSITION).match(name) and rx(_POSITION).match(secret):
                return True  # `password.py:12:3`, `secret.json:20:8-23:9`: a place in a file
            password = "pass" in name or "pw" in name or "pasw" in name or "p@ss" in name \
                or "psw" in name or "pwname" in groups  # (another language's: secret_prose)
            if not password and secret_names.is_weak_name(name) and (
                    not _looks_like_a_key(secret) or words_and_numbers(secret)):
                return True  # `"private": "readonly"`, `pin = 13`: a word of code, no key
            if not password and (len(secret) < MIN_SECRET or rx(_NUMBER).match(secret)):
                return True
            if not password and _a_place_of_words(secret):
                # `"repo_key":"local/001"`, `cache_key: v1/linux/deps`, `secret_id =
                # "prod/db/main"`: a path of words names where a thing is kept; a
                # key or token is random (a password may be words: not here)
                return True
            if not password and self._a_key_naming_a_thing(match) and _words_joined(secret):
                # `"scope_key": "off_price_retail"`, `sort_key=created_at_desc`: a
                # key naming an entry (a scope's, a cache's, a sort's) by words;
                # a key's bytes are random (review 31 F6)
                return True
            if groups.get("v") is not None or groups.get("v2") is not None:
                return secret in self.allow or secret.startswith("[REDACTED") or bool(
                    rx(_NOT_A_QUOTED_SECRET).match(secret))
        if self.kind in _PROSE_KINDS and self._not_said_as_password(match, secret):
            return True
        if self.kind == "security-answer" and _about_the_answer(secret):
            return True  # `the security answer is stored hashed`
        if self.kind == "passphrase" and sentence(secret):
            return True  # `password: must be changed often`
        if self.kind == "otp-secret" and " " in secret.strip() \
                and (any(len(g) != 4 for g in secret.split())
                     or len(set(secret.lower().split())) == 1) \
                and all(reads_as_word(g) for g in secret.split()):
            # `hotp-key verander verander`: words, where a key's groups are of 4;
            # `mfa key moet moet moet moet`: one word again, where a key's differ
            return True
        if self.kind in ("app-password", "otp-secret") and sentence(secret) \
                and not _random_letters("".join(secret.split())):
            return True  # `app password: must have been made` (not `xrjn unzd gdtt dort`)
        if self.kind in _ON_ITS_LINE and self._on_a_later_line(match):
            return True  # `bw unlock --raw⏎hello`: the next line is the command's output
        if self.kind == "cli-password" and rx(r"\$(?:env:)?\{?[A-Za-z_]\w*\}?\Z").match(secret):
            return True  # `--password $PW`: the shell puts a variable's value there
        bare = secret.rstrip("`.,;:)")
        if self.kind == "cli-password" and (bare.lower() in _FLAG_PROSE or (
                bare.isupper() and bare.lower().strip("_") in _FLAG_PLACEHOLDERS)):
            # `use the --token flag to …`, `pass the --api-key option`: prose
            # about the flag; `mysql -pPASSWORD`: a placeholder in capitals
            return True
        if self.kind == "root-secret" and not rx(_HEX).match(secret.replace("-", "").lower()) \
                and words_and_numbers(secret):
            return True  # `secret_id: key_2025_q3_rotation`: a name, where a UUID is the secret
        if self.kind == "printed-secret" and reads_as_word(secret):
            return True  # a command on the line after it, not its output
        if self.kind == "url-secret" and not _cell_hides(secret, False):
            return True  # `?key=value`, `&token=abc`, `?key=12345`
        if self.kind == "expect-password" and not self._sent_as_password(match, secret):
            return True
        if self.kind == "encoded-password" and "bare" in match.re.groupindex:
            return not _decodes_to_user_password(secret, bare=True)
        if self.kind == "url-token" and rx(_URL_USER).match(secret):
            return True  # a user's name (`jenkins_deploy`, `x-access-token`), not a token
        if self.kind in _POSITIONAL_KINDS:
            from vibe_vault import secret_positional

            if secret_positional.judged(self.kind, match, secret, _cell_hides):
                return True
        return self.skips(secret)

    def _on_a_later_line(self, match: re.Match[str]) -> bool:
        """Whether a command's value begins a line after the word before it
        (a line end, `\n` or `\r\n`, not continued by `\\`, `` ` `` or `^`,
        in the space before it): `bw unlock --raw⏎hello` is the command,
        then what it printed, not its argument. (A continued line is read
        joined: Redactor._redact_read's view. A lone `\r` is a terminal's
        return to the line's start, no line end.)"""
        text = match.string
        value = _value_span(match)[0]
        at = value
        while at > match.start() and text[at - 1] in " \t\r\n\"'":
            at -= 1
        for end in rx(r"\r?\n").finditer(text, at, value):
            if text[end.start() - 1:end.start()] not in ("\\", "`", "^"):
                return True
        return False

    def _said_in_prose(self, match: re.Match[str], name_end: int) -> bool:
        """Whether a value after a secret's name and a colon is said in
        people's words, so that a name's shape in it (`пароль: user_password`,
        `password: db_admin_2024`) is the value's, not code's: the name a word
        (no `_`, `.`, `-` or camel hump in it: `db_password:` is a key), the
        value one run with no `.` (`config.password` is code) that ends its
        line or its sentence, or words go on after it (not `,` `}` `)` `;`
        of an object or a call: `{ password: user_password }`)."""
        text = self.original if self.original is not None else match.string
        start, end = _value_span(match)
        name = text[match.start():name_end].strip(" \t\"'*")
        value = text[start:end]
        before = text[match.start() - 1:match.start()]
        if before.isalnum() or (before != "" and before in "_.-$"):
            return False  # (the name's end only: `db_password`, `dbPassword`)
        return bool(name) and "." not in value and all(
            c.isalpha() or c == " " for c in name) and not any(
            a.islower() and b.isupper() for a, b in pairwise(name)) \
            and bool(rx(_PROSE_VALUE_END).match(text, end))

    def _camel_hump(self, match: re.Match[str]) -> bool:
        """Whether a rule that may begin a part of a name in camel case
        (group `camel`: `dbMotDePasse`) begins at a capital after a small letter."""
        if "camel" not in match.re.groupindex:
            return False
        text = self.original if self.original is not None else match.string
        start = match.start()
        return text[start:start + 1].isupper() and text[start - 1:start].islower()

    def _in_a_media_data_uri(self, match: re.Match[str]) -> bool:
        """Whether a match lies in the base64 body of an image's, a font's, a
        sound's or a video's data URI (`<img src="data:image/png;base64,…">`,
        CSS's `url(data:image/gif;base64,…)`): its bytes may spell a token's
        head (`…AAAAEAAAAB…` is Square's `EAAA`), and a note shows them whole.
        (A text's data, `data:application/json;base64,…`, is read as ever.)"""
        text = self.original if self.original is not None else match.string
        start = match.start()
        at = text.rfind(";base64,", max(0, start - _DATA_URI_SPAN), start)
        if at < 0:
            return False
        head = text.rfind("data:", max(0, at - 120), at)
        if head < 0 or not rx(_MEDIA_DATA_URI).match(text, head, at):
            return False
        # (the body up to the match all base64; checked once per URI as
        # matches come in order, so many matches in one cost its length)
        body = at + len(";base64,")
        checked = (self._data_uri if self._data_uri[:2] == (id(text), body)
                   else (id(text), body, body))
        if start > checked[2] and not rx(r"[A-Za-z0-9+/=]*\Z").match(text, checked[2], start):
            return False
        self._data_uri = (id(text), body, max(start, checked[2]))
        return True

    def _in_a_revisions_file(self, match: re.Match[str]) -> bool:
        """Whether a match is in a word that names a file of a revision, as git
        is given one: a branch (`origin/feat/auth-profile`, `fix/login-flow`),
        `:`, and a path of words (`"app/[locale]/EditProfile.tsx"`)."""
        text = self.original if self.original is not None else match.string
        before = text[max(0, match.start() - 200):match.start()]
        if "/" not in before:  # (most matches: no revision, and no search of 200 places)
            return False
        start = rx(r"[^\s'\"=`(]{0,200}\Z").search(before)
        if start is None or "/" not in start.group(0):
            return False
        # (a branch's name bounded, as git's names are: unbounded, a run of
        # `/`s and words with no `:` was read to its end from every match
        # in it, and a long one cost as the square of its length)
        word = rx(r"[\w.\-/]{0,400}/[\w.\-]{0,255}:[\"']?([^\s\"'|;&<>]{1,400})").match(
            text, match.start() - len(start.group(0)))
        return word is not None and word.end() >= match.end() - 1 \
            and _a_path_of_words(word.group(1))

    def _names_public_material(self, match: re.Match[str]) -> bool:
        """Whether the name given a value names a public key: the word before
        its `key` (where the rule's match begins) is `public`, `pub` or
        `publishable` (`PublicKey`, `PUBLIC_KEY`, `pubkey`, `publishable_key`)."""
        text = self.original if self.original is not None else match.string
        return bool(rx(_PUBLIC_NAME).search(text, max(0, match.start() - 16), match.start()))

    def _in_public_armour(self, match: re.Match[str]) -> bool:
        """Whether a key's body a shape rule found is inside a certificate's or
        a public key's armour (secret_keys.in_public_armour)."""
        if "private key" in match.group(0).lower():
            return False
        text = self.original if self.original is not None else match.string
        return secret_keys.in_public_armour(text, _value_span(match)[0])

    def _a_key_naming_a_thing(self, match: re.Match[str]) -> bool:
        """Whether the name's secret word is a bare `key` (the rule's match
        begins there: `scope_key`, `cache_key`, `sort_key`; not `api_key`,
        `secret_key`, `private_key`, whose match begins at their first word)
        and no word of cryptography comes before it (`signing_key`,
        `master_key`, `encryption_key`: a key's bytes, whatever they read)."""
        text = self.original if self.original is not None else match.string
        return text[match.start():match.start() + 3].lower() == "key" \
            and not rx(_CRYPTO_KEY_WORD).search(text, max(0, match.start() - 24), match.start())

    def _public_by_design(self, match: re.Match[str], secret: str) -> bool:
        """Whether the value is a key public by its vendor's design (Stripe's
        publishable `pk_live_…`), or its body after `pk_` (a rule reading
        `live_` and 40 characters, GoCardless', finds one inside it)."""
        if rx(_PUBLIC_BY_DESIGN).match(secret):
            return True
        start = _value_span(match)[0]
        return match.string[max(0, start - 3):start].lower() == "pk_" \
            and bool(rx(_PUBLIC_BY_DESIGN).match("pk_" + secret))

    def _names_no_secret(self, match: re.Match[str]) -> bool:
        """Whether the name given a value names something about a secret, not
        the secret: `secret_name`, `private_key_path`, `tokenType`, `API_KEY_ID`."""
        text = self.original if self.original is not None else match.string
        return about_a_secret(text[match.start():_name_end(match)].rstrip("\"' \t"))

    def _sent_as_password(self, match: re.Match[str], secret: str) -> bool:
        """Whether what an expect script sends is a password: anything sent
        after a password's prompt (`expect "password:"`) is; else what is no
        word, command, path, option or number."""
        text = self.original if self.original is not None else match.string
        before = text[max(0, match.start() - 300):match.start()].lower()
        if rx(r"expect\b[^\n]*(?:assword|passphrase|\bpin\b|token|secret)").search(before):
            return True
        return not (reads_as_word(secret) or rx(_NUMBER).match(secret)
                    or secret.startswith(("-", ".", "/", "~")) or "/" in secret)

    def _not_said_as_password(self, match: re.Match[str], secret: str) -> bool:
        """A prose value that is no password: a word that says what the
        password is ("the password is stored", "Passwort: erforderlich"), or
        a word the sentence goes on after ("the password is sunshine" ends
        its clause: a password; "the password is weird sometimes" does not);
        after "is", a path or a URL (where the password is), or a run of
        words with no digit, symbol or capital (unless quoted)."""
        loose = [name for name, value in match.groupdict().items()
                 if name.startswith("vl") and value is not None]
        if loose and all(name.startswith("vlm") for name in loose):
            # A name's head, a rule before having hidden its tail (`pw_Ab3=[…]`):
            # the value's, unless words in one case (`SECRET_KEY_BASE=[…]`).
            runs = rx(r"[A-Za-z]+|\d+|[^A-Za-z\d]+").findall(secret)
            return (secret.isupper() or secret.islower()) and not _digits_inside(runs) \
                and all(len(r) >= 3 for r in runs if r.isalpha()) and (
                    words_and_numbers(secret) or (secret.isalpha() and _a_word(secret)))
        if loose:
            return not random_value(secret)  # given loosely (secret_prose): only a random run
        if "bounded" in match.re.groupindex and secret.isalpha():
            # (a word after a name in another language, `salasana on väärä`, is
            # one of its sentence: a value of letters only is one drawn at random)
            return not _random_capitals(secret)
        said = match.string[match.start():_value_span(match)[0]]
        if self.kind == "prose-token":
            return not token_value(secret, quoted=said.rstrip()[-1:] in "'\"`«“„‹")
        colon = any(c in said for c in ":=：")
        if colon and rx(_NOT_A_SECRET).match(secret):
            return True  # code (`пароль: Optional[str]`, `κωδικός: None`)
        if said.rstrip()[-1:] in ("'", '"', "`", "«", "“"):
            # quoted: a value, a name's spelling too (`Passwort: "a_b.c"` is
            # a string; a placeholder is judged after)
            return False
        if ("_" in secret.strip("_") or "." in secret) and rx(_IDENTIFIER).match(secret) \
                and words_and_numbers(secret) and not (
                    said.rstrip()[-1:] in ":："
                    and self._said_in_prose(match, match.start() + len(said.rstrip(" \t:：")))):
            return True  # a name in code (`db_пароль: user_password`, `config.password`)
        if not colon and (secret.startswith(("/", "~", "./", "../")) or "://" in secret):
            return True  # a path or a URL: where the password is
        if rx(_CJK_WORDS).match(secret):
            # words of a script written without spaces, a digit after them
            # (`パスワード：必須項目です（8文字以上）`: "required (8 or more)")
            return True
        if any(c.isdigit() or c in _SYMBOLS for c in secret) \
                or any(c.isupper() for c in secret[1:]):
            return False
        if not secret.isalpha():
            return True  # `e.g.`, `well-known`: no password's shape
        return self._a_word_saying_what_it_is(match, secret, colon)

    def _a_word_saying_what_it_is(self, match: re.Match[str], secret: str, colon: bool) -> bool:
        """Whether a value of letters after a password's name is a word of
        the sentence rather than the password: one of another script; one
        the sentence goes on after; one that describes (describes())."""
        if not secret.isalpha():  # a value, unless words joined by hyphens (`well-known`)
            parts = secret.split("-")
            if not ("-" in secret and all(p.isalpha() and not _random_letters(p) for p in parts)):
                return False
            if len(parts) >= 3:
                return sentence(" ".join(parts))  # (not `correct-horse-…`)
            # Two: short words (`read-only`, `one-time`), or one that describes
            # (`auto-generated`, `environment-specific`); two long runs that
            # merely read well (`guffanbelk-morvintash`) are a password.
            return all(len(p) <= 7 for p in parts) or any(
                describes(p) or p.lower() in _FUNCTION_WORDS for p in parts)
        if not all(c.isascii() or c in _LATIN_MARKS for c in secret):
            return True  # a word of another script (`пароль: обязательно`)
        from vibe_vault.secret_rules import PROSE_WORDS

        if secret.lower() in PROSE_WORDS:
            # (before the odds of its letters: `verplicht`, `wymagane` read as
            # random to English's trigrams; attack 25's fp: `wachtwoord: verplicht`)
            return True
        if _random_letters(secret):
            return False  # a random run of letters (`MUtUCNFgOmEtLrWs`) in a sentence too
        text = self.original if self.original is not None else match.string
        if not rx(_CLAUSE_END).match(text, _value_span(match)[1]):
            return True  # the sentence goes on: a word of it
        return describes(secret, colon)

    def _begins_line(self, match: re.Match[str]) -> bool:
        """Whether the match begins its line (after indentation or a prompt),
        or, for LINE_OR_UPPER, its first word is in capitals."""
        text = self.original if self.original is not None else match.string
        start = match.start()
        if self.line == LINE_OR_UPPER and text[start:start + 3].isupper():
            return True
        return bool(rx(_LINE_PREFIX).match(text, text.rfind("\n", 0, start) + 1, start))

    def skips(self, secret: str) -> bool:
        if self.kind == "encoded-token":
            return not _decodes_to_a_secret(secret)
        if self.kind == "encoded-password":
            return not _decodes_to_user_password(secret)
        if self.kind in _MIXED and not (
                any(c.isdigit() for c in secret) and any(c.isalpha() for c in secret)):
            return True
        if self.kind == "generic-key" and (
                rx(_HEX).match(secret.lower()) or entropy(secret) < GENERIC_ENTROPY
                or words_and_numbers(secret) or _words_joined(secret)):
            # `api_key_id: key_2024_rotation`, `"scope_key": "price_north_v2"`
            return True
        return (
            secret in self.allow
            or secret in _DOCUMENTED_EXAMPLES
            or secret.startswith("[REDACTED")
            or (self.kind in _ASSIGNMENTS and "[REDACTED" not in secret and bool(rx(
                _NOT_A_LITERAL if self.kind in _LITERALS else _NOT_A_SECRET).match(secret)))
        )

    def __call__(self, match: re.Match[str]) -> str:
        whole = match.group(0)
        start, end = _value_span(match)
        secret = match.string[start:end]
        if self.skips_dressed(match, secret):
            self.skipped += 1
            return whole
        hidden, learned = _hidden(secret, self.marker)
        if self.found is not None and learned:
            self.found.append(learned)
        base = match.start(0)
        return whole[: start - base] + hidden + whole[end - base :]


def _name_end(match: re.Match[str]) -> int:
    """Where a secret-assignment's name ends: before its type (`API_KEY: str
    = …`) or its separator."""
    typed = match.groupdict().get("typed")
    return match.start("typed") if typed else match.start("sep")


def _hidden(secret: str, marker: str) -> tuple[str, str]:
    """What a value found is replaced by, and what of it is learned as a
    secret. A value holding a token another rule hid (`tgoqwpwqlxoxa-…`: a
    Slack token's prefix inside a password) goes whole, its head too, which
    is what is learned; ended inside that marker (a bare value stops at its
    `]`), the marker's own `]` after it closes this one."""
    inner = secret.find("[REDACTED")
    if inner <= 0:
        return marker, secret
    closed = secret.count("[") == secret.count("]")
    return (marker if closed else marker[:-1]), (secret[:inner] if inner >= MIN_SECRET else "")


def _decodes_to_a_secret(encoded: str) -> bool:
    """Whether base64 decodes to a text the gate finds a secret in."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return DEFAULT.redact(raw.decode("utf-8", "replace"))[1] > 0


def _decodes_to_user_password(encoded: str, bare: bool = False) -> bool:
    """Whether base64 decodes to `user:password`, the password no
    placeholder, word or number (`admin:password`, `bob:secret` are examples).
    `bare`: said with no word for it, so the pair must be one as surely as
    a random value is (secret_rules' trigger-less rule): a password drawn
    at random (`random_value`), no `:`, `\\` or space in it, after a user
    that is no URI's scheme (`https://…`, `mailto:…`, `urn:…`, `C:\\…` and
    `time:2024-…` encode text too)."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    # (`echo u:p | base64` encodes the line's end too)
    plain = raw.decode("ascii", "replace").removesuffix("\n").removesuffix("\r")
    user, colon, password = plain.partition(":")
    if not colon or not rx(r"[\w.@+\-]{1,64}\Z").match(user) \
            or not rx(r"[\x21-\x7e]{4,200}\Z").match(password):
        return False
    if bare and (any(c in password for c in ":\\") or user.lower() in _SCHEMES
                 or not random_value(password)):
        return False
    # (no name in code goes in a pair: a password of parts joined by `_` or
    # `.`, `A0000000._`, `A000.A0000`, is no word but symbols it holds)
    return not (rx(_NOT_A_QUOTED_SECRET).match(password)
                or (reads_as_word(password) and not rx(r"\w[_.]+\w").search(password))
                or rx(_NUMBER).match(password))


# What a text says before a colon that is no user (a URI's scheme, a drive).
_SCHEMES = frozenset({"http", "https", "ftp", "ftps", "sftp", "ssh", "git", "file", "data",
                      "mailto", "urn", "tel", "ws", "wss", "s3", "gs", "ldap", "ldaps", "jdbc",
                      "redis", "postgres", "postgresql", "mysql", "mongodb", "amqp", "smtp"})


# Token prefixes too common in words and names to stand for a token glued
# after letters (`myapi-`, `hotkey-`, `latest_`, `compat.`).
_GLUE_PRONE = frozenset({"api-", "key-", "pat.", "sat.", "live_", "test_", "v1.0-",
                         "secret_", "pubkey-"})


@cache
def _glued_random() -> dict[int, tuple[str, ...]]:
    """The prefixes of each token rule (SHAPED, B) that a word may end in
    (`sk-`: `desk-`; `AKIA`, `re_`, `hf_`): such a token glued after a letter
    or digit (minified text, a space left out: `keysk-…`, `xAKIA…`) is one
    only when what follows its prefix reads as a token's (`_glued_token`).
    Kept beside the rule table it is made from, as `_cut_rules` is: working
    it out cost every Stop ~2.7 M instructions (its first gated text, the
    transcript's path, holds the session's id: a run of letters and digits)."""
    sources = _sources[0]
    if sources is None:
        return _make_glued_random()
    return patterns.kept("redact-glued-random", sources, (), _make_glued_random)


def _make_glued_random() -> dict[int, tuple[str, ...]]:
    """`_glued_random`, worked out."""
    out: dict[int, list[str]] = {}
    for word, rules in _NEAR_RULES.items():
        # (three characters or more, not a prefix of words or names,
        # _GLUE_PRONE; not base64 of a token's prefix, which any base64 text
        # may hold, misaligned)
        if len(word) >= 3 and not glue_proof(word) and word not in _GLUE_PRONE:
            for i in rules:
                if i in SHAPED_RULES and i in _BOUNDED and _RULE_PATTERNS[i][0] != "encoded-token":
                    out.setdefault(i, []).append(word)
    return {i: tuple(words) for i, words in out.items()}


def _glued_token(whole: str, prefixes: tuple[str, ...]) -> bool:
    """Whether a match glued after a letter or digit is a token: it begins
    with one of `prefixes`, and what follows (16 characters or more) holds
    a digit and a capital, and is no hex (`task-3fa85f64…`), no name of
    words and numbers (`desk-Management-System-2024`) nor of words in
    capitals (`desk-ReviewReportQ3Version19`: `_named_in_parts`)."""
    low = whole[:24].lower()
    for prefix in prefixes:
        if low.startswith(prefix):
            body = whole[len(prefix):]
            return len(body) >= 16 and any(c.isdigit() for c in body) \
                and any(c.isupper() for c in body) and not rx(_HEX).match(body.lower()) \
                and not words_and_numbers(body) and not _named_in_parts(body)
    return False


def _named_in_parts(value: str) -> bool:
    """A name of parts, each a word (`Review`, `Q`, `CONFIG`) or a short
    number, one at most shorter than three letters, and a word of four small
    letters or more among them (capitals alone are not told into words);
    a token's parts are many and short (`aB1cD2…`), or no words
    (`IOSFODNN7…`, `RYL5MIQW3…`)."""
    parts = rx(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z\d]+").findall(value)
    words = [p for p in parts if p.isalpha()]
    return any(sum(c.islower() for c in w) >= 4 for w in words) \
        and all(_a_word(w) for w in words) \
        and sum(len(w) < 3 for w in words) <= 1 \
        and all(len(p) <= 4 for p in parts if p.isdigit())


def glue_proof(trigger: str) -> bool:
    """A prefix no word ends in: four characters or more with a separator
    (`ghp_`, `glpat-`, `sk-ant-`, `hvs.`), not one of _GLUE_PRONE."""
    return len(trigger) >= 4 and any(c in trigger for c in "_-.") \
        and trigger not in _GLUE_PRONE


# What ends the clause a value ends: a line's end or the text's, or a stop,
# comma or bracket then a space (a closing quote first).
_CLAUSE_END = r"[\"'`»”]?(?:[.,;:!?)\]]+(?:\s|\Z)|[ \t]*(?:\r|\n|\Z))"
# Letters with accents of the Latin-script languages PROSE_WORDS holds.
_LATIN_MARKS = frozenset("àâäáãåæçéèêëíìîïñóòôöõøœßúùûüÿÀÂÄÁÃÅÆÇÉÈÊËÍÌÎÏÑÓÒÔÖÕØŒÚÙÛÜ")


def describes(word: str, colon: bool = False) -> bool:
    """A word that says what a password is, not which one: one of
    secret_rules.PROSE_WORDS, one shaped as a participle, adjective or adverb
    (DESCRIBING_ENDINGS; German and Dutch ge…t, ge…en, ge…d); after "is" (not
    after `:`), also a word calling it secret (`ist geheim`)."""
    from vibe_vault.secret_rules import DESCRIBING_ENDINGS, PROSE_WORDS, SECRET_WORDS

    low = word.lower()
    if low in PROSE_WORDS or (not colon and low in SECRET_WORDS):
        return True
    shaped = (len(low) > 4 and low.endswith(DESCRIBING_ENDINGS)) or (
        len(low) > 5 and bool(rx(r"(?:ge|opge|ver)[a-zäöü]+(?:t|en|d)\Z").match(low)))
    # (and its letters run as a language's do: `qidwcnokmdttewlymed` is random,
    # `encrypted` is not)
    return shaped and not _random_letters(low)


def _unseen_trigrams(low: str) -> int:
    """How many of a word's runs of three letters no word of BIP-39's English
    list has (accented letters count as seen: the list has none)."""
    known = english_trigrams()
    return sum(low[i:i + 3] not in known and low[i:i + 3].isascii()
               for i in range(len(low) - 2))


# Characters a password holds and a sentence does not (stops, commas,
# apostrophes and hyphens are a sentence's).
# After a value said in people's words: its line's or sentence's end, or
# words going on (`password: db_admin_2024 for the admin`).
_PROSE_VALUE_END = r"[.!?]?(?:[ \t]*(?:\r?\n|\Z)|[ \t]+[^\W\d_])"
_SYMBOLS = frozenset("!@#$%^&*_+=~|<>[]{}\\/")


def reads_as_word(value: str) -> bool:
    """A word or a name in code (`hashed`, `user_password`, `geheim`), not a
    random run: a snake_case or dotted name; a short one; a word of another
    script; or ASCII letters that read as a word does (under 20 of them, a
    vowel in three of ten or more, their runs of three letters those of
    English words: a random run of 12 lower-case letters is a password,
    `qwertyuiopasdfghjklzxc` after `password =` too)."""
    if not value.isascii():
        return value.isalpha()
    if not rx(_IDENTIFIER).match(value[:1].lower() + value[1:]):
        return False  # a capital inside, a symbol: no word, no name in code
    core = value.strip("_")
    if "_" in core or "." in core or len(value) <= 6:
        return True
    if any(c.isdigit() for c in value):
        return len(value) < 8
    if len(value) >= 20 or not value.isalpha():
        return False
    low = value.lower()
    if sum(c in "aeiouy" for c in low) * 10 < 3 * len(value):
        return False
    # Its letters run as English words' do: at most one (two from twelve
    # letters: a name joins words) of its runs of three is in no word of
    # BIP-39's list (2048 common words); a random run has most so.
    return _unseen_trigrams(low) <= (2 if len(low) >= 12 else 1)


@cache
def english_trigrams() -> frozenset[str]:
    """The runs of three letters of BIP-39's English words."""
    from vibe_vault.seed_phrase import words

    return frozenset(w[i:i + 3] for w in words() for i in range(len(w) - 2))


# Characters that hide a form from the rules, or begin a disguise: format
# characters (zero-width space, joiners, soft hyphen, BOM, bidi marks),
# full-width forms, Greek and Cyrillic (look-alike letters), an escaped byte,
# a line continued by a backslash, a character escaped as JSON, JavaScript or
# Python write it (`password\u003dX`, `\u0067hp_…`).
_DISGUISING = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
               (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
               (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
               (0xFFA0, 0xFFA0), (0xFF01, 0xFF5E), (0x0370, 0x03FF), (0x0400, 0x04FF))
# Markdown's escape of a token's separator (`ghp\\_…`, `sk\\-ant\\-…`) and
# HTML's character references for them (`ghp&#95;…`, `&lowbar;`) read as the
# character they stand for.
_MARKUP_ESCAPE = (r"\\[_\-]|&#(?:95|45|x5[fF]|x2[dD]);|&(?:lowbar|UnderBar|hyphen|dash);")
_DISGUISE = ("[" + "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _DISGUISING)
             + r"]+|%[0-9A-Fa-f]{2}|" + _MARKUP_ESCAPE + r"|\\u[0-9A-Fa-f]{4}"
             r"|\\+\"|[ \t]*\\(?:\r?\n[ \t]*|[ \t]+)")
_MARKUP_READS = {"&#95;": "_", "&#45;": "-", "&lowbar;": "_", "&UnderBar;": "_",
                 "&hyphen;": "-", "&dash;": "-"}


# Prefixes of tokens whose `-` Markdown may escape (`\\-` alone is in every
# regex's character class: no text is read twice for it).
_DASH_ESCAPED = ("sk\\-", "glpat\\-", "xoxb\\-", "xoxp\\-", "xapp\\-", "GOCSPX\\-", "pypi\\-")


def _escapes_markup(text: str) -> bool:
    """Whether the text holds a Markdown escape of `_` or of a token's `-`,
    or an HTML reference to either; or JSON escaped inside a string, at any
    depth (`"{\\"password\\":\\"…\\"}"`: AWS's SecretString), whose quotes
    read as quotes."""
    return "\\_" in text or "&#" in text or ('\\"' in text and (
        '\\":' in text or '\\" :' in text)) or (
        "\\-" in text and any(p in text for p in _DASH_ESCAPED)) or (
        "&" in text and any(name in text for name in _MARKUP_READS))


@cache
def _disguising() -> frozenset[str]:
    """The characters of _DISGUISE's class."""
    return frozenset(chr(c) for lo, hi in _DISGUISING for c in range(lo, hi + 1))


# Cyrillic and Greek letters that look like Latin ones, as a reader sees them.
_LOOKS_LATIN = str.maketrans(
    "аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅαοερτυνικχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdqwABEKMHOPCTXIJSaoeptuvikxABEZHIKMNOPTYX")
_MARKER = r"\[REDACTED:[^\]\n]*\]"


class _View:
    """A text as it reads (`text`), and where each of its pieces came from in
    the text as written: (start in text, start as written, length in text,
    length as written), in order; a piece of equal lengths maps one to one."""

    def __init__(self, text: str, pieces: list[tuple[int, int, int, int]],
                 escapes: bool = False, joins: bool = False,
                 cuts: tuple[tuple[int, int], ...] = (), under: _View | None = None) -> None:
        self.text, self.pieces = text, pieces
        self.escapes, self.joins = escapes, joins  # it decoded a %-escape; joined a line
        self.cuts = cuts  # the spans of the text as written it left out (`_cut_view`)
        # the view this one reads (a reading of a reading: `_dressed_view`),
        # whose text is "the text as written" to this one
        self.under = under
        self._starts = [p[0] for p in pieces]

    def _at(self, i: int, end: bool) -> int:
        from bisect import bisect_right

        if not self.pieces:
            return i
        k = max(0, bisect_right(self._starts, i - 1 if end else i) - 1)
        start, written, size, written_size = self.pieces[k]
        if size == written_size:
            return written + (i - start)
        return written + written_size if end else written

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where text[start:end] was written (covering every character it came from)."""
        if self.under is not None:
            return self.under.span(self._at(start, False), self._at(end, True))
        return self._at(start, False), self._at(end, True)

    def gaps(self, read: str) -> list[tuple[int, int, str]] | None:
        """What `read` (this view redacted) replaced by markers, as spans of
        the text as written, with the markers; None when it cannot be lined up."""
        gaps = _gaps(self.text, read)
        if gaps is None:
            return None
        return [(*self.span(start, end), markers) for start, end, markers in gaps]


def _hide_spans(text: str, spans: list[tuple[int, int, str]]
                ) -> tuple[str, list[tuple[int, int, str]]]:
    """`text` with each span (start, end, markers) replaced by its markers, and
    the spans as hidden: those that overlap are one, their markers each once."""
    merged: list[tuple[int, int, str]] = []
    for a, b, markers in sorted(spans):
        if merged and a < merged[-1][1]:
            last_a, last_b, last_markers = merged[-1]
            merged[-1] = (last_a, max(last_b, b),
                          last_markers if markers in last_markers else last_markers + markers)
        else:
            merged.append((a, b, markers))
    parts: list[str] = []
    at = 0
    for a, b, markers in merged:
        parts += [text[at:a], markers]
        at = b
    return "".join(parts) + text[at:], merged


def _gaps(text: str, read: str) -> list[tuple[int, int, str]] | None:
    """The spans of `text` that `read` (`text` redacted) replaced by markers,
    and the markers; None when the two cannot be lined up."""
    parts = re.split("((?:" + _MARKER + ")+)", read)
    if not text.startswith(parts[0]):
        return None
    gaps: list[tuple[int, int, str]] = []
    at = len(parts[0])
    for i in range(2, len(parts), 2):
        literal, markers = parts[i], parts[i - 1]
        if i == len(parts) - 1:  # the rest of the text
            found = len(text) - len(literal) if text.endswith(literal) else -1
        else:
            found = text.find(literal, at)
        if found < at:
            return None
        gaps.append((at, found, markers))
        at = found + len(literal)
    return gaps


# A vendor's token cut where it was written (attack 25, round 15): wrapped at
# a terminal's or an editor's width (the rest of it on the next lines, each
# line nothing else), split by implicit concatenation ('ghp_ab' 'cd…', a
# shell's "ghp_ab""cd…"), by quoted-printable's soft break (`=` ending a
# line), by Markdown code spans side by side (`ghp_ab``cd…`), or by a space.
# Read joined, the token is the vendor rule's shape again.
_CUT_PIECE = r"[A-Za-z0-9_\-.+/]*"
_CUT_STEP = (r"(?:(?P<qp>=\r?\n)|(?P<quote>[\"'][ \t]*(?:\\?\r?\n[ \t]*)?"
             r"(?:[+.][ \t]*(?:\r?\n[ \t]*)?)?[\"'])|(?P<md>``)"
             r"|(?P<wrap>[ \t]*\r?\n[ \t>]*)| )(?P<piece>[A-Za-z0-9_\-+/][A-Za-z0-9_\-.+/]*)")
_LINE_ENDS = r"[ \t]*(?:\r?\n|\Z)"
# How far a cut token is read (characters; cuts), whatever follows.
CUT_READ, CUTS = 1024, 32


@cache
def _cut_rules() -> dict[int, tuple[str, ...]]:
    """The rules of a vendor's token (SHAPED: a prefix, then the token; and
    Slack's, a WORD rule) whose prefix is its own (four characters or more,
    or three with a separator: `ghp_`, `hvs.`, `AKIA`, `xoxb-`; not `sk`,
    `ey`, `key`, nor one of _GLUE_PRONE), and those prefixes. Kept beside the
    rule table it is made from (and from this module's constants, which the
    table's stamps cover): working it out cost a Stop ~2.8 M instructions."""
    sources = _sources[0]
    if sources is None:
        return _make_cut_rules()
    return patterns.kept("redact-cut-rules", sources, (), _make_cut_rules)


def _make_cut_rules() -> dict[int, tuple[str, ...]]:
    """`_cut_rules`, worked out."""
    out: dict[int, list[str]] = {}
    for word, rules in _NEAR_RULES.items():
        if (len(word) >= 4 or (len(word) == 3 and any(c in word for c in "_-."))) \
                and word not in _GLUE_PRONE:
            for i in rules:
                if i in SHAPED_RULES:
                    out.setdefault(i, []).append(word)
    # (and a WORD rule's prefix with its separator: Slack's `xoxb-`)
    nodes = list(_WORD_TREE)
    while nodes:
        word, rules, children = nodes.pop()
        nodes += children
        if len(word) >= 4 and word[-1] in "_-" and word.isascii() \
                and word[:-1].isalnum() and word not in _GLUE_PRONE:
            for i in rules:
                out.setdefault(i, []).append(word)
    return {i: tuple(words) for i, words in out.items()}


# Vendors' prefixes of tokens short enough that, cut in two, neither piece is
# a long run (AWS key ids: the prefix and 16 capitals and digits).
_SHORT_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA")


@cache
def _short_token_rules() -> frozenset[int]:
    """The rules among _cut_rules' of a token one of _SHORT_PREFIXES begins."""
    short = tuple(p.lower() for p in _SHORT_PREFIXES)
    return frozenset(i for i, words in _cut_rules().items() if any(w in short for w in words))


def _random_piece(piece: str) -> bool:
    """A token's piece, not a word: a digit, or capitals and small letters."""
    return any(c.isdigit() for c in piece) or (
        any(c.isupper() for c in piece[1:]) and any(c.islower() for c in piece))


def _cuts_after(text: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The cuts of a token whose prefix is at `start` (spans of `text`), and
    where the reading stopped: joins of the kinds above, each followed by the
    token's next piece; a wrapped line's piece is the whole line and reads as
    random, as does a piece after a space (one space at most)."""
    at = rx(_CUT_PIECE).match(text, start).end()  # type: ignore[union-attr]
    cuts: list[tuple[int, int]] = []
    spaced = False
    step = rx(_CUT_STEP)
    while len(cuts) < CUTS and at - start < CUT_READ:
        m = step.match(text, at)
        if m is None:
            break
        piece = m.group("piece")
        if m.group("wrap") is not None:
            # (the line is this piece alone, or the piece goes on at once by
            # another kind of cut: a wrapped line's text goes on, not a word)
            whole = rx(_LINE_ENDS).match(text, m.end()) is not None or (
                step.match(text, m.end()) is not None and not text[m.end()].isspace())
            if not whole or not _random_piece(piece):
                break
        elif m.group("qp") is None and m.group("quote") is None and m.group("md") is None:
            if spaced or not _random_piece(piece):  # (a space)
                break
            spaced = True
        cuts.append((m.start(), m.start("piece")))
        at = m.end()
    return cuts, at


def _cut_view(text: str, rules: Iterable[int]) -> _View | None:
    """The text with the cuts of vendors' tokens left out (the spans left out
    in `cuts`), or None when it has none: each place one of the `rules`'
    prefixes begins a piece that a cut ends."""
    low = text.lower()
    if len(low) != len(text):  # (a letter whose lower case is longer: no places to share)
        return None
    words = {w for i in rules for w in _cut_rules()[i]}
    cuts: list[tuple[int, int]] = []
    for word in words:
        at = low.find(word)
        while at >= 0:
            found, end = _cuts_after(text, at)
            cuts += found
            # (a prefix inside what was read goes on to the same cuts)
            at = low.find(word, max(end, at + 1))
    if not cuts:
        return None
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    kept: list[tuple[int, int]] = []
    at = size = 0
    for start, end in sorted(set(cuts)):
        if start < at:
            continue  # (within a cut already left out)
        kept.append((start, end))
        out.append(text[at:start])
        pieces.append((size, at, start - at, start - at))
        size += start - at
        at = end
    out.append(text[at:])
    pieces.append((size, at, len(text) - at, len(text) - at))
    return _View("".join(out), pieces, cuts=tuple(kept))


def _across_a_cut(spans: list[tuple[int, int, str]],
                  cuts: tuple[tuple[int, int], ...]) -> list[tuple[int, int, str]]:
    """The spans (of the text as written) that cover a cut whole: of the
    cuts after a span's start (in order, none overlapping), the first ends
    first."""
    from bisect import bisect_right

    starts = [start for start, _ in cuts]
    out = []
    for a, b, markers in spans:
        k = bisect_right(starts, a)
        if k < len(cuts) and cuts[k][1] < b:
            out.append((a, b, markers))
    return out


# A word written one letter at a time, the same mark between them
# (`p.a.s.s.w.o.r.d`, `P-A-S-S-W-O-R-D`, `t o k e n`, `m_o_t_d_e_p_a_s_s_e`):
# four letters or more. Letters and marks are read as a run that always
# matches (each character read once), its words found in it after.
_SPACED = r"(?<![^\W_])[^\W\d_](?:[._\- ][^\W\d_])++"
SPACED_LETTERS = 4


def _spaced_view(text: str) -> _View | None:
    """The text with the words written a letter at a time read whole, or None
    when it has none: `p.a.s.s.w.o.r.d: X` reads `password: X` (attack 25,
    round 13)."""
    words: list[tuple[int, int]] = []
    for m in rx(_SPACED).finditer(text):
        if m.end() - m.start() < 2 * SPACED_LETTERS - 1 or (
                m.end() < len(text) and text[m.end()].isalnum()):
            continue  # (short; or its last letter begins a word: `a.bcd`)
        run, first = m.group(0), 0
        # Its words: where the mark stays the same (`x p.a.s.s.w.o.r.d`: the space
        # after `x` is another mark), each of SPACED_LETTERS letters or more.
        for k in range(3, len(run) + 2, 2):
            if k >= len(run) or run[k] != run[k - 2]:  # (the letter at k - 1 ends a word)
                if k - first >= 2 * SPACED_LETTERS - 1 and not (
                        words and m.start() + first < words[-1][1]):
                    words.append((m.start() + first, m.start() + k))
                first = k - 1
    if not words:
        return None
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    at = size = 0
    for start, end in words:
        if start > at:
            plain = text[at:start]
            pieces.append((size, at, len(plain), len(plain)))
            out.append(plain)
            size += len(plain)
        word = text[start:end:2]
        pieces.append((size, start, len(word), end - start))
        out.append(word)
        size += len(word)
        at = end
    if at < len(text):
        pieces.append((size, at, len(text) - at, len(text) - at))
        out.append(text[at:])
    return _View("".join(out), pieces)


# A value written as string literals joined (attack 25's leftovers): `"a" +
# "b" + "c"` (and `.`, `..`, `&`, `||`, `~`: PHP, Lua, VB, SQL, D), Python's
# implicit concatenation (`"a" "b"`, in brackets over lines), a line
# continued between them, `"a".concat("b", "c")`, `["a", "b"].join("")`,
# `"".join(["a", "b"])`, an f-string or a template of literals
# (`f"{'a'}{'b'}"`, `${"a"}${"b"}`). Read as the one literal it makes, the
# whole of it is the value a rule judges and hides (before, the first piece
# alone was: the others showed).
# (never nothing: in `"key" = "".join([…` the `" = "` and `".join(["` between
# literals are no pieces)
_JOIN_GLUE = (r"(?=[ \t\\\r\n+.&|~])[ \t]*(?:\\?\r?\n[ \t]*)?(?:(?:\+|\.\.?|&|\|\||~)[ \t]*"
              r"(?:\\?\r?\n[ \t]*)?)?")


def _join_literal(q: str) -> str:
    return q + r"[^" + q + r"\n\\]{1,200}" + q


def _joined_pattern() -> str:
    forms = []
    for q, other in (('"', "'"), ("'", '"')):
        lit = _join_literal(q)
        sep = r"[ \t]*(?:\r?\n[ \t]*)?,[ \t]*(?:\r?\n[ \t]*)?"
        forms += [
            # a chain, in brackets or not (Python's implicit concatenation)
            r"(?:\([ \t]*(?:\r?\n[ \t]*)?)?" + lit + r"(?:" + _JOIN_GLUE + lit + r"){1,16}"
            r"(?:[ \t]*(?:\r?\n[ \t]*)?\))?",
            lit + r"\.concat\([ \t]*" + lit + r"(?:" + sep + lit + r"){0,16}[ \t]*\)",
            r"\[[ \t]*(?:\r?\n[ \t]*)?" + lit + r"(?:" + sep + lit + r"){1,16},?[ \t]*"
            r"(?:\r?\n[ \t]*)?\]\.join\([ \t]*(?:" + q + q + r"|" + other + other + r")?[ \t]*\)",
            r"(?:" + q + q + r"|" + other + other + r")\.join\([\[(][ \t]*(?:\r?\n[ \t]*)?"
            + lit + r"(?:" + sep + lit + r"){1,16},?[ \t]*(?:\r?\n[ \t]*)?[\])]\)",
            # an f-string of literals (each in the other quote)
            r"[fF]" + q + r"(?:\{[ \t]*" + _join_literal(other) + r"[ \t]*\}){2,16}" + q,
        ]
    forms.append(r"`(?:\$\{[ \t]*(?:" + _join_literal('"') + "|" + _join_literal("'")
                 + r")[ \t]*\}){2,16}`")
    return "|".join(f"(?:{f})" for f in forms)


_JOINED = _joined_pattern()
_JOINED_PIECE = _join_literal('"') + "|" + _join_literal("'")
# How far after a glue a run of literals is read (characters: 17 pieces of 200).
JOIN_READ = 3600
# What every run of literals joined holds: a quote, then a glue (or the next
# literal after a space, `.concat(`, `].join(`, an f-string's `}{`).
_JOINED_GLUE_SEEN = (r"[\"'](?:[ \t]*(?:[+&~]|\.\.?|\|\||\\?\r?\n)|\]\.join\(|\}\$?\{"
                     r"|[ \t]+[\"'])")
_JOINED_BRACED = r"\{[ \t]*([\"'])([^\"'\n\\]{1,200})\1"


@cache
def _join_rules() -> frozenset[int]:
    """The rules a value written as literals joined is given to: a name's
    (an assignment, a key, a call's argument, a command's word)."""
    return frozenset(i for i, (kind, _) in enumerate(_RULE_PATTERNS) if kind in _JOIN_KINDS)


_JOIN_KINDS = frozenset({"secret-assignment", "prose-password", "prose-token", "config-secret",
                         "password-value", "generic-key", "vendor-key", "cli-password",
                         "cli-secret", "call-secret", "key-value-secret", "dsn-password"})


def _joined_view(text: str) -> _View | None:
    """The text with each run of string literals joined read as the one
    literal it makes (`"ab" + "cd"` reads `"abcd"`), or None when it has
    none. The literal stands for the whole run as written: what a rule
    finds in it is hidden from the run's first character to its last."""
    if '"' not in text and "'" not in text:
        return None
    # Only around a literal's end before a glue (looked for first: the runs'
    # pattern over a whole text cost ~10 times as much): from the line
    # before it (a bracket may open a run there) to the end of the line
    # after it (a list's or `.concat(`'s next literals), JOIN_READ at most.
    windows: list[list[int]] = []
    for glue in rx(_JOINED_GLUE_SEEN).finditer(text):
        start = text.rfind("\n", 0, max(0, text.rfind("\n", 0, glue.start()))) + 1
        # (to the end of the line after it: each glue after is a hit too)
        first = text.find("\n", glue.end())
        nxt = -1 if first < 0 else text.find("\n", first + 1)
        end = min(len(text) if nxt < 0 else nxt, glue.end() + JOIN_READ)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])
    if not windows:
        return None
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    at = size = 0
    for m in (m for lo, hi in windows for m in rx(_JOINED).finditer(text, lo, hi)):
        if m.start() < at:
            continue
        if m.group(0)[0] in "fF`":  # (the literals in its braces)
            parts = [p for _, p in rx(_JOINED_BRACED).findall(m.group(0))]
        else:
            # (after the empty separator a `"".join([…])` begins with)
            body = m.group(0)[2:] if m.group(0)[:2] in ('""', "''") else m.group(0)
            parts = [p[1:-1] for p in rx(_JOINED_PIECE).findall(body)]
        if len(parts) < 2:
            continue
        if m.start() > at:
            plain = text[at:m.start()]
            pieces.append((size, at, len(plain), len(plain)))
            out.append(plain)
            size += len(plain)
        joined = '"' + "".join(parts) + '"'
        pieces.append((size, m.start(), len(joined), m.end() - m.start()))
        out.append(joined)
        size += len(joined)
        at = m.end()
    if not pieces:
        return None
    if at < len(text):
        pieces.append((size, at, len(text) - at, len(text) - at))
        out.append(text[at:])
    return _View("".join(out), pieces)


def _continues(text: str) -> bool:
    """Whether the text holds a line continued by `\\`: before its newline, or
    after a newline already turned into a space (`--password \\ a0…`, as a
    command collapsed onto one line reads)."""
    return "\\\n" in text or "\\\r\n" in text or "\\ " in text or "\\\t" in text


def _view(text: str, unread: str = "") -> _View | None:
    """The text as it reads, or None when it reads as written. `unread`: "%"
    leaves %-escapes as written, "\n" continued lines."""
    import unicodedata

    if "%" not in text and "\\u" not in text and not _continues(text) \
            and _disguising().isdisjoint(text) and not _escapes_markup(text):
        return None  # (nothing _DISGUISE finds: the pattern, ~3 ms to compile, is not)
    matches = list(rx(_DISGUISE).finditer(text))
    if not matches:
        return None
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    at = size = 0  # in the text as written; in the view
    escapes = joins = False
    for m in matches:
        raw = m.group(0)
        if (raw[0] == "%" and unread == "%") or ("\\" in raw and unread == "\n"):
            continue  # (left as written: part of the next plain piece)
        if m.start() > at:
            plain = text[at:m.start()]
            pieces.append((size, at, len(plain), len(plain)))
            out.append(plain)
            size += len(plain)
        if raw[0] == "%":
            escapes = True
            byte = int(raw[1:], 16)
            pieces.append((size, m.start(), 1 if 0x20 <= byte < 0x7F else 3, 3))
            read = chr(byte) if 0x20 <= byte < 0x7F else raw
            out.append(read)
            size += len(read)
        elif raw[0] == "&" or raw[:2] in ("\\_", "\\-"):  # an escaped `_` or `-`
            escapes = True
            read = raw[1] if raw[0] == "\\" else _MARKUP_READS.get(raw) or (
                "_" if raw.lower() == "&#x5f;" else "-")
            pieces.append((size, m.start(), 1, len(raw)))
            out.append(read)
            size += 1
        elif raw[:2] == "\\u" and len(raw) == 6:  # a character escaped: that character
            code = int(raw[2:], 16)
            read = chr(code) if code >= 0x20 and not 0xD800 <= code < 0xE000 else raw
            escapes = True
            pieces.append((size, m.start(), len(read), 6))
            out.append(read)
            size += len(read)
        elif raw[-1] == '"':  # a quote escaped (JSON inside a string): a quote
            pieces.append((size, m.start(), 1, len(raw)))
            out.append('"')
            size += 1
        elif "\\" in raw:  # a line continued (or its newline already a space): one space
            joins = True
            pieces.append((size, m.start(), 1, len(raw)))
            out.append(" ")
            size += 1
        else:
            for j, ch in enumerate(raw):
                if unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f" \
                        or ch in "\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5":
                    continue  # it shows nothing: dropped
                read = unicodedata.normalize("NFKC", ch).translate(_LOOKS_LATIN)
                pieces.append((size, m.start() + j, len(read), 1))
                out.append(read)
                size += len(read)
        at = m.end()
    if at < len(text):
        pieces.append((size, at, len(text) - at, len(text) - at))
        out.append(text[at:])
    read_text = "".join(out)
    return None if read_text == text else _View(read_text, pieces, escapes, joins)


# How many times a text is read again as `_view` reads, after it is
# undressed: a value escaped twice (`password%253D…`, `&amp;#61;`) reads
# after the second; each is a pass over the text.
_READ_AGAIN = 2


def _dressed_view(text: str, plain: _View | None) -> _View | None:
    """The text undressed (`secret_dress`: terminal colours, HTML tags and
    entities, Markdown's marks and escapes, compatibility letters and
    accents, quoted-printable), then read as `_view` reads it, again while
    that changes it (at most _READ_AGAIN times); None when that reads as
    `plain` (the text read by `_view`, when it reads otherwise) does."""
    got = secret_dress.undressed(text)
    view = _View(got[0], got[1]) if got is not None else plain
    if view is None:
        return None
    if got is not None and plain is None and not got[2]:
        # (what `_view` reads is in the text as written, or made by decoding
        # a character: neither here)
        return _around_changes(view)
    for _ in range(_READ_AGAIN):
        again = _view(view.text)
        if again is None:
            break
        again.under = view
        view = again
    return None if view is plain else view


# Lines read around each line a view changed: a form's name and value are
# on one line, or a few (a table's header, a label above its value).
_LINES_AROUND = 3


def _around_changes(view: _View) -> _View:
    """`view` less the lines far from what it changed (more than
    _LINES_AROUND lines from one): a text read again costs the gate as much
    as reading it first, and most of a long text has no dress. What is left
    out reads as one line break."""
    text = view.text
    changed: list[int] = []
    end = 0  # where the last piece ended as written
    for start, written, size, written_size in view.pieces:
        if size != written_size or written != end:
            changed.append(start)
        end = written + written_size
    changed.append(len(text))  # (dress dropped at the end leaves no piece)
    keep: list[tuple[int, int]] = []
    line_end = -1  # the end of the line of the last change looked at
    for at in changed:
        if at < line_end:
            continue  # (its line's lines are kept already)
        found = text.find("\n", at)
        line_end = hi = len(text) if found < 0 else found + 1
        for _ in range(_LINES_AROUND):
            found = text.find("\n", hi)
            hi = len(text) if found < 0 else found + 1
        if keep and at < keep[-1][1]:
            keep[-1] = (keep[-1][0], max(keep[-1][1], hi))
            continue
        lo = at
        for _ in range(_LINES_AROUND + 1):
            lo = text.rfind("\n", 0, max(0, lo - 1)) + 1 if lo > 0 else 0
        if keep and lo <= keep[-1][1]:
            keep[-1] = (keep[-1][0], max(keep[-1][1], hi))
        else:
            keep.append((lo, hi))
    if sum(b - a for a, b in keep) * 5 >= len(text) * 4:
        return view  # (most of it: read whole)
    parts: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    size = at = 0
    for a, b in keep:
        if a > at:  # (what is left out: a line break)
            pieces.append((size, at, 1, a - at))
            parts.append("\n")
            size += 1
        pieces.append((size, a, b - a, b - a))
        parts.append(text[a:b])
        size += b - a
        at = b
    if at < len(text):
        pieces.append((size, at, 1, len(text) - at))
        parts.append("\n")
    return _View("".join(parts), pieces, under=view)


def entropy(text: str) -> float:
    """Shannon entropy in bits a character."""
    from math import log2

    counts: dict[str, int] = {}
    for c in text:
        counts[c] = counts.get(c, 0) + 1
    return -sum(n / len(text) * log2(n / len(text)) for n in counts.values()) if text else 0.0


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """Where the secret is in a match: the group named v (or v2, v3...) that
    took part, else the whole match."""
    for name, value in match.groupdict().items():
        if value is not None and name.startswith("v"):
            return match.span(name)
    return match.span()


_T = TypeVar("_T")


class _OutOfTime(Exception):
    pass


def within_budget(seconds: float, work: Callable[..., _T], *args: Any) -> _T | None:
    """`work(*args)`, or None when it took longer than `seconds`.

    The regex engine checks for signals as it goes, so an interval timer stops
    a match that would backtrack for hours. Where there is no such timer (not
    the main thread, or Windows), the work runs unbounded.
    """
    import signal
    import threading

    if (not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        return work(*args)

    def stop(signum: int, frame: object) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return work(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _OutOfTime:
        return None
    finally:
        signal.signal(signal.SIGALRM, previous)


def check_pattern(pattern: str) -> str | None:
    """Why a user's pattern cannot be used (it does not compile, or it
    backtracks without end on a simple text), or None when it can."""
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"not a valid regular expression ({exc})"

    def probe() -> bool:
        for text in _PROBES:
            compiled.search(text)
        return True

    if within_budget(0.2, probe) is None:
        return "takes too long on a short text (nested repetition such as (a+)+ ?)"
    return None


(
    # (kind, pattern) of each rule, the pattern without a leading B (see
    # Redactor._bounded); the prefixes that make a token of a B rule even
    # glued after letters (`abcghp_…`: glue_proof); the case-insensitive
    # rules (run on the lower-cased text without their "(?i)"); the WORD
    # rules' trigger words as a tree (_word_tree); the other rules' triggers
    # (word -> rules); rules whose pattern began with B; where a rule's match
    # may begin (secret_rules.LINE); SHAPED rules; RUN rules; RUN rules with
    # no trigger; secret_positional.KINDS; secret_rules.LINE_OR_UPPER.
    _RULE_PATTERNS, _GLUED, _FOLDED, _WORD_TREE, _NEAR_RULES, _BOUNDED, _LINES,
    SHAPED_RULES, RUN_RULES, _RUN_ONLY, _POSITIONAL_KINDS, LINE_OR_UPPER,
) = rule_table()
# Rules whose value is judged (placeholders, code, numbers are left).
_ASSIGNMENTS = frozenset({"secret-assignment", "vendor-key", "generic-key", "password-value",
                          "config-secret", "protocol-password", "wifi-psk", "prose-password",
                          "ci-mask", "expect-password", "prose-token", "security-answer",
                          *_POSITIONAL_KINDS})
# Rules of a command's argument: the value is on the command's line.
_ON_ITS_LINE = frozenset({"cli-password", "cli-secret"})
# Rules whose values are quoted literals or a shell's words: judged by
# _NOT_A_LITERAL rather than _NOT_A_SECRET.
_LITERALS = frozenset({"config-secret", "protocol-password", "wifi-psk",
                       "prose-password", "ci-mask", "expect-password", "prose-token",
                       "security-answer", *_POSITIONAL_KINDS})


DEFAULT = Redactor()
