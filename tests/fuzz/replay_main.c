/* Runs a fuzz target over files given on the command line, once each: the committed corpus and
 * crash reproducers as regression tests in builds without libFuzzer (gcc: build, build-mpich,
 * build-asan). A violated invariant or a sanitizer report aborts with the file's name printed. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int n = 0;
    for (int i = 1; i < argc; i++) {
        size_t size;
        char *data = fuzz_read_file(argv[i], &size);
        fprintf(stderr, "replay %s (%zu bytes)\n", argv[i], size);
        LLVMFuzzerTestOneInput((const unsigned char *)data, size);
        free(data);
        n++;
    }
    printf("replayed %d inputs, no invariant violated\n", n);
    return n > 0 ? 0 : 1;
}
