/* What a lock workload produces: one transaction at a time, as the list of locks it takes in order.
 * Lock ids form one global space [0, lock_space); server s of S owns the equal, contiguous range
 * [s * lock_space / S, (s + 1) * lock_space / S). */
#ifndef RMB_LOCK_WORKLOAD_H
#define RMB_LOCK_WORKLOAD_H
#include <stdint.h>

#include "locking/modes.h"

typedef struct {
    uint64_t lock_id;
    lock_mode mode;
} lock_request;

#define LOCK_TXN_MAX 256 /* most locks one transaction may take */

#endif
