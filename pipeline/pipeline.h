/*
 * pipeline.h - the contract of pipeline/: the one-pass composition of
 * process and extract (onepass.h: extract -f PROFILE without the JSONL in
 * between). How it converts process's samples and events into extract's
 * (sample_conv.h, sched_conv.h) is its own.
 */
#ifndef SCX_PIPELINE_H
#define SCX_PIPELINE_H

#include "pipeline/onepass.h"

#endif
