/* Multi-granularity lock modes (thesis Table 2.1). */
#ifndef RMB_MODES_H
#define RMB_MODES_H
#include <stdbool.h>
#include <stdint.h>

typedef enum { LOCK_NL = 0, LOCK_IS, LOCK_IX, LOCK_S, LOCK_SIX, LOCK_X, LOCK_NMODES } lock_mode;

extern const char *const lock_mode_names[]; /* "NL", "IS", "IX", "S", "SIX", "X", NULL */

/* Table 2.1a: may a request in mode `req` be granted while `held` is granted? */
bool lock_compatible(lock_mode req, lock_mode held);
/* Table 2.1b: the lock's mode from its granted counters (one per mode). */
lock_mode lock_mode_of(const uint32_t granted[LOCK_NMODES]);
/* IX, SIX and X: a transaction holding one of these on another host's server runs 2PC. */
static inline bool lock_mode_exclusive_type(lock_mode m) { return m == LOCK_IX || m == LOCK_SIX || m == LOCK_X; }

#endif
