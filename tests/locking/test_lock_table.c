/* Unit tests of the lock table: Table 2.1 (every pair), FIFO granting, upgrades, release of all
 * locks of a transaction, the timeout / no-wait / wait-die rules, random traffic checked by the
 * oracle (tests/locking/test_lock_oracle.c tests the oracle itself), the hash map and the 2PC vote
 * word encoding. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "locking/hashmap.h"
#include "locking/lock_oracle.h"
#include "locking/lock_table.h"
#include "locking/twopc.h"

/* Table 2.1a as printed in the thesis: rows requested, columns granted (NL IS IX S SIX X). */
static const char *const table_2_1a[LOCK_NMODES] = {
    "yyyyyy", /* NL */
    "yyyyy.", /* IS */
    "yyy...", /* IX */
    "yy.y..", /* S */
    "yy....", /* SIX */
    "y.....", /* X */
};

typedef struct {
    int n;
    lt_answer a[64];
} answers;
static void collect(void *arg, const lt_answer *a)
{
    answers *as = arg;
    if (as->n < 64) as->a[as->n++] = *a;
}

static lt_request req(uint64_t txn, uint64_t age, uint64_t lock, lock_mode m)
{
    return (lt_request){txn, age, lock, (uint32_t)(txn >> 32), m};
}

static void test_compatibility_matrix(void)
{
    for (int r = 0; r < LOCK_NMODES; r++)
        for (int h = 0; h < LOCK_NMODES; h++) {
            bool want = table_2_1a[r][h] == 'y';
            CHECK(lock_compatible((lock_mode)r, (lock_mode)h) == want);
            CHECK(lock_compatible((lock_mode)r, (lock_mode)h) == lock_compatible((lock_mode)h, (lock_mode)r));
        }
    /* and through the lock table: txn 1 holds h, txn 2 asks for r (no-wait: answered at once) */
    for (int r = LOCK_IS; r < LOCK_NMODES; r++)
        for (int h = LOCK_IS; h < LOCK_NMODES; h++) {
            lock_table t;
            lt_init(&t, DL_NOWAIT, 0.1);
            lt_reason why;
            lt_request a = req(1, 1, 7, (lock_mode)h), b = req(2, 2, 7, (lock_mode)r);
            CHECK(lt_request_lock(&t, &a, 0, 0, &why) == LT_GRANTED);
            lt_outcome o = lt_request_lock(&t, &b, 0, 0, &why);
            bool want = table_2_1a[r][h] == 'y';
            CHECK(o == (want ? LT_GRANTED : LT_REFUSED));
            if (!want) CHECK(why == LT_WHY_CONFLICT);
            /* Table 2.1b: the lock's mode is the stronger of the two (or h alone) */
            lock_mode expect = want ? lock_mode_sup((lock_mode)h, (lock_mode)r) : (lock_mode)h;
            CHECK(lt_lock_mode(&t, 7) == expect);
            lt_free(&t);
        }
}

