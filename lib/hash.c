/*
 * hash.c - hash_bytes (see hash.h): 8 bytes at a time through hash_mix64.
 */
#include "hash.h"

#include <string.h>

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = hash_mix64(h ^ w);
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, s, n);
		h = hash_mix64(h ^ w ^ ((uint64_t)n << 56));
	}
	return h;
}
