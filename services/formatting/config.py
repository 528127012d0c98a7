"""Which renderings mark the answer's unsupported words, chosen by configuration:
`CITEFLOW_MARK_MISSING`, a comma-separated list of rendering names (`html`, `markdown`,
`plain`), or `all` or `none`. Unset: `html` only (an element with a class, inert until a
page styles it); markdown and plain text change what a reader sees (`{==word==}`), so they
are marked only when asked for. Anything else is a configuration error, raised at the
stage's first answer.
"""

from __future__ import annotations

import os
from functools import cache

from schemas.answers import ALL_RENDERINGS

MARK_MISSING_VARIABLE = "CITEFLOW_MARK_MISSING"
DEFAULT_MARKED = frozenset({"html"})


class MarkMissingConfigError(ValueError):
    """`CITEFLOW_MARK_MISSING` names something other than renderings."""


def marked_from_setting(setting: str) -> frozenset[str]:
    """The renderings a `CITEFLOW_MARK_MISSING` value names (see the module docstring)."""
    names = {name.strip() for name in setting.split(",")} - {""}
    if not names:
        return DEFAULT_MARKED
    if names == {"all"}:
        return frozenset(ALL_RENDERINGS)
    if names == {"none"}:
        return frozenset()
    unknown = names - set(ALL_RENDERINGS)
    if unknown:
        raise MarkMissingConfigError(
            f"{MARK_MISSING_VARIABLE}={setting!r}: expected rendering names "
            f"({', '.join(ALL_RENDERINGS)}), 'all' or 'none'"
        )
    return frozenset(names)


@cache
def configured_marks() -> frozenset[str]:
    """The renderings that mark unsupported words in this process."""
    return marked_from_setting(os.environ.get(MARK_MISSING_VARIABLE, ""))
