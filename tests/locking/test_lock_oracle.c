/* Unit tests of the lock oracle (locking/lock_oracle.h), the check that must catch a wrong lock
 * table: the restated Table 2.1 against the thesis' table, the 36-pair self-check (and that it fails
 * on a wrong table), every pair of grants through the ledger, upgrades, releases, what is left at
 * the end, and the 2PC vote audit. */
#include <stdint.h>
#include <stdio.h>

#include "locking/lock_oracle.h"
#include "tests/check.h"

/* Table 2.1a as printed in the thesis: rows requested, columns granted (NL IS IX S SIX X). */
static const char *const table_2_1a[LOCK_NMODES] = {
    "yyyyyy", /* NL */
    "yyyyy.", /* IS */
    "yyy...", /* IX */
    "yy.y..", /* S */
    "yy....", /* SIX */
    "y.....", /* X */
};

static bool thesis_compatible(lock_mode r, lock_mode h) { return table_2_1a[r][h] == 'y'; }
/* Two wrong tables a careless edit could leave: X beside X, and S beside IX (one direction). */
static bool x_beside_x(lock_mode r, lock_mode h) { return (r == LOCK_X && h == LOCK_X) || thesis_compatible(r, h); }
static bool s_beside_ix(lock_mode r, lock_mode h) { return (r == LOCK_S && h == LOCK_IX) || thesis_compatible(r, h); }

static void test_restated_table(void)
{
    for (int r = 0; r < LOCK_NMODES; r++)
        for (int h = 0; h < LOCK_NMODES; h++)
            CHECK(((lock_oracle_conflicts((lock_mode)r) >> h) & 1) == (table_2_1a[r][h] == '.'));
    CHECK(lock_oracle_table_mismatches(thesis_compatible) == 0);
    CHECK(lock_oracle_table_mismatches(lock_compatible) == 0);
    fprintf(stderr, "(two reports of a wrong lock_compatible are expected next)\n");
    CHECK(lock_oracle_table_mismatches(x_beside_x) == 1);
    CHECK(lock_oracle_table_mismatches(s_beside_ix) == 1);
    lock_oracle o;
    lock_oracle_init(&o, true, 1);
    CHECK(o.st.table_mismatches == 0); /* the self-check of this build's lock_compatible */
    lock_oracle_free(&o);
}

/* Transaction 1 holds h, transaction 2 is granted r on the same lock: a conflict exactly where
 * Table 2.1 says no; releasing transaction 1 then lets transaction 2 take anything. */
static void test_every_pair(void)
{
    for (int r = LOCK_NL; r < LOCK_NMODES; r++)
        for (int h = LOCK_NL; h < LOCK_NMODES; h++) {
            lock_oracle o;
            lock_oracle_init(&o, true, 4); /* transaction k of agent k */
            CHECK(lock_oracle_grant(&o, 1, 7, 1, (lock_mode)h));
            bool ok = lock_oracle_grant(&o, 2, 7, 2, (lock_mode)r);
            CHECK(ok == (table_2_1a[r][h] == 'y'));
            CHECK(o.st.conflicts == (ok ? 0u : 1u) && o.st.grants_checked == 2);
            CHECK(lock_oracle_release(&o, 1, 1) == 1);
            CHECK(lock_oracle_grant(&o, 3, 7, 3, (lock_mode)r) == thesis_compatible((lock_mode)r, (lock_mode)r));
            lock_oracle_free(&o);
        }
}

/* G(lock, txn, mode) and R(txn): transaction k runs on agent k. */
#define G(l, txn, m) lock_oracle_grant(&o, (uint32_t)(txn), l, txn, LOCK_##m)
#define R(txn) lock_oracle_release(&o, (uint32_t)(txn), txn)

