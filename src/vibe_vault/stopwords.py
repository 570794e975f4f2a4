"""The words of a query that tell no session from another: articles,
pronouns, auxiliaries, prepositions and conjunctions of the languages the
search folds (English first; German, French, Spanish, Italian, Portuguese,
Dutch, Greek, Russian), and the particles of Chinese, Japanese and Korean
typed as a word of their own.

People type a sentence ("no checkpoints when claude started in a
subfolder"); a session that lacks "no" or "a" is not the less about it, and
one that shares only "when", "in" and "a" is not about it at all (review 26
#20). So a word typed plainly that is one of these is not asked of the
sessions, unless the query holds nothing else (`vv search the who` still
looks for both). Words a developer means as words are left out of the list
even when a grammar book calls them function words: `man` (pages), `bin`,
`hat`, `con`, `com`, `du`, `su`, `mit`, `war`, `es`, `io`, `os`, `di`, `em`,
`sim`, `nas`, `off`, `up`, `down`, `new`, `all`, `before`, `after` (hooks),
`first`, `last`, `same`.

Written as the index folds them (search_query.index_form: lower case, Latin,
Greek and Cyrillic accents dropped): `από` is `απο`, `más` is `mas`.
"""

from __future__ import annotations

from functools import cache

_ENGLISH = """
a an the this that these those some any each
i me my mine we us our ours you your yours he him his she her hers it its
they them their theirs there here
am is are was were be been being have has had having do does did doing
can could would should will shall may might must
in on at to of for from with by about into onto as than via per
and or but nor if when while then so because though although whether
what which who whom whose where why how
no not also just very too
"""
_GERMAN = """
der die das des dem den ein eine einer eines einem einen
und oder aber nicht kein keine ist sind waren wird werden wurde
ich er sie wir ihr mich mir dich dir uns euch sich
von zu zum zur im auf aus bei nach fur uber unter vor wie wo was wenn dass als
"""
_FRENCH = """
le la les l un une des de d au aux et ou mais ne pas est sont etait
je tu il elle nous vous ils elles ce ces cet cette qui que quoi dont
dans sur pour par avec sans sous chez comme quand se sa son ses leur leurs
"""
_SPANISH = """
el los las lo una unos unas del al y o pero ni es son fue era
yo tu ella nosotros ellos ellas sus mi mis que cual quien
en para por sin sobre entre como cuando donde muy mas se
"""
_ITALIAN = """
il gli della delle dello degli nel nella nei nelle e ed da non sono
lui lei noi voi loro che chi per tra fra questo questa quello
"""
_PORTUGUESE = """
um uma umas uns da das do dos na no nos pelo pela ao aos
nao ele eles elas voce
"""
_DUTCH = """
het een en van niet ik jij hij zij wij jullie ze dat deze die dit
aan met voor naar bij uit ook maar wat wie waar hoe
"""
_GREEK = """
ο η το οι τα του της των τον την τους τις ενα μια
και ή να σε με για απο που δεν μη ειναι θα ως
"""
_RUSSIAN = """
и в во не на что я ты он она оно мы вы они с со как а то по это
из у за для от же но о об к ко ли бы ни да нет или его ее их
"""
# Chinese, Japanese and Korean run their particles into the words around
# them (indexed by pairs of characters, so they stay in the phrase); typed
# apart they are a word of one character each, found in nearly every text.
_PAIRED = """
的 了 是 在 和 与 也 就 都 而 及 或
の は が を に で と も へ や
은 는 이 가 을 를 에 의 도 와 과 로
"""


@cache
def stop_words() -> frozenset[str]:
    """Every stop word, folded as the index folds a query's words."""
    from vibe_vault.search_query import index_form

    text = " ".join((_ENGLISH, _GERMAN, _FRENCH, _SPANISH, _ITALIAN, _PORTUGUESE, _DUTCH,
                     _GREEK, _RUSSIAN, _PAIRED))
    return frozenset(index_form(word) for word in text.split())


def is_stop(token: str) -> bool:
    """Whether a folded token of a query is a stop word."""
    return token in stop_words()
