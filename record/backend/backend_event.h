/*
 * backend_event.h - the --event path of mem_backend_choose()
 * (backend_event.c): a sysfs pmu/term=val,.../ string or a libpfm4 event
 * name encoded into the backend's event set. Not part of the record API.
 */
#ifndef SCX_RECORD_BACKEND_EVENT_H
#define SCX_RECORD_BACKEND_EVENT_H

#include "record/backend/backend.h"

/* o->event_spec into out (zeroed by the caller); -1 with scx_fail() naming the string. */
int mem_backend_from_spec(const struct mem_backend_opts *o, struct mem_backend *out);

#endif
