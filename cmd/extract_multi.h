/*
 * extract_multi.h - `scxprof extract` over several recordings: one
 * recording's evidence into a file (--evidence-out FILE), and one config
 * from several recordings (-f A -f B ...) and evidence files
 * (--evidence-in FILE ...), through extract/evidence/evidence_*.h.
 */
#ifndef SCX_CMD_EXTRACT_MULTI_H
#define SCX_CMD_EXTRACT_MULTI_H

#include <stddef.h>
#include <stdio.h>

#include "extract/extract.h"

/* Run the stage on one recording (o->path), the config to out: -1 + scx_fail. */
typedef int (*extract_multi_stage)(struct extract_mem_opts *o, const char *sched, long jobs, FILE *out);

/* The recording o->path: config to stdout as usual, its evidence to path (must not exist; written whole or not at all). */
int extract_multi_evidence_out(extract_multi_stage stage, struct extract_mem_opts *o, const char *sched, long jobs,
			       const char *path);

/*
 * Combine the recordings files[0..nf) (each run through stage, sched.jsonl
 * next to each) and the evidence files ev[0..ne) into one config on stdout,
 * the -v report (mo->verbose) on stderr.
 */
int extract_multi_combine(extract_multi_stage stage, const struct extract_mem_opts *o, const char *const *files,
			  size_t nf, const char *const *ev, size_t ne, long jobs, const struct evidence_merge_opts *mo);

#endif
