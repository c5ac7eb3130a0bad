/* The registry of the radix network pass's designs (exchange.h says what a design is), as the
 * commands see it: by --exchange's index, without the radix join's internals. */
#ifndef RMB_RADIX_EXCHANGE_REGISTRY_H
#define RMB_RADIX_EXCHANGE_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct radix_exchange_design radix_exchange_design;

/* The designs, in --exchange's order (the list of joins/radix/meson.build), NULL-terminated; the
 * first, put, is the default. --exchange is an index into it: a design that is not here cannot be
 * chosen. */
extern const radix_exchange_design *const radix_exchange_designs[];
/* Their names in that order, NULL-terminated (--exchange's choices, the CSV's exchange column). */
const char *const *radix_exchange_names(void);
/* Whether design i visits one peer at a time, in --schedule's order (the others refuse one). */
bool radix_exchange_takes_schedule(int i);
/* "NAME1, NAME2 and NAME3" of the designs that take a --schedule (last_sep: " and " or " or "). */
void radix_exchange_schedule_names(const char *last_sep, char *buf, size_t len);
/* --exchange's help: "network pass: HOW (NAME), ..." */
void radix_exchange_help(char *buf, size_t len);
/* `rmabench join --list-exchanges`: one line per design, its name and the --schedule values it takes. */
void radix_exchange_list(FILE *f, const char *const *schedule_names);

#endif
