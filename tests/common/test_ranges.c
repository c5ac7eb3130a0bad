/* Header lists in bounded length (bench/ranges.h): arithmetic runs, the cap, host names. */
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "bench/ranges.h"

static char *show(const int *v, int n, int cap)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ranges_print(f, v, n, cap);
    fclose(f);
    return buf;
}

static char *names(const char *list, int count, int shown)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ranges_print_names(f, list, count, shown);
    fclose(f);
    return buf;
}

int main(void)
{
    int seq[4096], odd[2048];
    for (int i = 0; i < 4096; i++) seq[i] = i;
    for (int i = 0; i < 2048; i++) odd[i] = 2 * i + 1;
    char *s;
    CHECK(strcmp(s = show(seq, 4096, 4), "0-4095") == 0);
    free(s);
    CHECK(strcmp(s = show(odd, 4, 4), "1-7/2") == 0);
    free(s);
    CHECK(strcmp(s = show(odd, 2048, 4), "1-4095/2") == 0);
    free(s);
    int two[2] = {3, 7};
    CHECK(strcmp(s = show(two, 2, 4), "3,7") == 0);
    free(s);
    int mixed[7] = {0, 1, 2, 10, 20, 30, 31};
    CHECK(strcmp(s = show(mixed, 7, 4), "0-2,10-30/10,31") == 0);
    free(s);
    CHECK(ranges_count_runs(mixed, 7) == 3);
    CHECK(strcmp(s = show(NULL, 0, 4), "none") == 0);
    free(s);
    /* the cap: scattered values print at most 4 runs whatever their number */
    int scat[1000];
    unsigned long long st = 7;
    for (int i = 0, v = 0; i < 1000; i++) scat[i] = v += 2 + (int)(check_rand(&st) % 5);
    s = show(scat, 1000, 4);
    CHECK(strlen(s) < 80 && strstr(s, " more)") != NULL);
    free(s);
    s = show(scat, 1000, 1000); /* uncapped (--verbose) lists everything */
    CHECK(strlen(s) > 1000 && strstr(s, "more") == NULL);
    free(s);

    CHECK(strcmp(s = names("a;b;c", 3, 4), "a;b;c") == 0);
    free(s);
    CHECK(strcmp(s = names("n1;n2;n3;n4;n5", 5, 4), "n1 ... n5 (5 hosts)") == 0);
    free(s);
    /* a list cut short (ctx->hostnames is 1 KiB): the last name shown is not the last host */
    CHECK(strcmp(s = names("n1;n2;n3", 200, 4), "n1 ... (200 hosts)") == 0);
    free(s);
    CHECK_DONE();
}
