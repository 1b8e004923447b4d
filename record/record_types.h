/*
 * record_types.h - what a recording is asked to do (struct record_opts) and
 * what it did (struct record_result): record_run()'s arguments (record.h),
 * also read by metadata.c for metadata.json, so metadata.h need not include
 * record.h.
 */
#ifndef SCX_RECORD_TYPES_H
#define SCX_RECORD_TYPES_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/warnings.h"
#include "record/backend/backend.h"
#include "record/streams/streams.h"

struct record_opts {
	const char *dir;               /* existing, empty output directory */
	unsigned timeout_s;            /* -t (30) */
	bool mem;                      /* memory stream on (not --disable-mem-trace) */
	struct mem_backend_opts backend;
	size_t mmap_pages;             /* --mmap-pages (0: default) */
	size_t aux_pages;              /* --aux-pages, Arm SPE's AUX area per cpu (0: perf's default) */
	bool sched;                    /* scheduling stream on (not --disable-sched-trace) */
	unsigned sched_ring_mb;        /* --sched-ring-sz (32) */
	const char *hints_map;         /* --hints-map or NULL */
	unsigned hints_ring_mb;        /* --hints-map-ring-sz (8) */
	unsigned hints_poll_ms;        /* --hints-poll-ms (10) */
	char **command;                /* -- COMMAND ARGS..., NULL-terminated, or NULL */
	int argc;                      /* our own command line, for metadata */
	char **argv;
	volatile sig_atomic_t *stop;   /* set on SIGINT/SIGTERM */
	FILE *status;                  /* progress lines (stderr), or NULL */
	bool status_tty;               /* refresh one line in place */
	int verbose;
};

struct record_result {
	struct mem_backend backend;
	struct mem_stream_stats mem;
	bool mem_on, hints_on, sched_on;
	struct sched_stream_stats sched; /* when sched_on */
	char hints_mode[32];
	char hints_why_not_fentry[256];
	uint64_t hints_updates, hints_drops;
	uint64_t hints_max_gap_ns;     /* snapshot mode: longest time between two snapshots */
	uint64_t start_mono_ns, end_mono_ns, start_wall_ns, end_wall_ns;
	bool interrupted;
	bool drain_yielded;            /* the drain loop ran at YIELD_NICE while keeping up */
	uint64_t drain_boosts;         /* times it went back to its own priority (a ring a quarter full) */
	int command_status;            /* wait status of COMMAND, -1 if none */
	int command_pid;               /* pid of COMMAND (0 if none); it runs as "scxprof" until its exec */
	struct warnings warnings;
};

#endif
