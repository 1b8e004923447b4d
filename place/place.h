/*
 * place.h - the contract of place/, `scxprof place`: a cell config's
 * placement applied to a running workload without sched_ext. The run
 * (place_run.h: read the config and the topology, measure, plan, pin,
 * follow) and the scx_mitosis model's CPUs for a thread (place_mitosis.h,
 * which scxprof check shows too). The plan (place_plan.h) and the host's
 * threads and pinning (place_host.h) are the room's own.
 */
#ifndef SCX_PLACE_H
#define SCX_PLACE_H

#include "place/place_mitosis.h"
#include "place/place_run.h"

#endif
