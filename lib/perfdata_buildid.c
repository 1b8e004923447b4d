/*
 * perfdata_buildid.c - the BUILD_ID feature of a perf.data file (see
 * perfdata.h: pd_build_id_for): a part of the reader that calls its core
 * (perfdata.c: the feature section, bounds-checked there) and nothing else.
 */
#include "lib/perfdata.h"

#include <stdint.h>
#include <string.h>

/*
 * Entries are perf_record_header_build_id: a perf_event_header, pid (s32),
 * 24 bytes of build-id (20 of id, then its size when misc has
 * PERF_RECORD_MISC_BUILD_ID_SIZE), and the NUL-padded file name, header.size
 * bytes in all.
 */
int pd_build_id_for(const struct pd_file *f, const char *filename, uint8_t bid[20], size_t *size)
{
	const uint8_t *p, *end;
	const void *data;
	uint64_t len;

	if (pd_feature(f, PD_FEAT_BUILD_ID, &data, &len) < 0)
		return 0;
	p = data;
	end = p + len;
	while (end - p >= 8 + 4 + 24) {
		struct perf_event_header h;
		const char *name;
		size_t name_max;

		memcpy(&h, p, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > end - p)
			return 0;
		name = (const char *)p + 8 + 4 + 24;
		name_max = h.size - (8 + 4 + 24);
		if (strnlen(name, name_max) < name_max && !strcmp(name, filename)) {
			size_t n = 20;

			if (h.misc & (1 << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
				n = p[8 + 4 + 20] <= 20 ? p[8 + 4 + 20] : 20;
			else
				while (n > 0 && p[8 + 4 + n - 1] == 0) /* perf trims trailing zeros */
					n--;
			memcpy(bid, p + 8 + 4, n);
			*size = n;
			return n > 0;
		}
		p += h.size;
	}
	return 0;
}
