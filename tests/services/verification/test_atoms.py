"""Claims judged atom by atom: the split, the verdicts, the evidence set, the answer's own
missing words, and the bad inputs (a 400-word sentence with 60 commas, a list of names,
quotes and brackets that never close, a claim that is only a number, a source that is one
2 MB line, an answer in three scripts)."""

from __future__ import annotations

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer
from services.text.atoms import QUOTE, atoms, is_heading
from services.text.lexical import term_list
from services.verification.atoms import _topic, judge_atoms
from services.verification.sources import SourceView, source_view

PAGE = [
    "Arnold joined Video Store Magazine in 1991.",
    "He was the publisher of Home Media Magazine for twelve years.",
    "The magazine covers the home entertainment industry.",
    "The festival was not held in 2020.",
]


def _view(lines: list[str]):
    view = source_view(["\n".join(lines)])
    assert view is not None
    return view


def _texts(text: str) -> list[str]:
    return [text[atom.start : atom.end] for atom in atoms(text)]


def test_clauses_coordination_quotes_and_parentheticals_are_atoms() -> None:
    text = ('"Game of Thrones" set a record for Emmy nominations (32 in 2019), and it broke '
            'the record of "NYPD Blue", which had held it since 1994.')
    found = atoms(text)
    texts = [text[atom.start : atom.end] for atom in found]
    assert texts[0] == "Game of Thrones" and found[0].kind == QUOTE
    assert "32 in 2019" in texts
    assert "NYPD Blue" in texts
    assert any(t.startswith("and it broke the record of") for t in texts)
    assert texts[-2:] == ["which had held it", "since 1994"]


def test_other_languages_cut_at_their_punctuation_and_conjunctions() -> None:
    assert _texts("他于2001年出生，并且在北京长大。") == ["他于2001年出生", "并且在北京长大"]
    assert _texts("Die Firma wurde 1990 gegründet und der Gründer zog nach Berlin.") == [
        "Die Firma wurde 1990 gegründet", "und der Gründer zog nach Berlin"]
    assert _texts("Компания основана в 1990 году, и основатель переехал в Москву.") == [
        "Компания основана в 1990 году", "и основатель переехал в Москву"]


def test_a_date_or_a_number_is_not_cut() -> None:
    assert _texts("It was released on November 2, 2004 with 12,717 copies.") == [
        "It was released on November 2, 2004 with 12,717 copies"]


def test_every_atom_supported_is_supported_and_none_is_unsupported() -> None:
    view = _view(PAGE)
    supported = judge_atoms("Arnold joined Video Store Magazine in 1991, and he was the "
                            "publisher of Home Media Magazine", view)
    assert supported is not None and supported.verdict == "supported"
    assert supported.missing == []
    unsupported = judge_atoms("Arnold won an Oscar for cinematography", view)
    assert unsupported is not None and unsupported.verdict == "unsupported"
    partial = judge_atoms("Arnold joined Video Store Magazine in 1991, and later he won an "
                          "Oscar for cinematography in Paris", view)
    assert partial is not None and partial.verdict == "partial"
    assert [c.verdict for c in partial.atoms] == ["supported", "unsupported"]


def test_each_atom_has_its_own_evidence_and_the_set_spans_sentences() -> None:
    view = _view(PAGE)
    judged = judge_atoms("Arnold joined Video Store Magazine in 1991, and the magazine "
                         "covers the home entertainment industry", view)
    assert judged is not None and judged.verdict == "supported"
    evidence = [check.evidence.text for check in judged.atoms if check.evidence is not None]
    assert evidence == [PAGE[0], PAGE[2]]


def test_words_of_an_atom_that_another_sentence_holds_are_backed_there() -> None:
    lines = ["Arnold joined Video Store Magazine in 1991.", "The festival was not held.",
             "It rained all week.", "Later, Arnold was the publisher of Home Media Magazine.",
             "A reviewer wrote about it."]
    view = _view(lines)
    text = "Arnold joined Video Store Magazine in 1991 as publisher of Home Media Magazine"
    judged = judge_atoms(text, view)
    assert judged is not None
    own, cover = judged.atoms
    assert own.evidence is not None and own.evidence.text == lines[0]
    assert cover.verdict == "supported" and cover.span.claims == "publisher of Home Media"
    assert cover.evidence is not None and cover.evidence.text == lines[3]
    assert judged.missing == []
    # One word that another sentence holds is no part of the atom backed there.
    text = "Arnold joined Video Store Magazine in 1991 as a reviewer"
    alone = judge_atoms(text, view)
    assert alone is not None and len(alone.atoms) == 1
    # (the article that ties it to the clause is not marked with it)
    assert [text[start:end] for start, end in alone.missing] == ["reviewer"]


