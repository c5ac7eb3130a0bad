/* Cache sizes of this machine as the kernel reports them (sysfs, read from the CPU's own cache
 * descriptors), else as glibc's sysconf does. They differ: glibc can report an L3 ten times the
 * size sysfs and lscpu give, and buffers sized from it would stream far longer than STREAM's rule
 * asks (docs/measurements.md, "From code comments"). One reader for the whole project: the radix
 * join's leaves and the
 * sort-merge join's runs (L2), the roofline and calibrate's cache evictor (last level). MPI-free. */
#ifndef RMB_CACHE_SIZE_H
#define RMB_CACHE_SIZE_H
#include <stdint.h>

/* Bytes of one data or unified cache of `level` (1-4) as cpu0 sees it (all ranks of a host agree
 * on it, and so on the plans made from it); 0 when neither sysfs nor sysconf knows. */
uint64_t rmb_cache_bytes(int level);

/* The last level of cache of the whole machine: the highest level's size times its instances (the
 * online CPUs over the CPUs sharing cpu0's, at least 1), in *instances when not NULL; 0 (and 1
 * instance) when unknown. */
uint64_t rmb_llc_bytes(int *instances);

/* The text of a sysfs cache size ("32768K", "1024K", "32M", "1G", "512"; a trailing newline
 * allowed) in bytes; 0 for anything else. */
uint64_t rmb_cache_parse_size(const char *text);

/* How many CPUs a sysfs CPU list names ("0-1", "0,2,4-7"); 0 for anything else. */
int rmb_cpu_list_count(const char *text);

#endif
