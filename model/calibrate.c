/* placeholder until calibration lands */
#include <stdio.h>
#include "commands.h"
int calibrate_main(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "rmabench: calibrate: not built yet\n"); return 2; }
