/* The lock workloads' registry (locking/workloads/registry.h): every descriptor complete (name, the
 * generator, the lock space), the names distinct with synthetic first (the default), what a
 * workload needs among what it reads, its transaction types within the agents' counters, its data
 * a known kind; the readers of a flag named in registry order. MPI-free. */
#include <string.h>

#include "tests/check.h"
#include "locking/workloads/registry.h"

int main(void)
{
    const char *const *names = lock_workload_names();
    int n = 0;
    for (; lock_workloads[n]; n++) {
        const wl_desc *d = lock_workloads[n];
        CHECK(d->name && d->name[0] && strcmp(names[n], d->name) == 0);
        CHECK(lock_workload_index(d->name) == n);
        for (int k = 0; k < n; k++) CHECK(strcmp(names[k], d->name) != 0);
        CHECK(d->lock_space && d->open && d->next && d->close);
        CHECK((d->needs & ~d->reads) == 0);
        CHECK(d->ntypes >= 0 && d->ntypes <= LOCK_TXN_TYPES);
        CHECK((d->ntypes > 0) == (d->record_types != NULL) && (d->ntypes > 0) == (d->print_types != NULL));
        CHECK(d->data == WL_DATA_NONE || d->data == WL_DATA_BALANCES || d->data == WL_DATA_ROWS);
        CHECK(d->remote_prob >= 0 && d->remote_prob <= 1 && d->vote_no_prob >= 0 && d->vote_no_prob <= 1);
        CHECK(!d->remote_prob || (d->reads & WL_FLAG_REMOTE_PROB)); /* a default of a flag it reads */
        printf("%-10s reads 0x%02x needs 0x%02x data %d types %d%s%s\n", d->name, d->reads, d->needs, (int)d->data,
               d->ntypes, d->fixed_length ? ", fixed length: " : "", d->fixed_length ? d->fixed_length : "");
    }
    CHECK(names[n] == NULL && n >= 5);
    CHECK(strcmp(names[0], "synthetic") == 0);
    CHECK(lock_workload_index("no-such-workload") == -1);
    /* the readers of each flag: those whose descriptor reads it, in registry order, "a, b and c" */
    for (unsigned bit = WL_FLAG_REMOTE_PROB; bit <= WL_FLAG_TRACE; bit <<= 1) {
        char who[256], want[256] = "";
        int readers = 0, k = 0;
        for (int i = 0; i < n; i++) readers += (lock_workloads[i]->reads & bit) != 0;
        for (int i = 0; i < n; i++) {
            if (!(lock_workloads[i]->reads & bit)) continue;
            strcat(want, k == 0 ? "" : k == readers - 1 ? " and " : ", ");
            strcat(want, names[i]);
            k++;
        }
        lock_workload_readers(bit, ", ", " and ", who, sizeof who);
        CHECK(readers > 0 && strcmp(who, want) == 0);
        printf("flag 0x%02x read by %s\n", bit, who);
    }
    char who[256];
    lock_workload_readers(WL_FLAG_REMOTE_PROB, "|", "|", who, sizeof who);
    CHECK(strncmp(who, "synthetic|", 10) == 0 && strstr(who, "|bank") != NULL);
    printf("%d workloads\n", n);
    CHECK_DONE();
}
