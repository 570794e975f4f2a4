"""Secrets an attacker found passing the gate (attack 24, W30-W69), by class:
a password or key given to a tool by its flag (`ipmitool -P X`, `snmpwalk
-c X`, `rar a -pX`), by its place (`nuget setapikey X`, `expdp user/X@db`),
written to a file named for one (`echo X > ~/.vault-token`), sent in a
here-string to a command that reads one (`sudo -S … <<< X`), given to a
template's password filter; and the secret a command prints (`argocd admin
initial-password`, `wg genkey`, `etcdctl get …/password`) or a tool prints
under its label (`New value:`, `Key Content :`, Subversion's auth file, a
form's password part, `terraform output -json`'s sensitive value).

Generated: each class's tools and spellings x values drawn at random in the
characters their quoting lets through x surroundings x the places a
transcript holds text (a prompt, an answer, a command, its output, a failing
command's error, a `!` command's output). Oracle: no run of 6 characters of
the value (which the test drew) is in what the gate returns, nor in the note
or the state folded from the session; end to end through `vv` as a
subprocess, nowhere under the vault, the state or the terminal. Look-alikes
(variables, prompts, the default SNMP community, masks tools print in a
value's place, file paths, ids of words and a year, prose) are left whole.
"""

from __future__ import annotations

import random
import string
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_shell_secrets as shell
from conftest import Env, examples
from test_secret_forms_more import CONTROL, leaked
from test_secret_forms_output import _entries, _fold
from vibe_vault.redact import DEFAULT

_ALNUM = string.ascii_letters + string.digits
# What a value may hold, by how it is written: bare, in '…', in "…".
_BARE = _ALNUM + "!%+-./:=@^_~,"
_IN_SINGLE = _BARE + "#$&*?|;()<>[]{}\" "
_IN_DOUBLE = _BARE + "#&*?|;()<>[]{}' "
Case = tuple[str, str]


@st.composite
def value(draw: st.DrawFn, alphabet: str = _BARE) -> str:
    """A password or key as one is made: 14 to 40 characters drawn at random
    (a seed hypothesis draws), a capital, a small letter and a digit in it,
    beginning with a letter or digit (a value beginning `-` is an option; a
    bare `name=value` is an argument the command reads, not a secret)."""
    rng = random.Random(draw(st.integers(0, 2**64)))
    n = draw(st.integers(14, 40))
    while True:
        v = rng.choice(_ALNUM) + "".join(rng.choice(alphabet) for _ in range(n - 1))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) \
                and any(c.islower() for c in v) \
                and not ("=" in v and v.split("=")[0].replace("_", "").isalpha()):
            return v


def quoted(draw: st.DrawFn, alphabet: str = _BARE, quotes: str = "bsd") -> tuple[str, str]:
    """(the value as written, the value)."""
    how = draw(st.sampled_from(quotes))
    if how == "s":
        v = draw(value(_IN_SINGLE))
        return f"'{v}'", v
    if how == "d":
        v = draw(value(_IN_DOUBLE))
        return f'"{v}"', v
    v = draw(value(alphabet))
    return v, v


# -- command lines ---------------------------------------------------------------------------

