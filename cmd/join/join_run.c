/* One run of one join algorithm on the session's data: the algorithm's phases (joins/join.h),
 * its verification against the generator (joins/verify.h), the phase times reduced over ranks, the
 * hypervisor's steal during the phases (bench/host_steal.h) and the window memory held so far. */
#include <string.h>

#include "cmd/join/join_cmd.h"
#include "bench/host_steal.h"
#include "joins/verify.h"

int join_algo_id(const join_algo *algo)
{
    int id = 0;
    while (join_algo_names[id] && strcmp(join_algo_names[id], algo->name) != 0) id++;
    return id;
}

void join_run_once(join_session *js, int a, int index, join_run_result *res)
{
    const join_algo *algo = js->algos[a];
    memset(res, 0, sizeof *res);
    res->algo = algo;
    res->algo_id = join_algo_id(algo);
    res->index = index;
    res->query = js->query;
    res->first = js->query == 0 && index == -(int)js->o.warmup;
    join_input in = {&js->ctx, &js->o, &js->wl, js->r, js->s, js->wl.r_n, js->wl.s_n, &js->plans[a], {js->r, js->s}};
    phases_init(&res->out.phases, algo->phases);
    MPI_CHECK(js->ctx.rank, MPI_Barrier(js->ctx.comm));
    const host_cpu_sample cpu0 = host_cpu_now();
    algo->run(&in, &res->out);
    res->steal = host_steal_since(js->ctx.comm, cpu0);
    res->run_delay = host_run_delay_since(js->ctx.comm, cpu0);
    res->pass = join_verify(&js->ctx, &res->out, js->expected, res->got);
    /* what the run wrote over in R and S (join_input.reusable), back as generated for the next run;
     * never more than the relation holds: an operator's count rounded up to its alignment (a
     * sort-merge buffer starts on a cache line) would regenerate tuples of another rank's range,
     * and at the end of the last rank's a logical index past |R|, where the keyed permutation's
     * cycle walking never ends (--tuples-per-rank 1) */
    tuple_t *rel[2] = {js->r, js->s};
    const uint64_t count[2] = {js->wl.r_n, js->wl.s_n};
    for (int i = 0; i < 2; i++)
        if (res->out.reused[i]) generate_range(&js->wl, i, rel[i], 0, res->out.reused[i] < count[i] ? res->out.reused[i] : count[i]);
    phases_reduce(&res->out.phases, js->ctx.comm, &res->st);
    /* the window memory of --window-life so far: what the plan bounds */
    int64_t mine[2] = {(int64_t)rma_window_held_peak(), rma_window_regrown()}, most[2];
    MPI_CHECK(js->ctx.rank, MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, js->ctx.comm));
    res->window_held = most[0];
    res->window_regrown = most[1];
    join_roofline_apply(js, res);
    res->throughput = (double)(js->wl.r_total + js->wl.s_total) / res->st.total_max;
    if (index >= 0) numa_report_run(&js->ctx, &js->numa); /* the worst rank's placement so far */
}
