/* Canary for the sanitizer setup: an MPI program that leaks one buffer of its own after MPI_Init.
 * The asan suite expects LeakSanitizer to report it (exit status 1), proving that lsan.supp silences
 * only the MPI stack, not leaks in code that merely runs between MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *volatile kept;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *p = malloc(4096);
    memset(p, rank, 4096);
    kept = p;
    kept = NULL; /* the only pointer is gone: a definite leak */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("rank %d: leaked 4096 bytes\n", rank);
    return 0;
}
