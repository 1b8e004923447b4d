/*
 * extract.h - the contract of extract/: what the rest of the program
 * (cmd/, report/, pipeline/) may use of the config's stage. The extract
 * mem stage as a library call (extract_mem.h) and the recording's
 * topology (rec_topology.h); the samples it reads and their aggregation
 * (mem/mem_agg.h); the units, their sharing evidence, the clustering and the
 * cell config (sharing/sharing.h); one recording's evidence as a file and
 * one config from several (evidence/evidence.h); the scheduling trace and
 * extract sched's statistics (sched/extract_sched.h). The rest of extract/ is its
 * own.
 */
#ifndef SCX_EXTRACT_H
#define SCX_EXTRACT_H

#include "extract/evidence/evidence.h"
#include "extract/extract_mem.h"
#include "extract/mem/mem_agg.h"
#include "extract/rec_topology.h"
#include "extract/sched/extract_sched.h"
#include "extract/sharing/sharing.h"

#endif
