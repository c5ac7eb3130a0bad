/* rmabench: database operators over MPI one-sided communication.
 *   rmabench join       distributed radix hash join / sort-merge join   (joins/)
 *   rmabench query      star query: pulled by compute ranks from memory ranks, or shuffled (joins/query/)
 *   rmabench lock       distributed lock table, strict 2PL + 2PC        (locking/)
 *   rmabench lock-trace write a lock trace from a workload generator    (locking/workloads/)
 *   rmabench calibrate  measure the model parameters on these ranks     (cmd/calibrate/)
 *   rmabench membw      streaming memory bandwidth per rank: the phases' roofline (bench/membw.c)
 *   rmabench rdmo       composite remote operations in three designs (rdmo/, cmd/rdmo/)
 *   rmabench aggregate  distributed hash aggregation over composite remote operations (aggregate/)
 *   rmabench record     append a row (e.g. a failed run) to a results CSV (cmd/record_main.c) */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "bench/context.h"

static const struct {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *what;
} commands[] = {
    {"join", join_main, "distributed radix hash join and sort-merge join over MPI RMA"},
    {"query", query_main, "star query over MPI RMA: memory and compute ranks without a shuffle, against shuffling"},
    {"lock", lock_main, "distributed lock table: strict 2PL and 2PC over notified puts"},
    {"lock-trace", lock_trace_main, "write a lock trace from a workload generator"},
    {"calibrate", calibrate_main, "measure every model parameter on the ranks it runs on"},
    {"rdmo", rdmo_main, "composite remote operations (RDMO) in three designs: verbs, rdmo, rpc"},
    {"aggregate", aggregate_main, "distributed hash aggregation (group-by count, sum) over composite remote operations"},
    {"membw", membw_main, "streaming read/write/copy bandwidth per rank, all ranks at once (the roofline)"},
    {"record", record_main, "append one row (e.g. a failed run) to a results CSV; no MPI"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rmabench <command> [flags]   (rmabench <command> --help lists the flags)\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].what);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (bench_env_rank() == 0) usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].main(argc, argv);
    char shown[OPT_SHOWN_MAX];
    if (bench_env_rank() == 0)
        fprintf(stderr, "rmabench: '%s': unknown command (join, query, lock, lock-trace, calibrate, rdmo, aggregate, membw, record)\n",
                opt_shown(argv[1], shown));
    return 2;
}
