"""The spans stage: answer units resolved to exact source spans, with locators."""
