/* Preloaded into sanitizer and valgrind runs only: MPI libraries dlclose their plug-ins
 * (MCA components, PMIx, UCX) at finalize, after which LeakSanitizer reports their leftovers
 * as "<unknown module>" and no suppression by library name can match them. Keeping the plug-ins
 * mapped lets tests/sanitizers/lsan.supp name the MPI libraries instead of silencing leaks. */
int dlclose(void *handle);
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
