#include "locking/modes.h"

#include <stddef.h>

const char *const lock_mode_names[] = {"NL", "IS", "IX", "S", "SIX", "X", NULL};

/* Table 2.1a, rows: requested mode, columns: granted mode (NL IS IX S SIX X). */
static const bool compat[LOCK_NMODES][LOCK_NMODES] = {
    /* NL  */ {true, true, true, true, true, true},
    /* IS  */ {true, true, true, true, true, false},
    /* IX  */ {true, true, true, false, false, false},
    /* S   */ {true, true, false, true, false, false},
    /* SIX */ {true, true, false, false, false, false},
    /* X   */ {true, false, false, false, false, false},
};

bool lock_compatible(lock_mode req, lock_mode held)
{
    if ((unsigned)req >= LOCK_NMODES || (unsigned)held >= LOCK_NMODES) return false;
    return compat[req][held];
}

/* Table 2.1b: the strongest granted mode. S and IX together (never granted at once, as they are
 * incompatible) would count as SIX, the least mode covering both. */
lock_mode lock_mode_of(const uint32_t granted[LOCK_NMODES])
{
    if (granted[LOCK_X]) return LOCK_X;
    if (granted[LOCK_SIX] || (granted[LOCK_S] && granted[LOCK_IX])) return LOCK_SIX;
    if (granted[LOCK_S]) return LOCK_S;
    if (granted[LOCK_IX]) return LOCK_IX;
    if (granted[LOCK_IS]) return LOCK_IS;
    return LOCK_NL;
}
