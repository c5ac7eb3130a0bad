/* Several rmabench commands in one launch (tests/scale): at 256 oversubscribed ranks MPI_Init costs
 * most of a minute on this machine, so the join and the lock table share one. Arguments are
 * rmabench command lines separated by "--next":
 *   scale_run join --algo both ... --next lock --workload bank ...
 * Each command runs as under rmabench (bench_mpi_init leaves MPI to this driver); the exit status is
 * the first non-zero one. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "bench/context.h"
#include "cmd/commands.h"

int main(int argc, char **argv)
{
    bench_pre_init();
    MPI_Init(&argc, &argv);
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
