"""The spans stage: answer units resolved to exact source spans, with locators (SPEC §4.4)."""
