/*
 * backend_pmu.h - building each memory-sampling backend from the sysfs PMUs
 * (backend_pmu.c; Arm SPE: backend_spe.h), for backend_choose.c: find a vendor's PMUs, then build
 * its complete event set into a zeroed struct mem_backend. Every build
 * returns 0, or -1 with scx_fail() saying why (e.g. --ldlat out of the
 * vendor's range). Not part of the record API.
 */
#ifndef SCX_RECORD_BACKEND_PMU_H
#define SCX_RECORD_BACKEND_PMU_H

#include <stddef.h>

#include "record/backend/backend.h"

/* Names of the Intel core PMUs (cpu, cpu_core, cpu_atom) with events/mem-loads under root; count. */
size_t mem_backend_intel_pmus(const char *root, const char *names[3]);
int mem_backend_build_intel(const struct mem_backend_opts *o, const char *const *names, size_t n,
			    struct mem_backend *b);

/* AMD IBS op (the caller checked that ibs_op exists). */
int mem_backend_build_amd(const struct mem_backend_opts *o, struct mem_backend *b);

/* Page-fault software samples: every machine has them. */
int mem_backend_build_software(const struct mem_backend_opts *o, struct mem_backend *b);

/* cpu-clock samples with user registers, decoded for their data addresses (x86-64). */
int mem_backend_build_decode(const struct mem_backend_opts *o, struct mem_backend *b);

#endif
