/*
 * mem_stream.h - the memory-sampling stream of `record`: one event set per
 * CPU (the backend's memory events plus a side-band event for COMM, FORK,
 * EXIT, MMAP2 and CGROUP records), all writing into one ring buffer per CPU,
 * drained into a perf.data writer in FINISHED_ROUND passes.
 *
 * All events share one sample_type, so every record's sample_id trailer
 * has the same layout (perf and our reader need that). With the software
 * backend, samples whose phys_addr is 0 (the fault was not served yet when
 * sampled) get it from /proc/PID/pagemap while draining; the shared zero
 * page (reads of untouched memory) is not an address anything shares.
 * With the decode backend the side-band event takes the sample_type of the
 * rewritten samples (same trailer as the cpu-clock samples), and every
 * cpu-clock sample goes through decode_stream.c instead of to the file.
 */
#ifndef SCX_MEM_STREAM_H
#define SCX_MEM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata.h"
#include "record/backend/backend.h"
#include "record/streams/mem_stats.h"

struct mem_stream_opts {
	size_t mmap_pages;      /* data pages per CPU ring (power of two); 0 = 1024 (4 MiB) */
	bool resolve_phys;      /* fill phys_addr 0 from pagemap (software backend) */
};

struct cpu_ring;

struct mem_stream {
	struct mem_backend *be;
	struct pd_writer *w;
	struct mem_stream_opts opts;
	struct cpu_ring *rings;
	size_t nr_rings;
	struct perf_event_attr sideband;
	uint64_t sample_type;
	size_t trailer_size;          /* of the shared sample_id trailer */
	/* fixed offsets in a sample body (bytes after the header), or -1 */
	int off_tid, off_time, off_addr, off_phys, off_page_size;
	int off_id, off_identifier; /* PERF_SAMPLE_ID / IDENTIFIER in a sample body, or -1 */
	struct mem_stream_stats st;
	struct pagemap_cache *pagemaps; /* when resolve_phys */
	struct decode_stream *decode;   /* the decode backend: rewrites cpu-clock samples */
};

/* Open every event on every online CPU and map the rings; the attrs and
 * their ids are added to w. Events start disabled. */
int mem_stream_open(struct mem_stream *ms, struct mem_backend *be, struct pd_writer *w,
		    const struct mem_stream_opts *o);
int mem_stream_enable(struct mem_stream *ms);
int mem_stream_disable(struct mem_stream *ms);
/* Copy everything in the rings to w, then a FINISHED_ROUND. */
int mem_stream_drain(struct mem_stream *ms);
/* How often to drain, in ms (see mem_stream.c). */
int mem_stream_drain_ms(const struct mem_stream *ms);
void mem_stream_close(struct mem_stream *ms);

#endif
