#include "bench/text_input.h"

#include "bench/options.h"
#include "bench/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *text_open(const char *path, char *err, size_t errlen)
{
    char sh[OPT_SHOWN_MAX];
    if (!path || !*path) {
        snprintf(err, errlen, "(empty): needs a file name");
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO without a writer returns at once (and is refused below) */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", opt_shown(path, sh), strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot check: %s", opt_shown(path, sh), strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", opt_shown(path, sh), output_kind_of(st.st_mode));
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", opt_shown(path, sh), strerror(errno));
        close(fd);
    }
    return f;
}

int text_read_line(FILE *f, char *buf, size_t cap, char *why, size_t whylen)
{
    size_t len = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == 0) {
            snprintf(why, whylen, "NUL byte at column %zu: not a text file", len + 1);
            return -1;
        }
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            snprintf(why, whylen, "binary data (byte 0x%02x at column %zu): not a text file", (unsigned)c, len + 1);
            return -1;
        }
        if (len + 1 >= cap) {
            snprintf(why, whylen, "line longer than %zu characters", cap - 1);
            return -1;
        }
        buf[len++] = (char)c;
    }
    if (c == EOF && ferror(f)) {
        snprintf(why, whylen, "read error: %s", strerror(errno));
        return -1;
    }
    if (c == EOF && len == 0) return 0;
    if (c == EOF) {
        snprintf(why, whylen, "the last line has no newline: the file ends mid-line (cut short?)");
        return -1;
    }
    if (len > 0 && buf[len - 1] == '\r') len--;
    buf[len] = 0;
    return 1;
}
