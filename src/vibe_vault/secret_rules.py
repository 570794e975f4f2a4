"""The credential forms the redaction gate knows, as data.

Each rule is an id (the `[REDACTED:<id>]` marker), the words that must occur
in a text (lower case) for its pattern to run at all, the pattern, how it is
run, samples of the form and a look-alike that must pass.

Samples are templates, so no credential is written here: `«a36»` stands for
36 random letters and digits (`a` mixed case, `l` lower case and digits, `u`
upper case and digits, `h` hex, `d` digits, `b` base64, `w` letters, digits,
`_` and `-`, `L` letters, `z` base32 lower case, `k` crypt's base64, `m`
base58), and `⟦…⟧` marks the secret the gate must hide (the
whole sample when there is none). `expand` fills a template from a seeded
generator; tests and `bench/secret_coverage.py` do, the hooks never do.

Token shapes here are facts about vendors' formats (their documentation, and
the public gitleaks ruleset the benchmark measures the table against).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from vibe_vault import secret_names, secret_positional
from vibe_vault.secret_keys import FORMS as KEY_FORMS
from vibe_vault.secret_keys import JWT_START
from vibe_vault.secret_prose import COPULA, MORE_PEOPLE_RULES, PEOPLE_RULES
from vibe_vault.secret_vendors import FIRST_SHAPES as VENDOR_FIRST_SHAPES
from vibe_vault.secret_vendors import SHAPES as VENDOR_SHAPES
from vibe_vault.secret_vendors import WORD_SHAPES as VENDOR_WORD_SHAPES

if TYPE_CHECKING:  # the hooks never draw samples: random is not imported for them
    import random

# Where a token may begin: not inside a word, but after "_" (a tool name, an
# identifier that glues a token on) as well as after a space or a quote.
B = r"(?<![A-Za-z0-9])"
# Where it ends: not before a letter or digit, but before "_" (`backup_ghp_…_old.json`:
# a token glued into a file's name by `_` on both sides, which `\b` would refuse).
E = r"(?![A-Za-z0-9])"

# How a rule is run. SHAPED: a prefix and a long random run; it runs when one
# of its triggers is at the start of such a run. RUN: no prefix, but a long
# random run in it; it runs on texts with any such run. WORD: it runs when one
# of its triggers occurs anywhere in the text.
SHAPED, RUN, WORD = "shaped", "run", "word"


class Sample:
    __slots__ = ("secret", "text")

    def __init__(self, text: str, secret: str) -> None:
        self.text, self.secret = text, secret


# Where a match may begin (`Rule.line`). LINE: at a line's start, after
# indentation or a prompt (`host:6379> `, `C: `, `$ `); the pattern begins
# with its literal word instead (a pattern that begins by testing for a line's
# start is tried at every place: a hundred times slower). LINE_OR_UPPER: that,
# or anywhere when the match's first word is written in capitals (`ENV`).
LINE, LINE_OR_UPPER = "line", "line-or-upper"


class Rule:
    """A plain class: a NamedTuple's class costs the hooks a millisecond to make."""

    __slots__ = ("how", "id", "line", "look_alike", "pattern", "samples", "triggers")

    def __init__(self, id: str, triggers: tuple[str, ...], pattern: str,
                 samples: tuple[str, ...] = (), look_alike: str = "", how: str = WORD,
                 line: str = "") -> None:
        self.id, self.triggers, self.pattern = id, triggers, pattern
        self.samples, self.look_alike, self.how = samples, look_alike, how
        self.line = line


_CHARS = {
    "a": "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
    "l": "abcdefghijkmnopqrstuvwxyz0123456789",
    "u": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "h": "0123456789abcdef",
    "d": "0123456789",
    "b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "w": "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789_-",
    "v": "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789_",  # w without `-`
    "L": "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ",
    "z": "abcdefghijklmnopqrstuvwxyz234567",  # base32, lower case
    "k": "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",  # crypt's
    "m": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",  # base58
}


def expand(template: str, rng: random.Random) -> Sample:
    """A sample's text and its secret, the placeholders filled from `rng`.
    Every filled run holds a digit and a letter (when its alphabet has both),
    as real tokens nearly always do."""
    def fill(match: re.Match[str]) -> str:
        chars, n = _CHARS[match.group(1)], int(match.group(2))
        while True:
            out = "".join(rng.choice(chars) for _ in range(n))
            if n < 8 or not (set(chars) & set("0123456789")) or (
                    any(c.isdigit() for c in out) and any(c.isalpha() for c in out)) \
                    or not any(c.isalpha() for c in chars):
                return out

    text = re.sub(r"«(\w)(\d+)»", fill, template)
    m = re.search(r"⟦(.*?)⟧", text, re.S)
    plain = text.replace("⟦", "").replace("⟧", "")
    return Sample(plain, m.group(1) if m else plain)


def samples(rule: Rule, seed: int = 27) -> list[Sample]:
    import random

    rng = random.Random(f"{seed}:{rule.id}")
    return [expand(t, rng) for t in rule.samples]


# A name that means a secret, anywhere in it: `SMTP_PASS`, `db_pass`,
# `STRIPE_KEY`, `.npmrc`'s `_auth`, `"clientSecret"`. Long words count anywhere
# in a name; short ones (pass, pwd, key, auth, creds) only as a whole part of
# it (after `_`, `-`, `.` or the start; `bypass`, `monkey`, `author` are not).
_SHORT = ("pass", "pwd", "pw", "creds", "auth", "key", "salt", "pswd", "psw")  # whole parts only
SECRET_NAME = (
    r"(?:password|passwd|passphrase|passcode|secret|token|credential|api[_\-]?key|apikey"
    # (as people mistype or disguise it, or space it: attack 25)
    r"|pass(?:wrd|owrd|w0rd|[ \t](?:word|phrase|code))|pas(?:word|woord|wd)|p@ssw[o0]rd|pword"
    r"|access[_\-]?key|private[_\-]?key|auth[_\-]?key|"
    # Each test after its word: a pattern that begins with words lets the
    # engine skip ahead to their letters. A short word begins the name or
    # follows a separator ("key" only a separator), and ends a part of it.
    + "|".join(f"{w}(?<=[_.-]key)(?![a-z0-9])" if w == "key" else
               f"{w}(?<![a-z0-9]{w})(?![a-z0-9])" for w in _SHORT)
    # The families of secret_names (`totp_seed`, `recoveryCodes`, `DB_DSN`,
    # `pin-code`, `private`): the one table the prose and the flags read too.
    + "|" + secret_names.assignment_names()
    + ")"
)
# The words the rules that read SECRET_NAME run on: the short words, and the
# families' that hold none of them (`totp_secret` holds `secret` already).
_NAME_TRIGGERS = ("pass", "pwd", "pw", "secret", "token", "key", "credential", "creds", "auth",
                  "salt", "pasw", "p@ss", "psw")
NAME_TRIGGERS = (*_NAME_TRIGGERS, *(t for t in secret_names.assignment_triggers()
                                    if not any(w in t for w in _NAME_TRIGGERS)))

# Schemes whose URL, written with one slash (a path normalised), may hold a password.
_ONE_SLASH_SCHEMES = tuple(f"{s}:/" for s in (
    "http", "https", "ftp", "ftps", "sftp", "postgres", "postgresql", "mysql", "mariadb",
    "redis", "rediss", "mongodb", "mongodb+srv", "amqp", "amqps", "ssh", "git", "smtp",
    "smtps", "imap", "imaps", "ldap", "ldaps", "svn", "sqlserver"))

