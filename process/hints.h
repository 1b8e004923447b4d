/*
 * hints.h - per-thread "hint" values recorded in hints.jsonl and the lookup
 * that annotates samples with them (upstream scx_characterize semantics).
 *
 * hints.jsonl holds one JSON object per line:
 *   {"pid": TID, "tgid": TGID, "hints": VALUE, "timestamp": NS}
 * ("pid" is the thread id, timestamps are CLOCK_MONOTONIC ns). The index keeps
 * the updates of each tid sorted by timestamp. A sample of tid T at time t
 * gets the value of the latest update of T with timestamp <= t, else 0.
 *
 * Out-of-order input is counted, not fatal: hint updates whose timestamp goes
 * back in time for their tid (in file order), and lookups whose time goes
 * back for a tid (the per-tid forward cursor then falls back to binary
 * search). Up to 8 example tids of each kind are kept for the warning
 * (the first distinct tids met, in order), and the number of distinct tids
 * affected ("across N tid(s)" in upstream's warning).
 *
 * Equal timestamps of one tid keep file order; the last of them in the file
 * is the one a lookup at that time returns. Blank lines are skipped (and
 * still copied). hints_empty() does not track lookup ordering (upstream has
 * no annotator at all without hints.jsonl).
 */
#ifndef SCX_HINTS_H
#define SCX_HINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hints_index;

#define HINTS_MAX_EXAMPLES 8

struct hints_stats {
	uint64_t updates;            /* lines loaded */
	uint64_t tids;               /* distinct tids */
	uint64_t unordered_updates;  /* updates that went back in time for their tid */
	uint64_t unordered_update_tids_total; /* distinct tids with such updates */
	uint32_t unordered_update_tids[HINTS_MAX_EXAMPLES];
	size_t nr_unordered_update_tids;
	uint64_t lookups;            /* samples looked up */
	uint64_t hinted;             /* lookups that found an update (value may be 0) */
	uint64_t nonzero;            /* lookups that returned a non-zero value */
	uint64_t unordered_lookups;  /* lookups that went back in time for their tid */
	uint64_t lookup_searches;    /* lookups that binary-searched their tid's updates */
	uint64_t lookup_steps;       /* updates a lookup's cursor moved forward over */
	uint64_t unordered_lookup_tids_total; /* distinct tids with such lookups */
	uint32_t unordered_lookup_tids[HINTS_MAX_EXAMPLES];
	size_t nr_unordered_lookup_tids;
	uint64_t first_timestamp, last_timestamp; /* of all updates; 0 when none */
};

/*
 * Load path. When copy is not NULL every input line is also written to it
 * verbatim (the copy of hints.jsonl in the output directory). A line that is
 * not a JSON object with the four integer keys is an error naming
 * "path:line" and what is wrong.
 */
int hints_load(struct hints_index **out, const char *path, FILE *copy);

/* An empty index (no hints file): every lookup returns 0. */
struct hints_index *hints_empty(void);

/* The hint of tid at time_ns (see above). */
uint64_t hints_lookup(struct hints_index *h, uint32_t tid, uint64_t time_ns);

/* Every loaded update, each tid's in timestamp order, with the tgid of the
 * tid's last line; stops at the first fn that returns -1. */
typedef int (*hints_update_fn)(void *ctx, uint32_t tid, int32_t tgid, uint64_t timestamp, uint64_t value);
int hints_foreach(const struct hints_index *h, hints_update_fn fn, void *ctx);

void hints_get_stats(const struct hints_index *h, struct hints_stats *st);
void hints_free(struct hints_index *h);

#endif
