/*
 * record_kernel.h - which kernel the profile's kallsyms snapshot comes from:
 * "kernel_build_id" of metadata.json (schemas/metadata.schema.json), the
 * build-id of the kernel record ran on when it copied /proc/kallsyms.
 * process warns when the recording's perf.data names another kernel (files
 * of two profiles mixed).
 */
#ifndef SCX_PROCESS_RECORD_KERNEL_H
#define SCX_PROCESS_RECORD_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read path (metadata.json): its size in bytes (1..20) and the id in bid;
 * 0 when the file names none (older profiles, or "" when record could not
 * read it); -1 with scx_fail() when the file cannot be read or the value is
 * not hex of 1 to 20 bytes (the file is treated as hostile: size-capped,
 * types checked).
 */
int record_kernel_build_id(const char *path, uint8_t bid[20]);

#endif
