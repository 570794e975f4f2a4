"""Commands that print a secret, as patterns: the gate hides the line after
one pasted in a text (secret_keys' `printed-secret` rules), and the fold
learns what a Bash call of one printed (fold/shell_secrets). Strings only, in
a module of their own, so a Stop reads them without importing the rules."""

from __future__ import annotations

# A name that is a secret's (`dbPassword`, `db_password`, `api-token`).
NAMES_A_SECRET = r"(?i:pass|secret|token|api[_\-]?key|cred|pwd)"

# Commands that print one secret and nothing else; what is on the line after
# them (`$ heroku auth:token` then its output) is that secret. (A rule reads
# 400 characters of the command's line after it: one scanning to the line's
# end from each of a line's thousand commands would take the square of its
# length; a longer line is read once, by `_long_line_spans`.)
PRINTS_A_SECRET = (
    r"heroku[ \t]+auth:token", r"op[ \t]+read[ \t]", r"bw[ \t]+get[ \t]+password",
    r"bw[ \t]+(?:unlock|login)[ \t][^\n]{0,400}--raw", r"pass[ \t]+(?:show|generate)[ \t]",
    r"gh[ \t]+auth[ \t]+token", r"gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?print-",
    r"aws[ \t]+ecr[ \t]+get-login-password", r"security[ \t]+find-\w+-password[ \t][^\n]{0,400}-w",
    r"vault[ \t]+(?:kv[ \t]+get|read)[ \t][^\n]{0,400}-field", r"vault[ \t]+print[ \t]+token",
    r"keyring[ \t]+get[ \t]", r"doppler[ \t]+secrets[ \t]+get[ \t][^\n]{0,400}--plain",
    r"openssl[ \t]+rand[ \t]", r"az[ \t]+account[ \t]+get-access-token[ \t][^\n]{0,400}tsv",
    r"kubectl[ \t]+get[ \t]+secrets?[ \t/][^\n]{0,400}(?:jsonpath|go-template)",
)
PRINTS_A_SECRET_TOO = (
    # (attack 24) a first password, a key made, a secret looked up
    r"argocd[ \t]+admin[ \t]+initial-password", r"wg[ \t]+gen(?:key|psk)",
    r"secret-tool[ \t]+lookup[ \t]",
    # (attack 25) password makers and stores, cloud secret managers, join tokens
    r"pwgen\b", r"gopass[ \t]+(?:show|generate)[ \t]",
    r"lpass[ \t]+show[ \t][^\n]{0,200}--password",
    r"keepassxc-cli[ \t]+show[ \t][^\n]{0,200}-a[ \t]+password",
    r"aws[ \t]+secretsmanager[ \t]+get-secret-value[ \t][^\n]{0,400}SecretString",
    r"aws[ \t]+ssm[ \t]+get-parameters?[ \t][^\n]{0,400}--with-decryption",
    r"gcloud[ \t]+secrets[ \t]+versions[ \t]+access[ \t]",
    r"az[ \t]+keyvault[ \t]+secret[ \t]+show[ \t][^\n]{0,400}value",
    r"k3s[ \t]+token[ \t]+(?:create|generate)",
    r"docker[ \t]+swarm[ \t]+join-token[ \t][^\n]{0,100}-q",
    r"npm[ \t]+token[ \t]+create", r"doppler[ \t]+secrets[ \t]+get[ \t]",
    # (attack 25, R5 again) random bytes, a gossip key, a tunnel's private key
    r"/dev/u?random\b", r"(?<![\w\-])apg[ \t]", r"consul[ \t]+keygen",
    r"wg[ \t]+show[ \t][^\n]{0,100}(?:private-key|preshared-keys)",
    # a value asked for by a name that is a secret's (`pulumi config get dbPassword`,
    # `terraform output -raw db_password`), a file named for one (`cat …/initialAdminPassword`)
    r"(?:pulumi[ \t]+config[ \t]+get|(?:terraform|tofu)[ \t]+output[ \t][^\n]{0,200}?-raw)"
    r"[^\n]{0,200}?[ \t](?!-)\S*" + NAMES_A_SECRET,
)
# A Bash call of one of these commands: what it printed is the secret (the
# fold learns it, fold/shell_secrets.kind), as the gate hides the line after
# one pasted in a text. (Read on the command alone: no line follows it.)
PRINTS_A_SECRET_CALL = (
    r"(?:" + "|".join(PRINTS_A_SECRET + PRINTS_A_SECRET_TOO) + r")"
    # (the space after `cat` is looked at, not taken: `cat token.txt` has one,
    # and the file's name must begin after a space or a slash)
    r"|cat(?<![\w\-]cat)(?=[ \t])[^\n]{0,300}?(?:initialAdminPassword|\.vault-token"
    r"|[/ \t][\w.\-]*(?i:password|secret|token|api[_\-]?key|cred|pwd"
    r"|(?<![a-z])(?:pass|pw)(?![a-z]))[\w.\-]*)"
    r"[ \t]*(?:\Z|[;&|)\n])")
