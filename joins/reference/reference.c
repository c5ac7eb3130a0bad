/* The reference join (--algo reference): the smallest complete join_algo (joins/join.h), written
 * to be copied when adding a join, as Graph500's bfs_custom.c is next to its common.h. It uses
 * collectives only, no RMA, and is a baseline, not a tuned join:
 *   exchange     every R and S tuple goes to rank hash(key) mod P, so that matching tuples meet:
 *                per relation, the counts per target by MPI_Alltoall, the tuples by one
 *                MPI_Alltoallv
 *   build_probe  a bucket-chained hash table over the received R, probed with the received S;
 *                every match adds match_term(r.rid, s.rid, key) to the checksum (joins/generate.h)
 * MPI_Alltoallv counts and displacements are int: check() refuses sizes whose even share exceeds
 * INT_MAX tuples, run() refuses (exit 2 on every rank) when skew sends more than that to one rank. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joins/join.h"

/* The phases in display order; their CSV columns are declared in docs/columns.md. */
static const phase_decl reference_phases[] = {{"exchange", false}, {"build_probe", false}, {NULL, false}};

/* The rank that joins a key: a multiplicative hash, so that dense keys spread evenly. */
static int key_rank(uint64_t key, int ranks)
{
    return (int)(((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) % (uint64_t)ranks);
}

/* The hash table's bucket of a key: another multiplier than key_rank's, so that the keys of one
 * rank do not share bucket bits. */
static uint64_t key_bucket(uint64_t key, int bits)
{
    return bits ? (key * UINT64_C(0xBF58476D1CE4E5B9)) >> (64 - bits) : 0;
}

/* Tuples of one relation a rank receives on even data: its share plus room for the hash's spread. */
static uint64_t share_bound(uint64_t total, int ranks)
{
    uint64_t share = total / (uint64_t)ranks + 1;
    return share + share / 8 + 1024;
}

/* Tuples of one relation the most loaded rank holds before the exchange (rank 0 when the slices
 * are even, the last rank with --uneven). */
static uint64_t largest_slice(uint64_t total, int ranks, bool uneven)
{
    uint64_t off, first, last;
    workload_slice(total, 0, ranks, uneven, &off, &first);
    workload_slice(total, ranks - 1, ranks, uneven, &off, &last);
    return first > last ? first : last;
}

static const char *size_flag(const join_opts *o) { return o->r_total > 0 ? "--r-tuples" : "--tuples-per-rank"; }

static int check(const join_opts *o, const workload *w, int ranks, char *err, size_t errlen)
{
    /* |S| >= |R|: S bounds both relations' counts */
    uint64_t send = largest_slice(w->s_total, ranks, o->uneven), recv = share_bound(w->s_total, ranks);
    if (send > INT_MAX || recv > INT_MAX) {
        snprintf(err, errlen, "%s: a rank would exchange about %" PRIu64 " tuples of S in one MPI_Alltoallv, above its "
                 "int counts (%d); --algo reference needs more ranks or fewer tuples", size_flag(o),
                 send > recv ? send : recv, INT_MAX);
        return -1;
    }
    return 0;
}

/* Bucket heads (a power of two, at least one per R tuple) and one chain link per R tuple. */
static uint64_t table_bytes(uint64_t r_tuples)
{
    uint64_t buckets = 1;
    while (buckets < r_tuples) buckets *= 2;
    return 8 * buckets + 8 * r_tuples;
}

/* Peak: the received R and S, and either the packed send copy of one relation (the exchange sends
 * R, then S) or the hash table (after the exchange). With skew, all of S may go to one rank. */
static int plan(const join_opts *o, const workload *w, int ranks, join_plan *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check(o, w, ranks, err, errlen)) return -1;
    uint64_t recv_r = share_bound(w->r_total, ranks), recv_s = o->skew > 0 ? w->s_total : share_bound(w->s_total, ranks);
    uint64_t send = sizeof(tuple_t) * (w->r_n > w->s_n ? w->r_n : w->s_n), table = table_bytes(recv_r);
    uint64_t counts = 4 * sizeof(int) * (uint64_t)ranks;
    out->window_bytes = (int64_t)(sizeof(tuple_t) * (recv_r + recv_s)); /* receive space */
    out->buffer_bytes = (int64_t)send;
    out->other_bytes = (int64_t)((table > send ? table - send : 0) + counts);
    snprintf(out->format, sizeof out->format, "16 B tuples");
    snprintf(out->detail, sizeof out->detail, "MPI_Alltoallv per relation, a hash table over the received R");
    return 0;
}

static void *alloc_or_abort(const bench_ctx *ctx, size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rmabench: rank %d: reference: cannot allocate %s\n", ctx->rank, what);
        MPI_Abort(ctx->comm, 1);
    }
    return p;
}

/* Collective: sends each of the n tuples to key_rank(key); returns the tuples this rank received
 * (*got of them), to be freed. */
