"""Word lists the sentence segmenter consults (English)."""

from __future__ import annotations

# Titles written before a name: never the end of a sentence (`Dr. Smith`, `Mt. Fuji`).
PREPOSITIVE: frozenset[str] = frozenset(
    """adm brig capt cmdr col cpl det dr fr gen gov hon insp lt maj messrs mlle mme mr mrs ms
    mt pres prof rep rev sen sgt st supt""".split()
)

# Written before a number: not the end of a sentence when a number follows (`p. 55`, `No. 5`).
BEFORE_NUMBER: frozenset[str] = frozenset(
    """art ch chap eq eqs ext fig figs no nos n° nº para pg pp ref refs rs sec sect tab vol
    vols""".split()
)

# Ordinary abbreviations: they end a sentence only when a capitalised word follows
# (`Jane and co. They ...`, but `Pitt, Briggs & Co. at noon`, `Inc. ("Company A")`).
GENERAL: frozenset[str] = frozenset(
    """al approx apr assn aug ave blvd bros ca co corp dec dept dist div est etc feb govt ibid
    inc incl intl jan jr jul jun llc ltd mfg misc natl nov oct plc rd sep sept sr univ vs""".split()
)

# Multi-period abbreviations that never end a sentence.
NEVER_FINAL: frozenset[str] = frozenset({"e.g", "i.e", "a.k.a", "viz", "cf"})

# Every word above: a period after any other word is an ordinary full stop.
ABBREVIATIONS: frozenset[str] = PREPOSITIVE | BEFORE_NUMBER | GENERAL | NEVER_FINAL

# Clock abbreviations: final unless the sentence so far is only "At 5", "By 10:30", ...
CLOCK: frozenset[str] = frozenset({"a.m", "p.m"})

# Words that start sentences: after an initial (`Albert I. Jones`) or a dotted acronym
# (`the U.S. Government`) only these mark a new sentence (`... you and I. Did you ...`).
SENTENCE_STARTERS: frozenset[str] = frozenset(
    """A An And Being But Did For He Her His How However I In It Its Millions More My Our She
    So That The Their There These They This Those Thus We What When Where Who Why You""".split()
)

# Names that end in an exclamation mark without ending a sentence (`Yahoo! Research`).
EXCLAMATION_WORDS: frozenset[str] = frozenset({"yahoo", "jeopardy"})
