/*
 * llc_json.c - writes extract's cross-LLC sidecar file (see llc_json.h).
 */
#include "cmd/llc_json.h"

#include <stdio.h>

#include "lib/host/host.h"

static int write_json(FILE *f, void *ctx)
{
	return llc_share_write_json(f, ctx);
}

int llc_json_write(void *ctx, const struct llc_share_result *r)
{
	return host_write_file(ctx, write_json, (void *)r);
}
