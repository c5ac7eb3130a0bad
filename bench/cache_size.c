/* Cache sizes from /sys/devices/system/cpu/cpu0/cache/index<i>/{level,type,size,shared_cpu_list},
 * sysconf where sysfs has none (other systems, containers that hide it). See cache_size.h. */
#include "bench/cache_size.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_INDEX = 16, TEXT = 256 };

uint64_t rmb_cache_parse_size(const char *text)
{
    if (!text || !isdigit((unsigned char)*text)) return 0;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*text); text++) {
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*text - '0');
    }
    int shift = 0;
    switch (*text) {
    case 'K': shift = 10; text++; break;
    case 'M': shift = 20; text++; break;
    case 'G': shift = 30; text++; break;
    default: break;
    }
    if (*text == '\n') text++;
    if (*text != '\0' || v > UINT64_MAX >> shift) return 0;
    return v << shift;
}

int rmb_cpu_list_count(const char *text)
{
    if (!text) return 0;
    int count = 0;
    while (*text && *text != '\n') {
        char *end;
        if (!isdigit((unsigned char)*text)) return 0;
        long a = strtol(text, &end, 10), b = a;
        text = end;
        if (*text == '-') {
            if (!isdigit((unsigned char)text[1])) return 0;
            b = strtol(text + 1, &end, 10);
            text = end;
        }
        if (b < a || b - a > 1 << 20) return 0;
        count += (int)(b - a + 1);
        if (*text == ',') text++;
        else if (*text && *text != '\n') return 0;
    }
    return count;
}

/* The first line of cpu0's cache index file `name`, "" when there is none. */
static void read_index(int index, const char *name, char *buf)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, TEXT, f)) buf[0] = '\0';
    fclose(f);
}

/* The sysfs index of cpu0's data or unified cache of `level` (the highest level when level is 0);
 * -1 when sysfs lists none. */
static int find_index(int level)
{
    int best = -1, best_level = 0;
    for (int i = 0; i < MAX_INDEX; i++) {
        char type[TEXT], lv[TEXT];
        read_index(i, "type", type);
        if (!type[0]) continue;
        if (strncmp(type, "Data", 4) != 0 && strncmp(type, "Unified", 7) != 0) continue;
        read_index(i, "level", lv);
        const int l = (int)strtol(lv, NULL, 10);
        if (level ? l == level : l > best_level) {
            best = i;
            best_level = l;
            if (level) break;
        }
    }
    return best;
}

static uint64_t index_bytes(int index)
{
    char size[TEXT];
    read_index(index, "size", size);
    return rmb_cache_parse_size(size);
}

static uint64_t sysconf_bytes(int level)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE /* glibc's names (all four together); elsewhere sysfs alone */
    static const int name[] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE};
    const long v = level >= 1 && level <= 4 ? sysconf(name[level - 1]) : -1;
    return v > 0 ? (uint64_t)v : 0;
#else
    (void)level;
    return 0;
#endif
}

/* The sizes do not change while a process runs: read once (the plans ask for the L2 at every run,
 * each time up to a dozen sysfs files). Level 0 holds the last level's, with its instances. */
static struct {
    int read;
    uint64_t bytes;
    int instances;
} known[5];

uint64_t rmb_cache_bytes(int level)
{
    if (level < 1 || level > 4) return 0;
    if (!known[level].read) {
        const int i = find_index(level);
        const uint64_t b = i >= 0 ? index_bytes(i) : 0;
        known[level].bytes = b ? b : sysconf_bytes(level);
        known[level].read = 1;
    }
    return known[level].bytes;
}

uint64_t rmb_llc_bytes(int *instances)
{
    if (!known[0].read) {
        int n = 1;
        const int i = find_index(0);
        uint64_t b = i >= 0 ? index_bytes(i) : 0;
        if (b) {
            char list[TEXT];
            read_index(i, "shared_cpu_list", list);
            const long online = sysconf(_SC_NPROCESSORS_ONLN);
            const int sharing = rmb_cpu_list_count(list);
            if (online > 0 && sharing > 0 && online > sharing) n = (int)((online + sharing - 1) / sharing);
        } else {
            for (int level = 4; level >= 2 && !b; level--) b = sysconf_bytes(level);
        }
        known[0].bytes = b * (uint64_t)n;
        known[0].instances = n;
        known[0].read = 1;
    }
    if (instances) *instances = known[0].instances;
    return known[0].bytes;
}
