/* `rmabench rdmo`: composite remote operations (rdmo/rdmo.h) measured in one design, rank 0 the
 * target and ranks 1..N its origins: latency (median, tail), throughput, messages and round trips
 * per operation as counted, the conflict window; the checker after every step
 * (`verification: PASS|FAIL`, exit 1 on FAIL) and one CSV row per step with --output. The phases:
 * cmd/rdmo/rdmo_cmd.h. */
#include <stdlib.h>

#include "bench/fastclock.h"
#include "cmd/commands.h"
#include "cmd/rdmo/rdmo_cmd.h"
#include "rdmo/lat.h"

int rdmo_main(int argc, char **argv)
{
    rdmo_session s;
    rdmo_setup(&s, argc, argv);
    rdmo_report_header(&s);
    rmb_fast_clock_init();
    rdmo_local me = {.hist = calloc(RDMO_LAT_BUCKETS, sizeof(uint64_t))};
    if (!me.hist) MPI_Abort(s.ctx.comm, 3);
    int exit_code = 0;
    const int last = (int)s.o.origins;
    bool first = true;
    for (int n = s.o.sweep ? 1 : last; n <= last; n = n == last ? last + 1 : (2 * n < last ? 2 * n : last)) {
        rdmo_step st;
        rdmo_bench_step(&s, n, &me);
        rdmo_verify_step(&s, n, &me, &st);
        if (s.ctx.rank == 0) {
            rdmo_model_step(&s, &st);
            rdmo_report_step(&s, &st, first);
            if (!st.verdict.pass) exit_code = 1;
            exit_code = rdmo_record_step(&s, &st, exit_code);
        }
        first = false;
    }
    MPI_CHECK(s.ctx.rank, MPI_Bcast(&exit_code, 1, MPI_INT, 0, s.ctx.comm));
    free(me.hist);
    rdmo_teardown(&s);
    return exit_code;
}