# A tool and its password's or key's flag: (the command before the value, after it).
TOOL_FLAGS = (
    ("ipmitool -I lanplus -H 10.0.0.50 -U ADMIN -P ", " power status"),
    ("ipmitool -H bmc01 -U root -P ", " chassis power cycle"),
    ("racadm -r 10.0.0.51 -u root -p ", " getsysinfo"),
    ("cqlsh cass.corp.io -u cassandra -p ", ""),
    ("cqlsh --username app --password ", " db01 9042"),
    ("mosquitto_pub -h mqtt.corp.io -u bob -P ", " -t sensors/1 -m 42"),
    ("mosquitto_sub -h mqtt -p 8883 -u bob -P ", " -t '#'"),
    ("vsce publish -p ", ""), ("npx vsce publish --pat ", " --packagePath a.vsix"),
    ("xcrun altool --upload-app -f app.ipa -u bob@corp.io -p ", ""),
    ("xcrun notarytool submit a.zip --apple-id bob@corp.io --password ", " --wait"),
    ("doctl auth init -t ", ""), ("doctl auth init --access-token ", " --context work"),
    ("dotnet nuget push app.1.0.0.nupkg -k ", " -s https://api.nuget.org/v3/index.json"),
    ("nuget push a.nupkg -ApiKey ", " -Source nuget.org"),
    ("choco apikey -k ", " -s https://push.chocolatey.org/"),
    ("choco push a.nupkg --api-key ", ""),
    ("snmpwalk -v2c -c ", " 10.0.0.1 system"), ("snmpget -v1 -c ", " router1 sysName.0"),
    ("snmpwalk -v3 -l authPriv -u monitor -a SHA -A ", " -x AES 10.0.0.1"),
    ("schtasks /create /tn Backup /tr backup.bat /sc daily /ru CORP\\svc /rp ", ""),
    ("az keyvault secret set --vault-name corp-kv --name db-password --value ", ""),
    ("rar a -p", " backup.rar data/"), ("unrar x -p", " backup.rar"),
    ("ansible-vault encrypt_string ", " --name db_password"),
    ("ansible-vault encrypt_string --vault-id prod@prompt ", " --name api_token"),
    ("netlify env:set STRIPE_SECRET ", ""), ("netlify env:set API_TOKEN ", " --context production"),
    ("nuget setapikey ", " -Source https://api.nuget.org/v3/index.json"),
    ("pulumi config set --secret dbPassword ", ""), ("pulumi config set apiKey ", " --secret"),
    ("gh auth login --with-token <<< ", ""), ("sudo -S systemctl restart nginx <<< ", ""),
    ("gpg --batch --passphrase-fd 0 -d secrets.gpg <<< ", ""), ("read -rs DB_PASS <<< ", ""),
    ("docker login -u bob --password-stdin ghcr.io <<< ", ""),
    ("echo ", " > ~/.vault-token"), ("printf '%s' ", " > /run/secrets/db_password"),
    ("echo -n ", " >> ~/.config/app/api_token"),
)
# Tools given a token or an API key (letters, digits, `-`, `_`), not a password.
_KEYS = ("vsce", "doctl", "nuget", "choco", "netlify")
_KEY = _ALNUM + "-_"
# A value that cannot be written glued or after `/`: bare, no `@` or `/`.
_ORACLE_TOOLS = ("expdp system/{v}@ORCL schemas=APP directory=DP dumpfile=app.dmp",
                 "impdp app/{v}@prod dumpfile=a.dmp", "sqlldr userid=scott/{v} control=l.ctl",
                 "rman target sys/{v}@prod", "exp scott/{v}@orcl file=a.dmp")


@st.composite
def command_line(draw: st.DrawFn) -> Case:
    prompt = draw(st.sampled_from(["", "$ ", "sudo ", "cd /srv && ", "  "]))
    after = draw(st.sampled_from(["", " && echo done", "\nthen check it"]))
    kind = draw(st.sampled_from(["flag", "oracle", "snmp3", "jinja", "acl", "curl"]))
    if kind == "flag":
        before, tail = draw(st.sampled_from(TOOL_FLAGS))
        glued = before.endswith("-p")
        if any(tool in before for tool in _KEYS):  # (a token: no space or symbol in it)
            v = draw(value(_KEY))
            return prompt + before + draw(st.sampled_from(["{}", "'{}'", '"{}"'])).format(
                v) + tail + after, v
        written, v = quoted(draw, quotes="b" if glued else "bsd")
        return prompt + before + written + tail + after, v
    if kind == "oracle":
        v = draw(value(_BARE.replace("@", "").replace("/", "")))
        return prompt + draw(st.sampled_from(_ORACLE_TOOLS)).replace("{v}", v) + after, v
    if kind == "snmp3":  # two pass phrases: the second is hidden too
        a, v = draw(value()), draw(value())
        return (prompt + f"snmpwalk -v3 -l authPriv -u m -a SHA -A {a} -x AES -X {v} 10.0.0.1"
                + after, v)
    if kind == "jinja":
        v = draw(value(_BARE.replace("'", "")))
        return (prompt + "ansible all -m user -a \"name=bob password={{ '" + v
                + "' | password_hash('sha512') }}\"" + after, v)
    if kind == "acl":
        v = draw(value())
        return prompt + f"redis-cli ACL SETUSER app on >{v} ~* +@all" + after, v
    v = draw(value(_BARE.replace(":", "")))
    cert = draw(st.sampled_from(["client.pem", "./certs/me.p12", "/etc/ssl/c.crt"]))
    return prompt + f"curl {draw(st.sampled_from(['-E', '--cert']))} {cert}:{v} https://x" + after, v


# -- what a command or a tool printed --------------------------------------------------------

_PRINTERS = (
    "argocd admin initial-password -n argocd", "wg genkey | tee privatekey", "wg genpsk",
    "cat /var/jenkins_home/secrets/initialAdminPassword", "cat ~/.vault-token",
    "cat /run/secrets/db_password", "pulumi config get dbPassword",
    "pulumi config get --stack prod apiToken", "terraform output -raw db_password",
    "tofu output -raw admin_token", "secret-tool lookup service corp-db user app",
)
# Commands that print a line, then the secret.
_PRINTERS_SECOND = ("etcdctl get /app/db/password", "etcdctl --endpoints=e:2379 get /svc/api_token",
                    "cat /etc/openvpn/auth.txt", "cat ~/vpn/credentials.txt")


