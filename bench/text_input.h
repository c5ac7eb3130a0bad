/* Reading text files that come from outside (model parameter files, lock traces; the Python side is
 * plots/rmaplots/safeio.py): the one opener, which takes only a regular file, and one line at a time
 * with a bound on its length, refusing bytes that text does not hold. A FIFO, a device node or a
 * directory is refused before anything is read (reading would block, or never end); a binary file
 * ends the reader on its first line with a reason (fgets cannot tell a NUL byte from the end of the
 * line); a file cut short (its last line without a newline) is refused rather than read as if the
 * cut value were whole. MPI-free. */
#ifndef RMB_TEXT_INPUT_H
#define RMB_TEXT_INPUT_H
#include <stddef.h>
#include <stdio.h>

/* Opens path for reading when it is (or a symbolic link resolves to) a regular file; checked on the
 * open descriptor, which a FIFO cannot block. The stream, or NULL with "PATH: reason" in err (the
 * path shortened by opt_shown): every file input of every command goes through it. */
FILE *text_open(const char *path, char *err, size_t errlen);

/* Reads the next line of f into buf (at most cap - 1 characters, NUL-terminated), without its
 * newline and without a CR before it. Returns 1, 0 at the end of the file, or -1 with the reason in
 * why: a NUL byte, a control character other than tab and CR (binary data), a line longer than
 * cap - 1 characters, a last line without its newline (a file cut short), a read error. */
int text_read_line(FILE *f, char *buf, size_t cap, char *why, size_t whylen);

#endif
