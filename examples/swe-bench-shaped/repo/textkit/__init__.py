"""textkit: small helpers for numbers and text, each with one bug (one SWE-bench-shaped task each)."""
