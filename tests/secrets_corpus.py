"""Realistic secrets in the context they appear in, and look-alikes that are not.

Each form is (kind, text holding the secret, the secret). Secrets are made
from a seeded generator, so no real credential is in the repository. The
hand-written forms below come first, then every sample of the gate's own table
(`vibe_vault.secret_rules`), so a rule added there is tested everywhere here.
"""

from __future__ import annotations

import random

from vibe_vault.secret_rules import LOOK_ALIKES as TABLE_LOOK_ALIKES
from vibe_vault.secret_rules import RULES, samples

_ALNUM = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _r(rng: random.Random, n: int, chars: str = _ALNUM) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def _hex(rng: random.Random, n: int) -> str:
    return _r(rng, n, "0123456789abcdef")


def forms(seed: int = 7) -> list[tuple[str, str, str]]:
    """The hand-written forms, then the table's samples."""
    out = hand_forms(seed)
    for n, rule in enumerate(RULES):
        for i, sample in enumerate(samples(rule, seed)):
            out.append((f"table{n}-{rule.id}-{i}", sample.text, sample.secret))
    return out


def hand_forms(seed: int = 7) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []

    def add(kind: str, template: str, secret: str) -> None:
        out.append((kind, template.format(s=secret), secret))

    add("aws-access-key", "aws configure set aws_access_key_id {s}", "AKIA" + _r(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))
    add("aws-secret-key", "aws_secret_access_key = {s}", _r(rng, 40))
    add("github-token", "git remote set-url origin https://{s}@github.com/o/r.git", "ghp_" + _r(rng, 36))
    add("github-pat", "GH_TOKEN={s} gh pr create", "github_pat_" + _r(rng, 22) + "_" + _r(rng, 59))
    add("gitlab-token", "curl --header 'PRIVATE-TOKEN: {s}' https://gitlab.com/api", "glpat-" + _r(rng, 20))
    add("anthropic-key", "export ANTHROPIC_API_KEY={s}", "sk-ant-api03-" + _r(rng, 93) + "AA")
    add("openai-key", "client = OpenAI(api_key=\"{s}\")", "sk-proj-" + _r(rng, 48))
    add("google-api-key", "https://maps.googleapis.com/maps/api?key={s}", "AIza" + _r(rng, 35))
    add("google-oauth-secret", "client_secret: {s}", "GOCSPX-" + _r(rng, 28))
    add("google-oauth-token", "Authorization header was ya29.{s}", _r(rng, 60))
    add("slack-bot", "SLACK_BOT_TOKEN={s}", "xoxb-" + _r(rng, 12, "0123456789") + "-" + _r(rng, 24))
    add("slack-app", "app token {s} in the socket client", "xapp-1-A" + _r(rng, 10, "0123456789ABCDEF") + "-" + _r(rng, 13, "0123456789") + "-" + _hex(rng, 64))
    add("slack-webhook", "post to {s}", "https://hooks.slack.com/services/T" + _r(rng, 8) + "/B" + _r(rng, 8) + "/" + _r(rng, 24))
    add("stripe-secret", "stripe.api_key = '{s}'", "sk_live_" + _r(rng, 24))
    add("stripe-restricted", "use {s} for refunds", "rk_live_" + _r(rng, 24))
    add("stripe-webhook", "STRIPE_WEBHOOK_SECRET={s}", "whsec_" + _r(rng, 32))
    add("npm-token", "//registry.npmjs.org/:_authToken={s}", "npm_" + _r(rng, 36))
    add("sendgrid", "sg = SendGridAPIClient('{s}')", "SG." + _r(rng, 22) + "." + _r(rng, 43))
    add("huggingface", "huggingface-cli login --token {s}", "hf_" + _r(rng, 34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    add("pypi", "password = {s}", "pypi-AgEIcHlwaS5vcmc" + _r(rng, 60))
    add("docker", "echo {s} | docker login -u me --password-stdin", "dckr_pat_" + _r(rng, 27))
    add("vault", "VAULT_TOKEN={s} vault kv get", "hvs." + _r(rng, 90))
    add("digitalocean", "doctl auth init -t {s}", "dop_v1_" + _hex(rng, 64))
    add("shopify", "X-Shopify-Access-Token: {s}", "shpat_" + _hex(rng, 32))
    add("discord-bot", "discord client.run('{s}')", "M" + _r(rng, 25) + "." + _r(rng, 6) + "." + _r(rng, 38))
    add("discord-webhook", "curl -X POST {s}", "https://discord.com/api/webhooks/" + _r(rng, 18, "0123456789") + "/" + _r(rng, 68))
    add("twilio", "twilio api key {s}", "SK" + _hex(rng, 32))
    add("mailgun", "MAILGUN_API_KEY={s}", "key-" + _r(rng, 32))
    add("databricks", "databricks token {s}", "dapi" + _hex(rng, 32))
    add("newrelic", "NEW_RELIC_API_KEY={s}", "NRAK-" + _r(rng, 27, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
    add("linear", "LINEAR_API_KEY={s}", "lin_api_" + _r(rng, 40))
    add("supabase", "supabase login --token {s}", "sbp_" + _hex(rng, 40))
    add("postman", "postman key {s}", "PMAK-" + _hex(rng, 24) + "-" + _hex(rng, 34))
    add("age", "age key {s}", "AGE-SECRET-KEY-1" + _r(rng, 58, "ACDEFGHJKLMNPQRSTUVWXYZ0123456789"))
    add("groq", "GROQ_API_KEY={s}", "gsk_" + _r(rng, 52))
    add("jwt", "Cookie: session={s}", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + _r(rng, 40) + "." + _r(rng, 43))
    add("bearer", "curl -H 'Authorization: Bearer {s}' https://api.example.com", _r(rng, 40))
    add("basic-auth", "Authorization: Basic {s}", _r(rng, 28) + "==")
    add("token-auth", "headers = {{'Authorization': 'Token {s}'}}", _r(rng, 40))
    add("url-password", "git clone https://deploy:{s}@git.example.com/repo.git", "P" + _r(rng, 14) + "9")
    add("url-no-user", "REDIS_URL=redis://:{s}@cache.internal:6379/0", _r(rng, 18))
    add("url-at-in-password", "postgres://app:{s}@db.internal:5432/app", "pa@" + _r(rng, 12))
    add("curl-user", "curl -u admin:{s} https://jenkins.internal/api", _r(rng, 16))
    add("mysql-p", "mysql -u root -p{s} shop", _r(rng, 14))
    add("password-flag", "psql --password {s} -h db", _r(rng, 14))
    add("sshpass", "sshpass -p '{s}' ssh deploy@host", _r(rng, 14))
    add("netrc", "machine api.example.com login me password {s}", _r(rng, 16))
    add("pgpass", "db.internal:5432:app:alice:{s}", _r(rng, 16))
    add("azure-account-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net", _r(rng, 86) + "==")
    add("azure-sas", "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={s}", _r(rng, 44) + "=")
    add("all-letters-password", "DB_PASSWORD={s}", "SuperSecretPassword")
    add("quoted-letters", '"password": "{s}"', "CorrectHorseBattery")
    add("passphrase", 'passphrase = "{s}"', "correct horse battery staple")
    add("test-prefixed", "API_KEY={s}", "test_" + _r(rng, 16))
    add("yaml-secret", "client_secret: {s}", _r(rng, 32))
    add("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA" + _r(rng, 60))
    add("rsa-key", "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----", "MIIEow" + _r(rng, 60))
    add("pgp-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{s}\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF" + _r(rng, 60))
    add("putty-key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n{s}\nPrivate-MAC: " + _hex(rng, 64), "AAAAI" + _r(rng, 40))
    add("env-file", "cat > .env <<'EOF'\nAPP_SETTING={s}\nEOF", "v" + _r(rng, 24))
    return out


HAND_LOOK_ALIKES = [
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
]

LOOK_ALIKES = sorted({*HAND_LOOK_ALIKES, *TABLE_LOOK_ALIKES,
                      *(rule.look_alike for rule in RULES if rule.look_alike)})
