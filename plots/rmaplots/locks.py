"""Lock table figures: throughput against ranks (thesis Fig 5.5), latency breakdowns (Fig 5.6),
remote lock probability (Fig 5.7) and the model table (Table 5.1), one line, bar or table row per
configuration (rmaplots.config): workload, isolation (TPC-C only), server split, transport,
checking, MPI library and the rest."""
import numpy as np

from . import config, data, regimes, scaling, style

TXN_PARTS = [("lock", "lat_txn_lock_us"), ("data", "lat_txn_data_us"), ("vote", "lat_txn_vote_us"),
             ("end", "lat_txn_end_us")]
REQ_PARTS = [("rtt", "lat_req_rtt_us"), ("queue", "lat_req_queue_us"), ("server", "lat_req_server_us")]


def _prob(r):
    return data.num(r, "remote_prob") or 0.0


def fig_scaling(rows):
    """Fig 5.5: (a) transactions/s and (b) lock requests/s against ranks, one line per configuration."""
    ls = data.locks(rows)
    if not ls:
        return style.Drawn(skipped="no lock runs: lock throughput figure (Fig 5.5) skipped")
    ss, _ = config.series(ls, config.LOCK_RANKS)
    drawn, notes, hidden = scaling.sweeps(ss, "scaling")
    machine = regimes.Machine(data.locks(rows))  # the states every lock run of the report met
    fig, axes = style.figure(ncols=2, width=5.0, height=3.6)
    for ax, col, what in ((axes[0], "commits_per_s", "transactions"), (axes[1], "lock_requests_per_s", "lock requests")):
        pts = style.lines(ax, drawn, col, 1e-6, by="", machine=machine)
        style.ranks_axis(ax, [x for s in drawn for x in s.points])
        ax.set_xlabel("MPI ranks (servers + agents)")
        ax.set_ylabel(f"{what} [M/s]")
        ax.set_title(f"{what} throughput", fontsize=9)
        ax.grid(alpha=0.3)
    flags = style.flag_handles(machine, pts)
    fig.set_figheight(3.6 + style.legend_height(style.entries(len(drawn), flags)))
    style.legend(axes[0], axes=axes[:1], below=True, extra=flags)
    style.title(fig, f"Lock table throughput (cf. Fig 5.5); {data.RUNS_TEXT}; {style.runs_text(pts)}")
    style.note(fig, notes)
    shared = config.shared([s.config for s in drawn])
    return style.Drawn(fig, shown=[s.label for s in drawn], shared=config.describe(shared),
                       notes=notes + style.flag_notes(machine, drawn, pts), hidden=hidden)


def _stack(ax, labels, groups, parts, normalise=None):
    y = np.arange(len(groups))
    left = np.zeros(len(groups))
    for name, col in parts:
        w = np.array([data.median(data.values(g, col)) or 0.0 for g in groups])
        if normalise is not None:
            w = w / normalise
        ax.barh(y, w, 0.6, left=left, label=name, color=style.PHASE_COLORS.get(name))
        left += w
    ax.set_yticks(y, labels, fontsize=7)


def rtt_col(rows):
    """The request round trip a reading compares: the median over a run's requests where the rows have
    it (a descheduled agent's requests do not move it), else the mean."""
    return "lat_req_rtt_median_us" if data.values(rows, "lat_req_rtt_median_us") else "lat_req_rtt_us"


class RoundTrip:
    """A configuration's lock request round trip beside the machine's floor: medians over its runs and
    the runs' range (rtt, rtt_lo, rtt_hi; floor, floor_lo, floor_hi), and its regimes.Point."""

    def __init__(self, rows, machine):
        col = rtt_col(rows)
        rt, fl = data.values(rows, col), [v for v in (regimes.floor_us(r) for r in rows) if v is not None]
        self.rtt, self.rtt_lo, self.rtt_hi = data.median(rt), min(rt, default=None), max(rt, default=None)
        self.floor, self.floor_lo, self.floor_hi = data.median(fl), min(fl, default=None), max(fl, default=None)
        self.point, self.n = machine.point(rows), len(rows)
        self.disturbed = [v for v in (regimes.floor_disturbed(r) for r in rows) if v is not None]


def reading(ref, cur, machine):
    """How cur's round trip differs from ref's, and what explains it: the machine's floor where the two
    met different states of it (the change of the floor within the runs' spread of the change of the
    round trip), the runs' own spread where their ranges overlap, else the configuration."""
    if cur.rtt is None or ref.rtt is None:
        return ""
    d = cur.rtt - ref.rtt
    spread = max(cur.rtt_hi - cur.rtt_lo, ref.rtt_hi - ref.rtt_lo)
    if cur.point.slow != ref.point.slow and cur.floor is not None and ref.floor is not None:
        df = cur.floor - ref.floor
        if abs(d - df) <= max(0.25 * abs(d), spread):
            return (f"round trip {d:+.2f} us with the floor {df:+.2f} us: the machine's state explains it, "
                    "not the configuration")
        return f"round trip {d:+.2f} us, the floor {df:+.2f} us of it (the machine's state); {d - df:+.2f} us beyond"
    if cur.rtt_lo <= ref.rtt_hi and ref.rtt_lo <= cur.rtt_hi:
        return f"round trip {d:+.2f} us: within the runs' spread"
    if cur.floor is None or ref.floor is None:
        return f"round trip {d:+.2f} us (no floor measured: the machine's state unknown)"
    return f"round trip {d:+.2f} us with the floor in the same state: the configuration's"


