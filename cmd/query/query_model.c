/* --model: the star query's model (model/query_model.h) at the run's shape, its prediction of each
 * design's total beside the measured one (and in the CSV row's model_total); the shape (MPI-free,
 * rmamodel query's too). */
#include "cmd/query/query_cmd.h"
#include "model/query_model.h"

void query_model_shape(const query_opts *o, const star_schema *s, int ranks, int hosts, query_shape *q)
{
    *q = (query_shape){.ranks = ranks, .memory_ranks = (double)o->memory_ranks, .hosts = hosts, .dims = s->dims,
                       .fact_rows = (double)s->fact_rows, .fact_bytes = 8.0 * s->fact_words,
                       .block_bytes = (double)o->block_size, .prefetch = (double)o->prefetch,
                       .bcast = o->replicate == REPLICATE_BCAST, .alltoallv = o->exchange == QUERY_EXCHANGE_ALLTOALLV};
    for (int j = 0; j < s->dims; j++) {
        q->dim_rows[j] = (double)s->dim_rows[j];
        q->dim_bytes[j] = 8.0 * s->dim_words[j];
        q->selectivity[j] = s->selectivity[j];
    }
}

double query_model_predict(const query_session *qs, int design)
{
    if (!qs->model.on) return -1;
    query_shape q;
    query_model_shape(&qs->o, &qs->s, qs->ctx.size, qs->ctx.hosts, &q);
    q.one_machine = qs->ctx.hosts > 1 && qs->ctx.ranks_per_machine > qs->ctx.ranks_per_host; /* namespace hosts */
    query_prediction m;
    model_query(&qs->model.p, &q, &m);
    return design == QUERY_PULL ? m.pull : m.shuffle;
}
