"""A password, a token or a key said in people's words, in many languages.

The rules are made from a table: the words a language has for a password
and for a token or a key (with the forms its grammar gives them: an article
glued on, a case's ending, `пароль`/`пароля`/`паролем`, `lösenord`/
`lösenordet`), the words that join a name to what it is (`is`, `lautet`,
`är`, `это`, `は`, `คือ`), and the words that say which one (`van de
database`, `for the admin account`). A value may follow its name

- *said*: after `:`, `=`, an arrow, a copula (`is`, `lautet`, `appears to
  be`, `was changed to`), or quoted (`« … »`): judged as a password after
  "is" is (redact._Replacer: a word of the sentence, `the password is
  stored`, is none);
- *loosely*: right after the name (`мой пароль X`, `use password X for`), after
  "to" (`set the root password to X`), in brackets (`(currently X)`), after a
  user and a slash (`login: admin / X`), after a key emoji, glued by `-`, `_`
  or `/` into a branch's or a folder's name (`db-password-X`, `pw_X`): only
  a value that is no word, name or number (letters and digits drawn at
  random, see redact._Replacer) is one there.

A security question's answer, and a URL whose slashes a folder's name turned
into `_` (`postgres:__app:X@db`) are here too.
"""

from __future__ import annotations

import re

from vibe_vault import secret_names
from vibe_vault.patterns import kept

# A rule as secret_rules.Rule takes it: id, triggers, pattern, samples, look-alike.
Spec = tuple[str, tuple[str, ...], str, tuple[str, ...], str]

# Each language: its words for a password, then for a token or a key (lower
# case; a regex each, for the forms its grammar gives the word).
# (36 languages: English and 35 others that many GitHub users write in,
# Serbian and Croatian in one row; Latin, Cyrillic, Greek, Hebrew, Arabic,
# Indic, Thai and CJK scripts; then 66 more, read after a colon, an arrow or
# their own "is": 102 rows in all.)
# The words that say what a key or a secret is for (`signing key`, `webhook secret`).
_QUALIFIERS = ("signing", "master", "encryption", "decryption", "webhook", "jwt", "shared",
               "app", "application", "consumer", "session", "hmac", "kms", "license",
               "licence", "unlock", "admin", "csrf", "xsrf", "root", "deploy", "recovery",
               "service", "bot", "oauth", "cookie", "vault", "database", "db", "cluster",
               "join", "bootstrap", "cipher", "aes", "storage", "account", "totp", "mfa",
               "otp", "backup", "wallet", "django", "rails", "flask", "laravel", "nextauth")
