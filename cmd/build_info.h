/* build_info.h - what this binary is, for `scxprof --version` (build_info.c). */
#ifndef SCX_CMD_BUILD_INFO_H
#define SCX_CMD_BUILD_INFO_H

#include <stdio.h>

/* "build: static (x86_64), commit ..." and "bpf: ..." lines, after the version line */
void build_info_print(FILE *f);

#endif
