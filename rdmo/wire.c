#include "rdmo/wire.h"

#include <string.h>

void rdmo_wire_pack(uint8_t stamp, const void *bytes, int n, uint64_t *words)
{
    const unsigned char *b = bytes;
    const int nw = rdmo_wire_words(n);
    for (int w = 0; w < nw; w++) {
        uint64_t v = 0;
        const int k = n - w * RDMO_WORD_PAYLOAD < RDMO_WORD_PAYLOAD ? n - w * RDMO_WORD_PAYLOAD : RDMO_WORD_PAYLOAD;
        for (int i = 0; i < k; i++) v |= (uint64_t)b[w * RDMO_WORD_PAYLOAD + i] << (8 * i);
        words[w] = (uint64_t)stamp << 56 | v;
    }
}

static inline uint64_t load_word(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* The header's len from word 0 (bytes 4 and 5 of the message). */
static int header_len(uint64_t w0) { return (int)((w0 >> 32) & 0xffff); }

bool rdmo_wire_complete(const uint64_t *slot, int max_words, uint8_t stamp)
{
    const uint64_t w0 = load_word(slot);
    if ((uint8_t)(w0 >> 56) != stamp) return false;
    int nw = rdmo_wire_words((int)sizeof(rdmo_hdr) + header_len(w0));
    if (nw > max_words) nw = max_words; /* unpack refuses it */
    for (int w = 1; w < nw; w++)
        if ((uint8_t)(load_word(slot + w) >> 56) != stamp) return false;
    return true;
}

int rdmo_wire_unpack(const uint64_t *slot, int max_words, void *bytes, int cap)
{
    const int n = (int)sizeof(rdmo_hdr) + header_len(load_word(slot));
    const int nw = rdmo_wire_words(n);
    if (n > cap || nw > max_words) return -1;
    unsigned char *b = bytes;
    for (int w = 0; w < nw; w++) {
        const uint64_t v = load_word(slot + w);
        const int k = n - w * RDMO_WORD_PAYLOAD < RDMO_WORD_PAYLOAD ? n - w * RDMO_WORD_PAYLOAD : RDMO_WORD_PAYLOAD;
        for (int i = 0; i < k; i++) b[w * RDMO_WORD_PAYLOAD + i] = (unsigned char)(v >> (8 * i));
    }
    return n;
}
