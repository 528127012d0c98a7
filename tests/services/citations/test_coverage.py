"""Coverage: the `isalnum` shortcut for a sentence's first character agrees with the search."""

from __future__ import annotations

import sys

from services.citations.coverage import _WORDISH


def test_isalnum_is_the_wordish_class() -> None:
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert char.isalnum() == bool(_WORDISH.match(char)), hex(code)