# Many more vendors' tokens: a prefix and a long run. One rule each, so that
# each pattern begins with its prefix (the engine skips ahead to it).
_VENDOR_TOKENS = tuple(Rule("vendor-token", triggers, B + pattern, tuple(ss), "", SHAPED)
                       for triggers, pattern, *ss in (
    (("pplx-",), r"pplx-[A-Za-z0-9]{40,}", "PERPLEXITY_API_KEY=⟦pplx-«a48»⟧"),
    (("pscale_",), r"pscale_(?:tkn|oauth|pw)_[\w=.\-]{32,64}", "PLANETSCALE=⟦pscale_pw_«a40»⟧"),
    (("pnu_",), r"pnu_[A-Za-z0-9]{36}"),
    (("rdme_",), r"rdme_[a-z0-9]{70}", "export READ_ME=⟦rdme_«l70»⟧"),
    (("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    (("sgp_",), r"sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}"),
    (("shippo_",), r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    (("sm_aat_", "sm_pat_", "sm_sat_"), r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}"),
    (("xkeysib-", "xsmtpsib-"), r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    (("dt0c01.",), r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", "dynatrace ⟦dt0c01.«u24».«u64»⟧"),
    (("ezak", "eztk"), r"EZ[AT]K[A-Za-z0-9]{54}"),
    (("flwseck_test-", "flwpubk_test-"), r"FLW(?:SECK|PUBK)_TEST-[A-Za-z0-9]{12,32}(?:-X)?"),
    (("fo1_",), r"fo1_[\w\-]{43}"),
    (("fm1", "fm2"), r"fm[12][_a-zA-Z0-9+/]{100,}={0,3}"),
    (("fio-u-",), r"fio-u-[\w\-=]{64}"),
    (("ico-",), r"ico-[A-Za-z0-9]{32}"),
    (("api-",), r"API-[A-Z0-9]{26}"),
    (("clojars_",), r"CLOJARS_[A-Za-z0-9]{60}"),
    (("duffel_",), r"duffel_(?:test|live)_[\w\-=]{43}"),
    (("tk-us-",), r"tk-us-[\w\-]{48}"),
    (("sha256~",), r"sha256~[\w\-]{43}", "okta ⟦sha256~«w43»⟧"),
    (("cmvmd",), r"cmVmd[A-Za-z0-9]{59}"),
    (("akcp",), r"AKCp[A-Za-z0-9]{69}"),
    (("lin_oauth_",), r"lin_oauth_[a-f0-9]{64}"),
    (("ops_eyj",), r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"),
    (("a3-",), r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}"),
    (("dnkey-",), r"dnkey-[\w=\-]{26}-[\w=\-]{52}"),
    (("bedrock-api-key-",), r"bedrock-api-key-[A-Za-z0-9+/=]{20,}"),
    (("absk",), r"ABSK[A-Za-z0-9+/]{100,}={0,2}"),
    (("ltai",), r"LTAI[A-Za-z0-9]{20}"),
    (("v1.0-",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    (("pat.", "sat."), r"[ps]at\.[\w\-]{22}\.[\w\-]{24}\.[\w\-]{20}"),
    (("pat",), r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    (("s-s4t2ud-", "s-s4t2af-"), r"s-s4t2(?:ud|af)-[a-f0-9]{64}"),
    (("phc_", "phx_"), r"ph[cx]_[A-Za-z0-9]{43}"),
    (("live_", "test_"), r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}(?![A-Za-z0-9])"),
    (("tfp_",), r"tfp_[A-Za-z0-9_\-=.]{40,}"),
    (("cfut_",), r"cfut_[A-Za-z0-9]{40,}"),
    (("p8e-",), r"p8e-[A-Za-z0-9]{32}"),
    (("4b1d",), r"4b1d[A-Za-z0-9]{38}"),
    (("_mmk",), r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"),
    (("sc_", "ext_", "scauth_", "authress_"),
     r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_\-][a-z0-9\-]{10,32}"
     r"\.[a-z0-9+/_=\-]{30,120}"),
))


# Names of services whose keys have no shape of their own: a value assigned to
# a name holding one (`DATADOG_APP = 3f…`, `"twilioSid": "…"`) is a secret.
VENDORS = (
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "confluence",
    "jira", "beamer", "bitbucket", "bittrex", "cloudflare", "codecov", "cohere", "co_api_key",
    "coinbase", "confluent", "contentful", "contribsys", "datadog", "discord", "droneci",
    "dropbox", "etsy", "facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks",
    "gitter", "gocardless", "heroku", "hubspot", "intercom", "jfrog", "artifactory", "bintray",
    "kraken", "kucoin", "launchdarkly", "linear", "linkedin", "linked_in", "linked-in", "lob",
    "looker", "mailchimp", "mailgun", "mapbox", "mattermost", "meraki", "messagebird",
    "message_bird", "message-bird", "netlify", "newrelic", "new_relic", "new-relic",
    "nytimes", "newyorktimes", "new-york-times", "okta", "plaid", "privateai", "private_ai",
    "private-ai", "rapidapi", "sendbird", "sentry", "snyk", "sonar", "squarespace", "sumo",
    "telegr", "travis", "twitch", "twitter", "typeform", "yandex", "zendesk", "twilio",
    "pagerduty", "circleci", "vercel", "segment", "mixpanel", "amplitude", "xray",
)

# Services named in prose before their key (`mistral key …`, `dd app key …`).
PROSE_VENDORS = (*VENDORS, "mistral", "todoist", "dd", "wandb", "openai", "anthropic", "groq",
                 "cohere", "replicate", "together", "fireworks", "perplexity", "deepseek",
                 "voyage", "pinecone", "notion", "stripe", "github", "gitlab", "slack",
                 "digitalocean", "huggingface", "kaggle", "airbrake", "rollbar", "bugsnag",
                 "postmark", "sendgrid", "resend", "supabase", "firebase", "clerk", "linode",
                 "vultr", "hetzner", "netlify", "render", "railway", "doppler", "honeycomb")

# Between a name and its value, as the public rulesets write it: quotes, then
# `=`, `:`, `:=`, `=>`, `>`, `||`, `?=` or `,`, then quotes, spaces or `=`.
# (or the value on a line below, up to two blank lines under its label and
# indented: `Your new API key:⏎⏎    V`, as a command line tool prints a key it made)
_SEP = (r"[\s'\"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"
        r"(?:[ \t]*(?:\r?\n[ \t]{0,8}){1,3}[\x60'\"]?|[\x60'\"\s=]{0,5})")
# What ends a value there: a quote, a space, `;`, an escaped line break, the end.
_END = r"(?=[\x60'\"\s;]|\\[nr]|$)"


def _vendor_pattern(vendors: tuple[str, ...]) -> str:
    words = "|".join(sorted({re.escape(v) for v in vendors}, key=lambda v: (-len(v), v)))
    return (
        # gitleaks writes `new-york-times,` with its comma: a comma may follow a name.
        r"(?i)(?:" + words + r"),?[\w.\- \t]{0,20}?" + _SEP +
        # A value with a digit and a letter (or a long number: an id that is a key).
        r"(?P<v>(?=[^\s\x60'\";]{0,150}\d)(?=[^\s\x60'\";]{0,150}[a-z])[\w.=\-+/~%|:]{10,150}"
        r"|\d{16,})" + _END)


# It runs near a long run of letters and digits (`=` counts: base64 padding):
# a name is common, a key is not.
VENDOR_RULE = Rule(
    "vendor-key", VENDORS, _vendor_pattern(VENDORS),
    ("DATADOG_APP_ID=⟦«l40»⟧", '"twitterConsumerSecret": "⟦«a50»⟧"',
     "sentry_dsn_key: ⟦«h32»⟧", "discord_client = ⟦«d18»⟧",
     'discord":\'" ⟦«l13»=«l8»-«l9»=«l2»⟧'),
    "linear: 0.5, sentry: enabled, discord: https://discord.gg/abc", RUN)
# Vendors whose keys are shorter than that run (Dropbox's 15, LinkedIn's 14):
# found by their name, which is rare.
SHORT_KEY_VENDORS = ("dropbox", "linkedin", "linked_in", "linked-in")
SHORT_VENDOR_RULE = Rule(
    "vendor-key", SHORT_KEY_VENDORS, _vendor_pattern(SHORT_KEY_VENDORS),
    ('L-dropbox"" ||⟦«l15»⟧', "linked-in>⟦«l14»⟧", "dropbox_token: ⟦«a15»⟧"),
    "dropbox: enabled, linkedin: https://linkedin.com/in/me")


# Commands that take a secret as an argument, or read one piped in on stdin.
# The value is the argument's (quoted or bare); caught, it is learned too.
_NOT_VAR = r"(?!\$[\w{(])"


class _Values:
    """Fresh value groups (v, v2, ...) for one rule's pattern."""

    def __init__(self) -> None:
        self.n = 0

    def _name(self) -> str:
        self.n += 1
        return "v" if self.n == 1 else f"v{self.n}"

    def any(self, bare: str = r"[^\s'\"|;&<>()]+") -> str:
        """A shell word: '…', "…" or bare; not a variable's value (`$TOKEN`, "${X}")."""
        return (f"(?:'(?P<{self._name()}>[^'\\n]+)'"
                f"|\"(?P<{self._name()}>{_NOT_VAR}[^\"\\n]+)\""
                f"|(?P<{self._name()}>{_NOT_VAR}{bare}))")

    def after(self, sep: str) -> str:
        """The part after `sep` of a `user<sep>secret` word, quoted whole or in part."""
        return (f"(?:'[^\\s'{sep}]{{1,256}}{sep}(?P<{self._name()}>[^'\\n]+)'"
                f"|\"[^\\s\"{sep}]{{1,256}}{sep}(?P<{self._name()}>[^\"\\n]+)\""
                f"|[^\\s'\"{sep}]{{1,256}}{sep}" + self.any() + ")")


def _cli_rule() -> Rule:
    v = _Values()
    args = r"[^\n|;&]{0,400}?\s"  # the command's other arguments
    pattern = (
        r"(?:\bssh-keygen\b" + args + r"-[NP]\s*" + v.any()
        + r"|\b(?:un)?zip\b" + args + r"-P\s*" + v.any()
        + r"|\b7z[arz]?\b" + args + r"-p" + v.any(r"[^\s'\"|;&<>()-][^\s'\"|;&<>()]*")
        + r"|\bsmbclient\b" + args + r"(?:-U|--user)[ =]?" + v.after("%")
        + r"|(?<![^\s;&|(])(?:https?|xhs?)(?=\s)" + args + r"(?:-a|--auth)[ =]?" + v.after(":")
        + r"|\bldap\w+\b" + args + r"-w\s*" + v.any()
        + r"|\bsqlcmd\b" + args + r"-P\s*" + v.any()
        + r"|\bsqlplus\b(?:\s+-\S+){0,16}\s+['\"]?[A-Za-z0-9_$#]+/"
        + r"(?:\"(?P<" + v._name() + r">[^\"\n]+)\"|(?P<" + v._name() + r">[^\s'\"@/]+))"
        + r"|--(?:passphrase|secret-string|secret-binary)[ =]" + v.any()
        + r"|\bopenssl\b" + args + r"-[kK]\s+" + v.any()
        + r"|\brabbitmqctl\b" + args + r"(?:add_user|change_password)\s+\S+\s+" + v.any()
        + r"|\bnet\s+user\s+(?!/)\S+\s+(?![/*])" + v.any()
        # net use [X:] \\srv\share PASSWORD [/user:me] (the password before the options)
        + r"|\bnet\s+use(?:\s+(?:[A-Za-z]:|\*|\\\\\S+))*\s+(?![/*\\]|[A-Za-z]:(?!\S))" + v.any()
        + r"|\bconfig\s+set\s+\S*(?:_auth|_authToken|_password|npmAuthToken|npmAuthIdent)\s+"
        + v.any()
        + r"|\bput-parameter\b" + args + r"--value[ =]" + v.any()
        # echo X | <a command that reads a secret on stdin>
        + r"|\b(?:echo|printf)\s+(?:-[neE]+\s+)*(?:'%s(?:\\n)?'\s+)?" + v.any()
        + r"\s*\|\s*(?=[^\n;&]*?(?:--password-stdin|--with-token|--stdin\b|\bchpasswd\b"
        r"|\bsudo\s+(?:-\w+\s+)*-\w*S\b|\bsecrets?\s+(?:put|set|create|versions\s+add)\b"
        r"|\benv\s+add\b|--data-file[ =]-(?!\S)|--passwd-on-stdin\b|--passphrase-fd[ =]?0\b))"
        + ")")
    return Rule(
        "cli-password",
        ("ssh-keygen", "zip", "7z", "smbclient", "http", "xh", "ldap", "sqlcmd", "sqlplus",
         "net use", "--passphrase", "--secret-", "openssl", "rabbitmqctl", "net user", "config set",
         "put-parameter", "-stdin", "--with-token", "sudo", "secret put", "secrets ",
         "secret set", "env add", "data-file", "chpasswd", "secret create", "secrets create",
         "-on-stdin", "passphrase-fd"),
        pattern,
        ("ssh-keygen -t ed25519 -N '⟦«a18»⟧' -f k", "zip -P ⟦«a16»⟧ s.zip a",
         "unzip -P ⟦«a16»⟧ a.zip", "7z a -p⟦«a16»⟧ a.7z d",
         "smbclient //srv/share -U admin%⟦«a16»⟧", "ldapsearch -x -D cn=admin -w ⟦«a16»⟧ -b dc=ex",
         "sqlcmd -S db -U sa -P ⟦«a16»⟧ -Q 'select 1'", "sqlplus scott/⟦«a16»⟧@orcl",
         "gpg --batch --passphrase ⟦«a16»⟧ -d f.gpg",
         "openssl enc -aes-256-cbc -k ⟦«a16»⟧ -in a -out b", "http -a bob:⟦«a16»⟧ https://x",
         "rabbitmqctl add_user admin ⟦«a16»⟧", "net user admin ⟦«a16»⟧ /add",
         "net use Z: \\\\srv\\share ⟦«a16»⟧ /user:me",
         "net use \\\\srv\\s \"⟦«a8» «a6»⟧\" /user:d\\me",
         "npm config set //registry.npmjs.org/:_authToken ⟦«a16»⟧",
         "aws ssm put-parameter --name /a --type SecureString --value ⟦«a16»⟧",
         "aws secretsmanager create-secret --name x --secret-string '⟦«a16»⟧'",
         "echo ⟦«a16»⟧ | docker login -u bob --password-stdin",
         "echo '⟦«a16»⟧' | sudo -S apt update", "echo ⟦«a16»⟧ | gh auth login --with-token",
         "echo ⟦«a16»⟧ | wrangler secret put API_KEY",
         "echo ⟦«a16»⟧ | vercel env add STRIPE_KEY production",
         "echo -n '⟦«a16»⟧' | gcloud secrets create x --data-file=-",
         "htpasswd -b -c .htpasswd admin ⟦«a16»⟧"),
        "zip -r a.zip dir && ssh-keygen -t ed25519 -f k && gpg -d f.gpg")


# A password set by SQL (`ALTER USER … WITH PASSWORD '…'`, `IDENTIFIED BY '…'`).
SQL_PASSWORD = Rule(
    "sql-password", ("identified", "password"),
    # (GRANT's old form names the user after TO: `GRANT ALL ON *.* TO 'u'@'%'
    # IDENTIFIED BY '…'`; Oracle's value may be bare: `IDENTIFIED BY s3cr3t`, not
    # a bind variable, `IDENTIFIED BY :pw`, nor a hash's `BY VALUES '…'`)
    r"(?i)\b(?:user|role|login|grant)\b[^\n;]{0,200}?\b(?<![\-_.])(?:password|identified\s+(?:with\s+\S+\s+)?by)"
    r"\s+(?:'(?P<v>(?!\$[\w{(])[^'\n]+)'|\"(?P<v2>(?!\$[\w{(])[^\"\n]+)\""
    r"|(?<=[bB][yY][ \t])(?P<v5>(?!(?:values|password)\b)[^\s'\"`;:$&@?{}()\[\]]"
    r"[^\s'\"`;]{2,200}?)(?=[;\s\"'`]|$))"
    # MySQL's `SET PASSWORD [FOR 'app'@'%'] = 'X'` (or `= PASSWORD('X')`)
    r"|\bset\s+password\b(?:\s+for\s+[^\n=;]{1,200}?)?\s*=\s*(?:password\(\s*)?"
    r"(?:'(?P<v3>(?!\$[\w{(])[^'\n]+)'|\"(?P<v4>(?!\$[\w{(])[^\"\n]+)\")",
    ("psql -c \"ALTER USER app WITH PASSWORD '⟦«a16»⟧'\"",
     "mysql -e \"CREATE USER 'a'@'%' IDENTIFIED BY '⟦«a16»⟧'\"",
     "SET PASSWORD FOR 'app'@'%' = '⟦«a16»⟧';",
     "GRANT ALL ON *.* TO 'u'@'%' IDENTIFIED BY '⟦«a16»⟧';",
     "CREATE USER u IDENTIFIED BY ⟦«a16»⟧;"),
    "psql -c 'select 1' -c 'ALTER USER app WITH LOGIN'")

# A secret put in the environment by code: `os.environ['API_KEY'] = '…'`. A
# quoted literal: not judged as `key = value` is (`a0[` is no subscript here).
ENVIRON_SECRET = Rule(
    "environ-secret", ("environ",),
    r"(?i)environ\[\s*['\"][a-z0-9_]*" + SECRET_NAME + r"[a-z0-9_]*['\"]\s*\]\s*=\s*"
    r"(?:'(?P<v>[^'\n]+)'|\"(?P<v2>[^\"\n]+)\")",
    ("python -c \"import os; os.environ['API_KEY']='⟦«a16»⟧'\"",),
    "os.environ['PATH'] = '/usr/bin'")

SHELL_RULES = (_cli_rule(), SQL_PASSWORD, ENVIRON_SECRET)


# A name that means a secret, whole, on the lower-cased text (`db_password`,
# `stripe.api-key`): for forms that give a name and then its value.
_SECRET_VAR = r"[a-z0-9_.\-]{0,64}" + SECRET_NAME + r"[a-z0-9_.\-]{0,64}"


def _docker_value() -> str:
    v = _Values()
    bare = _NOT_VAR + r"(?![/~]|\.{1,2}/)"
    return (r"(?:'(?P<" + v._name() + r">[^'\n]+)'|\"(?P<" + v._name() + r">" + _NOT_VAR
            + r"[^\"\n]+)\"|(?P<" + v._name() + r">" + bare + r"[^\s'\"\\]+)"
            + r"(?=[ \t]*\\?\r?(?:\n|$))|(?P<" + v._name() + r">" + bare
            + r"(?=[^\s'\"]{0,256}\d)(?=[^\s'\"]{0,256}[a-z])[^\s'\"\\]{8,})(?!\S))")


def _config_rules() -> tuple[Rule, ...]:
    """A secret given a name in a configuration language or a shell other than
    sh: PHP's define, a Dockerfile's ENV/ARG, a Terraform variable's default,
    PowerShell's SecureString and environment, Windows' setx, fish's set. The
    values are judged as `name = value` is (placeholders, `$VARS` pass)."""
    def rule(triggers: tuple[str, ...], pattern: str, samples: tuple[str, ...],
             look_alike: str, flags: str = "(?i)") -> Rule:
        return Rule("config-secret", triggers, flags + pattern, samples, look_alike)

    def quoted(v: _Values) -> str:
        return (f"(?:'(?P<{v._name()}>[^'\\n]+)'"
                f"|\"(?P<{v._name()}>{_NOT_VAR}[^\"\\n]+)\")")

    php, tf, tf_sensitive, ps, ps_env, setx, fish = (_Values() for _ in range(7))
    return (
        rule(("define",),
             r"define\(\s*['\"]" + _SECRET_VAR + r"['\"]\s*,\s*" + quoted(php),
             ("define('DB_PASSWORD', '⟦«a16»⟧');", 'define("AUTH_KEY", "⟦«a20»⟧");'),
             "define('DB_PASSWORD', getenv('DB_PASSWORD'));"),
        # `ENV NAME value` or `ARG NAME value` (a line of a Dockerfile, or ENV
        # in capitals anywhere): a value quoted, or one word ending the line,
        # or one as random as a key.
        *(Rule("config-secret", (word + " ", word + "\t"),
               "(?i)" + word + r"[ \t]+" + _SECRET_VAR + r"[ \t]+" + _docker_value(),
               samples, look_alike, line=LINE_OR_UPPER)
          for word, samples, look_alike in (
              ("env", ("FROM postgres:16\nENV POSTGRES_PASSWORD ⟦«a16»⟧\n",
                       "ENV DB_PASSWORD \"⟦«a12» «a6»⟧\"", "run this: ENV API_KEY ⟦«a24»⟧"),
               "ENV DB_PASSWORD_FILE /run/secrets/db\nENV API_KEY ${API_KEY}\n"
               "set the env password ahead"),
              ("arg", ("ARG NPM_TOKEN ⟦«a24»⟧",), "ARG NPM_TOKEN\nthe arg token counts"))),
        rule(("variable",),
             r"\bvariable\s+\"" + _SECRET_VAR + r"\"\s*\{[^{}]{0,400}?\bdefault\s*=\s*"
             + r"\"(?P<" + tf._name() + r">" + _NOT_VAR + r"[^\"\n]+)\"",
             ('variable "db_password" {\n  type    = string\n  default = "⟦«a16»⟧"\n}',),
             'variable "db_password" { type = string\n sensitive = true }'),
        # Any variable Terraform is told is sensitive: its default is a secret.
        rule(("sensitive",),
             r"\bvariable\s+\"[\w\-]{1,64}\"\s*\{(?=[^{}]{0,400}?\bsensitive\s*=\s*true\b)"
             r"[^{}]{0,400}?\bdefault\s*=\s*\"(?P<" + tf_sensitive._name() + r">" + _NOT_VAR
             + r"[^\"\n]+)\"",
             ('variable "db" {\n  default = "⟦«a16»⟧"\n  sensitive = true\n}',
              'variable "api" {\n  sensitive = true\n  type = string\n  default = "⟦«a16»⟧"\n}'),
             'variable "db" {\n  default = "postgres"\n  sensitive = false\n}'),
        rule(("securestring",),
             r"(?:\bconvertto-securestring(?:\s+-(?:asplaintext|force))*\s+(?:-string\s+)?"
             + quoted(ps) + r"|" + quoted(ps) + r"\s*\|\s*convertto-securestring\b)",
             ("$pw = ConvertTo-SecureString '⟦«a16»⟧' -AsPlainText -Force",
              "ConvertTo-SecureString -String \"⟦«a16»⟧\" -AsPlainText -Force",
              "'⟦«a16»⟧' | ConvertTo-SecureString -AsPlainText -Force"),
             "ConvertTo-SecureString $plain -AsPlainText -Force"),
        rule(("setenvironmentvariable",),
             r"\bsetenvironmentvariable\(\s*['\"]" + _SECRET_VAR + r"['\"]\s*,\s*"
             + quoted(ps_env),
             ("[Environment]::SetEnvironmentVariable('API_KEY', '⟦«a24»⟧', 'User')",),
             "[Environment]::SetEnvironmentVariable('API_KEY', $key, 'User')"),
        # Windows' `setx NAME value [/m]`; fish's `set -x NAME value` (-g, -U, --export).
        rule(("setx",),
             r"\bsetx\s+" + _SECRET_VAR + r"\s+" + setx.any(),
             ("setx API_KEY ⟦«a24»⟧", 'setx DB_PASSWORD "⟦«a16»⟧" /m'),
             "setx PATH \"%PATH%;C:\\bin\""),
        rule(("set -", "set --"),
             r"\bset(?:\s+(?:-[a-z]+|--(?:export|global|universal|local))){1,8}\s+" + _SECRET_VAR
             + r"\s+" + fish.any(),
             ("set -x API_KEY ⟦«a24»⟧", "set -gx GITHUB_TOKEN '⟦«a24»⟧'",
              "set --export DB_PASSWORD \"⟦«a16»⟧\""),
             "set -x PATH $PATH ~/bin; set -gx API_KEY $API_KEY"),
    )


def _structured_rules() -> tuple[Rule, ...]:
    """A secret given a name in a structure other than `name = value`: an XML
    element or `<add key=… value=…/>`, a Kubernetes env entry (`- name: X` then
    `value: …`, or its JSON), a default of an environment lookup, a `git
    config` setting, a Python `auth=(user, password)` tuple. Judged as
    `config-secret` is (placeholders pass)."""
    def rule(triggers: tuple[str, ...], pattern: str, samples: tuple[str, ...],
             look_alike: str) -> Rule:
        return Rule("config-secret", triggers, "(?i)" + pattern, samples, look_alike)

    def quoted(v: _Values, low: int = 4) -> str:
        return (f"(?:'(?P<{v._name()}>[^'\\n]{{{low},200}})'"
                f"|\"(?P<{v._name()}>{_NOT_VAR}[^\"\\n]{{{low},200}})\")")

    # A name that ends in a word meaning a secret (`password`, `clientSecret`,
    # `apiKey`): `passwordPolicy` or `tokenEndpoint` names no secret.
    ends_secret = (r"[\w:.\-]*(?:password|passwd|passphrase|secret|token|credentials?|pass|pwd"
                   r"|(?:api|access|secret|private|auth|client|master|account)[_\-]?key)")
    xml, add, k8s, env, git, auth, prop, secrets_list = (_Values() for _ in range(8))
    arrow, shell_default, env_or, filter_default, filter_first = (_Values() for _ in range(5))
    # An environment lookup (or a keyring's) whose name says a secret, its
    # default after it: the default is a literal given in its place.
    # (vendor: Deno's and Ruby's `env.get(`, `ENV.fetch(`, Elixir's
    # `System.get_env(`, .NET's, Rust's `env::var(`)
    lookup = (r"(?:\benv\.(?:get\(|fetch\()?\s*[\"']?|\benv\[\s*[\"']|\bget_?env\(\s*[\"']"
              r"|\benviron\.get\(\s*[\"']|\benviron\[\s*[\"']|\benv\(\s*[\"']"
              # (each name after `\b`: without, the search is five times slower)
              r"|\bgetenvironmentvariable\(\s*[\"']|\benv::var\(\s*[\"'])" + _SECRET_VAR
              + r"[\"']?\s*[\])]?|\bget_password\([^()\n]{0,200}\)")
    return (
        # (attack 25) R's `password <- "…"`, Haskell's and Elixir's `password :: "…"`:
        # a literal only.
        rule(("<-", "::"),
             SECRET_NAME + r"[a-z0-9_.\-]{0,64}[ \t]*(?:<<?-|::)[ \t]*" + quoted(arrow),
             ('password <- "⟦«a16»⟧"', 'db_password :: "⟦«a16»⟧"'),
             "password <- readline(); password :: String; Token::new"),
        # A shell's default of a secret's variable: `${DB_PASSWORD:-…}` (`:=`, `-`, `=`).
        rule(("${",),
             r"\$\{" + _SECRET_VAR + r":?[\-=](?P<" + shell_default._name()
             + r">(?![$\x60])[^\s{}'\"$\x60]{4,200})\}",
             ("password: ${DB_PASSWORD:-⟦«a16»⟧}",
              "docker run -e PGPASSWORD=${PGPASSWORD:-⟦«a16»⟧} postgres"),
             "password: ${DB_PASSWORD:-}; ${API_TOKEN:-$DEFAULT_TOKEN}; ${DB_PASSWORD:?unset}"),
        # A literal after a lookup of a secret's variable, in its stead
        # (`process.env.DB_PASS || "…"`, `ENV["PW"] || "…"`, `os.getenv("X") or "…"`,
        # Kotlin's `?:`, PHP's `??`).
        # (vendor: Ruby's block, `ENV.fetch("X") { "…" }`; Rust's
        # `.unwrap_or("…")`, `.unwrap_or_else(|_| "…")`)
        rule(("||", "??", " or ", "?:", "fetch(", "unwrap_or"),
             r"(?:" + lookup + r")\s*(?:\|\||\?\?|\?:|\bor\b|\{|\.unwrap_or(?:_else)?\("
             r"(?:\s*\|[^|\n]{0,20}\|)?)\s*" + quoted(env_or),
             ('const pw = process.env.DB_PASS || "⟦«a16»⟧";', '<%= ENV["PW"] || "⟦«a16»⟧" %>',
              'ENV.fetch("SECRET_KEY_BASE") { "⟦«a16»⟧" }',
              'env::var("API_KEY").unwrap_or("⟦«a16»⟧".to_string())',
              'Environment.GetEnvironmentVariable("API_KEY") ?? "⟦«a16»⟧"',
              "pw = os.getenv('DB_PASSWORD') or '⟦«a16»⟧'",
              'keyring.get_password("svc", "bob") or "⟦«a16»⟧"'),
             'process.env.DB_PASS || ""; process.env.API_TOKEN ?? null; '
             "os.getenv('DB_PASSWORD') or default_password"),
        # A template's default for a secret (Helm's and Jinja's `| default "…"`,
        # Helm's `default "…" .Values.password`).
        rule(("default",),
             SECRET_NAME + r"[a-z0-9_.\-]{0,64}\s*\|\s*default\s*\(?\s*" + quoted(filter_default),
             ('password: {{ .Values.password | default "⟦«a16»⟧" }}',
              "{{ db_password | default('⟦«a16»⟧') }}"),
             '{{ .Values.password | default "" }}; {{ password | default(omit) }}'),
        rule(("default",),
             r"\bdefault\s+" + quoted(filter_first) + r"\s+\$?\.values\.[\w.]{0,64}?"
             + SECRET_NAME,
             ('{{ default "⟦«a16»⟧" .Values.db.password }}',),
             '{{ default "postgres" .Values.db.user }}'),
        # A shell's ANSI-C quoting (`X_PASSWORD=$'…'`): a literal, never code.
        rule(("=$'",),
             r"(?<![a-z0-9_])" + _SECRET_VAR + r"=\$'(?P<v>[^'\n]{4,200})'",
             ("export DB_PASSWORD=$'⟦«a16»⟧'",), "export DB_PASSWORD=$'\\n'"),
        rule(tuple(f"{w}>" for w in ("password", "passwd", "passphrase", "secret", "token",
                                     "credential", "credentials", "pass", "pwd", "key")),
             r"<(?P<tag>" + ends_secret + r")(?:\s[^<>]*)?>[ \t]*(?:(?P<" + xml._name()
             + r">[^<>\s][^<>\n]{3,199}?)|<!\[cdata\[(?P<" + xml._name()
             + r">[^\]\n]{1,200})\]\]>)[ \t]*</(?P=tag)>",
             ("<password>⟦«a14»⟧</password>", "<clientSecret>⟦«a16»⟧</clientSecret>",
              "<server><id>x</id><username>bob</username><password>⟦«a16»⟧</password></server>",
              "<password><![CDATA[⟦«a16»⟧]]></password>"),
             "<passwordPolicy>strong</passwordPolicy><token>${TOKEN}</token>"),
        # An element naming a secret in its name= or key= attribute, its value
        # the element's text or its value= (Hibernate's and Spring's
        # <property>, Java's <entry key=…>, <param>, <setting>); its close
        # may be gone (a prompt's tags are taken off, text.strip_wrappers).
        rule(("<property", "<entry", "<param", "<setting", "<prop ", "<parameter", "<item"),
             r"<(?P<el>property|entry|param|setting|prop|parameter|item)\s+(?:name|key)\s*=\s*"
             r"[\"']" + ends_secret + r"[\"'](?:\s+(?:type|scope)\s*=\s*[\"'][^\"'<>]*[\"'])*"
             r"(?:\s*>[ \t]*(?:<!\[cdata\[(?P<" + prop._name() + r">[^\]\n]{1,200})\]\]>|(?P<"
             + prop._name() + r">[^<>\s][^<>\n]{0,199}?)[ \t]*(?:</(?P=el)>|(?=<|\r?\n|$)))"
             r"|\s+value\s*=\s*" + quoted(prop, 1) + ")",
             ('<property name="hibernate.connection.password">⟦«a16»⟧</property>',
              '<entry key="db.password">⟦«a14»⟧</entry>',
              '<property name="password" value="⟦«a16»⟧"/>'),
             '<property name="hibernate.connection.password">${DB_PASSWORD}</property>'
             '<property name="password_length">12</property>'
             '<property name="passwordEncoder" ref="encoder"/>'),
        rule(("<add key",),
             r"<add\s+key\s*=\s*[\"']" + _SECRET_VAR + r"[\"']\s+value\s*=\s*" + quoted(add),
             ('<add key="ApiKey" value="⟦«a24»⟧" />', "<add key='DbPassword' value='⟦«a16»⟧'/>"),
             '<add key="ApiKey" value="$(ApiKey)" /><add key="Theme" value="dark" />'),
        # (each pattern begins with its literal: the engine skips ahead to it)
        rule(("name:",),
             r"name:[ \t]*[\"']?" + _SECRET_VAR + r"[\"']?[ \t]*\r?\n[ \t]*(?:-[ \t]+)?"
             r"value:[ \t]*(?:" + quoted(k8s, 1) + r"|(?P<" + k8s._name()
             + r">[^\s\"'#{][^\s\"']{3,199}))",
             ('env:\n  - name: API_SECRET\n    value: "⟦«a14»⟧"',
              "- name: DB_PASSWORD\n  value: ⟦«a14»⟧"),
             "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db"),
        # A list under a key naming secrets (`secrets:`, `credentials:`):
        # each entry's `value:` is one, whatever its name.
        rule(("secrets:", "credentials:", "passwords:", "tokens:"),
             r"(?<![\w.\-])(?:secrets|credentials|passwords|tokens):[ \t]*\r?\n"
             r"(?:[ \t]*-[ \t]+[\w\-]{1,64}:[^\n]{0,200}\r?\n|[ \t]+[\w\-]{1,64}:[^\n]{0,200}\r?\n)"
             r"{0,8}?[ \t]*(?:-[ \t]+)?value:[ \t]*(?:" + quoted(secrets_list, 1) + r"|(?P<"
             + secrets_list._name() + r">[^\s\"'#{][^\s\"']{3,199}))",
             ("secrets:\n  - name: DB\n    value: ⟦«a16»⟧",
              'credentials:\n- name: smtp\n  value: "⟦«a16»⟧"'),
             "secrets:\n  - name: DB\n    valueFrom:\n      secretKeyRef: {}"),
        rule(('"name"',),
             r"\"name\"\s*:\s*\"" + _SECRET_VAR
             + r"\"\s*,\s*\"value\"\s*:\s*\"(?P<v>[^\"\n]{4,200})\"",
             ('{"name": "API_KEY", "value": "⟦«a20»⟧"}',),
             '{"name": "API_KEY", "valueFrom": {"secretKeyRef": {}}}'),
        # (vendor: its default by keyword, `env("SECRET", default="…")`;
        # django-environ's `env.str(`, decouple's `config(`, `setdefault(`,
        # a settings' `get(`, a helper's `getEnv(`, `envOr(`; decouple's
        # `config("KEY", …)` names its key so)
        rule(("getenv", "environ.get", "env.get", "env(", "env.fetch(", "env.str(", "config(",
              "setdefault(", "settings.get(", "config.get(", "envor(", "env_or(",
              "getenvordefault(", "getordefault("),
             r"(?:getenv|environ\.get|env\.get|\benv|env\.fetch|env\.(?:str|bytes)|\bconfig"
             r"|\.setdefault|settings\.get|config\.get|\benv_?or|get_?env_?or_?default"
             r"|getordefault)\(\s*['\"](?:" + _SECRET_VAR + r"|key)['\"]\s*,\s*(?:default\s*=\s*)?"
             + quoted(env),
             ("os.getenv('API_KEY', '⟦«a16»⟧')", 'os.environ.get("DB_PASSWORD", "⟦«a16»⟧")',
              "ENV.fetch('SECRET_TOKEN', '⟦«a16»⟧')", "env('DB_PASSWORD', '⟦«a12»⟧')",
              'env("SECRET", default="⟦«a16»⟧")', 'config("KEY", default="⟦«a16»⟧", cast=str)',
              'os.environ.setdefault("SECRET_KEY", "⟦«a16»⟧")'),
             "os.getenv('API_KEY', 'your-key-here'); os.getenv('API_KEY', None)"),
        rule(("git config",),
             r"\bgit\s+config\b[^\n|;&]{0,400}?\s[\w.\-]*(?:token|password|passwd|secret"
             r"|api[_\-]?key|pass)[\w\-]*\s+" + git.any(),
             ("git config --global github.token ⟦«a16»⟧", "git config hub.oauthtoken '⟦«a20»⟧'"),
             "git config --global --unset github.token; git config --get github.token"),
        rule(("auth=", "auth =", "auth(", "auth ("),
             r"(?:auth\s*=\s*\(|auth\s*\()\s*(?:'[^'\n]*'|\"[^\"\n]*\"|[\w.]+)\s*,\s*"
             + quoted(auth) + r"\s*\)",
             ("requests.get(url, auth=('admin', '⟦«a14»⟧'))",
              'HTTPBasicAuth("admin", "⟦«a14»⟧")',
              "Elasticsearch('https://es:9200', basic_auth=('elastic', '⟦«a16»⟧'))"),
             "requests.get(url, auth=('admin', password)); auth=(user, pw)"),
    )


# A link's path word after which a secret is the next part (url-secret).
_LINK_WORDS = ("invite", "invites", "invitation", "join", "verify", "magic", "magic-link",
               "reset", "reset-password", "confirm", "activate", "shared_invite", "accept-invite")


def _more_named_rules() -> tuple[Rule, ...]:
    """A secret named in yet other ways: csh's `setenv NAME value` (and C's
    `setenv("NAME", "…", 1)`), a setter's call (`props.setProperty("password",
    "…")`, `localStorage.setItem('token', '…')`), `dotnet user-secrets set NAME
    value` (whatever its name: every user secret is one), `credentials
    bob:…` said in prose, a name then a tab then its value on its own line
    (`PASSWORD<TAB>…`, as a spreadsheet or a password manager exports it),
    GitHub Actions' `::add-mask::…` (the very value it is told to hide), and a
    URL's query parameter named for a key (`?key=…`, `&api_key=…`, `&token=…`,
    `&sig=…`)."""
    def quoted(v: _Values) -> str:
        return (f"(?:'(?P<{v._name()}>[^'\\n]{{4,200}})'"
                f"|\"(?P<{v._name()}>{_NOT_VAR}[^\"\\n]{{4,200}})\")")

    setenv, call, dotnet = _Values(), _Values(), _Values()
    word = r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"  # a shell word (a name)
    query_names = sorted(secret_names.QUERY_NAMES, key=lambda n: (-len(n), n))
    return (
        Rule("config-secret", ("setenv",),
             r"(?i)\bsetenv(?:[ \t]+" + _SECRET_VAR + r"[ \t]+" + setenv.any()
             + r"|\(\s*['\"]" + _SECRET_VAR + r"['\"]\s*,\s*" + quoted(setenv) + ")",
             ("setenv API_TOKEN ⟦«a16»⟧", "setenv DB_PASSWORD '⟦«a8» «a6»⟧'",
              'setenv("API_KEY", "⟦«a20»⟧", 1);'),
             "setenv PATH $PATH:/bin; setenv API_TOKEN $TOKEN; setenv EDITOR vim"),
        Rule("config-secret", ("setproperty(", "put(", "set(", "setitem(", "setdefault("),
             # (it begins with its `(`, the call's name looked back for: the
             # engine skips ahead to a literal, not to an alternation)
             r"(?i)\((?:" + "|".join(f"(?<![a-z0-9_]{c}\\()(?<={c}\\()" for c in (
                 "setproperty", "put", "set", "setitem", "setdefault")) + r")\s*['\"]" + _SECRET_VAR
             + r"['\"]\s*,\s*" + quoted(call),
             ('props.setProperty("password", "⟦«L16»⟧");',
              "localStorage.setItem('authToken', '⟦«a24»⟧')",
              'config.set("api_key", "⟦«a20»⟧")',
              "os.environ.setdefault('DB_PASSWORD', '⟦«a12»⟧')"),
             'props.setProperty("password", password); map.put("token", "<token>")'),
        Rule("config-secret", ("user-secrets",),
             r"(?i)\buser-secrets[ \t]+set[ \t]+(?:--?[\w\-]+(?:[ =]" + word + r")?[ \t]+)*"
             + word + r"[ \t]+" + dotnet.any(),
             ('dotnet user-secrets set "Api:Key" "⟦«a16»⟧"',
              "dotnet user-secrets set ConnectionStrings:Db '⟦«a12»;«a8»⟧' --project src/Api"),
             "dotnet user-secrets list; dotnet user-secrets set Api:Key $KEY"),
        # (the user's name kept; a port, `host:5432`, or a URL is none)
        Rule("config-secret", ("credential", "creds"),
             r"(?i)(?<![a-z0-9_])(?:credentials?|creds)(?:[ \t]+(?:are|is|were|was))?[ \t]*:?"
             # (a port: its digits then nothing but punctuation to the word's end,
             # or a path; `bob:00000!012A` is a password that opens with digits)
             r"[ \t]+[\"'`]?[\w.@+\-]{1,64}:(?![\d]{1,5}(?:[\"'`.,;:!?)\]]*(?:\s|$)|/)|/)"
             r"(?P<v>[^\s'\"`]{4,200}?)(?=[\"'`]?[.,;:!?)\]]*(?:\s|$))",
             ("credentials bob:⟦«a16»⟧", "the creds are admin:⟦«a12»⟧.",
              "Login with credentials: 'deploy:⟦«a14»⟧'"),
             "credentials localhost:5432; credentials http://x; the credentials file: ~/.aws; "
             "credentials db:5432/app; credentials are at host:8080."),
        # A value echoed into a file named for a secret (`echo '…' >
        # ~/.vault_pass.txt`, `printf %s … > secrets/db_password`): a literal,
        # not a variable, a command's output or a path.
        Rule("config-secret", (">",),
             # (one word with a digit: not `done`, a script, a variable)
             r"(?i)(?<![\w\-])(?:echo|printf)(?:[ \t]+-[ne]{1,3})*(?:[ \t]+'%s'|[ \t]+%s)?[ \t]+"
             r"(?=['\"]?[^\s'\"$\\`]{0,199}\d)"
             r"(?:'(?P<v>[^\s'$\\`]{4,200})'|\"(?P<v2>[^\s\"$\\`]{4,200})\""
             r"|(?P<v3>(?![$\-])[^\s'\"|;&<>`$\\]{4,200}))"
             r"[ \t]*>>?[ \t]*[\"']?[^\s\"'|;&<>]{0,200}?(?:pass|secret|token|cred|key)"
             r"[^\s/\"'|;&<>]{0,64}[\"']?(?=\s|$|[;&|)])",
             ("echo '⟦«a10»4«a9»⟧' > ~/.vault_pass.txt", "echo ⟦«a8»2«a7»⟧ > secrets/db_password",
              "printf %s '⟦«a8»3«a7»⟧' > /run/secrets/api_token"),
             "echo $VAULT_PASS > ~/.vault_pass.txt; echo 'hello' > notes.txt; "
             "echo \"$(pass show x)\" > ~/.token"),
        # A PIN of digits after its name (`pin: 482913`, `PIN code 4829`,
        # `sim_pin=0000`), where a number after another name is no secret: 4
        # to 8 digits, not a version, a time or a path's; after a bare space
        # not a year (`pin 2024 release`); `pin = 13` (a board's pin) is left.
        Rule("pin-code", ("pin", "puk"),
             r"(?i)(?<![a-z0-9])(?:(?:sim|unlock|card|bank|atm|phone|lock)[ _.\-]?)?(?:pin|puk)"
             r"(?:[ _.\-]?(?:code|number|no\.?))?s?(?![a-z0-9])[\"']?"
             r"(?:[ \t]*[:=：][ \t]*|[ \t]+(?:is|was)[ \t]+:?[ \t]*"
             r"|[ \t]+(?!(?:19|20)\d\d(?!\d)))[\"'`]?"
             r"(?P<v>\d{4,8})(?![\d.,:/\-]\d|[a-z0-9_])",
             ("pin: ⟦«d6»⟧", "PIN code ⟦«d6»⟧", "sim_pin=⟦«d4»⟧", "my PIN is ⟦«d4»⟧.",
              'puk: "⟦«d8»⟧"'),
             "int pin = 13; see pin.py:4829; pin 2024 release; pin v1.2.3; the pin 1.2.3456; "
             "spin 4829 times; port 8080; line 4829"),
        Rule("ci-mask", ("::add-mask::",),
             r"::add-mask::(?P<v>(?!\$)[^\s\"'`]+)",
             ('echo "::add-mask::⟦«a16»⟧"', "echo ::add-mask::⟦«L12»⟧"),
             'echo "::add-mask::${{ secrets.TOKEN }}"; echo "::add-mask::$TOKEN"'),
        Rule("url-secret", tuple(f"{c}{n}=" for n in query_names for c in "?&;"),
             r"(?i)[?&;](?:" + "|".join(query_names) + r")=(?P<v>(?![{$<%])[^&#\s\"'`<>]+)",
             ("curl https://maps.example.com/api?key=⟦«a14»⟧",
              "GET /v1/x?a=1&api_key=⟦«L20»⟧&b=2", "https://h/x?token=⟦«l24»⟧"),
             "https://h/x?key=value&page=2 and ?sig={sig}&key=12345, ?apikey=$KEY"),
        # A secret as a link's path (an invitation, a magic or a verification
        # link: `/invite/…`, `shared_invite/zt-…`, `/verify/…`): a value as
        # random as a key (redact._cell_hides), so `/invite/accept` is left.
        Rule("url-secret", tuple(f"/{w}/" for w in _LINK_WORDS),
             r"(?i)/(?:" + "|".join(_LINK_WORDS) + r")/"
             r"(?P<v>(?=[a-z_.~\-]{0,400}\d)[A-Za-z0-9_.~\-]{16,400})"
             r"(?![A-Za-z0-9_.~\-])",
             ("join: https://app.example.com/invite/⟦«a16»7«a15»⟧",
              "https://join.slack.com/t/team/shared_invite/⟦zt-«a14»5«a15»⟧",
              "https://app.example.com/verify/⟦«w20».8«w30».«w20»⟧"),
             "https://app.example.com/invite/accept-invitation and /verify/email-address-change"),
        # A Wi-Fi QR code's text: `WIFI:T:WPA;S:HomeNet;P:…;;` (its fields in any order).
        Rule("wifi-psk", ("wifi:",),
             r"(?i)\bwifi:(?:[a-z]:(?:\\.|[^;\\\n]){0,64};){0,6}p:(?P<v>(?:\\.|[^;\\\n]){1,200})",
             ("WIFI:T:WPA;S:HomeNet;P:⟦«a16»⟧;;", "WIFI:S:Cafe;T:WPA;P:⟦«a12»⟧;H:false;;"),
             "WIFI:T:nopass;S:Guest;;"),
        # A passphrase of words after its name, up to its line's end (a
        # sentence, `password: must be changed`, is left: redact.sentence).
        Rule("passphrase", ("password", "passphrase", "passwd"),
             r"(?i)pass(?:word|phrase|wd)[\"']?[ \t]*[:=][ \t]*"
             r"(?P<v>[a-z]{2,12}(?:[ \t]+[a-z]{2,12}){3,11})(?=[ \t]*[.!]?[ \t]*(?:\r?\n|$))",
             ("passphrase: ⟦correct horse battery staple zebra⟧\nthen log in",
              "password = ⟦lunar pickle oven velvet⟧\n"),
             "password: must be at least eight characters\npassword: set it in the config file"),
        # What an expect script sends: after a password's prompt, any value;
        # else one that is no word, command, path or number (redact._Replacer).
        Rule("expect-password", ('\\r"', "\\r'", "\\n\"", "\\r;", "\\r ", "\\n;"),
             # (vendor: its options, `send -s --`, `exp_send`, a bare word in
             # `expect -c "…; send X\r; …"`)
             B + r"send[ \t]+(?:-[\w\-]+[ \t]+){0,3}(?:\"(?P<v>(?!\$)[^\"\s\\]{4,200})\\[rn]\""
             r"|'(?P<v2>(?!\$)[^'\s\\]{4,200})\\[rn]'"
             r"|(?P<v3>(?![$\"'\[])[^\"'\s\\;{}\[\]]{4,200})\\[rn](?=[;\"'\s}]|\Z))",
             ("expect -c 'send \"⟦«a16»⟧\\r\"'",
              'spawn ssh me@h\nexpect \"password:\"\nsend \"⟦«L10»⟧\\r\"'),
             'send "exit\\r"; send "yes\\r"; send "./run.sh\\r"; send "$env(PW)\\r"'),
    )


CONFIG_RULES = _config_rules() + _structured_rules() + _more_named_rules()


# A password said in prose, in English or another language: "my password is
# X", "the password for bob was: X", `Passwort: X`, `mot de passe : X`,
# `パスワード：X`, `пароль: X`. A value after "is" must look like a password
# (a digit, a symbol or a capital inside it: "the password is stored" hides
# nothing); one after `:` or `=` is judged as `password: value` is
# (`redact._Replacer`: a word is no password, a random run is).
_PASSWORD_WORDS = (
    "passwort", "kennwort", "mot de passe", "contraseña", "contrasena", "senha",
    "wachtwoord", "hasło", "haslo", "lösenord", "losenord", "adgangskode", "passord",
    "salasana", "parola d'ordine", "heslo", "jelszó", "şifre", "sifre", "пароль", "парола",
    "パスワード", "暗証番号", "密码", "密碼", "口令", "비밀번호", "كلمة المرور", "סיסמה",
    "पासवर्ड", "kata sandi", "mật khẩu",
)
# Words for key, token, secret and password in other scripts, as parts of a
# name. (Each is a search of every text that is not ASCII: ~0.5% of the gate's
# time a word on the corpus; a password's are triggers of the rule above too.)
_FOREIGN_NAMES = ("키", "토큰", "비밀번호", "ключ", "токен", "секрет", "пароль", "密钥", "令牌",
                  "密码", "キー", "トークン", "パスワード", "पासवर्ड")
_PROSE_VALUE = (r"(?:'(?P<v>[^'\n]{4,200})'|\"(?P<v2>[^\"\n]{4,200})\"|`(?P<v3>[^`\n]{4,200})`"
                r"|[«“](?P<v4>[^»”\n]{4,200})[»”]"
                # bare, less a sentence's closing stop: "is hunter2." hides hunter2
                # (an element's close, `is stored</description>`, ends it too)
                r"|(?P<v5>(?:(?!</)[^\s'\"`«“]){4,200}?)(?=[.,;:!?)\]}»”'\"`]*(?:\s|$|</)))")
_IS = r"(?:is|was|will be|ist|war|est|était|es|era|é|è|är|er|jest|je|adalah|là|是|为|は|が)"
# After a copula in Latin letters, a space, a colon or a quote: `password
# ESr9…` is a password that begins with "ES", not "es" ("is") and the rest.
_IS_END = r"(?:(?<=[^\x00-\u024f])|(?=[ \t:：'\"`«“„]))"
# Words that say what a password is, not which one (`the password is stored`,
# `Passwort: erforderlich`, `mot de passe : obligatoire`, `la contraseña es
# incorrecta`): a word of these after a password's name, or one shaped as
# they are (redact.describes), is no password. English, German, French,
# Spanish, Italian, Portuguese, Dutch, Swedish, Indonesian (a word of a
# script without Latin letters is no password after a password's name).
_PROSE = """
a an the this that these those my your his her its our their one some any no not never also
still now just only already too very so quite really always usually then there here where
what which who whom whose how when why whatever whichever something nothing anything
everything someone anyone nobody none nil null true false yes in on at to for of from with
without by via under over into onto inside outside about after before than like as but and
or if else same different correct incorrect wrong right invalid valid empty blank set unset
reset required optional mandatory needed necessary missing expired weak strong short long
good bad fine okay safe unsafe secure insecure simple easy hard complex random unique new old
default known unknown public plain clear hidden visible broken stolen given chosen written
forgotten taken shown seen mine yours hers ours theirs enough ready available unavailable
unchanged temporary permanent obvious important same identical different case sensitive
incomplete complete wrong correct right fixed ok active inactive disabled enabled locked
unlocked due stale current previous next last first second other another such important
sent kept
nicht kein keine noch schon jetzt auch nur sehr zu das der die den dem des ein eine einen
einem einer mein meine dein deine sein seine ihr ihre unser unsere im in auf an bei mit ohne
für von vom zum zur falsch richtig korrekt ungültig gültig leer erforderlich notwendig nötig
optional sicher unsicher schwach stark kurz lang neu alt gleich abgelaufen bekannt
unbekannt hier dort da immer nie identisch anders fest
pas plus trop très aussi déjà encore toujours jamais le la les un une des mon ma mes ton ta
tes son sa ses notre votre leur dans sur pour avec sans par chez incorrect incorrecte correct
correcte invalide valide vide obligatoire requis requise facultatif facultative optionnel
optionnelle nécessaire faible fort forte court courte long longue nouveau nouvelle ancien
ancienne même différent différente identique ici
no muy también ya todavía siempre nunca el los las una unos unas mi mis tu tus su sus nuestra
nuestro en para con sin por incorrecta incorrecto correcta correcto inválida inválido válida
válido vacía vacío obligatoria obligatorio opcional necesaria necesario segura seguro débil
fuerte corta corto larga largo nueva nuevo vieja viejo igual distinta distinto aquí
non molto anche già ancora sempre mai il lo gli uno mia mio tua tuo sua suo nostra nostro
per senza errata errato sbagliata sbagliato corretta corretto valida valido vuota vuoto
obbligatoria obbligatorio facoltativa opzionale necessaria sicura sicuro debole forte corta
corto lunga lungo nuova nuovo vecchia vecchio uguale diversa qui
não muito também já ainda sempre nunca um uma minha meu sua seu nossa nosso em com sem
incorreta incorreto inválida válida vazia vazio obrigatória obrigatório necessária fraca
forte curta longa nova velha diferente aqui
niet geen nog al ook te de het een mijn jouw zijn haar ons onze op voor met zonder door fout
onjuist juist ongeldig geldig leeg verplicht vereist nodig optioneel veilig onveilig zwak
sterk kort lang nieuw oud hetzelfde anders hier
inte ingen redan också för det den ett min din hans hennes vår på med utan fel rätt ogiltig
giltig tom obligatorisk krävs valfri säker osäker svag stark kort lång ny gammal samma
wajib diperlukan perlu salah benar kosong baru lama kuat lemah tidak belum sudah sama
berbeda aman opsional sai
påkrævet påkrævede påkrevd påkrevet valgfri valgfrit valgfritt ukendt ukjent tomt ingen
pakollinen vaadittu valinnainen tyhjä tuntematon ei mitään
wymagane wymagany wymagana opcjonalne opcjonalny opcjonalna brak puste nieznane
povinné povinný povinná volitelné volitelný prázdné žádné neznámé nevyplněno
kötelező opcionális választható nincs üres ismeretlen
obligatoriu obligatorie opțional opțională optional necesar gol nimic necunoscut
gerekli zorunlu isteğe bağlı opsiyonel yok boş bilinmiyor
richiesta richiesto facoltativo nessuna nessuno sconosciuta sconosciuto vedi sotto
requerida requerido ninguna ninguno desconocida desconocido ver abajo
nenhuma nenhum requerida requerido necessário opcional desconhecida desconhecido
aucun aucune inconnu inconnue voir ci-dessous
keins unten siehe erforderlich benötigt unbekannt
onbekend ingesteld zie hieronder
okänd okänt se nedan
diperlukan tiada lihat bawah
"""
PROSE_WORDS = frozenset(_PROSE.split())
# Words calling a password secret: after "is" they say what it is (`ist
# geheim`); after `:` they may be it (`Passwort: geheim`).
_SECRET = """secret secrete secrète geheim secreto secreta segreto segreta private privat privé
privée privado privada privato privata hemlig"""
SECRET_WORDS = frozenset(_SECRET.split())
# Endings of words that describe (participles, adjectives, adverbs), by language.
DESCRIBING_ENDINGS = (
    "ed", "ing", "ly", "able", "ible", "ful", "less", "ous", "ive",  # English
    "lich", "ig", "bar", "los", "iert",  # German (participles ge…t/ge…en: redact.describes)
    "ment", "é", "ée", "és", "ées", "aire",  # French
    "ado", "ada", "ido", "ida", "mente",  # Spanish, Portuguese
    "ato", "ata", "ito", "ita", "uto", "uta",  # Italian
)
PROSE_RULES = (
    *(Rule("prose-password", triggers,
           "(?i)" + word + r"(?![a-z0-9])(?:[ \t]+(?:for|of|to|on)[ \t]+[^\n.;:=]{1,40}?)?"
           r"[ \t]+(?:" + _IS[3:-1] + r")" + _IS_END + r"[ \t]*:?[ \t]*" + _PROSE_VALUE, samples,
           look_alike)
      for triggers, word, samples, look_alike in (
          (("password", "passwd", "passphrase", "passcode", "pasw", "passowrd", "p@ss", "pword",
            "pass word", "pass phrase", "pass code"),
           r"(?:pass(?:word|wd|phrase|code|wrd|owrd|w0rd|[ \t](?:word|phrase|code))"
           r"|pas(?:word|woord)|p@ssw[o0]rd|pword)",
           ("my password is ⟦«a14»⟧", "the password is: ⟦«a16»⟧.",
            "The password for the admin account was '⟦«a8» «a6»⟧'"),
           "the password is stored in the vault; the password is correct. Password is required "
           "and the password was changed. The password is 'changeme'."),
          # (not `pwd`: the shell's working directory)
          (("pw ",), B + r"pw", ("pw is ⟦«a12»⟧, thanks", "the wifi pw is ⟦«a10»⟧"),
           "the pwd is /home/me; pw is fine; the pw is e.g. in ~/.netrc"))),
    Rule("prose-password", tuple(w.lower() for w in _PASSWORD_WORDS),
         r"(?i)(?:" + "|".join(re.escape(w) for w in _PASSWORD_WORDS) + r")"
         # (`::` is no assignment: `TestHaslo::test_reset` is a test's id, a scope path;
         # a few words may say which before a colon: `пароль до бази: …`; not a
         # copula first, whose value may hold a colon: `Das Passwort ist a:0000`)
         r"(?:[\"']?[ \t]*(?:[=：]|:(?!:))[ \t]*|[ \t]+(?!(?:" + _IS + "|" + COPULA
         + r")(?![^\W\d_]))[^\W\d_]+"
         r"(?:[ \t]+[^\W\d_]+){0,3}?[ \t]*(?::(?!:)|：)[ \t]*"
         # (a copula glued to the name only after a script without Latin
         # letters, `パスワードは`: `kennwortes moet` is a word's ending, not "es")
         r"|(?:[ \t]+|(?<=[^\x00-\u024f])[ \t]*)" + _IS + _IS_END + r"[ \t]*:?[ \t]*)"
         + _PROSE_VALUE,
         ("Passwort: ⟦«a14»⟧", "mot de passe : ⟦«a14»⟧", "contraseña: ⟦«a14»⟧",
          "パスワード: ⟦«a14»⟧", "密码：⟦«a14»⟧", "пароль: ⟦«a14»⟧", "Das Passwort ist ⟦«a12»⟧.",
          "le mot de passe est « ⟦«a12»⟧ »".replace("« ", "«").replace(" »", "»"),
          "パスワードは⟦«a12»⟧です".replace("です", " です"), "पासवर्ड: ⟦«a12»⟧",
          "kata sandi: ⟦«a12»⟧", "пароль до бази: ⟦«a12»⟧", "mật khẩu: ⟦«a12»⟧"),
         "Passwort: erforderlich. Le mot de passe est obligatoire. пароль: обязательно"),
    # A key or a token said in prose (`the API key is X`, `Mein Token lautet X`,
    # `la clé API est X`): judged as gitleaks' generic key is (a letter and a
    # digit, as random as a key), since "the token is stored" says no key.
    # (its triggers the name and the verb, or the name and a word before the
    # verb: "token" and "key" alone are in most texts of a coding session)
    Rule("generic-key", ("key is", "key was", "token is", "token was", "key for", "token for",
                         "key ist", "token ist", "lautet", "clé api", "jeton", "schlüssel"),
         r"(?i)(?:(?:api|access|secret(?:[ _\-]?access)?|auth|private)[ _\-]?key|token"
         r"|clé(?: d'| )api|api-schlüssel|schlüssel|jeton)(?![a-z0-9])"
         r"(?:[ \t]+(?:for|of|to|on|für|pour|de)[ \t]+[^\n.;:=]{1,40}?)?"
         r"[ \t]+(?:is|was|lautet|ist|war|est|était|es|era|é|è)" + _IS_END + r"[ \t]*:?[ \t]*"
         r"(?P<v>[A-Za-z0-9_\-+/=.]{12,200}?)(?=[.,;:!?)\]'\"]*(?:\s|$))",
         ("the API key is ⟦«a20»⟧", "Mein Token lautet ⟦«a20»⟧.",
          "la clé API est ⟦«a20»⟧", "the token for staging was ⟦«a24»⟧"),
         "the API key is stored in the vault; the token is 1234567890abcdef; the key is "
         "required_for_all"),
    # A PIN said with its digits: `the PIN is 4821`, `PIN: 4821`, `PIN-Code: 4821`.
    # Or letters and digits drawn at random (`PIN code is D1Ms…`: a smart
    # card's PIN may be any), judged as a value given loosely is; the PIN
    # named first (`Enter PIN for 'PIV card': …`).
    Rule("prose-password", ("pin",),
         r"(?i)(?<![a-z])(?:pin(?:[ \-]?(?:code|kode|number|no\.?))?|code pin|pincode)"
         r"(?:[ \t]+(?:for|of)[ \t]+[^\n:=：]{1,60}?)?"
         r"(?:[\"']?[ \t]*[:=：][ \t]*|[ \t]*" + _IS + _IS_END + r"[ \t]*:?[ \t]*)"
         r"(?:(?P<v>\d{4,8})(?![\d,.]?\d)(?!\s*(?:ms|px|%|v\b))"
         r"|(?P<vl>(?=[^\s\d]{0,63}+\d)[A-Za-z0-9!@#$%^&*+=_\-]{8,64}+)(?=[.,;:!?)\]'\"]*(?:\s|$)))",
         ("the PIN is ⟦«d6»⟧", "PIN: ⟦«d6»⟧", "mein PIN-Code ist ⟦«d6»⟧.",
          "le code PIN est ⟦«d6»⟧", "PIN code is ⟦«a16»⟧", "Enter PIN for 'PIV card': ⟦«a16»⟧"),
         "pin 13 is the LED; pin: 3; pinned 4 issues; PIN is required; PIN: pin_config_2024"),
    # A terminal's prompt for a password, the value typed after it (as a
    # session's capture shows it): `Enter passphrase for key '/…/id_ed25519': X`,
    # `Enter PEM pass phrase:X`, `Enter new password for user "postgres": X`.
    Rule("prose-password", ("enter ",),
         r"(?i)enter[ \t]+(?:(?:a|the|your|new|old|current|same|pem|private|key|ssh|import"
         r"|export|host|admin|root|master|vault)[ \t]+){0,3}"
         r"(?:pass(?:word|phrase|code)|pass[ \t](?:phrase|word|code)|pin(?:[ \t]+code)?)"
         r"(?:[ \t]+again)?(?:[ \t]+(?:for|of|to)[ \t]+[^\n:]{1,120}?)?[ \t]*:[ \t]*"
         r"(?P<v>[^\s]{4,200})",
         ("Enter passphrase for key '/home/bob/.ssh/id_ed25519': ⟦«a16»⟧",
          "Enter PEM pass phrase:⟦«a16»⟧", 'Enter new password for user "postgres": ⟦«a16»⟧'),
         "Enter passphrase for key '/home/bob/.ssh/id_ed25519': \nEnter password: (hidden)"),
)


# Keys whose shape is their own and that no vendor prefix names: a crypto
# wallet's (BIP32 extended private key, a 64-hex key said to be a private key,
# a seed phrase said to be one), a JWK's private members, an OpenVPN static
# key, WireGuard's keys, a Wi-Fi passphrase, a password's hash (crypt, bcrypt,
# argon2, PBKDF2: an offline guess away from the password).
_SEED_WORD = r"[a-z]{3,8}"
SHAPE_RULES = (
    Rule("slack-token", ("xoxd-",), B + r"xoxd-[A-Za-z0-9%+/=_\-]{20,}",
         ("SLACK_COOKIE_D=⟦xoxd-«a40»%2B«a30»%3D⟧",), "", SHAPED),
    Rule("google-oauth", ("1//0",),
         B + r"(?<!/)1//0[A-Za-z0-9][A-Za-z0-9_\-]{30,}",
         ('"refresh_token": "⟦1//0g«w90»⟧"',), "see 1//0 in the docs", SHAPED),
    # Azure DevOps' personal access token: 52 of base32's lower case (or, since
    # 2024, 84 characters with AZDO at 76), said beside the service's name.
    # (Its digit is checked on the match: a lookahead first is tried at every place.)
    # (base32 as Azure makes them, or any lower-case letters and digits: a
    # PAT copied with a character mistyped, or made up for a test, is one)
    Rule("azure-devops-pat", ("azure", "devops", "vsts", "_pat", "pat=", "pat:", "pat "),
         B + r"[a-z0-9]{52}(?![A-Za-z0-9])",
         ("AZURE_DEVOPS_EXT_PAT=⟦«z52»⟧",
          "git clone https://me:⟦«z52»⟧@dev.azure.com/org/p/_git/r"), "", RUN),
    Rule("azure-devops-pat", ("azdo",), B + r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])",
         ("ado token ⟦«a76»AZDO«a4»⟧",), "", SHAPED),
    Rule("crypto-private-key", ("xprv", "tprv", "yprv", "zprv", "uprv", "vprv"),
         # (any letter or digit: a key copied with a character mistyped, or
         # made up for a test, is no less one)
         B + r"[xtyzuv]prv[A-Za-z0-9]{100,112}(?![A-Za-z0-9])",
         ("m/44'/0'/0' ⟦xprv9s21ZrQH143K«m95»⟧",), "", SHAPED),
    # 64 hex after "private key", "wallet_key", "secretKey"... (the pattern
    # begins with "key", and looks back for the word before it).
    Rule("crypto-private-key", ("key",),
         r"(?i)key(?:" + "|".join(f"(?<={w}{sep}key)" for w in ("private", "priv", "wallet",
                                                               "secret")
                                  for sep in ("", " ", "_", "-"))
         + r")[^\n]{0,40}?(?<![0-9a-z])(?:0x)?(?P<v>[0-9a-f]{64})(?![0-9a-z])",
         ("eth private key: ⟦«h64»⟧", "PRIVATE_KEY=0x⟦«h64»⟧",
          "the wallet key is ⟦«h64»⟧ (do not share)"),
         "private key fingerprint SHA256:«a43»", SHAPED),
    # An account's key as Ethereum writes it, `0x` and 64 hex, after any
    # word `key` (`deployer key 0x…`); a transaction's hash is said so.
    Rule("crypto-private-key", ("key",),
         r"(?i)(?<![a-z0-9])key[\"']?[ \t]*(?:is[ \t]+|[:=][ \t]*)?[\"'`]?"
         r"0x(?P<v>[0-9a-f]{64})(?![0-9a-z])",
         ("deployer key 0x⟦«h64»⟧", "signer key: 0x⟦«h64»⟧"),
         "tx hash 0x«h64»; public key 0x04«h64»«h64»"),
    # A Bitcoin private key in wallet import format: base58, 51 characters
    # from `5` (or 52 from `K` or `L`, compressed), a run no word is.
    Rule("crypto-private-key", (),
         # (`5`, `K`, `L` refused at once inside a run: B refuses them after a match)
         B + r"(?:5(?<![A-Za-z0-9]5)[1-9A-HJ-NP-Za-km-z]{50,51}"
         r"|[KL](?<![A-Za-z0-9][KL])[1-9A-HJ-NP-Za-km-z]{51})(?![A-Za-z0-9])",
         ("importprivkey ⟦5«m50»⟧", "wif: ⟦L«m51»⟧"), "", RUN),
    # A service account's key id beside its key, and Kaggle's kaggle.json.
    Rule("vendor-key", ('"private_key_id"',),
         r"\"private_key_id\"\s*:\s*\"(?P<v>[0-9a-f]{40})\"",
         ('{"type": "service_account", "private_key_id": "⟦«h40»⟧"}',),
         '{"private_key_id": "<id>"}'),
    Rule("vendor-key", ('"username"',),
         r"\"username\"\s*:\s*\"[^\"\n]{1,64}\"\s*,\s*\"key\"\s*:\s*\"(?P<v>[0-9a-f]{32})\"",
         ('{"username":"dev","key":"⟦«h32»⟧"}',), '{"username":"dev","key":"<key>"}'),
    # A JWK's private members, in a text that has a JWK (`"kty"`).
    Rule("jwk-private", ('"kty"', "'kty'"),
         r"[\"'](?:d|p|q|dp|dq|qi|k)[\"']\s*:\s*[\"'](?P<v>[A-Za-z0-9_\-+/]{16,}={0,2})[\"']",
         ('{"kty":"RSA","n":"«w40»","e":"AQAB","d":"⟦«w86»⟧"}',
          '{"kty": "oct", "k": "⟦«w43»⟧", "alg": "HS256"}',
          '{"kty":"EC","crv":"P-256","x":"«w43»","y":"«w43»","d":"⟦«w43»⟧"}'),
         '{"kty":"RSA","n":"«w40»","e":"AQAB","use":"sig"}'),
    Rule("openvpn-key", ("begin openvpn",),
         r"-----BEGIN OpenVPN [^\n]{0,40}?[Kk]ey[^\n]{0,10}?-----[\s\S]*?"
         r"(?:-----END OpenVPN [^\n]{0,40}?-----|\Z)",
         ("⟦-----BEGIN OpenVPN Static key V1-----\n«h32»\n«h32»\n"
          "-----END OpenVPN Static key V1-----⟧",),
         "tls-auth ta.key 1"),
    Rule("wireguard-key", ("privatekey", "presharedkey"),
         r"(?i)\b(?:privatekey|presharedkey)\s*=\s*(?P<v>[A-Za-z0-9+/]{42,43}=)",
         ("[Interface]\nPrivateKey = ⟦«b43»=⟧\nAddress = 10.0.0.2/32",
          "[Peer]\nPresharedKey = ⟦«b43»=⟧"), "PublicKey = the peer's key"),
    # wpa_supplicant's psk="…" (8 to 63 characters) or 64 hex; nmcli's wifi-sec.psk.
    Rule("wifi-psk", ("psk",),
         r"(?i)(?<![a-z0-9_])(?:(?:wpa_)?psk\s*=\s*|wifi-sec\.psk\s+|wireless-security\.psk\s+)"
         r"(?:\"(?P<v>[^\"\n]{8,63})\"|'(?P<v2>[^'\n]{8,63})'|(?P<v3>[0-9a-f]{64})(?![0-9a-z])"
         r"|(?P<v4>[^\s\"'=$][^\s\"']{7,62})(?!\S))",
         ('network={\n  ssid="home"\n  psk="⟦«a16»⟧"\n}', "psk=⟦«h64»⟧",
          "nmcli con modify home wifi-sec.psk ⟦«a14»⟧", "psk=⟦«a12»⟧"), "key_mgmt=WPA-PSK"),
    Rule("password-hash", ("$apr1$", "$1$", "$5$", "$6$", "$2a$", "$2b$", "$2y$", "$y$", "$7$",
                           "$argon2", "$pbkdf2", "$scrypt$", "pbkdf2_sha"),
         r"(?:\$(?:apr1|1|5|6|md5)\$(?:rounds=\d+\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{22,86}"
         r"|\$2[abxy]?\$\d\d\$[./0-9A-Za-z]{53}"
         r"|\$argon2(?:id|i|d)\$(?:v=\d+\$)?m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{16,}"
         r"|\$(?:y|7)\$[./0-9A-Za-z]+\$(?:[./0-9A-Za-z]+\$)?[./0-9A-Za-z]{43}"
         r"|\$(?:pbkdf2|scrypt)[\w\-]*\$[^\s$]+\$[^\s$]+\$[A-Za-z0-9+/=.]{16,}"
         r"|pbkdf2_sha\d+\$\d+\$[^\s$]+\$[A-Za-z0-9+/=]{20,})",
         ("admin:⟦$apr1$«a8»$«k22»⟧", "root:⟦$6$rounds=5000$«a16»$«k86»⟧:19000:0:99999:7:::",
          "hash = '⟦$2b$12$«k53»⟧'", "⟦$argon2id$v=19$m=65536,t=3,p=4$«b22»$«b43»⟧",
          "⟦pbkdf2_sha256$600000$«a22»$«b43»=⟧"),
         "echo $1$2 and awk '{print $1$3}'"),
    # A BIP39 seed phrase said to be one: 12 to 24 short lower-case words.
    Rule("seed-phrase", ("seed", "mnemonic", "recovery phrase", "secret phrase", "backup phrase",
                         "recovery words"),
         r"(?i)(?:seed[ _\-]?(?:phrase|words)|mnemonic(?:[ _\-]?phrase)?|recovery[ _\-]?(?:phrase"
         r"|words|seed)|secret[ _\-]?(?:recovery[ _\-]?)?phrase|backup[ _\-]?phrase"
         r"|wallet[ _\-]?(?:seed|words))[\"']?\s*(?:[:=]|\bis\b|\bwas\b)\s*[\"'`]?"
         r"(?P<v>" + _SEED_WORD + r"(?:[ \t]+" + _SEED_WORD + r"){11,23})(?![ \t]*[a-z])",
         ("seed phrase: ⟦abandon ability able about above absent absorb abstract absurd abuse "
          "access accident⟧", 'MNEMONIC="⟦zoo zone wrong worth world wool wood wolf wisdom '
          "wire winter wine⟧\""),
         "the seed phrase is the only way to restore the wallet if you lose it"),
)


# A password said in a protocol's own words, as a session log or a telnet,
# nc or openssl s_client transcript shows them: FTP and POP3 `PASS X`, IMAP
# `a1 LOGIN user X`, Redis `AUTH [user] X`, SMTP `AUTH PLAIN <base64>` (and
# AUTH LOGIN's answer to `334 UGFzc3dvcmQ6`, base64 "Password:"). Each word in
# capitals, at a line's start (or after a prompt); its value ends the line.
_B64 = r"[A-Za-z0-9+/]{8,}={0,2}"
_LINE_END = r"(?=[ \t]*\r?(?:\n|$))"
_SASL = r"(?:PLAIN|LOGIN|XOAUTH2?|OAUTHBEARER|CRAM-MD5|DIGEST-MD5|SCRAM-\S+|EXTERNAL|GSSAPI)"
PROTOCOL_RULES = (
    Rule("protocol-password", ("pass ", "pass\t"),
         # (jest prints `PASS src/a.test.js`: a path is no password)
         r"PASS[ \t]+(?P<v>(?![^\s]*\.[a-z]{1,5}" + _LINE_END + r")[^\s/\\]+)" + _LINE_END,
         ("220 ftp ready\nUSER deploy\n331 Password required\nPASS ⟦«a16»⟧\n230 Logged in",
          "+OK POP3 ready\nUSER me\n+OK\nPASS ⟦«a14»⟧\n+OK", "Connected.\nftp> PASS ⟦«a12»⟧\n230"),
         " PASS  src/app.test.js (1.2 s)\nPASS\nok  \tpkg\t0.01s\ntests PASS today",
         line=LINE),
    Rule("protocol-password", ("login ", "login\t"),
         r"LOGIN[ \t]+(?:\"[^\"\n]*\"|[^\s\"]+)[ \t]+(?:\"(?P<v>[^\"\n]+)\""
         r"|(?P<v2>(?=[^\s\"]{0,256}\d)[^\s\"]+))"
         + _LINE_END,
         ("* OK IMAP4rev1 ready\na001 LOGIN bob ⟦«a16»⟧\na001 OK",
          '* OK ready\nA1 LOGIN "me" "⟦«a16»⟧"\nA1 OK'),
         "LOGIN with your account\nsee docker login --help\nLOGIN and restart", line=LINE),
    Rule("protocol-password", ("auth ", "auth\t"),
         r"AUTH[ \t]+(?:(?!" + _SASL + r"\b)(?:[^\s\"']+[ \t]+)?"
         r"(?:\"(?P<v>[^\"\n]+)\"|(?P<v2>(?![A-Z]+" + _LINE_END + r")[^\s\"']+))" + _LINE_END
         + r"|" + _SASL + r"[ \t]+(?P<v3>" + _B64 + r")"
         + r"|PLAIN[ \t]*\r?\n(?:[ \t]*(?:S:[ \t]*)?334[^\n]*\n)?[ \t]*(?:C:[ \t]*)?(?P<v4>"
         + _B64 + r"))",
         ("$ redis-cli\n127.0.0.1:6379> AUTH ⟦«a20»⟧\nOK", "$ redis-cli\nAUTH default ⟦«a20»⟧\nOK",
          "EHLO me\n250 AUTH PLAIN LOGIN\nAUTH PLAIN ⟦AGRlcGxveQB«b20»⟧\n235 ok",
          "C: EHLO me\nC: AUTH PLAIN\nS: 334\nC: ⟦AGRlcGxveQB«b20»⟧\nS: 235 ok"),
         "250-AUTH PLAIN LOGIN\n## AUTH SETUP\nAUTH failures are logged", line=LINE),
    Rule("protocol-password", ("ugfzc3dvcmq6",),
         r"334[ \t]+UGFzc3dvcmQ6[ \t]*\r?\n[ \t]*(?:C:[ \t]*)?(?P<v>" + _B64 + r")",
         ("AUTH LOGIN\n334 VXNlcm5hbWU6\nZGVwbG95\n334 UGFzc3dvcmQ6\n⟦«b16»⟧\n235 ok",), ""),
    # An HTTP request's proof of a password: Digest's response, an AWS SigV4
    # signature (header or presigned URL), a proxy's credentials.
    Rule("http-signature", ("digest",),
         r"(?i)authorization[\"']?\s*[:=]\s*[\"']?digest\b[^\n]{0,400}?\bresponse\s*=\s*"
         r"\"?(?P<v>[0-9a-f]{32,128})",
         ('Authorization: Digest username="bob", realm="api", nonce="«h32»", uri="/x", '
          'response="⟦«h32»⟧", qop=auth',
          'Proxy-Authorization: Digest username="u", response="⟦«h64»⟧"'),
         "Digest authentication sends a response hash"),
    Rule("http-signature", ("signature=",),
         r"(?i)signature=(?P<v>[0-9a-f]{64})(?![0-9a-z])",
         ("Authorization: AWS4-HMAC-SHA256 Credential=AKIA«u16»/20260101/us-east-1/s3/"
          "aws4_request, SignedHeaders=host;x-amz-date, Signature=⟦«h64»⟧",
          "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&"
          "X-Amz-Signature=⟦«h64»⟧"),
         "SignedHeaders=host, Signature=<sig>"),
)


# A line of a PEM body: 64 base64 characters with a capital and a small
# letter (a hex digest is one case); a line after one: another, or a last
# shorter one of base64 alone on its line.
_KEY_LINE = r"(?=[A-Za-z0-9+/]{0,63}[A-Z])(?=[A-Za-z0-9+/]{0,63}[a-z])[A-Za-z0-9+/]{64}"
_KEY_TAIL = r"(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{4,63}={0,2}(?=[ \t]*(?:\r?\n|\Z)))"
_KEY_BODY = (_KEY_LINE + r"[ \t]*\r?\n[ \t>]*" + _KEY_LINE + r"(?![A-Za-z0-9+/=])"
             r"(?:[ \t]*\r?\n[ \t>]*" + _KEY_TAIL + r"(?![A-Za-z0-9+/=]))*")


# A name then a tab then its value, the line's two cells (`PASSWORD<TAB>…`, as
# a spreadsheet or a password manager exports it): judged as `name: value` is.
# (after the assignment rule: `_SECRET_WORDS` of the tests are that rule's)
TAB_RULE = Rule(
    "secret-assignment", tuple(f"{w}\t" for w in (
        "password", "passwd", "pass", "pwd", "pw", "secret", "token", "key", "passphrase",
        "credential", "credentials", "creds", "auth")),
    # (a line's start, or a space before the name: the lines of such a
    # table collapsed into one, as a one-line field holds them)
    r"(?im)(?:^|(?<=[ ]))[ \t]*[a-z0-9_.\-]{0,64}" + SECRET_NAME + r"[a-z0-9_.\-]{0,64}(?P<sep>\t+)"
    r"(?P<v3>[^\s\"'`]{4,200})(?=[ \t]*\r?(?:\n|$)|[ ])",
    ("USER\tbob\nPASSWORD\t⟦«a14»⟧\nURL\thttps://x", "user\tbob\ndb_password\t⟦«L12»⟧\n",
     "USER\tbob PASSWORD\t⟦«a14»⟧ URL\thttps://x"),
    "password\trequired\nPASSWORD\t${DB_PASSWORD}")


RULES: tuple[Rule, ...] = (
    # Key material and root secrets in command output (secret_keys): first,
    # so that a JWT cut at its dots is read whole before a name's rule reads
    # its first line as a value.
    *(Rule(*form) for form in KEY_FORMS),
    # (vendors' tokens another rule would cut: secret_vendors)
    *(Rule(rid, triggers, B + pattern + E, samples, look_alike, WORD)
      for rid, triggers, pattern, samples, look_alike in VENDOR_FIRST_SHAPES),
    # (any case, any run of spaces or tabs between the header's words: a key
    # pasted as `-----begin rsa private key-----` or `BEGIN  RSA  PRIVATE  KEY`
    # is one; run on the lower-cased text, hence the words in lower case)
    Rule("private-key", ("private key", "private  key", "private\tkey", "-begin", "- begin",
                         "-  begin", "-\tbegin"),
         r"(?i)-{4,5}[ \t]*begin[ a-z0-9_\t\-]{0,100}?private[ \t]+key(?:[ \t]+block)?"
         r"[ \t]*-{4,5}[\s\S]*?"
         r"(?:-{4,5}[ \t]*end[ a-z0-9_\t\-]{0,100}?private[ \t]+key(?:[ \t]+block)?"
         r"[ \t]*-{4,5}|\Z)",
         ("⟦-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA«b60»\n"
          "-----END OPENSSH PRIVATE KEY-----⟧",
          "⟦-----BEGIN RSA PRIVATE KEY-----\nMIIEow«b60»\n-----END RSA PRIVATE KEY-----⟧",
          "⟦-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF«b60»\n"
          "-----END PGP PRIVATE KEY BLOCK-----⟧",
          "⟦---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"k\"\nP2/56wAAA«b60»\n"
          "---- END SSH2 ENCRYPTED PRIVATE KEY ----⟧",
          "⟦-----BEGIN  RSA  PRIVATE  KEY-----\nMIIEpA«b58»\n-----END  RSA  PRIVATE  KEY-----⟧",
          "⟦-----begin rsa private key-----\nMIIEpA«b58»\n«b64»\n-----end rsa private key-----⟧",
          # (gitleaks' rule: any of [ A-Z0-9_-] between BEGIN and PRIVATE, none too)
          "⟦-----BEGINPRIVATE KEY-----\nMIIEpA«b58»\n-----ENDPRIVATE KEY-----⟧"),
         "-----BEGIN PUBLIC KEY-----"),
    # A key's body without its BEGIN line (`sed -n 2,6p id_rsa`, the second half
    # of a key pasted in two messages). A DER key in base64 begins `MII`: such a
    # line of 60 or more, and the lines of base64 alone after it (any width).
    Rule("private-key", ("mii",),
         B + r"MII[A-Za-z0-9+/]{57,}={0,2}(?![A-Za-z0-9+/=])(?:[ \t]*\r?\n[ \t>]*"
         r"[A-Za-z0-9+/]{4,76}={0,2}(?=[ \t]*(?:\r?\n|\Z)))*",
         ("$ sed -n 2,3p id_rsa\n⟦MIIEow«b60»\n«b64»⟧",
          "the first line was ⟦MIIEpAIBAAKCAQEA«b48»⟧ and then"), "MIIT licence", RUN),
    # Two or more lines of exactly 64 base64 characters (PEM's width), each
    # with a capital and a small letter (a hex digest is one case),
    # and the base64 lines after them; from a line's start (a pattern beginning
    # with the newline, not a test for a line's start: the engine skips ahead to
    # it, a sixth of the cost), or the text's (tried first: its lines are one);
    # a line may be indented or quoted (`> `).
    Rule("private-key", (), r"\A[ \t>]*(?P<v>" + _KEY_BODY + ")",
         ("⟦«b64»\n«b64»\n«b30»=⟧\n-----END",), "«h64»\n«h64»", RUN),
    Rule("private-key", (), r"\n[ \t>]*(?P<v>" + _KEY_BODY + ")",
         ("the rest of it:\n⟦«b64»\n«b64»\n«b64»\n«b20»==⟧\nthat is all",
          "$ sed -n 4,5p id_rsa\n⟦«b64»\n«b64»⟧"),
         "sha256 «h64»\nsha256 «h64»", RUN),
    # Base64 lines ending at an END line with no BEGIN before it. The search
    # begins at the text's start or at a line that is none of them (the
    # block's first line is the next): begun at each line of a block with no
    # END after it, it read the block's square.
    Rule("private-key", ("private key", "private  key", "private\tkey"),
         r"(?i)(?:\A|(?:\A|(?<=\n))(?![ \t>]*[a-z0-9+/=]{4,76}[ \t]*\r?\n)[^\n]*\n)"
         r"(?P<v>[ \t>]*(?:[a-z0-9+/=]{4,76}[ \t]*\r?\n[ \t>]*)+"
         r"-{4,5}[ \t]*end[ \t][ a-z0-9_\t\-]{0,100}?private[ \t]+key(?:[ \t]+block)?[ \t]*-{4,5})",
         ("⟦«b64»\n«b40»==\n-----END RSA PRIVATE KEY-----⟧",
          "the rest:\n⟦«b64»\nAb3=\n-----end ec private key-----⟧"),
         "-----END PUBLIC KEY-----"),
    Rule("putty-key", ("putty-user-key-file",),
         r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:\s*\S+|\Z)",
         ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n"
          "⟦AAAAI«b40»⟧\nPrivate-MAC: «h64»",),
         "PuTTYgen makes keys"),
    # An AWS credentials file as the console exports it (CSV): the secret
    # follows the key id. Before aws-access-key, which hides the id.
    # (or in prose after it, `key id AKIA… secret …`: 40 characters of base64
    # with a capital and a small letter, within 40 characters of the id)
    Rule("aws-secret-key", ("akia", "asia"),
         B + r"(?:AKIA|ASIA)[0-9A-Z]{16}(?:[,;\t |]+\"?|[^\n]{1,40}?(?<![A-Za-z0-9/+=]))"
         r"(?P<v>(?=[A-Za-z0-9/+=]{0,39}[a-z])(?=[A-Za-z0-9/+=]{0,39}[A-Z])[A-Za-z0-9/+=]{40})"
         r"(?![A-Za-z0-9/+=])",
         ("User name,Password,Access key ID,Secret access key,Console login link\n"
          "deploy,,AKIA«u16»,⟦«b40»⟧,https://1234.signin.aws.amazon.com/console",
          "key id AKIA«u16» secret ⟦«b40»⟧"), "", SHAPED),
    Rule("aws-access-key", ("akia", "asia", "abia", "acca", "a3t"),
         B + r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}" + E,
         ("aws configure set aws_access_key_id ⟦AKIA«u16»⟧",),
         "AKIA is the prefix of an access key id", SHAPED),
    Rule("aws-secret-key", ("aws",),
         r"(?i)aws.{0,20}?(?:secret|private).{0,20}?(?:[=:]|\s(?:is|was)\b:?)\s*[\"']?"
         r"(?P<v>[A-Za-z0-9/+=]{40})\b",
         ("aws_secret_access_key = ⟦«b40»⟧", "the aws secret key is ⟦«b40»⟧ for prod"), "", RUN),
    # Also a token cut in two: its pieces joined by a shell's quotes
    # (`"ghp_Qw3…""Df1…"`), or the rest on the next line when that line is one
    # run; and a piece of one alone (`A=ghp_eyzab…`, 12 or more with a letter
    # and a digit: a token's first half kept in a variable).
    Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
         B + r"(?:gh[pousr]_(?:[A-Za-z0-9]{1,254}(?:[\"'][\"'][A-Za-z0-9]{1,254})+"
         r"|[A-Za-z0-9]{8,35}[ \t]*\r?\n[ \t>]*[A-Za-z0-9]{1,35}(?=[ \t]*(?:\r?\n|\Z))"
         # (`_` too, as trufflehog's detector reads a token, with a digit)
         r"|(?=[A-Za-z_]{0,254}[0-9])[A-Za-z0-9_]{36,255}|[A-Za-z0-9]{36,255}"
         r"|(?=[A-Za-z0-9]{0,34}[0-9])(?=[A-Za-z0-9]{0,34}[A-Za-z])[A-Za-z0-9]{12,35})"
         r"|github_pat_[A-Za-z0-9_]{22,255})" + E,
         ("git remote set-url origin https://⟦ghp_«a36»⟧@github.com/o/r.git",
          "GH_TOKEN=⟦github_pat_«a22»_«a59»⟧ gh pr create",
          'TOKEN="⟦ghp_«a18»""«a18»⟧"', "token:\n⟦ghp_«a18»\n«a18»⟧",
          "A=⟦ghp_«a17»⟧; B=«a19»"),
         "ghp_ is GitHub's prefix", SHAPED),
    Rule("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-",
                          "glffct-", "glimt-", "glagent-", "glft-", "glcbt-", "glsoat-"),
         B + r"gl(?:pat|dt|ptt|rt|cbt|oas|soat|ffct|imt|agent|ft)-[A-Za-z0-9_\-]{20,}"
         r"(?:\.[0-9a-z]{2}[0-9a-z]{7})?",
         ("curl --header 'PRIVATE-TOKEN: ⟦glpat-«w20»⟧' https://gitlab.com/api",),
         "", SHAPED),
    Rule("gitlab-token", ("gr1348941",), B + r"GR1348941[A-Za-z0-9_\-]{20}",
         ("gitlab-runner register --registration-token ⟦GR1348941«w20»⟧",), "", SHAPED),
    # A key is 108 characters: one cut shorter at a line's end (a terminal or an
    # editor wrapped it) goes on in the next line, when that line is one run.
    Rule("anthropic-key", ("sk-ant-",),
         B + r"sk-ant-(?:[A-Za-z0-9_\-]{20,92}[ \t]*\r?\n[ \t]*[A-Za-z0-9_\-]{2,}"
         r"(?=[ \t]*(?:\r?\n|$))|[A-Za-z0-9_\-]{20,})",
         ("export ANTHROPIC_API_KEY=⟦sk-ant-api03-«w93»AA⟧",
          "key:\n⟦sk-ant-api03-«w50»\n«w43»AA⟧\nthanks"), "", SHAPED),
    Rule("openai-key", ("sk-", "sk-proj-", "sk-svcacct-", "sk-admin-"),
         B + r"sk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{20,}",
         ("client = OpenAI(api_key=\"⟦sk-proj-«w48»⟧\")",), "sk-learn is a package", SHAPED),
    Rule("google-api-key", ("aiza",), B + r"AIza[0-9A-Za-z_\-]{35}",
         ("https://maps.googleapis.com/maps/api?key=⟦AIza«w35»⟧",), "", SHAPED),
    Rule("google-oauth", ("gocspx-", "ya29."),
         B + r"(?:GOCSPX-[A-Za-z0-9_\-]{24,}|ya29\.[0-9A-Za-z_\-]{20,})",
         ("client_secret: ⟦GOCSPX-«w28»⟧", "Authorization header was ⟦ya29.«w60»⟧"), "", SHAPED),
    Rule("slack-token", ("xox", "xapp-", *(f"xox{c}-" for c in "abposrec")),
         B + r"(?:xox[abposrec](?:-[0-9]{1,13})?-[A-Za-z0-9-]{6,}"
         r"|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)",
         ("SLACK_BOT_TOKEN=⟦xoxb-«d12»-«a24»⟧",
          "app token ⟦xapp-1-A«u10»-«d13»-«h64»⟧ in the socket client",
          "refresh with ⟦xoxe-1-«a40»⟧", "legacy ⟦xoxa-«a8»⟧"), "xoxo, see you"),
    Rule("slack-webhook", ("hooks.slack.com",),
         r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-+]{20,}",
         ("post to ⟦https://hooks.slack.com/services/T«u8»/B«u8»/«a24»⟧",),
         "https://hooks.slack.com/services/"),
    Rule("discord-webhook", ("discord",),
         r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}",
         ("curl -X POST ⟦https://discord.com/api/webhooks/«d18»/«w68»⟧",), "", RUN),
    # (a secret key, a restricted one, a webhook's; not a publishable key, `pk_live_…`,
    # which every payment page shows by Stripe's design: gitleaks, trufflehog and
    # detect-secrets read `sk_`/`rk_` only)
    Rule("stripe-key", ("_live_", "_test_", "_prod_", "whsec_"),
         B + r"(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{24,})",
         ("stripe.api_key = '⟦sk_live_«a24»⟧'", "use ⟦rk_live_«a24»⟧ for refunds",
          "STRIPE_WEBHOOK_SECRET=⟦whsec_«a32»⟧"), "", SHAPED),
    Rule("npm-token", ("npm_",), B + r"npm_[A-Za-z0-9]{36}" + E,
         ("//registry.npmjs.org/:_authToken=⟦npm_«a36»⟧",), "", SHAPED),
    Rule("pypi-token", ("pypi-",), B + r"pypi-AgE[A-Za-z0-9_\-]{50,}",
         ("password = ⟦pypi-AgEIcHlwaS5vcmc«w60»⟧",), "", SHAPED),
    Rule("sendgrid-key", ("sg.",),
         B + r"SG\.(?:[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-=]{30,64}|[A-Za-z0-9=_\-.]{66})",
         ("sg = SendGridAPIClient('⟦SG.«w22».«w43»⟧')",), "", SHAPED),
    Rule("huggingface-token", ("hf_", "api_org_"),
         B + r"(?:hf_[A-Za-z0-9]{30,40}|api_org_[A-Za-z0-9]{34})" + E,
         ("huggingface-cli login --token ⟦hf_«a34»⟧",), "", SHAPED),
    Rule("docker-token", ("dckr_pat_", "dckr_oat_"), B + r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}",
         ("echo ⟦dckr_pat_«w27»⟧ | docker login -u me --password-stdin",), "", SHAPED),
    Rule("vault-token", ("hvs.", "hvb.", "hvr."), B + r"hv[sbr]\.[A-Za-z0-9_\-]{24,}",
         ("VAULT_TOKEN=⟦hvs.«w90»⟧ vault kv get",), "", SHAPED),
    # Vault before 1.10: `s.` and 24 letters and digits, with no vendor word.
    Rule("vault-token", ("s.", "b."),
         B + r"[sb]\.(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{24}" + E,
         ("vault login ⟦s.«a24»⟧", "export VAULT_TOKEN=⟦s.«a24»⟧"),
         "see s.abc and b.done", RUN),
    Rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"),
         B + r"do[por]_v1_[a-f0-9]{64}" + E, ("doctl auth init -t ⟦dop_v1_«h64»⟧",), "", SHAPED),
    Rule("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"),
         B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + E,
         ("X-Shopify-Access-Token: ⟦shpat_«h32»⟧",), "", SHAPED),
    # Vendors' tokens an outside attack found with no rule (attack 25, class 7).
    # A short prefix (`re_`, `fc-`, `aio_`, `oy2`, `AKID`) takes only its
    # token's exact length and alphabet, so words and names that begin so pass.
    Rule("tailscale-key", ("tskey-",),
         B + r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{4,}-[A-Za-z0-9]{16,}" + E,
         ("tailscale up --authkey=⟦tskey-auth-k«a10»CNTRL-«a33»⟧",
          "TS_API_KEY=⟦tskey-api-k«a10»CNTRL-«a33»⟧",
          "oauth secret ⟦tskey-client-k«a10»CNTRL-«a33»⟧"), "see tskey-auth-docs", SHAPED),
    Rule("k3s-token", ("k10",), B + r"K10[0-9a-f]{64}::[A-Za-z0-9_\-]+:[A-Za-z0-9]{16,}" + E,
         ("K3S_TOKEN=⟦K10«h64»::server:«h32»⟧ k3s agent",), "K10 and K20 models", SHAPED),
    Rule("docker-swarm-token", ("swmtkn-",), B + r"SWMTKN-1-[a-z0-9]{50}-[a-z0-9]{25}" + E,
         ("docker swarm join --token ⟦SWMTKN-1-«l50»-«l25»⟧ 10.0.0.1:2377",),
         "SWMTKN-1 is how a swarm token begins", SHAPED),
    Rule("bitbucket-token", ("atbb",), B + r"ATBB[A-Za-z0-9_=.\-]{28,}" + E,
         ("git clone https://me:⟦ATBB«a28»«h8»⟧@bitbucket.org/o/r.git",), "ATBB is a prefix",
         SHAPED),
    Rule("figma-token", ("figd_",), B + r"figd_[A-Za-z0-9_\-]{32,}" + E,
         ("X-Figma-Token: ⟦figd_«w40»⟧",), "figd_ is Figma's prefix", SHAPED),
    Rule("vercel-token", ("vercel_",), B + r"vercel_[A-Za-z0-9_\-]{24,}" + E,
         ("VERCEL_TOKEN=⟦vercel_«a24»⟧ vercel deploy",), "vercel_project_settings", SHAPED),
    Rule("fly-token", ("fm1_", "fm2_"),
         r"(?:FlyV1 )?" + B + r"fm[12]_[A-Za-z0-9+/=_,\-]{40,}",
         ("fly secrets with FLY_API_TOKEN='⟦FlyV1 fm2_«b80»⟧'",), "fm2_ is Fly's prefix", SHAPED),
    # Dropbox's short-lived access token: `sl.`, (`u.`,) then 130 and more.
    Rule("dropbox-token", ("sl.",), B + r"sl\.(?:u\.)?[A-Za-z0-9_\-]{120,}" + E,
         ("DROPBOX_ACCESS_TOKEN=⟦sl.«w136»⟧", "dbx = dropbox.Dropbox('⟦sl.u.«w200»⟧')"),
         "see sl.no and sl.u.docs", SHAPED),
    Rule("render-key", ("rnd_",), B + r"rnd_[A-Za-z0-9]{24,}" + E,
         ("Authorization: Bearer ⟦rnd_«a32»⟧",), "rnd_seed_value", SHAPED),
    Rule("netlify-token", ("nfp_",), B + r"nfp_[A-Za-z0-9]{32,}" + E,
         ("NETLIFY_AUTH_TOKEN=⟦nfp_«a36»⟧",), "nfp_ is Netlify's prefix", SHAPED),
    Rule("contentful-token", ("cfpat-",), B + r"CFPAT-[A-Za-z0-9_\-]{40,}" + E,
         ("CONTENTFUL_MANAGEMENT_TOKEN=⟦CFPAT-«w43»⟧",), "CFPAT-docs", SHAPED),
    Rule("adafruit-key", ("aio_",),
         B + r"aio_(?=[A-Za-z]{0,27}\d)(?=\d{0,27}[A-Za-z])[A-Za-z0-9]{28}" + E,
         ("ADAFRUIT_IO_KEY=⟦aio_«a28»⟧",), "aio_read aio_write aiohttp_requestsession_manager",
         SHAPED),
    Rule("langsmith-key", ("lsv2_",), B + r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}" + E,
         ("LANGCHAIN_API_KEY=⟦lsv2_pt_«h32»_«h10»⟧", "key ⟦lsv2_sk_«h32»_«h10»⟧"),
         "lsv2_pt_ is LangSmith's prefix", SHAPED),
    Rule("pinecone-key", ("pcsk_",), B + r"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}" + E,
         ("PINECONE_API_KEY=⟦pcsk_«a6»_«a63»⟧",), "pcsk_ is Pinecone's prefix", SHAPED),
    Rule("tavily-key", ("tvly-",), B + r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}" + E,
         ("TAVILY_API_KEY=⟦tvly-«a32»⟧", "key ⟦tvly-dev-«a32»⟧"), "tvly-dev-docs", SHAPED),
    Rule("firecrawl-key", ("fc-",), B + r"fc-(?=[a-f]{0,31}\d)(?=\d{0,31}[a-f])[0-9a-f]{32}" + E,
         ("FIRECRAWL_API_KEY=⟦fc-«h32»⟧",), "fc-list fc-cache fc-match fc-deadbeef", SHAPED),
    Rule("neon-key", ("napi_",), B + r"napi_[a-z0-9]{40,}" + E,
         ("NEON_API_KEY=⟦napi_«l64»⟧",), "napi_create_function napi_value", SHAPED),
    Rule("browserbase-key", ("bb_live_",), B + r"bb_live_[A-Za-z0-9_\-]{20,}" + E,
         ("BROWSERBASE_API_KEY=⟦bb_live_«w27»⟧",), "bb_live_ is a prefix", SHAPED),
    Rule("e2b-key", ("e2b_",), B + r"e2b_[0-9a-f]{32,}" + E,
         ("E2B_API_KEY=⟦e2b_«h40»⟧",), "e2b_sandbox_template", SHAPED),
    Rule("tencent-key", ("akid",),
         B + r"AKID(?=[A-Za-z]{0,31}\d)(?=\d{0,31}[A-Za-z])[A-Za-z0-9]{32}" + E,
         ("TENCENTCLOUD_SECRET_ID=⟦AKID«a32»⟧",), "AKID is Tencent's prefix", SHAPED),
    Rule("nuget-key", ("oy2",), B + r"oy2(?=[a-z]{0,42}\d)(?=\d{0,42}[a-z])[a-z0-9]{43}" + E,
         ("dotnet nuget push a.nupkg --api-key ⟦oy2«l43»⟧",), "oy2 and oy2b", SHAPED),
    Rule("circleci-token", ("ccipat_",), B + r"CCIPAT_[A-Za-z0-9]{16,}_[0-9a-f]{40}" + E,
         ("CIRCLE_TOKEN=⟦CCIPAT_«a22»_«h40»⟧",), "CCIPAT_ is CircleCI's prefix", SHAPED),
    Rule("resend-key", ("re_",),
         B + r"re_(?=[A-Za-z0-9]{0,7}\d)[A-Za-z0-9]{8}_[A-Za-z0-9]{24}" + E,
         ("RESEND_API_KEY=⟦re_«a8»_«a24»⟧",), "re_compile_pattern re_match", SHAPED),
    Rule("fcm-key", ("apa91b",), B + r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}" + E,
         ("FCM_SERVER_KEY=⟦AAAA«w7»:APA91b«w134»⟧",), "AAAA records and APA91b", WORD),
    Rule("discord-token", (),
         B + r"[MNO][A-Za-z\d_\-]{23,27}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,40}" + E,
         ("client.run('⟦M«a25».«a6».«w38»⟧')",), "", RUN),
    Rule("twilio-key", ("sk",), B + r"SK[0-9a-fA-F]{32}" + E,
         ("api key ⟦SK«h32»⟧",), "", SHAPED),
    Rule("telegram-token", (":a",),
         r"(?:(?<=bot)|(?<![A-Za-z0-9]))\d{5,16}:A[A-Za-z0-9_\-]{34}(?![A-Za-z0-9_\-])",
         ("https://api.telegram.org/bot⟦«d10»:AA«w33»⟧/getMe",
          "BOT=⟦«d9»:AA«w33»⟧"), "at 12:30:45", RUN),
    # (in a Bot API URL whatever its first letters: the URL says what it is)
    Rule("telegram-token", ("/bot",),
         r"(?i)/bot\d{5,16}:(?P<v>[a-z0-9_\-]{30,40})(?![a-z0-9_\-])",
         ("https://api.telegram.org/bot«d9»:⟦«w35»⟧/sendMessage",),
         "https://api.telegram.org/bot<token>/getMe and /bot123:abc"),
    # A key named by its service in prose (`mistral key …`, `dd app key …`,
    # `todoist token …`): a value with a letter and a digit, 20 or more.
    Rule("vendor-key", tuple(f"{v} " for v in PROSE_VENDORS),
         r"(?i)(?<![a-z0-9])(?:" + "|".join(PROSE_VENDORS) + r")[ \t]+"
         r"(?:(?:app|api|access|auth|personal|secret|bot|admin|service)[ \t]+)?"
         r"(?:key|token|secret)[ \t]*(?:is[ \t]+|[:=][ \t]*)?[\"'`]?"
         r"(?P<v>(?=[a-z0-9_\-]{0,100}\d)(?=[a-z0-9_\-]{0,100}[a-z])[a-z0-9_\-]{20,100})"
         r"(?![a-z0-9_\-])",
         ("mistral key ⟦«a32»⟧", "dd app key ⟦«h40»⟧", "todoist token ⟦«h40»⟧"),
         "mistral key rotation policy; the stripe key is in the vault"),
    Rule("mailgun-key", ("key-", "pubkey-"), B + r"(?:pub)?key-[0-9a-zA-Z]{32}" + E,
         ("MAILGUN_API_KEY=⟦key-«a32»⟧",), "", SHAPED),
    Rule("square-token", ("sq0atp-", "sq0csp-", "eaaa"),
         B + r"(?:sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,}|EAAA[0-9A-Za-z_\-+=]{22,})",
         ("SQUARE_TOKEN ⟦EAAA«w60»⟧",), "", SHAPED),
    Rule("facebook-token", ("eaa",), B + r"EAA[A-Z][A-Za-z0-9]{30,}",
         ("graph.facebook.com/me?access_token=⟦EAAG«a120»⟧",), "", SHAPED),
    Rule("databricks-token", ("dapi", "dsapi"), B + r"ds?api[a-f0-9]{32}(?:-\d)?" + E,
         ("databricks token ⟦dapi«h32»⟧", "DATABRICKS_TOKEN=⟦dsapi«h32»⟧"), "", SHAPED),
    Rule("newrelic-key", ("nrak-", "nrii-", "nrjs-"),
         B + r"NR(?:AK|II|JS)-[A-Za-z0-9\-]{19,32}" + E,
         ("NEW_RELIC_API_KEY=⟦NRAK-«u27»⟧",), "", SHAPED),
    Rule("grafana-token", ("glsa_", "glc_", "eyjrijoi"),
         B + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}"
         r"|eyJrIjoi[A-Za-z0-9+/]{60,}={0,2})",
         ("GRAFANA_TOKEN=⟦glsa_«a32»_«h8»⟧",), "", SHAPED),
    Rule("linear-key", ("lin_api_",), B + r"lin_api_[A-Za-z0-9]{40}" + E,
         ("LINEAR_API_KEY=⟦lin_api_«a40»⟧",), "", SHAPED),
    Rule("notion-token", ("secret_", "ntn_"),
         B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})" + E,
         ("NOTION_TOKEN=⟦secret_«a43»⟧",), "", SHAPED),
    Rule("supabase-token", ("sbp_",), B + r"sbp_[a-f0-9]{40}" + E,
         ("supabase login --token ⟦sbp_«h40»⟧",), "", SHAPED),
    Rule("postman-key", ("pmak-",), B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + E,
         ("postman key ⟦PMAK-«h24»-«h34»⟧",), "", SHAPED),
    Rule("doppler-token", ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim."),
         B + r"dp\.(?:pt|st|ct|sa|scim)\.[A-Za-z0-9]{40,}",
         ("DOPPLER_TOKEN=⟦dp.st.«a44»⟧",), "", SHAPED),
    Rule("pulumi-token", ("pul-",), B + r"pul-[a-f0-9]{40}" + E,
         ("PULUMI_ACCESS_TOKEN=⟦pul-«h40»⟧",), "", SHAPED),
    Rule("atlassian-token", ("atatt", "atctt"), B + r"AT[AC]TT[A-Za-z0-9_\-=]{100,}",
         ("JIRA_TOKEN=⟦ATATT«w180»⟧",), "", SHAPED),
    Rule("age-key", ("age-secret-key-",), B + r"AGE-SECRET-KEY-1[0-9A-Z]{58}" + E,
         ("age key ⟦AGE-SECRET-KEY-1«u58»⟧",), "", SHAPED),
    Rule("groq-key", ("gsk_",), B + r"gsk_[A-Za-z0-9]{48,}" + E,
         ("GROQ_API_KEY=⟦gsk_«a52»⟧",), "", SHAPED),
    Rule("replicate-token", ("r8_",), B + r"r8_[A-Za-z0-9]{37}" + E,
         ("REPLICATE_API_TOKEN=⟦r8_«a37»⟧",), "", SHAPED),
    Rule("xai-key", ("xai-",), B + r"xai-[A-Za-z0-9]{70,}" + E,
         ("XAI_API_KEY=⟦xai-«a80»⟧",), "", SHAPED),
    Rule("sentry-token", ("sntrys_", "sntryu_"), B + r"sntry[su]_[A-Za-z0-9+/=_\-]{40,}",
         ("SENTRY_AUTH_TOKEN=⟦sntrys_«a64»⟧",), "", SHAPED),
    Rule("heroku-key", ("hrku-",), B + r"HRKU-[A-Za-z0-9_\-]{20,}",
         ("heroku authorizations:create gave ⟦HRKU-AA«w58»⟧",), "", SHAPED),
    Rule("terraform-token", ("atlasv1.",), B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{40,}",
         ("credentials \"app.terraform.io\" {{ token = \"⟦«a14».atlasv1.«w67»⟧\" }}",),
         "", SHAPED),
    Rule("mapbox-token", ("sk.eyj", "pk.eyj", "tk.eyj"),
         B + r"[spt]k\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{16,}",
         ("MAPBOX_DOWNLOADS_TOKEN=⟦sk.eyJ1Ijoi«w40».«w22»⟧",), "", SHAPED),
    Rule("jwt", ("ey", "zxlk"),
         # (each prefix refused at once inside a run, `eyeyey…`, which the
         # rule refuses anyway: else each scans the run to its end)
         B + r"(?:eyJ" + JWT_START + r"[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}"
         r"\.[A-Za-z0-9_\-]{8,}"
         r"|ey(?<![A-Za-z0-9]ey)[A-Za-z0-9]{17,}\.ey[A-Za-z0-9/\\_\-]{17,}"
         r"\.(?:[A-Za-z0-9/\\_\-]{10,}={0,2})?"
         r"|ZXlK(?<![A-Za-z0-9]ZXlK)[A-Za-z0-9+/=_\-]{20,})",
         ("Cookie: session=⟦eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ«w40».«w43»⟧",),
         "", SHAPED),
    *_VENDOR_TOKENS,
    # trufflehog's token shapes the rules above miss (secret_vendors).
    *(Rule(rid, triggers, B + pattern + E, samples, look_alike, SHAPED)
      for rid, triggers, pattern, samples, look_alike in VENDOR_SHAPES),
    *(Rule(rid, triggers, B + pattern + E, samples, look_alike, WORD)
      for rid, triggers, pattern, samples, look_alike in VENDOR_WORD_SHAPES),
    Rule("azure-secret", ("q~",), r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}",
         ("AZURE_CLIENT_SECRET ⟦abc8Q~«w34»⟧",), "", RUN),
    Rule("facebook-token", ("|", "%"), B + r"\d{15,16}(?:\||%7[Cc]|%)[0-9A-Za-z_\-]{27,40}",
         ("graph?access_token=⟦«d15»|«w30»⟧",), "", RUN),
    Rule("teams-webhook", ("webhookb2",),
         r"https://[a-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{30,}",
         ("⟦https://acme.webhook.office.com/webhookb2/«l8»-«l4»-«l4»-«l4»-«l12»@«l8»-«l4»-"
          "«l4»-«l4»-«l12»/IncomingWebhook/«l32»/«l8»-«l4»-«l4»-«l4»-«l12»⟧",), "", RUN),
    Rule("nuget-password", ("<add key",),
         r"(?i)<add key=\"(?:cleartext)?password\"\s*value=\"(?P<v>[^\"]{1,200})\"",
         ('<add key="ClearTextPassword" value="⟦«a16»⟧" />',), '<add key="Username" value="me" />'),
    Rule("docker-config", ("dockerconfigjson", "dockercfg"),
         r"(?i)\.docker(?:configjson|cfg)[\"']?\s*:\s*[\"']?(?P<v>[A-Za-z0-9+/=]{16,})",
         ("data:\n  .dockerconfigjson: ⟦eyJhdXRocyI6«b60»⟧",)),
    Rule("url-password", ("://",),
         # A password in a URL: the user may be empty (`redis://:pw@host`); the
         # password may hold `@`, `/` or `'` (the last `@` before the host ends it).
         # The scheme may be glued on (`xhttps://`, `1https://`).
         r"[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{0,100}:(?!\d{1,5}/)"
         r"(?P<v>[^\s\"`]{1,200}?)@(?=[^\s@/\"'`:]+(?:[:/?#\s\"'`]|$))",
         ("git clone https://deploy:⟦P«a14»9⟧@git.example.com/repo.git",
          "REDIS_URL=redis://:⟦«a18»⟧@cache.internal:6379/0",
          "postgres://app:⟦pa@«a12»⟧@db.internal:5432/app",
          "DATABASE_URL=postgres://app:⟦p/«a10»'x⟧@db.internal/app"),
         "see http://example.com:8080/users/me and ssh://git@host/repo"),
    # The same with one slash, as a path that holds a URL keeps it (paths
    # normalise `//`: a folder /home/u/https:/user:pw@host), for the usual schemes.
    Rule("url-password", _ONE_SLASH_SCHEMES,
         r"(?i)(?:https?|s?ftps?|postgres(?:ql)?|mysql|mariadb|rediss?|mongodb(?:\+srv)?"
         r"|amqps?|ssh|git|smtps?|imaps?|ldaps?|svn|sqlserver):/(?!/)"
         r"[^\s:/@\"'`]{0,100}:(?!\d{1,5}/)"
         r"(?P<v>[^\s\"`]{1,200}?)@(?=[^\s@/\"'`:]+(?:[:/?#\s\"'`]|$))",
         ("cd /home/u/https:/deploy:⟦P«a14»9⟧@git.example.com/repo",
          "/srv/x/postgres:/app:⟦«a16»⟧@db.internal:5432/app"),
         "see /srv/https:/example.com/users and C:/x/ssh:/git@host/repo"),
    # A token as the URL's user (`https://TOKEN@host`, `https://TOKEN:x-oauth-basic@`):
    # 12 characters or more that do not read as a name (redact._Replacer: a
    # user's name, `deploy`, `jenkins_bot`, is left; a random run is hidden).
    Rule("url-token", ("://",),
         r"https?://(?P<v>[A-Za-z0-9_\-]{12,})"
         r"(?::[^\s@/\"'`]*)?@[^\s@/\"'`:]+",
         ("git clone https://⟦«a40»⟧@github.com/o/r.git",
          "https://⟦«a14»⟧@github.com/org/repo.git", "https://⟦«L16»⟧@github.com/o/r"),
         "https://user@example.com/repo https://jenkins_deploy@ci.example.com/x "
         "https://deploymentbot@git.example.com/r"),
    Rule("azure-sas", ("sig=",),
         r"(?i)[?&;]sig=(?P<v>[A-Za-z0-9%+/=]{16,})",
         ("https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sr=b&sp=r"
          "&sig=⟦«a43»%3D⟧",), "the sig= parameter of a SAS URL"),
    Rule("bearer-token", ("bearer",),
         r"(?i)(?:authorization[\"']?\s*[:=]\s*[\"']?bearer\s*(?P<v>[A-Za-z0-9_\-.=+/~]{6,})"
         r"|\bbearer\s+(?P<v2>[A-Za-z0-9_\-.=+/~]{16,}))",
         ("curl -H 'Authorization: Bearer ⟦«a40»⟧' https://api.example.com",
          "curl -H 'Authorization:Bearer⟦«a40»⟧' https://api.example.com"),
         "Bearer tokens go in the Authorization header"),
    Rule("authorization", ("authorization",),
         r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:basic|token|digest|apikey|sso-key|bot"
         r"|key|otoken|splunk|ssws|negotiate)\s+(?P<v>[A-Za-z0-9_\-.=+/:]{6,})",
         ("Authorization: Basic ⟦«b28»==⟧",
          "headers = {{'Authorization': 'Token ⟦«a40»⟧'}}",
          "Authorization: Bot ⟦M«a25».«a6».«w38»⟧"),
         "Authorization: Basic realm"),
    Rule("cookie", ("cookie",),
         r"(?i)\b(?:set-)?cookie\s*:\s*(?P<v>[^\n\"'=]{0,400}=[^\n\"']{8,})",
         ("curl -H 'Cookie: ⟦sessionid=«a32»; csrftoken=«a32»⟧' https://x",
          "Set-Cookie: ⟦_gitlab_session=«h32»; path=/⟧"),
         "the Cookie header carries the session"),
    Rule("gitlab-session", ("_gitlab_session=",), r"_gitlab_session=(?P<v>[0-9a-z]{32})",
         ("curl -b '_gitlab_session=⟦«l32»⟧' https://gitlab.example.com",)),
    Rule("cli-password", ("-u ", "--user", "--proxy-user", "sshpass", "mysql", "mariadb",
                          "--pass", "--token", "--secret", "--api", "--auth", "--access", "login",
                          "--account-key", "--sas-token", "--storage-key", "--master-key", "mycli",
                          "redis-cli",
                          "pass:", "storepass", "keypass", "secret set", "configure set",
                          "-pass", "htpasswd", "mongo",
                          *(f"--{n}" for n in secret_names.flag_names())),
         r"(?:(?:^|\s)(?:-[uU]|--user|--proxy-user)[ =](?:'[A-Za-z0-9_.@\-]+:(?P<v23>[^'\n]+)'"
         r"|\"[A-Za-z0-9_.@\-]+:(?P<v24>(?!\$[\w{(])[^\"\n]+)\"|['\"]?[A-Za-z0-9_.@\-]+:(?P<v>[^\s'\"]+))"
         r"|\bsshpass\s+-p\s*(?:'(?P<v25>[^'\n]+)'|\"(?P<v26>(?!\$[\w{(])[^\"\n]+)\"|(?P<v2>[^\s'\"]+))"
         # mysql -pX, -p'X', -p"X" (no space: a space means "ask me").
         r"|\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh|mysqlimport|mycli|mongo|mongosh)\b"
         r"[^\n]{0,400}?\s-p"
         r"(?:'(?P<v3>[^'\n]+)'|\"(?P<v4>[^\"\n]+)\"|(?P<v5>[^\s'\"-][^\s'\"]*))"
         # (`pulumi config set --secret NAME VALUE`: a flag, then a name)
         r"|(?<!config set )--(?:password|passwd|pass|token|secret|api-key|apikey|auth-token"
         r"|access-token|client-secret|secret-key|access-key|private-key|account-key|sas-token"
         r"|storage-key|master-key|" + "|".join(secret_names.flag_names()) + ")"
         # (not a redirection after a flag that asks: `--password <<< X`)
         r"[ =](?:'(?P<v6>[^'\n]{3,})'|\"(?P<v7>[^\"\n]{3,})\"|(?P<v8>(?![<>|&])[^\s'\"]{3,}))"
         # docker/podman/helm/oras login -p X; redis-cli -a X (its -p the port); mongo -p X.
         r"|\b(?:(?:login|mongo|mongosh)\b[^\n|;&]{0,400}?\s-[pa]"
         r"|redis-cli\b[^\n|;&]{0,400}?\s-a)\s+"
         r"(?:'(?P<v9>[^'\n]+)'|\"(?P<v10>[^\"\n]+)\"|(?P<v11>[^\s'\"-][^\s'\"]*))"
         # openssl -passin/-passout pass:X; keytool -storepass X.
         r"|(?<![A-Za-z0-9])pass:(?P<v12>[^\s'\"]+)"
         r"|\s-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass"
         r"|passin|passout|password|passwd)\s+(?!(?:pass|env|file|fd):|stdin\b)"
         r"(?:'(?P<v13>[^'\n]+)'|\"(?P<v14>[^\"\n]+)\"|(?P<v15>[^\s'\"]+))"
         # gh secret set NAME --body X; aws configure set aws_secret_access_key X.
         r"|\bsecret\s+set\b[^\n|;&]{0,400}?\s(?:--body|-b)[ =]?"
         r"(?:'(?P<v16>[^'\n]+)'|\"(?P<v17>[^\"\n]+)\"|(?P<v18>[^\s'\"]+))"
         r"|\bconfigure\s+set\s+[\w.\-]*(?:secret|token|password|key)[\w.\-]*\s+"
         r"(?:'(?P<v27>[^'\n]+)'|\"(?P<v28>(?!\$[\w{(])[^\"\n]+)\"|(?P<v19>[^\s'\"]+))"
         # htpasswd -b [-c] FILE USER PASSWORD (-b anywhere among the flags; with
         # -n, no FILE: secret_positional).
         r"|\bhtpasswd\b(?=[^\n|;&]{0,400}\s-[a-zA-Z]*b)(?![^\n|;&]{0,400}\s-[a-zA-Z]*n)"
         r"(?:\s+-[a-zA-Z]+)*\s+(?!-)\S+\s+(?!-)\S+\s+"
         r"(?:'(?P<v20>[^'\n]+)'|\"(?P<v21>[^\"\n]+)\"|(?P<v22>[^\s'\"]+)))",
         ("curl -u admin:⟦«a16»⟧ https://jenkins.internal/api",
          "mysql -u root -p⟦«a14»⟧ shop", "mysql -uroot -p'⟦«a14»⟧' shop",
          "psql --password ⟦«a14»⟧ -h db", "sshpass -p '⟦«a14»⟧' ssh deploy@host",
          "docker login -u me -p ⟦«a20»⟧ registry.example.com",
          "redis-cli -h cache -a ⟦«a20»⟧ ping",
          "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:⟦«a16»⟧",
          "gh secret set NPM_TOKEN --body ⟦«a32»⟧",
          "gh secret set DEPLOY_KEY --body '⟦«a32»⟧'",
          "keytool -genkey -keystore k.jks -storepass ⟦«a12»⟧ -alias me",
          "aws configure set aws_secret_access_key ⟦«b40»⟧"),
         "date -u +%Y-%m-%dT%H:%M:%SZ"),
    *SHELL_RULES,
    *(Rule(*rule) for rule in secret_positional.RULES),
    *CONFIG_RULES,
    *PROTOCOL_RULES,
    *SHAPE_RULES,
    *PROSE_RULES,
    # A name that says key, token, secret or password in another script, glued
    # to a name in Latin letters (`API_키=…`, `DB_пароль: …`, `app.密钥 = …`):
    # judged as a secret's name and value are. The rest of the name is read
    # whole and at most 64 long: from each of the names in `ключaключa…` it
    # ran to the run's end and back (32 kB took 9 s: attack 25 S-11).
    Rule("secret-assignment", _FOREIGN_NAMES,
         r"(?i)(?<=[a-z0-9_.\-])(?:" + "|".join(_FOREIGN_NAMES) + r")[\w.\-]{0,64}+[\"']?"
         r"(?P<sep>\s*(?:=|:|:=|=>|\s=\s)\s*)"
         r"(?:\"(?P<v>[^\"\n]{4,200})\"|\$?'(?P<v2>[^'\n]{4,200})'"
         r"|(?P<v3>(?!:)[^\s\"'`,;)}\]]{4,}))",
         ("API_키=⟦«a14»⟧", "DB_пароль: ⟦«a14»⟧", "app.密钥 = '⟦«a16»⟧'", "GITHUB_토큰=⟦«a20»⟧"),
         "키: 180cm; API 키 설명: 문서를 보세요"),
    Rule("netrc", ("machine", "default"),
         B + r"(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*"
         r"\s+password\s+(?P<v>\S+)",
         ("machine api.example.com login me password ⟦«a16»⟧",),
         "the machine has no password set"),
    Rule("pgpass", ("pgpass", ":5432:", ":*:"),
         r"(?<![^\s\"'`])[A-Za-z0-9.\-*_]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:"
         r"(?P<v>[^\s:\"'`]{3,})(?![^\s\"'`])",
         ("db.internal:5432:app:alice:⟦«a16»⟧",)),
    Rule("azure-key", ("accountkey", "sharedaccess"),
         r"(?i)\b(?:accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*(?P<v>[^;\s\"']{8,})",
         ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=⟦«b86»==⟧;"
          "EndpointSuffix=core.windows.net",
          "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;"
          "SharedAccessKey=⟦«b44»=⟧"),
         "the SharedAccessKeyName is root"),
    Rule(
        "secret-assignment",
        NAME_TRIGGERS,
        # Anchored on the keyword (not on the start of the name) so the engine
        # does not backtrack from every position; a longer name still matches.
        # A typed constant (`API_KEY: str = "…"`, Rust's `: &str`, TypeScript's
        # `: string`) gives its type before the `=`.
        r"(?i)" + SECRET_NAME + r"[a-z0-9_.\-]{0,64}[\"']?"
        # (or a subscript's key, `app.config['SECRET_KEY'] = …`; Rust's bytes,
        # `: [u8; 16]`, `: &[u8]`; Visual Basic's `Dim password As String = …`)
        r"(?:(?<=[\"'])\])?"
        r"(?P<typed>[ \t]*:[ \t]*&?(?:'static[ \t]+)?(?:str|string|bytes|\[u8(?:;[ \t]*\d{1,4})?\])"
        r"(?=[ \t]*=)|[ \t]+as[ \t]+(?:string|securestring)(?=[ \t]*=))?"
        # (Make's `?=`, `+=`, `::=` too. A line's end in it is marked, `nl`:
        # the next line's `name:` is a key of the mapping the name opens,
        # `secrets:⏎  db_password: |`, no value, and not taken from it; nor
        # the next line's name: `API_KEY=⏎SECRET=` is two names without values)
        r"(?P<sep>\s*(?:=|:|:=|=>|\s=\s|[：∶﹕꞉]|\?=|\+=|::=)"
        r"(?:(?:(?![\r\n])\s)*(?P<nl>\r?\n|\r)\s*(?![A-Za-z_][\w.\-]*[ \t]*[=:])"
        r"|(?:(?![\r\n])\s)*))"
        # A quoted value may hold spaces (a passphrase); a bare one ends at one,
        # and never starts with a colon: `test_auth.py::test_auth` is a pytest
        # test's id, `Token::new` a path, not a name given a value.
        # YAML may name the value first (an anchor, `&pw`), or give it as a
        # block (`password: |`, the value on the next line, indented); a shell
        # may quote it ANSI-C's way (`$'…'`).
        r"(?:&[\w\-]+[ \t]+)?"
        # (Python's bytes, `b'…'`, a literal too)
        # (a "value" that opens by closing brackets is code after a quoted label:
        # `getByText('Password:')).toBeVisible(); change(input, 'x')`)
        r"(?:\*?b?\"(?![)\]}][)\]}.;,])(?P<v>[^\"\n]{4,200})\""
        r"|[$b]?'(?![)\]}][)\]}.;,])(?P<v2>[^'\n]{4,200})'"
        # (the block's indent may be gone: a tool's output is shown with its
        # lines' leading spaces taken off)
        # (its lines all: those indented as the first, or more)
        r"|[|>][-+]?[ \t]*\r?\n(?P<indent>[ \t]*)(?P<v4>\S[^\n]{3,199}?"
        r"(?:\r?\n(?P=indent)(?<=[ \t])[ \t]*\S[^\n]{0,199}?){0,50})(?=[ \t]*(?:\r?\n|$))"
        r"|(?P<v3>(?!:)(?(nl)(?![\w.\-]+:(?:\s|$)))[^\s\"'`,;)}\]]{4,}))",
        ("DB_PASSWORD=⟦SuperSecretPassword⟧", '"password": "⟦CorrectHorseBattery⟧"',
         "export DB_PASSWORD=$'⟦«a16»⟧'", "password: |\n  ⟦«a16»⟧\n", "password: &pw ⟦«a16»⟧",
         'passphrase = "⟦correct horse battery staple⟧"', "API_KEY=⟦test_«a16»⟧",
         "client_secret: ⟦«a32»⟧", "SMTP_PASS=⟦«a12»⟧", "STRIPE_KEY=⟦«a24»⟧",
         '{{"db_pass": "⟦«a12»⟧"}}', "//registry.npmjs.org/:_auth=⟦«b24»=⟧",
         "export PGPASSWORD=⟦«a5»⟧", 'auths: {{"https://index.docker.io/v1/": '
         '{{"auth": "⟦«b32»⟧"}}}}', "db_pass = '⟦«a10»⟧'",
         '[default]\ntoken = "⟦«a30»⟧"', "  DB_PASS: ⟦«b24»⟧",
         "GITHUB_AUTH=⟦«a20»⟧", "my_creds: ⟦«a18»⟧", 'API_KEY: str = "⟦«a32»⟧"',
         'const API_KEY: &str = "⟦«a32»⟧";', 'const apiKey: string = "⟦«a32»⟧";',
         "creds = {{'user': b'app', 'password': b'⟦«a16»⟧'}}", "zf.extractall(pwd=b'⟦«a16»⟧')",
         "app.config['SECRET_KEY'] = '⟦«a16»⟧'", 'const KEY_SECRET: [u8; 16] = *b"⟦«a16»⟧";',
         'static SECRET: &[u8] = b"⟦«a16»⟧";', 'Dim password As String = "⟦«a16»⟧"',
         "password﹕⟦«a16»⟧", "password∶⟦«a16»⟧", "API_KEY ?= ⟦«a20»⟧", "API_KEY += ⟦«a20»⟧",
         "secrets:\n  db_password: |\n    ⟦«a16»⟧\n  other: 1",
         "auth:\n  token: >-\n    ⟦«a16»\n    «a16»⟧\nnext: 1"),
        "export X_TOKEN=your-token-here; FAILED tests/test_auth.py::test_token - x; "
        "expect(screen.getByText('Password:')).toBeVisible(); fireEvent.change(input, 'x')"),
    TAB_RULE,
    # Sumo Logic's access id: `su` and 12 letters and digits (no digit needed).
    Rule("vendor-key", ("sumo",),
         r"(?i)sumo[\w.\- \t]{0,20}?" + _SEP + r"(?P<v>su[a-z0-9]{12})" + _END,
         ('SUMO":⟦su«L12»⟧', "sumo_access_id = ⟦su«a12»⟧"), "sumo: summarise"),
    # Freemius' secret key in a PHP array: `sk_` and 29 of anything but space.
    Rule("freemius-key", ("secret_key",),
         r"(?i)[\"']secret_key[\"']\s*=>\s*[\"'](?P<v>sk_\S{29})[\"']",
         ("'secret_key' => '⟦sk_«a20»*<}&?@_Pe⟧'",), "'secret_key' => $secret_key"),
    # A token base64-encoded (`echo Z2hwX… | base64 -d`): a run beginning with
    # the base64 of a vendor's prefix (`Z2hw` is `ghp`), hidden when what it
    # decodes to is a secret by these rules (redact.py judges it so).
    Rule("encoded-token", ("z2hw", "z2hv", "z2h1", "z2hz", "z2hy", "z2l0ahvi", "z2xwyxqt",
                           "c2st", "eg94", "qutj", "qvnj", "bnbt", "agzf", "qul6", "c2tf",
                           "cmtf", "chlw", "zg9w", "egfp", "z3nr", "c2hwyxrf", "u0cu",
                           "d2hzzwnf", "r09du1by"),
         B + r"(?:Z2h[wv1zy]|Z2l0aHVi|Z2xwYXQt|c2st|eG94|QUtJ|QVNJ|bnBt|aGZf|QUl6|c2tf|cmtf"
         r"|cHlw|ZG9w|eGFp|Z3Nr|c2hwYXRf|U0cu|d2hzZWNf|R09DU1BY)[A-Za-z0-9+/]{20,}={0,2}"
         r"(?![A-Za-z0-9+/=])",
         # (made-up tokens' base64, fixed: a template cannot draw the base64 of one)
         ("echo ⟦Z2hwX0V4YW1wbGUwVG9rZW4xTm90MkEzUmVhbDRTZWNyZXQ1WHl6dw==⟧ | base64 -d",
          "SLACK=$(echo '⟦eG94Yi0xMjM0NTY3ODkwLUV4YW1wbGUwVG9rZW4xTm90MkEzUmVhbA==⟧' | base64 -d)"),
         "echo Z2hwX2V4YW1wbGU= | base64 -d", SHAPED),
    # A `user:password` base64-encoded (an Authorization header's value set
    # by a proxy's config, `nginx: proxy_set_header Authorization "Basic …"`,
    # or given in prose, `creds (base64 of user:pass): …`): a run whose
    # decoding is such a pair with a password no placeholder (redact judges).
    # (Its test of what comes before is in the pattern, not made on each
    # match as for a rule that begins with B: with no prefix to skip ahead
    # to, the search began at each character of a run, and read on 300.)
    Rule("encoded-password", ("base64", "basic", "b64", "creds", "credential"),
         r"(?P<v>" + B + r"[A-Za-z0-9+/]{12,300}+={0,2}+)(?![A-Za-z0-9+/=])",
         ("proxy_set_header Authorization \"Basic ⟦Ym9iOk1kNVBDVVp2UElzSEta⟧\";",
          "creds (base64 of user:pass): ⟦Ym9iOlR4RjRaODhRekt5MDhHZzY=⟧"),
         "basic auth, as in the docs: Basic YWRtaW46Y2hhbmdlbWU= (admin and changeme); "
         "base64 of hello world: aGVsbG8gd29ybGQ=; basic: dXNlcjpwYXNzd29yZA=="),
    # The same said with no word for it: a bare run (`echo -n u:p | base64`'s
    # output, an `Authorization:` value without its `Basic`, a line of a
    # config): run on every text with a long run, so only the runs shaped
    # as base64 of ASCII text are tried (each group of four begins with one
    # of A-Z a-f: a byte under 128 is so encoded), 16 characters or more;
    # and judged more strictly (group `bare`: redact._decodes_to_user_password).
    # (attack 25: `YWRtaW46…` repeated a learned password, or a new one.)
    Rule("encoded-password", (),
         r"(?P<v>" + B + r"(?:[A-Za-f][A-Za-z0-9+/]{3}){3,75}+"
         r"(?:[A-Za-f][A-Za-z0-9+/]{1,2}+={0,2}+)?+)(?![A-Za-z0-9+/=])(?P<bare>)",
         ("⟦YWRtaW46Q2ZLN2RCcGZRa0pZd25tdw==⟧", "Authorization: ⟦Ym9iOk1kNVBDVVp2UElzSEta⟧",
          "$ echo -n admin:x | base64\n⟦YWRtaW46cGtQRk12WnhSdEwyUGpLcw==⟧"),
         "YWRtaW46Y2hhbmdlbWU= (admin:changeme); aGVsbG8gd29ybGQ=; dXNlcjpwYXNzd29yZA==; "
         "getElementById; AbstractSingletonProxyFactoryBean", RUN),
    # A JWT base64-encoded once more (`ZXlK` is `eyJ` so encoded), wrapped or not.
    Rule("jwt", ("zxlk",), B + r"ZXlK[A-Za-z0-9/\\_+\-\r\n]{40,}={0,2}",
         ("token ⟦ZXlKaGJHY2lPaU«a20»\n«a30»⟧",), "ZXlK is eyJ in base64"),
    # curl's user and password, each part quoted or not, after up to five
    # spaces or tabs or a `=`; the user is left, the password hidden.
    Rule("cli-password", ("curl",),
         r"\bcurl\b[\s\S]{0,400}?[ \t\n\r](?:-[uU]|--user|--proxy-user)(?:=|[ \t]{0,5})"
         r"(?:\"[^\":]*:(?P<v>(?!\$[\w{(])[^\"]+)\"|'[^':]*:(?P<v2>[^']+)'"
         r"|(?:\"[^\"]+\"|'[^']+'|[\w$@.\-]+):"
         r"(?:\"(?P<v3>(?!\$[\w{(])[^\"]{3,})\"|'(?P<v4>[^']{3,})'"
         r"|(?P<v5>(?!\$[\w{(])[\w${}@.\-]+)))",
         ("curl\t-u  \t \"me\":'⟦«a12»⟧' https://x", "curl --user='U^Z!:⟦«a12»⟧'",
          "curl --proxy-user bob:⟦«a14»⟧ -x http://proxy:3128 https://x",
          'curl --user":⟦«a12»⟧"'), "curl -u me https://x; curl -u \"$USER:$PASS\" https://x"),
    # A password quoted after its name and any of the separators above
    # (Terraform's `administrator_login_password = "…"`), 8 to 20 characters.
    Rule("password-value", ("password",),
         r"(?i)password[\w.\-]{0,20}?" + _SEP + r"\"(?P<v>[a-z0-9=_\-]{8,20})\"" + _END,
         ('administrator_login_password\'\',="=` "⟦«l9»⟧"', 'password ?="⟦-«l8»⟧"'),
         'get("password", "default_value")'),
    # gitleaks' generic key: a word that means a secret anywhere in a name, a
    # separator above, and a value as random as a key (entropy, as gitleaks
    # judges it; see `_Replacer`) with a letter and a digit.
    Rule("generic-key", ("access", "auth", "api", "credential", "creds", "key", "passw",
                         "secret", "token"),
         r"(?i)(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token)"
         r"[\w.\-]{0,20}" + _SEP
         + r"(?P<v>[\w.=\-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})" + _END,
         ('5creds">⟦0we49hkbug3/=⟧ ', "token> ⟦«a14»/s⟧", "credsk' ||⟦«a12»==⟧"),
         "api_version: 2023-06-01"),
    VENDOR_RULE,
    SHORT_VENDOR_RULE,
    # Said in people's words (secret_prose): last, so that a form a rule
    # above knows keeps its marker.
    *(Rule(*spec) for spec in PEOPLE_RULES),
    *(Rule(*spec) for spec in MORE_PEOPLE_RULES),
)

