/*
 * script_text.h - parsing the text that `perf script` prints for memory
 * samples (perf.mem.script / perf.script in upstream archives), with the
 * upstream tool's rules.
 *
 * Upstream asked perf for -F comm,tid,pid,time,cgroup,ip,addr,phys_addr,
 * data_page_size,dso,sym. A line starts with the comm (which may contain
 * spaces), then "pid/tid", then the time "SECONDS.FRACTION:", then the
 * address fields as perf orders them. See script_text.c for the exact rules.
 */
#ifndef SCX_SCRIPT_TEXT_H
#define SCX_SCRIPT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct script_mem_sample {
	char comm[256];
	int64_t pid, tid;
	char time[32];      /* as printed ("12345.678901"), without the colon */
	uint64_t time_ns;   /* the same, in ns */
	uint64_t addr;
	uint64_t ip;
	char sym[512];
	char dso[1024];
	uint64_t phys_addr;
	bool has_phys_addr; /* false when the field was empty */
	uint64_t data_page_size; /* bytes; "N/A" -> 0 */
	char cgroup[1024];  /* "" when perf printed none */
};

/*
 * Parse one line (without the newline). 0 on success; -1 when the line is
 * unparseable, with the reason in scx_errmsg().
 */
int script_text_parse_mem_line(const char *line, size_t len, struct script_mem_sample *out);

#endif
