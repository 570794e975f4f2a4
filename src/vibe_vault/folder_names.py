"""Claude Code's folder for a working directory (`~/.claude/projects/<name>/`),
and that name as vv may show or keep it."""

from __future__ import annotations

FOLDER_NAME_MAX = 200


def project_folder_name(cwd: str) -> str:
    """Claude Code's folder for a working directory: every UTF-16 code unit
    outside [A-Za-z0-9] becomes `-`; a longer name than 200 is cut there and
    given `-` and the base-36 absolute Java string hash of the cwd."""
    units = cwd.encode("utf-16-le", "surrogatepass")
    codes = [int.from_bytes(units[i:i + 2], "little") for i in range(0, len(units), 2)]
    name = "".join(chr(c) if c < 128 and chr(c).isalnum() else "-" for c in codes)
    if len(name) <= FOLDER_NAME_MAX:
        return name
    h = 0
    for c in codes:
        h = (h * 31 + c) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    return f"{name[:FOLDER_NAME_MAX]}-{_base36(abs(h))}"


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def shown_folder(name: str, shown_cwd: str) -> str:
    """A folder name made from a working directory, with what the gate hid
    in that directory (`shown_cwd`: the directory through the gate) hidden
    here too. The name spells each character of the directory as itself or
    `-` (`ghp_x…` is `ghp-x…`, which no rule knows as a token), so the part
    where it differs from the shown directory's name is the part hidden."""
    if not shown_cwd:
        return name
    shown = project_folder_name(shown_cwd)
    if shown == name:
        return name
    start = 0
    while start < min(len(name), len(shown)) and name[start] == shown[start]:
        start += 1
    end = 0
    while (end < min(len(name), len(shown)) - start
           and name[len(name) - 1 - end] == shown[len(shown) - 1 - end]):
        end += 1
    return name[:start] + "[REDACTED:folder]" + name[len(name) - end:]
