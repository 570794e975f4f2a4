"""Make `bench/data/trufflehog_rules.json` from a checkout of trufflehog.

    python bench/trufflehog_data.py /path/to/trufflehog.git [commit]

trufflehog's detectors (pkg/detectors/<vendor>/*.go) each compile their
patterns in Go; most find a generic value near the vendor's name
(`detectors.PrefixRegex`), a few hundred find a token by its own shape. Only
those are kept: the patterns, not URLs, hosts, e-mails or ids, whose every
match begins with a literal prefix of three characters or more (`lin_api_`,
`dp.st.`, `hcaik_`), which is what the gate's vendor rules are (a prefix, then
a long random run). Each keeps its detector's name, the detector's keywords,
the prefixes its tokens begin with, and the token's shape: the facts of the
format (literal parts, each run's characters and its least and most length,
alternatives, the groups), written out by `shape` in this project's own
notation from the parsed pattern, not the pattern's text (trufflehog is
AGPL-3.0; a format is a fact about a vendor's tokens). Read by the tests and
the bench only, never by the hooks.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

OUT = Path(__file__).resolve().parent / "data" / "trufflehog_rules.json"
# Patterns that find what goes with a secret (where to send it), not the secret.
_NOT_SECRET = re.compile(r"(?i)url|domain|email|host|instance|portal|endpoint|^id|user|region"
                         r"|keyword|^regex$|^pattern$|base64|cloudname|FalsePositive|value")
LEAST_PREFIX = 3
# Shaped patterns that find no vendor's token, left out: a password in a
# connection URL or string (the gate's URL and assignment rules own those,
# tests/test_secret*.py), a value found by a word before it, not by its shape,
# and what is not a secret.
LEFT_OUT = {
    "ftp": "a password in a URL", "jdbc": "a connection string", "mongodb": "a password in a URL",
    "rabbitmq": "a password in a URL", "redis": "a password in a URL",
    "uri": "a password in a URL",
    "azure_entra/serviceprincipal/v1": "a value after the word secret or password",
    "azure_storage": "a value after the words access key", "onelogin": "a value after secret",
    "couchbase": "a host name", "coinbase": "a key's name (its id), not the key",
    # (the detector reads it beside a payment intent's secret, which is hidden)
    "stripepaymentintent#2": "Stripe's publishable key: public by design "
                             "(read beside a payment intent's secret)",
}
# The group of a rule's regex that is the secret, where its largest is not.
SECRET_GROUP = {"azureappconfigconnectionstring": 3}


_CATEGORIES = {C.CATEGORY_DIGIT: "\\d", C.CATEGORY_NOT_DIGIT: "\\D", C.CATEGORY_WORD: "\\w",
               C.CATEGORY_NOT_WORD: "\\W", C.CATEGORY_SPACE: "\\s",
               C.CATEGORY_NOT_SPACE: "\\S"}


def _char(code: int) -> str:
    c = chr(code)
    return c if c.isalnum() else "\\" + c if c in "\\]^-[" else re.escape(c)


def _class(items: list[Any]) -> str:
    """A character set as sorted ranges (`[0-9A-Za-z_]`)."""
    codes: set[int] = set()
    extra, negate = "", False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            codes.add(av)
        elif op is C.RANGE:
            codes.update(range(av[0], av[1] + 1))
        elif op is C.CATEGORY and av in _CATEGORIES:
            extra += _CATEGORIES[av]
        else:
            raise ValueError(f"unknown set item {op}")
    runs, out = sorted(codes), ""
    i = 0
    while i < len(runs):
        j = i
        while j + 1 < len(runs) and runs[j + 1] == runs[j] + 1:
            j += 1
        out += _char(runs[i]) + (("-" + _char(runs[j])) if j > i + 1 else
                                 (_char(runs[j]) if j == i + 1 else ""))
        i = j + 1
    return "[" + ("^" if negate else "") + out + extra + "]"


def shape(regex: str) -> str:
    """A token's format in this project's notation: the parsed pattern
    written out again (literals escaped, sets as sorted ranges, repeats as
    `{least,most}`, groups kept in their order, word boundaries left to the
    sampler's surroundings)."""
    parsed = P.parse(go_to_python(regex))
    flags = "(?i)" if parsed.state.flags & re.IGNORECASE else ""
    return flags + _shape(list(parsed))


def _shape(items: list[Any]) -> str:
    out = ""
    for op, av in items:
        if op is C.LITERAL:
            out += re.escape(chr(av))
        elif op is C.NOT_LITERAL:
            out += "[^" + _char(av) + "]"
        elif op is C.ANY:
            out += "."
        elif op is C.IN:
            out += _class(av)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            least, most, sub = av
            inner = list(sub)
            body = _shape(inner)
            one = len(inner) == 1 and (inner[0][0] in (
                C.LITERAL, C.IN, C.ANY, C.NOT_LITERAL, C.CATEGORY, C.BRANCH) or (
                inner[0][0] is C.SUBPATTERN and (inner[0][1][0] or inner[0][1][1])))
            body = body if one else f"(?:{body})"
            tail = "" if op is C.MAX_REPEAT else "?"
            count = (f"{{{least},}}" if most is C.MAXREPEAT else f"{{{least}}}"
                     if least == most else f"{{{least},{most}}}")
            out += body + count + tail
        elif op is C.SUBPATTERN:
            group, add, _, sub = av
            case = "(?i:" if add & re.IGNORECASE else ""
            body = _shape(list(sub))
            if not group and not case:
                out += body  # (a repeat groups what it repeats; a branch writes its own)
                continue
            out += ("(" + case + body + (")" if case else "") + ")" if group
                    else (case or "(?:") + body + ")")
        elif op is C.BRANCH:
            out += "(?:" + "|".join(_shape(list(b)) for b in av[1]) + ")"
        elif op is C.AT:
            out += {C.AT_BEGINNING: "^", C.AT_END: "$", C.AT_END_STRING: "\\Z",
                    C.AT_BEGINNING_STRING: "\\A", C.AT_BOUNDARY: "\\b",
                    C.AT_NON_BOUNDARY: "\\B"}[av]
        elif op is C.CATEGORY:
            out += _CATEGORIES[av]
        elif op is C.GROUPREF:
            out += f"\\{av}"
        else:
            raise ValueError(f"unknown item {op}")
    return out


def go_to_python(regex: str) -> str:
    """Go's RE2 syntax as Python's parser reads it."""
    regex = regex.replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    regex = regex.replace("[[:alpha:]]", "[A-Za-z]").replace(r"\z", r"\Z")
    return regex


def prefixes(parsed: Any) -> list[tuple[str, bool]]:
    """The literal heads every match begins with, each with whether the
    whole of `parsed` was read as literal on its way (then what follows
    adds to it)."""
    heads: list[tuple[str, bool]] = [("", True)]
    for op, av in parsed:
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        if op is C.LITERAL:
            item = [(chr(av), True)]
        elif op is C.SUBPATTERN:
            item = prefixes(av[3])
        elif op is C.BRANCH:
            item = [h for branch in av[1] for h in prefixes(branch)]
        elif op is C.IN and len(av) == 1 and av[0][0] is C.LITERAL:
            item = [(chr(av[0][1]), True)]
        else:
            item = [("", False)]
        heads = list(dict.fromkeys(
            [(h + t, more) for h, open_ in heads if open_ for t, more in item]
            + [(h, False) for h, open_ in heads if not open_]))
        if len(heads) > 64:  # a literal alternation of alternations: no shape
            return [("", False)]
    return heads


def literal_prefixes(regex: str) -> list[str] | None:
    """The prefixes of the regex, or None when one of them is too short."""
    try:
        parsed = P.parse(go_to_python(regex))
    except re.error:
        return None
    heads = sorted({h for h, _ in prefixes(parsed)})
    if not heads or any(len(h) < LEAST_PREFIX for h in heads):
        return None
    return heads


def detectors(show: Any, files: list[str]) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for path in files:
        src = show(path)
        kw = re.search(r"Keywords\(\) \[\]string \{\s*return \[\]string\{(.*?)\}", src, re.S)
        keywords = re.findall(r'"([^"]*)"', kw.group(1)) if kw else []
        for m in re.finditer(r"(\w+)\s*=\s*regexp\.MustCompile\((`[^`]*`|\"(?:[^\"\\]|\\.)*\")\)",
                             src):
            var, lit = m.group(1), m.group(2)
            if _NOT_SECRET.search(var):
                continue
            regex = lit[1:-1] if lit.startswith("`") else json.loads(lit)
            heads = literal_prefixes(regex)
            if heads is None:
                continue
            parts = path.split("/")
            name = "/".join(parts[2:-1])
            rules.append({"id": name, "var": var, "shape": shape(regex), "keywords": keywords,
                          "prefixes": heads})
    # One id each: a detector with two shapes (or two versions) numbers them.
    seen: dict[str, int] = {}
    for r in rules:
        n = seen[r["id"]] = seen.get(r["id"], 0) + 1
        if n > 1:
            r["id"] = f"{r['id']}#{n}"
        if r["id"] in SECRET_GROUP:
            r["secret_group"] = SECRET_GROUP[r["id"]]
    return [r for r in rules if r["id"] not in LEFT_OUT]


def main() -> int:
    repo = sys.argv[1]
    rev = sys.argv[2] if len(sys.argv) > 2 else "HEAD"

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", repo, *args], check=True,
                              capture_output=True, text=True).stdout

    commit = git("rev-parse", rev).strip()
    files = [f for f in git("ls-tree", "-r", "--name-only", rev, "pkg/detectors/").splitlines()
             if f.endswith(".go") and not f.endswith("_test.go") and f.count("/") >= 3]
    rules = detectors(lambda p: git("show", f"{rev}:{p}"), files)
    data = {
        "source": "https://github.com/trufflesecurity/trufflehog pkg/detectors/*/",
        "commit": commit,
        "note": "token formats (facts) read from trufflehog's detectors (AGPL-3.0), each "
                "written out in this project's notation by bench/trufflehog_data.shape",
        "left_out": LEFT_OUT,
        "rules": rules,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(rules)} shaped rules of {len(files)} files from {commit[:12]} -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
