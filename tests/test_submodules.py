"""`git submodule add` changes files: the path it adds the submodule at, and
`.gitmodules`, where git writes the submodule's entry (issue 29: 9e953218's
two `git submodule add` wrote `.gitmodules`, which its note never listed).

Generated command lines: the repository as an https URL, an scp-like ssh
one, or a local path, with or without `.git`; options before it (`-b main`,
`--name x`, `--depth 1`, `-f`); the path given or not; run in the session's
folder, after `cd sub &&`, or with `git -C sub`; succeeding, or failing with
git's own message. The oracle is git's documented behaviour: the path is the
one given, else the repository's name without `.git`, under the folder git
ran in, and `.gitmodules` is that folder's; nothing when git failed. Checked
in the note `vv backfill` writes for the first case, by rendering after."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

CWD = "/work/site"
names = st.sampled_from(["tokenizer", "lib-a", "vendor.x"])
urls = st.sampled_from(["https://github.com/o/{}.git", "https://github.com/o/{}",
                        "git@github.com:o/{}.git", "../{}"])
options = st.lists(st.sampled_from(["-b main", "--name x", "--depth 1", "-f"]), max_size=2,
                   unique=True)
paths = st.sampled_from(["", "public/tok", "vendor/lib/"])
places = st.sampled_from(["here", "cd", "-C"])


@settings(max_examples=examples(40, 200), deadline=None)
@given(name=names, url=urls, opts=options, path=paths, place=places, ok=st.booleans())
def test_a_submodule_added_changes_its_path_and_gitmodules(
        tmp_path_factory: object, name: str, url: str, opts: list[str], path: str, place: str,
        ok: bool) -> None:
    repository = url.format(name)
    git = "git -C sub" if place == "-C" else "git"
    command = f"{git} submodule add {' '.join(opts)} {repository} {path}".replace("  ", " ")
    if place == "cd":
        command = "cd sub && " + command
    folder = CWD + ("/sub" if place != "here" else "")
    added = f"{folder}/{path.rstrip('/') or name}"
    t = Transcript(cwd=CWD)
    t.prompt("add the submodule")
    if ok:
        t.bash(command.strip(), f"Cloning into '{added}'...\n")
    else:
        t.call("Bash", {"command": command.strip()}, None,
               f"Exit code 128\nfatal: repository '{repository}' does not exist", error=True)
    t.say("Done.")
    note = t.note(tmp_path_factory, "submodules")  # the first case through vv itself
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Files changed\n" in note else ""
    rows = {line.split("`")[1]: line for line in table.splitlines() if line.startswith("| `")}

    def shown(p: str) -> str:
        return p.removeprefix(CWD + "/")

    if ok:
        assert "added as a submodule" in rows.get(shown(added), ""), (command, rows)
        assert shown(f"{folder}/.gitmodules") in rows, (command, rows)
        assert len(rows) == 2, rows
    else:
        assert rows == {}, (command, rows)
