/* Shared by the fuzz targets (libFuzzer entry points, also built with replay_main.c for gcc):
 * invariant checks that abort with a message, so that libFuzzer and the replayer both report them,
 * and a scratch file holding the input for readers that take a path. */
#ifndef RMB_FUZZ_H
#define RMB_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_ASSERT(cond, ...) \
    do { if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)
_Noreturn void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Path of this process's scratch file (created once, under $TMPDIR or /tmp). */
const char *fuzz_scratch_path(void);
/* Replace the scratch file's content. */
void fuzz_scratch_write(const void *data, size_t size);
/* Read a whole file (NUL-terminated, *size without the NUL); caller frees. */
char *fuzz_read_file(const char *path, size_t *size);
/* One line of an error message: non-empty. */
void fuzz_check_error(const char *err, const char *what);

#endif
