/* `rmabench join`: generate R and S in parallel, run the chosen join(s) --warmup + --repeat times on
 * the same data, or once per query of --queries N on fresh data each (query q: seed --seed + q,
 * generated untimed before it; --algo both runs both joins on each query's data), verify every run
 * against the generator's expected count and checksum, print the phase table and append one CSV row
 * per run (and one per warm-up that failed, with a negative repeat_index, so that no failure goes
 * unrecorded and plots can tell warm-ups apart), and with --algo both one row "refused" per
 * algorithm that refused the run. --warmup runs come before an algorithm's first query, on its
 * data. Exit status: 0 all selected ran and verified, 1 a verification failed, 2 bad input or
 * nothing could run (or the CSV could not be written), 4 --algo both ran one algorithm (verified)
 * and refused the other. The phases of the command: cmd/join/join_cmd.h. */
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/join/join_cmd.h"

/* Collective: the warm-ups (before the first query) and the measured runs of algorithm a on the
 * current query's data; the first failure to write a row ends it (returns 2). */
static int run_algo(join_session *js, int a, join_series *series, int *failures)
{
    const join_opts *o = &js->o;
    const int from = js->query == 0 ? -(int)o->warmup : 0, runs = o->queries > 1 ? 1 : (int)o->repeat;
    for (int rep = from; rep < runs; rep++) {
        join_run_result res;
        /* a query stream numbers its runs by query, as --repeat numbers its own */
        join_run_once(js, a, rep < 0 ? rep : o->queries > 1 ? js->query : rep, &res);
        *failures += !res.pass;
        if (rep < 0) { /* warm-up: verified, one line; a row only when it failed */
            join_report_warmup(js, &res);
            if (!res.pass && join_record_run(js, &res)) return 2; /* repeat_index < 0 */
            continue;
        }
        join_report_run(js, &res);
        join_compare(&js->model, &js->ctx, o, &js->wl, res.algo_id, &res.out, &res.st, res.first);
        if (join_record_run(js, &res)) return 2;
        const double *alloc = phase_stats_find(&res.st, "window_alloc", 0);
        if (series->n == 0) series->first_measured = res.first;
        series->steal[series->n] = res.steal;
        series->alloc[series->n] = alloc ? *alloc : 0;
        series->total[series->n++] = res.st.total_max;
    }
    return 0;
}

int join_main(int argc, char **argv)
{
    join_session js;
    join_setup(&js, argc, argv);
    join_report_header(&js);
    int failures = 0, output_failed = 0;
    for (int i = 0; i < js.nrefused && !output_failed; i++) output_failed = join_record_refused(&js, i);
    const size_t runs = (size_t)(js.o.queries > 1 ? js.o.queries : js.o.repeat);
    join_series series[2];
    for (int a = 0; a < js.nalgos; a++) {
        series[a] = (join_series){0, calloc(runs, sizeof(double)), calloc(runs, sizeof(double)),
                                  calloc(runs, sizeof(double)), false};
        if (!series[a].total || !series[a].alloc || !series[a].steal) bench_usage_error(&js.ctx, "--queries: out of memory for the runs' totals");
    }
    for (int q = 0; q < js.o.queries && !output_failed; q++) {
        if (q > 0) join_next_query(&js, q); /* fresh data of the same shape, untimed */
        for (int a = 0; a < js.nalgos && !output_failed; a++) output_failed = run_algo(&js, a, &series[a], &failures);
    }
    for (int a = 0; a < js.nalgos; a++) {
        if (!output_failed) join_report_summary(&js, js.algos[a], &series[a]);
        free(series[a].total);
        free(series[a].alloc);
        free(series[a].steal);
    }
    join_teardown(&js);
    return output_failed ? JOIN_EXIT_USAGE
           : failures     ? JOIN_EXIT_FAILED
           : js.nrefused  ? JOIN_EXIT_PARTLY_REFUSED
                          : JOIN_EXIT_OK;
}
