/* Verification of a join run (Graph500's "validate"): the run's match count and checksum, summed
 * over ranks, against what the generator computes alone (joins/generate.h). Collective. */
#ifndef RMB_JOIN_VERIFY_H
#define RMB_JOIN_VERIFY_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/context.h"
#include "joins/join.h"

/* expected[0] matches, expected[1] checksum over all ranks: the sums of every rank's mine[], what
 * the generator computed alone for its S (generate_s_expected, or workload_expected). */
void join_expected(const bench_ctx *ctx, const uint64_t mine[2], uint64_t expected[2]);
/* Sums the run's matches and checksum over ranks into got[]; true when both equal expected[]. */
bool join_verify(const bench_ctx *ctx, const join_output *out, const uint64_t expected[2], uint64_t got[2]);

#endif
