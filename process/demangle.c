/*
 * demangle.c - C++ demangling through libiberty (see demangle.h).
 */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *sym_demangle(const char *name)
{
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	return cplus_demangle(name, DMGL_NO_OPTS);
}