def test_a_line_that_dates_the_page_backs_the_year_of_an_atom() -> None:
    lines = ["# Arnold joins the magazine", "Published March 5, 2003",
             "Arnold joined Video Store Magazine in 2003."]
    view = _view(lines)
    judged = judge_atoms("Arnold joined Video Store Magazine in 2003", view)
    assert judged is not None and judged.verdict == "supported"
    assert [(check.span.claims, check.evidence.text) for check in judged.atoms
            if check.evidence is not None] == [
        ("Arnold joined Video Store Magazine in 2003", lines[2]), ("2003", lines[1])]
    # The atom's own day on that line is a fact the page states: not missing, held.
    text = "The magazine covers the home entertainment industry from March 5, 2003"
    day = judge_atoms(text, _view([lines[1], *PAGE]))
    assert day is not None and day.missing == []
    assert [(c.span.claims, c.states) for c in day.atoms if c.states] == [
        ("March 5, 2003", frozenset({"march", "5", "2003"}))]
    # A heading that only names the year is no date line.
    undated = judge_atoms("Arnold joined Video Store Magazine in 2003",
                          _view(["Magazines of 2003", lines[2]]))
    assert undated is not None and len(undated.atoms) == 1


def test_a_title_line_is_evidence_only_for_a_title() -> None:
    lines = ["(meta data) TITLE: About Us – Media Play News", "Skip to content", *PAGE]
    view = _view(lines)
    assert is_heading("\n".join(lines), 0, len(lines[0]))
    judged = judge_atoms("Media Play News is about the home entertainment industry", view)
    assert judged is not None
    # The sentence's evidence is a sentence; the title line backs only the name that no
    # sentence holds (that part of the atom is about the title).
    assert judged.atoms[0].evidence is not None
    assert PAGE[2] in judged.atoms[0].evidence.text
    titled = [check for check in judged.atoms
              if check.evidence is not None and check.evidence.text == lines[0]]
    assert [check.span.claims for check in titled] == ["Play News"]
    assert judged.missing == []
    title = judge_atoms('He works at "Media Play News"', view)
    assert title is not None
    assert [c.judge for c in title.atoms if c.span.kind == QUOTE] == ["verbatim"]


def test_a_quote_verifies_only_its_own_atom() -> None:
    view = _view(PAGE)
    judged = judge_atoms('"Home Media Magazine" won a Pulitzer prize for reporting', view)
    assert judged is not None and judged.verdict == "partial"
    quote, rest = judged.atoms
    assert (quote.verdict, quote.judge) == ("supported", "verbatim")
    assert rest.verdict == "unsupported"


def test_conflicts_come_only_from_the_atoms_evidence() -> None:
    # the page's negated sentence is not the evidence of this claim: no negation conflict
    judged = judge_atoms("Arnold joined Video Store Magazine in 1991", _view(PAGE))
    assert judged is not None and judged.conflicts == ()
    changed = judge_atoms("Arnold joined Video Store Magazine in 1987", _view(PAGE))
    assert changed is not None and "number" in changed.conflicts


def _answer(text: str, chunks: list[str]) -> AnswerFormatted:
    raw = orjson.dumps({"answer_id": "atoms", "text": text, "sources": [
        {"index": 1, "kind": "web", "url": "https://example.org/a",
         "chunks": [{"text": chunk} for chunk in chunks]}]})
    result = process_answer(raw, event_id="atoms")
    assert isinstance(result, AnswerFormatted), result
    return result


def _own_words(result: AnswerFormatted) -> None:
    """Every missing word is the answer's text at its offsets, and `missing` lists them."""
    for citation in result.citations:
        support = citation.support
        assert support is not None
        for word in support.missing_words:
            assert result.text[word.start : word.end] == word.text
        assert support.missing == [word.text for word in support.missing_words]
        for atom in support.atoms:
            assert result.text[atom.start : atom.end] == atom.text