_QUALIFIED = "(?:" + "|".join(_QUALIFIERS) + ")"
_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # (and as people mistype or disguise it: `passwrd`, `pasword`, `passw0rd`,
    # `P@ssword`, `pword`, `pswd`, `pass phrase`)
    "en": (("pass(?:word|wd|phrase|code)s?", "login password", "root password",
            "pass(?:wrd|owrd|w0rd|[ ]word|[ ]phrase|[ ]code)", "pas(?:word|woord|wd)",
            "p@ssw[o0]rd", "pword", "pswd", "(?:admin|root)[ _\\-]pass"),
           # (a key's name begins with a word the rule runs on: `key` alone is in
           # most texts of a session, and `the key is X` is the generic key's)
           ("(?:api|access|auth|private|client|secret)[ _\\-]?keys?",
            "(?:api|access|auth|bearer|secret|private|client|refresh|session|personal access)"
            "[ _\\-]?(?:token|secret)s?", "tokens?",
            # A key or a secret a word says the use of (`signing key`, `webhook
            # secret`, `jwt secret`): the class, not one rule a name (attack 26,
            # 35 names). (Not `credentials`, `creds`, `psk` or `secret` alone:
            # the loose form, `credentials localhost:10000`, is read after them.)
            _QUALIFIED + "[ _\\-]?(?:key|secret)s?", "passkeys?",
            "pre[ _\\-]?shared[ _\\-]?keys?",
            # The families of secret_names (`totp seed`, `recovery codes`,
            # `connection string`, `seed phrase`): the table the assignments read.
            *secret_names.prose_names())),
    "de": (("passw(?:ort|örter)(?:e?s|n)?", "kennw(?:ort|örter)(?:e?s|n)?"),
           ("api-schlüssel(?:s)?", "api-key", "(?:zugriffs|zugangs)?token",
            "(?:geheimer )?schlüssel(?:s)?", "(?:zugangs|zugriffs)schlüssel(?:s)?")),
    "fr": (("mots? de passe", "mdp"),
           ("jetons?(?: d'accès| api)?", "cl(?:é|ef)s?(?: d'api| api| secrète| d'accès)?")),
    "es": (("contraseñas?", "contrasenas?", "clave de acceso"),
           ("tokens?(?: de acceso)?", "claves?(?: de (?:la )?api| api| secreta)?", "llave api")),
    "pt": (("senhas?", "palavras?[ \\-]passe"),
           ("tokens?(?: de acesso)?", "chaves?(?: d[ae] api| api| secreta)?")),
    "it": (("parola d'ordine", "codice(?: segreto| di accesso)?"),
           ("token(?: di accesso)?", "chiav[ei](?: api| dell'api| segreta)?")),
    "nl": (("wachtwoord(?:en)?",), ("(?:api-|toegangs)?sleutel", "(?:toegangs)?token")),
    "sv": (("l[öo]senord(?:et|en)?",), ("(?:api-)?nyckel(?:n)?", "token(?:et|en)?")),
    "da": (("adgangskode(?:n|r|rne)?", "kodeord(?:et)?"), ("(?:api-)?nøgle(?:n)?", "token(?:et)?")),
    "no": (("passord(?:et)?",), ("(?:api-)?nøkkel(?:en)?", "token(?:et)?")),
    "fi": (("salasana(?:n|ni|si|nsa|na)?",), ("(?:api-)?avain", "tokeni?")),
    "pl": (("hasł(?:o|a|em|u)", "hasl(?:o|a|em|u)"),
           ("klucz(?:a|em)?(?: api)?", "token(?:em|u|a)?")),
    "cs": (("hesl(?:o|a|em|u)",), ("klíč(?:e|em)?(?: api)?", "token(?:em|u)?")),
    "sk": (("hesl(?:o|a|om|u)",), ("kľúč(?:a|om)?(?: api)?",)),
    "hu": (("jelsz(?:ó|ava|avam|avad|ót|avát|o)",),
           ("(?:api[ \\-])?kulcs(?:a|ot|om)?", "token(?:t|je)?")),
    "ro": (("parol(?:a|ă|ei|ele)",), ("chei(?:a|e)(?: api)?", "token(?:ul)?")),
    "tr": (("şifre(?:si|m|niz|n)?", "sifre(?:si|m|niz|n)?", "parola(?:sı|m|nız)?"),
           ("(?:api )?anahtar(?:ı|ım)?", "token(?:ı|i|im)?")),
    "ru": (("парол(?:ь|я|ю|ем|е|и|ей)",),
           ("(?:api[ \\-])?ключ(?:а|ом|у|е)?(?: api)?", "токен(?:а|ом|у|е)?", "секрет")),
    "uk": (("парол(?:ь|я|ем|і)",), ("ключ(?:а|ем)?(?: api)?", "токен(?:а|ом)?")),
    "bg": (("парол(?:а|ата|и|ите)",), ("ключ(?:ът|а)?", "токен(?:ът|а)?")),
    "sr": (("лозинк(?:а|у|е|ом)", "lozink(?:a|u|e|om)", "[šs]ifr(?:a|u|e|om)", "zapork(?:a|u|e)"),
           ("кључ", "klju[čc]", "токен")),
    "el": (("κωδικ(?:ός|ό|ού|οί|ος|ο)(?: πρόσβασης)?", "συνθηματικ(?:ό|ού|ο)"),
           ("κλειδ(?:ί|ιού|ι)(?: api)?", "διακριτικ(?:ό|ού|ο)")),
    "he": (("ה?סיסמ(?:ה|א|ת)",), ("ה?מפתח(?: api)?", "ה?טוקן", "ה?אסימון")),
    "ar": (("كلمة (?:المرور|السر|مرور)", "الرقم السري"),
           ("(?:ال)?مفتاح(?: api)?", "(?:ال)?توكن", "رمز الوصول")),
    "fa": (("رمز (?:عبور|ورود)", "گذرواژه", "کلمه (?:عبور|رمز)"), ("کلید(?: api)?", "توکن")),
    "hi": (("पासवर्ड", "कूटशब्द"), ("(?:एपीआई |api )?कुंजी", "टोकन")),
    "bn": (("পাসওয়ার্ড",), ("টোকেন", "(?:api )?কী")),
    "th": (("รหัสผ่าน", "พาสเวิร์ด"), ("โทเค็น", "คีย์(?: ?api)?")),
    "vi": (("mật khẩu", "mat khau"), ("kh[óo]a(?: api)?", "khoá(?: api)?", "mã thông báo")),
    "id": (("kata sandi", "sandi", "kode(?: akses| rahasia| sandi)?"), ("kunci(?: api)?",)),
    "ms": (("kata laluan",), ("kunci(?: api)?",)),
    "zh": (("密码", "密碼", "口令"), ("令牌", "密钥", "密鑰", "秘钥", "访问令牌")),
    "ja": (("パスワード", "暗証番号"), ("(?:アクセス)?トークン", "(?:api ?)?キー", "シークレット")),
    "ko": (("비밀번호", "비번", "패스워드", "암호"), ("토큰", "(?:api ?)?키")),
    "ca": (("contrasenya",), ("clau(?: api)?",)),
}
# And 66 more, so that a language no attacker named yet is read too: the
# words for a password and for a key or a token of the languages with a
# Wikipedia, as their interlanguage links and their software's translations
# give them. Their rules are made apart, with triggers of their own: in one
# trie with the table above, their first letters (most of the alphabet) made
# the rules that run on every text with `password` or `token` try a match at
# almost every place (+24% of the gate's instructions on the corpus).
_MORE_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "af": (("wagwoord(?:e)?",), ("(?:api-|toegangs)?sleutel",)),
    "sq": (("fjal[ëe]kalim(?:i|in)?",), ("[çc]el[ëe]s(?:i|in)?(?: api)?",)),
    "am": (("የይለፍ ቃል", "የይለፍቃል"), ("ቁልፍ",)),
    "hy": (("գաղտնաբառ(?:ը|ի)?",), ("բանալի(?:ն)?", "տոկեն")),
    "az": (("[şs]ifr[əe](?:si|ni|m|n|miz)?", "parol(?:u|um|unuz)?"), ("a[çc]ar(?:ı|i)?",)),
    "eu": (("pasahitz(?:a|ak)?",), ("gako(?:a)?(?: api)?",)),
    "be": (("пароль",), ("ключ",)),
    "my": (("စကားဝှက်",), ("သော့",)),
    "km": (("ពាក្យសម្ងាត់",), ("កូនសោ",)),
    "lo": (("ລະຫັດຜ່ານ",), ("ກະແຈ",)),
    "cy": (("cyfrinair", "cyfrineiriau", "(?:ng|g|ch)hyfrinair"), ("allwedd(?: api)?", "tocyn")),
    "eo": (("pasvort(?:o|on)",), ("[ŝs]losil(?:o|on)", "[ĵj]eton(?:o|on)")),
    "et": (("parool(?:i)?", "salas[õo]na"), ("v[õo]ti", "v[õo]tme", "api v[õo]ti")),
    "gl": (("contrasinal",), ("chave(?: da api)?",)),
    "ka": (("პაროლი",), ("გასაღები", "ტოკენი")),
    "gu": (("પાસવર્ડ",), ("ચાવી",)),
    "ha": (("kalmar sirri(?:na|nka|nki|nmu|nsu|nta)?",), ()),
    "ht": (("modpas",), ()),
    "is": (("lykilor[ðd](?:i[ðd])?", "a[ðd]gangsor[ðd]"), ("lykil(?:l|linn)?",)),
    "ig": (("okwuntughe",), ()),
    "ga": (("p(?:h)?asfhocal",), ("eochair",)),
    "jv": (("tembung sandhi",), ()),
    "kn": (("ಪಾಸ್‌ವರ್ಡ್", "ಪಾಸ್ವರ್ಡ್", "ಗುಪ್ತಪದ"), ("ಟೋಕನ್",)),
    "kk": (("құпия ?сөз(?:ім|ің)?",), ("кілт",)),
    "ky": (("сырсөз(?:үм|үң)?",), ("ачкыч",)),
    "ku": (("[şs][îi]fre", "borînpeyv", "وشەی نهێنی"), ()),
    "lv": (("parol(?:e|i|es)",), ("atsl[ēe]g(?:a|u|as)", "[žz]eton(?:s|u)", "mar[ķk]ieris")),
    "lt": (("slapta[žz]od(?:is|į|i|[žz]io)",), ("rakt(?:as|ą|a|o)", "[žz]eton(?:as|ą)")),
    "lb": (("passwuert",), ()),
    "mk": (("лозинк(?:а|ата)",), ("клуч",)),
    "mg": (("tenimiafina",), ()),
    "ml": (("പാസ്‌വേഡ്", "പാസ്വേഡ്", "രഹസ്യവാക്ക്"), ("ടോക്കൺ",)),
    "mi": (("kupuhipa",), ()),
    "mr": (("संकेतशब्द",), ("टोकन",)),
    "mn": (("нууц ?үг",), ("түлхүүр",)),
    "ne": (("पासवर्ड",), ("साँचो",)),
    "ps": (("پټنوم",), ()),
    "pa": (("ਪਾਸਵਰਡ",), ("ਕੁੰਜੀ",)),
    "si": (("මුරපදය", "මුරපදය"), ("යතුර",)),
    "sl": (("gesl(?:o|a|om|u)",), ("klju[čc](?:a)?", "[žz]eton")),
    "sw": (("nenosiri", "nywila"), ("ufunguo",)),
    "tg": (("рамз",), ("калид",)),
    "ta": (("கடவுச்சொல்", "கடவுச்சொல்லை"), ("டோக்கன்", "சாவி")),
    "te": (("పాస్‌వర్డ్", "పాస్వర్డ్", "సంకేతపదం"), ("టోకెన్",)),
    "tt": (("серсүз",), ()),
    "ur": (("پاس ورڈ", "پاسورڈ"), ("ٹوکن", "چابی")),
    "ug": (("پارول",), ()),
    "uz": (("parol(?:i|im|ing|ingiz)?", "maxfiy so'z"), ("kalit(?:i)?",)),
    "tk": (("a[çc]ar s[öo]z",), ()),
    "xh": (("iphasiwedi",), ()),
    "zu": (("iphasiwedi",), ()),
    "yo": (("[ọo]r[ọo] ?igbaniw[ọo]le",), ()),
    "fy": (("wachtwurd",), ("kaai",)),
    "gd": (("facal-faire",), ()),
    "br": (("ger-tremen",), ()),
    "oc": (("senhal",), ()),
    "fo": (("loyniorð",), ()),
    "rw": (("ijambobanga",), ()),
    "or": (("ପାସୱାର୍ଡ",), ()),
    "as": (("পাছৱৰ্ড",), ()),
    "yi": (("פאַסווארט", "פאסווארט"), ()),
    "sd": (("پاسورڊ",), ()),
    "tl": (("kontrasenyas?",), ("susi",)),
    "st": (("phasewete",), ()),
    "ny": (("mawu achinsinsi",), ()),
    "hmn": (("lo lus zais",), ()),
    "yue": (("密碼", "密码"), ("鎖匙",)),
}

