/*
 * header.h - the report's header: where the profile came from and what
 * was lost, from PROFILE.out/process.json and the recording's
 * metadata.json (and topology.json) when the profile directory is still
 * next to PROFILE.out. Missing or malformed files are said, not fatal.
 */
#ifndef SCX_REPORT_HEADER_H
#define SCX_REPORT_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct report_sources {
	const char *out_dir;      /* PROFILE.out */
	const char *perf_jsonl;   /* the input */
	const char *sched_jsonl;  /* NULL: none */
	uint64_t analysed;        /* samples extract read */
};

/*
 * The profile directory process read: process.json's inputs.profile
 * (absolute, or relative to PROFILE.out's parent or the current
 * directory), else PROFILE.out without ".out"; only one with a
 * metadata.json counts. Empty string when none is found.
 */
void header_find_profile(const char *out_dir, char *profile, size_t size);

/* The <header> section. */
void header_write(FILE *f, const struct report_sources *s);

#endif
