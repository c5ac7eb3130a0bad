/* `rmabench join`: generate R and S in parallel, run the chosen join(s) --warmup + --repeat times on
 * the same data, verify every run against the generator's expected count and checksum, print the
 * phase table and append one CSV row per run (and one per warm-up that failed, with a negative
 * repeat_index, so that no failure goes unrecorded and plots can tell warm-ups apart), and with
 * --algo both one row "refused" per algorithm that refused the run. Exit status: 0 all selected
 * ran and verified, 1 a verification failed, 2 bad input or nothing could run (or the CSV could not
 * be written), 4 --algo both ran one algorithm (verified) and refused the other. The phases of the
 * command: cmd/join/join_cmd.h. */
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/join/join_cmd.h"

int join_main(int argc, char **argv)
{
    join_session js;
    join_setup(&js, argc, argv);
    join_report_header(&js);
    int failures = 0, output_failed = 0;
    for (int i = 0; i < js.nrefused && !output_failed; i++) output_failed = join_record_refused(&js, i);
    double *totals = calloc((size_t)js.o.repeat, sizeof(double)), *steals = calloc((size_t)js.o.repeat, sizeof(double));
    for (int a = 0; a < js.nalgos && !output_failed; a++) {
        int done = 0;
        for (int rep = -(int)js.o.warmup; rep < js.o.repeat && !output_failed; rep++) {
            join_run_result res;
            join_run_once(&js, a, rep, &res);
            failures += !res.pass;
            if (rep < 0) { /* warm-up: verified, one line; a row only when it failed */
                join_report_warmup(&js, &res);
                if (!res.pass) output_failed = join_record_run(&js, &res); /* repeat_index < 0 */
                continue;
            }
            join_report_run(&js, &res);
            join_compare(&js.model, &js.ctx, &js.o, &js.wl, res.algo_id, &res.out, &res.st);
            output_failed = join_record_run(&js, &res);
            steals[done] = res.steal;
            totals[done++] = res.st.total_max;
        }
        if (!output_failed) join_report_summary(&js, js.algos[a], totals, steals, done);
    }
    free(totals);
    free(steals);
    join_teardown(&js);
    return output_failed ? JOIN_EXIT_USAGE
           : failures     ? JOIN_EXIT_FAILED
           : js.nrefused  ? JOIN_EXIT_PARTLY_REFUSED
                          : JOIN_EXIT_OK;
}
