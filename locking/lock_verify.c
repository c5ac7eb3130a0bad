#include "locking/lock_verify.h"

lock_verdict lock_verify(const lock_opts *o, const lock_totals *t)
{
    lock_verdict v;
    const server_stats *s = &t->servers;
    v.invariants_ok = lock_oracle_violations(&s->oracle) == 0 && t->agents.commits_against_vote == 0 &&
                      s->lt.counter_leaks == 0 && s->active_locks_end == 0 && s->active_txns_end == 0;
    v.bank_ok = lock_workload_of(o)->data != WL_DATA_BALANCES ||
                (t->bank_accounts_wrong == 0 && t->bank_sum == o->accounts * BANK_INITIAL_BALANCE);
    v.pass = v.invariants_ok && v.bank_ok;
    return v;
}
