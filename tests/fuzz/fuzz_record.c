/* Fuzz target: reading an existing results file (bench/record.c). The input is the file's
 * content up to the first "\n--ROW--\n" marker; what follows it is the value of one column of the
 * row to append (any bytes: commas, quotes, newlines). Invariants:
 *  - record_check_path and record_append agree: the check passes exactly when the append works;
 *  - a refused append leaves the file byte for byte as it was, with a message naming the file;
 *  - a successful append adds exactly the header (only to an empty file) and the row, each
 *    ending in a newline, so that the file afterwards ends with a whole line;
 *  - the row's text has as many fields as the header, by an RFC 4180 reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "bench/record.h"
#include "cmd/results_schema.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return 0;
}

/* Fields of one CSV record by RFC 4180, -1 when quoting is broken. */
static int csv_fields(const char *s)
{
    int n = 1;
    int quoted = 0;
    for (; *s; s++) {
        if (quoted) {
            if (*s == '"') {
                if (s[1] == '"') s++;
                else quoted = 0;
            }
        } else if (*s == '"') {
            quoted = 1;
        } else if (*s == ',') {
            n++;
        }
    }
    return quoted ? -1 : n;
}

static const char marker[] = "\n--ROW--\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *d = (const char *)data;
    size_t file_len = size;
    const char *value = "";
    char *vbuf = NULL;
    const char *m = memmem(d, size, marker, sizeof marker - 1);
    if (m) {
        file_len = (size_t)(m - d);
        size_t vlen = size - file_len - (sizeof marker - 1);
        vbuf = malloc(vlen + 1);
        memcpy(vbuf, m + sizeof marker - 1, vlen);
        vbuf[vlen] = 0;
        value = vbuf; /* stops at an embedded NUL, as a C string would */
    }
    fuzz_scratch_write(d, file_len);
    const char *path = fuzz_scratch_path();

    char err1[512] = "", err2[512] = "";
    int check = record_check_path(&results_schema, path, err1, sizeof err1);
    if (check) {
        fuzz_check_error(err1, "record_check_path");
        FUZZ_ASSERT(strncmp(err1, path, strlen(path)) == 0, "check error does not name the file: %s", err1);
    }

    record *r = record_new(&results_schema);
    record_set(r, "bench", "join");
    record_set(r, "status", "ok");
    record_set(r, "command", "%s", value);
    record_set(r, "hostnames", "%s,%s", value, "node\"2\"");
    int app = record_append(r, path, err2, sizeof err2);

    size_t after_len;
    char *after = fuzz_read_file(path, &after_len);
    char *row = record_row_line(r), *hdr = record_header_line(&results_schema);
    FUZZ_ASSERT(csv_fields(row) == results_schema.n, "row has %d fields, header %d", csv_fields(row), results_schema.n);
    FUZZ_ASSERT((check == 0) == (app == 0), "check %d but append %d (%s | %s)", check, app, err1, err2);
    if (app) {
        fuzz_check_error(err2, "record_append");
        FUZZ_ASSERT(strncmp(err2, path, strlen(path)) == 0, "append error does not name the file: %s", err2);
        FUZZ_ASSERT(after_len == file_len && memcmp(after, d, file_len) == 0, "a refused append changed the file");
    } else {
        FUZZ_ASSERT(after_len > file_len && memcmp(after, d, file_len) == 0, "the append rewrote existing bytes");
        const char *added = after + file_len;
        size_t hl = strlen(hdr), rl = strlen(row);
        if (file_len == 0) {
            FUZZ_ASSERT(after_len == hl + 1 + rl + 1 && memcmp(added, hdr, hl) == 0 && added[hl] == '\n' &&
                            memcmp(added + hl + 1, row, rl) == 0 && added[hl + 1 + rl] == '\n',
                        "a new file does not hold exactly the header and the row");
        } else {
            /* a last line without its newline gets one first, so the row is a whole line of its own */
            if (d[file_len - 1] != '\n') {
                FUZZ_ASSERT(*added == '\n', "a row was appended to a file whose last line is not whole: it joins that line");
                added++;
                after_len--;
            }
            FUZZ_ASSERT(after_len == file_len + rl + 1 && memcmp(added, row, rl) == 0 && added[rl] == '\n',
                        "the append added other bytes than the row and a newline");
        }
    }
    free(row);
    free(hdr);
    free(after);
    record_free(r);
    free(vbuf);
    return 0;
}
