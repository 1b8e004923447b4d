/*
 * llc_json.c - writes extract's cross-LLC sidecar file (see llc_json.h).
 */
#include "cmd/llc_json.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

int llc_json_write(void *ctx, const struct llc_share_result *r)
{
	const char *path = ctx;
	char tmp[PATH_MAX];
	FILE *f;
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return scx_fail("%s: path too long", path);
	if ((fd = mkstemp(tmp)) < 0)
		return scx_fail_errno("%s: cannot create a temporary file beside it", path);
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		return scx_fail_errno("%s", tmp);
	}
	rc = llc_share_write_json(f, r);
	if (fclose(f) != 0 && rc == 0)
		rc = scx_fail_errno("%s: write failed", tmp);
	if (rc == 0 && link(tmp, path) < 0)
		rc = errno == EEXIST ? scx_fail("%s: already exists, not overwritten", path)
				     : scx_fail_errno("%s", path);
	unlink(tmp);
	return rc;
}
