/* Verification of a lock run (rank 0, on the reduced totals of locking/lock_run.h): the lock
 * tables' invariants (no grant beside a conflicting one, counters matching the holders) and, at the
 * end, no lock and no transaction left; for the bank workload, every account moved exactly by its
 * committed transfers and the sum of balances unchanged. */
#ifndef RMB_LOCK_VERIFY_H
#define RMB_LOCK_VERIFY_H
#include <stdbool.h>

#include "locking/lock_run.h"

typedef struct {
    bool invariants_ok;   /* no violation, nothing left at the end */
    bool bank_ok;         /* true when the workload is not bank */
    bool pass;
} lock_verdict;

lock_verdict lock_verify(const lock_opts *o, const lock_totals *t);

#endif
