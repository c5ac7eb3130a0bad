/* The plot fixture has exactly the header of this rmabench version (record_header_line): the two
 * come from docs/columns.md by different generators (tests/fixtures/meson.build: the header line;
 * cmd/meson.build: the C schema), which must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "bench/record.h"
#include "cmd/results_schema.h"

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: test_fixture_header FIXTURE.csv\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    static char line[1 << 16];
    if (!fgets(line, sizeof line, f)) { fprintf(stderr, "%s: empty\n", argv[1]); return 1; }
    line[strcspn(line, "\r\n")] = 0;
    char *want = record_header_line(&results_schema);
    if (strcmp(line, want) != 0) {
        fprintf(stderr, "%s: header differs from record_header_line(&results_schema):\n  fixture: %s\n  record:  %s\n"
                        "both come from docs/columns.md: rebuild (ninja -C BUILD fixture), then see cmd/results_columns.py\n",
                argv[1], line, want);
        return 1;
    }
    int rows = 0;
    while (fgets(line, sizeof line, f)) rows++;
    CHECK(rows > 10);
    fclose(f);
    free(want);
    printf("fixture header matches record.c (%d rows)\n", rows);
    CHECK_DONE();
}
