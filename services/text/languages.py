"""Which language a text is in, and what its words mean to matching: stopwords, stems.

Detection is by script first (Han with kana is Japanese, Hangul Korean, Thai Thai; Cyrillic,
Arabic and Devanagari texts are told apart by the letters only some of their languages use),
and for Latin-script text by the marks of English (its commonest function words); plain
ASCII text without them by the language whose function words it is dense with; text with
letters English lacks by py3langid (a small offline model, loaded on first use).
Texts with too few words, or Latin-script words that show no language's function words, say
`und` (undetermined: read with English terms, and matched against any language).

A word's term in a language: dropped when it is one of that language's stopwords (the
`stop-words` package's lists, ours for English), otherwise its Snowball stem (PyStemmer, the C
build of the Snowball stemmers) with case, diacritics and the Turkish dotless i folded; Korean
words lose their particles; Ukrainian and Bulgarian, which Snowball lacks, lose their commonest
endings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from typing import Any

import Stemmer

from services.text import scripts
from services.text.separators import ascii_word_text, fold_punctuation

UNDETERMINED = "und"
# Function words only English has among the Latin-script languages: one of them in a text
# of plain ASCII words is enough to call it English without a model.
ENGLISH_MARKS = frozenset(
    """the of and that this with which from have has been were are its their they these
    those would could should there was is""".split()
)
_WORD = re.compile(r"[^\W_]+")
_MIN_TOKENS = 3  # fewer words than this say too little to detect a language

_LATIN_LANGUAGES = [
    "en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr", "cs", "sk", "sv", "da", "no", "fi",
    "hu", "ro", "id", "ms", "vi", "ca", "hr", "sl", "lt", "lv", "et", "eu", "ga",
]
_SNOWBALL = {
    "en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
    "pt": "portuguese", "nl": "dutch", "sv": "swedish", "da": "danish", "no": "norwegian",
    "nb": "norwegian", "nn": "norwegian", "fi": "finnish", "hu": "hungarian",
    "ro": "romanian", "tr": "turkish", "ru": "russian", "pl": "polish", "cs": "czech",
    "el": "greek", "ar": "arabic", "fa": "persian", "hi": "hindi", "ne": "nepali",
    "hy": "armenian", "id": "indonesian", "ms": "indonesian", "ca": "catalan",
    "lt": "lithuanian", "sr": "serbian", "hr": "serbian", "ta": "tamil", "et": "estonian",
    "ga": "irish", "eu": "basque", "yi": "yiddish",
}
_STOPWORD_LISTS = {
    "en": "english", "ar": "arabic", "bg": "bulgarian", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "fi": "finnish", "fr": "french", "de": "german", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "it": "italian", "no": "norwegian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sk": "slovak", "es": "spanish",
    "sv": "swedish", "tr": "turkish", "uk": "ukrainian", "fa": "persian", "el": "greek",
    "he": "hebrew", "ko": "korean", "vi": "vietnamese",
}
# Words that negate, beyond English's (services.verification.claims): also never terms.
NEGATIONS = frozenset(
    """не нет ни ні немає nicht kein keine keinen keinem keiner keines nie niemals ne pas
    jamais aucun aucune nunca ningún ninguna ninguno jamás non mai não nem nie değil yok
    niet geen inte ej ikke aldrig δεν μην όχι नहीं न मत नही لا لم لن ليس ليست غير לא אין
    אינו אינה نه نیست نمی نبود không tidak bukan 안 못 않 없 아니 아니다 아닙니다 아니라 아닌
    않는다 않았다 않다 않는 않은 않고 없다 없는 없었다 없이""".split()
)
# Korean particles and copulas, longest first: stripped from the end of a Hangul word.
_KOREAN_PARTICLES = sorted(
    """은 는 이 가 을 를 의 에 에서 에게 께 께서 한테 로 으로 와 과 도 만 까지 부터 보다
    처럼 이나 나 이며 며 이다 입니다 이고 고 에는 에서는 으로는 로는 와는 과는 에도 이라 라
    이라는 라는 인 였다 이었다""".split(),
    key=len,
    reverse=True,
)
_UKRAINIAN_ENDINGS = sorted(
    """а я у ю і и ї е є о ом ем ою ею ів їв ам ям ами ями ах ях ого його ому йому ий ій
    ої ей ими іми ові еві ові ться ть ла ло ли в""".split(),
    key=len,
    reverse=True,
)
# Latin-script letters NFD does not decompose, and the Turkish dotless i.
_LATIN_FOLD = str.maketrans({"ı": "i", "ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae",
                             "œ": "oe", "ð": "d", "þ": "th"})

_SOFT_ENDS = frozenset("аеиоуыэюяйьіїє")

_STEMMERS: dict[str, Any] = {}
_STOPWORDS: dict[str, frozenset[str]] = {}
_DETECTOR: list[Any] = []
_MAX_DETECTED = 2_048
_DETECTED: dict[str, str] = {}


def stemmer(language: str) -> Any:
    """The Snowball stemmer of `language`, or None where Snowball has none."""
    found = _STEMMERS.get(language)
    if found is None and language not in _STEMMERS:
        algorithm = _SNOWBALL.get(language)
        found = _STEMMERS[language] = Stemmer.Stemmer(algorithm) if algorithm else None
    return found


def stopwords(language: str) -> frozenset[str]:
    """The stopwords of `language` (lowercase; empty where none are known)."""
    found = _STOPWORDS.get(language)
    if found is None:
        words: set[str] = set(NEGATIONS)
        name = _STOPWORD_LISTS.get(language)
        if name is not None:
            from stop_words import get_stop_words

            for entry in get_stop_words(name):
                entry = entry.strip().strip("\"',").lower()
                if language == "tr":  # the package's Turkish list is cp1254 read as Latin-1
                    entry = entry.encode("latin-1", "ignore").decode("cp1254", "ignore")
                if entry and " " not in entry and not any(map(str.isdigit, entry)):
                    words.add(entry)
        found = _STOPWORDS[language] = frozenset(words)
    return found


def fold(word: str) -> str:
    """`word` without diacritics where its script allows it (Latin, Greek, Cyrillic) and
    without the Turkish dotless i; vowel signs of other scripts stay."""
    if word.isascii():
        return word
    word = word.translate(_LATIN_FOLD)
    first = next((ch for ch in word if ch.isalpha()), "")
    if not first or scripts.char_class(first) not in _FOLDED:
        return word
    decomposed = unicodedata.normalize("NFD", word)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    )


_FOLDED = (scripts.LATIN, scripts.GREEK, scripts.CYRILLIC)


def strip_particle(word: str) -> str:
    """A Korean word without its particle (`한라산은` -> `한라산`), keeping a stem of at least
    one syllable."""
    return _strip_ending(word, _KOREAN_PARTICLES, keep=1)


def _strip_ending(word: str, endings: list[str], keep: int = 3) -> str:
    """`word` without the first of `endings` (longest first) it ends with, when at least
    `keep` characters stay."""
    for ending in endings:
        if len(word) - len(ending) >= keep and word.endswith(ending):
            return word[: -len(ending)]
    return word


def term(word: str, language: str) -> str:
    """The content term of one lowercase surface word in `language`, or "" when it is no
    content word (see the module docstring). English and undetermined text use `english`."""
    if len(word) < 2:
        return ""
    first = scripts.char_class(word[0])
    if first in scripts.NGRAM:
        return word  # a character n-gram: a unit as it is
    if first == scripts.HANGUL:
        word = strip_particle(word)
        return "" if word in stopwords("ko") or word in NEGATIONS else word
    if word in stopwords(language):
        return ""
    if language in ("uk", "bg", "be"):
        word = _strip_ending(word, _UKRAINIAN_ENDINGS)
    else:
        found = stemmer(language)
        if found is not None and not word.isdigit():
            stemmed = found.stemWord(word)
            word = stemmed if len(stemmed) > 1 else word
    if first == scripts.CYRILLIC and len(word) > 3 and word[-1] in _SOFT_ENDS:
        word = word[:-1]  # `енисе(я)` and `енис(ей)`: Snowball stems of one noun
    return fold(word)


def language_of(
    text: str, tokens: Collection[str] | None = None, script: int | None = None
) -> str:
    """The language of `text` (a BCP 47 primary subtag, or `und`); `tokens`, its word
    tokens when the caller has them (services.text.lexical.words), spare a second
    tokenization, and `script`, its `scripts.text_script` (of its first `_SCRIPT_SAMPLE`
    characters), a second reading. Memoised by text (bounded), but for ASCII text with its
    tokens given: set lookups tell its language for less than a memo entry costs
    (`_ascii_language`)."""
    if tokens is not None and text.isascii():
        return _detect(text, tokens, script)
    found = _DETECTED.get(text)
    if found is None:
        found = _detect(text, tokens, script)
        if len(_DETECTED) >= _MAX_DETECTED:
            _DETECTED.clear()
        _DETECTED[text] = found
    return found


def read_as_tokens(text: str) -> bool:
    """Whether `language_of(text)` is also the language of the text's word tokens
    (services.text.lexical.tokens_language of `words(text)`, what its terms are read in): so
    for ASCII text whose script is read from all of it (`_SCRIPT_SAMPLE` characters at
    most): both read the same tokens by the same rules, and it has letters for both or for
    neither."""
    return len(text) <= _SCRIPT_SAMPLE and text.isascii()


_SCRIPT_SAMPLE = 4_000  # the characters a text's script is read from (`_detect`)


def _detect(text: str, tokens: Collection[str] | None, script: int | None) -> str:
    if script is None:
        script = scripts.text_script(text, _SCRIPT_SAMPLE)
    if script == scripts.LATIN:
        if tokens is None:
            return _latin_text(text)
        if not ENGLISH_MARKS.isdisjoint(tokens):
            return "en"
        return _unmarked(text, tokens, _function_words(tokens))
    if script == scripts.OTHER:
        return UNDETERMINED
    if script == scripts.CYRILLIC:
        return _cyrillic(text)
    if script == scripts.ARABIC:
        return _arabic(text)
    if script == scripts.INDIC:
        return "hi" if any("\u0900" <= ch <= "\u097f" for ch in text[:400]) else UNDETERMINED
    return _BY_SCRIPT.get(script, UNDETERMINED)


def _tokens(text: str) -> list[str]:
    """The word tokens of a text, lowercase, as `_detect` reads them."""
    folded = fold_punctuation(text)  # separators are no word characters: same words
    return ascii_word_text(folded).split() if folded.isascii() else _WORD.findall(text.lower())


def _latin_text(text: str) -> str:
    """`_detect` of a Latin-script text not tokenized yet. Most English texts show an
    English mark in their first words (`_english_head`): the rest of a long one is not
    tokenized (a short one is read whole at once: its head is most of it). Any
    other is tokenized whole and its words looked up once, among the English marks and the
    candidates' function words together (a text without marks needs the latter)."""
    if len(text) > _LONG and _english_head(text):
        return "en"
    tokens = _tokens(text)
    common = _function_words(tokens, marks=True)
    if not ENGLISH_MARKS.isdisjoint(common):
        return "en"
    return _unmarked(text, tokens, common)  # (no mark among `tokens`: `common` is theirs)


