/* Every join algorithm (radix, sortmerge, reference) is an --algo value, and every phase it
 * declares (joins/join.h: join_algo.phases) has its CSV columns t_<phase>_avg and t_<phase>_max in
 * the results schema; adding time to a phase that was not declared aborts (a typo must not create
 * a phase whose column is silently dropped). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/join/join_cmd.h"
#include "cmd/results_schema.h"
#include "joins/join.h"
#include "tests/check.h"

int main(void)
{
    const join_algo *algos[] = {&radix_join_algo, &sortmerge_join_algo, &reference_join_algo};
    for (int a = 0; a < 3; a++) {
        int id = join_algo_id(algos[a]);
        CHECK(join_algo_names[id] != NULL && id != ALGO_BOTH);
        int n = 0;
        for (const phase_decl *d = algos[a]->phases; d->name; d++, n++) {
            char col[64];
            snprintf(col, sizeof col, "t_%s_avg", d->name);
            CHECK(record_schema_has(&results_schema, col));
            snprintf(col, sizeof col, "t_%s_max", d->name);
            CHECK(record_schema_has(&results_schema, col));
        }
        CHECK(n >= 2 && n <= PHASES_MAX);
    }
    /* an undeclared phase name aborts */
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        phase_set ph;
        phases_init(&ph, radix_join_algo.phases);
        phases_add(&ph, "histogramm", 1.0);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    /* a declared one adds up */
    phase_set ph;
    phases_init(&ph, radix_join_algo.phases);
    phases_add(&ph, "histogram", 0.25);
    phases_add(&ph, "histogram", 0.5);
    CHECK(phases_get(&ph, "histogram") == 0.75);
    CHECK_DONE();
}