# What joins a name to its value when the value is said (lower case). After
# "is" a value may be a word of the sentence: redact._Replacer judges it.
_COPULAS = (
    # English, and the verbs that tell what it now is
    "is", "was", "will be", "is now", "is still", "is currently", "are", "were",
    "appears to be", "seems to be", "should be", "would be", "must be",
    "(?:is|was|has been|had been|got) (?:set|changed|reset|updated|rotated) to",
    # German, French, Spanish, Portuguese, Italian, Catalan
    "ist", "lautet", "lautete", "war", "heißt", "heisst", "ist jetzt",
    "est", "était", "sera", "c'est", "est maintenant",
    "es", "era", "será", "é", "e", "è", "e'", "sarà", "és",
    # Dutch, Nordic, Finnish
    "luidt", "är", "var", "blir", "er",
    # Slavic, Romanian, Greek
    "jest", "brzmi", "było", "je", "је", "bylo", "zní", "este", "glasi",
    "это", "—", "–", "был", "было", "была", "будет", "равен", "це", "є", "був", "е", "беше",
    "είναι", "ήταν", "ειναι", "ηταν",  # (Greek in capitals drops its accents: `ΕΙΝΑΙ`)
    # Hebrew, Arabic, Hindi, Bengali, Thai, Vietnamese, Indonesian/Malay
    "הוא", "היא", "זה", "هي", "هو", "है", "হল", "হলো", "คือ", "là", "adalah", "ialah", "yaitu",
    "yakni",
    # Tagalog, Luxembourgish, Georgian, Mongolian, Hmong, Khmer, Lao, Tajik, Hausa
    # (`Ang password ko ay X`, `Mäi Passwuert ass X`, `ჩემი პაროლი არის X`)
    "ay", "ass", "არის", "бол", "yog", "គឺ", "ແມ່ນ", "аст", "ita ce", "shi ne",
)
# (a regex of them, for the rules of secret_rules that read a copula's value)
COPULA = "(?:" + "|".join(sorted((w if "(?:" in w else re.escape(w).replace("\\ ", " ")
                                  for w in _COPULAS), key=lambda w: (-len(w), w))) + ")"
# Copulas that are English words too ("to", "on"): only after that
# language's own names (`salasana on X`, `hasło to X`).
_OWN_COPULAS = {"fi": ("on", "oli"), "pl": ("to",), "cs": ("to",), "sk": ("to",),
                "et": ("on", "oli"), "lv": ("ir",), "lt": ("yra",), "sq": ("është", "eshte"),
                "eo": ("estas",), "cy": ("yw", "ydy"), "sw": ("ni",), "is": ("er",),
                "yo": ("ni",), "ha": ("ce", "ne"), "ht": ("se",), "mg": ("dia",),
                "rw": ("ni",), "ny": ("ndi",), "ig": ("bu",), "xh": ("ngu", "yi"),
                "zu": ("ngu", "yi")}
# Particles glued to the name in CJK and Korean (`パスワードは`, `密码是`, `비밀번호는`).
_PARTICLES = ("は", "が", "是", "为", "為", "係", "는", "은", "이", "가", "คือ")
# Words saying which one, between a name and its copula (`het wachtwoord van
# de database is`, `the password for the admin account was`).
_WHICH = ("for", "of", "to", "on", "at", "from", "in", "für", "von", "vom", "zum", "zur", "der",
          "des", "de", "du", "da", "do", "del", "della", "dello", "di", "van", "voor", "för",
          "till", "på", "av", "til", "dla", "od", "pro", "ke", "k", "для", "от", "к", "до", "від",
          "за", "на", "για", "του", "της", "untuk", "dari", "của", "cho", "per", "al", "pentru",
          "la", "ng")
# Possessives that follow the name (`parola mea`, `mật khẩu của tôi`, `رمز عبور من`).
_MINE = ("mea", "meu", "ta", "saya", "aku", "anda", "kamu", "của tôi", "của bạn", "ของฉัน",
         "ของผม", "من", "شما", "שלי", "שלך", "الخاصة بي", "الخاص بي",
         # Greek, Tagalog, Swahili, Yoruba, the Nordic languages, Albanian,
         # Haitian, Kinyarwanda, Chichewa, Khmer, Lao (`Ο κωδικός μου είναι X`,
         # `Nenosiri langu ni X`, `passordet mitt er X`): attack 25, round 13
         "μου", "σου", "μας", "σας", "ko", "mo", "namin", "natin", "langu", "lako", "letu",
         "yangu", "yako", "wangu", "mi", "mitt", "min", "mit", "im", "yt", "mwen", "ryanjye",
         "anga", "របស់ខ្ញុំ", "ຂອງຂ້ອຍ")
# What follows a name before a value given loosely: "to" in each language
# (`set the root password to X`, `Passwort auf X geändert`, `пароль на X`).
_TO = ("to", "auf", "zu", "à", "en", "a", "por", "para", "naar", "till", "til", "на", "σε", "ke",
       "thành", "into", "as", "with")
