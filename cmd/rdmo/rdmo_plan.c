/* The objects of an `rmabench rdmo` run and what each rank allocates, for the run's memory check
 * and for --plan, which prints them at any rank count without MPI. Only the target (rank 0) holds
 * the objects and, in the rdmo design, a request slot per rank: O(ranks) slots there, two slots
 * (its answer and its scratch) on an origin. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/memory.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "rdmo/lat.h"

rdmo_layout rdmo_bench_layout(const rdmo_opts *o, int ranks)
{
    rdmo_layout l = {0};
    rdmo_space_init(&l.space);
    const uint64_t origins = o->origins ? (uint64_t)o->origins : (uint64_t)(ranks > 1 ? ranks - 1 : 1);
    switch (o->op) {
    case RDMO_OP_APPEND:
        /* every append of every origin fits: a full page would end the benchmark, not measure it */
        l.page_capacity = origins * (uint64_t)(o->warmup + o->iterations) * rdmo_record_bytes((uint32_t)o->payload_bytes);
        l.obj = rdmo_space_add_page(&l.space, l.page_capacity);
        break;
    case RDMO_OP_GATHER:
        l.entries = (uint64_t)(o->keys * o->matches);
        l.buckets = l.entries / (uint64_t)o->chain;
        l.obj = rdmo_space_add_table(&l.space, l.buckets, l.entries);
        break;
    case RDMO_OP_SCATTER:
        l.buckets = (uint64_t)o->keys / (uint64_t)o->chain ? (uint64_t)o->keys / (uint64_t)o->chain : 1;
        /* verbs: an origin that lost the race to link a key's entry leaves its own unlinked, at most
         * one per other origin and key */
        l.entries = (uint64_t)o->keys * (o->design == RDMO_DESIGN_VERBS ? (origins > 1 ? origins : 2) : 1);
        l.obj = rdmo_space_add_table(&l.space, l.buckets, l.entries);
        break;
    default:
        l.obj = rdmo_space_add_rows(&l.space, (uint64_t)o->rows, (uint64_t)o->row_words);
    }
    return l;
}

/* The checker's own memory at rank 0 (rdmo/check.c). */
static uint64_t checker_bytes(const rdmo_opts *o, const rdmo_layout *l, int ranks)
{
    const uint64_t origins = (uint64_t)ranks;
    switch (o->op) {
    case RDMO_OP_APPEND: return l->page_capacity / rdmo_record_bytes((uint32_t)o->payload_bytes) / 8 + 16 * origins;
    case RDMO_OP_GATHER: return (uint64_t)(o->keys * o->matches);
    case RDMO_OP_SCATTER: return 32 * ((uint64_t)o->keys + 1);
    default: return 8 * (uint64_t)o->row_words;
    }
}

uint64_t rdmo_bench_rank_bytes(const rdmo_opts *o, const rdmo_layout *l, int rank, int ranks)
{
    const rdmo_config c = rdmo_bench_config(o, rank, false);
    uint64_t b = rdmo_window_bytes(&c, &l->space, ranks) + rdmo_aux_bytes(&c, ranks);
    b += RDMO_LAT_BUCKETS * sizeof(uint64_t) * (rank == 0 ? 2 : 1); /* rank 0 also receives the sum */
    if (rank == 0) b += checker_bytes(o, l, ranks) + 4 * sizeof(uint64_t) * (uint64_t)ranks; /* per-rank counts */
    return b;
}

static const char *sz(uint64_t bytes, char *buf, int len)
{
    char h[32];
    mem_format((int64_t)bytes, h, sizeof h);
    snprintf(buf, (size_t)len, "%" PRIu64 " B (%s)", bytes, h);
    return buf;
}

int rdmo_plan_print(const rdmo_opts *o)
{
    const int ranks = (int)o->plan_ranks, rph = (int)o->plan_ranks_per_host;
    const rdmo_layout l = rdmo_bench_layout(o, ranks);
    const rdmo_config t = rdmo_bench_config(o, 0, false), g = rdmo_bench_config(o, 1, false);
    char a[64], b[64];
    printf("# rmabench rdmo --plan: %d ranks on %d host(s), %d per host; op %s, design %s; nothing run\n", ranks,
           (ranks + rph - 1) / rph, rph, rdmo_op_names[o->op], rdmo_design_names[o->design]);
    printf("target: rank 0; origins: %" PRId64 "\n", o->origins ? o->origins : (int64_t)ranks - 1);
    printf("objects: %s at the target\n", sz(l.space.heap_bytes, a, sizeof a));
    printf("request queue: %d slots of %d B at the target (one per rank), %d B of payload each; %d requests held at once\n",
           o->design == RDMO_DESIGN_RDMO ? ranks : 0, t.slot_bytes, rdmo_payload_capacity(&t), t.queue_depth);
    printf("window per rank: target %s, origin %s\n", sz(rdmo_window_bytes(&t, &l.space, ranks), a, sizeof a),
           sz(rdmo_window_bytes(&g, &l.space, ranks), b, sizeof b));
    printf("endpoint state per rank: target %s, origin %s (O(ranks) bytes: stamps, answered origins)\n",
           sz(rdmo_aux_bytes(&t, ranks), a, sizeof a), sz(rdmo_aux_bytes(&g, ranks), b, sizeof b));
    const uint64_t tb = rdmo_bench_rank_bytes(o, &l, 0, ranks), ob = rdmo_bench_rank_bytes(o, &l, 1, ranks);
    printf("memory per rank: target %s, origin %s\n", sz(tb, a, sizeof a), sz(ob, b, sizeof b));
    const uint64_t host = tb + (uint64_t)(rph - 1) * ob + (uint64_t)rph * MEM_RUNTIME_BYTES;
    printf("memory of the target's host: %s (with %s per rank for the process and MPI)\n", sz(host, a, sizeof a),
           sz((uint64_t)MEM_RUNTIME_BYTES, b, sizeof b));
    char msg[512];
    if (mem_host_verdict((int64_t)host, mem_available_bytes(), "--iterations", "fewer --iterations or origins", msg, sizeof msg)) {
        printf("fits this host: no\n");
        fprintf(stderr, "rmabench: %s\n", msg);
        return 2;
    }
    printf("fits this host: yes\n");
    return 0;
}
