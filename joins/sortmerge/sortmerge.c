/* placeholder until the sortmerge join lands: always fails verification */
#include "join.h"
static int check(const join_opts *o, const workload *w, int ranks, char *err, size_t errlen)
{ (void)o; (void)w; (void)ranks; (void)err; (void)errlen; return 0; }
static int64_t memory_bytes(const join_opts *o, const workload *w, int ranks) { (void)o; (void)ranks; return (int64_t)(w->r_n + w->s_n) * 16; }
static void run(const join_input *in, join_output *out) { (void)in; out->matches = 0; out->checksum = 0; }
const join_algo sortmerge_join_algo = {"sortmerge", check, memory_bytes, run};