static void test_mode_computation(void)
{
    struct {
        uint32_t g[LOCK_NMODES];
        lock_mode m;
    } cases[] = {
        {{0}, LOCK_NL},
        {{1, 0, 0, 0, 0, 0}, LOCK_NL},
        {{0, 1, 0, 0, 0, 0}, LOCK_IS},
        {{0, 3, 0, 0, 0, 0}, LOCK_IS},
        {{0, 0, 1, 0, 0, 0}, LOCK_IX},
        {{0, 2, 4, 0, 0, 0}, LOCK_IX},
        {{0, 0, 0, 1, 0, 0}, LOCK_S},
        {{0, 5, 0, 2, 0, 0}, LOCK_S},
        {{0, 0, 0, 0, 1, 0}, LOCK_SIX},
        {{0, 2, 0, 0, 1, 0}, LOCK_SIX},
        {{0, 0, 0, 0, 0, 1}, LOCK_X},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(lock_mode_of(cases[i].g) == cases[i].m);
    CHECK(lock_mode_sup(LOCK_S, LOCK_IX) == LOCK_SIX);
    CHECK(lock_mode_sup(LOCK_IS, LOCK_S) == LOCK_S);
    CHECK(lock_mode_sup(LOCK_X, LOCK_IS) == LOCK_X);
    CHECK(lock_mode_sup(LOCK_IX, LOCK_IX) == LOCK_IX);
}

static void test_fifo(void)
{
    lock_table t;
    lt_init(&t, DL_TIMEOUT, 10);
    answers as = {0};
    lt_reason why;
    lt_request a = req(1, 1, 5, LOCK_S), b = req(2, 2, 5, LOCK_X), c = req(3, 3, 5, LOCK_S);
    CHECK(lt_request_lock(&t, &a, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &b, 1, 0, &why) == LT_WAITING);
    /* S is compatible with the granted S, but X waits before it */
    CHECK(lt_request_lock(&t, &c, 2, 0, &why) == LT_WAITING);
    CHECK(lt_release_all(&t, 1, 3, collect, &as) == 1);
    CHECK(as.n == 1 && as.a[0].req.txn == 2 && as.a[0].granted && as.a[0].since == 1);
    CHECK(lt_lock_mode(&t, 5) == LOCK_X);
    CHECK(lt_release_all(&t, 2, 4, collect, &as) == 1);
    CHECK(as.n == 2 && as.a[1].req.txn == 3 && as.a[1].granted);
    CHECK(lt_lock_mode(&t, 5) == LOCK_S);
    /* several compatible waiters are granted together */
    lt_request d = req(4, 4, 5, LOCK_X), e = req(5, 5, 5, LOCK_IS), f = req(6, 6, 5, LOCK_S);
    CHECK(lt_request_lock(&t, &d, 5, 0, &why) == LT_WAITING);
    CHECK(lt_request_lock(&t, &e, 5, 0, &why) == LT_WAITING);
    CHECK(lt_request_lock(&t, &f, 5, 0, &why) == LT_WAITING);
    lt_release_all(&t, 3, 6, collect, &as);
    CHECK(as.n == 3 && as.a[2].req.txn == 4);
    lt_release_all(&t, 4, 7, collect, &as);
    CHECK(as.n == 5 && as.a[3].req.txn == 5 && as.a[4].req.txn == 6);
    CHECK(lt_lock_mode(&t, 5) == LOCK_S);
    lt_release_all(&t, 5, 8, collect, &as);
    lt_release_all(&t, 6, 8, collect, &as);
    CHECK(lt_active_locks(&t) == 0 && lt_active_txns(&t) == 0 && !lt_has_waiters(&t));
    CHECK(t.st.counter_leaks == 0);
    lt_free(&t);
}

static void test_upgrades(void)
{
    lock_table t;
    lt_init(&t, DL_TIMEOUT, 10);
    lt_reason why;
    lt_request s1 = req(1, 1, 9, LOCK_S), x1 = req(1, 1, 9, LOCK_X), s2 = req(2, 2, 9, LOCK_S);
    CHECK(lt_request_lock(&t, &s1, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &s1, 0, 0, &why) == LT_GRANTED); /* repeated: no change */
    CHECK(lt_held_mode(&t, 9, 1) == LOCK_S);
    CHECK(lt_request_lock(&t, &x1, 0, 0, &why) == LT_GRANTED); /* sole holder: upgraded */
    CHECK(lt_held_mode(&t, 9, 1) == LOCK_X && lt_lock_mode(&t, 9) == LOCK_X);
    CHECK(lt_request_lock(&t, &s1, 0, 0, &why) == LT_GRANTED); /* weaker than held: stays X */
    CHECK(lt_held_mode(&t, 9, 1) == LOCK_X);
    answers as = {0};
    lt_release_all(&t, 1, 0, collect, &as);
    /* two readers: an upgrade to X is refused at once, the S stays */
    CHECK(lt_request_lock(&t, &s1, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &s2, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &x1, 0, 0, &why) == LT_REFUSED && why == LT_WHY_UPGRADE);
    CHECK(lt_held_mode(&t, 9, 1) == LOCK_S && lt_lock_mode(&t, 9) == LOCK_S);
    /* S + IX = SIX, granted next to an IS */
    lt_release_all(&t, 1, 0, collect, &as);
    lt_release_all(&t, 2, 0, collect, &as);
    lt_request ix = req(1, 1, 9, LOCK_IX), is2 = req(2, 2, 9, LOCK_IS);
    CHECK(lt_request_lock(&t, &s1, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &is2, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &ix, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_held_mode(&t, 9, 1) == LOCK_SIX && lt_lock_mode(&t, 9) == LOCK_SIX);
    CHECK(t.st.upgrades == 3 && t.st.upgrade_refusals == 1);
    /* one release frees the upgraded lock once (the transaction table lists it once) */
    CHECK(lt_release_all(&t, 1, 0, collect, &as) == 1);
    CHECK(lt_lock_mode(&t, 9) == LOCK_IS);
    lt_free(&t);
}

static void test_release_all(void)
{
    lock_table t;
    lt_init(&t, DL_TIMEOUT, 10);
    lt_reason why;
    for (uint64_t l = 0; l < 50; l++) {
        lt_request r = req(txn_global_id(3, 17), 1, l * 1000003, (lock_mode)(LOCK_IS + l % 5));
        CHECK(lt_request_lock(&t, &r, 0, 0, &why) == LT_GRANTED);
    }
    lt_request other = req(txn_global_id(4, 1), 2, 5 * 1000003, LOCK_X);
    CHECK(lt_request_lock(&t, &other, 0, 0, &why) == LT_WAITING);
    CHECK(lt_active_locks(&t) == 50 && lt_active_txns(&t) == 1);
    answers as = {0};
    CHECK(lt_release_all(&t, txn_global_id(3, 17), 1, collect, &as) == 50);
    CHECK(as.n == 1 && as.a[0].req.txn == txn_global_id(4, 1));
    CHECK(lt_active_locks(&t) == 1 && lt_active_txns(&t) == 1);
    CHECK(lt_release_all(&t, txn_global_id(4, 1), 1, collect, &as) == 1);
    CHECK(lt_release_all(&t, txn_global_id(4, 1), 1, collect, &as) == 0);
    CHECK(lt_active_locks(&t) == 0 && lt_active_txns(&t) == 0);
    lt_free(&t);
    CHECK(txn_agent_of(txn_global_id(0xdeadbeef, 5)) == 0xdeadbeef);
}

static void test_timeout(void)
{
    lock_table t;
    lt_init(&t, DL_TIMEOUT, 0.1);
    lt_reason why;
    answers as = {0};
    lt_request x1 = req(1, 1, 2, LOCK_X), x2 = req(2, 2, 2, LOCK_X), s3 = req(3, 3, 2, LOCK_S), s4 = req(4, 4, 2, LOCK_S);
    CHECK(lt_request_lock(&t, &x1, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &x2, 1.0, 0, &why) == LT_WAITING);
    CHECK(lt_expire(&t, 1.05, collect, &as) == 0 && as.n == 0);
    CHECK(lt_request_lock(&t, &s3, 1.08, 0, &why) == LT_WAITING);
    CHECK(lt_request_lock(&t, &s4, 1.15, 0, &why) == LT_WAITING);
    /* at 1.2: x2 (waited 0.2) and s3 (0.12) are refused, s4 (0.05) stays behind x1 */
    CHECK(lt_expire(&t, 1.2, collect, &as) == 2);
    CHECK(as.n == 2 && !as.a[0].granted && as.a[0].why == LT_WHY_TIMEOUT && as.a[0].req.txn == 2);
    CHECK(as.a[1].req.txn == 3 && !as.a[1].granted);
    CHECK(lt_has_waiters(&t));
    lt_release_all(&t, 1, 1.21, collect, &as);
    CHECK(as.n == 3 && as.a[2].req.txn == 4 && as.a[2].granted);
    CHECK(!lt_has_waiters(&t) && t.st.timeouts == 2);
    lt_free(&t);
}

static void test_nowait_waitdie(void)
{
    lock_table t;
    lt_reason why;
    lt_init(&t, DL_NOWAIT, 0.1);
    lt_request a = req(1, 10, 4, LOCK_S), b = req(2, 5, 4, LOCK_X);
    CHECK(lt_request_lock(&t, &a, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &b, 0, 0, &why) == LT_REFUSED && why == LT_WHY_CONFLICT);
    CHECK(!lt_has_waiters(&t));
    lt_free(&t);

    lt_init(&t, DL_WAITDIE, 0.1);
    lt_request young_holder = req(1, 10, 4, LOCK_S), old = req(2, 5, 4, LOCK_X), younger = req(3, 20, 4, LOCK_X);
    lt_request between = req(4, 7, 4, LOCK_X), oldest = req(5, 1, 4, LOCK_X);
    CHECK(lt_request_lock(&t, &young_holder, 0, 0, &why) == LT_GRANTED);
    CHECK(lt_request_lock(&t, &old, 0, 0, &why) == LT_WAITING);                           /* older waits */
    CHECK(lt_request_lock(&t, &younger, 0, 0, &why) == LT_REFUSED && why == LT_WHY_DIE); /* younger dies */
    CHECK(lt_request_lock(&t, &between, 0, 0, &why) == LT_REFUSED && why == LT_WHY_DIE); /* younger than a waiter */
    CHECK(lt_request_lock(&t, &oldest, 0, 0, &why) == LT_WAITING);
    /* no timeouts under wait-die */
    answers as = {0};
    CHECK(lt_expire(&t, 100, collect, &as) == 0);
    lt_release_all(&t, 1, 1, collect, &as);
    CHECK(as.n == 1 && as.a[0].req.txn == 2);
    CHECK(t.st.dies == 2);
    lt_free(&t);
}

/* The oracle (locking/lock_oracle.h) hears of what the server would send: grants, then releases. */
static void oracle_hears(lock_oracle *o, const answers *as, int from)
{
    for (int i = from; i < as->n; i++)
        if (as->a[i].granted)
            CHECK(lock_oracle_grant(o, as->a[i].req.agent, as->a[i].req.lock_id, as->a[i].req.txn, as->a[i].req.mode));
}
static void release(lock_table *t, lock_oracle *o, uint64_t txn, double now, answers *as)
{
    int from = as->n;
    int forgotten = lock_oracle_release(o, (uint32_t)txn, txn); /* agent i runs transaction i */
    CHECK(lt_release_all(t, txn, now, collect, as) == forgotten);
    oracle_hears(o, as, from);
}

/* Random requests and releases under each deadlock rule, every grant (at once or later) checked by
 * the oracle: no conflict, and lock table and ledger both drain to nothing. */
static void test_random_against_oracle(void)
{
    for (int policy = 0; policy < 3; policy++) {
        lock_table t;
        lt_init(&t, (deadlock_policy)policy, 0.001);
        lock_oracle o;
        lock_oracle_init(&o, true, 16);
        answers as;
        uint64_t s = 12345, granted = 0;
        bool waiting[16] = {0};
        double now = 0;
        for (int step = 0; step < 20000; step++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int txn = (int)(s >> 60);
            now += 1e-4;
            as.n = 0;
            if ((s >> 20) % 5 == 0 || waiting[txn]) {
                if (!waiting[txn]) release(&t, &o, (uint64_t)txn, now, &as);
            } else {
                lt_request r = {(uint64_t)txn, (uint64_t)txn, (s >> 30) % 8, (uint32_t)txn, (lock_mode)(LOCK_IS + (s >> 40) % 5)};
                lt_reason why;
                lt_outcome out = lt_request_lock(&t, &r, now, 0, &why);
                if (out == LT_WAITING) waiting[txn] = true;
                if (out == LT_GRANTED) CHECK(lock_oracle_grant(&o, r.agent, r.lock_id, r.txn, r.mode));
            }
            int from = as.n;
            lt_expire(&t, now, collect, &as);
            oracle_hears(&o, &as, from);
            /* a refused transaction aborts: releases what it holds */
            for (int i = 0, n = as.n; i < n; i++)
                if (!as.a[i].granted) release(&t, &o, as.a[i].req.txn, now, &as);
            for (int i = 0; i < as.n; i++) {
                waiting[as.a[i].req.txn] = false;
                granted += as.a[i].granted;
            }
        }
        /* drain: time out every waiter (timeout policy) or release holders until nothing waits */
        for (int round = 0; round < 100 && (lt_active_locks(&t) || lt_active_txns(&t)); round++) {
            as.n = 0;
            now += 1;
            lt_expire(&t, now, collect, &as);
            oracle_hears(&o, &as, 0);
            for (int txn = 0; txn < 16; txn++) release(&t, &o, (uint64_t)txn, now, &as);
        }
        lock_oracle_finish(&o);
        CHECK(o.st.grants_checked > 1000 && o.st.conflicts == 0 && lock_oracle_violations(&o.st) == 0);
        if (policy != DL_NOWAIT) CHECK(granted > 0); /* some grants came after a wait */
        CHECK(lt_active_locks(&t) == 0 && lt_active_txns(&t) == 0 && t.st.counter_leaks == 0);
        lock_oracle_free(&o);
        lt_free(&t);
    }
}

static void test_hashmap(void)
{
    u64map m;
    u64map_init(&m, 4);
    static char present[5000];
    uint64_t s = 99;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ULL + 1;
        uint64_t k = (s >> 33) % 5000;
        if ((s >> 20) & 1) {
            if ((s >> 21) & 1) {
                u64map_put(&m, k * 0x100000000ULL, present + k);
            } else { /* lookup-or-insert: NULL exactly when new */
                void **slot = u64map_slot(&m, k * 0x100000000ULL);
                CHECK((*slot == NULL) == (present[k] == 0));
                *slot = present + k;
            }
            present[k] = 1;
        } else {
            void *v = u64map_del(&m, k * 0x100000000ULL);
            CHECK((v != NULL) == (present[k] != 0));
            present[k] = 0;
        }
    }
    size_t n = 0;
    for (int k = 0; k < 5000; k++) {
        n += present[k];
        CHECK((u64map_get(&m, (uint64_t)k * 0x100000000ULL) != NULL) == (present[k] != 0));
    }
    CHECK(m.n == n);
    u64map_free(&m);
}

static void test_vote_word(void)
{
    uint64_t w = 0;
    for (int i = 0; i < 3; i++) w += VOTE_YES;
    CHECK(vote_yes_count(w) == 3 && vote_no_count(w) == 0);
    CHECK(vote_complete(w, 3) && vote_commits(w, 3));
    CHECK(!vote_complete(w, 4) && !vote_commits(w, 4));
    w += VOTE_NO;
    CHECK(vote_yes_count(w) == 3 && vote_no_count(w) == 1);
    CHECK(vote_complete(w, 4) && !vote_commits(w, 4));
    CHECK(VOTE_NO == 4294967296ULL);
    /* many yes votes never carry into the no half */
    w = 0xFFFFFFFEULL * VOTE_YES;
    CHECK(vote_no_count(w) == 0 && vote_commits(w, 0xFFFFFFFEU));
}

int main(void)
{
    test_compatibility_matrix();
    test_mode_computation();
    test_fifo();
    test_upgrades();
    test_release_all();
    test_timeout();
    test_nowait_waitdie();
    test_random_against_oracle();
    test_hashmap();
    test_vote_word();
    CHECK_DONE();
}
