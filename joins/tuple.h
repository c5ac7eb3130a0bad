/* The joins' 16-byte input tuple: 8-byte key, 8-byte record id (thesis 3.4.1 / 4.3.1). */
#ifndef RMB_TUPLE_H
#define RMB_TUPLE_H
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint64_t rid;
} tuple_t;

#endif
