"""Attack 25's leftovers in people's words, by class (round 13):

- a password's or a key's name of any language the gate knows, written as a
  name in code or a configuration's key, in any spelling: snake, screaming
  or camel case, kebab, dotted, a letter at a time (`p.a.s.s.w.o.r.d`),
  with a part before or after it (`db_wachtwoord`, `parola_admin`); then an
  assignment or a colon and a value (`mot_de_passe=X`, `parola=X`,
  `비번: X`, `codice: X`, `kode: X` went through);
- "my password is X" in other languages, said with the possessive and the
  copula each language puts after the name (`Ο κωδικός μου είναι X`, `Ang
  password ko ay X`, `Nenosiri langu ni X`, `Mening parolim X`).

Generated: language x name x spelling x separator x value shape x place.
Oracle: no run of 6 of the value (which the test drew) in what the gate
returns, in the note and the state folded from a session that says it, nor
(end to end) in any file, database table or search term, or what `vv` prints;
the gate hands the whole value to learning. Look-alikes (the same names
given code, a type, a number, or a word of their language) are left whole.
"""

from __future__ import annotations

import unicodedata

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import NAMES, _folded_nowhere, _hidden, token
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]

# Names long enough to be a key (a word of 3, `clé`, `mdp`, `키`, is said in
# prose only), in either column of the table.
IDENT_NAMES = [(lang, name) for lang, name in NAMES if len(name.replace(" ", "")) >= 4]


# Those with no English secret's word in them (`token`, `claves_secreta`: the
# English rules judge them, and a word of another language is a value to them).
FOREIGN_NAMES = [(lang, name) for lang, name in IDENT_NAMES
                 if not any(w in name for w in ("secret", "token", "pass", "key", "auth", "cred"))]


def _words(name: str) -> list[str]:
    return [w for w in name.replace("'", " ").replace("-", " ").split() if w]


def spaced_letters(written: str) -> bool:
    """A name written a letter at a time (`p.a.s.s.w.o.r.d`): read as a word."""
    return len(written) > 2 and written[1] in "._- " and written[3:4] == written[1]


def _spellings(name: str) -> list[str]:
    """The name as code or a configuration writes it."""
    words = _words(name)
    out = ["_".join(words), "_".join(words).upper(), "-".join(words), ".".join(words),
           words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:]),
           "".join(w[:1].upper() + w[1:] for w in words)]
    letters = "".join(words)
    if letters.isalpha() and len(letters) >= 4:  # a letter at a time
        out += [mark.join(letters) for mark in (".", "-", "_", " ")]
        out.append(".".join(letters.upper()))
    return out


@st.composite
def as_code(draw: st.DrawFn) -> Case:
    # (another language's: the English names' forms in code are the assignment
    # rules', drawn in test_secret_forms_keys and test_secret_forms_attack24)
    _, name = draw(st.sampled_from([n for n in IDENT_NAMES if n[0] != "en"]))
    written = draw(st.sampled_from(_spellings(name)))
    spaced = spaced_letters(written)
    if not spaced:  # (a part before or after it: `db_…`, `…_admin`, `appMotDePasse`)
        camel = written[:1].isupper() and not written.isupper()
        written = draw(st.sampled_from(["", "db_", "app.", "APP_"] + (["db"] if camel else []))
                       ) + written + draw(st.sampled_from(["", "_admin", ".prod", "_1"]))
    v = draw(token(12, 32))
    value = draw(st.sampled_from(["{v}", '"{v}"', "'{v}'"])).replace("{v}", v)
    sep = draw(st.sampled_from(["=", ": ", " = ", ":=", ":", " => "]))
    line = draw(st.sampled_from(["{n}{s}{x}", '"{n}"{s}{x}', "  {n}{s}{x}\n", "export {n}{s}{x}",
                                 "{n}{s}{x} # set by ops"]))
    if line.startswith("export") and sep.strip() != "=":
        line = "{n}{s}{x}"
    return line.replace("{n}", written).replace("{s}", sep).replace("{x}", value), [v]


# "My password is X" as each language says it, the possessive or the copula
# after the name (the test's own sentences: not the gate's word lists).
SENTENCES = (
    "Ο κωδικός μου είναι {v}", "Το συνθηματικό μου είναι {v}", "Ang password ko ay {v}",
    "Ang kontrasenya ko ay {v}", "Nenosiri langu ni {v}", "Nywila yangu ni {v}",
    "Mening parolim {v}", "Mənim şifrəm {v}", "Fy nghyfrinair yw {v}",
    "Ọrọ igbaniwọle mi ni {v}", "Kalmar sirrina ita ce {v}", "Passordet mitt er {v}",
    "Lykilorðið mitt er {v}", "Fjalëkalimi im është {v}", "ჩემი პაროლი არის {v}",
    "Mäi Passwuert ass {v}", "Modpas mwen se {v}", "Ijambobanga ryanjye ni {v}",
    "Mawu achinsinsi anga ndi {v}", "Миний нууц үг бол {v}", "ពាក្យសម្ងាត់របស់ខ្ញុំគឺ {v}",
    "ລະຫັດຜ່ານຂອງຂ້ອຍແມ່ນ {v}", "Kuv lo lus zais yog {v}", "Менің құпия сөзім {v}",
    "Mo phasfhocal: {v}", "Il mio codice è {v}", "Kode saya adalah {v}", "내 비번은 {v}",
    "Benim şifrem {v}", "Salasanani on {v}", "Moje hasło to {v}",
)


