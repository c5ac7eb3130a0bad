"""Figures and report for rmabench results; one module per figure family:
data (CSV loading, medians, confidence intervals), style (saving PNG+PDF), scaling (Figs 4.2, 4.6),
breakdown (Figs 4.3a, 4.4a), model (Table 4.2, Fig 3.15), inputsize (Table 4.1),
locks (Figs 5.5, 5.6, 5.7, Table 5.1), report (Markdown)."""
