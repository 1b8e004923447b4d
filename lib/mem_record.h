/*
 * mem_record.h - one kept memory sample as process hands it to its writers:
 * perf.jsonl (process/emit/mem_jsonl.h says what each field becomes there) and
 * the Perfetto trace (lib/pftrace/perfetto_track.h). A type only: it lives
 * in lib/ so that the trace writer needs nothing from process/.
 */
#ifndef SCX_MEM_RECORD_H
#define SCX_MEM_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/data_id.h"

struct mem_record {
	const char *comm;
	int64_t tid, pid;
	uint64_t time_ns;
	uint64_t addr;
	const char *cgroup;
	uint64_t ip;
	const char *sym, *dso;
	uint64_t phys_addr;
	uint64_t data_page_size;
	uint64_t hint;
	/* extras */
	const char *event; /* NULL: omitted */
	bool has_cpu, has_time_ns, has_period, has_weight, has_weight_struct, has_data_src;
	uint32_t cpu;
	uint64_t period, weight, data_src;
	uint32_t var1;
	uint16_t var2, var3;
	const char *data_map;  /* NULL: omitted */
	struct data_id data_id; /* DATA_ID_NONE: null */
	const char *data_sym;  /* NULL: omitted */
	/* sym, dso, event, data_map and data_sym point to strings that live and stay unchanged as
	 * long as the ctx: their escaped form may be cached by pointer */
	bool stable_names;
};

#endif
