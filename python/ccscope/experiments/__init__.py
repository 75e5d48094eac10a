"""Reproductions of the papers' figures and tables, one module per paper.

Each module keeps the published numbers next to their source and returns pandas tables of
measured values beside them; ``tests/round`` holds the tolerances.
"""

#: Reproductions of the papers' media results by their `ccscope reproduce` IDs: the function
#: each runs, as "module.function" under ccscope.experiments (imported only when run). Each
#: takes ``quick: bool = False`` and returns a list of :class:`claims.Claim`.
MEDIA = {
    "cai-table1": "cai.table1",
    "cai-fig16": "cai.fig16",
    "cai-fig17": "cai.fig17",
    "cai-eq35": "cai.eq35",
    "papadimitriou-fig3": "papadimitriou.fig3",
    "papadimitriou-fig4-8": "papadimitriou.fig4_8",
    "jin-table5": "jin.table5",
    "yang-onoff": "yang.onoff",
    "yang-fig27-29": "yang.fig27_29",
}
