/* MPI_Init and MPI_Init_thread for tests of input that must be refused before MPI starts
 * (tests/common/before_init.sh preloads this library): a call fails the test, naming itself. */
#include <stdio.h>
#include <stdlib.h>

static _Noreturn void called(const char *name)
{
    fprintf(stderr, "no_mpi_init: %s called: the input was not refused before MPI_Init\n", name);
    exit(99);
}

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);

int MPI_Init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    called("MPI_Init");
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc, (void)argv, (void)required, (void)provided;
    called("MPI_Init_thread");
}
