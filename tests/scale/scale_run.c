/* Several rmabench commands in one launch (tests/scale): at 256 oversubscribed ranks MPI_Init costs
 * most of a minute on this machine, so the join and the lock table share one. Arguments are
 * rmabench command lines separated by "--next":
 *   scale_run join --algo both ... --next lock --workload bank ...
 * Each command runs as under rmabench (bench_mpi_init leaves MPI to this driver); the exit status is
 * the first non-zero one. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "bench/context.h"
#include "cmd/commands.h"

int main(int argc, char **argv)
{
    bench_pre_init();
#ifdef __linux__
    /* Open MPI's MPI_Init waits for the other ranks in a usleep(100) loop: 256 ranks on 2 cores
     * spend the start switching between sleepers. A 10 ms timer slack for MPI_Init only lets the
     * kernel batch those wake-ups; the commands run with the slack the launch gave again (a slack
     * kept for the run had coarsened every idle nap: sort-merge 5.7 -> 32 s). */
    const int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 10000000UL, 0, 0, 0);
#endif
    MPI_Init(&argc, &argv);
#ifdef __linux__
    if (slack > 0) prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
#endif
    int rc = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int first = 1; first < argc;) {
        int end = first;
        while (end < argc && strcmp(argv[end], "--next") != 0) end++;
        /* the commands parse argv[2..]: argv[first - 1] stands for the program name */
        char *saved = argv[first - 1];
        argv[first - 1] = "rmabench";
        int n = end - first + 1, r;
        char **sub = argv + first - 1, *cut = end < argc ? argv[end] : NULL;
        if (end < argc) argv[end] = NULL;
        if (strcmp(sub[1], "join") == 0) r = join_main(n, sub);
        else if (strcmp(sub[1], "lock") == 0) r = lock_main(n, sub);
        else {
            if (rank == 0) fprintf(stderr, "scale_run: '%s': only join and lock\n", sub[1]);
            r = 2;
        }
        if (end < argc) argv[end] = cut;
        argv[first - 1] = saved;
        if (rank == 0) printf("scale_run: %s exit %d\n", sub[1], r);
        fflush(stdout);
        if (!rc) rc = r;
        first = end + 1;
    }
    MPI_Finalize();
    return rc;
}
