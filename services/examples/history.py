"""A small history for the demo's dashboard: answers from two models spread over the last
hours, most sound, some with the problems citeflow reports (a citation of a source that does
not exist, a quote the source does not hold, a claim the source does not support, an uncited
sentence) and two submissions that are rejected, built over the demo answer's own sources;
and a few answers in German, Chinese and Arabic over sources in their languages, one citing
across languages."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

DEMO_ANSWER = Path(__file__).resolve().parent / "demo_answer.json"
MODELS = ("example-llm", "example-llm-mini")
HISTORY_PREFIX = "history-"
HOURS = 6
QUOTE_NOT_IN_SOURCE = "the great grey widow of the world"
COUNT = 24

# (text, problem it shows or None); [1] and [2] cite the demo answer's first two sources.
SOUND = (
    'Ishmael goes to sea whenever he finds himself "growing grim about the mouth" [1].',
    "Going to sea is Ishmael's substitute for pistol and ball [1].",
    "Almost all men cherish very nearly the same feelings towards the ocean [1][2].",
    "The study reads the voyage as Ishmael's cure [2].",
    'Ishmael says it is "a way I have of driving off the spleen" [1].',
)
FLAWED = (
    ("Ishmael goes to sea to escape his debts [1]. He sails with Ahab [5].", "invalid citation"),
    ('Ishmael calls the sea "the great grey widow of the world" [1].', "quote not in the source"),
    ("Ishmael first sailed as a harpooneer in 1841 [2].", "unsupported claim"),
    ("Ishmael goes to sea when he feels grim [1]. Melville wrote the novel in Pittsfield.",
     "uncited sentence"),
)

# Answers in other languages over sources in theirs (and one citing across languages), so
# the dashboard's breakdown by language has shape: (text, source title, source text).
OTHER_LANGUAGES = (
    ("Ismael fährt zur See, wenn er trübsinnig wird [1].", "Moby Dick (deutsch)",
     "Immer wenn Ismael trübsinnig wird, fährt er zur See; die Seefahrt ist sein Ersatz für "
     "Pistole und Kugel."),
    ("以实玛利每当心情阴郁时就出海[1]。", "白鲸（中文）",
     "每当以实玛利心情阴郁的时候，他就出海航行；航海是他代替手枪和子弹的办法。"),
    ("يبحر إسماعيل كلما شعر بالكآبة [1].", "موبي ديك",
     "كلما شعر إسماعيل بالكآبة أبحر في البحر؛ فالإبحار عنده بديل عن المسدس والرصاصة."),
    ("Ishmael goes to sea whenever he feels gloomy [1].", "白鲸（中文）",
     "每当以实玛利心情阴郁的时候，他就出海航行。"),
)


@dataclass(frozen=True)
class Entry:
    """One answer of the history: its data, who answered, when, and how long it took."""

    answer: dict[str, Any]
    model: str
    submitted_at: datetime
    latency_s: float


def history(now: datetime, run: str, seed: int = 7) -> tuple[list[Entry], list[Entry]]:
    """(answers, rejected submissions) for a history ending at `now`; ids start with
    HISTORY_PREFIX and carry `run`."""
    base = orjson.loads(DEMO_ANSWER.read_bytes())
    sources = base["sources"][:2]
    pick = random.Random(seed)
    answers = []
    for n in range(COUNT):
        model = MODELS[n % 2]
        # the smaller model gets more of the flawed answers
        flawed = pick.random() < (0.25 if model == MODELS[0] else 0.5)
        text = pick.choice(FLAWED)[0] if flawed else " ".join(pick.sample(SOUND, 2))
        quoted = QUOTE_NOT_IN_SOURCE in text
        at = now - timedelta(hours=HOURS) + timedelta(minutes=n * HOURS * 60 / COUNT
                                                      + pick.uniform(0, 10))
        answers.append(Entry(
            {"answer_id": f"{HISTORY_PREFIX}{run}-{n:02d}", "query": base["query"], "text": text,
             "sources": sources, "metadata": {"tenant": "demo", "model": model},
             # the model said it quoted source 1: citeflow does not find the quote there
             "answer_units": [{"id": "q1", "text": text, "kind": "verbatim", "source_indexes": [1],
                               "quote": QUOTE_NOT_IN_SOURCE}] if quoted else None},
            model, at, pick.uniform(0.4, 2.5) * (1.6 if model == MODELS[1] else 1.0)))
    for n, (text, title, passage) in enumerate(OTHER_LANGUAGES):
        model = MODELS[n % 2]
        at = now - timedelta(hours=HOURS) + timedelta(minutes=(n + 0.5) * HOURS * 60
                                                      / len(OTHER_LANGUAGES))
        answers.append(Entry(
            {"answer_id": f"{HISTORY_PREFIX}{run}-l{n}", "text": text,
             "sources": [{"index": 1, "kind": "document", "title": title,
                          "chunks": [{"text": passage}]}],
             "metadata": {"tenant": "demo", "model": model}},
            model, at, pick.uniform(0.4, 2.5)))
    rejected = [
        Entry({"answer_id": f"{HISTORY_PREFIX}{run}-r{n}", "text": "Ishmael goes to sea [1].",
               "sources": [{"kind": "web", "url": "https://example.org/moby"}],
               "metadata": {"tenant": "demo", "model": MODELS[1]}},
              MODELS[1], now - timedelta(hours=HOURS * (n + 1) / 3), 0.0)
        for n in range(2)
    ]
    return answers, rejected