# Words in brackets before a value (`password (currently X)`).
_NOW = ("currently", "now", "still", "was", "is", "old", "new", "temp", "temporary", "aktuell",
        "derzeit", "actuellement", "actualmente", "attualmente", "momenteel", "nu", "сейчас",
        "сейчас это", "текущий", "e\\.g\\.?")


def _alt(words: tuple[str, ...] | list[str]) -> str:
    return "(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + ")"


def _escaped(words: tuple[str, ...]) -> tuple[str, ...]:
    """Words as regexes; one that is a regex already (it holds `(?:` or `\\.`) as it is."""
    return tuple(w if "(?:" in w or "\\." in w else re.escape(w).replace("\\ ", " ")
                 for w in words)


def forms(name: str) -> list[str]:
    """Every spelling a name of the table stands for: its regex (literal
    characters, `(?:a|b)`, `[ab]`, each of them optional after a `?`)
    expanded, so that the rule may begin with a trie of them."""
    def seq(i: int, stop: str) -> tuple[list[str], int]:
        out = [""]
        while i < len(name) and name[i] not in stop:
            if name.startswith("(?:", i):
                opts: list[str] = []
                i += 3
                while True:
                    alt, i = seq(i, "|)")
                    opts += alt
                    i += 1
                    if name[i - 1] == ")":
                        break
            elif name[i] == "[":
                end = name.index("]", i)
                body = name[i + 1:end].replace("\\-", "-")
                opts, i = list(body), end + 1
            elif name[i] == "\\":
                opts, i = [name[i + 1]], i + 2
            else:
                opts, i = [name[i]], i + 1
            if i < len(name) and name[i] == "?":
                opts, i = ["", *opts], i + 1
            out = [a + b for a in out for b in opts]
        return out, i

    return seq(0, "")[0]


def in_capitals(word: str, dotted: bool = False) -> list[str]:
    """The other lower cases of a name written in capitals: a text is matched
    in lower case, and `PAROLANIZ`, `ΚΩΔΙΚΟΣ:` lower to `parolaniz` (a
    capital I is no dotless ı), `κωδικοσ:` (Greek capitals drop their
    accents; a sigma before a colon is not final to str.lower). `dotted`:
    and as `ŞİFRE` lowers, `şi̇fre` (a text that does is matched as written,
    its lower case being longer, but its triggers are looked for in it)."""
    import unicodedata

    out = {word.upper().lower()}
    if any("\u0370" <= c <= "\u03ff" or "\u1f00" <= c <= "\u1fff" for c in word):
        bare = unicodedata.normalize("NFC", "".join(
            c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c)))
        # (and a name's words run together in capitals, `ΚΩΔΙΚΌΣΠΡΌΣΒΑΣΗΣ`,
        # lower with one final sigma, at the end: `κωδικόσπρόσβασης`)
        out |= {v for w in (bare, word) for v in (
            w.replace("ς", "σ"), w[:-1].replace("ς", "σ") + w[-1:])} | {bare}
    if dotted and "i" in word:  # (a trigger is looked for, not matched: any name)
        out.add(word.replace("i", "i\u0307"))
    out.discard(word)
    return sorted(out)


def _trie(words: list[str]) -> str:
    """A regex of `words` as a trie: it begins with one character of a set,
    which the regex engine skips ahead to (an alternation of words it tries
    at every place of a text)."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch).replace("\\ ", " ") + build(child)
                    for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


class _Groups:
    """Fresh value group names for one pattern: said values `v`, `v2`…;
    loose ones `vl`, `vl2`… (redact._Replacer asks which took part)."""

    def __init__(self) -> None:
        self.said = self.loose = 0

    def said_name(self) -> str:
        self.said += 1
        return "v" if self.said == 1 else f"v{self.said}"

    def loose_name(self) -> str:
        self.loose += 1
        return "vl" if self.loose == 1 else f"vl{self.loose}"

    def head_name(self) -> str:
        """A loose value's head, a rule before having hidden its tail."""
        self.loose += 1
        return f"vlm{self.loose}"


# A clause's end after a bare value: stops, brackets and quotes, then a space
# or the text's end (an element's close too, `</p>`).
_AFTER = r"(?=[.,;:!?)\]}»”'\"`]*(?:\s|$|</))"
# Before a value bare to its clause's end: the clause ends within 200
# characters. The run is read once, without backtracking: the value's own
# search, a character at a time, then runs only where it can end (a text of
# the name repeated with no space, `🔑🔑🔑…`, cost it ~50 µs a character).
_ENDS_SOON = r"(?=(?:[^\s'\"`«“„<]|<(?!/)){4,200}+" + _AFTER[3:]


def _said_value(g: _Groups) -> str:
    """A value after `:`, a copula or an arrow: quoted, in guillemets (with
    spaces inside, as French writes them), or bare to its clause's end."""
    return (f"(?:'(?P<{g.said_name()}>[^'\\n]{{4,200}})'|\"(?P<{g.said_name()}>[^\"\\n]{{4,200}})\""
            f"|`(?P<{g.said_name()}>[^`\\n]{{4,200}})`"
            f"|[«“„‹][ \\t\\u00a0\\u202f]*(?P<{g.said_name()}>[^»”“›\\s]{{4,200}})"
            f"[ \\t\\u00a0\\u202f]*[»”“›]"
            # (a clause's stop is no part of it: `kode: 200;` gives no value of 4)
            f"|{_ENDS_SOON}(?P<{g.said_name()}>(?:(?!</)[^\\s'\"`«“„]){{4,200}}?)"
            f"(?<![.,;:!?]){_AFTER})")


def _loose_value(g: _Groups) -> str:
    """A value given loosely: 8 characters or more, no space, quote or
    bracket, a digit in it or 12 characters (a word has neither as a rule;
    redact._Replacer judges the rest)."""
    return (f"(?:['\"`]?(?P<{g.loose_name()}>(?=[^\\s\\d]{{0,200}}+\\d|[^\\s'\"`]{{12}})"
            f"(?=[^\\s'\"`«“„()\\[\\]<>{{}},;]{{8,200}}+['\"`]?{_AFTER[3:]}"
            f"[^\\s'\"`«“„()\\[\\]<>{{}},;]{{8,200}}?)['\"`]?{_AFTER}"
            # (or its head, where a rule before hid what follows a `=` in it)
            f"|(?P<{g.head_name()}>[^\\s'\"`«“„()\\[\\]<>{{}},;=]{{4,200}}+)(?==?\\[redacted))")


# An empty group ending a rule whose match must not begin inside a word: the
# test is made on the match (redact._Replacer), as a lookbehind first would
# keep the regex engine from skipping ahead to the first characters of a trie.
BOUNDED = "(?P<bounded>)"


