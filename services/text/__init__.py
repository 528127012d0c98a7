"""Text utilities shared by several stages (offsets, normalisation, lexical similarity)."""
