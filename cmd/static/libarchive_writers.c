/*
 * libarchive_writers.c - linked into the static binary only (make static):
 * keeps libarchive's writers of formats scxprof never writes out of it.
 *
 * The pax writer (the profile archive's format) calls one helper,
 * __archive_write_entry_filetype_unsupported(), that libarchive keeps in
 * archive_write_set_format.o beside archive_write_set_format(), whose table
 * names all 17 writers. A static link that takes the helper from libarchive.a
 * takes that table too, and with it the 7zip, xar, iso9660, warc, zip, ...
 * writers and their libraries: libxml2, ICU (31 MB of data), lzma, bz2,
 * nettle. With this definition the linker never opens that member: the
 * binary is 9.9 MB instead of 43.9 MB, and carries no libxml2 code that
 * resolves host names or dlopens modules. The helper reports an entry whose
 * file type the format cannot store; scxprof archives regular files and directories only,
 * so this is an error path it does not reach, kept to the same contract:
 * the archive's error is set, the caller fails the entry.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>

void __archive_write_entry_filetype_unsupported(struct archive *a, struct archive_entry *entry,
						const char *format);

void __archive_write_entry_filetype_unsupported(struct archive *a, struct archive_entry *entry,
						const char *format)
{
	archive_set_error(a, EILSEQ, "%s: %s format cannot archive a file of type 0%o", archive_entry_pathname(entry),
			  format, (unsigned)archive_entry_filetype(entry));
}