def readings(series, machine):
    """[(series, RoundTrip, reading)]: each configuration against the nearest one before it (in the
    series' order) of the same workload, isolation and rank count whose floor was in the faster state
    in all its runs (measured, where any of them was),
    the fewest configuration columns apart; the reading names that configuration by those columns. ''
    for the first of each group (nothing before it to compare with)."""
    trips = [(s, RoundTrip(s.rows, machine)) for s in series]
    key = lambda c: (c.get("workload"), c.get("isolation"), c.get("ranks"))  # noqa: E731
    out = []
    for i, (s, t) in enumerate(trips):
        peers = [(j, u, v) for j, (u, v) in enumerate(trips[:i]) if key(u.config) == key(s.config)
                 and not v.point.slow and not v.point.mixed]
        peers = [p for p in peers if p[2].floor is not None] or peers  # one whose floor was measured, where one was
        if not peers:
            out.append((s, t, ""))
            continue
        cols = lambda u: [c for c, v in s.config.items() if u.config.get(c) != v]  # noqa: E731
        _, u, ref = min(peers, key=lambda p: (len(cols(p[1])), -p[0]))
        name = config.label(u.config, cols(u), [x.config for x in series]) or "the configuration before"
        out.append((s, t, f"against {name}: {reading(ref, t, machine)}"))
    return out


def explained(text):
    """Whether a reading says the machine's state or the runs' spread explains the difference."""
    return "explains it" in text or "spread" in text


def floor_marks(axes, ax, trips, machine, median):
    """Beside each request bar of ax (at y = 0, 1, ...; trips: its RoundTrip each) the machine's floor
    (a diamond) and, where the rows have it (median), the median round trip (a bar); a row whose runs
    met the machine's slower floor is shaded in every axes of axes. Returns the legend entry of the
    shading (none when no row is shaded)."""
    fl = [(i, t) for i, t in enumerate(trips) if t.floor is not None]
    if fl:
        ax.plot([t.floor for _, t in fl], [i for i, _ in fl], linestyle="none", marker="D", color="black",
                markersize=5, label="cache-line floor (median of the runs)", zorder=4)
    rt = [(i, t) for i, t in enumerate(trips) if t.rtt is not None]
    if rt and median:
        ax.plot([t.rtt for _, t in rt], [i for i, _ in rt], linestyle="none", marker="|", color="black",
                markersize=12, markeredgewidth=2, label="median round trip", zorder=4)
    slow = [i for i, t in enumerate(trips) if t.point.slow or t.point.mixed]
    for a in axes:
        for i in slow:
            a.axhspan(i - 0.45, i + 0.45, color=style.SHADE, zorder=0)
    return [(f"shaded row: the machine's slower state,\n{machine.regimes['floor'].text()}", style.shade_handle())] if slow else []


def fig_latency(rows):
    """Fig 5.6: (a) transaction latency by phase, (b) lock request latency with the machine's floor and
    the median round trip beside each bar, at the largest rank count, one bar per configuration (named
    by the columns that differ between the bars). A bar whose runs met the machine's slower floor is
    shaded, and a note says what explains each bar's round trip against its workload's first."""
    ls = [r for r in data.locks(rows) if data.num(r, "lat_txn_lock_us") is not None]
    if not ls:
        return style.Drawn(skipped="no lock runs with latency columns: latency breakdown (Fig 5.6) skipped")
    ranks = max(int(data.num(r, "ranks")) for r in ls)
    ss, legend = config.series([r for r in ls if int(data.num(r, "ranks")) == ranks], config.POINT)
    labels = [s.label for s in ss]
    groups = [s.rows for s in ss]
    machine = regimes.Machine(data.locks(rows))
    read = readings(ss, machine)
    notes = [f"{s.label or 'the only configuration'}: {t}" for s, _, t in read if explained(t)]
    # (a) names the bars at its left: room for the longest name beside two panels of 3.5 in and legends
    names = style.text_inches(max(len(lab) for lab in labels), 7)
    fig, axes = style.figure(ncols=2, width=4.8 + names / 2, height=max(2.5, 0.35 * len(ss) + 1.5))
    _stack(axes[0], labels, groups, TXN_PARTS)
    axes[0].set_xlabel("transaction latency [us] (median of runs)")
    axes[0].set_title(f"(a) transaction, {style.count(ranks, 'rank')}", fontsize=9)
    _stack(axes[1], [""] * len(labels), groups, REQ_PARTS)
    extra = floor_marks(axes, axes[1], [t for _, t, _ in read], machine, rtt_col(ls) == "lat_req_rtt_median_us")
    axes[1].set_xlabel("lock request latency [us] (median of runs)")
    axes[1].set_title("(b) lock request (same rows as (a))", fontsize=9)
    style.legend(axes[0])
    style.legend(axes[1], extra=extra)
    for ax in axes:
        ax.grid(axis="x", alpha=0.3)
    style.note(fig, notes)
    shared = config.shared([s.config for s in ss])
    return style.Drawn(fig, shown=labels, shared=config.describe(shared), notes=notes)


