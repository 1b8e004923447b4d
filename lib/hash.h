/*
 * hash.h - the deterministic 64-bit hashes extract keys its data with:
 * hash_bytes for strings (data identities, string map keys) and
 * hash_mix64, a bijective mix of a 64-bit key (sampling levels, physical
 * page identities). Their values are part of extract's results (which
 * keys a sampling level keeps), so they never change. And FNV-1a, the
 * hash of names the other stages key their small tables with (dsos, build
 * ids, interned strings).
 */
#ifndef SCX_HASH_H
#define SCX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A fast, deterministic 64-bit hash of n bytes. */
uint64_t hash_bytes(const void *p, size_t n);

/* splitmix64's finalizer: a bijective mix of a 64-bit key. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* FNV-1a: start from HASH_FNV1A_INIT, fold in bytes with hash_fnv1a. */
#define HASH_FNV1A_INIT 0xcbf29ce484222325ULL

static inline uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* FNV-1a of a NUL-terminated string. */
static inline uint64_t hash_fnv1a_str(const char *s)
{
	uint64_t h = HASH_FNV1A_INIT;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

#endif
