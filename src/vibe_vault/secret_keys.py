"""Key material and root secrets in command output: the forms attack 23 found
passing the gate, by class.

- A secret store's or a cluster's root secrets as their tools print them,
  under a label that names one (`Unseal Key 1: …`, `Secret ID = <uuid>`,
  `Using certificate key:` then the key): after such a label a UUID or a hex
  run is the secret, though elsewhere it is an id or a digest.
- Session keys (`BW_SESSION=…`, `bw … --session …`), a key given as a flag
  (`kubeadm … --certificate-key <hex>`), a cookie given to curl (`-b`,
  `--cookie`), a session id in a URL (`;jsessionid=`), a cookie jar's line,
  an S3 URL's session token.
- What a command that prints one secret printed, on the line after it
  (`$ heroku auth:token`, `$ op read op://…`, `$ bw get password x`).
- Key material in new shapes: a private key's body at any PEM-like width
  (60 to 75 columns by shape alone; OpenSSH wraps at 70), or from its
  `openssh-key-v1` start (`b3BlbnNzaC1rZXktdjE`); a keypair as a JSON array
  of 64 bytes (Solana's id.json); Ansible Vault's ciphertext; Maven's
  `<master>` password; a JWT broken at its dots across lines.
- Codes under their label: an app password (four groups of four letters),
  an authenticator's setup key (base32 in groups), recovery codes.
- A known token written another way: its hex, reversed, cut into shell
  variables joined again (`A=ghp_…; B=…; $A$B`).

`FORMS` are rules as data (secret_rules makes them `Rule`s: this module
imports nothing of it, so there is no import circle); `hidden` finds what no
single pattern reads (a run of lines of one width, a list of numbers, codes
after a label, a token's pieces in variables) and is run after the rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vibe_vault.text import rx

# (as secret_rules writes them: a test checks they are the same)
B = r"(?<![A-Za-z0-9])"
SHAPED, RUN, WORD = "shaped", "run", "word"

# A value that holds a digit somewhere in its run of key characters.
_DIGIT = r"(?=[A-Za-z+/_.=\-]{0,256}\d)"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# A key's value: base64, hex, a token with dots (`s.…`), 16 characters or more.
_KEYISH = (r"(?=[A-Za-z0-9+/_.=\-]{16})" + _DIGIT
           + r"[A-Za-z0-9+/_\-]+(?:\.[A-Za-z0-9+/_\-]+)*={0,2}(?![A-Za-z0-9+/_\-=])")
# Between a label and its value: `:`, `=`, `:=`, a table's run of spaces (one,
# once an error's lines are collapsed), or `:` then the value on the next
# line (kubeadm's `Using certificate key:`).
_LABEL_SEP = r"(?:[ \t]*(?::=|[:=])[ \t]*(?:\r?\n[ \t]*)?|[ \t]+)[\"']?"

# Labels a tool prints its root secrets under, and the words that trigger
# each: one pattern a label, beginning with its word (an alternation of
# words first keeps the engine from skipping ahead: seven times slower).
_VALUE = r"(?P<v>" + _UUID + r"(?![\w\-])|" + _KEYISH + r")"
_ROOT_LABELS = (
    (("unseal",), r"unseal[ _\-]?keys?(?:[ _\-]?\(?\d{1,2}\)?|[ _\-]b64)?"),
    (("recovery",), r"recovery[ _\-]?keys?(?:[ _\-]?\d{1,2}|[ _\-]b64)?"),
    (("root token", "root_token"), r"root[ _\-]?token"),
    (("certificate",), r"certificate[ _\-]?key"),
    (("session key", "session_key"), r"session[ _\-]?key"),
)
# A Secret ID is a secret (Nomad's, Consul's, Vault AppRole's secret_id);
# AWS calls a secret's name its SecretId (`--secret-id prod/db`): refused
# after a `-`, and a UUID or a run with no `/` only.
_SECRET_ID = (r"secret[ _\-]?id(?<!-secret-id)(?<!-secret_id)" + _LABEL_SEP
              + r"(?P<v>" + _UUID + r"|(?=[A-Za-z0-9_\-]{16})" + _DIGIT
              + r"[A-Za-z0-9_\-]+)(?![A-Za-z0-9_\-/.:])")

from vibe_vault.secret_printers import NAMES_A_SECRET as _NAMES_A_SECRET  # noqa: E402
from vibe_vault.secret_printers import PRINTS_A_SECRET as _PRINTS_A_SECRET  # noqa: E402
from vibe_vault.secret_printers import PRINTS_A_SECRET_TOO as _PRINTS_A_SECRET_TOO  # noqa: E402

# `cat` of a file named for a secret (`cat …/secrets/initialAdminPassword`, `~/.vault-token`).
# (beginning with its literal: the engine skips ahead to it)
_CAT_A_SECRET = (r"cat(?<![\w\-]cat)[ \t][^\n]{0,300}?(?:initialAdminPassword|\.vault-token"
                 r"|[/ \t][\w.\-]*(?i:password|secret|token|api[_\-]?key|cred|pwd)[\w.\-]*)"
                 r"[ \t]*(?=\r?\n)")
# Commands that print a line and then the secret: etcdctl's key then its
# value, an OpenVPN credentials file's user then its password.
_PRINTS_A_SECRET_SECOND = (
    r"etcdctl[ \t]+(?:[^\s]{1,100}[ \t]+){0,6}?get[ \t]+[^\s]{0,200}?" + _NAMES_A_SECRET,
    r"cat[ \t][^\n]{0,300}?(?:auth[\w\-]*\.txt|auth-user-pass|credentials\.txt)[ \t]*(?=\r?\n)",
)
# The secret on the line after (one line skipped with the second table).
_PRINTED = (r"[^\n]{0,400}\r?\n[ \t]*(?P<v>(?=[^\s]*[A-Za-z])(?=[^\s]*[0-9])[^\s]{6,300}|"
            + _UUID + r")[ \t]*(?=\r?\n|\Z)")

# Token prefixes whose hex (`echo 6768705f… | xxd -r -p` is ghp_…) or whose
# reverse is a token's.
_HEX_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-ant-",
                 "sk-proj-", "xoxb-", "xoxp-", "AKIA", "ASIA", "npm_", "hf_", "AIza", "hvs.",
                 "pypi-", "eyJ", "dop_v1_", "-----BEGIN")


def _hex(prefix: str) -> str:
    return prefix.encode().hex()


# Ansible Vault's hex lines after the first.
_MORE_HEX = r"(?:\s+[0-9a-fA-F]{20,})*(?:\s+[0-9a-fA-F]{1,19}(?=…?\s*\Z))?"

# After a JWT's `eyJ`: refused at once inside a run of a JWT's letters unless
# it begins the run (`eyJhbGcieyJhbGci…`: B refuses it anyway, but the gate
# checks B after a match, and each `eyJ` would else be tried to the run's
# end, a time growing with the run's square); after `_` or `-` (`session_eyJ…`)
# only with a dot or a space within a header's length, so each try is short.
JWT_START = (r"(?:(?<![A-Za-z0-9_\-]eyJ)"
             r"|(?<=[_\-]eyJ)(?=[A-Za-z0-9_\-]{8,256}[.\s]))")

# (id, triggers, pattern, samples, look-alike, how, line): see secret_rules.Rule.
Form = tuple[str, tuple[str, ...], str, tuple[str, ...], str, str, str]
FORMS: tuple[Form, ...] = (
    # A JWT broken at its dots across lines (a terminal, a log or a reply cut
    # it there): its three parts, each dot at a line's end or the next one's start.
    ("jwt", ("eyj",),
     B + r"eyJ" + JWT_START + r"[A-Za-z0-9_\-]{8,}(?:\.[ \t]*\r?\n[ \t>]*|[ \t]*\r?\n[ \t>]*\.)"
     r"[A-Za-z0-9_\-]{8,}(?:\.[ \t]*\r?\n[ \t>]*|[ \t]*\r?\n[ \t>]*\.|\.)"
     r"[A-Za-z0-9_\-]{8,}(?![A-Za-z0-9_\-])",
     ("token:\n⟦eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\neyJ«w40».\n«w43»⟧",
      "⟦eyJhbGciOiJIUzI1NiJ9\n.eyJ«w30»\n.«w43»⟧\nthanks"),
     "eyJ is how a JWT begins", SHAPED, ""),
    # An OpenSSH private key's body from its first line (`openssh-key-v1`),
    # however wide its lines, and the base64 lines after it; or the same
    # with its newlines escaped in a JSON string.
    ("private-key", ("b3blbnnzac1rzxktdje",),
     B + r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{8,}={0,2}(?:(?:[ \t]*\r?\n[ \t>]*|\\n)"
     r"[A-Za-z0-9+/]{4,100}={0,2}(?=[ \t]*(?:\r?\n|\\n|\Z|[\"'`])))*",
     ("$ sed -n 2,4p id_ed25519\n⟦b3BlbnNzaC1rZXktdjEAAAAA«b51»\n«b70»\n«b30»=⟧",
      '"key": "⟦b3BlbnNzaC1rZXktdjEAAAAA«b45»\\n«b70»⟧"'),
     "", SHAPED, ""),
    # Root secrets under their label (`Unseal Key 1: …`, `Initial Root Token:`,
    # `Using certificate key:` then the key on its own line, `Secret ID = <uuid>`).
    *(("root-secret", words, r"(?i)" + label + r"(?![\w\-])[\"']?" + _LABEL_SEP + _VALUE,
       (), "", WORD, "") for words, label in _ROOT_LABELS),
    ("root-secret", ("secret id", "secret_id", "secretid"), r"(?i)" + _SECRET_ID,
     ("Unseal Key 1: ⟦«b43»=⟧\nUnseal Key 2: «b43»=", "Accessor ID  = «h8»-«h4»-«h4»-«h4»-«h12»\n"
      "Secret ID    = ⟦«h8»-«h4»-«h4»-«h4»-«h12»⟧\nName         = Bootstrap Token",
      "[upload-certs] Using certificate key:\n⟦«h64»⟧",
      "secret_id             ⟦«h8»-«h4»-«h4»-«h4»-«h12»⟧\nsecret_id_accessor    «h8»",
      "Recovery Key 3: ⟦«b43»=⟧"),
     "aws secretsmanager get-secret-value --secret-id prod/db/password2026; "
     "secret_id_accessor  «h8»-«h4»-«h4»-«h4»-«h12»; Unseal Key (will be hidden):",
     WORD, ""),
    # A session key in a variable named for a session (`BW_SESSION`, 1Password's
    # `OP_SESSION_my`) or given as bw's `--session`: mixed-case base64 of 20 or more.
    # Most hold a digit; one of 44 without any (about one in 2,000 random keys: a
    # generated test drew one) is taken at 40 or more with capitals side by side
    # three times (most random keys; `AbstractProxyFactoryBeanHolder`, a path: none).
    ("session-key", ("session=", "session =", "session:", "session\"", "session'", "op_session",
                     "--session"),
     # (the case kept: the value must hold a capital and a small letter)
     # (from the word on: what is before it, `BW_`, is the name's too; a
     # pattern beginning with the word lets the engine skip ahead to it)
     # (the name's parts read whole, at most 16: from each `session` in
     # `op_session_op_session_…` they ran to the end and back, 32 kB taking
     # 3 s: attack 25 S-13; nothing after them can be a part's character)
     r"(?:[Ss](?:ESSION|ession)(?:_[A-Za-z0-9]++){0,16}+[\"']?[ \t]*[=:][ \t]*"
     r"|--session(?:[ \t]+|=))[\"']?"
     r"(?P<v>(?=[A-Za-z0-9+/=_\-]{0,256}[A-Z])(?=[A-Za-z0-9+/=_\-]{0,256}[a-z])"
     r"(?=[A-Za-z0-9+/=_\-]{0,256}[0-9]"
     r"|(?=(?:[A-Za-z+/_\-]{0,40}?[A-Z]{2}){3})[A-Za-z0-9+/_\-]{40})"
     r"[A-Za-z0-9+/_\-]{20,}+={0,2}+)(?![A-Za-z0-9+/=_\-])",
     ('export BW_SESSION="⟦«b86»==⟧"', "bw list items --session ⟦«b44»⟧",
      "$env:BW_SESSION = '⟦«a44»⟧'", "export OP_SESSION_my=⟦«w43»⟧"),
     "SESSION_ENGINE=django.contrib.sessions.backends.db; FLASK_SESSION_TYPE=filesystem_cache01; "
     "session: AbstractSingletonProxyFactoryBeanSessionHolder",
     WORD, ""),
    # A key given as a flag (kubeadm's `--certificate-key`, a tool's
    # `--encryption-key`): hex or base64 of 16 or more.
    ("flag-key", ("certificate", "encryption-key", "master-key", "unseal", "recovery",
                  "signing-key", "--kek"),
     r"(?i)(?<![\w\-])--(?:(?:certificate|encryption|decryption|master|unseal|recovery"
     r"|signing)-key|kek)(?:[ \t]+|=)[\"']?(?P<v>" + _KEYISH + ")",
     ("kubeadm join 10.0.0.1:6443 --control-plane --certificate-key ⟦«h64»⟧",
      "tool --encryption-key=⟦«b44»⟧ run"),
     "kubeadm init --upload-certs --certificate-key $KEY", WORD, ""),
    # A cookie given to curl (`-b 'name=value'`, `--cookie`): what follows the
    # first `=` of its argument (a name of a cookie jar's file is left).
    ("cookie", ("curl",),
     r"\bcurl\b[^\n]{0,400}?(?<![\w\-])(?:-b|--cookie)(?:[ \t]+|=)"
     r"(?:\"[^\"=\s]+=(?P<v>[^\"\n]+)\"|'[^'=\s]+=(?P<v2>[^'\n]+)'"
     r"|[^\s\"'=]+=(?P<v3>[^\s\"']+))",
     ('curl -b "session=⟦«a32»⟧" https://app.example.com/api/me',
      "curl -s --cookie 'sid=⟦«a24»; theme=dark⟧' https://x",
      "curl -b ⟦_s=«l40»⟧ https://x"),
     "curl -b cookies.txt -c cookies.txt https://x", WORD, ""),
    # A session id in a URL or a parameter (`;jsessionid=`, `PHPSESSID=`), an S3
    # URL's session token (`X-Amz-Security-Token=`, as a header too).
    # (each pattern begins with its literal: the engine skips ahead to it)
    ("session-token", ("sessid", "sessionid", "session_id"),
     r"(?i)sess(?:ion_?id|id)=(?P<v>(?=[^&#\s\"'<>;]{0,256}\d)[^&#\s\"'<>;]{16,})",
     ("GET /app;jsessionid=⟦«u32»⟧ HTTP/1.1", "Cookie: PHPSESSID=⟦«l26»⟧"),
     "session_id=$SID; ;jsessionid=${id}", WORD, ""),
    ("session-token", ("x-amz-security-token",),
     r"(?i)x-amz-security-token(?:=|:[ \t]*)(?P<v>(?=[^&#\s\"'<>;]{0,256}\d)[^&#\s\"'<>;]{16,})",
     ("https://b.s3.amazonaws.com/k?X-Amz-Security-Token=⟦«a120»⟧&X-Amz-Signature=«h64»",),
     "", WORD, ""),
    # A line of a Netscape cookie jar: domain, flag, path, secure, expiry,
    # name, value (the last hidden), tab-separated.
    # (near a run, the value's: a search of every text for a tab's words cost more)
    ("cookie", ("\ttrue\t", "\tfalse\t", " true ", " false "),
     # (or its tabs made spaces, as a one-line field collapses them)
     r"(?i)\t(?:true|false)\t[^\t\n]*\t(?:true|false)\t\d+\t[^\t\n]*\t(?P<v>[^\t\n ]+)"
     r"|[ ](?:true|false)[ ]+[^\s]+[ ]+(?:true|false)[ ]+\d+[ ]+[^\s]+[ ]+(?P<v2>[^\s]+)",
     ("# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t0\tauth_session\t⟦«a40»⟧",),
     "", RUN, ""),
    # What a command that prints one secret printed, on its own line after it.
    # (each trigger holds a word others' triggers have, "pass", "token", "-"...:
    # searched only in a text that has that one)
    ("printed-secret", ("auth:token", "op read", "bw get password", "bw unlock", "pass show",
                        "pass generate", "gh auth token", "print-access-token",
                        "print-identity-token", "get-login-password", "find-generic-password",
                        "find-internet-password", "print token", "keyring get",
                        "doppler secrets", "openssl rand", "get-access-token", "jsonpath",
                        "go-template", "kv get", "vault read"),
     r"(?:" + "|".join(_PRINTS_A_SECRET) + r")" + _PRINTED,
     ("$ heroku auth:token\n⟦«h8»-«h4»-«h4»-«h4»-«h12»⟧\n$ ls",
      "$ bw get password github.com\n⟦«a20»⟧\n",
      "% op read op://Private/GitHub/password\n⟦«a22»⟧\n% ls"),
     "$ op read op://x/y/password\n[ERROR] could not read secret\n$ pass show a\nError: a is "
     "not in the password store.", WORD, ""),
    ("printed-secret", ("cat ",), _CAT_A_SECRET + _PRINTED,
     ("$ cat /var/jenkins_home/secrets/initialAdminPassword\n⟦«h32»⟧\n",
      "$ cat ~/.vault-token\n⟦hvs.«w24»⟧\n$ ls", "cat /run/secrets/db_password\n⟦«a16»⟧\n"),
     "$ cat /etc/passwd\nroot:x:0:0:root:/root:/bin/bash\n$ concat token.txt\nab12cd34ef",
     WORD, ""),
    ("printed-secret", ("initial-password", "wg gen", "secret-tool", "config get", "-raw"),
     r"(?:" + "|".join(_PRINTS_A_SECRET_TOO) + r")" + _PRINTED,
     ("$ argocd admin initial-password -n argocd\n⟦«a16»⟧\n\n This password must be only "
      "used for first time login.",
      "$ pulumi config get dbPassword\n⟦«a16»⟧\n", "$ terraform output -raw db_password\n⟦«a16»⟧\n",
      "$ wg genkey | tee privatekey\n⟦«b43»=⟧\n$ ls",
      "$ secret-tool lookup service db user app\n⟦«a16»⟧\n"),
     "$ terraform output -raw endpoint\ndb-01.corp.io\n$ cat /etc/passwd\nroot:x:0:0:root:/root"
     "\n$ pulumi config get aws:region\neu-west-1", WORD, ""),
    ("printed-secret", ("etcdctl", "cat "),
     r"(?:" + "|".join(_PRINTS_A_SECRET_SECOND) + r")[^\n]{0,400}\r?\n" + _PRINTED,
     ("$ etcdctl get /app/db/password\n/app/db/password\n⟦«a16»⟧\n",
      "$ cat /etc/openvpn/auth.txt\nbob\n⟦«a16»⟧\n"),
     "$ etcdctl get /app/config/port\n/app/config/port\n8080", WORD, ""),
    # A secret a tool prints under its label (attack 24): Elasticsearch's reset
    # password, Windows' Wi-Fi key, Subversion's stored password, a form's
    # password part, a sensitive output of `terraform output -json`.
    ("printed-secret", ("new value",),
     r"(?i)password for the \[[^\]\n]{1,64}\] user successfully reset\.?[ \t]*\r?\n"
     r"[ \t]*new value:[ \t]*(?P<v>\S{6,300})",
     ("Password for the [elastic] user successfully reset.\nNew value: ⟦«a20»⟧\n",),
     "New value: (hidden)", WORD, ""),
    ("printed-secret", ("key content",),
     r"(?i)key content[ \t]*:[ \t]*(?P<v>[^\r\n]{1,200}?)[ \t]*(?=\r?\n|\Z)",
     ("    Authentication         : WPA2-Personal\n    Key Content            : ⟦«a16»⟧\n"
      "    Cost                   : Unrestricted",),
     "    Key Content            : Absent", WORD, ""),
    ("printed-secret", ("k 8", "k 10"),
     r"K[ \t]\d{1,3}\r?\n(?:password|passphrase)\r?\nV[ \t]\d{1,4}\r?\n(?P<v>[^\r\n]{1,300})",
     ("K 8\npassword\nV 16\n⟦«a16»⟧\nK 8\nusername\nV 3\nbob\nEND",),
     "K 8\nusername\nV 3\nbob\nEND", WORD, ""),
    ("printed-secret", ("form-data",),
     r"(?i)content-disposition:[ \t]*form-data;[ \t]*name=\"[\w.\-\[\]]*"
     r"(?:pass|secret|token|api_?key|pwd|credential)[\w.\-\[\]]*\"[^\r\n]{0,200}"
     r"(?:\r?\n[^\r\n]{1,200}){0,3}?\r?\n[ \t]*\r?\n(?P<v>[^\r\n]{1,300}?)[ \t]*(?=\r?\n|\Z)",
     ("------WebKitFormBoundary7MA\nContent-Disposition: form-data; name=\"password\"\n\n"
      "⟦«a16»⟧\n------WebKitFormBoundary7MA--",),
     "Content-Disposition: form-data; name=\"username\"\n\nbob", WORD, ""),
    ("printed-secret", ('"sensitive"',),
     r"\"sensitive\"\s*:\s*true\s*,\s*\"type\"\s*:\s*(?:\"[^\"\n]{0,100}\"|\[[^\n]{0,300}?\])"
     r"\s*,\s*\"value\"\s*:\s*\"(?P<v>(?:[^\"\\\n]|\\.){1,300})\"",
     ('{"db_password":{"sensitive":true,"type":"string","value":"⟦«a16»⟧"},"endpoint":'
      '{"sensitive":false,"type":"string","value":"db.corp.io"}}',),
     '{"endpoint":{"sensitive":false,"type":"string","value":"db-01.corp.io"}}', WORD, ""),
    # Maven's master password (settings-security.xml).
    # A key file whose first line says what it is (minisign's, signify's
    # `untrusted comment: … secret key`): its base64 line after it.
    ("private-key", ("secret key",),
     r"(?i)untrusted comment:[^\n]{0,200}?secret key[^\n]{0,100}?(?:\r?\n[ \t>]*|[ \t]+)"
     r"(?P<v>[A-Za-z0-9+/]{40,}={0,2})",
     ("untrusted comment: minisign encrypted secret key\n⟦RWRTY0Iy«b150»⟧",
      "untrusted comment: signify secret key\n⟦RWRCSwAAA«b90»=⟧"),
     "untrusted comment: minisign public key E7620F1842B4E81F\nRWQf6LRCGA9i«b44»", WORD, ""),
    ("maven-master", ("<master>",),
     # (its close not asked for: a path's part may end before it)
     r"<master>[ \t\r\n]*(?P<v>\{[^}<\n]{8,}\}|[^<\s]{8,})",
     ("<settingsSecurity>\n  <master>⟦{«b22»=}⟧</master>\n</settingsSecurity>",), "", WORD, ""),
    # Maven's encrypted password (`{` base64 `}`, in settings.xml and
    # settings-security.xml), wherever its tags went (a prompt's are stripped).
    # (on its padding's `=}` or a tag's `>{`: base64 cut by `/` may have no long run)
    ("maven-master", ("=}", ">{"),
     # (the test before the brace after it: a pattern beginning with its
     # literal lets the engine skip ahead to it)
     r"\{(?<![\w$]\{)(?P<v>(?=[A-Za-z0-9+/]{0,256}[0-9])(?=[A-Za-z0-9+/]{0,256}[A-Z])(?=[A-Za-z0-9+/]{0,256}[a-z])"
     r"[A-Za-z0-9+/]{20,}={0,2})\}",
     ("<password>⟦{«b30»=}⟧</password>", "  ⟦{«b22»=}⟧\n</settingsSecurity>"),
     "${PASSWORD_2024_ROTATION_X} {{ vault_password }}", WORD, ""),
    # Ansible Vault's ciphertext, cracked offline against a weak vault
    # password: the hex lines after its header (a line or a collapsed run).
    ("ansible-vault", ("$ansible",),
     # (a line cut short, where a text was cut, is the ciphertext's too; on
     # the header's line, a run of 20 or more)
     r"\$ANSIBLE_VAULT;[0-9.]+;[A-Za-z0-9]+(?:;[\w\-]+)?(?![\w\-])"
     r"(?:[ \t]*\r?\n\s*(?P<v>[0-9a-fA-F]+" + _MORE_HEX + r")"
     r"|[ \t]+(?P<v2>[0-9a-fA-F]{20,}" + _MORE_HEX + r"))",
     ("$ANSIBLE_VAULT;1.1;AES256\n⟦«h80»\n«h80»\n«h40»⟧",
      "db_password: !vault |\n  $ANSIBLE_VAULT;1.2;AES256;prod\n  ⟦«h80»\n  «h80»⟧"),
     "$ANSIBLE_VAULT;1.1;AES256 is the header", WORD, ""),
    # An app password (Google's: four groups of four letters) after its name,
    # or as the password a login is given.
    ("app-password", ("app password", "app-password", "app_password", "apppassword",
                      "application password", "specific password"),
     r"(?i)app(?:lication)?[ _\-]?(?:specific[ _\-]?)?password[^\n]{0,60}?(?<![a-z])"
     r"(?P<v>[a-z]{4}(?:[ \-]?[a-z]{4}){3})(?![a-z])",
     ("Here is the Gmail app password Google gave me: ⟦«L4» «L4» «L4» «L4»⟧",
      "GMAIL_APP_PASSWORD=⟦«L16»⟧"),
     "an app password must have been made for this mail account", WORD, ""),
    ("app-password", (".login(",),
     r"(?i)\.login\([^\n)]{0,200}?,[ \t]*([\"'])(?P<v>[a-z]{4}(?: [a-z]{4}){3})\1",
     ('imap.login("bob@gmail.com", "⟦«L4» «L4» «L4» «L4»⟧")',), "", WORD, ""),
    # An authenticator's setup key (base32, often in groups of four).
    ("otp-secret", ("setup key", "setup_key", "otp", "2fa", "mfa", "authenticator",
                    "manual entry", "two-factor"),
     r"(?i)(?:setup|secret|otp|totp|2fa|mfa|authenticator|manual[ _\-]?entry|two-factor)"
     r"[ _\-](?:key|secret)(?![a-z])[^\n]{0,20}?(?<![a-z0-9])"
     r"(?P<v>[a-z2-7]{4}(?:[ ]?[a-z2-7]{4}){3,15}=*)(?![a-z0-9])",
     ("Authenticator setup key: ⟦«z4» «z4» «z4» «z4» «z4» «z4» «z4» «z4»⟧",),
     "the setup key will be shown once here", WORD, ""),
    # `keyring set SERVICE USER PASSWORD`: the last word.
    ("cli-password", ("keyring",),
     r"\bkeyring[ \t]+set[ \t]+\S+[ \t]+\S+[ \t]+(?:'(?P<v>[^'\n]+)'|\"(?P<v2>[^\"\n]+)\""
     r"|(?P<v3>(?![$<])[^\s'\";|&]+))",
     ("keyring set system me ⟦«a14»⟧",), "keyring set system me <<< x", WORD, ""),
    # A token's hex (`echo 6768705f… | xxd -r -p`): its prefix's hex, then
    # printable characters' (hex pairs 20 to 7f) to the run's end.
    ("hex-token", tuple(_hex(p).lower() for p in _HEX_PREFIXES),
     r"(?i)(?<![0-9a-f])(?:" + "|".join(_hex(p) for p in _HEX_PREFIXES)
     + r")(?:[2-7][0-9a-f]){12,}(?![0-9a-f])",
     # (a made-up token's hex, fixed: a template cannot draw the hex of one)
     ("echo ⟦6768705f4578616d706c65546f6b656e314e6f74325265616c335365637265743458797a7730⟧"
      " | xxd -r -p",),
     "", SHAPED, ""),
    # A token reversed (`rev`): the prefix at its end, backwards.
    ("reversed-token", ("_phg", "_ohg", "_uhg", "_shg", "_rhg", "-taplg", "-tna-ks", "aika",
                        "aisa", "_mpn", "_tap_buhtig"),
     r"(?<![A-Za-z0-9_\-])(?:[A-Za-z0-9]{36,255}_[pousr]hg|[A-Za-z0-9_\-]{20,}-taplg"
     r"|[A-Za-z0-9_]{22,255}_tap_buhtig"
     r"|[A-Za-z0-9_\-]{20,}-tna-ks|[A-Z2-7]{16}AI[KS]A|[A-Za-z0-9]{36}_mpn)(?![A-Za-z0-9])",
     ("echo ⟦«a36»_phg⟧ | rev",), "", SHAPED, ""),
)


# -- what no single pattern reads -------------------------------------------------------

# A line of base64 alone (indented or quoted), and the characters of one.
_B64_LINE = r"[ \t>]*([A-Za-z0-9+/]{4,76})(={0,2})[ \t]*\r?\Z"
# Words near a run of 76-column lines that make it a key's body (76 is also
# MIME's width: base64 data wraps there too).
_KEY_CONTEXT = r"(?i)\bid_(?:rsa|dsa|ecdsa|ed25519)|\.pem\b|\.key\b|private|\bssh\b|\bkey\b"


# Armour around public material (PEM's, PGP's, SSH2's): a certificate, a
# request for one, a revocation list, a public key, a signature.
_PUBLIC_ARMOUR = (r"[ \t>]*-{4,5} ?BEGIN (?:(?:TRUSTED |X509 )?CERTIFICATE"
                  r"|(?:NEW )?CERTIFICATE REQUEST|X509 CRL|(?:RSA |EC |DSA |SSH2 )?PUBLIC KEY"
                  r"|PGP PUBLIC KEY BLOCK|PGP SIGNATURE|PKCS7|CMS) ?-{4,5}")


def in_public_armour(text: str, at: int) -> bool:
    """Whether `at` is inside a certificate's or a public key's armour: its
    BEGIN line before, no END line between. (Its body has a private key's
    shape: `MII…`, lines of 64.)"""
    begin = text.rfind("BEGIN ", 0, at)
    if begin < 0 or rx(r"-{4,5} ?END ").search(text, begin, at):
        return False
    return bool(rx(_PUBLIC_ARMOUR).match(text, text.rfind("\n", 0, begin) + 1))


def _key_body_spans(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Runs of two or more lines of base64 of one width, 60 to 76 columns
    (a key's body as PEM, OpenSSH (70) or another tool wraps it), each line
    with a capital and a small letter, and the shorter last line after them.
    At 76 (MIME's width too) only when the text before names a key. Only
    the lines around `runs` (redact's runs of letters and digits, one in
    every such line) are looked at."""
    spans: list[tuple[int, int, str]] = []
    done = 0  # (lines before this offset are read)
    for at, _ in runs:
        first = text.rfind("\n", 0, at) + 1
        if first < done:
            continue
        line = _base64_line(text, first)
        if line is None or not 60 <= line[3] <= 76 or line[4]:
            continue
        width = line[3]
        lines = [line]
        while lines[0][0] > 0:  # (a first line with no run of its own)
            before = _base64_line(text, text.rfind("\n", 0, lines[0][0] - 1) + 1)
            if before is None or before[3] != width or before[4] or before[0] < done:
                break
            lines.insert(0, before)
        while lines[-1][5] < len(text):
            after = _base64_line(text, lines[-1][5] + 1)
            if after is None or after[3] != width or after[4]:
                break
            lines.append(after)
        done = lines[-1][5]
        # The last line: shorter, or as wide with its padding; with one whole
        # line before it, padded or of 16 characters or more (not a word).
        last = _base64_line(text, lines[-1][5] + 1, mixed=False) \
            if lines[-1][5] < len(text) else None
        if last is not None and (last[3] < width or (last[4] and last[3] + len(last[4]) == width)) \
                and (len(lines) > 1 or last[4] or last[3] >= 16):
            lines.append(last)
        if len(lines) < 2:
            continue
        if width == 76 and not rx(_KEY_CONTEXT).search(text, max(0, lines[0][0] - 300),
                                                       lines[0][0]):
            continue
        done = lines[-1][5]
        if in_public_armour(text, lines[0][1]):
            continue  # a certificate's body, a public key's
        spans.append((lines[0][1], lines[-1][2], "private-key"))
    return spans