def _named_rules(kind: str, names: dict[str, tuple[str, ...]], triggers: tuple[str, ...],
                 samples: tuple[str, ...], look_alike: str) -> list[Spec]:
    """The rules of a table's column (`names`, by language): any name, what
    says which one, a connector, a value. One rule for the connectors every
    language shares, one for a colon after another language's name (after
    an English one it is the assignment rules'), one for each language whose
    copula is an English word (`salasana on X`)."""
    triggers = tuple(sorted({v for t in triggers for v in (t, *in_capitals(t, True))}))

    def name_of(langs: list[str]) -> str:
        spelled = [f for lang in langs for n in names[lang] for f in forms(n)]
        spelled += [v for f in spelled for v in in_capitals(f)]
        if kind == "prose-token":  # `APIトークン`, `API-Schlüssel`, `clé API`
            spelled += [api + f for f in spelled if not f.startswith("api")
                        for api in ("api", "api ", "api-", "api_")]
        return _trie(sorted(set(spelled))) + r"(?![a-z0-9])"

    which = (r"(?:[ \t]+" + _alt(_escaped(_WHICH)) + r"[ \t]+[^\n.;:=：<>]{1,40}?"
             # (glued after a script written without spaces: `ពាក្យសម្ងាត់របស់ខ្ញុំគឺ`)
             r"|(?:[ \t]+|(?<=[^\x00-\u024f]))" + _alt(_escaped(_MINE)) + ")?")
    # (not `=`: `password = user_password` is the assignment rules' to judge)
    arrow = r"[ \t]*(?:->|=>|→|⇒|⟶|➜|➡️?)[ \t]*"
    # (a space, a colon or a quote after a copula in Latin letters: `password
    # E_F2…` is a password beginning `E_`, not Italian's "e" and the rest)
    copula = (r"(?:[ \t]+|(?<=[^\x00-\u024f]))" + _alt(_escaped(_COPULAS))
              + r"(?:(?<=[^\x00-\u024f])|(?=[ \t:：'\"`«“„]))[ \t]*:?[ \t]*")
    particle = r"[ \t]*" + _alt(_PARTICLES) + r"[ \t]*:?[ \t]*"
    # (the name, then a few words, then a colon: `the token I generated: X`)
    words_colon = r"(?:[ \t]+[^\W\d_]+){1,4}?[ \t]*(?::(?!:)|：)[ \t]*"
    to = r"[ \t]+" + _alt(_escaped(_TO)) + r"[ \t]+"
    bracket = r"[ \t]*\([ \t]*(?:" + _alt(_escaped(_NOW)) + r"[ \t]*:?[ \t]+)?"
    now = r"[ \t]+(?:currently|now|still)[ \t]*:?[ \t]+"
    # (`the token's X`: the name's possessive, then the value)
    possessive = r"['’]s[ \t]*:?[ \t]+"
    g = _Groups()
    everyone = list(names)
    rules = [(kind, triggers, "(?i)" + name_of(everyone) + which + "(?:" + "|".join(
        [arrow + _said_value(g), copula + _said_value(g), particle + _said_value(g),
         words_colon + _loose_value(g), to + _loose_value(g), bracket + _loose_value(g),
         now + _loose_value(g), possessive + _loose_value(g),
         r"[ \t\u3000]+" + _loose_value(g)]) + ")" + BOUNDED,
        samples, look_alike)]
    g = _Groups()
    others = [lang for lang in names if lang != "en"]
    rules.append((kind, tuple(t for t in triggers if t not in _ENGLISH_TRIGGERS),
                  "(?i)" + name_of(others) + which + r"[\"']?[ \t]*(?:：|:(?!:))[ \t]*"
                  + _said_value(g) + BOUNDED, (), ""))
    for lang, words in _OWN_COPULAS.items():
        if lang not in names:
            continue
        # (not `token`, an English word too: "the token to use")
        own = tuple(sorted({v for n in names[lang] for f in forms(n) if "token" not in f
                            for v in (f, *in_capitals(f, True))}))
        if not own:
            continue
        g = _Groups()
        rules.append((kind, own, "(?i)" + _trie(list(own)) + r"(?![a-z0-9])" + which + r"[ \t]+"
                      + _alt(words) + r"[ \t]*:?[ \t]*" + _said_value(g) + BOUNDED, (), ""))
    return rules


# The words (lower case) one of which a text must hold for each table's rule
# to run: a literal every name of the table begins with or holds.
_PASSWORD_TRIGGERS = (
    *(who + sep + "pass" for who in ("admin", "root") for sep in (" ", "_", "-")),
    "password", "passwd", "passphrase", "passcode", "passw", "kennw", "mot de passe",
    "pasw", "passowrd", "pass word", "pass phrase", "pass code", "p@ssw", "pword", "pswd",
    "mots de passe", "mdp", "contrase", "clave de acceso", "senha", "palavra", "parola",
    "wachtwoord", "lösenord", "losenord", "adgangskode", "kodeord", "passord", "salasana",
    "hasł", "hasl", "hesl", "jelsz", "parol", "şifre", "sifre", "ifr", "lozink", "zapork",
    "парол", "лозинк", "κωδικ", "συνθηματικ", "סיסמ", "كلمة", "الرقم السري", "رمز", "گذرواژه",
    "کلمه", "पासवर्ड", "कूटशब्द", "পাসওয়ার্ড", "รหัสผ่าน", "พาสเวิร์ด", "mật khẩu", "mat khau",
    "sandi", "kata laluan", "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호",
    "패스워드", "암호", "contrasenya", "codice", "kode", "비번",
)
_MORE_PASSWORD_TRIGGERS = (
    # (words of the table above too, where a row here spells one so; none of
    # them in the corpus's texts: each a word no English text or code holds)
    "parol", "пароль", "passwuert", "лозинк", "पासवर्ड", "senhal", "密碼", "密码", "wagwoord",
    "የይለፍ", "գաղտնաբառ", "စကားဝှက်", "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "cyfrin", "salasõna",
    "salasona", "პაროლი", "પાસવર્ડ", "modpas", "lykilor", "gangsor", "gangsorð",
    "okwuntughe", "tembung sandhi", "ಪಾಸ್", "ಗುಪ್ತಪದ", "құпия", "сырсөз", "îfre",
    "borînpeyv", "وشەی نهێنی", "slapta", "tenimiafina", "പാസ്", "രഹസ്യവാക്ക്", "kupuhipa",
    "संकेतशब्द", "нууц", "پټنوم", "ਪਾਸਵਰਡ", "මුරපදය", "gesl", "nenosiri", "nywila",
    "рамз", "கடவுச்சொல்", "పాస్", "సంకేతపదం", "серсүз", "پاس ورڈ", "پاسورڈ", "پارول",
    "maxfiy so", "ar söz", "ar soz", "igbaniw", "wachtwurd", "facal-faire", "ger-tremen",
    "loyniorð", "ijambobanga", "ପାସୱାର୍ଡ", "পাছৱৰ্ড", "סווארט", "پاسورڊ", "kontrasenya",
    "mawu achinsinsi", "lo lus zais", "pasahitz", "pasvort", "asfhocal", "kalim", "yfrinair",
    "kalmar sirri", "contrasinal", "iphasiwedi", "phasewete", "parool", "şifr", "sifr", "ifrə",
)
# The literals a qualified name holds (`signing key`, `jwt_secret`, `webhooksecret`).
_QUALIFIED_TRIGGERS = tuple(q + sep + head for q in _QUALIFIERS for sep in (" ", "_", "-", "")
                            for head in ("key", "secret"))
