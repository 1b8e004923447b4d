/*
 * ksymbol_fix.c - the kernel's perf_event_ksymbol_output() adds the
 * sample_id size of each side-band event it writes to to the one shared
 * header (perf_event_header__init_id on ksymbol_event->event_id.header)
 * and never resets it, unlike the COMM, MMAP and task outputs. When
 * another recording on the same cpu listens for KSYMBOL too (another
 * scxprof or perf record), the events after the first get a header.size
 * one trailer (or more) too large: the body and the trailer are written at
 * the start, the rest of the reserved space holds stale ring bytes, and a
 * reader that takes the trailer from the record's end (perf: "failed to
 * process type: 17 [Bad address]") reads a garbage event id. The body's
 * length is known (24 bytes, then the NUL-terminated name padded to 8),
 * so the trailer can be put back at the end. Seen on kernel 6.18 while
 * other sessions recorded.
 */
#include "record/streams/ksymbol_fix.h"

#include <string.h>

#define KSYMBOL_FIXED 24 /* header, addr, len, ksym_type, flags */

bool ksymbol_fix_trailer(uint8_t *rec, size_t size, size_t trailer)
{
	size_t name_max, name_len, real;

	if (size < KSYMBOL_FIXED + 8 + trailer || size % 8)
		return false;
	name_max = size - KSYMBOL_FIXED - trailer;
	name_len = strnlen((const char *)rec + KSYMBOL_FIXED, name_max);
	if (name_len == name_max)
		return false; /* no NUL before the trailer: nothing to go by */
	real = KSYMBOL_FIXED + ((name_len + 1 + 7) & ~(size_t)7) + trailer;
	if (real >= size)
		return false;
	memmove(rec + size - trailer, rec + real - trailer, trailer);
	memset(rec + real - trailer, 0, size - real);
	return true;
}
