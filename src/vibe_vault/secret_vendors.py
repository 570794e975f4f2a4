"""Vendors' token shapes taken from trufflehog's detectors, as data.

trufflehog (github.com/trufflesecurity/trufflehog, pkg/detectors/*/) finds
about 120 tokens by their own shape: a literal prefix, then a random run.
`bench/data/trufflehog_rules.json` holds those regexes (made by
`bench/trufflehog_data.py`); tests/test_secret_vendors.py draws tokens from
every one of them and checks the gate hides each in a command, its output, a
file's content and JSON. Here are the shapes the table of `secret_rules`
missed (attack 26, class 4, and that test), each as the table writes its
rules: an id, the prefixes that make it run (lower case), its pattern (the
table puts its token boundaries around it), samples and a look-alike that
must pass.

A prefix takes a range of lengths around its token's (vendors lengthen
their tokens; a token cut by a terminal is still one), with the boundary
after it, so that a run's end is the token's. A long run is not bounded when
its class holds every letter and digit: the match then ends at the run's end,
where the boundary holds; a bound would make each prefix inside a long run
(`BQIAAABQIAAA…`) scan as far as it before failing, a quadratic. A short or common
prefix (`re_`, `cio`, `pa-`, `fw_`) takes only a run with a digit and a capital
and a small letter, which words and identifiers that begin so do not have.

Token shapes are facts about vendors' formats (their documentation, and
trufflehog's detectors, whose formats the tests read as facts, written out
in this project's notation: bench/trufflehog_data.shape). The hooks
never import this module: the rule table made from it is kept (redact.rule_table).
"""

from __future__ import annotations


# A run of letters and digits of n to m characters holding a digit and a
# capital, or six capitals (a random run of letters: an identifier in camel
# case has a capital a word), and a small letter. The lookaheads are bounded,
# and each repeat meets a class it excludes: linear on any input.
def _mixed(n: int, m: int, extra: str = "") -> str:
    cls, lower = f"[A-Za-z0-9{extra}]", f"[a-z0-9{extra}]"
    return (f"(?:(?={cls}{{0,{m - 1}}}[0-9])(?={cls}{{0,{m - 1}}}[A-Z])"
            f"|(?=(?:{lower}{{0,{m - 1}}}[A-Z]){{6}}))"
            f"(?={cls}{{0,{m - 1}}}[a-z]){cls}{{{n},{m}}}")


