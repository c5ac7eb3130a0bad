/* The flags of `rmabench rdmo` and their checks. A flag the chosen operation does not read is
 * refused, naming both; a payload, match list, batch or row larger than a slot is refused naming
 * the flag and the slot. MPI-free (parsed before MPI_Init). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench/options.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "rma/notify.h"

typedef struct {
    bool payload, keys, matches, chain, batch, rows, row_words, tries, ranks, ranks_per_host, output, handler, model;
} rdmo_seen;

static void defaults(rdmo_opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = RDMO_OP_APPEND;
    o->design = RDMO_DESIGN_RDMO;
    o->handler = RDMO_HANDLER_POLL;
    o->poll = NOTIFY_POLL_AUTO;
    o->iterations = 2000;
    o->warmup = 100;
    o->payload_bytes = 64;
    o->keys = 1024;
    o->matches = 8;
    o->batch = 30;
    o->rows = 4;
    o->row_words = 8;
    o->tries = 3;
    o->slot_bytes = 1024;
    o->queue_depth = 64;
    o->seed = 42;
    o->wait_bound_s = 60;
}

/* `flag` given but --op does not read it */
static void only_for(bool given, const char *flag, const rdmo_opts *o, const char *which)
{
    if (given) opt_usage_error("--%s: --op %s ignores it (%s only)", flag, rdmo_op_names[o->op], which);
}

/* A request or answer of `bytes` payload must fit a slot (rdmo and rpc send it; verbs stages it there). */
static void fits(int64_t bytes, const char *flag, int64_t value, const rdmo_opts *o)
{
    const rdmo_config c = {.slot_bytes = (int)o->slot_bytes};
    const int cap = rdmo_payload_capacity(&c);
    if (bytes > cap)
        opt_usage_error("--%s: %" PRId64 " needs %" PRId64 " bytes of payload, more than a slot of --slot-bytes %" PRId64
                        " holds (%d)", flag, value, bytes, o->slot_bytes, cap);
}

static void check_shape(rdmo_opts *o, const rdmo_seen *seen)
{
    const int op = o->op;
    if (o->slot_bytes % 64) opt_usage_error("--slot-bytes: %" PRId64 " is not a multiple of 64", o->slot_bytes);
    if (op != RDMO_OP_APPEND) only_for(seen->payload, "payload-bytes", o, "slotted-append");
    if (op != RDMO_OP_GATHER && op != RDMO_OP_SCATTER) {
        only_for(seen->keys, "keys", o, "conditional-gather and scatter-accumulate");
        only_for(seen->chain, "chain", o, "conditional-gather and scatter-accumulate");
    }
    if (op != RDMO_OP_GATHER) only_for(seen->matches, "matches", o, "conditional-gather");
    if (op != RDMO_OP_SCATTER) only_for(seen->batch, "batch", o, "scatter-accumulate");
    if (op != RDMO_OP_READ && op != RDMO_OP_SEAL) {
        only_for(seen->rows, "rows", o, "signaled-read and write-and-seal");
        only_for(seen->row_words, "row-words", o, "signaled-read and write-and-seal");
        only_for(seen->tries, "tries", o, "signaled-read and write-and-seal");
    }
    if (o->chain == 0) o->chain = op == RDMO_OP_GATHER ? 16 : 2;
    if (op == RDMO_OP_APPEND) fits(o->payload_bytes, "payload-bytes", o->payload_bytes, o);
    if (op == RDMO_OP_GATHER) fits(o->matches * RDMO_MATCH_WIRE, "matches", o->matches, o);
    if (op == RDMO_OP_SCATTER) fits(o->batch * RDMO_PAIR_WIRE, "batch", o->batch, o);
    if (op == RDMO_OP_READ || op == RDMO_OP_SEAL) fits(12 + 8 * o->row_words, "row-words", o->row_words, o);
    if (op == RDMO_OP_GATHER && o->matches * o->keys / o->chain < 1)
        opt_usage_error("--chain: %" PRId64 " entries per bucket is more than the %" PRId64 " entries of the table",
                        o->chain, o->matches * o->keys);
}

static void check_run(rdmo_opts *o, const rdmo_seen *seen)
{
    if (o->design == RDMO_DESIGN_VERBS && seen->handler)
        opt_usage_error("--handler: --design verbs has no handler (the target only drives MPI's progress)");
    if (!o->plan) {
        if (seen->ranks || seen->ranks_per_host)
            opt_usage_error("--%s: only with --plan (a run takes its ranks from mpirun)", seen->ranks ? "ranks" : "ranks-per-host");
        return;
    }
    if (!seen->ranks) opt_usage_error("--ranks: required with --plan");
    if (seen->output) opt_usage_error("--output: --plan runs nothing, so it writes no row");
    if (seen->model) opt_usage_error("--model: --plan runs nothing to compare with the model");
    if (!seen->ranks_per_host) o->plan_ranks_per_host = o->plan_ranks;
    if (o->plan_ranks_per_host > o->plan_ranks)
        opt_usage_error("--ranks-per-host: %" PRId64 " is more than --ranks %" PRId64, o->plan_ranks_per_host, o->plan_ranks);
}

