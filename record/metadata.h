/*
 * metadata.h - metadata.json of a profile (schemas/metadata.schema.json):
 * tool version, command line, host, kernel, CPU model, start/end on
 * CLOCK_MONOTONIC and wall clock, backend and the exact attrs opened,
 * ldlat, per-stream counts, hint mode, warnings.
 */
#ifndef SCX_METADATA_H
#define SCX_METADATA_H

#include <stdio.h>

#include "record/record_types.h"

int metadata_write(FILE *out, const struct record_opts *o, const struct record_result *r);

#endif
