/* placeholder until the lock table lands */
#include <stdio.h>
#include "commands.h"
int lock_main(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "rmabench: lock: not built yet\n"); return 2; }
