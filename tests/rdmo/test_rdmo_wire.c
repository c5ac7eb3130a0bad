/* rdmo/wire.h: a message packed into stamped words comes back byte for byte; a slot is complete
 * only when every word of the message carries the expected stamp (a word still in flight, a word
 * of an older message or a zeroed slot is not); a header claiming more than the slot is refused. */
#include <string.h>

#include "rdmo/wire.h"
#include "tests/check.h"

int main(void)
{
    unsigned long long rng = 88172645463325252ULL;
    enum { SLOT_WORDS = 32 };
    uint64_t slot[SLOT_WORDS];
    unsigned char msg[SLOT_WORDS * RDMO_WORD_PAYLOAD], back[sizeof msg];
    for (int len = 0; len + (int)sizeof(rdmo_hdr) <= (int)sizeof msg; len += 13) {
        const int n = (int)sizeof(rdmo_hdr) + len;
        rdmo_hdr h = {7, 3, 0, (uint16_t)len, 0, 5};
        memcpy(msg, &h, sizeof h);
        for (int i = 0; i < len; i++) msg[sizeof h + i] = (unsigned char)check_rand(&rng);
        memset(slot, 0, sizeof slot);
        CHECK(!rdmo_wire_complete(slot, SLOT_WORDS, 1)); /* zeroed: nothing there */
        rdmo_wire_pack(9, msg, n, slot);
        CHECK(rdmo_wire_complete(slot, SLOT_WORDS, 9));
        CHECK(!rdmo_wire_complete(slot, SLOT_WORDS, 10));
        memset(back, 0, sizeof back);
        CHECK_EQ_U64(rdmo_wire_unpack(slot, SLOT_WORDS, back, (int)sizeof back), n);
        CHECK(memcmp(back, msg, (size_t)n) == 0);
        /* the last word not yet arrived (still the previous message's stamp) */
        const int nw = rdmo_wire_words(n);
        if (nw > 1) {
            slot[nw - 1] = (slot[nw - 1] & ~(0xffULL << 56)) | (8ULL << 56);
            CHECK(!rdmo_wire_complete(slot, SLOT_WORDS, 9));
            slot[nw - 1] = 0;
            CHECK(!rdmo_wire_complete(slot, SLOT_WORDS, 9));
        }
        CHECK(rdmo_wire_unpack(slot, SLOT_WORDS, back, n - 1) == -1); /* longer than the buffer */
    }
    /* a header whose len runs past the slot: complete is decided on the slot's words, unpack refuses */
    rdmo_hdr h = {1, 1, 0, 60000, 0, 1};
    memcpy(msg, &h, sizeof h);
    rdmo_wire_pack(4, msg, (int)sizeof msg, slot);
    CHECK(rdmo_wire_unpack(slot, SLOT_WORDS, back, (int)sizeof back) == -1);
    /* stamps run 1..255 and never 0 */
    CHECK_EQ_U64(rdmo_stamp_next(255), 1);
    CHECK_EQ_U64(rdmo_stamp_next(0), 1);
    CHECK_EQ_U64(rdmo_stamp_next(41), 42);
    CHECK_EQ_U64(rdmo_wire_capacity(1024), 896);
    CHECK_DONE();
}
