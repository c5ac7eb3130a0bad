/* Entry points of the rmabench commands; each parses argv[2..] itself. */
#ifndef RMB_COMMANDS_H
#define RMB_COMMANDS_H
int join_main(int argc, char **argv);
int query_main(int argc, char **argv);
int lock_main(int argc, char **argv);
int lock_trace_main(int argc, char **argv);
int calibrate_main(int argc, char **argv);
int record_main(int argc, char **argv);
int membw_main(int argc, char **argv);
int rdmo_main(int argc, char **argv);
int aggregate_main(int argc, char **argv);
#endif
