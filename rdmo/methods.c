/* The built-in methods (the rdmo and rpc designs' target side) and the five operations' front:
 * each operation goes to its design, verbs (rdmo/verbs.c) or a request to the object's method.
 * Requests and answers on the wire, little-endian, unaligned:
 *   append       payload bytes                           -> u64 offset
 *   gather       u32 key, u16 max                        -> max x {u32 key, u64 a, u64 b}
 *   accumulate   n x {u32 key, u64 value}                -> u32 pairs done
 *   read         u32 row, u8 keep                        -> u64 version, data words
 *   write-seal   u32 row, u64 version, data words        -> nothing
 * A payload of another length, or a row out of range, is answered RDMO_EPAYLOAD and not run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmo/ep.h"

static int m_append(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen,
                    int cap)
{
    (void)t, (void)cap;
    const rdmo_builtin *b = arg;
    uint64_t off = 0;
    const int st = rdmo_page_append(b->mem, b->o->n1, req, (uint32_t)len, &off);
    memcpy(ans, &off, 8);
    *anslen = 8;
    return st;
}

static int m_gather(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen,
                    int cap)
{
    (void)t;
    const rdmo_builtin *b = arg;
    uint32_t key;
    uint16_t max;
    if (len != 6) return RDMO_EPAYLOAD;
    memcpy(&key, req, 4);
    memcpy(&max, req + 4, 2);
    if (max > cap / RDMO_MATCH_WIRE) max = (uint16_t)(cap / RDMO_MATCH_WIRE);
    rdmo_entry found[RDMO_GATHER_MAX];
    if (max > RDMO_GATHER_MAX) max = RDMO_GATHER_MAX;
    int n = 0;
    const int st = rdmo_table_gather(b->mem, b->o->n1, key, max, b->ep->cfg.gather_bound, found, &n);
    for (int i = 0; i < n; i++) {
        memcpy(ans + i * RDMO_MATCH_WIRE, &found[i].key, 4);
        memcpy(ans + i * RDMO_MATCH_WIRE + 4, &found[i].a, 8);
        memcpy(ans + i * RDMO_MATCH_WIRE + 12, &found[i].b, 8);
    }
    *anslen = n * RDMO_MATCH_WIRE;
    return st;
}

static int m_accumulate(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans,
                        int *anslen, int cap)
{
    (void)t, (void)cap;
    const rdmo_builtin *b = arg;
    if (len % RDMO_PAIR_WIRE) return RDMO_EPAYLOAD;
    const int n = len / RDMO_PAIR_WIRE;
    rdmo_pair p[RDMO_SCATTER_MAX];
    if (n > RDMO_SCATTER_MAX) return RDMO_EPAYLOAD;
    for (int i = 0; i < n; i++) {
        memcpy(&p[i].key, req + i * RDMO_PAIR_WIRE, 4);
        memcpy(&p[i].value, req + i * RDMO_PAIR_WIRE + 4, 8);
    }
    int done = 0;
    const int st = rdmo_table_accumulate(b->mem, b->o->n1, b->o->n2, p, n, &done);
    const uint32_t d = (uint32_t)done;
    memcpy(ans, &d, 4);
    *anslen = 4;
    return st;
}

static int m_read(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans, int *anslen,
                  int cap)
{
    const rdmo_builtin *b = arg;
    uint32_t row;
    if (len != 5 || (int)(8 * (1 + b->o->n2)) > cap) return RDMO_EPAYLOAD;
    memcpy(&row, req, 4);
    if (row >= b->o->n1) return RDMO_EPAYLOAD;
    uint64_t v[1 + RDMO_ROW_WORDS_MAX];
    const int st = rdmo_rows_read(b->mem, b->o->n2, row, (uint32_t)t->origin + 1, req[4] != 0, &v[0], v + 1);
    if (st == RDMO_OK) {
        memcpy(ans, v, 8 * (1 + b->o->n2));
        *anslen = (int)(8 * (1 + b->o->n2));
    }
    return st;
}

static int m_write_seal(void *arg, const rdmo_token *t, const unsigned char *req, int len, unsigned char *ans,
                        int *anslen, int cap)
{
    (void)ans, (void)cap;
    const rdmo_builtin *b = arg;
    uint32_t row;
    uint64_t version, data[RDMO_ROW_WORDS_MAX];
    if (len != (int)(12 + 8 * b->o->n2)) return RDMO_EPAYLOAD;
    memcpy(&row, req, 4);
    memcpy(&version, req + 4, 8);
    memcpy(data, req + 12, 8 * b->o->n2);
    if (row >= b->o->n1) return RDMO_EPAYLOAD;
    *anslen = 0;
    return rdmo_rows_write_seal(b->mem, b->o->n2, row, (uint32_t)t->origin + 1, version, data);
}

void rdmo_register_builtins(rdmo_ep *ep)
{
    for (int i = 0; i < ep->space.n; i++) {
        const rdmo_object *o = &ep->space.obj[i];
        ep->builtin[i] = (rdmo_builtin){ep->base + ep->heap_at + o->offset, o, ep};
        void *arg = &ep->builtin[i];
        if (o->type == OBJ_PAGE) rdmo_register(ep, o->id, RDMO_M_APPEND, m_append, arg);
        if (o->type == OBJ_TABLE) {
            rdmo_register(ep, o->id, RDMO_M_GATHER, m_gather, arg);
            rdmo_register(ep, o->id, RDMO_M_ACCUMULATE, m_accumulate, arg);
        }
        if (o->type == OBJ_ROWS) {
            rdmo_register(ep, o->id, RDMO_M_READ, m_read, arg);
            rdmo_register(ep, o->id, RDMO_M_WRITE_SEAL, m_write_seal, arg);
        }
    }
}

/* --- the operations ---------------------------------------------------------------------------- */

