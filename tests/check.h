/* Minimal assertion helpers for the unit tests: a failed CHECK prints file:line and the expression,
 * and the test exits non-zero at the end. */
#ifndef RMB_CHECK_H
#define RMB_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failures;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)
#define CHECK_EQ_U64(a, b)                                                                               \
    do {                                                                                                 \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                   \
        if (a_ != b_) {                                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            check_failures++;                                                                            \
        }                                                                                                \
    } while (0)
/* xorshift64: a small deterministic generator for test data; each test keeps its own state */
static inline unsigned long long check_rand(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}
#define CHECK_DONE()                                                                       \
    do {                                                                                   \
        if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);      \
        return check_failures ? 1 : 0;                                                     \
    } while (0)
#endif