def _capitals(text: str) -> str:
    """The sentence in capitals, as a shout or a heading writes it (Greek's
    without its accents)."""
    return "".join(unicodedata.normalize("NFC", "".join(
        d for d in unicodedata.normalize("NFD", c) if not unicodedata.combining(d)))
        if "\u0370" <= c <= "\u03ff" else c for c in text.upper())


@st.composite
def said(draw: st.DrawFn) -> Case:
    v = draw(token(12, 32))
    sentence = draw(st.sampled_from(SENTENCES))
    if draw(st.booleans()):
        sentence = _capitals(sentence)
    end = draw(st.sampled_from(["", ".", "\n", " — thanks", ", use it"]))
    return sentence.replace("{V}", "{v}").replace("{v}", v) + end, [v]


CLASSES = {"as code": as_code(), "said": said()}


@settings(max_examples=examples(120, 1200), deadline=None)
@given(st.one_of(*CLASSES.values()))
# (a Greek name's two words run together in capitals lower with one final
# sigma, at the end: a thorough draw found it, by the keys engineer)
@example(("Κ.Ω.Δ.Ι.Κ.Ό.Σ.Π.Ρ.Ό.Σ.Β.Α.Σ.Η.Σ=a0000000123G", ["a0000000123G"]))
@example(("ΚΩΔΙΚΟΣΠΡΟΣΒΑΣΗΣ: a0000000123G", ["a0000000123G"]))
def test_the_gate_leaves_no_run_of_six_of_a_value_named_in_any_language(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_a_value_named_in_any_language_is_in_no_note_or_state(
        case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(*CLASSES.values()), min_size=2, max_size=4))
def test_end_to_end_a_value_named_in_any_language_is_in_no_file_table_or_output(
        cases: list[Case]) -> None:
    in_no_output([(text, values[0]) for text, values in cases], in_process("attack25 words end to end"))


# -- what is left -------------------------------------------------------------------------------


@st.composite
def look_alikes(draw: st.DrawFn) -> str:
    """The names as code writes them given no value: code, a type, a
    number, a placeholder, a word of their language; and the sentences
    saying something about a password. (Another language's names: after an
    English one, a word of another language is a value, `access_key =
    gerekli`.)"""
    _, name = draw(st.sampled_from(FOREIGN_NAMES))
    written = draw(st.sampled_from(_spellings(name)))
    # (code, a type, a number, a placeholder; a word of the name's own language
    # is in `about`: another's, `heslo = gerekli`, reads as a value)
    given_ = draw(st.sampled_from([
        "user_password", "Optional[str]", "None", "200", "self.form.value", "os.environ['PW']",
        "${DB_PASS}", "<your-password>",
    ]))
    # (not `=` alone: `PW=user_password` is a shell's literal, a value)
    sep = draw(st.sampled_from([" = ", ": "]))
    if sep == ": " and given_ == "user_password" and (
            spaced_letters(written) or written.replace(" ", "").isalpha()):
        # (a name written as a word, a colon, a name's shape: said in people's
        # words, a value; test_secret_forms_attack25_rest. `db_пароль: …` stays.)
        written = "db_" + written
    about = draw(st.sampled_from([
        "Ο κωδικός μου είναι λάθος", "Nenosiri langu ni fupi sana", "Passordet mitt er for kort",
        "Il codice è scritto in Python", "min kode er ikke klar", "Mənim şifrəm yenidir",
        "the kode is in the repo", "codice: main.py", "kode: 200", "p.a.s.s.w.o.r.d: required",
        "PAROLANIZ: gerekli", "ŞİFRE: zorunlu", "wachtwoord_nieuw = user_password",
    ]))
    return draw(st.sampled_from([written + sep + given_, about]))


@settings(max_examples=examples(150, 1500), deadline=None)
@given(look_alikes())
def test_look_alikes_are_left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found


def test_words_a_letter_at_a_time_that_name_no_secret_are_left() -> None:
    """Initials and spaced words read whole are no secret's name."""
    for text in ("the U.S.A. is big", "a b c d e f", "s-o-r-r-y: 42", "T.O.D.O: fix this",
                 "i.e. p.s. n.b.", "r e a d m e: see docs"):
        assert DEFAULT.redact(text) == (text, 0), text

