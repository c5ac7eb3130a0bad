/* --exchange put, the thesis' design and the default: every tuple goes straight to its owner's
 * window, through send buffers that MPI_Put when full (the network pass of network_partition.c). */
#include "joins/radix/exchange.h"

static void put_pass(const join_input *in, const radix_layout *lay, const radix_format *f, rma_window win[2],
                     radix_exchange_bufs *b, radix_pass_times *t)
{
    (void)b; /* RADIX_XBUF_NONE */
    radix_network_partition(in, lay, f, win, t);
}

const radix_exchange_design radix_exchange_put = {
    .name = "put",
    .help = "MPI_Put from send buffers",
    .schedule = false,
    .buffers = RADIX_XBUF_NONE,
    .run = put_pass,
};
