/* The registry of the network pass's designs (joins/radix/exchange.h): every design complete (name,
 * help, run, buffers), the names distinct and in --exchange's order with put, the thesis' design,
 * first (the default); the memory factor follows from the buffers; the help, the schedule names and
 * the list for scripts (--list-exchanges) name every design and no other. MPI-free. */
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "joins/radix/exchange.h"

int main(void)
{
    const char *const *names = radix_exchange_names();
    char help[1024], sched_and[256], listed[1024] = "";
    radix_exchange_help(help, sizeof help);
    radix_exchange_schedule_names(" and ", sched_and, sizeof sched_and);
    FILE *f = fmemopen(listed, sizeof listed - 1, "w");
    const char *const schedules[] = {"as-is", "staggered", "random", NULL};
    radix_exchange_list(f, schedules);
    fclose(f);
    int n = 0, scheduled = 0;
    for (; radix_exchange_designs[n]; n++) {
        const radix_exchange_design *d = radix_exchange_designs[n];
        CHECK(d->name && d->name[0] && strcmp(names[n], d->name) == 0);
        CHECK(d->help && d->help[0] && d->run);
        CHECK(d->buffers >= RADIX_XBUF_NONE && d->buffers <= RADIX_XBUF_PACK_RECV);
        const int copies = radix_exchange_copies(d);
        CHECK(copies == (d->buffers == RADIX_XBUF_NONE ? 0 : d->buffers == RADIX_XBUF_PACK_RECV ? 2 : 1));
        CHECK(radix_exchange_takes_schedule(n) == d->schedule);
        for (int k = 0; k < n; k++) CHECK(strcmp(names[k], d->name) != 0);
        char want[256];
        snprintf(want, sizeof want, "%s (%s)", d->help, d->name);
        CHECK(strstr(help, want) != NULL);
        snprintf(want, sizeof want, "%s%s%s\n", n ? "\n" : "", d->name, d->schedule ? " as-is staggered random" : " as-is");
        CHECK(n ? strstr(listed, want) != NULL : strncmp(listed, want, strlen(want)) == 0);
        CHECK(!d->schedule || strstr(sched_and, d->name));
        scheduled += d->schedule;
        printf("%-10s schedule %-3s copies %d: %s\n", d->name, d->schedule ? "yes" : "no", copies, d->help);
    }
    CHECK(names[n] == NULL);
    CHECK(n >= 4);
    CHECK(strcmp(names[0], "put") == 0 && radix_exchange_designs[0]->buffers == RADIX_XBUF_NONE);
    int lines = 0;
    for (const char *c = listed; *c; c++) lines += *c == '\n';
    CHECK(lines == n);
    CHECK(scheduled >= 2 && strstr(sched_and, " and ") != NULL);
    printf("%d designs; --exchange help: %s\nschedule: %s\n", n, help, sched_and);
    CHECK_DONE();
}
