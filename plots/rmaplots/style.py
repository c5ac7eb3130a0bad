"""Saving figures: every figure as PNG and PDF, one style."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import safeio  # noqa: E402

COLORS = {"radix": "#1f77b4", "sortmerge": "#d62728", "serializable": "#2ca02c", "read-committed": "#9467bd"}
PHASE_COLORS = {"histogram": "#4e79a7", "window_alloc": "#f28e2b", "network_partition": "#e15759",
                "local_partition": "#76b7b2", "build_probe": "#59a14f", "partition": "#4e79a7", "sort": "#e15759",
                "merge": "#76b7b2", "match": "#59a14f", "imbalance": "#bab0ac", "put": "#edc948", "flush": "#b07aa1",
                "lock": "#4e79a7", "data": "#59a14f", "vote": "#f28e2b", "end": "#e15759", "rtt": "#4e79a7",
                "queue": "#f28e2b", "server": "#59a14f"}


def figure(ncols=1, width=6.0, height=4.0):
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes[0])


def save(fig, outdir, name):
    """Writes NAME.png and NAME.pdf, each whole or not at all and only over a regular file
    (safeio.write_output); returns the PNG's file name (relative to outdir)."""
    try:
        fig.tight_layout()
        for ext in ("png", "pdf"):
            safeio.write_output(os.path.join(outdir, f"{name}.{ext}"),
                                lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=120))
    finally:
        plt.close(fig)
    return f"{name}.png"
