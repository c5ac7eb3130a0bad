/* What an endpoint allocates, MPI-free: for --plan and the memory check before MPI allocates. */
#include "rdmo/rdmo.h"
#include "rma/window.h"

int rdmo_payload_capacity(const rdmo_config *cfg)
{
    return rdmo_wire_capacity(cfg->slot_bytes) - (int)sizeof(rdmo_hdr);
}

uint64_t rdmo_window_bytes(const rdmo_config *cfg, const rdmo_space *space, int comm_size)
{
    const bool queue = cfg->design == RDMO_DESIGN_RDMO;
    const uint64_t answer = queue ? (uint64_t)(cfg->calls > 1 ? cfg->calls : 1) * (uint64_t)cfg->slot_bytes : 0;
    if (!cfg->serve) return rma_round_size(64 + answer);
    const uint64_t requests = queue ? (uint64_t)comm_size * (uint64_t)cfg->slot_bytes : 0;
    return rma_round_size(64 + answer + requests + space->heap_bytes);
}

uint64_t rdmo_aux_bytes(const rdmo_config *cfg, int comm_size)
{
    const uint64_t msg = (uint64_t)rdmo_payload_capacity(cfg) + 8, calls = (uint64_t)(cfg->calls > 1 ? cfg->calls : 1);
    uint64_t b = (uint64_t)comm_size * (3 + 1 + sizeof(int)) /* stamps, calls in flight, dirty marks and list */
                 + calls * (2 * msg + 64)                   /* the calls' requests and answers */
                 + 5 * msg + 2 * (uint64_t)cfg->slot_bytes  /* scratch: request, answer, method, assembly; packed */
                 + (uint64_t)cfg->queue_depth * (msg + 32); /* the queue */
    if (cfg->design == RDMO_DESIGN_RPC) b += (uint64_t)cfg->queue_depth * (2 * msg + 64); /* receives, answers in flight */
    return b;
}
