/*
 * vdso.h - where this process's vDSO image is. The kernel maps the same
 * image into every process, so record saves it into the profile (vdso.so)
 * and process symbolizes [vdso] samples from it.
 */
#ifndef SCX_VDSO_H
#define SCX_VDSO_H

#include <stddef.h>

/* Start and length of the [vdso] mapping; -1 (scx_fail) when there is none. */
int vdso_image(const void **start, size_t *len);

/* Write the image to path (created 0600, must not exist). */
int vdso_save(const char *path);

#endif
