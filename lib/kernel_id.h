/*
 * kernel_id.h - which build a binary or a kernel is: build-ids (the GNU
 * NT_GNU_BUILD_ID note) of the running kernel (/sys/kernel/notes), of an
 * ELF file or an ELF image in memory, perf's rule for comparing two of them,
 * and a kernel's relocation (_text, _etext) from a kallsyms file.
 *
 * record writes these into perf.data's BUILD_ID feature; process checks them
 * before it lets /proc/kallsyms symbolize a recording.
 */
#ifndef SCX_KERNEL_ID_H
#define SCX_KERNEL_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KID_BUILD_ID_MAX 20
#define KID_HEX_SIZE (2 * KID_BUILD_ID_MAX + 1)

/* The first GNU build-id note in a buffer of ELF notes (the layout of
 * /sys/kernel/notes and of an SHT_NOTE section): its size, 0 when none. */
size_t kid_notes_build_id(const void *notes, size_t len, uint8_t bid[KID_BUILD_ID_MAX]);

/* The running kernel's build-id from notes_path (normally
 * "/sys/kernel/notes"): its size; -1 (scx_fail naming the file) when the
 * file cannot be read or holds no build-id note. */
int kid_running_build_id(const char *notes_path, uint8_t bid[KID_BUILD_ID_MAX]);

/* Build-id of the ELF file at path, as perf reads it (SHT_NOTE sections):
 * its size, 0 when the file is not a regular ELF file or has none. Only
 * regular files are opened (never a device or fifo named in a mapping). */
int kid_file_build_id(const char *path, uint8_t bid[KID_BUILD_ID_MAX]);

/* The same for an ELF image in memory (the [vdso]). */
int kid_image_build_id(const void *image, size_t len, uint8_t bid[KID_BUILD_ID_MAX]);

/* perf's dso__build_id_equal: equal bytes; a 20-byte id may carry trailing
 * zeros where the other is shorter. Empty ids are never equal. */
bool kid_build_id_equal(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* Lower-case hex of a build-id into out (KID_HEX_SIZE bytes). */
void kid_build_id_hex(const uint8_t *bid, size_t n, char out[KID_HEX_SIZE]);

/* _text and _etext of a kallsyms file (0 when absent), reading only up to
 * where both are found; etext NULL: _text only (near the top of the file,
 * while _etext comes after every kernel text symbol). -1 (scx_fail) when
 * the file cannot be opened. */
int kid_kallsyms_text(const char *path, uint64_t *text, uint64_t *etext);

#endif
