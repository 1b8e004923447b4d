/*
 * sched_util_internal.h - what the files of the sched_util module share
 * (see extract_sched.h): sched_util_cats.c (the --categories list: parsing,
 * checking, matching) and sched_util.c (the per-CPU state machine, the
 * windows, the output). Not for other modules.
 */
#ifndef SCX_EXTRACT_SCHED_UTIL_INTERNAL_H
#define SCX_EXTRACT_SCHED_UTIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The system categories, always added to the list. */
enum sys { SYS_NONE = -1, SYS_HARDIRQ, SYS_SOFT_RX, SYS_SOFT_TX, SYS_SOFT_OTHER, SYS_NMI };
static const char *const sys_names[] = {"hardirq", "softirq-rx", "softirq-tx", "softirq-other", "nmi"};

struct category {
	char *name, *comm;
	bool glob, has_hint;
	uint64_t hint;
};

struct cats {
	struct category *v;
	size_t n;
};

/* ---- sched_util_cats.c ---- */
/* The --categories list spec (NULL: none) into *out. -1 with scx_fail. */
int sched_util_parse_categories(const char *spec, struct cats *out);
void sched_util_cats_free(struct cats *c);
/* '*' any run, '?' one byte, bytes otherwise (upstream's matcher). */
bool sched_util_glob_match(const char *p, const char *v);
/* A whole decimal u64. */
int sched_util_parse_u64(const char *s, uint64_t *v);

#endif