static const rdmo_object *object(rdmo_ep *ep, uint16_t obj, int type)
{
    const rdmo_object *o = rdmo_space_find(&ep->space, obj);
    if (!o || o->type != type) {
        fprintf(stderr, "rmabench: rank %d: object %u is not of the operation's type\n", ep->rank, obj);
        abort();
    }
    return o;
}

int rdmo_slotted_append(rdmo_ep *ep, int target, uint16_t obj, const void *payload, uint32_t len, uint64_t *offset)
{
    ep->c.ops++;
    if (ep->cfg.design == RDMO_DESIGN_VERBS) return rdmo_verbs_append(ep, target, object(ep, obj, OBJ_PAGE), payload, len, offset);
    int n = 0;
    const int st = rdmo_call(ep, target, obj, RDMO_M_APPEND, payload, (int)len, offset, &n, 8);
    return st;
}

int rdmo_conditional_gather(rdmo_ep *ep, int target, uint16_t obj, uint32_t key, int max, rdmo_entry *out, int *n)
{
    ep->c.ops++;
    if (ep->cfg.design == RDMO_DESIGN_VERBS) return rdmo_verbs_gather(ep, target, object(ep, obj, OBJ_TABLE), key, max, out, n);
    unsigned char req[6], ans[RDMO_GATHER_MAX * RDMO_MATCH_WIRE];
    const uint16_t m = (uint16_t)(max < RDMO_GATHER_MAX ? max : RDMO_GATHER_MAX);
    memcpy(req, &key, 4);
    memcpy(req + 4, &m, 2);
    int len = 0;
    const int st = rdmo_call(ep, target, obj, RDMO_M_GATHER, req, 6, ans, &len, (int)sizeof ans);
    *n = len / RDMO_MATCH_WIRE;
    for (int i = 0; i < *n; i++) {
        out[i] = (rdmo_entry){0, 0, 0, 0};
        memcpy(&out[i].key, ans + i * RDMO_MATCH_WIRE, 4);
        memcpy(&out[i].a, ans + i * RDMO_MATCH_WIRE + 4, 8);
        memcpy(&out[i].b, ans + i * RDMO_MATCH_WIRE + 12, 8);
    }
    return st;
}

int rdmo_signaled_read(rdmo_ep *ep, int target, uint16_t obj, uint32_t row, bool keep, uint64_t *version, uint64_t *data)
{
    ep->c.ops++;
    const rdmo_object *o = object(ep, obj, OBJ_ROWS);
    if (ep->cfg.design == RDMO_DESIGN_VERBS) return rdmo_verbs_read(ep, target, o, row, keep, version, data);
    unsigned char req[5];
    memcpy(req, &row, 4);
    req[4] = keep;
    uint64_t v[1 + RDMO_ROW_WORDS_MAX];
    int st = RDMO_BUSY, len = 0;
    /* the handler runs one method at a time, so a locked row stays locked through the method: a
     * try is one request, as a try of the verbs design is one CAS */
    for (int t = 0; t < ep->cfg.tries && st == RDMO_BUSY; t++) {
        if (t) ep->c.retries++;
        st = rdmo_call(ep, target, obj, RDMO_M_READ, req, 5, v, &len, (int)sizeof v);
    }
    if (st == RDMO_BUSY) ep->c.busy++;
    if (st != RDMO_OK) return st;
    *version = v[0];
    memcpy(data, v + 1, 8 * o->n2);
    return st;
}

int rdmo_write_and_seal(rdmo_ep *ep, int target, uint16_t obj, uint32_t row, uint64_t version, const uint64_t *data)
{
    ep->c.ops++;
    const rdmo_object *o = object(ep, obj, OBJ_ROWS);
    if (ep->cfg.design == RDMO_DESIGN_VERBS) return rdmo_verbs_write_seal(ep, target, o, row, version, data);
    unsigned char req[12 + 8 * RDMO_ROW_WORDS_MAX];
    memcpy(req, &row, 4);
    memcpy(req + 4, &version, 8);
    memcpy(req + 12, data, 8 * o->n2);
    return rdmo_call(ep, target, obj, RDMO_M_WRITE_SEAL, req, (int)(12 + 8 * o->n2), NULL, NULL, 0);
}

int rdmo_scatter_accumulate(rdmo_ep *ep, int target, uint16_t obj, const rdmo_pair *pairs, int n)
{
    ep->c.ops++;
    const rdmo_object *o = object(ep, obj, OBJ_TABLE);
    if (n > RDMO_SCATTER_MAX) abort();
    if (ep->cfg.design == RDMO_DESIGN_VERBS) return rdmo_verbs_scatter(ep, target, o, pairs, n);
    unsigned char req[RDMO_SCATTER_MAX * RDMO_PAIR_WIRE];
    for (int i = 0; i < n; i++) {
        memcpy(req + i * RDMO_PAIR_WIRE, &pairs[i].key, 4);
        memcpy(req + i * RDMO_PAIR_WIRE + 4, &pairs[i].value, 8);
    }
    uint32_t done = 0;
    int len = 0;
    return rdmo_call(ep, target, obj, RDMO_M_ACCUMULATE, req, n * RDMO_PAIR_WIRE, &done, &len, 4);
}
