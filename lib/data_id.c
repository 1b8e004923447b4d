/*
 * data_id.c - mapping kinds and the text form of data page identities (see
 * data_id.h).
 */
#include "data_id.h"

#include <string.h>
#include <sys/mman.h>

#include "lib/hash.h"
#include "lib/jsonw.h"

bool data_id_name_is_anon(const char *name)
{
	return name[0] == '[' || !strncmp(name, "//anon", 6) || !strncmp(name, "anon_inode:", 11) ||
	       name[0] == '\0';
}

/* A path that names one object for the whole recording. */
static bool path_is_unique(const char *name)
{
	return name[0] == '/' && strncmp(name, "/dev/zero", 9) && strncmp(name, "/memfd:", 7) &&
	       !strstr(name, " (deleted)");
}

/* File identity from the inode, else from the path; false when neither. */
static bool file_identity(const struct data_id_map *m, uint32_t *maj, uint32_t *min, uint64_t *ino,
			  uint64_t *ino_gen)
{
	if (m->has_ino && (m->ino || m->maj || m->min)) {
		*maj = m->maj;
		*min = m->min;
		*ino = m->ino;
		*ino_gen = m->ino_gen;
		return true;
	}
	if (!path_is_unique(m->name))
		return false;
	*maj = *min = 0;
	*ino = hash_fnv1a_str(m->name);
	*ino_gen = 0;
	return true;
}

enum data_id_kind data_id_map_kind(const struct data_id_map *m, uint32_t *maj, uint32_t *min,
				   uint64_t *ino, uint64_t *ino_gen)
{
	bool anon = data_id_name_is_anon(m->name);

	*maj = *min = 0;
	*ino = *ino_gen = 0;
	if (!m->has_prot) {
		/* MMAP v1: no prot/flags, no inode; guess from the name */
		if (anon)
			return DATA_ID_ANON;
		if (!strncmp(m->name, "/SYSV", 5) || !strncmp(m->name, "/dev/shm/", 9))
			return file_identity(m, maj, min, ino, ino_gen) ? DATA_ID_FILE : DATA_ID_NONE;
		return file_identity(m, maj, min, ino, ino_gen) ? DATA_ID_RO : DATA_ID_NONE;
	}
	if (m->flags & MAP_SHARED)
		return file_identity(m, maj, min, ino, ino_gen) ? DATA_ID_FILE : DATA_ID_NONE;
	if (anon || (m->prot & PROT_WRITE))
		return DATA_ID_ANON;
	return file_identity(m, maj, min, ino, ino_gen) ? DATA_ID_RO : DATA_ID_NONE;
}

char *data_id_put_head(char *p, const struct data_id *d)
{
	switch (d->kind) {
	case DATA_ID_ANON:
		memcpy(p, "\"A:", 3), p += 3;
		p = jsonw_put_i64(p, d->pid);
		break;
	case DATA_ID_FILE:
	case DATA_ID_RO:
		memcpy(p, d->kind == DATA_ID_FILE ? "\"F:" : "\"R:", 3), p += 3;
		p = jsonw_put_hex(p, d->maj);
		*p++ = ':';
		p = jsonw_put_hex(p, d->min);
		*p++ = ':';
		p = jsonw_put_hex(p, d->ino);
		*p++ = ':';
		p = jsonw_put_hex(p, d->ino_gen);
		break;
	case DATA_ID_KERNEL:
		memcpy(p, "\"K", 2), p += 2;
		break;
	default:
		return p;
	}
	*p++ = ':';
	return p;
}

char *data_id_put(char *p, const struct data_id *d)
{
	char *head_end = data_id_put_head(p, d);

	if (head_end == p) { /* DATA_ID_NONE */
		memcpy(p, "null", 4);
		return p + 4;
	}
	p = jsonw_put_hex(head_end, d->page);
	*p++ = '"';
	return p;
}
