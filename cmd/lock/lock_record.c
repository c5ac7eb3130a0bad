/* The CSV row of a lock run (cmd/results_schema.h): provenance, the parameters the workload reads
 * (its descriptor's columns: locking/workloads/registry.h), throughput, the latency breakdowns,
 * --model's prediction and the verification. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/provenance.h"
#include "cmd/lock/lock_cmd.h"
#include "cmd/results_schema.h"

static void parameter_columns(record *rec, const lock_session *ls)
{
    const lock_opts *o = &ls->o;
    const wl_desc *wl = lock_workload_of(o);
    record_set(rec, "workload", "%s", wl->name);
    record_set(rec, "servers", "%d", ls->roles.nservers);
    record_set(rec, "agents", "%d", ls->roles.nagents);
    record_set(rec, "transport", "%s", lock_transport_names[o->transport]);
    if (ls->notify_shm) {
        record_set(rec, "notify_shm", "%s", ls->notify_shm);
        char how[160];
        notify_shm_pick_describe(&ls->shm_pick, how, sizeof how);
        record_set(rec, "notify_shm_choice", "%s%s", strcmp(how, "given") == 0 ? "" : "auto: ", how);
    }
    if (ls->floor_us >= 0) record_set(rec, "floor_rtt_us", "%.4f", ls->floor_us);
    record_set(rec, "deadlock", "%s", deadlock_policy_names[o->deadlock]);
    record_set(rec, "lock_timeout", "%g", o->lock_timeout);
    record_set(rec, "remote_prob", "%g", o->remote_prob);
    if (wl->record_params) wl->record_params(rec, o); /* the columns of the flags it reads */
    if (o->transactions_per_agent) record_set(rec, "transactions_per_agent", "%" PRId64, o->transactions_per_agent);
    else record_set(rec, "duration", "%g", o->duration);
    record_set(rec, "vote_no_prob", "%g", o->vote_no_prob);
    record_set(rec, "checked", "%s", o->check ? "yes" : "no");
    record_set(rec, "mailbox_server_bytes", "%" PRIu64, ls->mailbox_bytes[0]);
    record_set(rec, "mailbox_agent_bytes", "%" PRIu64, ls->mailbox_bytes[1]);
    record_set(rec, "lock_table_pairs_max", "%" PRIu64, ls->plan.table_pairs_max);
    record_set(rec, "mem_rank_planned", "%" PRIu64, ls->plan.rank_max);
    record_set(rec, "mem_rank_beyond_data_planned", "%" PRIu64, ls->plan.rank_beyond_data);
}

static void result_columns(record *rec, const lock_totals *t, const lock_figures *f, const wl_desc *wl)
{
    const agent_stats *a = &t->agents;
    uint64_t txns = a->committed + a->aborted;
    record_set(rec, "committed", "%" PRIu64, a->committed);
    record_set(rec, "aborted", "%" PRIu64, a->aborted);
    record_set(rec, "commits_per_s", "%.1f", a->committed / f->elapsed);
    record_set(rec, "aborts_per_s", "%.1f", a->aborted / f->elapsed);
    record_set(rec, "throughput", "%.1f", a->committed / f->elapsed);
    record_set(rec, "lock_requests_per_s", "%.1f", a->lock_requests / f->elapsed);
    record_set(rec, "locks_per_txn_measured", "%.3f", f->locks_per_txn);
    record_set(rec, "remote_share", "%.4f", f->remote_share);
    record_set(rec, "twopc_txns", "%" PRIu64, a->twopc);
    record_set(rec, "lat_txn_lock_us", "%.4f", a->t_lock * f->per_txn_us);
    record_set(rec, "lat_txn_data_us", "%.4f", a->t_data * f->per_txn_us);
    record_set(rec, "lat_txn_vote_us", "%.4f", a->t_vote * f->per_txn_us);
    record_set(rec, "lat_txn_end_us", "%.4f", a->t_end * f->per_txn_us);
    record_set(rec, "lat_req_rtt_us", "%.4f", f->t_rtt * f->per_req_us);
    record_set(rec, "lat_req_rtt_median_us", "%.4f", f->median_rtt_us);
    record_set(rec, "lat_req_queue_us", "%.4f", a->t_req_queue * f->per_req_us);
    record_set(rec, "lat_req_server_us", "%.4f", a->t_req_server * f->per_req_us);
    record_set(rec, "timeouts", "%" PRIu64, t->servers.lt.timeouts);
    record_set(rec, "twopc_participants_mean", "%.3f", a->twopc ? (double)a->twopc_participants / (double)a->twopc : 0.0);
    record_set(rec, "twopc_participants_max", "%" PRIu64, a->twopc_participants_max);
    record_set(rec, "data_bytes_read_per_txn", "%.1f", txns ? (double)a->data_bytes_read / (double)txns : 0.0);
    record_set(rec, "data_bytes_written_per_txn", "%.1f", txns ? (double)a->data_bytes_written / (double)txns : 0.0);
    if (wl->record_types) wl->record_types(rec, a, f->elapsed); /* per transaction type (tpcc) */
}

int lock_record_run(const lock_session *ls, const lock_totals *t, const lock_figures *f, lock_verdict v, int exit_code)
{
    if (!ls->o.output || ls->ctx.rank != 0) return exit_code;
    record *rec = record_new(&results_schema);
    provenance_columns(rec, &ls->ctx, "lock", ls->command, ls->o.seed);
    provenance_outcome(rec, v.pass);
    parameter_columns(rec, ls);
    result_columns(rec, t, f, lock_workload_of(&ls->o));
    if (ls->steal >= 0) record_set(rec, "host_steal", "%.4f", ls->steal);
    if (ls->run_delay >= 0) record_set(rec, "run_delay", "%.4f", ls->run_delay);
    lock_compare_record(&ls->model, rec);
    numa_report_columns(&ls->numa, rec);
    char err[512];
    if (record_append(rec, ls->o.output, err, sizeof err)) {
        fprintf(stderr, "rmabench: --output: %s\n", err);
        exit_code = 2;
    }
    record_free(rec);
    return exit_code;
}
