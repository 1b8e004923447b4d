/*
 * backend_spe.h - the Arm SPE backend (backend_spe.c), for
 * backend_choose.c and backend_event.c: find the arm_spe_N PMUs, build
 * their event set (attrs as perf mem builds them, each event with an AUX
 * area), say how samples will get their thread. Not part of the record API.
 */
#ifndef SCX_RECORD_BACKEND_SPE_H
#define SCX_RECORD_BACKEND_SPE_H

#include <stddef.h>

#include "record/backend/backend.h"

#define MEM_BACKEND_MAX_SPE_PMUS 4

/* arm_spe_N directories under root, sorted; count. */
size_t mem_backend_spe_pmus(const char *root, char names[MEM_BACKEND_MAX_SPE_PMUS][64]);
int mem_backend_build_spe(const struct mem_backend_opts *o, char names[][64], size_t n, struct mem_backend *b);
/* Arm SPE (backend_spe.c, also for --event): set b->context_switch and say
 * in b->pid_source how samples will be attributed to threads. */
void mem_backend_spe_pid_source(const struct mem_backend_opts *o, struct mem_backend *b);

#endif
