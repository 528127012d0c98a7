"""The spans stage logic: `answer.cited` in, `answer.resolved` out. Pure."""

from __future__ import annotations

from schemas.base import Problem
from schemas.citations import AnswerCited
from schemas.construct import construct
from schemas.rows import row
from schemas.spans import AnswerResolved, SpanResolution
from schemas.trusted import passed_on
from services.spans.links import build_links
from services.spans.locators import Locators
from services.spans.search import QuoteFinder
from services.spans.sections import SectionIndex
from services.spans.support import citation_support
from services.spans.units import UnitContext, sentence_units, upstream_units
from services.verification.config import configured_judge
from services.verification.judges import Judge


def resolve_answer(cited: AnswerCited, judge: Judge | None = None) -> AnswerResolved:
    """Resolve the answer's units to exact source spans and its passages to links, and
    judge every valid citation's support (`judge`: the configured one by default).

    Units come from `answer_units` when upstream sent any, else from the sentences.
    """
    # The answer is read as its field values (a record read back holds its JSON: rebuilding
    # it as models costs more than the stage reads) and written out again as it came.
    answer = passed_on(cited, "answer")
    index = SectionIndex.from_sources(row(answer)["sources"])
    finder = QuoteFinder(index.pieces)
    locators = Locators()
    problems: list[Problem] = []
    ctx = UnitContext(answer, cited.extraction, finder, index, locators, problems)
    units = (
        upstream_units(ctx, ctx.answer_units) if ctx.answer_units else sentence_units(ctx)
    )
    links = build_links(cited, index, finder, locators)
    support, quality = citation_support(
        ctx, index.pieces, units, judge or configured_judge()
    )
    # Upstream fields are validated models already: passed through, not revalidated.
    return construct(
        AnswerResolved,
        {
            "answer": answer,
            "scores": passed_on(cited, "scores"),
            "passage_sources": passed_on(cited, "passage_sources"),
            "extraction": cited.extraction,
            "resolution": construct(
                SpanResolution,
                {
                    "units": units,
                    "links": links,
                    "problems": problems,
                    "support": support,
                    "quality": quality,
                },
            ),
        },
    )