def test_missing_words_are_the_answers_own_with_offsets() -> None:
    result = _answer("Arnold made history, and he joined Video Store Magazine in 1991 [1].",
                     ["\n".join(PAGE)])
    support = result.citations[0].support
    assert support is not None
    assert "made" in support.missing  # as written, not a stem (`make`)
    _own_words(result)
    assert len(support.atoms) >= 2 and all(a.evidence is not None for a in support.atoms)


def test_bad_input_a_400_word_sentence_with_60_commas() -> None:
    parts = [f"the {word} studio released film {n}"
             for n, word in zip(range(60), ["alpha", "beta", "gamma", "delta", "omega"] * 12)]
    sentence = ", ".join(parts) + ", " + " ".join(["and the crew went home again"] * 7)
    assert 380 <= len(sentence.split()) <= 420 and sentence.count(",") == 60
    result = _answer(sentence[0].upper() + sentence[1:] + " [1].",
                     ["The alpha studio released film 1.\nThe crew went home."])
    support = result.citations[0].support
    assert support is not None and support.verdict == "partial"
    assert len(support.atoms) <= 24
    _own_words(result)


def test_bad_input_a_sentence_that_is_one_long_list_of_names() -> None:
    names = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov",
             "Donald Knuth", "John McCarthy", "Frances Allen", "Ken Thompson", "Niklaus Wirth"]
    result = _answer(", ".join(names) + " [1].",
                     ["Ada Lovelace and Alan Turing wrote about machines.\nGrace Hopper built "
                      "compilers."])
    support = result.citations[0].support
    assert support is not None and support.verdict == "partial"
    assert {"Ada", "Lovelace", "Grace"}.isdisjoint(support.missing)
    assert {"Knuth", "Wirth"} <= set(support.missing)
    _own_words(result)


def test_bad_input_quotes_and_parentheses_that_never_close() -> None:
    text = 'He said "the (magazine [covers «home entertainment (since 1991'
    assert _texts(text) == [text]  # nothing closes: plain text, one part
    result = _answer(text + " [1].", ["\n".join(PAGE)])
    assert result.citations[0].support is not None
    _own_words(result)


def test_bad_input_a_claim_that_is_only_a_number() -> None:
    held = _answer("1991 [1].", ["\n".join(PAGE)]).citations[0].support
    assert held is not None and held.verdict == "supported"
    absent = _answer("1987 [1].", ["\n".join(PAGE)]).citations[0].support
    assert absent is not None and absent.verdict != "supported"
    assert absent.missing == ["1987"]


def test_bad_input_a_source_that_is_one_2_mb_line() -> None:
    line = ("filler words about nothing in particular " * 52_000)[:2_000_000]
    line += " Arnold joined Video Store Magazine in 1991"
    result = _answer("Arnold joined Video Store Magazine in 1991 [1].", [line])
    support = result.citations[0].support
    assert support is not None and support.verdict == "supported"


def test_bad_input_an_answer_in_three_scripts_in_one_sentence() -> None:
    text = "Arnold joined Video Store Magazine, 他在北京工作, и он живёт в Москве [1]."
    result = _answer(text, ["Arnold joined Video Store Magazine in 1991."])
    support = result.citations[0].support
    assert support is not None
    _own_words(result)
    missing = "".join(support.missing)
    assert "北京" in missing and "Москве" in missing  # the answer's own spelling
    assert "Arnold" not in support.missing


NUMBERS_PAGE = ["The company was founded in 2001.", "It employs 57 people.",
                "The war lasted from 1939 to 1945.", "The road is 3.2 km long.",
                "It opened on 2 December 2004.", "Das Werk hat 52 Mitarbeiter."]


def test_numbers_people_write_match_their_exact_values() -> None:
    view = _view(NUMBERS_PAGE)
    for claim in ("The company was founded in the 2000s", "The company was founded in the 2000's",
                  "It employs over fifty people", "It employs fifty-seven people",
                  "The war lasted 1939–45", "The road is about 3 km long",
                  "It opened on Dec. 2, 2004", "On 2 Dec 2004 it opened",
                  "Das Werk hat über fünfzig Mitarbeiter"):
        judged = judge_atoms(claim, view)
        assert judged is not None
        assert (judged.verdict, judged.conflicts) == ("supported", ()), claim


def test_a_changed_number_is_still_a_conflict() -> None:
    view = _view(NUMBERS_PAGE)
    for claim in ("It employs 80 people", "The company was founded in the 1990s",
                  "It employs under forty people"):
        judged = judge_atoms(claim, view)
        assert judged is not None and judged.verdict != "supported", claim


