#include "bench/text_input.h"

#include <errno.h>
#include <string.h>

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
    if (len > 0 && buf[len - 1] == '\r') len--;
    buf[len] = 0;
    return 1;
}
