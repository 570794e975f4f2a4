"""How well `vv search` finds a session from words in it.

    python bench/search_quality.py              # every corpus session, seed 1
    python bench/search_quality.py --per 20     # more phrases a session

Phrases are sampled (seeded) from anywhere in every corpus session's prompts
and answers, read from the JSON here (not from vv): 2-4 words in a row that
occur in that session and in no other corpus file. Beside them, sessions in
other scripts are generated (Latin with accents, German, Greek, Cyrillic,
Japanese, Chinese, Korean, full-width, ligatures) and phrases taken from them
the same way, typed as a person would (no accents, another case, ASCII for
full-width, any 2+ characters of a Chinese or Japanese sentence).

Beside them, the queries people typed to find a corpus session in the outside
reviews (bench/data/asked_queries.txt: the session and the words), source
"asked".

Each phrase is searched as plain words (no quotes), as a person types it, with
`vv search --json --limit 10`; reported: the share found first and the mean
reciprocal rank (1/rank in the first 10, else 0), overall and by source.
Goal: >= 95% first, MRR >= 0.97.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import CORPUS, PY, env_for, vv

WORD = re.compile(r"[^\W_]+")
SPACELESS = ("japanese", "chinese")


def user_texts(entry: dict[str, Any]) -> list[str]:
    """What a person typed in a user entry (not tool results, not Claude Code's own)."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return []
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return []
        texts = [b.get("text", "") for b in content if isinstance(b, dict)
                 and b.get("type") == "text"]
    else:
        return []
    return [t for t in texts if t.strip() and not t.lstrip().startswith("<")]


def assistant_texts(entry: dict[str, Any]) -> list[str]:
    if entry.get("type") != "assistant":
        return []
    content = (entry.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]


def entries(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict):
            out.append(d)
    return out


def session_id(path: Path, rows: list[dict[str, Any]]) -> str:
    for d in rows:
        if isinstance(d.get("sessionId"), str):
            return str(d["sessionId"])
    return path.stem


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


class Phrase:
    __slots__ = ("sid", "source", "typed")

    def __init__(self, sid: str, source: str, typed: str) -> None:
        self.sid = sid
        self.source = source
        self.typed = typed


def corpus_phrases(rng: random.Random, per: int) -> tuple[list[Phrase], int]:
    """Phrases unique to each corpus session (main transcripts with an answer);
    and how many sessions there are."""
    mains = [p for p in sorted(CORPUS.rglob("*.jsonl"))
             if p.parent.name != "subagents" and not p.name.startswith("agent-")]
    # every corpus file's words, for "in no other session"
    every = {p: " " + " ".join(words(p.read_text(encoding="utf-8", errors="replace"))) + " "
             for p in sorted(CORPUS.rglob("*.jsonl"))}
    out: list[Phrase] = []
    sessions = 0
    for main in mains:
        rows = entries(main)
        sid = session_id(main, rows)
        own = {p for p in every if p == main or sid in p.as_posix() or main.stem in p.as_posix()}
        sources = {"prompt": [w for d in rows if not d.get("isSidechain")
                              for t in user_texts(d) for w in [words(t)] if w],
                   "answer": [w for d in rows if not d.get("isSidechain")
                              for t in assistant_texts(d) for w in [words(t)] if w]}
        if not sources["answer"]:
            continue
        sessions += 1
        for source, texts in sources.items():
            found = 0
            for _ in range(per * 40):
                if found >= per or not texts:
                    break
                text = rng.choice(texts)
                n = rng.randint(2, 4)
                if len(text) < n:
                    continue
                at = rng.randrange(len(text) - n + 1)
                phrase = text[at:at + n]
                if sum(len(w) for w in phrase) < 4 * n // 2 + 2:
                    continue  # "a b", "of the": too little to tell a session by
                needle = " " + " ".join(phrase) + " "
                if any(needle in data for p, data in every.items() if p not in own):
                    continue
                out.append(Phrase(sid, f"corpus {source}", " ".join(phrase)))
                found += 1
    return out, sessions


# -- other scripts ------------------------------------------------------------------------

def _chars(a: int, b: int) -> str:
    return "".join(chr(c) for c in range(a, b))


ALPHABETS = {
    "latin": "abcdefghijklmnoprstuvéèêàâçîôùûüñ",
    "german": "abcdefghiklmnoprstuwzäöüß",
    "greek": "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώ",
    "cyrillic": "абвгдежзийклмнопрстуфхцчшщыьэюяё",
    "japanese": _chars(0x3041, 0x3097) + _chars(0x30A1, 0x30FB) + _chars(0x4E00, 0x4E00 + 400),
    "chinese": _chars(0x4E00, 0x4E00 + 3000),
    "korean": _chars(0xAC00, 0xAC00 + 2000),
    "full-width": "abcdefghijklmnopqrstuvwxyz",
    "ligature": "abcdeghijklmnopqrstuvwxyz",
}


def _strip(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def script_text(rng: random.Random, script: str, n: int) -> list[str]:
    """n words (or, for Chinese and Japanese, n runs of characters) of a script."""
    alphabet = ALPHABETS[script]
    out = []
    for _ in range(n):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 9)))
        if script == "ligature" and rng.random() < 0.5:
            word = word[:2] + rng.choice("ﬁﬂ") + word[2:]
        if script == "german" and "ß" not in word and rng.random() < 0.5:
            word = word[:2] + "ß" + word[2:]
        out.append(_full_width(word) if script == "full-width" else word)
    return out