_HEAD = 120  # the characters of a text's head (`_english_head`)
_LONG = 4 * _HEAD  # a text read by its head first


def _english_head(text: str) -> bool:
    """Whether a word of the text's first `_HEAD` characters, split at white space and
    lowercased (the last one left out: it may be cut), is an English mark as it stands:
    such a word is one of the text's tokens (`_tokens` splits at white space too, and no
    character but a mark's own capitals lowercases to its ASCII letters: the Kelvin sign,
    the one other that lowercases to ASCII, makes a `k`, in no mark)."""
    words = text[:_HEAD].lower().split()
    return len(words) > 1 and not ENGLISH_MARKS.isdisjoint(words[:-1])


def _unmarked(text: str, tokens: Collection[str], common: set[str]) -> str:
    """The language of Latin-script `text` whose word `tokens` hold no English mark
    (`common`: the candidates' function words among them)."""
    if text.isascii():
        return _by_function_words(tokens, common)
    if _too_few(tokens):
        return UNDETERMINED
    return _latin(text)  # letters English lacks: the model tells which language


_BY_SCRIPT = {
    scripts.HAN: "zh", scripts.HIRAGANA: "ja", scripts.KATAKANA: "ja", scripts.HANGUL: "ko",
    scripts.THAI: "th", scripts.LAO: "lo", scripts.KHMER: "km", scripts.MYANMAR: "my",
    scripts.GREEK: "el", scripts.HEBREW: "he", scripts.ARMENIAN: "hy",
    scripts.GEORGIAN: "ka", scripts.ETHIOPIC: "am",
}