@st.composite
def output(draw: st.DrawFn) -> Case:
    v = draw(value(_ALNUM + "+/=_-.!@#%^*"))
    prompt = draw(st.sampled_from(["$ ", "% ", "dev@box:~$ ", "❯ "]))
    after = draw(st.sampled_from(["", "\n", f"\n{prompt}ls", "\n\n This password is shown once."]))
    kind = draw(st.sampled_from(["printer", "second", "elastic", "netsh", "svn", "form", "tf"]))
    if kind == "printer":
        return prompt + draw(st.sampled_from(_PRINTERS)) + "\n" + v + after, v
    if kind == "second":
        command = draw(st.sampled_from(_PRINTERS_SECOND))
        first = command.split()[-1] if "etcdctl" in command else "bob"
        return prompt + command + "\n" + first + "\n" + v + after, v
    if kind == "elastic":
        user = draw(st.sampled_from(["elastic", "kibana_system", "logstash_system"]))
        return (f"{prompt}bin/elasticsearch-reset-password -u {user}\n"
                f"Password for the [{user}] user successfully reset.\nNew value: {v}{after}", v)
    if kind == "netsh":
        wifi = draw(value(_ALNUM + " !#%+-_."))
        return ("Profile HomeWiFi on interface Wi-Fi:\n    Authentication         : WPA2-Personal\n"
                f"    Key Content            : {wifi}\n    Cost                   : Unrestricted",
                wifi.strip())
    if kind == "svn":
        return f"K 8\npassword\nV {len(v)}\n{v}\nK 8\nusername\nV 3\nbob\nEND", v
    if kind == "form":
        name = draw(st.sampled_from(["password", "api_key", "user[password]", "token"]))
        nl = draw(st.sampled_from(["\n", "\r\n"]))
        return (nl.join(["------WebKitFormBoundary7MA",
                         f'Content-Disposition: form-data; name="{name}"', "", v,
                         "------WebKitFormBoundary7MA--"]), v)
    js = v.replace("\\", "").replace('"', "")
    sep = draw(st.sampled_from(["", " ", "\n  "]))
    return ("{" + sep + '"db_password":{' + sep + '"sensitive":' + sep + "true," + sep
            + '"type":"string",' + sep + '"value":"' + js + '"},"endpoint":{"sensitive":false,'
            '"type":"string","value":"db.corp.io"}}', js)


def _pieces_hidden(text: str, v: str) -> None:
    out, n = DEFAULT.redact(text)
    control = DEFAULT.redact(text.replace(v, CONTROL))[0]
    assert n >= 1, (text, out)
    assert not leaked(out, control, v), (text, out)


@settings(max_examples=examples(300, 3000), deadline=None)
@given(st.one_of(command_line(), output()))
def test_the_gate_leaves_no_run_of_six_of_the_value(case: Case) -> None:
    _pieces_hidden(*case)


PLACES = st.lists(st.sampled_from(["prompt", "answer", "command", "output", "error", "bang"]),
                  min_size=1, max_size=3, unique=True)


@settings(max_examples=examples(40, 400), deadline=None)
@given(st.one_of(command_line(), output()), PLACES)
def test_folded_the_value_is_in_no_note_or_state(case: Case, places: list[str]) -> None:
    text, v = case
    note, state = _fold(text, places)
    control_note, control_state = _fold(text.replace(v, CONTROL), places)
    assert not leaked(note, control_note, v), (text, places)
    assert not leaked(state, control_state, v), (text, places)


# -- what is left whole ----------------------------------------------------------------------

_MASKS = ("(sensitive value)", "(sensitive)", "(known after apply)", "[FILTERED]", "<hidden>",
          "********", "(hidden)", "[REDACTED]", "<sensitive>")


