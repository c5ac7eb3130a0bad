#include "joins/verify.h"

void join_expected(const bench_ctx *ctx, const uint64_t mine[2], uint64_t expected[2])
{
    MPI_CHECK(ctx->rank, MPI_Allreduce(mine, expected, 2, MPI_UINT64_T, MPI_SUM, ctx->comm));
}

bool join_verify(const bench_ctx *ctx, const join_output *out, const uint64_t expected[2], uint64_t got[2])
{
    uint64_t mine[2] = {out->matches, out->checksum};
    MPI_CHECK(ctx->rank, MPI_Allreduce(mine, got, 2, MPI_UINT64_T, MPI_SUM, ctx->comm));
    return got[0] == expected[0] && got[1] == expected[1];
}
