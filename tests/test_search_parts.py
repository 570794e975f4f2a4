"""Which part of a session a hit says it matched is where the word is.

Sessions are generated with a word of their own in exactly one place of the
transcript (a later prompt, an answer, a commit's subject as git printed it, a
file's path, a web search, a command, the user's own `!` command, an error, a
todo, a recap, the summary Claude Code wrote when it compacted the
conversation, the model, a subagent's instructions, description, report or own
conversation, the title the user gave); `vv search --json WORD` must find that session alone and say
the part the generator put the word in (the oracle is where it was put, not
vv's code), and the text output must say it too (`part: …`).
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, in_process

FILLER = ["we", "looked", "at", "module", "changed", "how", "parts", "fit", "together",
          "each", "piece", "read", "once", "then", "checked", "again"]

# (the part `vv search` must name, where the generator puts the word)
PLACES: list[tuple[str, str]] = [
    ("title", "custom-title"),
    ("prompt", "later prompt"),
    ("prompt", "queued prompt"),
    ("answer", "answer text"),
    ("commit", "commit subject"),
    ("file", "written file"),
    ("action", "web search"),
    ("action", "command description"),
    ("command", "command"),
    ("command", "user's shell command"),
    ("compaction", "compaction summary"),
    ("error", "error output"),
    ("todo", "todo"),
    ("recap", "away summary"),
    ("model", "model"),
    ("subagent", "task prompt"),
    ("subagent", "task description"),
    ("subagent", "task report"),
    ("subagent", "subagent's prompt"),
    ("subagent", "subagent's answer"),
]

# A word of each script the words are drawn in (what follows "zq", so no
# filler word or other generated text holds it).
SCRIPTS = {"latin": "abcdefghijklmnopqrstuvwxyz", "accented": "éèàçîôüñ",
           "greek": "αβγδεζηθικλμνξοπρστυφχψω", "cyrillic": "абвгдежзийклмнопрстуфхцчшщ"}


def session(sid: str, place: str, word: str, rng: random.Random) -> tuple[
        list[dict[str, Any]], list[dict[str, Any]]]:
    """A session's main file and its subagent's file, `word` in `place` only."""
    n = iter(range(1000))

    def say(count: int, here: str = "") -> str:
        words = [rng.choice(FILLER) for _ in range(count)]
        if here == place:
            words.insert(rng.randint(0, len(words)), word)
        return " ".join(words)

    def entry(kind: str, **fields: Any) -> dict[str, Any]:
        i = next(n)
        return {"type": kind, "uuid": f"{sid[:8]}-u{i}", "parentUuid": None,
                "sessionId": sid, "cwd": "/home/u/proj", "version": "2.1.99",
                "timestamp": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", **fields}

    model = "claude-sonnet-4-6" if place != "model" else f"claude-{word}-4"

    def assistant(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return entry("assistant", message={
            "id": f"msg_{next(n)}", "model": model, "role": "assistant",
            "content": list(blocks), "usage": {"input_tokens": 1, "output_tokens": 1}},
            **extra)

    def result(tid: str, content: str, error: bool = False, **extra: Any) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
        if error:
            block["is_error"] = True
        return entry("user", message={"role": "user", "content": [block]}, **extra)

    def call(tid: str, name: str, **inp: Any) -> dict[str, Any]:
        return assistant({"type": "tool_use", "id": tid, "name": name, "input": inp})

    def text(words: str) -> dict[str, Any]:
        return {"type": "text", "text": words}

    path = "/home/u/proj/src/" + (word if place == "written file" else "piece") + ".py"
    subject = say(4, "commit subject")
    main = [
        entry("user", message={"role": "user", "content": say(6)}),
        assistant(text(say(12))),
        entry("user", message={"role": "user", "content": say(8, "later prompt")}),
        {"type": "queue-operation", "operation": "enqueue", "content": say(5, "queued prompt"),
         "timestamp": "2026-01-01T00:00:30Z", "sessionId": sid},
        {"type": "queue-operation", "operation": "remove",
         "timestamp": "2026-01-01T00:00:31Z", "sessionId": sid},
        assistant(text(say(15, "answer text"))),
        call("t1", "Bash", command="grep -rn " + say(1, "command") + " src",
             description=say(4, "command description")),
        result("t1", "src/a.py:1: x", toolUseResult={"stdout": "src/a.py:1: x", "stderr": ""}),
        call("t2", "Write", file_path=path, content="x = 1\n"),
        result("t2", "File created successfully at: " + path),
        call("t3", "Bash", command="git commit -q -F /tmp/message.txt"),
        result("t3", f"[main 1a2b3c4] {subject}\n 1 file changed, 1 insertion(+)",
               toolUseResult={"stdout": f"[main 1a2b3c4] {subject}\n 1 file changed, "
                                        "1 insertion(+)", "stderr": ""}),
        call("t4", "Bash", command="false"),
        result("t4", "Exit code 1\n" + say(5, "error output"), error=True),
        call("t5", "TodoWrite", todos=[{"content": say(4, "todo"), "status": "pending",
                                        "activeForm": "working"}]),
        result("t5", "Todos have been modified successfully"),
        call("t6", "WebSearch", query=say(3, "web search")),
        result("t6", "no results"),
        call("t7", "Task", description=say(3, "task description"),
             subagent_type="general-purpose", prompt=say(10, "task prompt")),
        result("t7", say(10, "task report"),
               toolUseResult={"agentId": "a1", "status": "completed"}),
        assistant(text(say(10))),
        entry("system", subtype="away_summary", content=say(8, "away summary")),
        # the user's own `!` command, and what it printed
        entry("user", message={"role": "user", "content":
                               "<bash-input>git log " + say(2, "user's shell command")
                               + "</bash-input>"}),
        entry("user", message={"role": "user", "content":
                               "<bash-stdout>1a2b3c4 x</bash-stdout><bash-stderr></bash-stderr>"}),
        # /compact: Claude Code's boundary, then its summary of the conversation
        entry("system", subtype="compact_boundary", content="Conversation compacted",
              compactMetadata={"trigger": "manual", "preTokens": 1000}),
        entry("user", isCompactSummary=True, message={
            "role": "user", "content": "This session is being continued from a previous "
            "conversation. Summary: " + say(12, "compaction summary")}),
        entry("user", message={"role": "user", "content": say(5)}),
        assistant(text(say(6))),
    ]
    # Every session is given a title (/rename), so no other part titles it (a
    # recap would, else): the word is in its title only where it is put there.
    main.append({"type": "custom-title", "customTitle": say(3, "custom-title"),
                 "sessionId": sid})
    agent = [
        entry("user", message={"role": "user", "content": say(8, "subagent's prompt")},
              isSidechain=True, agentId="a1"),
        assistant(text(say(12, "subagent's answer")), isSidechain=True, agentId="a1"),
    ]
    return main, agent


# (no shrinking: a seed and a script are all a case is)
@settings(max_examples=3, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_a_hit_says_the_part_its_word_is_in(tmp_path_factory: Any,
                                            data: st.DataObject) -> None:
    env = Env(tmp_path_factory.mktemp("parts"))
    env.here = in_process("search parts")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    script = data.draw(st.sampled_from(sorted(SCRIPTS)), label="script")
    slug = env.claude / "projects" / "-home-u-proj"
    planted: dict[str, tuple[str, str, str]] = {}  # word: (session, part, place)
    for i, (part, place) in enumerate(PLACES):
        word = "zq" + "".join(rng.choice(SCRIPTS[script]) for _ in range(8))
        sid = str(uuid.UUID(int=i + 1, version=4))
        main, agent = session(sid, place, word, rng)
        sub = slug / sid / "subagents"
        sub.mkdir(parents=True)
        (slug / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in main))
        (sub / "agent-a1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in agent))
        (sub / "agent-a1.meta.json").write_text(json.dumps(
            {"agentType": "general-purpose", "description": "look around"}))
        planted[word] = (sid, part, place)
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()
    wrong = []
    for word, (sid, part, place) in planted.items():
        r = env.vv("search", "--json", word)
        assert r.returncode == 0, r.stderr.decode()
        hits = json.loads(r.stdout)
        got = [(h["session_id"], h["matched"]) for h in hits]
        if got != [(sid, part)] or f"**{word}**" not in hits[0]["snippet"]:
            wrong.append((place, part, got, [h["snippet"] for h in hits]))
            continue
        r = env.vv("search", word)
        if f"  {part}: " not in r.stdout.decode():
            wrong.append((place, part, r.stdout.decode()))
    assert not wrong, "\n".join(map(repr, wrong))
