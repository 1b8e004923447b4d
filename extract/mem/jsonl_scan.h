/*
 * jsonl_scan.h - a small dedicated scanner for one line of perf.jsonl
 * (ours, with extra keys) or upstream's perf.mem.jsonl.
 *
 * It walks the top-level object once, decodes only the keys extract needs
 * (comm, tid, pid, cgroup, phys_addr, addr, data_page_size, hint, weight, cpu,
 * time / time_ns, data_id, data_map, data_sym, data_src.hitm/snoop) and
 * checks the syntax of every other value without building anything. String
 * escapes in comm and cgroup (\" \\ \/ \b \f \n \r \t, \uXXXX including
 * surrogate pairs) are decoded to UTF-8 in place, inside the line buffer.
 */
#ifndef SCX_EXTRACT_JSONL_SCAN_H
#define SCX_EXTRACT_JSONL_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mem_sample {
	const char *comm;      /* points into the line, decoded, not NUL-terminated */
	size_t comm_len;
	const char *cgroup;
	size_t cgroup_len;
	int64_t tid, pid;
	uint64_t phys_addr;
	uint64_t addr;            /* virtual data address ("addr", hex string); 0 when absent */
	uint64_t data_page_size; /* 0: unknown */
	uint64_t hint;           /* 0 when the key is absent, as upstream */
	uint64_t weight;         /* load latency when has_weight */
	bool has_weight;
	uint64_t time_ns;        /* time_ns, else "time" (seconds) in ns; 0 when absent */
	const char *data_id;     /* NULL when absent or null (then the physical page is the key) */
	size_t data_id_len;
	const char *data_map;    /* mapping name, NULL when absent */
	size_t data_map_len;
	const char *data_sym;    /* data symbol, NULL when absent */
	size_t data_sym_len;
	bool peer;               /* data_src says HITM (local/remote) or a peer-cache snoop */
	int64_t cpu;             /* the CPU the sample was taken on, when has_cpu */
	bool has_cpu;
	bool fault;              /* "event" is a page-fault event (jsonl_event_is_fault): a first touch, not a sampled access */
	/* its evidence key computed ahead (mem_agg_sample_key_ahead, on another
	 * thread than the aggregation's); key_ahead 0: not (the scanner's) */
	uint8_t key_ahead, key_scale;
	uint64_t key;
};

/*
 * Scan line[0..len) (no trailing newline) into *s, decoding strings in
 * place. Returns 0, or -1 with a short description of what is wrong in
 * err ("missing key \"cgroup\"", "\"tid\": expected an integer", ...).
 * Required keys: comm, tid, pid, cgroup, phys_addr, data_page_size.
 */
int jsonl_scan_mem(char *line, size_t len, struct mem_sample *s, char *err, size_t errlen);

/*
 * Is an event name one of the page-fault software events (page-faults,
 * faults, minor-faults, major-faults, with or without a ":u"-style
 * modifier): samples taken when a process maps a page, not a sample of
 * its accesses (docs/clustering.md, "First touches").
 */
bool jsonl_event_is_fault(const char *name, size_t len);

#endif