# (id, triggers, pattern, samples, look-alike). Patterns begin with their
# prefix (the engine skips ahead to it); each is bounded.
SHAPES: tuple[tuple[str, tuple[str, ...], str, tuple[str, ...], str], ...] = (
    # trufflehog's shapes the table did not know, or knew narrower.
    # (the table's rule takes a digit: a run of letters with six capitals too)
    ("adafruit-key", ("aio_",), r"aio_" + _mixed(28, 28),
     ("ADAFRUIT_IO_KEY=⟦aio_«L28»⟧",), "aio_read aio_write aiohttp_requestsession_manager"),
    ("apideck-key", ("sk_live_",), r"sk_live_[A-Za-z0-9\-]{93}",
     ("APIDECK_API_KEY=⟦sk_live_«a93»⟧",), ""),
    ("apify-token", ("apify_api_",), r"apify_api_[A-Za-z0-9\-]{30,40}",
     ("APIFY_TOKEN=⟦apify_api_«a36»⟧",), "apify_api_client"),
    ("bannerbear-key", ("bb_pr_", "bb_ma_"), r"bb_(?:pr|ma)_[a-f0-9]{30}",
     ("key ⟦bb_pr_«h30»⟧",), ""),
    ("buildkite-token", ("bkua_",), r"bkua_[A-Za-z0-9]{36,44}",
     ("BUILDKITE_API_TOKEN=⟦bkua_«h40»⟧",), "bkua_ is Buildkite's prefix"),
    ("jwt", ("eyjhbgcioijiuzi1nij9",), r"eyJhbGciOiJIUzI1NiJ9[A-Za-z0-9._\-]{100,}",
     ("caflou ⟦eyJhbGciOiJIUzI1NiJ9«w135»⟧",), ""),
    ("circleci-token", ("ccipat_",), r"CCIPAT_[A-Za-z0-9]{16,32}_[0-9a-fA-F]{40}",
     ("CIRCLE_TOKEN=⟦CCIPAT_«a22»_«h40»⟧",), ""),
    ("closecrm-key", ("api_",), r"api_" + _mixed(45, 45, "."),
     ("CLOSE_KEY=⟦api_«a45»⟧",), "api_client_configuration_for_the_close_endpoint"),
    ("cloudflare-key", ("v1.0-",), r"v1\.0-[A-Za-z0-9\-]{150,}",
     ("origin ca key ⟦v1.0-«a171»⟧",), "v1.0-beta"),
    ("cloudflare-key", ("cfk_", "cfat_", "cfut_"), r"cf(?:k|at|ut)_[A-Za-z0-9]{40,56}",
     ("CLOUDFLARE_API_KEY=⟦cfk_«a40»«h8»⟧",), ""),
    ("dfuse-key", ("web_",), r"web_(?=[a-z]{0,31}[0-9])(?=[0-9]{0,31}[a-z])[0-9a-z]{32}",
     ("DFUSE_API_KEY=⟦web_«l32»⟧",), "web_application_configuration_x"),
    ("elevenlabs-key", ("sk_",), r"sk_[a-f0-9]{48}", ("XI_API_KEY=⟦sk_«h48»⟧",), ""),
    ("endorlabs-key", ("endr+",), r"endr\+[A-Za-z0-9\-]{16}", ("key ⟦endr+«a16»⟧",), ""),
    ("figma-token", ("figp_",), r"figp_[A-Za-z0-9_=\-]{40,60}",
     ("FIGMA_TOKEN=⟦figp_«w48»⟧",), "figp_ is Figma's prefix"),
    ("finage-key", ("api_key",), r"API_KEY[0-9A-Z]{32}", ("finage ⟦API_KEY«u32»⟧",),
     "API_KEY_SECRET_NAME_FOR_THE_SERVICE_X"),
    ("fleetbase-key", ("flb_live_",), r"flb_live_[0-9A-Za-z]{20}",
     ("FLEETBASE_KEY=⟦flb_live_«a20»⟧",), ""),
    ("flexport-key", ("shltm_",), r"shltm_[A-Za-z0-9_\-]{40}",
     ("FLEXPORT=⟦shltm_«w40»⟧",), ""),
    ("jwt", ("ewogic", "ewoid", "eyj"),
     # A JWT whose parts are short (`{"a":1}`), or whose header is
     # pretty-printed JSON (`{⏎  "alg"`: ewogIC, `{"`: ewoid): three parts, the
     # last a signature of 16 characters or more.
     # (each prefix refused at once inside a run of its class, as the
     # table's JWT rule does after a letter or digit: else each scans the run.
     # Glued after one (minified code, `b=0eyJhbGci…`), a header that begins
     # with `{"alg`, `{"typ` or `{"kid` (`{⏎  "alg`…) is a JWT's: its run read
     # at most 400 on, so that each of many such prefixes in a run is linear.)
     r"(?:(?:eyJ(?<![\w\-]eyJ)|ewogIC(?<![\w\-]ewogIC)|ewoid(?<![\w\-]ewoid))"
     r"[A-Za-z0-9_\-]{6,}|(?:eyJ|ewogICJ)(?:hbGci|0eXAi|raWQi)[A-Za-z0-9_\-]{1,400})"
     r"={0,2}\.(?:ey|ewo)[A-Za-z0-9_\-]{3,}={0,2}\.[A-Za-z0-9_\-]{16,}",
     ("Authorization: Bearer ⟦eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.«w43»⟧",
      "token ⟦ewogICJhbGciOi«w20».ewogICJzdWIi«w30».«w43»⟧"), "eyJhbGciOiJIUzI1NiJ9 is a header"),
    ("flutterwave-key", ("flwseck-", "flwpubk-"), r"FLW(?:SECK|PUBK)-[A-Za-z0-9]{32}-X",
     ("FLW_SECRET_KEY=⟦FLWSECK-«h32»-X⟧",), ""),
    ("fly-token", ("flyv1 fm",), r"FlyV1 fm\d{1,40}_[A-Za-z0-9+/=,_\-]{40,}",
     ("FLY_API_TOKEN='⟦FlyV1 fm8_«b120»⟧'",), ""),
    ("fly-token", ("fo1_",), r"fo1_[A-Za-z0-9_\-]{36,48}", ("FLY_TOKEN=⟦fo1_«w43»⟧",), ""),
    ("fullstory-key", ("na1.",), r"na1\.[A-Za-z0-9+/]{80,}={0,2}",
     ("FULLSTORY_API_KEY=⟦na1.«b100»⟧",), ""),
    ("gemini-key", ("master-", "account-"),
     r"(?:master|account)-(?=[A-Za-z0-9]{0,19}[A-Z])(?=[A-Za-z0-9]{0,19}[a-z])[A-Za-z0-9]{20}",
     ("GEMINI_API_KEY=⟦account-«a20»⟧",), "master-branch-protection account-settings-page"),
    ("gitlab-token", ("glpat-",), r"glpat-[A-Za-z0-9=_\-]{20,}(?:\.[0-9a-z]{2}\.[a-z0-9]{9})?",
     ("GITLAB_TOKEN=⟦glpat-«w10»=«w12»⟧",), ""),
    ("gocardless-key", ("live_",), r"live_[A-Za-z0-9_\-]{40}",
     ("GOCARDLESS_TOKEN=⟦live_«w40»⟧",), ""),
    ("google-oauth", ("ya29.",), r"ya29\.[A-Za-z0-9_\-]{16,}",
     ("Authorization: Bearer ⟦ya29.«w16»⟧",), ""),
    ("grafana-token", ("glc_eyj",), r"glc_eyJ[A-Za-z0-9+/=]{60,}",
     ("GRAFANA_CLOUD_TOKEN=⟦glc_eyJ«b80»⟧",), ""),
    ("grafana-token", ("glsa_",), r"glsa_[A-Za-z0-9_]{41}", ("token ⟦glsa_«a32»_«h8»⟧",), ""),
    ("hubspot-key", ("pat-na1-", "pat-eu1-"),
     r"pat-(?:na|eu)1-[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}",
     ("HUBSPOT_TOKEN=⟦pat-na1-«h8»-«h4»-«h4»-«h4»-«h12»⟧",), ""),
    ("klaviyo-key", ("pk_",), r"pk_(?:[A-Za-z0-9]{6}_)?[0-9a-f]{34}",
     ("KLAVIYO_KEY=⟦pk_«a6»_«h34»⟧", "key ⟦pk_«h34»⟧"), ""),
    ("launchdarkly-key", ("api-", "sdk-"),
     r"(?:api|sdk)-[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12}",
     ("LD_SDK_KEY=⟦sdk-«h8»-«h4»-4«h3»-«h4»-«h12»⟧",), "api-gateway-service-v2"),
    ("locationiq-key", ("pk.",), r"pk\." + _mixed(32, 32, r"\-"),
     ("LOCATIONIQ=⟦pk.«a32»⟧",), "pk.objects.filter(name)"),
    ("mapbox-token", ("sk.",), r"sk\.[A-Za-z0-9\-.]{80,}", ("MAPBOX=⟦sk.«a90»⟧",), ""),
    ("newrelic-key", ("nrbr-", "nriq-", "nrii-"), r"NR(?:BR|IQ|II)-[A-Za-z0-9_\-]{19,32}",
     ("NEW_RELIC_BROWSER_KEY=⟦NRBR-«h19»⟧", "query key ⟦NRIQ-«w25»⟧"), ""),
    ("nightfall-key", ("nf-",), r"NF-[A-Za-z0-9]{32}", ("NIGHTFALL_API_KEY=⟦NF-«a32»⟧",), ""),
    ("nvidia-key", ("nvapi-",), r"nvapi-[A-Za-z0-9_\-]{64}", ("NVIDIA_API_KEY=⟦nvapi-«w64»⟧",), ""),
    ("openai-key", ("t3blbkfj",),
     r"sk-(?:proj-|svcacct-|service-|admin-)?[A-Za-z0-9_\-]{0,200}T3BlbkFJ[A-Za-z0-9_\-]{1,200}",
     ("OPENAI_API_KEY=⟦sk-«a3»T3BlbkFJ«a3»⟧",), ""),
    ("pagarme-key", ("ak_live_",), r"ak_live_[A-Za-z0-9]{30}", ("PAGARME=⟦ak_live_«a30»⟧",), ""),
    ("paystack-key", ("sk_",), r"sk_[a-z]{1,40}_[A-Za-z0-9]{40}",
     ("PAYSTACK_SECRET_KEY=⟦sk_test_«a40»⟧",), ""),
    ("posthog-key", ("phx_",), r"phx_[A-Za-z0-9_]{43,48}", ("POSTHOG_PERSONAL=⟦phx_«v45»⟧",), ""),
    ("postman-key", ("pmak-",), r"PMAK-[A-Za-z0-9\-]{40,}", ("POSTMAN=⟦PMAK-«a59»⟧",), ""),
    ("pubnub-key", ("pub-c-", "sub-c-"),
     r"(?:pub|sub)-c-[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}",
     ("publishKey: '⟦pub-c-«l8»-«l4»-«l4»-«l4»-«l12»⟧'",), ""),
    ("pulumi-token", ("pul-",), r"pul-[a-z0-9]{40}", ("PULUMI_ACCESS_TOKEN=⟦pul-«l40»⟧",), ""),
    ("ramp-key", ("ramp_id_", "ramp_sec_"), r"ramp_(?:id_[A-Za-z0-9]{40}|sec_[A-Za-z0-9]{48})",
     ("RAMP_CLIENT_SECRET=⟦ramp_sec_«a48»⟧",), ""),
    ("razorpay-key", ("rzp_live_", "rzp_test_"), r"(?i:rzp_(?:live|test)_)[A-Za-z0-9]{14}",
     ("RAZORPAY_KEY_ID=⟦rzp_live_«a14»⟧",), ""),
    ("replicate-token", ("r8_",), r"r8_[A-Za-z0-9_\-]{37}", ("REPLICATE=⟦r8_«w37»⟧",), ""),
    ("robinhood-key", ("rh-api-",),
     r"rh-api-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
     ("key ⟦rh-api-«h8»-«h4»-«h4»-«h4»-«h12»⟧",), ""),
    ("rootly-key", ("rootly_",), r"rootly_[a-f0-9]{64}", ("ROOTLY_API_TOKEN=⟦rootly_«h64»⟧",), ""),
    ("rubygems-token", ("rubygems_",), r"rubygems_[A-Za-z0-9]{48}",
     ("GEM_HOST_API_KEY=⟦rubygems_«a48»⟧",), ""),
    ("saladcloud-key", ("salad_cloud_",), r"salad_cloud_[0-9A-Za-z]{1,7}_[0-9A-Za-z]{7,}",
     ("SALAD_API_KEY=⟦salad_cloud_«a4»_«a40»⟧",), ""),
    ("salesforce-token", ("3mvg9", "5aep861"),
     r"(?:3MVG9[0-9A-Za-z._+/=]{80,}|(?i:5AEP861)[A-Za-z0-9._=]{80,})",
     ("consumer key ⟦3MVG9«a90»⟧", "refresh ⟦5AEP861«a90»⟧"), ""),
    ("salesforce-token", ("00d",), r"00D[A-Za-z0-9]{12}![A-Za-z0-9_.]{80,}",
     ("SF_ACCESS_TOKEN=⟦00D«a12»!«a96»⟧",), "00D0 is a hex number"),
    ("brevo-key", ("xkeysib-",), r"xkeysib-[A-Za-z0-9_\-]{64,}",
     ("BREVO_API_KEY=⟦xkeysib-«w81»⟧",), ""),
    ("sonar-token", ("sqco_", "squ_", "sqa_", "sqp_"),
     r"(?:sqco_[A-Za-z0-9]{59}|sq[uap]_[a-f0-9]{40})",
     ("SONAR_TOKEN=⟦squ_«h40»⟧", "sonarcloud ⟦sqco_«a59»⟧"), ""),
    ("sourcegraph-token", ("slk_",), r"slk_[a-f0-9]{64}", ("cody ⟦slk_«h64»⟧",), ""),
    ("supabase-token", ("sbp_",), r"sbp_[a-z0-9]{40}", ("SUPABASE_ACCESS_TOKEN=⟦sbp_«l40»⟧",), ""),
    ("tailscale-key", ("tskey-",), r"tskey-[a-z]{1,40}-[0-9A-Za-z_]{1,100}-[0-9A-Za-z_]{16,}",
     ("TS_AUTHKEY=⟦tskey-reusable-k«a10»-«a33»⟧",), "see tskey-auth-docs"),
    ("teams-webhook", ("webhookb2",),
     r"https://[A-Za-z0-9\-]{1,100}\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{30,}",
     ("⟦https://Acme.webhook.office.com/webhookb2/«a8»-«a4»-«a4»-«a4»-«a12»@«a8»-«a4»⟧",), ""),
    ("tines-webhook", ("tines.com/webhook/",),
     r"https://[\w\-]+\.tines\.com/webhook/[a-z0-9]{32}/[a-z0-9]{32}",
     ("⟦https://acme.tines.com/webhook/«l32»/«l32»⟧",), "https://tines.com/webhook/docs"),
    ("trufflehog-key", ("thog-key-", "thog-secret-"),
     r"thog-(?:key-[0-9a-f]{16}|secret-[0-9a-f]{32})", ("⟦thog-secret-«h32»⟧",), ""),
    ("typeform-token", ("tfp_",), r"tfp_[A-Za-z0-9_]{40,59}", ("TYPEFORM=⟦tfp_«v44»⟧",), ""),
    ("ubidots-token", ("bbff-",), r"BBFF-[0-9A-Za-z]{30}", ("UBIDOTS_TOKEN=⟦BBFF-«a30»⟧",), ""),
    ("voiceflow-key", ("vf.",), r"VF\.(?:(?:DM|WS)\.)?[a-fA-F0-9]{24}\.[A-Za-z0-9]{16}",
     ("VOICEFLOW_API_KEY=⟦VF.DM.«h24».«a16»⟧",), ""),
    ("xai-key", ("xai-",), r"xai-[A-Za-z0-9_]{70,}", ("XAI_API_KEY=⟦xai-«v80»⟧",), ""),
    ("zoho-token", ("1000.",), r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}",
     ("ZOHO_REFRESH_TOKEN=⟦1000.«h32».«h32»⟧",), "1000.00 dollars"),
    # Shapes attack 26 planted that trufflehog finds only near a vendor's
    # name, or not at all (their vendors' documented formats).
    ("doppler-token", ("dp.st.", "dp.pt.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
     r"dp\.(?:st\.[a-z0-9_\-]{2,35}|pt|ct|sa|scim|audit)\.[A-Za-z0-9]{36,48}",
     ("DOPPLER_TOKEN=⟦dp.st.prd.«a44»⟧",), ""),
    ("linear-key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{36,48}",
     ("LINEAR_API_KEY=⟦lin_api_«a43»⟧",), ""),
    ("fireworks-key", ("fw_",), r"fw_" + _mixed(24, 48),
     ("FIREWORKS_API_KEY=⟦fw_«a36»⟧",), "fw_version_string fw_update2"),
    ("cratesio-token", ("cio",), r"cio" + _mixed(32, 32),
     ("cargo login ⟦cio«a32»⟧",), "cioccolato"),
    ("vercel-token", ("vcp_", "vci_", "vca_", "vcr_", "vck_"), r"vc[pikar]_" + _mixed(24, 64),
     ("VERCEL_TOKEN=⟦vcp_«a56»⟧",), "vcp_config"),
    ("resend-key", ("re_",), r"re_" + _mixed(28, 40), ("RESEND_API_KEY=⟦re_«a32»⟧",),
     "re_compile_pattern re_match"),
    ("mailchimp-key", ("-us",), r"[0-9a-f]{32}-us\d{1,2}",
     ("MAILCHIMP_API_KEY=⟦«h32»-us21⟧",), "4f2a-us-east-1"),
    ("braintree-token", ("access_token$",),
     r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
     ("BT_TOKEN=⟦access_token$production$«l16»$«h32»⟧",), ""),
    ("asana-token", ("1/", "2/"), r"[12]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}",
     ("ASANA_PAT=⟦2/«d16»/«d16»:«h32»⟧",), "1/1234567890123456 done"),
    ("honeycomb-key", ("hcaik_", "hcxik_", "hcamk_", "hcxmk_"),
     r"hc[ax][im]k_[a-z0-9]{40,64}", ("HONEYCOMB_API_KEY=⟦hcaik_«l58»⟧",), ""),
    ("kerberos-keytab", ("bqiaaa",), r"BQIAAA[A-Za-z0-9+/]{40,}={0,2}",
     ("echo '⟦BQIAAABHAAIAC0VYQU1QTEUuQ09N«b60»⟧' | base64 -d > krb5.keytab",), ""),
    ("java-keystore", ("/u3+7q",), r"/u3\+7QAAAA[A-Za-z0-9+/]{40,}={0,2}",
     ("keystore ⟦/u3+7QAAAAIAAAABAAAAAQ«b60»⟧",), ""),
    ("prefect-key", ("pnu_",), r"pnu_[A-Za-z0-9]{30,40}", ("PREFECT_API_KEY=⟦pnu_«a36»⟧",), ""),
    ("yandex-key", ("aqvn",), r"AQVN[A-Za-z0-9_\-]{30,40}", ("YC_API_KEY=⟦AQVN«w36»⟧",), ""),
    ("yandex-token", ("y0_", "y1_", "y2_", "y3_"), r"y[0-3]_[A-Za-z0-9_\-]{36,}",
     ("YC_OAUTH=⟦y0_«w55»⟧",), "y0_axis_label"),
    ("yandex-token", ("t1.",), r"t1\." + _mixed(40, 400, r"_\-") + r"={0,2}"
     r"(?:\.[A-Za-z0-9_\-]{40,200}={0,2})?", ("YC_IAM_TOKEN=⟦t1.9euel«a90»⟧",), "t1.micro"),
    ("intercom-token", ("dg9roj",), r"dG9rOj[A-Za-z0-9+/]{40,}={0,2}",
     ("INTERCOM_TOKEN=⟦dG9rOj«b54»=⟧",), ""),
    ("1password-token", ("ops_eyj",), r"ops_eyJ[A-Za-z0-9+/_\-]{100,}={0,3}",
     ("OP_SERVICE_ACCOUNT_TOKEN=⟦ops_eyJ«b140»⟧",), ""),
    ("jfrog-key", ("akcp",), r"AKCp[A-Za-z0-9]{60,80}", ("ARTIFACTORY=⟦AKCp«a69»⟧",), ""),
    ("mailersend-key", ("mlsn.",), r"mlsn\.[a-f0-9]{64}", ("MAILERSEND=⟦mlsn.«h64»⟧",), ""),
    ("clickup-key", ("pk_",), r"pk_\d{3,12}_[A-Z0-9]{32}", ("CLICKUP=⟦pk_«d8»_«u32»⟧",), ""),
    ("pipedream-key", ("pd_",), r"pd_" + _mixed(28, 40), ("PIPEDREAM=⟦pd_«a36»⟧",),
     "pd_dataframe_from_records"),
    ("twitter-bearer", ("aaaaaaaaaaaaaaaaaaaaa",),
     r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}",
     ("TWITTER_BEARER_TOKEN=⟦AAAAAAAAAAAAAAAAAAAAA«a50»%3D«a40»⟧",), ""),
    ("terraform-token", ("atlasv1.",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{30,}",
     ("TF_TOKEN=⟦«a14».atlasv1.«w36»⟧",), ""),
    ("trello-token", ("atta",), r"ATTA[A-Za-z0-9_=\-]{56,}",
     ("TRELLO_TOKEN=⟦ATTA«h64»«u8»⟧",), "ATTACHMENT_LIMIT"),
    ("together-key", ("tgp_v1_",), r"tgp_v1_[A-Za-z0-9_\-]{36,}",
     ("TOGETHER_API_KEY=⟦tgp_v1_«w43»⟧",), ""),
    ("voyage-key", ("pa-",), r"pa-" + _mixed(36, 48, r"_\-"), ("VOYAGE_API_KEY=⟦pa-«a43»⟧",),
     "pa-system-configuration"),
)

