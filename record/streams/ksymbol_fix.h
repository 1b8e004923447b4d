/*
 * ksymbol_fix.h - repair of the kernel's PERF_RECORD_KSYMBOL records whose
 * header.size is too large (ksymbol_fix.c), for mem_stream.c. Not part of
 * the record API (streams.h is).
 */
#ifndef SCX_RECORD_KSYMBOL_FIX_H
#define SCX_RECORD_KSYMBOL_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* rec is a PERF_RECORD_KSYMBOL of size bytes ending with a sample_id
 * trailer of trailer bytes. When the kernel wrote the trailer earlier than
 * the record's end (see ksymbol_fix.c), move it to the end, zero the gap
 * and return true; else leave rec alone and return false. */
bool ksymbol_fix_trailer(uint8_t *rec, size_t size, size_t trailer);

#endif