def typed_as(rng: random.Random, script: str, text: str) -> str:
    """How a person would type the words of `text`."""
    if script in ("latin", "greek"):
        return rng.choice([_strip(text), text, text.upper(), _strip(text).upper()])
    if script == "german":
        return rng.choice([text.replace("ß", "ss"), text, text.upper(),
                           _strip(text).replace("ß", "ss")])
    if script == "cyrillic":
        return rng.choice([text, text.upper(), text.capitalize()])
    if script == "full-width":
        return unicodedata.normalize("NFKC", text)
    if script == "ligature":
        return unicodedata.normalize("NFKC", text)
    return text


def transcript(sid: str, prompt: str, answer: str, day: int) -> str:
    def entry(i: int, **fields: Any) -> dict[str, Any]:
        return {"uuid": str(uuid.UUID(int=int(sid.replace("-", ""), 16) + i)),
                "parentUuid": None, "sessionId": sid, "version": "2.1.99",
                "timestamp": f"2026-02-{day:02d}T10:00:{i:02d}Z", "cwd": "/home/u/scripts"}

    lines = [
        {**entry(0), "type": "user", "message": {"role": "user", "content": prompt}},
        {**entry(1), "type": "assistant", "message": {
            "id": f"msg_{sid[:8]}", "model": "claude-opus-4-5", "role": "assistant",
            "content": [{"type": "text", "text": answer}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}},
    ]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def script_sessions(rng: random.Random, home: Path, sessions: int,
                    per: int) -> list[Phrase]:
    """Sessions in each script written into the home; phrases found in one only."""
    slug = home / "projects" / "-home-u-scripts"
    slug.mkdir(parents=True, exist_ok=True)
    out: list[Phrase] = []
    for script in ALPHABETS:
        made: list[tuple[str, list[str], list[str]]] = []
        for k in range(sessions):
            sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            prompt, answer = script_text(rng, script, 12), script_text(rng, script, 30)
            glue = "" if script in SPACELESS else " "
            (slug / f"{sid}.jsonl").write_text(
                transcript(sid, glue.join(prompt), glue.join(answer), 1 + k % 27),
                encoding="utf-8")
            made.append((sid, prompt, answer))
        texts = {sid: ("" if script in SPACELESS else " ").join([*p, "|", *a])
                 for sid, p, a in made}
        for sid, prompt, answer in made:
            for part in rng.sample([prompt, answer] * per, per):
                if script in SPACELESS:
                    run = "".join(part)
                    at = rng.randrange(len(run) - 2)
                    phrase = run[at:at + rng.randint(2, 6)]
                    if len(phrase) < 2:
                        continue
                    typed = phrase
                else:
                    n = rng.randint(2, 4)
                    at = rng.randrange(len(part) - n + 1)
                    phrase = " ".join(part[at:at + n])
                    typed = typed_as(rng, script, phrase)
                if any(phrase in text for other, text in texts.items() if other != sid):
                    continue
                out.append(Phrase(sid, script, typed))
    return out


ASKED = Path(__file__).resolve().parent / "data" / "asked_queries.txt"


def asked_queries() -> list[Phrase]:
    """The queries people typed in the reviews, each with the session it was
    to find (the first 8 characters of its id)."""
    out = []
    for line in ASKED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            sid, _, typed = line.partition("|")
            out.append(Phrase(sid.strip(), "asked", typed.strip()))
    return out


# -- measuring ------------------------------------------------------------------------------

def rank_of(env: dict[str, str], phrase: Phrase) -> tuple[int, float]:
    """The found session's place (1 = first; 0 = not in the first 10), and the time."""
    began = time.perf_counter()
    r = subprocess.run(vv("search", "--json", "--limit", "10", "--", *phrase.typed.split()),
                       env=env, capture_output=True, check=False)
    took = time.perf_counter() - began
    if r.returncode != 0:
        raise SystemExit(f"vv search failed on {phrase.typed!r}: {r.stderr.decode()}")
    ids = [h["session_id"] for h in json.loads(r.stdout)]
    # (an asked query's session is named by its id's first characters)
    places = [k for k, sid in enumerate(ids, 1) if sid.startswith(phrase.sid)]
    return (places[0] if places else 0), took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per", type=int, default=10,
                        help="phrases sampled from each session's prompts, and from its answers")
    parser.add_argument("--script-sessions", type=int, default=12,
                        help="sessions generated in each script")
    parser.add_argument("--misses", action="store_true", help="list every phrase not found first")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="vv-quality-"))
    try:
        env = env_for(work)
        phrases, sessions = corpus_phrases(rng, args.per)
        phrases += script_sessions(rng, work / "claude", args.script_sessions, args.per // 2)
        phrases += asked_queries()
        began = time.perf_counter()
        for source in (str(CORPUS), ""):
            r = subprocess.run(vv("backfill", *[s for s in [source] if s]), env=env,
                               capture_output=True, check=False)
            if r.returncode != 0:
                raise SystemExit(f"backfill failed: {r.stderr.decode()}")
        built = time.perf_counter() - began
        subprocess.run(vv("search", "anything"), env=env, capture_output=True, check=False)
        by: dict[str, list[int]] = {}
        misses: list[tuple[Phrase, int]] = []
        times: list[float] = []
        floors: list[float] = []  # taken between the queries: the load moves
        for i, phrase in enumerate(phrases):
            if i % 8 == 0:
                floors.append(_timed([PY, "-c", "import sqlite3"], env))
            rank, took = rank_of(env, phrase)
            times.append(took)
            by.setdefault(phrase.source, []).append(rank)
            if rank != 1:
                misses.append((phrase, rank))
        load = os.getloadavg()[0]
        floor = statistics.median(floors)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def line(name: str, ranks: list[int]) -> str:
        first = sum(r == 1 for r in ranks) / len(ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        return f"{name:<18} {len(ranks):>6}  {first:>7.1%}  {mrr:>6.3f}"

    every = [r for ranks in by.values() for r in ranks]
    print(f"search quality: {sessions} corpus sessions + {args.script_sessions} generated "
          f"in each of {len(ALPHABETS)} scripts, seed {args.seed}, home built in {built:.1f} s, "
          f"load {load:.1f}")
    print(f"{'source':<18} {'phrases':>6}  {'first':>7}  {'MRR':>6}")
    for name in sorted(by):
        print(line(name, by[name]))
    print(line("all", every))
    print(f"query median {statistics.median(times) * 1e3:.1f} ms "
          f"({statistics.median(times) / floor:.2f}x python -c 'import sqlite3', "
          f"{floor * 1e3:.1f} ms; a home of {sessions + len(ALPHABETS) * args.script_sessions} "
          "sessions: bench/scale.py measures 10,000)")
    print("goal: >= 95% first, MRR >= 0.97")
    if args.misses:
        for phrase, rank in misses:
            print(f"  {phrase.source:<16} rank {rank or '>10'}: {phrase.typed}")
    return 0


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, check=False)
    return time.perf_counter() - began


if __name__ == "__main__":
    raise SystemExit(main())
