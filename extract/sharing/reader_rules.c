/*
 * reader_rules.c - the limits of the scheduler that reads the config (one
 * table, see sharing.h), their override, and the checks of a cgroup
 * matcher in the reader's dialect: Rust's regex crate on the absolute
 * cgroup path, where extract matches with PCRE2 on the recorded path.
 */
#include "extract/sharing/sharing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

const struct reader_limits reader_limits_default = {
	.name = READER_DEFAULT_NAME,
	.subcells = 8,     /* MAX_SUBCELLS_PER_CELL */
	.or_groups = 4,    /* MAX_SUBCELL_MATCH_ORS */
	.and_terms = 4,    /* MAX_SUBCELL_MATCH_ANDS */
	.prefix_bytes = 15, /* MAX_COMM - 1 */
};

int reader_limits_parse(const char *spec, struct reader_limits *out)
{
	static const struct {
		const char *key;
		size_t off;
		unsigned long min, max;
	} keys[] = {
		{"subcells", offsetof(struct reader_limits, subcells), 1, 4096},
		{"or", offsetof(struct reader_limits, or_groups), 1, 4096},
		{"and", offsetof(struct reader_limits, and_terms), 1, 4096},
		{"prefix", offsetof(struct reader_limits, prefix_bytes), 1, 4096},
	};
	const char *p = spec;

	*out = reader_limits_default;
	if (!*spec)
		return scx_fail("--reader-limits: empty (give subcells=N,or=N,and=N,prefix=N)");
	while (*p) {
		size_t len = strcspn(p, ","), k, klen = strcspn(p, "=,");
		unsigned long v;
		char *end;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k].key) == klen && !strncmp(p, keys[k].key, klen))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]) || p[klen] != '=')
			return scx_fail("--reader-limits: '%.*s' is not subcells=N, or=N, and=N or prefix=N", (int)len, p);
		errno = 0;
		v = strtoul(p + klen + 1, &end, 10);
		if (errno || end == p + klen + 1 || end != p + len || v < keys[k].min || v > keys[k].max)
			return scx_fail("--reader-limits: '%.*s': the value is not a number from %lu to %lu", (int)len, p,
					keys[k].min, keys[k].max);
		*(unsigned *)((char *)out + keys[k].off) = (unsigned)v;
		p += len;
		if (*p == ',' && !*++p)
			return scx_fail("--reader-limits: a trailing ','");
	}
	snprintf(out->name, sizeof(out->name), "reader limits subcells=%u,or=%u,and=%u,prefix=%u", out->subcells,
		 out->or_groups, out->and_terms, out->prefix_bytes);
	return 0;
}

/* What a "(?" group opener means to Rust (NULL: Rust has it too). */
static const char *group_problem(const char *s)
{
	static const struct {
		const char *open, *what;
	} pcre_only[] = {
		{"(?=", "look-ahead (?=...): the reader's regex has no look-around"},
		{"(?!", "negative look-ahead (?!...): the reader's regex has no look-around"},
		{"(?<=", "look-behind (?<=...): the reader's regex has no look-around"},
		{"(?<!", "negative look-behind (?<!...): the reader's regex has no look-around"},
		{"(?>", "atomic group (?>...): PCRE only, the reader refuses it"},
		{"(?|", "branch reset (?|...): PCRE only, the reader refuses it"},
		{"(?#", "comment (?#...): PCRE only, the reader refuses it"},
		{"(?(", "conditional (?(...)...): PCRE only, the reader refuses it"},
		{"(?C", "callout (?C...): PCRE only, the reader refuses it"},
		{"(?R", "recursion (?R): PCRE only, the reader refuses it"},
		{"(?&", "subroutine call (?&name): PCRE only, the reader refuses it"},
		{"(?P>", "subroutine call (?P>name): PCRE only, the reader refuses it"},
		{"(?P=", "backreference (?P=name): the reader's regex has no backreferences"},
		{"(?'", "named group (?'name'...): PCRE only, the reader refuses it"},
	};
	size_t i;

	for (i = 0; i < sizeof(pcre_only) / sizeof(pcre_only[0]); i++)
		if (!strncmp(s, pcre_only[i].open, strlen(pcre_only[i].open)))
			return pcre_only[i].what;
	if ((s[2] >= '0' && s[2] <= '9') || ((s[2] == '+' || s[2] == '-') && s[3] >= '0' && s[3] <= '9'))
		return "subroutine call (?N): PCRE only, the reader refuses it";
	if (!strncmp(s, "(?<", 3) || !strncmp(s, "(?P<", 4) || s[2] == ':')
		return NULL;
	/* flags: Rust has i m s x U u R and '-' */
	for (s += 2; *s && *s != ')' && *s != ':'; s++)
		if (!strchr("imsxUuR-", *s))
			return "a PCRE-only flag in (?...): the reader knows i, m, s, x, U, u and R";
	return NULL;
}