void rdmo_parse_opts(rdmo_opts *o, int argc, char **argv)
{
    defaults(o);
    rdmo_seen seen = {0};
    const opt_spec run[] = {
        {"the operation and its design", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"op", OPT_CHOICE, &o->op, "the composite operation", 0, 0, rdmo_op_names, NULL},
        {"design", OPT_CHOICE, &o->design, "verbs: MPI-3 RMA only; rdmo: one notified put to the target's request queue, its handler runs the method and answers with one; rpc: MPI_Isend / posted MPI_Irecv", 0, 0, rdmo_design_names, NULL},
        {"handler", OPT_CHOICE, &o->handler, "rdmo and rpc: the target's poll (its own loop) or a progress thread (needs MPI_THREAD_MULTIPLE)", 0, 0, rdmo_handler_names, &seen.handler},
        {"notify-poll", OPT_CHOICE, &o->poll, "how ranks make MPI move one-sided data while they wait (rma/notify.h; auto: load on Open MPI, probe elsewhere)", 0, 0, notify_poll_names, NULL},
        {"iterations", OPT_COUNT, &o->iterations, "timed operations per origin", 1, 1e9, NULL, NULL},
        {"warmup", OPT_COUNT, &o->warmup, "untimed operations per origin first", 0, 1e9, NULL, NULL},
        {"origins", OPT_INT, &o->origins, "origins (ranks 1..N; 0: every rank but the target)", 0, 1e7, NULL, NULL},
        {"sweep", OPT_BOOL, &o->sweep, "run 1, 2, 4, ... origins up to --origins, one step (line, verification, CSV row) each", 0, 0, NULL, NULL},
        {"remote-origins", OPT_BOOL, &o->remote_origins, "origins are the ranks on other hosts than the target's (in rank order), the others wait: every request crosses the network", 0, 0, NULL, NULL},
        {"slot-bytes", OPT_BYTES, &o->slot_bytes, "a request or answer slot (a multiple of 64; 8-byte words carry 7 bytes each)", 128, 65536, NULL, NULL},
        {"queue-depth", OPT_INT, &o->queue_depth, "requests the target holds at once: more arriving in one pass are answered 'queue full'", 1, 4096, NULL, NULL},
        {"seed", OPT_INT, &o->seed, "workload seed", 0, 9.2e18, NULL, NULL},
        {"output", OPT_STRING, &o->output, "append one CSV row per step to this file", 0, 0, NULL, &seen.output},
        {"model", OPT_STRING, &o->model, "model parameter file (rmabench calibrate): each step's latency predicted from its counted round trips and messages and the handler's time (model/rdmo_model.h) beside the measured median", 0, 0, NULL, &seen.model},
        {"wait-bound", OPT_INT, &o->wait_bound_s, "seconds any wait may take before the run is aborted", 1, 86400, NULL, NULL},
        OPT_VERBOSE(&o->verbose),
        OPT_END,
    };
    const opt_spec shape[] = {
        {"the objects (per operation)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"payload-bytes", OPT_BYTES, &o->payload_bytes, "slotted-append: bytes per record", 8, 65535, NULL, &seen.payload},
        {"keys", OPT_COUNT, &o->keys, "conditional-gather, scatter-accumulate: distinct keys of the table", 1, 1e8, NULL, &seen.keys},
        {"matches", OPT_INT, &o->matches, "conditional-gather: entries per key (all returned by one gather)", 1, RDMO_GATHER_MAX, NULL, &seen.matches},
        {"chain", OPT_INT, &o->chain, "conditional-gather, scatter-accumulate: entries per bucket on average (0: 16 for gather, 2 for scatter)", 0, 1e6, NULL, &seen.chain},
        {"batch", OPT_INT, &o->batch, "scatter-accumulate: (key, value) pairs per call", 1, RDMO_SCATTER_MAX, NULL, &seen.batch},
        {"rows", OPT_INT, &o->rows, "signaled-read, write-and-seal: rows (few: contention)", 1, 1e8, NULL, &seen.rows},
        {"row-words", OPT_INT, &o->row_words, "signaled-read, write-and-seal: data words per row", 1, RDMO_ROW_WORDS_MAX, NULL, &seen.row_words},
        {"tries", OPT_INT, &o->tries, "signaled-read, write-and-seal: attempts at a locked row before 'busy'", 1, 1000, NULL, &seen.tries},
        OPT_END,
    };
    const opt_spec plan[] = {
        {"plan without running (--plan)", OPT_HEADING, NULL, NULL, 0, 0, NULL, NULL},
        {"plan", OPT_BOOL, &o->plan, "print what every rank allocates at --ranks (queue slots, objects, counts) and exit; no MPI", 0, 0, NULL, NULL},
        {"ranks", OPT_INT, &o->plan_ranks, "--plan: ranks of the run (required)", 2, 1e7, NULL, &seen.ranks},
        {"ranks-per-host", OPT_INT, &o->plan_ranks_per_host, "--plan: ranks per host (default: --ranks)", 1, 1e7, NULL, &seen.ranks_per_host},
        OPT_END,
    };
    const opt_spec *tables[] = {run, shape, plan, NULL};
    char err[512];
    const int rc = opt_parse(tables, argc, argv, 2, err, sizeof err);
    if (rc == OPT_HELP) {
        if (bench_env_rank() == 0) opt_usage("rmabench rdmo [flags]   (rank 0: the target; ranks 1..N: origins)", tables);
        exit(0);
    }
    if (rc == OPT_ERROR) opt_usage_error("%s", err);
    check_shape(o, &seen);
    check_run(o, &seen);
}

rdmo_config rdmo_bench_config(const rdmo_opts *o, int rank, bool yield)
{
    return (rdmo_config){
        .design = o->design,
        .handler = o->handler,
        .poll = notify_poll_resolve((notify_poll_mode)o->poll),
        .slot_bytes = (int)o->slot_bytes,
        .queue_depth = (int)o->queue_depth,
        .tries = (int)o->tries,
        .gather_bound = RDMO_GATHER_BOUND,
        .wait_bound_s = (double)o->wait_bound_s,
        .serve = rank == 0,
        .yield = yield,
    };
}
