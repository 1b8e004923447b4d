/*
 * kernel_id.c - build-ids and kernel relocation (see kernel_id.h).
 * ELF files are read with libelf; the kernel's notes file is a bare
 * sequence of notes (Elf_Nhdr, name and descriptor padded to 4 bytes).
 */
#include "kernel_id.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

#define NOTE_ALIGN(n) (((n) + 3) & ~(size_t)3)
#define NOTES_MAX (64 * 1024) /* /sys/kernel/notes is a few hundred bytes */

size_t kid_notes_build_id(const void *notes, size_t len, uint8_t bid[KID_BUILD_ID_MAX])
{
	const uint8_t *p = notes;
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t h[3];
		size_t name, desc;

		memcpy(h, p + off, sizeof(h));
		off += 12;
		name = NOTE_ALIGN((size_t)h[0]);
		desc = NOTE_ALIGN((size_t)h[1]);
		if (h[0] > len - off || name > len - off || h[1] > len - off - name)
			return 0;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(p + off, "GNU", 4) && h[1] > 0) {
			size_t n = h[1] < KID_BUILD_ID_MAX ? h[1] : KID_BUILD_ID_MAX;

			memcpy(bid, p + off + name, n);
			return n;
		}
		if (desc > len - off - name)
			return 0;
		off += name + desc;
	}
	return 0;
}

int kid_running_build_id(const char *notes_path, uint8_t bid[KID_BUILD_ID_MAX])
{
	uint8_t *buf = malloc(NOTES_MAX);
	size_t len = 0, n;
	int fd;
	ssize_t r;

	if (!buf)
		return scx_fail("%s: out of memory", notes_path);
	fd = open(notes_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return scx_fail_errno("%s: cannot open", notes_path);
	}
	while (len < NOTES_MAX && (r = read(fd, buf + len, NOTES_MAX - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			free(buf);
			return scx_fail_errno("%s: read failed", notes_path);
		}
		len += (size_t)r;
	}
	close(fd);
	n = kid_notes_build_id(buf, len, bid);
	free(buf);
	if (!n)
		return scx_fail("%s: no GNU build-id note", notes_path);
	return (int)n;
}

/* First build-id in the SHT_NOTE sections of an ELF handle, or 0. */
static int elf_note_build_id(Elf *elf, uint8_t bid[KID_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				size_t n = nh.n_descsz < KID_BUILD_ID_MAX ? nh.n_descsz : KID_BUILD_ID_MAX;

				memcpy(bid, (const char *)d->d_buf + desc_off, n);
				return (int)n;
			}
		}
	}
	return 0;
}

int kid_file_build_id(const char *path, uint8_t bid[KID_BUILD_ID_MAX])
{
	struct stat st;
	Elf *elf;
	int fd, n;

	/* stat first: opening a device named in a mapping could have effects */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf_note_build_id(elf, bid);
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

int kid_image_build_id(const void *image, size_t len, uint8_t bid[KID_BUILD_ID_MAX])
{
	Elf *elf;
	int n;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, len);
	n = elf_note_build_id(elf, bid);
	if (elf)
		elf_end(elf);
	return n;
}

bool kid_build_id_equal(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	const uint8_t *longer = na > nb ? a : b;
	size_t common = na < nb ? na : nb, most = na > nb ? na : nb;

	if (!common || memcmp(a, b, common))
		return false;
	if (most == common)
		return true;
	if (most != KID_BUILD_ID_MAX)
		return false;
	for (size_t i = common; i < most; i++)
		if (longer[i])
			return false;
	return true;
}

void kid_build_id_hex(const uint8_t *bid, size_t n, char out[KID_HEX_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (n > KID_BUILD_ID_MAX)
		n = KID_BUILD_ID_MAX;
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * n] = '\0';
}

int kid_kallsyms_text(const char *path, uint64_t *text, uint64_t *etext)
{
	char line[512];
	FILE *f = fopen(path, "re");
	uint64_t unused = 1; /* no etext wanted: stop at _text, near the top */

	if (!etext)
		etext = &unused;
	*text = 0;
	if (etext != &unused)
		*etext = 0;
	if (!f)
		return scx_fail_errno("%s: cannot open", path);
	/* "ADDR T NAME" lines; no sscanf: the file has 100k+ lines */
	while ((!*text || !*etext) && fgets(line, sizeof(line), f)) {
		char *p = line, *name;
		uint64_t addr = strtoull(p, &p, 16);

		if (p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		name = p + 3;
		name[strcspn(name, "\n\t")] = '\0';
		if (!strcmp(name, "_text"))
			*text = addr;
		else if (!strcmp(name, "_etext"))
			*etext = addr;
	}
	fclose(f);
	return 0;
}