static void test_upgrades_and_release(void)
{
    lock_oracle o;
    lock_oracle_init(&o, true, 6);
    /* a transaction's own modes never conflict: S, then X, on its own */
    CHECK(G(9, 1, S) && G(9, 1, X));
    CHECK(!G(9, 2, IS)); /* but the X excludes everyone else */
    CHECK(R(1) == 1 && R(2) == 1);
    /* S + IX held by one transaction conflicts as SIX: IS fits beside it, S and IX do not */
    CHECK(G(9, 1, S) && G(9, 1, IX));
    CHECK(G(9, 2, IS));
    CHECK(!G(9, 3, S));
    CHECK(!G(9, 4, IX));
    CHECK(o.st.conflicts == 3);
    /* releases forget one transaction only, on every lock it holds */
    CHECK(G(10, 2, IS) && G(11, 2, X));
    CHECK(R(2) == 3);
    CHECK(R(2) == 0);
    CHECK(G(11, 5, X));  /* lock 11 is free again */
    CHECK(!G(9, 5, X));  /* lock 9 is still held by 1, 3 and 4 */
    /* what nobody released is left at the end */
    lock_oracle_finish(&o);
    CHECK(o.st.ledger_locks_end == 2 && o.st.ledger_txns_end == 4);
    CHECK(lock_oracle_violations(&o.st) == o.st.conflicts + 6);
    lock_oracle_free(&o);

    /* an agent's earlier transaction that never ended keeps its locks when the next one ends */
    lock_oracle_init(&o, true, 1);
    CHECK(lock_oracle_grant(&o, 0, 1, 100, LOCK_X) && lock_oracle_grant(&o, 0, 2, 101, LOCK_S));
    CHECK(lock_oracle_release(&o, 0, 101) == 1);
    CHECK(!lock_oracle_grant(&o, 0, 1, 102, LOCK_IS));
    CHECK(lock_oracle_release(&o, 0, 102) == 1 && lock_oracle_release(&o, 0, 100) == 1);
    lock_oracle_finish(&o);
    CHECK(o.st.ledger_locks_end == 0 && o.st.ledger_txns_end == 0 && o.st.conflicts == 1);
    lock_oracle_free(&o);

    /* no such agent or mode: a violation, nothing kept */
    lock_oracle_init(&o, true, 1);
    CHECK(!lock_oracle_grant(&o, 1, 1, 1, LOCK_S) && !lock_oracle_grant(&o, 0, 1, 1, LOCK_NMODES));
    lock_oracle_finish(&o);
    CHECK(o.st.conflicts == 2 && o.st.ledger_locks_end == 0);
    lock_oracle_free(&o);

    /* drained: nothing left, no violation */
    lock_oracle_init(&o, true, 4);
    for (uint64_t txn = 0; txn < 100; txn++)
        for (uint64_t l = 0; l < 20; l++) CHECK(lock_oracle_grant(&o, (uint32_t)(txn % 4), txn * 20 + l, txn, LOCK_X));
    for (uint64_t txn = 0; txn < 100; txn++) CHECK(lock_oracle_release(&o, (uint32_t)(txn % 4), txn) == 20);
    lock_oracle_finish(&o);
    CHECK(o.st.releases == 2000 && o.st.grants_checked == 2000 && lock_oracle_violations(&o.st) == 0);
    lock_oracle_free(&o);
}
#undef G
#undef R

static void test_votes(void)
{
    lock_oracle o;
    lock_oracle_init(&o, true, 3);
    lock_oracle_vote(&o, 0, 100, true);
    CHECK(lock_oracle_end(&o, 0, 100, true));      /* yes, commit */
    lock_oracle_vote(&o, 1, 200, false);
    CHECK(lock_oracle_end(&o, 1, 200, false));     /* no, abort */
    CHECK(lock_oracle_end(&o, 2, 300, true));      /* no 2PC here: nothing to audit */
    CHECK(lock_oracle_violations(&o.st) == 0);
    lock_oracle_vote(&o, 1, 201, false);
    fprintf(stderr, "(a report of a commit after a no vote is expected next)\n");
    CHECK(!lock_oracle_end(&o, 1, 201, true));     /* no, then commit: caught */
    CHECK(o.st.commits_after_no == 1);
    /* a vote whose end never came: seen at the agent's next vote, its next end, or the end of run */
    lock_oracle_vote(&o, 0, 101, true);
    lock_oracle_vote(&o, 0, 102, true);
    CHECK(o.st.votes_never_ended == 1);
    CHECK(lock_oracle_end(&o, 0, 103, false));
    CHECK(o.st.votes_never_ended == 2);
    lock_oracle_vote(&o, 2, 301, false);
    lock_oracle_finish(&o);
    CHECK(o.st.votes_never_ended == 3 && o.st.votes == 6);
    CHECK(lock_oracle_violations(&o.st) == 4);
    lock_oracle_free(&o);
}

/* --no-check: grants are neither checked nor kept; votes are still audited. */
static void test_ledger_off(void)
{
    lock_oracle o;
    lock_oracle_init(&o, false, 1);
    CHECK(lock_oracle_grant(&o, 0, 1, 1, LOCK_X) && lock_oracle_grant(&o, 0, 1, 2, LOCK_X));
    CHECK(lock_oracle_release(&o, 0, 1) == 0);
    CHECK(o.st.grants_checked == 0 && o.st.conflicts == 0);
    lock_oracle_vote(&o, 0, 5, false);
    CHECK(!lock_oracle_end(&o, 0, 5, true));
    lock_oracle_finish(&o);
    CHECK(o.st.ledger_locks_end == 0 && lock_oracle_violations(&o.st) == 1);
    lock_oracle_free(&o);
}

int main(void)
{
    test_restated_table();
    test_every_pair();
    test_upgrades_and_release();
    test_votes();
    test_ledger_off();
    CHECK_DONE();
}
