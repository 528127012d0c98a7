"""Word lists of languages beyond English that the sentence segmenter consults.

Provenance: the abbreviations, titles and sentence starters below are drawn from pySBD's
language data (pysbd/lang/*.py, pySBD 0.3.4, MIT licence, (c) Nipun Sadvilkar; itself from
the Pragmatic Segmenter, MIT, (c) Kevin S. Dias), curated and classified for citeflow: the
segmenter is not told the language, so a word that is also an ordinary English (or other
common) word (`all`, `con`, `on`, `ten`, `doc`, `me`) is left out of the lists that apply
to every text and kept only in `HINTED_TITLES`, used when the answer names its language.
Month and weekday names are common knowledge.
"""

from __future__ import annotations

# Titles and other words written before a name or a noun: never the end of a sentence
# (`Srta. Ledesma`, `l'Ing. Mengozzi`, `Skt. Hans`, `napr. XYZCorp`, `пгт. Брагиновка`).
TITLES: frozenset[str] = frozenset(
    # Spanish and Portuguese
    """srta sra sres srs dra lic lcdo lcda ldo lda arq ud uds excmo excma ilmo ilma mtro mtra
    dña sto sta gral cnel tte pbro exmo exma ee"""
    # Italian
    """ avv dott dottssa dir amm egr geom ing mons psicol rag sig sigg spett gent cav comm magg
    arch.tto"""
    # German, Danish, Dutch, French, Polish
    """ hr frl dipl skt sct fru frk dhr mevr drs ir mgr mmes inż ks św"""
    # Slovak, Czech
    """ judr mudr mvdr rndr phdr paeddr drsc bc napr např tzv tzn resp vz"""
    # Latin-script words of other languages that introduce what follows (`e.g.`, `i.e.`)
    """ bzw bspw vgl ggf bijv np""".split()
)

# Before a number (`párrf. 5`, `mar. 23`, `Nr. 7`): not the end of a sentence when a number
# follows. Weekday and month abbreviations of Spanish, Italian, French, German, Danish.
BEFORE_NUMBER: frozenset[str] = frozenset(
    """núm nr nro párr párrf pág págs cap cra tel abs bd hft
    lun mar mié mier jue vie sáb dom ene abr ago dic mer gio ven sab giu lug ott
    janv févr avr juil sept déc okt dez""".split()
)

# Cyrillic abbreviations (Russian, Bulgarian, Kazakh, Ukrainian): pySBD's Russian and
# Bulgarian rules never end a sentence at them (`г. Волгоград`, `проф. Семенов`, `Кв. 234`).
CYRILLIC_NEVER_FINAL: frozenset[str] = frozenset(
    """авт адм акад англ бел бр бул в вв вж вкз вкл вм вост г гг ген гл гос гр д деп дж дисс доц
    ж жен з зам зап заруб им ин инж иностр инст канд кв кор куб л лат м напр о обл п пгт пер
    пл полк пп пр просп проф р рис с св ср срв ст стр т табл тов тт у ул ф фиг чл ш""".split()
)

# Cyrillic units and other abbreviations that end a sentence when a capital follows
# (`стоит 100 руб. Потом`).
CYRILLIC_GENERAL: frozenset[str] = frozenset(
    """долл руб тыс млн млрд трлн кг км мм см м² км² мин сек ч лв др ха хил ежедн нед""".split()
)

# Month names, nominative and genitive (German, Danish, Norwegian, Swedish, Dutch, Slovak,
# Czech, Polish, Hungarian, Finnish): after a day number they make its period an ordinal
# (`12. Juni`, `7. Apríla`).
MONTHS: frozenset[str] = frozenset(
    """januar februar märz april mai juni juli august september oktober november dezember
    marts maj december januari februari mars augusti oktober juni juli
    januarie maart mei augustus
    januára februára marca apríla mája júna júla augusta septembra októbra novembra decembra
    január február marec apríl máj jún júl október
    ledna února března dubna května června července srpna září října listopadu prosince
    leden únor březen duben květen červen červenec srpen říjen listopad prosinec
    stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października
    listopada grudnia
    január február március április május június július augusztus szeptember október
    tammikuuta helmikuuta maaliskuuta huhtikuuta toukokuuta kesäkuuta heinäkuuta elokuuta
    syyskuuta lokakuuta marraskuuta joulukuuta""".split()
)

# Languages that write ordinals as a number and a period (`1. Mai`, `XII. pluk`): told one
# of them, a period after a day or a Roman numeral never ends a sentence before a word.
ORDINAL_LANGUAGES: frozenset[str] = frozenset(
    "de da nb nn no sk cs pl hu fi et lv lt sl hr sr bs is fo tr".split()
)

# Letters of languages in `ORDINAL_LANGUAGES` that English, Spanish, French, Italian and
# Portuguese do not use: when the sentence holds one, a day or Roman numeral before a word
# reads as an ordinal without being told the language.
ORDINAL_LETTERS = "äöüßøæåčšžřľťňďůýąęłśźżćńőűŕĺğış" "ÄÖÜØÆÅČŠŽŘĽŤŇĎŮÝĄĘŁŚŹŻĆŃŐŰŔĹĞŞ"

# German words that stand before an ordinal and its capitalised noun (`der 3. Versuch`,
# `im 19. Jahrhundert`, `seinen 50. Geburtstag`): articles, their contractions with a
# preposition, possessives, demonstratives. Before one of them a day or Roman numeral and its
# period read as an ordinal without being told the language. (`am` is left out: English
# `I am 3. Tom is 5.` ends there; `am 3. Mai` is read by the month.)
ORDINAL_DETERMINERS: frozenset[str] = frozenset(
    """der die das dem den des im vom zum zur beim ins ans aufs
    mein meine meinem meinen meiner meines dein deine deinem deinen deiner deines
    sein seine seinem seinen seiner seines ihr ihre ihrem ihren ihrer ihres
    unser unsere unserem unseren unserer unseres euer eure eurem euren eurer eures
    dieser diese dieses diesem diesen jeder jede jedes jedem jeden""".split()
)

# Words that start sentences in German and Danish (pySBD's lists): after a dotted acronym
# (`Jeg bor i E.U. Hvad med dig?`) only these mark a new sentence.
SENTENCE_STARTERS: frozenset[str] = frozenset(
    """Am Auch Auf Bei Da Das Der Die Ein Eine Es Für Heute Ich Im Ist Jetzt Mein Mit Nach
    Und Warum Was Wenn Wer Wie Wir At De Dem Den Der Det Du En Et Få Gjorde Han Hun Hvad
    Hvem Hvilke Hvor Hvordan Hvorfor Hvorledes Hvornår Jeg Mange Vi Være""".split()
)

# Titles that are ordinary words too (Italian `on.` onorevole, `ten.` tenente, Spanish
# `con.`): never final only when the answer says it is in that language.
HINTED_TITLES: dict[str, frozenset[str]] = {
    "it": frozenset("on ten col cap gen sen doc prof avv es all".split()),
    "es": frozenset("sr dr don prof gen col cap".split()),
    "pt": frozenset("sr dr prof".split()),
    "fr": frozenset("me mm pr".split()),
    "de": frozenset("fr hr prof".split()),
}

# Everything above that a period may follow: after any other word it is a plain full stop.
ALL: frozenset[str] = (
    TITLES | BEFORE_NUMBER | CYRILLIC_NEVER_FINAL | CYRILLIC_GENERAL
    | frozenset().union(*HINTED_TITLES.values())
)
