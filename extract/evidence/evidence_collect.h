/*
 * evidence_collect.h - the per-recording step of a combine over
 * recordings: an extract_mem observer (extract/extract_mem.h) that turns
 * each top-level cell the stage decided into its evidence_file.h record:
 * units, demand, and the page and line statistics of every pair of units
 * that have anything in common.
 */
#ifndef SCX_EXTRACT_EVIDENCE_COLLECT_H
#define SCX_EXTRACT_EVIDENCE_COLLECT_H

#include "extract/evidence/evidence_file.h"
#include "extract/extract_mem.h"

struct evidence_collect {
	struct evf_recording rec; /* filled by the observer; the caller owns it (evf_free) */
	struct extract_mem_observer obs;
};

/* Set c up for extract_mem_run*(): pass &c->obs as o->observer. source names the recording. */
int evidence_collect_init(struct evidence_collect *c, const struct extract_mem_opts *o, const char *source);

#endif