/* What an escape means to Rust against PCRE (NULL: the same thing to both). */
static const char *escape_problem(char c)
{
	if (c >= '1' && c <= '9')
		return "backreference \\N: the reader's regex has no backreferences";
	switch (c) {
	case 'g':
	case 'k':
		return "backreference \\g or \\k: the reader's regex has no backreferences";
	case 'K':
		return "\\K (reset the match start): PCRE only, the reader refuses it";
	case '0':
	case 'o':
		return "octal escape: the reader's regex has none (by default)";
	case 'G': case 'Z': case 'Q': case 'E': case 'R': case 'X': case 'C': case 'N': case 'h': case 'H':
	case 'V': case 'e': case 'c': case 'O':
		return "a PCRE-only escape (\\G \\Z \\Q \\E \\R \\X \\C \\N \\h \\H \\V \\e \\c): the reader refuses it";
	case 'v':
		return "\\v: vertical whitespace to PCRE, one vertical tab to the reader";
	case '<':
	case '>':
		return "\\< or \\>: a literal to PCRE, a word boundary to the reader";
	default:
		return NULL;
	}
}

/* An anchor at i (^ or \A): does the pattern go on with the reader's cgroup root? */
static bool anchored_on_root(const char *s)
{
	const char *root = READER_CGROUP_ROOT;

	while (*root) {
		if (*s == '\\' && (s[1] == '/' || s[1] == '.'))
			s++;
		if (*s != *root)
			return false;
		s++;
		root++;
	}
	return true;
}

/* Skip a bracket class starting at re[i] == '['; the index after its ']'. */
static size_t skip_class(const char *re, size_t i, const char **what, size_t *at)
{
	size_t depth = 0;

	do {
		if (re[i] == '[') {
			depth++;
			i++;
			if (re[i] == '^')
				i++;
			if (re[i] == ']')
				i++;
			continue;
		}
		if (re[i] == '\\' && re[i + 1]) {
			const char *w = escape_problem(re[i + 1]);

			if (w && !*what && re[i + 1] != '<' && re[i + 1] != '>') {
				*what = w;
				*at = i;
			}
			i += 2;
			continue;
		}
		if (re[i] == ']')
			depth--;
		i++;
	} while (re[i] && depth);
	return i;
}

const char *reader_regex_problem(const char *re, size_t *at)
{
	const char *what = NULL;
	bool alt_start = true; /* at the start of a top-level alternative */
	size_t i = 0, depth = 0, dummy;

	if (!at)
		at = &dummy;
	while (re[i] && !what) {
		char c = re[i];

		if (alt_start && (c == '^' || (c == '\\' && re[i + 1] == 'A'))) {
			if (!anchored_on_root(re + i + (c == '^' ? 1 : 2))) {
				*at = i;
				return "^ or \\A anchor: the reader matches the absolute path (" READER_CGROUP_ROOT
				       "/...), so it never matches there; drop the anchor or write " READER_CGROUP_ROOT "/...";
			}
		}
		alt_start = false;
		if (c == '\\') {
			if (!re[i + 1])
				break;
			if ((what = escape_problem(re[i + 1])))
				*at = i;
			i += 2;
		} else if (c == '[') {
			i = skip_class(re, i, &what, at);
		} else if (c == '(') {
			if (re[i + 1] == '*') {
				*at = i;
				return "a verb (*...): PCRE only, the reader refuses it";
			}
			if (re[i + 1] == '?' && (what = group_problem(re + i)))
				*at = i;
			depth++;
			i++;
		} else if (c == ')') {
			depth -= depth > 0;
			i++;
		} else if (c == '|') {
			alt_start = depth == 0;
			i++;
		} else if (c == '*' || c == '+' || c == '?' || c == '}') {
			if (re[i + 1] == '+') {
				*at = i;
				return "a possessive quantifier (*+ ++ ?+ {n}+): PCRE only, the reader refuses it";
			}
			i += 1 + (re[i + 1] == '?');
		} else {
			i++;
		}
	}
	return what;
}

const char *reader_contains_problem(const char *s)
{
	if (strstr(READER_CGROUP_ROOT "/", s))
		return "the reader matches it in every cgroup's path (" READER_CGROUP_ROOT "/...)";
	return NULL;
}
