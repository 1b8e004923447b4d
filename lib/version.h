/* version.h - the tool's version string, shown by --version and written to metadata. */
#ifndef SCX_VERSION_H
#define SCX_VERSION_H
#define SCXPROF_VERSION "0.1.0"
#endif
