"""The numbers the thesis gives (seed 004: its tables, and the peaks its text quotes), with the machine
they were measured on. Chapter 3 ran on two InfiniBand clusters (QDR and FDR, 8 cores per machine),
chapters 4 and 5 on a Cray XC40 (Aries). A figure or table shows them beside ours under LABEL of
their machine; they are never pooled with our rows."""

ARIES = "thesis: Cray XC40, Aries"
FDR = "thesis: FDR InfiniBand cluster"

# Table 4.1: 1024 cores, tuples of R/S per core, output per core, radix and sort-merge time [s] and
# the half-width of their 95% CI
TABLE_4_1 = [  # (R per core, S per core, output per core, radix s, +-, sort-merge s, +-)
    (40e6, 40e6, 40e6, 4.34, 0.15, 5.70, 0.14),
    (20e6, 40e6, 40e6, 3.45, 0.15, 4.67, 0.23),
    (10e6, 40e6, 40e6, 2.88, 0.29, 3.83, 0.27),
    (10e6, 40e6, 20e6, 2.92, 0.10, 3.75, 0.25),
    (10e6, 40e6, 10e6, 2.91, 0.18, 3.87, 0.41),
]

# Table 4.2: 1024 cores, 40M tuples per relation and core: phase -> (measured s, model s or None)
TABLE_4_2 = {
    "radix": {"histogram": (0.34, 0.36), "window_alloc": (0.21, None), "network_partition": (2.08, 0.67),
              "local_partition": (0.58, 0.67), "build_probe": (0.51, 0.38), "imbalance": (0.62, None),
              "total": (4.34, 2.08)},
    "sortmerge": {"partition": (1.20, 1.00), "window_alloc": (0.06, None), "sort": (1.99, 1.78),
                  "merge": (1.81, 1.78), "match": (0.26, 0.22), "imbalance": (0.38, None), "total": (5.70, 4.78)},
}

# Table 5.1: remote lock probability -> predicted transaction time [us]; per concurrent transactions
# (agents): predicted and measured throughput [M transactions/s]
TABLE_5_1_PROBS = (0.0, 0.01, 0.05, 0.10, 0.25, 0.50)
TABLE_5_1_TIME_US = (67.500, 68.833, 73.511, 78.236, 88.521, 101.992)
TABLE_5_1 = {1260: {"predicted": (18.67, 18.31, 17.14, 16.11, 14.23, 12.35),
                    "measured": (19.70, 18.03, 14.91, 12.66, 8.81, 6.36)},
             2520: {"predicted": (37.33, 36.61, 34.28, 32.21, 28.47, 24.71),
                    "measured": (39.39, 36.26, 30.19, 26.47, 19.94, 13.99)}}

# Table 5.2: successful new-order transactions per second (SNOT/s) of related systems and the thesis
TABLE_5_2 = [  # (system, mechanism, cores (machines), SNOT/s)
    ("This dissertation (thesis)", "2PL-BW", "5.0k (140)", 5.9e6), ("HyPer", "TS+MVCC", "8 (1)", 171e3),
    ("Silo", "MVOCC", "32 (1)", 315e3), ("FaRM", "OCC", "1.4k (90)", 4.5e6), ("NAM-DB", "TS+MVCC", "896 (56)", 6.5e6),
    ("DrTM", "HTM", "480 (24)", 2.4e6), ("Calvin", "deterministic", "512 (64)", 380e3),
    ("H-Store", "partition locks", "1k (1)", 4.3e6),
]

# peaks and values the text quotes
JOIN_PEAK = {"ranks": 4096, "tuples_per_s": 48.7e9}          # Fig 4.2, §4.7: input tuples/s on 4096 cores
TPCC_PEAK = {"cores": 5040, "agents": 2520, "serializable": 13.6e6, "read-committed": 24.5e6,
             "new_order": 5.9e6, "lock_requests": 800e6}     # Fig 5.5, §5.4.2
TPCC_LOCKS_PER_TXN = {"serializable": 53.2, "read-committed": 27.9}
TPCC_LOCK_US = 2.8          # Fig 5.6b: a lock request
TPCC_NONLOCK_SHARE = 0.12   # Fig 5.6a: data, 2PC and end of a transaction, share of its time
# the servers' share of the 36 cores of a node -> M transactions/s (TPC-C, serializable; §5.4.2)
LOCK_SPLIT = {"1/2": 13.6, "1/3": 10.2, "1/6": 4.72}
NET_PEAK_GBS = {"FDR": 6.0, "QDR": 3.6}   # §3.4: bandwidth between two machines, full from 8 KiB messages
NET_FULL_FROM = 8 * 1024
DIST_OVER_ONE = {"radix": 0.20, "sortmerge": 0.10}  # Fig 3.9: distributed at most this much slower at 4096M


def join_throughput():
    """Fig 4.2's points the thesis gives numbers for, per algorithm [(cores, input tuples/s)]: 1024
    cores from Table 4.1's first row (40M tuples of R and of S per core over its time: 80M x 1024 /
    4.34 s radix, / 5.70 s sort-merge) and the peaks at 4096 cores that §4.3.3 quotes."""
    r0 = TABLE_4_1[0]
    per_core = r0[0] + r0[1]
    return {"radix": [(1024, per_core * 1024 / r0[3]), (4096, 48.7e9)],
            "sortmerge": [(1024, per_core * 1024 / r0[5]), (4096, 43.5e9)]}