@st.composite
def look_alike(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["password", "db_password", "api_token", "secret", "api_key",
                                 "admin_password", "client_secret"]))
    var = draw(st.sampled_from(["$PW", '"$IPMI_PW"', "${TOKEN}", "$env:KEY"]))
    kind = draw(st.sampled_from(["mask", "variable", "path", "id", "prose", "output", "default",
                                 "template"]))
    if kind == "template":  # a template's variable, filters after it or not (Jinja, Helm, Go)
        ref = draw(st.sampled_from(["user_password", ".Values.db.password", "$.Values.pw",
                                    "vault_db_password", "item.password", "secrets['api']"]))
        filters = draw(st.sampled_from(["", " | quote", " | password_hash('sha512')",
                                        " | b64enc", " | default('')"]))
        dash = draw(st.sampled_from(["", "-"]))
        sep = draw(st.sampled_from([": ", "=", " = "]))
        quote = draw(st.sampled_from(['"', "'", ""]))
        inner = "{{" + dash + " " + ref + filters + " " + dash + "}}"
        if quote and quote in inner:
            quote = '"' if quote == "'" else "'"
        return name + sep + quote + inner + quote
    if kind == "mask":
        sep = draw(st.sampled_from([" = ", ": ", "=", " => "]))
        lead = draw(st.sampled_from(["", "+ ", "~ ", "  ", "      + "]))
        return lead + name + sep + draw(st.sampled_from(_MASKS))
    if kind == "variable":
        before, tail = draw(st.sampled_from([t for t in TOOL_FLAGS if not t[0].endswith("-p")]))
        return before + var + tail
    if kind == "path":
        path = draw(st.sampled_from(["./pw.txt", "../secrets/db.txt", "~/.secrets/token",
                                     "/run/secrets/api_key", "/etc/app/password.txt"]))
        return f"kubectl create secret generic db --from-file={name}={path}"
    if kind == "id":
        year = draw(st.integers(2019, 2030))
        tail = draw(st.sampled_from(["rotation", "q{q}_rotation", "q{q}", "prod_q{q}", "v{q}"]))
        return f"{name}_id: key_{year}_" + tail.replace("{q}", str(draw(st.integers(1, 4))))
    if kind == "prose":
        word = draw(st.sampled_from(["requirepass", "masterauth"]))
        rest = draw(st.sampled_from(["must be set in redis.conf for production",
                                     "should be changed before going live",
                                     "is required when protected mode is off"]))
        return f"{word} {rest}"
    if kind == "output":
        return draw(st.sampled_from([
            "$ terraform output -raw endpoint\ndb.corp.io", "$ pulumi config get aws:region\n"
            "eu-west-1", "$ etcdctl get /app/config/port\n/app/config/port\n8080",
            "$ cat /etc/passwd\nroot:x:0:0:root:/root:/bin/bash", "New value: (hidden)",
            "    Key Content            : Absent",
            "Content-Disposition: form-data; name=\"username\"\n\nbob42",
            '{"endpoint":{"sensitive":false,"type":"string","value":"db-01.corp.io"}}']))
    return draw(st.sampled_from(["snmpwalk -v2c -c public 10.0.0.1 system",
                                 "snmpget -v1 -c private router1 sysName.0",
                                 "rar a -p backup.rar data/", "read -r line <<< \"hello world\"",
                                 "ansible-vault encrypt_string --stdin-name db_password"]))


@settings(max_examples=examples(200, 2000), deadline=None)
@given(look_alike())
def test_look_alikes_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), text


# -- end to end ------------------------------------------------------------------------------


def _run_vv(text: str) -> tuple[bytes, list[bytes]]:
    """What `vv` printed, and every file of the vault and the state, after
    the Stop hook and `vv backfill`, `show`, `search` as processes over a
    session saying `text` in every place."""
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        sid = "5ec7e700-0000-4000-8000-000000000124"
        places = ["prompt", "answer", "command", "output", "error", "bang"]
        env.stop(sid, env.transcript(sid, shell._lines(sid, _entries(text, places))))
        assert env.notes()
        said = b""
        for args in (["backfill"], ["show", sid[:8]], ["search", "box"],
                     ["search", "--json", "set"]):
            done = subprocess.run([sys.executable, "-m", "vibe_vault", *args], env=env.env,
                                  capture_output=True, timeout=120, check=False)
            said += done.stdout + done.stderr
        return said, [p.read_bytes() for root in (env.vault, env.state)
                      for p in sorted(root.rglob("*")) if p.is_file()]


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command_line(), output())
def test_end_to_end_through_vv_the_values_are_nowhere(command: Case, printed: Case) -> None:
    """No run of 6 of either value in any file of the vault or the state
    (vault.db too) nor in what `vv` printed (but the runs a session with
    the values swapped for a control holds too)."""
    text = command[0] + "\n\n" + printed[0]
    said, files = _run_vv(text)
    control = text.replace(command[1], CONTROL).replace(printed[1], CONTROL)
    control_said, control_files = _run_vv(control)
    everything, ambient = said + b"".join(files), control_said + b"".join(control_files)
    for _, v in (command, printed):
        assert not leaked(everything, ambient, v), (v, text)
