"""Reproductions of the papers' figures and tables, one module per paper.

Each module keeps the published numbers next to their source and returns pandas tables of
measured values beside them; ``tests/round`` holds the tolerances.
"""
