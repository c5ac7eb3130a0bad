/* The placement fraction's arithmetic on synthetic page lists (what one NUMA node cannot show):
 * pages on several nodes, several intended nodes, pages with errors not counted, empty samples,
 * and the worst value accumulated over checks. */
#include <errno.h>
#include <math.h>

#include "tests/check.h"
#include "bench/numa_policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

int main(void)
{
    /* 8 pages, half on node 0, half on node 1 */
    const int half[] = {0, 1, 0, 1, 1, 0, 1, 0};
    const int n0[] = {0}, n1[] = {1}, n01[] = {0, 1}, n10[] = {1, 0}, n2[] = {2};
    numa_placement_count c = numa_placement_tally(half, N(half), n0, 1);
    CHECK_EQ_U64(c.counted, 8);
    CHECK_EQ_U64(c.on_intended, 4);
    CHECK(near(numa_placement_fraction(c), 0.5));
    CHECK(near(numa_placement_fraction(numa_placement_tally(half, N(half), n1, 1)), 0.5));
    CHECK(near(numa_placement_fraction(numa_placement_tally(half, N(half), n01, 2)), 1.0));
    CHECK(near(numa_placement_fraction(numa_placement_tally(half, N(half), n10, 2)), 1.0));
    CHECK(near(numa_placement_fraction(numa_placement_tally(half, N(half), n2, 1)), 0.0));
    /* no intended node: nothing is on it */
    CHECK(near(numa_placement_fraction(numa_placement_tally(half, N(half), n0, 0)), 0.0));

    /* empty sample: nothing counted, fraction undefined (-1), not 0 or 1 */
    c = numa_placement_tally(half, 0, n0, 1);
    CHECK_EQ_U64(c.counted, 0);
    CHECK(numa_placement_fraction(c) < 0);

    /* pages not present (-ENOENT) or unmapped (-EFAULT) are not counted */
    const int errs[] = {0, -ENOENT, 1, -EFAULT, -ENOENT, 0, -EACCES};
    c = numa_placement_tally(errs, N(errs), n0, 1);
    CHECK_EQ_U64(c.counted, 3);
    CHECK_EQ_U64(c.on_intended, 2);
    CHECK(near(numa_placement_fraction(c), 2.0 / 3.0));
    const int only_errs[] = {-ENOENT, -ENOENT, -EFAULT};
    CHECK(numa_placement_fraction(numa_placement_tally(only_errs, N(only_errs), n0, 1)) < 0);

    /* 3 of 4 on node 1 with intended {0}: 0.25 */
    const int skewed[] = {1, 1, 0, 1};
    CHECK(near(numa_placement_fraction(numa_placement_tally(skewed, N(skewed), n0, 1)), 0.25));

    /* worst over checks: starts undefined, keeps the minimum, ignores undefined fractions */
    CHECK(numa_placement_worst() < 0);
    numa_placement_record(-1);
    CHECK(numa_placement_worst() < 0);
    numa_placement_record(0.75);
    CHECK(near(numa_placement_worst(), 0.75));
    numa_placement_record(1.0);
    CHECK(near(numa_placement_worst(), 0.75));
    numa_placement_record(0.5);
    numa_placement_record(-1);
    CHECK(near(numa_placement_worst(), 0.5));
    CHECK_DONE();
}
