"""The vendors' and URLs' forms attack 26 found passing the gate, by class:
a key named by its service in prose (`mistral key V`, `dd app key V`,
`todoist token V`); a command that takes one (`wandb login V`, `rclone
obscure V`, `SSHPASS=V sshpass -e`, `echo 'V' > ~/.vault_pass.txt`); a
variable of Azure DevOps (`AZURE_DEVOPS_EXT_PAT=V`); an Ethereum key after
`key`, a Bitcoin key in wallet import format; a service account's key id and
Kaggle's key in their JSON; a URL's query parameter named for a secret
(`?jwt= ?ticket= ?otp= ?code= ?sas= ?sid= ?hash= ?appid= &t=`, a signed URL's
`X-Goog-Signature`); an invitation's, a magic or a verification link's
path; a Telegram bot's URL; a Wi-Fi QR code's password.

Generated: each class's spellings x values drawn at random x surroundings.
Oracle: no run of 6 of the value (which the test drew) is left in what the
gate returns; what it hands to learning holds the whole value. Look-alikes
of each class (a word, a number, a placeholder where the value was) are left
whole.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_more import drawn
from test_secret_forms_small_leaks import _hidden, token
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]
_HEX = "0123456789abcdef"
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def hex_key(n: int) -> st.SearchStrategy[str]:
    """`n` hex digits, a letter and a digit among them (as a key has), no
    run of four of one."""
    return drawn(_HEX, n, n).filter(lambda v: len(set(v)) >= 8)


# -- a key named by its service, in prose --------------------------------------------

SERVICES = ("mistral", "todoist", "dd", "datadog", "wandb", "openai", "groq", "cohere",
            "replicate", "stripe", "sendgrid", "supabase", "pinecone", "notion")


@st.composite
def service_key(draw: st.DrawFn) -> Case:
    v = draw(st.one_of(token(20, 60), hex_key(40)))
    service = draw(st.sampled_from(SERVICES))
    kind = draw(st.sampled_from(["", "api ", "app ", "access ", "personal "]))
    word = draw(st.sampled_from(["key", "token", "secret"]))
    sep = draw(st.sampled_from([" ", ": ", " is ", " = "]))
    end = draw(st.sampled_from(["", ".", "\n", " (keep it safe)"]))
    return f"{service} {kind}{word}{sep}{v}{end}", [v]


# -- commands and variables ----------------------------------------------------------


@st.composite
def command_secret(draw: st.DrawFn) -> Case:
    form = draw(st.sampled_from(["wandb", "rclone", "sshpass", "vault_pass", "azure", "eth",
                                 "wif", "wif-compressed", "gcp", "kaggle"]))
    if form == "wandb":
        v = draw(hex_key(40))
        return f"wandb login {v}", [v]
    if form == "rclone":
        v = draw(token(10, 32))
        q = draw(st.sampled_from(["", "'"]))
        return f"rclone obscure {q}{v}{q}", [v]
    if form == "sshpass":
        v = draw(token(10, 32))
        return draw(st.sampled_from([f"SSHPASS={v} sshpass -e ssh deploy@host",
                                     f"export SSHPASS={v}\nsshpass -e rsync a host:b"])), [v]
    if form == "vault_pass":
        v = draw(token(10, 32))
        path = draw(st.sampled_from(["~/.vault_pass.txt", ".vault-password", "secrets/db_password",
                                     "/run/secrets/api_token"]))
        q = draw(st.sampled_from(["'", '"', ""]))
        return f"echo {q}{v}{q} > {path}", [v]
    if form == "azure":
        v = draw(drawn(string.ascii_lowercase + string.digits, 52, 52))
        return f"AZURE_DEVOPS_EXT_PAT={v} az devops project list", [v]
    if form == "eth":
        v = draw(hex_key(64))
        who = draw(st.sampled_from(["deployer", "signer", "owner", "hot wallet"]))
        return f"{who} key{draw(st.sampled_from([' ', ': ', ' is ']))}0x{v}", [v]
    if form in ("wif", "wif-compressed"):
        head = "5" if form == "wif" else draw(st.sampled_from("KL"))
        v = head + draw(drawn(_BASE58, 51 - (head == "5"), 51))
        return f"importprivkey {v}", [v]
    if form == "gcp":
        v = draw(hex_key(40))
        return f'{{"type": "service_account", "private_key_id": "{v}"}}', [v]
    v = draw(hex_key(32))
    return f'{{"username":"dev","key":"{v}"}}', [v]


# -- URLs ------------------------------------------------------------------------------

QUERY = ("jwt", "ticket", "otp", "code", "sas", "sid", "hash", "appid", "t", "token",
         "X-Goog-Signature", "X-Amz-Signature", "id_token", "key")
LINKS = ("invite", "join", "verify", "magic", "reset", "reset-password", "confirm",
         "activate", "shared_invite")


@st.composite
def url_secret(draw: st.DrawFn) -> Case:
    form = draw(st.sampled_from(["query", "path", "telegram", "wifi"]))
    v = draw(token(16, 40, string.ascii_letters + string.digits))
    host = draw(st.sampled_from(["https://svc.example.com/api/v2/export",
                                 "https://app.example.com/auth", "http://localhost:3000/cb"]))
    if form == "query":
        name = draw(st.sampled_from(QUERY))
        before = draw(st.sampled_from(["?", "?format=csv&", "?email=a%40b.c&"]))
        after = draw(st.sampled_from(["", "&page=1", "#top"]))
        return f"open {host}{before}{name}={v}{after}", [v]
    if form == "path":
        word = draw(st.sampled_from(LINKS))
        after = draw(st.sampled_from(["", "?utm=mail", "/"]))
        return f"{host}/{word}/{v}{after}", [v]
    if form == "telegram":
        bot = draw(st.integers(10_000_000, 9_999_999_999))
        v = draw(token(35, 35, string.ascii_letters + string.digits + "_-"))
        return f"https://api.telegram.org/bot{bot}:{v}/sendMessage", [v]
    ssid = draw(st.sampled_from(["HomeNet", "Cafe 5G", "office"]))
    fields = draw(st.permutations(["T:WPA", f"S:{ssid}", f"P:{v}"]))
    return "WIFI:" + ";".join(fields) + ";;", [v]


@settings(max_examples=examples(60, 400), deadline=None)
@given(st.one_of(service_key(), command_secret(), url_secret()))
def test_a_vendors_or_a_urls_secret_is_hidden(case: Case) -> None:
    _hidden(*case)


# -- look-alikes -----------------------------------------------------------------------

LOOK_ALIKES = (
    "mistral key rotation is monthly; the stripe key is in the vault",
    "todoist token expired, wandb login again, dd app key settings",
    "wandb login --relogin; wandb login",
    "rclone obscure -; rclone obscure --help",
    "SSHPASS=$PASS sshpass -e ssh host",
    "echo $VAULT_PASS > ~/.vault_pass.txt; echo 'hello world' > notes.txt",
    'echo "$(pass show db)" > ~/.token',
    "AZURE_DEVOPS_EXT_PAT=$PAT az devops login",
    "tx hash 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    '{"private_key_id": "<id>"}',
    '{"username":"dev","key":"<key>"}',
    "https://svc.example.com/x?code=200&t=42s&hash=main&sid=1&appid=demo",
    "https://app.example.com/invite/accept and /verify/email and /join/the-team",
    "https://api.telegram.org/bot<token>/getMe",
    "WIFI:T:nopass;S:Guest;;",
)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_is_left_whole(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0)