# (English names' triggers: the colon's rule has no English name)
_NAME_TRIGGERS = secret_names.name_triggers()
_ENGLISH_TRIGGERS = ("password", "passwd", "passphrase", "passcode", "api", "access", "auth",
                     "private", "client", "token", "secret", "passkey", "shared",
                     *_QUALIFIED_TRIGGERS, *_NAME_TRIGGERS)
_TOKEN_TRIGGERS = (
    "passkey", "shared", *_QUALIFIED_TRIGGERS, *_NAME_TRIGGERS,
    "api", "access", "auth", "private", "client", "token", "secret", "schlüssel", "jeton", "clé",
    "clef", "clave", "llave",
    "chave", "chiave", "chiavi", "sleutel", "nyckel", "nøgle", "nøkkel", "avain", "klucz",
    "klíč", "kľúč", "kulcs", "cheia", "cheie", "anahtar", "ключ", "токен", "секрет", "кључ",
    "klju", "κλειδ", "διακριτικ", "מפתח", "טוקן", "אסימון", "مفتاح", "توكن", "رمز الوصول",
    "کلید", "توکن", "कुंजी", "टोकन", "টোকেন", "কী", "โทเค็น", "คีย์", "khóa", "khoa", "khoá",
    "mã thông báo", "kunci", "令牌", "密钥", "密鑰", "秘钥", "トークン", "キー", "シークレット",
    "토큰", "키", "clau ", "clau:", "clau\t",
)
_MORE_TOKEN_TRIGGERS = (
    "sleutel", "ключ", "chave", "टोकन", "klju", "çel", "celës", "celes", "ቁልፍ", "բանալի",
    "տոկեն", "açar", "acar", "gako", "သော့", "កូនសោ", "ກະແຈ", "allwedd", "tocyn",
    "losilo", "võti", "võtme", "გასაღები", "ტოკენი", "ચાવી", "lykil", "eochair", "ಟೋಕನ್",
    "кілт", "ачкыч", "atslēg", "atsleg", "marķieris", "markieris", "rakt", "клуч",
    "ടോക്കൺ", "түлхүүр", "साँचो", "ਕੁੰਜੀ", "යතුර", "ufunguo", "калид", "டோக்கன்", "சாவி",
    "టోకెన్", "ٹوکن", "چابی", "kaai", "susi", "鎖匙", "jeton", "žeton", "zeton", "ĵeton",
    "voti", "võti", "votme", "võtme", "kalit",
)


def _pair_rule() -> Spec:
    """A user then a slash then a password (`login: admin / X`, `creds are
    admin/X`, `Test login with admin / X`)."""
    g = _Groups()
    return (
        "prose-password", ("login", "log in", "sign in", "signin", "user", "creds", "credential",
                           "account", "логин"),
        "(?i)" + _trie(forms("(?:log ?in|logon|sign ?in|user(?:name)?|creds|credentials?|account"
                             "|логин)"))
        + r"(?![a-z0-9])(?:[ \t]+(?:with|as|is|are|mit|avec|con|com|met|как|como)[ \t]+"
        r"|[ \t]*[:=—–][ \t]*|[ \t]+)"
        # (a slash after a space and none after it begins a path: `User
        # visits /tokenizer.html`, as a code span reads undressed)
        r"[\w.@+\-]{1,40}(?:[ \t]+/[ \t]+|/[ \t]*)" + _loose_value(g) + BOUNDED,
        ("login: admin / ⟦«a16»⟧", "creds are admin/⟦«a16»⟧", "Test login with admin / ⟦«a16»⟧"),
        "login: admin / settings; user: bob/home; sign in with Google / GitHub; user 42/100; "
        "User visits /tokenizer.html")


def _secret_set_rule() -> Spec:
    """A secret named by the word alone, said set to a value (`I set the
    secret to "X"`, `the secret is now X`, `the secret was changed to X`):
    alone, `secret` is in most texts of a session, so only with a verb
    that sets it (attack 26)."""
    g = _Groups()
    verbs = r"(?:set|change|changed|reset|update|updated|rotate|rotated)"
    return (
        "prose-token", ("secret",),
        r"(?i)(?:" + verbs + r"[ \t]+(?:(?:the|my|our|its|a|new|webhook|app)[ \t]+){0,2}"
        r"secret[ \t]+to[ \t]+|secret[ \t]+(?:is|was|has been)[ \t]+(?:now|"
        + verbs + r"[ \t]+to)[ \t]+)" + _said_value(g) + BOUNDED,
        ('I set the secret to "⟦«a20»⟧"', "the secret is now ⟦«a20»⟧",
         "the secret was changed to '⟦«a20»⟧'", "reset the secret to ⟦«a20»⟧ today"),
        "the secret is now stored in the vault; set the secret to expire; the secret was "
        "changed to something stronger")


def _emoji_rule() -> Spec:
    g = _Groups()
    return ("prose-password", ("🔑", "🔐", "🗝"),
                r"(?:🔑|🔐|🗝️?)[ \t]*:?[ \t]*" + _loose_value(g),
                ("🔑 ⟦«a16»⟧", "🔐: ⟦«a20»⟧"), "🔑 Authentication; 🔐 Keep it in the vault")


# A secret's name glued by `-`, `_`, `.` or `/` to a random value in a name
# (a branch `feat/db-password-X`, a folder `pw_X`).
_GLUED_NAMES = ("password", "passwd", "passwort", "pw", "pwd", "pass", "token", "secret",
                "apikey", "api_key", "api-key")


def _glued_rule() -> Spec:
    g = _Groups()
    return (
        "prose-password", tuple(sorted({n.rstrip("_-") for n in _GLUED_NAMES})),
        r"(?i)" + _trie(list(_GLUED_NAMES)) + r"[_\-./](?:(?P<" + g.loose_name()
        + r">(?=[a-z!@#%^*+=_\-]{0,63}\d|[a-z]{12})[a-z0-9][a-z0-9!@#%^*+=_\-]{11,63}?)"
        # (less a word of the name after it: `token-X-fix` hides X, learned bare)
        r"(?=(?:[_\-](?:fix|old|new|bak|tmp|temp|test|prod|dev|wip|copy|orig|main|final))*"
        r"(?![a-z0-9!@#%^*+=_\-]))"
        # (or its head, where a rule before hid its tail: `pw_Ab3=[REDACTED:…]`)
        r"|(?P<" + g.head_name() + r">[a-z0-9][a-z0-9!@#%^*+_\-]{3,63}?)(?==?\[redacted))"
        + BOUNDED,
        ("feat/db-password-⟦«a16»⟧", "/home/dev/pw_⟦«a16»⟧", "hotfix/token-⟦«a20»⟧-fix"),
        "feat/password-reset-flow; tests/test_password_hashing.py; token_count_2024")


