/* Reading text files that come from outside (model parameter files, lock traces): one line at a
 * time with a bound on its length, refusing bytes that text does not hold. A binary file,
 * /dev/zero or /dev/urandom so ends the reader on its first line with a reason, instead of reading
 * forever (fgets cannot tell a NUL byte from the end of the line). MPI-free. */
#ifndef RMB_TEXT_INPUT_H
#define RMB_TEXT_INPUT_H
#include <stddef.h>
#include <stdio.h>

/* Reads the next line of f into buf (at most cap - 1 characters, NUL-terminated), without its
 * newline and without a CR before it. A last line without a newline is a line too. Returns 1, 0 at
 * the end of the file, or -1 with the reason in why: a NUL byte, a control character other than
 * tab and CR (binary data), a line longer than cap - 1 characters, a read error. */
int text_read_line(FILE *f, char *buf, size_t cap, char *why, size_t whylen);

#endif
