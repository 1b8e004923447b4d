/*
 * comm_name.c - normalized comms (see mem_agg.h).
 */
#include "extract/mem/mem_agg.h"

size_t comm_name_normalize(const char *comm, size_t len)
{
	size_t n = len;

	while (n > 0 && comm[n - 1] >= '0' && comm[n - 1] <= '9')
		n--;
	return n ? n : len;
}