# Latin-script languages often written without diacritics in plain ASCII.
_ASCII_CANDIDATES = ("de", "fr", "es", "it", "pt", "nl", "id", "sv", "da", "no", "fi", "tr",
                     "pl", "cs", "ro", "hu")


# Every candidate's stopwords, and those with the English marks (made on first use).
_ANY_FUNCTION_WORD: set[str] = set()
_FUNCTION_OR_MARK: set[str] = set()


def _too_few(tokens: Collection[str]) -> bool:
    """Whether the words are too few to tell a language (numbers say nothing of one)."""
    return len(tokens) - sum(map(str.isdigit, tokens)) < _MIN_TOKENS


def _function_words(tokens: Collection[str], marks: bool = False) -> set[str]:
    """The function words of any ASCII candidate language among `tokens` (with `marks`,
    the English marks among them too)."""
    if not _ANY_FUNCTION_WORD:
        for language in _ASCII_CANDIDATES:
            _ANY_FUNCTION_WORD.update(stopwords(language))
        _FUNCTION_OR_MARK.update(_ANY_FUNCTION_WORD, ENGLISH_MARKS)
    return (_FUNCTION_OR_MARK if marks else _ANY_FUNCTION_WORD).intersection(tokens)


def reads_english(tokens: Collection[str], ascii: bool = False) -> bool:
    """Whether word tokens are sure to read as English or undetermined, without detecting
    which (the two read with the same terms): plain ASCII words with fewer than two function
    words of any candidate are one of them (`_by_function_words` needs two). `ascii`: the
    caller knows the words are ASCII (they are not joined to find out)."""
    return len(_function_words(tokens)) < 2 and (ascii or " ".join(tokens).isascii())


