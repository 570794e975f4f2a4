"""What a command printed that the gate knows prints a secret is learned: the
value is kept out wherever it comes back in the session. Attack 25 (R5): of
150 secret-printing commands, 112 taught nothing (`wg genkey`, `argocd admin
initial-password`, `terraform output -raw db_password`, `pwgen`, cloud secret
managers…), so a later `was it X ?` showed the value.

Generated: each command below (one per pattern of the shared table, so a
pattern with no command here is a failure) printing a random value, or the
value beside other output lines; then the value said in a prompt and an
answer. Oracle: no run of six of the value in the note or the state. And the
other way: code printed by `cat` of a file whose name says password is not
learned (its lines with spaces come back whole).
"""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.secret_printers import PRINTS_A_SECRET, PRINTS_A_SECRET_TOO
from vibe_vault.state import Fold, SessionState, encode_state

COMMANDS = [
    "heroku auth:token", "op read op://vault/db/password", "bw get password github",
    "bw unlock --raw", "pass show web/github", "gh auth token",
    "gcloud auth print-access-token", "aws ecr get-login-password --region eu-west-1",
    "security find-generic-password -s db -w", "vault kv get -field=password secret/db",
    "vault print token", "keyring get system db", "doppler secrets get DB_PASS --plain",
    "openssl rand -base64 24", "az account get-access-token --query accessToken -o tsv",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "argocd admin initial-password -n argocd", "wg genkey", "secret-tool lookup service db",
    "pwgen -s 24 1", "gopass show -o web/db", "lpass show --password github",
    "keepassxc-cli show db.kdbx web -a password",
    "aws secretsmanager get-secret-value --secret-id db --query SecretString --output text",
    "aws ssm get-parameter --name /app/db --with-decryption --query Parameter.Value",
    "gcloud secrets versions access latest --secret=db", "az keyvault secret show --vault-name v"
    " --name db --query value -o tsv", "k3s token create", "docker swarm join-token worker -q",
    "npm token create", "doppler secrets get DB_PASS", "pulumi config get dbPassword",
    "terraform output -raw db_password", "tofu output -raw api_token",
    "cat /var/jenkins_home/secrets/initialAdminPassword", "cat ~/.vault-token",
    "cat /run/secrets/db_password",
    "head -c 32 /dev/urandom | base64", "apg -n 1 -m 20", "consul keygen",
    "wg show wg0 private-key", "wg show wg0 preshared-keys", "cat token.txt", "cat pw.txt",
]
_ALNUM = string.ascii_letters + string.digits
CONTROL = "Zx9Kq2Wm7Pv4Rt8N"  # (what a session holds whatever the value is no leak)


def test_every_pattern_of_the_table_has_a_command_here() -> None:
    for pattern in (*PRINTS_A_SECRET, *PRINTS_A_SECRET_TOO):
        assert any(re.search(pattern, c) for c in COMMANDS), pattern


def _session(command: str, output: str, said: str) -> tuple[str, str]:
    t = Transcript()
    t.prompt("get me the credential")
    t.bash(command, output, "Fetch it")
    t.prompt(said)
    t.say(said)
    state = SessionState(session_id="s", project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    return render(state), encode_state(state).decode("utf-8", "replace")


@settings(max_examples=examples(80, 500), deadline=None)
@given(command=st.sampled_from(COMMANDS),
       value=st.text(_ALNUM, min_size=14, max_size=40).filter(
           lambda v: sum(c.isalpha() for c in v) >= 4 and sum(c.isdigit() for c in v) >= 2),
       around=st.booleans())
def test_a_printed_secret_is_learned(command: str, value: str, around: bool) -> None:
    output = f"{value}\n" if not around else f"Fetching...\n{value}\nDone in 0.2 s\n"
    note, kept = _session(command, output, f"was it {value} ?")
    control = "".join(_session(command, output.replace(value, CONTROL), f"was it {CONTROL} ?"))
    found = [value[i:i + 6] for i in range(len(value) - 5)
             if (value[i:i + 6] in note or value[i:i + 6] in kept)
             and value[i:i + 6] not in control]
    assert not found, (command, value, found)


def test_code_printed_by_cat_of_a_password_file_is_not_learned() -> None:
    code = "def check(pw: str) -> bool:\n    return len(pw) >= 12 and pw != 'hunter2'\n"
    note, _ = _session("cat src/password_check.py", code, "why does check return len(pw) >= 12")
    assert "return len(pw) &gt;= 12" in note or "return len(pw) >= 12" in note, note
