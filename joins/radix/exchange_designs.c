/* The registry of the network pass's designs (exchange_registry.h): the list of joins/radix/meson.build,
 * generated into RADIX_EXCHANGE_DESIGNS(X), and what --exchange, the help and the plan read of it. */
#include <string.h>

#include "joins/radix/exchange.h"
#include "joins/radix/exchange_list.h" /* generated: RADIX_EXCHANGE_DESIGNS(X), joins/radix/meson.build */

#define DECLARE(name) extern const radix_exchange_design radix_exchange_##name;
RADIX_EXCHANGE_DESIGNS(DECLARE)
#define ENTRY(name) &radix_exchange_##name,
const radix_exchange_design *const radix_exchange_designs[] = {RADIX_EXCHANGE_DESIGNS(ENTRY) NULL};
enum { NDESIGNS = sizeof radix_exchange_designs / sizeof radix_exchange_designs[0] - 1 };

const char *const *radix_exchange_names(void)
{
    static const char *names[NDESIGNS + 1];
    for (int i = 0; i < NDESIGNS; i++) names[i] = radix_exchange_designs[i]->name;
    return names;
}

bool radix_exchange_takes_schedule(int i) { return radix_exchange_designs[i]->schedule; }

int radix_exchange_copies(const radix_exchange_design *d)
{
    switch (d->buffers) {
    case RADIX_XBUF_NONE: return 0;
    case RADIX_XBUF_PACK:
    case RADIX_XBUF_PACK_WINDOW: return 1;
    case RADIX_XBUF_PACK_RECV: return 2;
    }
    return 0;
}

/* Appends s to buf (truncated at len). */
static void append(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < len) snprintf(buf + n, len - n, "%s", s);
}

void radix_exchange_schedule_names(const char *last_sep, char *buf, size_t len)
{
    int n = 0, k = 0;
    for (int i = 0; i < NDESIGNS; i++) n += radix_exchange_designs[i]->schedule;
    buf[0] = 0;
    for (int i = 0; i < NDESIGNS; i++) {
        if (!radix_exchange_designs[i]->schedule) continue;
        if (k++) append(buf, len, k == n ? last_sep : ", ");
        append(buf, len, radix_exchange_designs[i]->name);
    }
}

void radix_exchange_help(char *buf, size_t len)
{
    snprintf(buf, len, "network pass:");
    for (int i = 0; i < NDESIGNS; i++) {
        append(buf, len, i ? ", " : " ");
        append(buf, len, radix_exchange_designs[i]->help);
        append(buf, len, " (");
        append(buf, len, radix_exchange_designs[i]->name);
        append(buf, len, ")");
    }
}

void radix_exchange_list(FILE *f, const char *const *schedule_names)
{
    for (int i = 0; i < NDESIGNS; i++) {
        fprintf(f, "%s", radix_exchange_designs[i]->name);
        for (int s = 0; schedule_names[s] && (s == 0 || radix_exchange_designs[i]->schedule); s++)
            fprintf(f, " %s", schedule_names[s]);
        fprintf(f, "\n");
    }
}