def test_a_name_or_number_the_source_lacks_keeps_its_atom_from_supported() -> None:
    """`in Rome by Napoleon`: most words of the atom are in the source, but its names are
    facts of their own that the source never states: partial, naming them."""
    import orjson

    from services.pipeline import process_answer

    source = {"index": 1, "kind": "web", "url": "https://example.org/t", "chunks": [{
        "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was "
                "designed by the company of Gustave Eiffel and completed in 1889."}]}

    def support(text: str) -> tuple[str, list[str]]:
        result = process_answer(orjson.dumps({"answer_id": "a", "text": text,
                                              "sources": [source]}), event_id="t")
        found = result.citations[0].support  # type: ignore[union-attr]
        assert found is not None
        return found.verdict, list(found.missing)

    verdict, missing = support("The Eiffel Tower was finished in 1889 in Rome by Napoleon [1].")
    assert verdict == "partial" and {"Rome", "Napoleon"} <= set(missing)
    assert support("The Eiffel Tower was completed in 1889 by Gustave Eiffel [1].")[0] == (
        "supported")


def test_a_minor_part_worded_otherwise_does_not_undo_a_claim() -> None:
    """Most of the claim's words and all its facts are in the source; one short part is not
    (`by their own account`): supported, the part itself partial or unsupported and its
    words missing. A claim sharing little with the source among many words is unsupported,
    though one of its parts is there."""
    view = _view(PAGE)
    judged = judge_atoms("Arnold joined Video Store Magazine in 1991, by his own account", view)
    assert judged is not None and judged.verdict == "supported"
    assert [check.verdict for check in judged.atoms] == ["supported", "unsupported"]
    little = judge_atoms("The magazine covers racing, and its editors raced yachts off Sydney "
                         "for twelve seasons, winning trophies in Hobart, Auckland and Perth",
                         view)
    assert little is not None and little.verdict == "unsupported"


def test_grouped_digits_ordinals_and_numbers_in_words_of_the_evidence() -> None:
    view = _view(["The period began in 3800 BC.", "The final was held on April 9th, 2011.",
                  "It won its seventh consecutive trophy in 2016.",
                  "We spent one year writing it."])
    for claim in ("The period began in 3,800 BC", "The final was held on April 9, 2011",
                  "It won its seventh consecutive trophy in 2016"):
        judged = judge_atoms(claim, view)
        assert judged is not None
        assert (judged.verdict, judged.conflicts) == ("supported", ()), claim
    changed = judge_atoms("We spent three years writing it", view)
    assert changed is not None and changed.conflicts == ("number",)


def test_a_negation_conflicts_only_where_it_governs_the_atoms_words() -> None:
    view = _view(["Stewart would not start the Cheez-It 355 at The Glen; Regan Smith "
                  "replaced him in the Cheez-It 355 at The Glen.",
                  "The festival did not sell tickets.",
                  "The climate was warm, and not only in summer."])
    replaced = judge_atoms("Smith replaced Stewart in the Cheez-It 355 at The Glen", view)
    assert replaced is not None and replaced.conflicts == ()
    sold = judge_atoms("The festival sells tickets", view)
    assert sold is not None and sold.conflicts == ("negation",)
    warm = judge_atoms("The climate was warm not only in summer", view)
    assert warm is not None and warm.conflicts == ()


def test_missing_words_are_taken_as_phrases() -> None:
    """The function word that opens a missing phrase before a number and one between two
    missing words are missing too (`in 1987`, `Paris of France`)."""
    view = _view(PAGE)
    text = "Arnold joined Video Store Magazine in 1987 and lived in Paris of France"
    judged = judge_atoms(text, view)
    assert judged is not None
    words = [text[start:end] for start, end in judged.missing]
    assert words[:2] == ["in", "1987"]
    assert ["in", "Paris", "of", "France"] == words[-4:]
    # A word of the clause opens no phrase (`was` of `was named`, `He` of `He won`).
    text = "He won a medal and was named a knight"
    judged = judge_atoms(text, view)
    assert judged is not None
    assert [text[start:end] for start, end in judged.missing] == [
        "won", "a", "medal", "named", "a", "knight"]