# Tokens whose runs are short (`/`, `+` cut them): they run wherever their
# prefix is, which is rare, rather than near a long run.
WORD_SHAPES: tuple[tuple[str, tuple[str, ...], str, tuple[str, ...], str], ...] = (
    ("zapier-webhook", ("hooks.zapier.com/hooks/catch/",),
     r"https://hooks\.zapier\.com/hooks/catch/[A-Za-z0-9/]{16,60}",
     ("⟦https://hooks.zapier.com/hooks/catch/«d7»/«l7»/⟧",), ""),
    ("atlassian-token", ("atatt", "atctt"), r"AT[AC]TT[A-Za-z0-9+/=_\-]{16,300}=[A-Za-z0-9]{8}",
     ("JIRA_API_TOKEN=⟦ATATT3xFfGF0«w40»=«h8»⟧",), ""),
)

# Tokens with a part another rule reads first (`_secret_` is a name, a value
# follows it): read whole before every rule but the key material's.
FIRST_SHAPES: tuple[tuple[str, tuple[str, ...], str, tuple[str, ...], str], ...] = (
    ("stripe-key", ("_secret_",), r"pi_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]{25}",
     ("stripe.confirmCardPayment('⟦pi_«a24»_secret_«a25»⟧')",), "pi_secret_"),
)