static tuple_t *exchange(const bench_ctx *ctx, const join_opts *o, const tuple_t *t, uint64_t n, MPI_Datatype type,
                         uint64_t *got)
{
    const int P = ctx->size;
    int *counts = alloc_or_abort(ctx, 4 * (size_t)P * sizeof(int), "the counts");
    int *scount = counts, *sdisp = counts + P, *rcount = counts + 2 * P, *rdisp = counts + 3 * P;
    for (int p = 0; p < P; p++) scount[p] = 0;
    for (uint64_t i = 0; i < n; i++) scount[key_rank(t[i].key, P)]++;
    for (int p = 0, d = 0; p < P; d += scount[p], p++) sdisp[p] = d; /* n <= INT_MAX: check() */
    /* pack by target; rdisp serves as the fill cursor until the counts come back */
    tuple_t *send = alloc_or_abort(ctx, n * sizeof *send, "the send buffer");
    for (int p = 0; p < P; p++) rdisp[p] = sdisp[p];
    for (uint64_t i = 0; i < n; i++) send[rdisp[key_rank(t[i].key, P)]++] = t[i];
    MPI_CHECK(ctx->rank, MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, ctx->comm));
    uint64_t total = 0, most = 0;
    for (int p = 0; p < P; p++) total += (uint64_t)rcount[p];
    MPI_CHECK(ctx->rank, MPI_Allreduce(&total, &most, 1, MPI_UINT64_T, MPI_MAX, ctx->comm));
    if (most > INT_MAX) /* skew: every rank learns it and leaves with exit 2 */
        bench_usage_error(ctx, "%s: one rank would receive %" PRIu64 " tuples in one MPI_Alltoallv, above its int "
                          "counts (%d); --algo reference cannot run this data", o->skew > 0 ? "--skew" : size_flag(o),
                          most, INT_MAX);
    for (int p = 0, d = 0; p < P; d += rcount[p], p++) rdisp[p] = d;
    tuple_t *recv = alloc_or_abort(ctx, total * sizeof *recv, "the receive buffer");
    MPI_CHECK(ctx->rank, MPI_Alltoallv(send, scount, sdisp, type, recv, rcount, rdisp, type, ctx->comm));
    free(send);
    free(counts);
    *got = total;
    return recv;
}

/* head[b]: 1 + index of the last R tuple of bucket b (0: empty); next[i]: 1 + the one before it. */
static void build_probe(const bench_ctx *ctx, const tuple_t *r, uint64_t nr, const tuple_t *s, uint64_t ns,
                        uint64_t *matches, uint64_t *checksum)
{
    int bits = 0;
    while ((UINT64_C(1) << bits) < nr) bits++;
    uint64_t *head = alloc_or_abort(ctx, (UINT64_C(1) << bits) * sizeof *head, "the hash table");
    uint64_t *next = alloc_or_abort(ctx, nr * sizeof *next, "the hash table");
    for (uint64_t b = 0; b < (UINT64_C(1) << bits); b++) head[b] = 0;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t b = key_bucket(r[i].key, bits);
        next[i] = head[b];
        head[b] = i + 1;
    }
    uint64_t m = 0, c = 0;
    for (uint64_t j = 0; j < ns; j++)
        for (uint64_t i = head[key_bucket(s[j].key, bits)]; i; i = next[i - 1])
            if (r[i - 1].key == s[j].key) {
                m++;
                c += match_term(r[i - 1].rid, s[j].rid, s[j].key);
            }
    *matches = m;
    *checksum = c;
    free(head);
    free(next);
}

static void run(const join_input *in, join_output *out)
{
    const bench_ctx *ctx = in->ctx;
    MPI_Datatype tuple_type; /* one tuple_t: counts stay in tuples */
    MPI_CHECK(ctx->rank, MPI_Type_contiguous(2, MPI_UINT64_T, &tuple_type));
    MPI_CHECK(ctx->rank, MPI_Type_commit(&tuple_type));

    long f0 = rmb_minflt();
    double t0 = rmb_now();
    uint64_t nr, ns;
    tuple_t *r = exchange(ctx, in->opt, in->r, in->r_n, tuple_type, &nr);
    tuple_t *s = exchange(ctx, in->opt, in->s, in->s_n, tuple_type, &ns);
    double t1 = rmb_now();
    phases_add(&out->phases, "exchange", t1 - t0);
    long f1 = rmb_minflt();
    phases_add_faults(&out->phases, "exchange", f1 - f0);

    build_probe(ctx, r, nr, s, ns, &out->matches, &out->checksum);
    phases_add(&out->phases, "build_probe", rmb_now() - t1);
    phases_add_faults(&out->phases, "build_probe", rmb_minflt() - f1);

    free(r);
    free(s);
    MPI_Type_free(&tuple_type);
}

const join_algo reference_join_algo = {"reference", reference_phases, plan, run, NULL};
