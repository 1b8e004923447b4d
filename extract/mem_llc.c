/*
 * mem_llc.c - extract mem's cross-LLC step (see mem_llc.h).
 */
#include "extract/mem_llc.h"

#include "extract/llc_map.h"
#include "extract/topology.h"

static int on_sample(void *ctx, const struct mem_sample *s)
{
	return llc_share_add(ctx, s);
}

bool mem_llc_wanted(const struct extract_mem_opts *o)
{
	return (o->verbose && o->cluster == CLUSTER_SHARING) || (o->observer && o->observer->on_llc);
}

void mem_llc_start(struct llc_share *s, const struct extract_mem_opts *o, struct mem_agg_opts *ao)
{
	llc_share_init(s, o->line_granularity, o->max_keys);
	ao->on_sample = on_sample;
	ao->on_sample_ctx = s;
}

int mem_llc_finish(struct llc_share *s, const struct extract_mem_opts *o, const struct mem_agg_opts *ao,
		   const struct cell_config *cfg, FILE *log)
{
	struct llc_share_result r;
	struct llc_map map;
	struct cpu_topology rec;
	struct llc_share_eval e = {.cfg = cfg, .workload = ao->workload, .allotment_re = ao->allotment_re, .map = &map};
	int rc = -1;

	/* demand is in CPUs of the recording: its topology.json (or this host), whatever --topology says */
	if (topology_for_input(o->path, &rec) < 0)
		return -1;
	e.online_cpus = rec.online_cpus;
	if (llc_map_for_input(o->path, o->topology, &map) < 0)
		return -1;
	if (llc_share_evaluate(s, &e, &r) < 0) {
		llc_share_result_free(&r);
		goto out;
	}
	if (log && o->cluster == CLUSTER_SHARING)
		llc_share_print(log, &r);
	rc = o->observer && o->observer->on_llc ? o->observer->on_llc(o->observer->ctx, &r) : 0;
	llc_share_result_free(&r);
out:
	llc_map_free(&map);
	return rc;
}
