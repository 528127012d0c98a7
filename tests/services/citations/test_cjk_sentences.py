"""Chinese and Japanese sentence ends, markers before and after them."""

from __future__ import annotations

import pytest

from services.text.extraction import extract
from tests.services.citations.helpers import sources


def sentences(text: str) -> list[tuple[str, list[int]]]:
    extraction = extract(text, sources(5))
    return [
        (s.text, [extraction.citations[i].id for i in s.citations]) for s in extraction.sentences
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "东京是日本的首都[1]。大阪是第二大城市。[2]京都很古老！你去过吗？",
            [
                ("东京是日本的首都[1]。", [1]),
                ("大阪是第二大城市。[2]", [2]),
                ("京都很古老！", []),
                ("你去过吗？", []),
            ],
        ),
        (
            "富士山は日本で一番高い山です。[3]標高は３７７６メートルです［4］。",
            [("富士山は日本で一番高い山です。[3]", [3]), ("標高は３７７６メートルです［4］。", [4])],
        ),
        (
            "彼は「今日はいい天気だ。」と言った。[2] 次の文です。",
            [("彼は「今日はいい天気だ。」と言った。[2]", [2]), ("次の文です。", [])],
        ),
        (
            "Paris is in France.[1] 北京是中国的首都。[2] Tokyo is large.",
            [("Paris is in France.[1]", [1]), ("北京是中国的首都。[2]", [2]), ("Tokyo is large.", [])],
        ),
        ("数值是１．５米。很好。", [("数值是１．５米。", []), ("很好。", [])]),
        ("本当ですか？！はい。¹", [("本当ですか？！", []), ("はい。¹", [1])]),
        ("서울은 한국의 수도입니다.[1] 부산은 항구 도시입니다.", [
            ("서울은 한국의 수도입니다.[1]", [1]), ("부산은 항구 도시입니다.", [])]),
    ],
)
def test_cjk_sentences(text: str, expected: list[tuple[str, list[int]]]) -> None:
    assert sentences(text) == expected
