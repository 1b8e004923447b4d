/*
 * demangle.c - C++ demangling through libiberty (see demangle.h).
 */
#include "process/sym/demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *sym_demangle(const char *name)
{
	/* every name goes through it, as in perf: it also knows "_GLOBAL__sub_I_".
	 * It returns NULL for names not starting with '_' (Rust wants "_R" or
	 * "_ZN", the C++ ABI "_Z" or "_GLOBAL_" without DMGL_TYPES): skip those. */
	if (name[0] != '_')
		return NULL;
	return cplus_demangle(name, DMGL_NO_OPTS);
}