def _base64_line(text: str, start: int, mixed: bool = True
                 ) -> tuple[int, int, int, int, str, int] | None:
    """The line at `start` when it is base64 alone (indented or quoted):
    its start, where its base64 begins and ends, its width without padding,
    its padding, its end; None when it is not (or has no capital and small
    letter, when `mixed`)."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    if end - start > 90:
        return None
    m = rx(_B64_LINE).match(text[start:end])
    if m is None or (mixed and not _mixed(m.group(1))):
        return None
    return start, start + m.start(1), start + m.end(2), len(m.group(1)), m.group(2), end


def _mixed(line: str) -> bool:
    """A capital and a small letter (a hex digest is one case)."""
    return any(c.isupper() for c in line) and any(c.islower() for c in line)


# A JSON array of numbers (a keypair's bytes: Solana's id.json is 64).
_BYTE_ARRAY = r"\[\s*(\d{1,3}(?:\s*,\s*\d{1,3}){31,127})\s*,?\s*\]"


def _byte_array_spans(text: str) -> list[tuple[int, int, str]]:
    """A list of 64 byte values (0 to 255, not a few repeated): an ed25519
    keypair as Solana and others keep it. Its numbers are hidden."""
    if text.count(",") < 63:
        return []
    spans: list[tuple[int, int, str]] = []
    for m in rx(_BYTE_ARRAY).finditer(text):
        values = [int(v) for v in m.group(1).replace(" ", "").replace("\n", "").replace(
            "\t", "").replace("\r", "").split(",")]
        if len(values) == 64 and max(values) <= 255 and len(set(values)) >= 16:
            spans.append((*m.span(1), "private-key"))
    return spans


# Labels a list of one-time codes follows (GitHub's, Google's backup codes...).
_CODES_WORDS = ("recovery", "backup", "scratch", "emergency", "one-time", "2fa", "mfa")
_CODES_LABEL = (r"(?:recovery|backup|scratch|emergency|one-time|2fa|mfa)"
                r"(?:[ _\-](?:verification))?[ _\-]codes?\b")
# One code: letters and digits, in groups joined by `-` (a digit or a `-`
# in it: `1a2b3-c4d5e`, `1234 5678` as two groups).
_CODE = r"(?=[A-Za-z0-9\-]*[\d\-])[A-Za-z0-9]{3,12}(?:-[A-Za-z0-9]{3,12}){0,4}"
_CODE_LINE = (r"[ \t]*(?:[-*•][ \t]+|\d{1,2}[.)][ \t]+)?((?:" + _CODE + r")(?:[ \t,;]+"
              + _CODE + r")*)[ \t,;.]*\r?\Z")
# A code that says what goes there (`your-code-here`, `xxxx-xxxx`, `REPLACE-ME`).
_PLACEHOLDER_CODE = r"(?i)your|here|xxx|example|sample|change-?me|placeholder|replace"
# A line's one number of five digits or fewer: a count (`backup_codes = 200`,
# `recovery codes: 10000`), not a code; codes of digits come eight to a code
# or in groups (`1234 5678`), or several to a line.
_A_COUNT = r"\d{3,5}"


def _codes_of(line: str) -> list[re.Match[str]]:
    """The codes of a line that holds only codes (`_CODE_LINE`'s group): none
    when it is one number a count's size, or a placeholder's."""
    codes = list(rx(_CODE).finditer(line))
    if len(codes) == 1 and rx(_A_COUNT).fullmatch(codes[0].group(0)):
        return []
    return [c for c in codes if not rx(_PLACEHOLDER_CODE).search(c.group(0))]


def _code_spans(text: str, low: str) -> list[tuple[int, int, str]]:
    """The codes of a list under a label that names recovery or backup codes:
    those on the label's line after it, and each line after it that holds
    only codes (a blank line or two allowed first), to the first that does not."""
    if "codes" not in low or not any(w in low for w in _CODES_WORDS):
        return []
    spans: list[tuple[int, int, str]] = []
    for label in rx(_CODES_LABEL).finditer(low):
        end = text.find("\n", label.end())
        end = len(text) if end < 0 else end
        rest = rx(r"[ \t]*(?:are|were|is)?[ \t]*[:=]?[ \t]*").match(text, label.end(), end)
        at = rest.end() if rest else label.end()
        inline = rx(_CODE_LINE).match(text[at:end])
        if inline and at < end:
            spans += [(at + c.start(), at + c.end(), "recovery-code")
                      for c in _codes_of(inline.group(1))]
        pos, blanks = end + 1, 0
        while pos < len(text):
            nxt = text.find("\n", pos)
            nxt = len(text) if nxt < 0 else nxt
            line = text[pos:nxt]
            if not line.strip():
                blanks += 1
                if blanks > 2 or (spans and spans[-1][1] > end):
                    break
                pos = nxt + 1
                continue
            m = rx(_CODE_LINE).match(line)
            if not m:
                break
            spans += [(pos + m.start(1) + c.start(), pos + m.start(1) + c.end(), "recovery-code")
                      for c in _codes_of(m.group(1))]
            pos = nxt + 1
    return spans


# Shell variables joined (`$A$B`, `"${A}""${B}"`): if one holds a hidden
# token's piece, the others hold its other pieces.
_JOINED = r"\$\{?([A-Za-z_]\w*)\}?(?:[\"']{0,2}\$\{?([A-Za-z_]\w*)\}?)+"
_ASSIGNED = r"(?<![\w$.\-])([A-Za-z_]\w*)=(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s'\";&|]+))"


# A token's prefix (a piece of one in a variable, `A=ghp_abcdefgh`).
_TOKEN_START = r"(?:gh[pousr]_|github_pat_|glpat-|sk-|xox[abpr]-|npm_|hf_|AKIA|ASIA|hvs\.)"


def _joined_piece_spans(text: str) -> list[tuple[int, int, str]]:
    """The values of shell variables joined with one that holds a token's
    piece, hidden or not (`A=[REDACTED:github-token]; B=…; … $A$B`,
    `A=ghp_abcdefghijkl; B=…`): all of them."""
    if "$" not in text or "=" not in text:
        return []
    spans: list[tuple[int, int, str]] = []
    # Every assignment read once, and each set of joined names weighed once:
    # reading them all again for each join made `$y$x=` repeated over 32 kB
    # take 7 s (attack 25 S-14).
    assigned: dict[str, list[tuple[int, int]]] = {}
    for m in rx(_ASSIGNED).finditer(text):
        k = next(g for g in (2, 3, 4) if m.group(g) is not None)
        assigned.setdefault(m.group(1), []).append(m.span(k))
    weighed: set[frozenset[str]] = set()
    for joined in rx(_JOINED).finditer(text):
        names = frozenset(rx(r"\$\{?([A-Za-z_]\w*)").findall(joined.group(0)))
        if names in weighed:
            continue
        weighed.add(names)
        values = {name: assigned[name] for name in names if name in assigned}
        starts = [a for spans_of in values.values() for a, _ in spans_of]
        markers = [rx(r"\[REDACTED:([^\]\n]*)\]").match(text, a) for a in starts]
        kinds = [marker.group(1) for marker in markers if marker is not None]
        if not kinds and not any(rx(_TOKEN_START).match(text, a) for a in starts):
            continue
        kind = kinds[0] if kinds else "split-token"
        spans += [(a, b, kind) for spans_of in values.values() for a, b in spans_of
                  if b - a >= 4 and not text.startswith("[REDACTED", a)]
    return spans


# `terraform output -json`: an output marked sensitive whose value is an object
# or a list (a map of credentials, a module's outputs): every string in it is
# its value's, at any depth (the rule above reads a string value only). The
# type is skipped as written (`["object", {"password": "string"}]`, over lines).
_SENSITIVE = r"\"sensitive\"\s*:\s*true\s*,\s*\"type\"\s*:\s*"
_THEN_VALUE = r"\s*,\s*\"value\"\s*:\s*(?=[\[{])"
_JSON_STRING = r"\"((?:[^\"\\\n]|\\.)*)(?:\"(\s*:)?|\Z)"
SENSITIVE_SCAN = 20_000  # characters of a value read for its end


def _json_end(text: str, at: int) -> int:
    """Where the JSON value at `at` ends (a string, a scalar, or brackets
    nested to any depth, strings' brackets not counted); the text's end
    when it is cut before (a tool's output cut short), at most
    SENSITIVE_SCAN characters on."""
    depth = 0
    stop = min(len(text), at + SENSITIVE_SCAN)
    for m in rx(r"\"(?:[^\"\\\n]|\\.)*\"?|[\[\]{}]|[,\n]").finditer(text, at, stop):
        c = m.group(0)[0]
        if c == '"':
            if depth == 0:
                return m.end()
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth <= 0:
                return m.end()
        elif depth == 0:
            return m.start()
    return stop


def _sensitive_output_spans(text: str, low: str) -> list[tuple[int, int, str]]:
    """The strings of a sensitive output's object or list value (not its
    keys). Each stretch of the text is read once: a match inside a value
    read already is skipped."""
    if '"sensitive"' not in low:
        return []
    spans = []
    read = 0
    for m in rx(_SENSITIVE).finditer(text):
        if m.start() < read:
            continue
        read = _json_end(text, m.end())
        value = rx(_THEN_VALUE).match(text, read)
        if value is None:
            continue
        read = _json_end(text, value.end())
        for s in rx(_JSON_STRING).finditer(text, value.end(), read):
            if not s.group(2) and s.group(1) and not s.group(1).startswith("[REDACTED"):
                spans.append((s.start(1), s.end(1), "printed-secret"))
    return spans


# A command that prints a secret on a line longer than the rules read (400
# characters after it): its line is found once by its length, searched for
# the command, and the line after it (or the one after that) read as theirs.
LONG_LINE = 400
_LONG = r"(?m)^[^\n]{" + str(LONG_LINE + 1) + r",}(?=\r?\n)"
_FIRST = "(?:" + "|".join((*_PRINTS_A_SECRET, *_PRINTS_A_SECRET_TOO, _CAT_A_SECRET)) + ")"
_SECOND = "(?:" + "|".join(_PRINTS_A_SECRET_SECOND) + ")"
_NEXT_LINE = r"\r?\n" + _PRINTED[_PRINTED.index("[ \\t]*(?P<v>"):]


def _long_line_spans(text: str, word: Callable[[str], bool]) -> list[tuple[int, int, str]]:
    """The secret printed after a secret-printing command's long line (not
    a word: `word` is redact's judge, as the rules' printed-secret has it)."""
    spans = []
    for line in rx(_LONG).finditer(text):
        for table, skip in ((_FIRST, ""), (_SECOND, r"\r?\n[^\n]*")):
            if rx(table).search(text, line.start(), line.end()):
                value = rx(skip + _NEXT_LINE).match(text, line.end())
                if value and not word(value.group("v")):
                    spans.append((value.start("v"), value.end("v"), "printed-secret"))
    return spans


def hidden(text: str, low: str, found: list[str] | None,
           runs: list[tuple[int, int]], word: Callable[[str], bool]) -> tuple[str, int]:
    """`text` with what no single pattern reads hidden (see the module's
    doc), and how many; each hidden value added to `found`. `runs`: the
    text's runs of letters and digits (redact's _LONG_RUN); `word`: whether a
    value is a word (redact.reads_as_word)."""
    spans = (_key_body_spans(text, runs) if runs and "\n" in text else []) \
        + _byte_array_spans(text) + _code_spans(text, low) \
        + _joined_piece_spans(text) + _sensitive_output_spans(text, low) \
        + (_long_line_spans(text, word) if len(text) > LONG_LINE else [])
    if not spans:
        return text, 0
    out: list[str] = []
    last = n = 0
    for start, end, label in sorted(set(spans)):
        if start < last or start == end:
            continue
        if found is not None:
            found.append(text[start:end])
        out += [text[last:start], f"[REDACTED:{label}]"]
        last = end
        n += 1
    return "".join(out) + text[last:], n
