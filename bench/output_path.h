/* Outputs that cannot hurt: the one writer of every command's --output (CSV rows, parameter files,
 * lock traces; plots/rmaplots/safeio.py is its Python side). A path is usable when it does not exist
 * (its directory must be writable) or is a regular file; a symbolic link counts as what it resolves
 * to. A directory, a device node, a FIFO, a socket or a dangling link is refused: writing to them
 * would block, fill a device or replace something the command did not create.
 *
 * The rule for an output that exists: rows are appended to a results CSV (whole rows under the same
 * header, never a file of other columns); a whole file (a parameter file, a trace, a figure, a
 * report) that exists is refused unless the command was given --force, which replaces it.
 *
 * Nothing is left half-written: the writer ignores SIGXFSZ (a file-size limit then fails the write
 * with EFBIG instead of killing the process mid-row) and checks every write. A row that cannot be
 * written whole is cut back off (a file this call created is removed again); a whole file is written
 * to a temporary file beside its target and renamed onto it when complete, and on every error, and on
 * SIGINT, SIGTERM or SIGHUP while it is open, the temporary is removed and the target is as before.
 * Messages are "PATH: reason", the path shortened by opt_shown. MPI-free. */
#ifndef RMB_OUTPUT_PATH_H
#define RMB_OUTPUT_PATH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* How the command writes: appends to the file itself (CSV rows: an existing file must be
 * writable), writes a whole file that must not exist yet (OUTPUT_NEW: an existing one is refused,
 * naming --force), or replaces it by a temporary file renamed onto it (OUTPUT_REPLACE, --force: the
 * directory must be writable). */
typedef enum { OUTPUT_APPEND, OUTPUT_REPLACE, OUTPUT_NEW } output_mode;

/* What a path that is not a regular file is, for messages ("a FIFO", "a directory", ...): the
 * writer's and the opener's (bench/text_input.h) words. */
const char *output_kind_of(mode_t m);

/* 0 when path may be written, else -1 with "PATH: reason" in err. Nothing is created. */
int output_path_check(const char *path, output_mode mode, char *err, size_t errlen);

/* 0 when the file system that would hold path has room for about `bytes` more (what a whole file
 * the command is about to write will take), else -1 with "PATH: needs about X, its file system has Y
 * free" in err: refused before the work, as memory is (where the space cannot be read: 0). */
int output_space_check(const char *path, uint64_t bytes, char *err, size_t errlen);

/* Opens path for appending (created 0644 less the umask when absent; *created says whether this
 * call created it) and checks on the open descriptor that it is a regular file, so that a path
 * swapped after output_path_check is refused too; never blocks on a FIFO. The descriptor, or -1
 * with "PATH: reason" and nothing written. */
int output_open_append(const char *path, bool *created, char *err, size_t errlen);

/* A whole file written beside its target and renamed into place. */
typedef struct {
    char *target; /* the path the rename replaces: --output, or what its symbolic link resolves to */
    char *tmp;    /* the temporary file in target's directory */
    const char *shown; /* the path as the user gave it, for messages */
    FILE *f;      /* open for writing on tmp */
} output_file;

/* Checks path (output_path_check: OUTPUT_REPLACE when `replace`, the command's --force, else
 * OUTPUT_NEW) and creates the temporary file (mode 0666 less the umask). 0, or -1 with
 * "PATH: reason" and nothing created. */
int output_file_begin(output_file *o, const char *path, bool replace, char *err, size_t errlen);
/* Flushes, syncs and closes the temporary, checks the target again and renames the temporary onto
 * it. 0, or -1 with "PATH: reason"; either way o is released and no temporary is left. */
int output_file_commit(output_file *o, char *err, size_t errlen);
/* Closes and removes the temporary; o is released. Safe after a failed begin. */
void output_file_abort(output_file *o);
/* The temporary's name while o is open (NULL otherwise). */
const char *output_file_tmp(const output_file *o);

/* Every writer calls it before its first write (the functions above do): SIGXFSZ ignored, so that a
 * write beyond the file-size limit fails (EFBIG) and is rolled back instead of killing the process. */
void output_guard_signals(void);

#endif