def _by_function_words(tokens: Collection[str], common: set[str]) -> str:
    """The language of plain ASCII words with no English function word among them: the one
    whose function words are most of them, when they are dense (a model calls short English
    lists of names and nouns anything); else undetermined (so for too few words). Set
    intersections only: no model runs on the English that makes most texts. `common`: the
    candidates' function words among `tokens` (`_function_words`)."""
    # Every candidate's hits are among `common`: most texts (nouns, names) end here.
    if len(common) < 2 or 5 * len(common) < len(tokens) or _too_few(tokens):
        return UNDETERMINED
    best, hits = UNDETERMINED, 1
    for language in _ASCII_CANDIDATES:
        found = len(stopwords(language).intersection(common))
        if found > hits:
            best, hits = language, found
    if best == UNDETERMINED or 5 * hits < len(tokens):
        return UNDETERMINED
    # English wins ties: `a`, `in`, `for` are Portuguese function words too
    return "en" if len(stopwords("en").intersection(tokens)) >= hits else best


def _cyrillic(text: str) -> str:
    sample = text[:4_000].lower()
    if any(ch in sample for ch in "іїєґ"):
        return "uk"
    if any(ch in sample for ch in "ђћџљњ"):
        return "sr"
    if "ў" in sample:
        return "be"
    if "ъ" in sample and not any(ch in sample for ch in "ыэё"):
        return "bg"
    return "ru"


def _arabic(text: str) -> str:
    sample = text[:4_000]
    if any(ch in sample for ch in "ےںٹڈڑھ"):
        return "ur"
    if any(ch in sample for ch in "پچژگ") or ("ی" in sample and "ي" not in sample):
        return "fa"
    return "ar"


def _latin(text: str) -> str:
    """py3langid's choice among the Latin-script languages (loaded on first use)."""
    if not _DETECTOR:
        import py3langid.langid as langid

        langid.set_languages(_LATIN_LANGUAGES)
        _DETECTOR.append(langid.classify)
    language, _ = _DETECTOR[0](text)
    return str(language)


_SCRIPT_CODES = {
    scripts.HIRAGANA: "Jpan", scripts.HANGUL: "Hang", scripts.OTHER: "Zyyy",
}
RIGHT_TO_LEFT = frozenset({scripts.ARABIC, scripts.HEBREW})


def describe(text: str) -> tuple[str, str, str]:
    """The language (`und` when undetermined), the ISO 15924 script code (`Zyyy` when it
    has no letters) and the direction (`rtl` for Arabic and Hebrew scripts, else `ltr`) of
    `text`."""
    sample = text[:_SAMPLE]
    found = _DESCRIBED.get(sample)
    if found is None:
        script = scripts.text_script(sample)
        code = _SCRIPT_CODES.get(script) or scripts.NAMES.get(script, "Zyyy")
        direction = "rtl" if script in RIGHT_TO_LEFT else "ltr"
        # (the sample is shorter than `_SCRIPT_SAMPLE`: its script is the one `_detect` reads)
        found = (language_of(sample, None, script), code, direction)
        if len(_DESCRIBED) >= _MAX_DETECTED:
            _DESCRIBED.clear()
        _DESCRIBED[sample] = found
    return found


_SAMPLE = 1_000  # characters: enough to tell a language, cheap on every new text


def source_sample(texts: list[str] | tuple[str, ...]) -> str:
    """What a source's language is read from: its first `_SAMPLE` characters (its pieces
    joined only as far as needed)."""
    if texts and len(texts[0]) >= _SAMPLE:
        return texts[0][:_SAMPLE]
    return " ".join(texts)[:_SAMPLE]
_DESCRIBED: dict[str, tuple[str, str, str]] = {}


def same_language(first: str, second: str) -> bool:
    """Whether texts in these two languages can be matched word for word (undetermined
    matches anything; close neighbours that share most words count as one)."""
    if first == second or UNDETERMINED in (first, second):
        return True
    return _FAMILY.get(first, first) == _FAMILY.get(second, second)


_FAMILY = {
    "nb": "no", "nn": "no", "da": "no", "sv": "no", "sk": "cs", "ms": "id", "hr": "sr",
    "bs": "sr", "gl": "pt", "ca": "es",
}
