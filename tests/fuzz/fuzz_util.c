#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "%s:%d: invariant violated: %s: ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static char scratch[512];

static void remove_scratch(void) { unlink(scratch); }

const char *fuzz_scratch_path(void)
{
    if (!scratch[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%s/rmb-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(scratch);
        if (fd < 0) { perror(scratch); abort(); }
        close(fd);
        atexit(remove_scratch);
    }
    return scratch;
}

void fuzz_scratch_write(const void *data, size_t size)
{
    int fd = open(fuzz_scratch_path(), O_WRONLY | O_TRUNC | O_CREAT, 0600);
    if (fd < 0) { perror(scratch); abort(); }
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n <= 0) { perror(scratch); abort(); }
        p += n;
        size -= (size_t)n;
    }
    close(fd);
}

char *fuzz_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); abort(); }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = 0;
    *size = len;
    return buf;
}

void fuzz_check_error(const char *err, const char *what)
{
    FUZZ_ASSERT(err[0] != 0, "%s failed without a message", what);
}