def _before_rule() -> Spec:
    """A password said before its name (`X is my password`, `set X as my
    password`, `use X as the token`): judged as a value after "is" is, so a
    word of the sentence (`this is the password`) is left."""
    g = _Groups()
    dets = ("my", "the", "our", "your", "his", "her", "their")
    return (
        # (its triggers the names: a word may come between, `the new token`)
        "prose-password", ("password", "passphrase", "passcode", "token", "api key", "secret",
                           "my pin", "the pin", "pin code"),
        # (begun after a space, a quote or a bracket, the value read whole at
        # once: a long run is read once per place, not backtracked into)
        r"(?i)(?<![^\s\"'`(\[>:])(?P<" + g.said_name() + r">[^\s\"'`]{4,64}+)[\"'`]?[ \t]+"
        r"(?:is|was|as|will be)[ \t]+" + _alt(dets) + r"[ \t]+"
        r"(?:(?:new|old|current|root|admin|wifi|wi-fi|db|database|master|account|login|temporary"
        r"|temp|default|real|actual|same|api|access|auth|bearer)[ \t]+)?"
        r"(?:pass(?:word|wd|phrase|code)|pin(?:[ \t]+code)?|token|api[ \t]+key"
        r"|secret(?:[ \t]+key)?)(?![a-z0-9])",
        ("⟦«a16»⟧ is my password", "set ⟦«a16»⟧ as my password", "use ⟦«a16»⟧ as the password",
         "`⟦«a16»⟧` is the new token"),
        "this is my password; which is the token; $GITHUB_TOKEN is the token; here is the pin")


def _weak_rule() -> Spec:
    """A secret named by a word code uses for other things too (secret_names.
    PROSE_WEAK: `the pwd is X`, `my pin was X`, `the dsn is X`): said after
    "the", "my"… and a copula only, and judged as a token said so is (a
    word, `the access is restricted`, is none)."""
    g = _Groups()
    dets = ("the", "my", "our", "your", "his", "her", "their", "its", "this", "that")
    words = secret_names.PROSE_WEAK
    return (
        "prose-token", tuple(sorted({f"{w} {c}" for w in words for c in ("is", "was", "are")})),
        r"(?i)" + _alt(dets) + r"[ \t]+(?:[a-z]{2,12}[ \t]+)?" + _alt(words)
        + r"s?[ \t]+(?:is|was|are|were)[ \t]*:?[ \t]*" + _said_value(g) + BOUNDED,
        ("the pwd is ⟦«a16»⟧", "the dsn is ⟦«a20»⟧", "my pin was ⟦«a12»⟧",
         "the admin pass is ⟦«a16»⟧"),
        "the access is restricted; the pass is valid until Friday; my pin is broken; "
        "the private is a soldier")


def _answer_rule() -> Spec:
    """A security question's answer: the rest of its clause."""
    return (
        "security-answer", ("answer", "maiden", "antwort", "réponse secrète", "respuesta",
                            "контрольный ответ"),
        r"(?i)(?:(?:security|secret)[ \t]+(?:question[ \t]+)?answers?"
        r"|(?:answer|reply)[ \t]+to[ \t]+(?:the|my)[ \t]+security[ \t]+question"
        r"|mother'?s[ \t]+maiden[ \t]+name|sicherheitsantwort|réponse secrète"
        r"|respuesta de seguridad|контрольный ответ)"
        r"(?:[ \t]*[:=：][ \t]*|[ \t]+(?:is|was)[ \t]+:?[ \t]*)"
        r"(?:[\"'«“](?P<v>[^\"'»”\n]{2,80})[\"'»”]|(?P<v2>[^\s\"'«“][^\n.;,!?]{1,79}?))"
        r"(?=[ \t]*(?:[.;,!?][ \t]*(?:\s|$)|\r?\n|$))",
        ("security answer: ⟦mothers maiden «L8»⟧", "Security question answer: ⟦«L10»⟧",
         "my mother's maiden name is ⟦«L8»⟧."),
        "the security answer is stored hashed; security question answers are case sensitive")


def _folder_url_rule() -> Spec:
    """A URL with a password, its slashes turned into `_` (or `-`) by a
    folder's name (`/home/dev/_srv_postgres:__app:X@db`)."""
    return (
        "url-password", (":__", ":_/", "___"),
        r"(?i)(?:https?|s?ftps?|postgres(?:ql)?|mysql|mariadb|rediss?|mongodb(?:\+srv)?"
        r"|amqps?|ssh|git|smtps?|imaps?|ldaps?|sqlserver)(?::_{1,2}|_{3})"
        r"[^\s:/@\"'`_]{0,100}[:_](?P<v>[^\s\"'`/]{3,200}?)@(?=[\w.\-]+(?:[:/\s\"'`]|$))",
        ("/home/dev/_srv_postgres:__app:⟦«a16»⟧@db", "cd ~/mysql___root_⟦«a12»⟧@localhost"),
        "postgres:__init__ and redis:__main__; mysql___root")


# Between the letters of a name written as an identifier: nothing (camel
# case, `motDePasse`), `_`, `.`, `-` or a space (`mot_de_passe`, `kata.sandi`).
_IDENT_GLUE = "[ _.\\-]?"
# Names of the tables the identifier rules leave to the assignment rules
# (secret_rules.SECRET_NAME: `token` and what follows it).
_ENGLISH_HEADS = ("token",)


