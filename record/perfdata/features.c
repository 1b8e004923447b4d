/*
 * features.c - builds the perf.data feature payloads (see record_perfdata.h).
 * Layouts follow tools/perf/util/header.c: a "perf string" is a u32 length
 * (padded to 64 bytes, NUL included) followed by the padded bytes.
 */
#include "record/perfdata/record_perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/version.h"

struct buf {
	uint8_t data[16384];
	size_t len;
	int overflow;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > sizeof(b->data)) {
		b->overflow = 1;
		return;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 63) & ~(size_t)63;
	static const uint8_t zeros[64];

	put_u32(b, (uint32_t)padded);
	put(b, s, n);
	put(b, zeros, padded - n);
}

static int add(struct pd_writer *w, int bit, struct buf *b)
{
	if (b->overflow)
		return scx_fail("perf.data feature %d too large", bit);
	return pd_writer_add_feature(w, bit, b->data, b->len);
}

static int add_string(struct pd_writer *w, int bit, const char *s)
{
	struct buf b = {0};

	put_string(&b, s);
	return add(w, bit, &b);
}

/* "key\t: value" from /proc/cpuinfo (first cpu), "" if absent. */
static void cpuinfo(const char *key, char *out, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t kl = strlen(key);

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, key, kl) && (line[kl] == '\t' || line[kl] == ' ' || line[kl] == ':') && colon) {
			colon += 1 + (colon[1] == ' ');
			snprintf(out, size, "%.*s", (int)strcspn(colon, "\n"), colon);
			break;
		}
	}
	fclose(f);
}

static uint64_t total_mem_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

void features_clock_pair(uint64_t *mono_ns, uint64_t *wall_ns)
{
	struct timespec m, r;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	*mono_ns = (uint64_t)m.tv_sec * 1000000000ULL + (uint64_t)m.tv_nsec;
	*wall_ns = (uint64_t)r.tv_sec * 1000000000ULL + (uint64_t)r.tv_nsec;
}

static int add_system(struct pd_writer *w)
{
	struct utsname u;
	char host[256], vendor[64], family[16], model[16], stepping[16], cpuid[160], desc[256];
	struct buf b = {0};

	if (uname(&u) < 0)
		return scx_fail_errno("uname");
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "%s", u.nodename);
	cpuinfo("vendor_id", vendor, sizeof(vendor));
	cpuinfo("cpu family", family, sizeof(family));
	cpuinfo("model", model, sizeof(model));
	cpuinfo("stepping", stepping, sizeof(stepping));
	cpuinfo("model name", desc, sizeof(desc));
	snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, family, model, stepping);
	put_u32(&b, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	put_u32(&b, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	if (add_string(w, PD_FEAT_HOSTNAME, host) < 0 || add_string(w, PD_FEAT_OSRELEASE, u.release) < 0 ||
	    add_string(w, PD_FEAT_VERSION, "scxprof " SCXPROF_VERSION) < 0 ||
	    add_string(w, PD_FEAT_ARCH, u.machine) < 0 || add(w, PD_FEAT_NRCPUS, &b) < 0 ||
	    add_string(w, PD_FEAT_CPUDESC, desc[0] ? desc : u.machine) < 0 ||
	    add_string(w, PD_FEAT_CPUID, vendor[0] ? cpuid : u.machine) < 0)
		return -1;
	b.len = 0;
	put_u64(&b, total_mem_kb());
	return add(w, PD_FEAT_TOTAL_MEM, &b);
}

int features_add(struct pd_writer *w, const struct feature_info *fi)
{
	struct buf b = {0};
	struct timespec res;
	int i;

	if (add_system(w) < 0)
		return -1;
	put_u32(&b, (uint32_t)fi->argc);
	for (i = 0; i < fi->argc; i++)
		put_string(&b, fi->argv[i]);
	if (add(w, PD_FEAT_CMDLINE, &b) < 0)
		return -1;
	b.len = 0;
	put_u64(&b, fi->first_sample_ns);
	put_u64(&b, fi->last_sample_ns);
	if (add(w, PD_FEAT_SAMPLE_TIME, &b) < 0)
		return -1;
	b.len = 0;
	clock_getres(CLOCK_MONOTONIC, &res);
	put_u64(&b, (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec);
	if (add(w, PD_FEAT_CLOCKID, &b) < 0)
		return -1;
	b.len = 0;
	put_u32(&b, 1);
	put_u32(&b, CLOCK_MONOTONIC);
	put_u64(&b, fi->wall_ns);
	put_u64(&b, fi->clock_ns);
	return add(w, PD_FEAT_CLOCK_DATA, &b);
}
