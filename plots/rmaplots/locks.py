"""Lock table figures: throughput against cores per isolation level (thesis Fig 5.5), latency
breakdowns (Fig 5.6), remote lock probability (Fig 5.7) and the model table (Table 5.1)."""
import numpy as np

from . import data, style

TXN_PARTS = [("lock", "lat_txn_lock_us"), ("data", "lat_txn_data_us"), ("vote", "lat_txn_vote_us"),
             ("end", "lat_txn_end_us")]
REQ_PARTS = [("rtt", "lat_req_rtt_us"), ("queue", "lat_req_queue_us"), ("server", "lat_req_server_us")]


def _prob(r):
    return data.num(r, "remote_prob") or 0.0


def scaling_rows(rows):
    """{(workload, isolation): rows at the remote probability that covers the most rank counts}."""
    out = {}
    for key, g in data.group(data.locks(rows), lambda r: (r["workload"], r["isolation"])).items():
        byp = data.group(g, _prob)
        p = max(byp, key=lambda k: (len({r["ranks"] for r in byp[k]}), -k))
        out[key] = byp[p]
    return out


def fig_scaling(rows):
    """Fig 5.5: (a) transactions/s and (b) lock requests/s against cores, one line per isolation level."""
    series = scaling_rows(rows)
    if not series:
        return None, "no lock runs: lock throughput figure (Fig 5.5) skipped"
    fig, axes = style.figure(ncols=2)
    for ax, col, what in ((axes[0], "commits_per_s", "transactions"), (axes[1], "lock_requests_per_s", "lock requests")):
        for (wl, iso), g in series.items():
            by = data.group(g, lambda r: int(data.num(r, "ranks")))
            ms = [data.mean_ci95(data.values(v, col)) for v in by.values()]
            pts = [(k, m, c) for k, (m, c) in zip(by, ms) if m is not None]
            if pts:
                ax.errorbar([p[0] for p in pts], [p[1] / 1e6 for p in pts], yerr=[p[2] / 1e6 for p in pts],
                            marker="o", capsize=3, color=style.COLORS.get(iso), label=f"{wl}, {iso}")
        ax.set_xlabel("cores (MPI ranks: servers + agents)")
        ax.set_ylabel(f"{what} [M/s]")
        ax.set_title(f"{what} throughput (mean, 95% CI)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return fig, None


def _stack(ax, labels, groups, parts, normalise=None):
    y = np.arange(len(groups))
    left = np.zeros(len(groups))
    for name, col in parts:
        w = np.array([data.median(data.values(g, col)) or 0.0 for g in groups])
        if normalise is not None:
            w = w / normalise
        ax.barh(y, w, 0.6, left=left, label=name, color=style.PHASE_COLORS.get(name))
        left += w
    ax.set_yticks(y, labels)


def fig_latency(rows):
    """Fig 5.6: (a) transaction latency by phase, (b) lock request latency, at the largest rank count."""
    ls = [r for r in data.locks(rows) if data.num(r, "lat_txn_lock_us") is not None]
    if not ls:
        return None, "no lock runs with latency columns: latency breakdown (Fig 5.6) skipped"
    ranks = max(int(data.num(r, "ranks")) for r in ls)
    ls = [r for r in ls if int(data.num(r, "ranks")) == ranks]
    g = data.group(ls, lambda r: (r["workload"], r["isolation"], _prob(r)))
    labels = [f"{w}, {i}, p={p:g}" for w, i, p in g]
    fig, axes = style.figure(ncols=2, height=max(2.5, 0.45 * len(g) + 1.5))
    _stack(axes[0], labels, list(g.values()), TXN_PARTS)
    axes[0].set_xlabel("transaction latency [us] (median of runs)")
    axes[0].set_title(f"(a) transaction, {ranks} ranks")
    _stack(axes[1], labels, list(g.values()), REQ_PARTS)
    axes[1].set_xlabel("lock request latency [us] (median of runs)")
    axes[1].set_title("(b) lock request")
    for ax in axes:
        ax.legend(fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    return fig, None


def remote_rows(rows):
    """{(workload, isolation, ranks): rows} of the configurations run at several remote probabilities."""
    g = data.group(data.locks(rows), lambda r: (r["workload"], r["isolation"], int(data.num(r, "ranks"))))
    return {k: v for k, v in g.items() if len({_prob(r) for r in v}) > 1}


def fig_remote(rows):
    """Fig 5.7: (a) throughput and (b) execution time normalised to only-local locks, against the
    remote lock probability."""
    series = remote_rows(rows)
    if not series:
        return None, "no lock runs at several remote probabilities: remote-access figure (Fig 5.7) skipped"
    fig, axes = style.figure(ncols=2)
    for (wl, iso, ranks), g in series.items():
        by = data.group(g, _prob)
        ms = [data.mean_ci95(data.values(v, "commits_per_s")) for v in by.values()]
        axes[0].errorbar([100 * p for p in by], [(m or 0) / 1e6 for m, _ in ms], yerr=[(c or 0) / 1e6 for _, c in ms],
                         marker="o", capsize=3, label=f"{wl}, {iso}, {ranks} ranks")
    axes[0].set_xlabel("remote lock probability [%]")
    axes[0].set_ylabel("transactions [M/s]")
    axes[0].set_title("(a) transaction throughput (mean, 95% CI)")
    axes[0].legend(fontsize=8)
    axes[0].grid(alpha=0.3)
    # (b) for the configuration with the most ranks: stacked phases / total at the lowest probability
    key = max(series, key=lambda k: (k[2], len(series[k])))
    by = data.group(series[key], _prob)
    groups = list(by.values())
    base = sum(data.median(data.values(groups[0], c)) or 0.0 for _, c in TXN_PARTS) or 1.0
    _stack(axes[1], [f"{100 * p:g}%" for p in by], groups, TXN_PARTS, normalise=base)
    axes[1].set_xlabel(f"execution time normalised to {100 * min(by):g}% remote")
    axes[1].set_ylabel("remote lock probability")
    axes[1].set_title(f"(b) {key[0]}, {key[1]}, {key[2]} ranks")
    axes[1].legend(fontsize=8)
    axes[1].grid(axis="x", alpha=0.3)
    return fig, None


def model_table(rows):
    """Table 5.1: [(workload, isolation, ranks, agents, prob, predicted us, predicted tx/s, measured tx/s)]."""
    out = []
    for (wl, iso, ranks), g in remote_rows(rows).items() or data.group(
            data.locks(rows), lambda r: (r["workload"], r["isolation"], int(data.num(r, "ranks")))).items():
        for p, v in data.group(g, _prob).items():
            out.append((wl, iso, ranks, data.median(data.values(v, "agents")), p,
                        data.median(data.values(v, "model_t_tx_us")), data.median(data.values(v, "model_throughput")),
                        data.median(data.values(v, "commits_per_s"))))
    return out
