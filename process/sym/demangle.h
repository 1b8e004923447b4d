/*
 * demangle.h - C++ symbol demangling the way perf script prints names:
 * libiberty's cplus_demangle with no options, so no parameter lists
 * ("ns::Class::method", not "ns::Class::method(int)").
 */
#ifndef SCX_DEMANGLE_H
#define SCX_DEMANGLE_H

/* malloc'ed demangled name, or NULL when name is not a mangled C++ name. */
char *sym_demangle(const char *name);

#endif