def test_a_function_word_opens_a_missing_phrase_only_where_it_makes_it_one() -> None:
    """Inside a clause, a preposition or an indefinite article before a missing word ties it
    to the clause's held words: the word is missing, not what ties it. It opens the phrase
    at the atom's start, before a number or a date, as a coordinator, as a definite article
    and as an abbreviation."""
    view = _view(["Ly studied law at the university.", "She graduated in 1991.",
                  "The band played in Texas."])
    assert _missing("Ly graduated with distinction", view) == ["distinction"]
    assert _missing("Ly graduated with a distinction", view) == ["distinction"]
    assert _missing("A second band played in Texas", view) == ["A", "second"]
    assert _missing("Ly graduated in 1993", view) == ["in", "1993"]
    assert _missing("The band played in Texas and Canada", view) == ["and", "Canada"]
    assert _missing("Ly studied law at the college", view) == ["the", "college"]
    assert _missing("Ly graduated with a J.D. degree", view) == ["D", "degree"]
    # The same in text that is not ASCII (read word by word), by the claim's language.
    view = _view(["Ly a étudié le droit à l'université.", "Elle est diplômée en 1991."])
    assert _missing("Ly a étudié le droit avec distinction", view) == ["distinction"]
    assert _missing("Ly a étudié le droit avec la mention", view) == ["la", "mention"]
    assert _missing("Ly a étudié le droit en 1993", view) == ["en", "1993"]


def test_a_date_one_of_whose_words_is_missing_is_missing_whole() -> None:
    view = _view(["Arnold joined Video Store Magazine on 25 May 1991."])
    text = "Arnold joined Video Store Magazine on 16 May 1991"
    judged = judge_atoms(text, view)
    assert judged is not None
    assert [text[start:end] for start, end in judged.missing] == ["on", "16", "May", "1991"]


def test_cjk_numerals_match_their_values_on_either_side() -> None:
    """`五十万` against `500000` or `50万` and back, in Chinese, Japanese and Korean; a
    changed figure is still a conflict, however either side writes it."""
    digits = _view(["该市人口约500000人。", "城市面积为300平方公里。", "東京の人口は約1400万人である。",
                    "서울의 인구는 500000명이다."])
    numerals = _view(["该市人口约50万人。", "城市面积为三百平方公里。"])
    for view, claim in ((digits, "该市人口约五十万人"), (digits, "该市人口约50万人"),
                        (digits, "城市面积为三百平方公里"), (digits, "東京の人口は約一千四百万人である"),
                        (digits, "서울의 인구는 오십만 명이다"), (numerals, "该市人口约500000人"),
                        (numerals, "该市人口约五十万人"), (numerals, "城市面积为300平方公里")):
        judged = judge_atoms(claim, view)
        assert judged is not None
        assert (judged.verdict, judged.conflicts) == ("supported", ()), claim
    for view, claim in ((digits, "城市面积为四百平方公里"), (digits, "東京の人口は約2000万人である"),
                        (digits, "서울의 인구는 육십만 명이다"), (numerals, "该市人口约七十万人"),
                        (numerals, "城市面积为200平方公里")):
        judged = judge_atoms(claim, view)
        assert judged is not None and judged.conflicts == ("number",), claim


DATED_PAGE = ["The company was founded on 2001-03-12 in Berlin.", "It employs 57 people.",
              "会社は2001年3月12日に設立された。"]


def test_a_date_matches_the_same_day_in_any_order_and_a_changed_day_conflicts() -> None:
    view = _view(DATED_PAGE)
    for written in ("12 March 2001", "March 12, 2001", "12/03/2001", "3/12/2001", "12.03.2001",
                    "2001/3/12", "Mar. 12, 2001", "12th March 2001"):
        judged = judge_atoms(f"The company was founded on {written} in Berlin", view)
        assert judged is not None
        assert (judged.verdict, judged.conflicts) == ("supported", ()), written
    for written in ("2001-12-03", "13 March 2001", "12 March 2002", "12 April 2001", "12/04/2001"):
        judged = judge_atoms(f"The company was founded on {written} in Berlin", view)
        assert judged is not None and judged.conflicts == ("number",), written
    japanese = judge_atoms("会社は2001-03-12に設立された", view)
    assert japanese is not None and (japanese.verdict, japanese.conflicts) == ("supported", ())
    changed = judge_atoms("会社は2001年3月13日に設立された", view)
    assert changed is not None and changed.conflicts == ("number",)


