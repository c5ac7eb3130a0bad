/* Verification of a lock run (rank 0, on the reduced totals of locking/lock_run.h), from checks
 * that do not trust the grant path (locking/lock_oracle.h): lock_compatible() agrees with Table 2.1
 * restated; no grant beside a conflicting mode of another transaction (the oracle's ledger, unless
 * --no-check); no commit after a no vote (servers' memory of their votes, agents' vote words); every
 * vote followed by its end; at the end no lock, transaction or ledger entry left and no lock entry
 * dropped with a granted counter; for the bank workload, every account moved exactly by its
 * committed transfers and the sum of balances unchanged. */
#ifndef RMB_LOCK_VERIFY_H
#define RMB_LOCK_VERIFY_H
#include <stdbool.h>

#include "locking/lock_run.h"

typedef struct {
    bool invariants_ok;   /* no violation of the lock protocol, nothing left at the end */
    bool bank_ok;         /* true when the workload is not bank */
    bool pass;
} lock_verdict;

lock_verdict lock_verify(const lock_opts *o, const lock_totals *t);

#endif