# The gate has nothing to hide in these. Each rule's look-alike is one more.
LOOK_ALIKES: tuple[str, ...] = (
    "commit 4f2c1a9e8b7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
    "session 123e4567-e89b-12d3-a456-426614174000",
    "image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "integrity sha512-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij==",
    "api_key = <your-key>",
    "token = ${GITHUB_TOKEN}",
    "password = os.environ['DB_PASSWORD']",
    "self.password = password",
    "password: Optional[str] = None",
    "TOKEN=xxxxxxxxxxxx",
    "secret = changeme",
    "See https://docs.python.org/3/library/re.html#re.compile",
    "at 10:30:45 on 2026-01-01, run 12:01:02:03",
    "user@example.com wrote to ops@example.com",
    "date -u +%Y-%m-%dT%H:%M:%SZ",
    "date -u '+%Y-%m-%dT%H:%M:%S.%3NZ' > stamp",
    "printf '%s:%d\\n' \"$user\" \"$port\"",
    "export X_TOKEN=your-token-here",
    "API_KEY=<token>",
    "GITHUB_TOKEN=xxx",
    "password: \"********\"",
    "token: '...'",
    "SECRET_KEY=your_secret_key_here",
    "OPENAI_API_KEY=sk-...",
    "api_key: YOUR_API_KEY",
    "export AWS_SECRET_ACCESS_KEY=<secret>",
    "password = \"{{ vault_password }}\"",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "git log 1a2b3c4 ..9f8e7d6",
    "uuid 550e8400-e29b-41d4-a716-446655440000",
    "mkdir -p build/out && ssh -p 2222 host",
    "python -m pytest -p no:cacheprovider",
    "docker login -u me --password-stdin",
    "openssl enc -pass env:PASSPHRASE -in a",
    "keytool -list -storepass:env STOREPASS",
    "key: value",
    "primary_key = True",
    "sort_key: created_at",
    "author: Jane Doe",
    "compass_heading = 270",
    "bypass: true",
    "monkey: business",
    "token_count = 12345",
    "max_tokens: 4096",
    "git push https://github.com/o/r.git",
    "ssh -i ~/.ssh/id_ed25519 deploy@host",
    "the tests pass: 42 passed in 3.1s",
    "--- PASS: TestLogin (0.00s)\nPASS: tests/run.sh",
    # What the generic key and the Kubernetes Secret rule must leave.
    "primary_key = models.AutoField(primary_key=True)",
    "$token->getValue()",
    'access, "read-only"',
    "if token > max_tokens_2024:",
    "keyboard_layout: us-intl-2024",
    "kind: Secret\ndata:\n  password: \"\"\n  user: {{ .Values.user }}",
    'curl -u "$USER:" https://x',
)