def remote_series(rows):
    """(series of the REMOTE view run at two or more remote probabilities, series whose runs all
    measured remote share 0: a sweep over nothing, e.g. one server holds every lock)."""
    ss, _ = config.series(data.locks(rows), config.REMOTE)
    ss = [s for s in ss if len(s.points) > 1]
    config.relabel(ss)
    flat = [s for s in ss if all(data.num(r, "remote_share") == 0 for r in s.rows)]
    return config.relabel([s for s in ss if s not in flat]), flat


def _why_flat(s):
    servers = {r.get("servers", "") for r in s.rows}
    one = servers == {"1"}
    return (f"{s.label or 'the only sweep'}: every run measured remote share 0"
            + (" (1 server: every lock is local)" if one else "") + ", so the remote-probability sweep is not drawn")


def fig_remote(rows):
    """Fig 5.7: (a) throughput and (b) execution time normalised to the lowest remote probability,
    against the remote lock probability; sweeps whose runs measured no remote lock are not drawn, and
    the figure says so."""
    ss, flat = remote_series(rows)
    notes = [_why_flat(s) for s in flat]
    if not ss:
        return style.Drawn(skipped="no lock runs at several remote probabilities with remote locks: "
                                   "remote-access figure (Fig 5.7) skipped" + (f" ({'; '.join(notes)})" if notes else ""))
    machine = regimes.Machine(data.locks(rows))
    fig, axes = style.figure(ncols=2, width=5.0, height=3.6)
    for s in ss:  # the x axis in percent
        s.points = {100 * p: rs for p, rs in s.points.items()}
    pts = style.lines(axes[0], ss, "commits_per_s", 1e-6, by="", machine=machine)
    flags = style.flag_handles(machine, pts)
    fig.set_figheight(3.6 + style.legend_height(style.entries(len(ss), flags)))
    marks = style.flag_notes(machine, ss, pts, "% remote")
    axes[0].set_xlabel("remote lock probability [%]")
    axes[0].set_ylabel("transactions [M/s]")
    axes[0].set_title("(a) transaction throughput", fontsize=9)
    axes[0].grid(alpha=0.3)
    style.legend(axes[0], below=True, extra=flags)
    # (b) for the configuration with the most ranks: stacked phases / total at the lowest probability
    key = max(ss, key=lambda s: (data.num(s.rows[0], "ranks") or 0, len(s.points)))
    groups = list(key.points.values())
    base = sum(data.median(data.values(groups[0], c)) or 0.0 for _, c in TXN_PARTS) or 1.0
    _stack(axes[1], [f"{p:g}%" for p in key.points], groups, TXN_PARTS, normalise=base)
    axes[1].set_xlabel(f"execution time normalised to {min(key.points):g}% remote")
    axes[1].set_ylabel("remote lock probability")
    ranks = int(data.num(key.rows[0], "ranks"))
    axes[1].set_title(f"(b) {key.label + ', ' if key.label else ''}{style.count(ranks, 'rank')}", fontsize=8)
    axes[1].grid(axis="x", alpha=0.3)
    style.legend(axes[1], below=True)
    style.title(fig, f"Remote lock probability (cf. Fig 5.7); {data.RUNS_TEXT}; {style.runs_text(pts)}")
    style.note(fig, notes)
    shared = config.shared([s.config for s in ss])
    return style.Drawn(fig, shown=[s.label for s in ss], shared=config.describe(shared), notes=notes + marks,
                       hidden=[s.label for s in flat])


def model_table(rows):
    """Table 5.1: [(configuration label, ranks, agents, prob, predicted us, predicted tx/s, measured
    tx/s, measured remote share)] of the runs with --model predictions, per configuration (the
    parameters file included) and remote probability."""
    ls = [r for r in data.locks(rows) if data.num(r, "model_t_tx_us") is not None]
    ss, legend = config.series(ls, config.LOCK_MODEL)
    out = []
    for s in ss:
        for p, v in s.points.items():
            out.append((s.label if len(ss) > 1 else "", int(data.num(v[0], "ranks")),
                        data.median(data.values(v, "agents")), p or 0.0,
                        data.median(data.values(v, "model_t_tx_us")), data.median(data.values(v, "model_throughput")),
                        data.median(data.values(v, "commits_per_s")), data.median(data.values(v, "remote_share"))))
    return out
