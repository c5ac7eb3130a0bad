/* Built only while locking/workloads/lock_trace.c (the `rmabench lock-trace` command, written with
 * the tpcc generator) is not in the tree. */
#include <stdio.h>

#include "commands.h"
int lock_trace_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "rmabench: lock-trace: not built into this rmabench (the trace writer has not landed)\n");
    return 2;
}
