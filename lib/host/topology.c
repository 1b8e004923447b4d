/*
 * topology.c - what every reader of a CPU topology shares (see host.h):
 * freeing one, finding a CPU, the largest LLC, and each CPU's LLC index
 * for the models that take plain arrays.
 */
#include "lib/host/host.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void host_topology_free(struct host_topology *t)
{
	size_t i;

	for (i = 0; t->cpus && i < t->n; i++) {
		free(t->cpus[i].llc_cpus);
		free(t->cpus[i].siblings);
	}
	free(t->cpus);
	for (i = 0; i < t->nr_cpusets; i++) {
		free(t->cpuset_path[i]);
		free(t->cpuset_cpus[i]);
	}
	free(t->cpuset_path);
	free(t->cpuset_cpus);
	memset(t, 0, sizeof(*t));
}

unsigned host_topology_largest_llc(const struct host_topology *t)
{
	unsigned best = 0;
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		const struct host_cpu *c = &t->cpus[i];
		long n = c->llc_cpus && c->llc_cpus[0] ? host_cpulist_count(c->llc_cpus) : -1;

		if (n < 0 && c->llc >= 0) /* no list: the CPUs naming the same LLC */
			for (j = 0, n = 0; j < t->n; j++)
				n += t->cpus[j].llc == c->llc;
		if (n > 0 && (unsigned long)n > best)
			best = (unsigned)n;
	}
	return best ? best : (unsigned)t->n;
}
