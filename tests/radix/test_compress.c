/* 16 -> 8 byte compression: round trips at boundary bit widths (key and rid at their maxima, rid
 * bits 1 and 63, no key bits left after the radix bits), the fit rule that --compress refuses by,
 * and the join's format: rids packed as offsets from their relation's first, so that S's record ids
 * (after R's) need no more bits than the larger relation's size. */
#include "tests/check.h"
#include "joins/radix/radix_kernels.h"

static void round_trip(uint64_t key, uint64_t rid, int radix_bits, int rid_bits)
{
    uint64_t w = radix_pack(key, rid, radix_bits, rid_bits);
    uint64_t part = radix_bits >= 64 ? key : key & ((1ull << radix_bits) - 1);
    CHECK_EQ_U64(radix_unpack_rid(w, rid_bits), rid);
    CHECK_EQ_U64(radix_unpack_key(w, part, radix_bits, rid_bits), key);
}

int main(void)
{
    for (int rb = 0; rb <= 20; rb++)
        for (int ridb = 1; ridb <= 64 - 44 + rb && ridb < 64; ridb++) {
            uint64_t kmax = (1ull << 44) - 1, rmax = ridb == 64 ? ~0ull : (1ull << ridb) - 1;
            CHECK(radix_compress_fits(44, rb, ridb, 64));
            round_trip(kmax, rmax, rb, ridb);
            round_trip(1, 0, rb, ridb);
            round_trip(kmax ^ 0x5555, rmax >> 1, rb, ridb);
        }
    /* rid fills the word: key must be entirely radix bits */
    CHECK(radix_compress_fits(10, 10, 64, 64));
    round_trip(1023, ~0ull, 10, 64);
    CHECK(radix_compress_fits(10, 12, 63, 64)); /* more radix bits than key bits */
    round_trip(1000, (1ull << 63) - 1, 12, 63);
    /* refusals */
    CHECK(!radix_compress_fits(45, 0, 20, 64));  /* 65 bits */
    CHECK(!radix_compress_fits(44, 20, 41, 64)); /* 24 + 41 */
    CHECK(radix_compress_fits(44, 20, 40, 64));  /* exactly 64 */
    CHECK(!radix_compress_fits(11, 10, 64, 64));
    CHECK(!radix_compress_fits(10, 0, 65, 64));
    /* key shift: original key bit b sits at b - radix_bits + rid_bits in a packed item */
    radix_format f = {.words = 1, .radix_bits = 4, .rid_bits = 30};
    CHECK(radix_key_shift(&f, 4) == 30);
    CHECK(radix_key_shift(&f, 10) == 36);
    CHECK(radix_key_shift(&f, 100) == 63);
    radix_format g = {.words = 2, .radix_bits = 4, .rid_bits = 64};
    CHECK(radix_key_shift(&g, 10) == 10);
    /* the join's format: |R| = 2^20, |S| = 2^22: S's rids reach 2^22 + 2^20 - 1 (23 bits), their
     * offsets 2^22 - 1 (22 bits) */
    workload w;
    workload_init(&w, UINT64_C(1) << 20, 4, 1.0, 0, 1, 0, 1, false);
    radix_format jf = radix_format_for(&w, true, 5);
    CHECK(jf.words == 1 && jf.radix_bits == 5 && jf.rid_bits == 22);
    CHECK_EQ_U64(jf.rid_base[0], 0);
    CHECK_EQ_U64(jf.rid_base[1], UINT64_C(1) << 20);
    uint64_t last_s_rid = w.r_total + w.s_total - 1, key = 0xABCDE;
    uint64_t packed = radix_pack(key, last_s_rid - jf.rid_base[1], jf.radix_bits, jf.rid_bits);
    CHECK_EQ_U64(radix_unpack_rid(packed, jf.rid_bits) + jf.rid_base[1], last_s_rid);
    CHECK_EQ_U64(radix_unpack_key(packed, key & 31, jf.radix_bits, jf.rid_bits), key);
    radix_format plain = radix_format_for(&w, false, 5);
    CHECK(plain.words == 2 && plain.rid_base[1] == 0); /* plain tuples keep their rids */
    CHECK_DONE();
}
