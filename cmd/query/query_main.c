/* `rmabench query`: the star query (joins/query/star.h) pulled by compute ranks from memory ranks
 * without a shuffle, and shuffled join by join as a shuffling engine runs it, each --warmup +
 * --repeat times on the same data, every run verified against the generator's count and checksum,
 * one CSV row per run (and per failed warm-up); --micro runs the seed's micro-benchmarks instead.
 * Exit status: 0 every run verified, 1 a verification failed, 2 bad input (or the CSV could not be
 * written). The phases of the command: cmd/query/query_cmd.h. */
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/query/query_cmd.h"

int query_main(int argc, char **argv)
{
    query_session qs;
    query_setup(&qs, argc, argv);
    if (qs.o.micro != MICRO_NONE) {
        const int rc = query_micro_main(&qs);
        query_teardown(&qs);
        return rc;
    }
    query_report_header(&qs);
    int failures = 0, output_failed = 0;
    double *totals = calloc((size_t)qs.o.repeat, sizeof(double));
    const int designs[2] = {QUERY_PULL, QUERY_SHUFFLE};
    for (int d = 0; d < 2 && !output_failed; d++) {
        if (!(designs[d] == QUERY_PULL ? qs.pull_on : qs.shuffle_on)) continue;
        int done = 0;
        for (int rep = -(int)qs.o.warmup; rep < qs.o.repeat && !output_failed; rep++) {
            query_run_result res;
            query_run_once(&qs, designs[d], rep, &res);
            failures += !res.pass;
            query_report_run(&qs, &res);
            if (rep >= 0 || !res.pass) output_failed = query_record_run(&qs, &res);
            if (rep >= 0) totals[done++] = res.st.total_max;
        }
        if (!output_failed) query_report_summary(&qs, designs[d], totals, done);
    }
    free(totals);
    query_teardown(&qs);
    return output_failed ? QUERY_EXIT_USAGE : failures ? QUERY_EXIT_FAILED : QUERY_EXIT_OK;
}