def _ident_rules() -> tuple[Spec, ...]:
    """A password's or a key's name of any language of the tables written as
    a name in code or a configuration's key (`mot_de_passe=X`, `parola=X`,
    `kataSandi: X`, `MOT-DE-PASSE = "X"`, `db_wachtwoord: X`, `비번: X`), then
    an assignment or a colon and a value: judged as `password=X` is
    (redact._Replacer's secret-assignment: `parola = user_password` is code),
    less a value of letters only that is no random run (group `foreign`: a
    word of that language, `PAROLANIZ: gerekli`, which the judge knows not).
    A name of the password column says so to the judge (group `pwname`: a
    short value or a number is a password's too); one may begin a name's
    part in camel case (group `camel`: `dbMotDePasse`)."""
    out: list[Spec] = []
    for kind, column in (("password", 0), ("key", 1)):
        spelled: set[str] = set()
        for table in (_NAMES, _MORE_NAMES):
            for lang, names in table.items():
                if lang == "en":
                    continue
                for name in names[column]:
                    for f in forms(name):
                        f = f.strip()
                        if len(f) < 4 or f.startswith(_ENGLISH_HEADS):
                            continue
                        for v in (f, *in_capitals(f)):
                            spelled.add(v.replace(" ", "\x01").replace("-", "\x01")
                                        .replace("'", "\x01").replace("_", "\x01"))
        triggers = sorted({max(w.split("\x01"), key=len) for w in spelled})
        name = _trie(sorted(spelled)).replace("\x01", _IDENT_GLUE)
        g = _Groups()
        value = (f"(?:\"(?P<{g.said_name()}>[^\"\n]{{4,200}})\""
                 f"|'(?P<{g.said_name()}>[^'\n]{{4,200}})'"
                 f"|(?P<v3>(?!:)[^\\s\"'`,;)}}\\]]{{4,200}}))")
        out.append((
            "secret-assignment", tuple(triggers),
            "(?i)" + name + r"(?![^\W_])(?:[_.\-][\w.\-]{0,64}+)?[\"']?"
            + (r"(?P<pwname>)" if kind == "password" else "") + r"(?P<foreign>)(?P<camel>)"
            + r"(?P<sep>[ \t]*(?:=|:(?!:)|:=|=>|[：∶﹕꞉])[ \t]*)" + value + BOUNDED,
            (("mot_de_passe=⟦«a16»⟧", "parola=⟦«a16»⟧", "kataSandi: ⟦«a16»⟧",
              'MOT-DE-PASSE = "⟦«a16»⟧"', "db_wachtwoord: ⟦«a16»⟧", "비번: ⟦«a16»⟧",
              "clave_de_acceso='⟦«a16»⟧'") if kind == "password" else
             ("chiave_api=⟦«a24»⟧", "clé-secrète: ⟦«a24»⟧", "zugangsSchlüssel = '⟦«a24»⟧'")),
            "parola = user_password; mot_de_passe: Optional[str]; kode: 200; clave: valor"))
    return tuple(out)


def _made_more() -> tuple[Spec, ...]:
    """The rules of the 66 more languages (after the table's own)."""
    return (
        *_named_rules("prose-password", {k: v[0] for k, v in _MORE_NAMES.items()},
                      _MORE_PASSWORD_TRIGGERS,
                      ("wagwoord: ⟦«a16»⟧", "slaptažodis yra ⟦«a16»⟧", "密碼係 ⟦«a16»⟧",
                       "pasvorto → ⟦«a16»⟧", "nenosiri: ⟦«a16»⟧", "პაროლი: ⟦«a16»⟧"),
                      "wagwoord vergeet; slaptažodis yra per trumpas; geslo je obvezno"),
        *_named_rules("prose-token", {k: v[1] for k, v in _MORE_NAMES.items() if v[1]},
                      _MORE_TOKEN_TRIGGERS,
                      ("API atslēga ir ⟦«a24»⟧", "Zugangsschlüssel: ⟦«a24»⟧",
                       "allwedd api: ⟦«a24»⟧"),
                      "the abstrakt voti: none; susi kaai"),
        *_ident_rules(),
)


def _made() -> tuple[Spec, ...]:
    """The generated rules, in the order they run (after the table's own)."""
    return (
        *_named_rules("prose-password", {k: v[0] for k, v in _NAMES.items()}, _PASSWORD_TRIGGERS,
                    ("κωδικός: ⟦«a16»⟧", "мой пароль ⟦«a16»⟧", "รหัสผ่าน: ⟦«a16»⟧",
                     "Das Passwort lautet ⟦«a16»⟧", "het wachtwoord van de database is ⟦«a16»⟧",
                     "lösenordet är ⟦«a16»⟧", "Le mot de passe du serveur est « ⟦«a16»⟧ »",
                     "use password ⟦«a16»⟧ for the admin account",
                     "I set the root password to ⟦«a16»⟧ on the new box.",
                     "The password appears to be ⟦«a16»⟧, so I will use it.",
                     "Rotate DB password (currently ⟦«a16»⟧) after launch"),
                    "the password must be at least 12 characters; reset your password; password is "
                    "required; the password is stored in the vault; use password authentication"),
        *_named_rules("prose-token", {k: v[1] for k, v in _NAMES.items()}, _TOKEN_TRIGGERS,
                    ("mi token de acceso es ⟦«a20»⟧", "la chiave API è ⟦«a20»⟧",
                     "APIトークンは ⟦«a20»⟧ です", "API key → ⟦«a20»⟧",
                     "Here is the token I generated: ⟦«a20»⟧", "the API key is ⟦«a20»⟧"),
                    "the API key is stored in SSM; the token is 1234567890abcdef; the token "
                    "expired; pass the token to the client; API key → Settings → Keys"),
        _pair_rule(),
        _secret_set_rule(),
        _before_rule(),
        _weak_rule(),
        _emoji_rule(),
        _glued_rule(),
        _answer_rule(),
        _folder_url_rule(),
)


# (Made once and kept beside the compiled patterns, as redact's word tree is:
# the tries cost a hook ~20 ms to build.)
PEOPLE_RULES: tuple[Spec, ...] = kept(
    "people-rules",
    (_NAMES, _MORE_NAMES, _COPULAS, _OWN_COPULAS, _PARTICLES, _WHICH, _MINE, _TO, _NOW,
     _PASSWORD_TRIGGERS, _TOKEN_TRIGGERS, _MORE_PASSWORD_TRIGGERS, _MORE_TOKEN_TRIGGERS,
     _ENGLISH_TRIGGERS, _GLUED_NAMES, _AFTER, BOUNDED, _QUALIFIERS),
    tuple(f.__code__ for f in (_made, _named_rules, forms, in_capitals, _trie, _alt, _escaped,
                               _said_value, _loose_value, _pair_rule, _emoji_rule, _glued_rule,
                               _secret_set_rule,
                               _before_rule, _weak_rule,
                               _answer_rule, _folder_url_rule, _Groups.said_name,
                               _Groups.loose_name, _Groups.head_name)),
    _made)
# The 66 more languages', kept as those are.
MORE_PEOPLE_RULES: tuple[Spec, ...] = kept(
    "more-people-rules",
    (_NAMES, _MORE_NAMES, _COPULAS, _OWN_COPULAS, _PARTICLES, _WHICH, _MINE, _TO, _NOW,
     _MORE_PASSWORD_TRIGGERS, _MORE_TOKEN_TRIGGERS, _ENGLISH_TRIGGERS, _AFTER, BOUNDED,
     _IDENT_GLUE, _ENGLISH_HEADS),
    tuple(f.__code__ for f in (_made_more, _ident_rules, _named_rules, forms, in_capitals,
                               _trie, _alt, _escaped, _said_value, _loose_value, _Groups.said_name,
                               _Groups.loose_name, _Groups.head_name)),
    _made_more)