def test_a_sentence_judged_from_its_passages_counts_reads_dates_and_numerals_too() -> None:
    """A one-atom sentence is judged from the citations stage's counts of its passage: its
    date or CJK numeral written otherwise is held there too, a changed one a conflict."""

    def support(text: str, passage: str) -> tuple[str, list[str], list[str]]:
        source = {"index": 1, "kind": "web", "url": "https://example.org/d",
                  "chunks": [{"text": passage}]}
        result = process_answer(orjson.dumps({"answer_id": "a", "text": text,
                                              "sources": [source]}), event_id="t")
        found = result.citations[0].support  # type: ignore[union-attr]
        assert found is not None
        return found.verdict, list(found.conflicts), list(found.missing)

    iso = "The store opened on 2001-03-12 with 40 staff. It sells books and maps."
    named = "The store opened on 12 March 2001 with 40 staff. It sells books and maps."
    assert support("The store opened on 12 March 2001 [1].", iso) == ("supported", [], [])
    assert support("The store opened on 2001-03-12 [1].", named) == ("supported", [], [])
    assert support("The store opened on 2001-12-03 [1].", iso)[1] == ["number"]
    chinese = "该市人口约500000人。城市面积为300平方公里。"
    assert support("该市人口约五十万人[1]。", chinese) == ("supported", [], [])
    assert support("该市人口约七十万人[1]。", chinese)[1] == ["number"]


def _missing(text: str, view: SourceView) -> list[str]:
    """The missing words of `text` judged against `view`, as written."""
    judged = judge_atoms(text, view)
    assert judged is not None
    return [text[start:end] for start, end in judged.missing]


def test_the_words_a_claim_opens_with_are_its_topic_when_the_source_holds_them() -> None:
    """What the sentence opens with, up to its first function word, is what it is about:
    not missing when the source holds every word of it somewhere (a sentence that is not
    the atom's evidence), whatever the rest lacks."""
    view = _view(["Paul Collingwood is an English batsman.", "The club plays at Durham.",
                  "The captain retired from first-class cricket in the autumn."])
    assert _missing("Collingwood retired from county cricket", view) == ["county"]
    # The source lacks the opening word: no topic, it is missing.
    assert _missing("Smith retired from county cricket", view) == ["Smith", "county"]


def test_no_topic_after_a_clause_word_a_number_a_word_the_source_lacks_or_too_many() -> None:
    held = {"film", "receiv", "nomin", "cricket", "score", "studio"}.__contains__

    def topic(text: str) -> int:
        tokens = text.lower().split()
        return _topic(tokens, term_list(tokens, "en"), held)

    assert topic("The film received nominations for best score") == 4
    # A claim that opens with a pronoun says something of it: its first word is said.
    assert topic("He received nominations for best score") == 0
    # A number or date among the opening words is a fact of its own.
    assert topic("In 2019 the film received nominations for") == 0
    # One opening word the source lacks: the opening is no topic.
    assert topic("The film received awards for best score") == 0
    # More content words than a topic holds, or no function word that ends the opening.
    assert topic("The film studio received nominations score for") == 0
    assert topic("The film received nominations") == 0


def test_a_topic_in_text_that_is_not_ascii() -> None:
    view = _view(["Élise Dupont est une actrice française.", "Le club joue à Paris.",
                  "La capitaine a quitté le cricket en automne."])
    assert _missing("Élise a quitté le cricket régional", view) == ["régional"]
    assert _missing("Margaux a quitté le cricket régional", view) == ["Margaux", "régional"]


def test_an_atom_lacking_a_fact_misses_the_fact_not_its_other_words() -> None:
    """Where the source lacks a name or number of the atom, that fact is what it does not
    back: the atom's other words it lacks (the verb and nouns a page words otherwise) are
    not marked beside it."""
    view = _view(["Arnold joined Video Store Magazine in 1991.",
                  "The magazine covers the home entertainment industry."])
    claim = "Arnold was appointed deputy editor of Video Store Magazine in {}"
    assert _missing(claim.format(1993), view) == ["in", "1993"]
    # No fact lacking: the words it lacks are missing, but not its verb beside them
    # (`test_a_verb_the_source_backs_the_clause_of_is_not_missing_beside_other_words`).
    assert _missing(claim.format(1991), view) == ["deputy", "editor"]
    # An atom the source backs nothing of: every word it lacks is missing, its name too.
    assert _missing("Bertrand founded the Lyon Silk Exchange", view) == [
        "Bertrand", "founded", "the", "Lyon", "Silk", "Exchange"]


def test_one_held_word_between_two_missing_words_is_in_their_phrase() -> None:
    """A word the source holds, alone between two missing words, is in the phrase they make
    (`17th century fresco`); not one of two such words, nor one after a function word."""
    view = _view(["The church was built in the century of its founding.",
                  "The altar houses a painting."])
    assert _missing("The altar houses a 17th century fresco", view) == [
        "a", "17th", "century", "fresco"]
    assert _missing("The altar houses a 17th century church fresco", view) == [
        "a", "17th", "fresco"]
    # The same in text that is not ASCII (read word by word).
    view = _view(["L'église est ancienne.", "L'autel abrite une peinture."])
    assert _missing("L'autel abrite une fresque ancienne dorée", view) == [
        "fresque", "ancienne", "dorée"]
    assert _missing("L'autel abrite une fresque ancienne et dorée", view) == [
        "fresque", "et", "dorée"]


def test_a_verb_the_source_backs_the_clause_of_is_not_missing_beside_other_words() -> None:
    """In an atom the source backs (not `unsupported`), a past form of a verb (`-ed`, an
    irregular one) is the event a page words otherwise: the other words it lacks are
    marked, not the verb; the verb alone lacking is. An `unsupported` atom keeps its verb,
    and a language without a rule for its past forms (French) keeps its verbs."""
    view = _view(["Arnold joined Video Store Magazine in 1991.",
                  "The magazine covers the home entertainment industry."])
    assert _missing("Arnold was appointed deputy editor of Video Store Magazine in 1991",
                    view) == ["deputy", "editor"]
    assert _missing("Arnold became deputy editor of Video Store Magazine in 1991",
                    view) == ["deputy", "editor"]
    assert _missing("Arnold was appointed to Video Store Magazine in 1991", view) == [
        "appointed"]
    assert _missing("Bertrand founded the Lyon Silk Exchange", view) == [
        "Bertrand", "founded", "the", "Lyon", "Silk", "Exchange"]
    # Text that is not ASCII (read word by word), in English and in French.
    view = _view(["Arnold joined Vidéo Store Magazine in 1991."])
    assert _missing("Arnold was appointed deputy editor of Vidéo Store Magazine in 1991",
                    view) == ["deputy", "editor"]
    view = _view(["Arnold a rejoint le magazine Vidéo Store en 1991."])
    assert _missing("Arnold a dirigé la rédaction du magazine Vidéo Store en 1991", view) == [
        "dirigé", "la", "rédaction"]


def test_an_atom_the_source_backs_a_quarter_of_at_most_is_missing_whole() -> None:
    """Its missing words are one phrase with every function word between them (no word of
    the clause); an atom the source backs more of is marked word by word."""
    view = _view(["The words on the stone are old.", "Nobody knows who put them there."])
    assert _missing("Accounts vary as to whether the words were carved", view) == [
        "Accounts", "vary", "as", "to", "whether", "the", "carved"]
    assert _missing("Accounts of the stone vary as to whether the words were carved",
                    view) == ["Accounts", "vary"]
    # The same in text that is not ASCII (read word by word).
    view = _view(["Les mots sur la pierre sont anciens."])
    assert _missing("Les récits divergent quant à savoir si les mots furent gravés", view) == [
        "Les", "récits", "divergent", "quant", "à", "savoir", "si", "les", "furent", "gravés"]


def test_a_preposition_and_its_article_between_two_missing_words_are_in_their_phrase() -> None:
    """Two function words between two missing words (`FILL`: a preposition and its
    article, `performance as a fighter pilot`) are missing with them; three are not."""
    view = _view(["Arnold joined Video Store Magazine in 1991.",
                  "The magazine covers the home entertainment industry."])
    claim = "Arnold joined Video Store Magazine in 1991 as editor of {}reviews"
    assert _missing(claim.format(""), view) == ["editor", "of", "reviews"]
    assert _missing(claim.format("the "), view) == ["editor", "of", "the", "reviews"]
    assert _missing(claim.format("all the "), view) == ["editor", "the", "reviews"]
    # The same in text that is not ASCII (read word by word).
    view = _view(["L'autel abrite une peinture du siècle."])
    assert _missing("L'autel abrite une fresque de la chapelle", view) == [
        "fresque", "de", "la", "chapelle"]
