/* Reading the kernel's text descriptions: /proc/kallsyms (or a recording's copy), the
 * /proc/modules list with /sys/module/NAME/sections/.text, and modules.builtin.ranges.
 * Parsing is done in place over one buffer per file; names point into it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "kerntop/paths.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "symbols_impl.h"

#define MAX_TEXT_FILE (512u << 20)

static const char *root_of(const struct kt_sym_opts *o)
{
	return o->sysroot && *o->sysroot ? o->sysroot : "";
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses "0x..." or plain hex; returns the end or NULL. */
static const char *parse_hex(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while ((d = hexval((unsigned char)*p)) >= 0) {
		v = v << 4 | (uint64_t)d;
		p++;
		if (++n > 16)
			return NULL;
	}
	if (!n)
		return NULL;
	*out = v;
	return p;
}

/* A whole file into *buf; an empty one is an error naming it and the option to use. */
static int read_text(const char *path, const char *opt, char **buf, size_t *len, char *err,
		     size_t errlen)
{
	char msg[KT_ERRLEN];
	int r = kt_read_file(path, MAX_TEXT_FILE, buf, len, msg, sizeof(msg));

	if (r < 0) {
		snprintf(err, errlen, "%s; check the path or pass %s FILE", msg, opt);
		return r;
	}
	if (*len == 0) {
		free(*buf);
		*buf = NULL;
		snprintf(err, errlen, "%s: empty file; pass %s FILE with the kernel's text", path,
			 opt);
		return -ENODATA;
	}
	return 0;
}

/* The runtime address of a module's section from <sysroot>/sys/module/NAME/sections/SECT,
 * readable (by root) only when the modules came from the same sysroot's /proc/modules. */
int sym_sysfs_section(const struct kt_symbols *s, uint32_t mod, const char *sect, uint64_t *addr)
{
	char path[PATH_MAX], msg[KT_ERRLEN], *b = NULL;
	size_t len;
	int r = -ENOENT;

	if (!s->sysfs_root || strchr(sect, '/') || strchr(s->mods[mod].name, '/') ||
	    kt_sysroot_path(path, sizeof(path), s->sysfs_root, KT_PATH_MODULE_SECTION,
			    s->mods[mod].name, sect) < 0)
		return -ENOENT;
	if (kt_read_file(path, 4096, &b, &len, msg, sizeof(msg)) < 0)
		return -ENOENT;
	if (parse_hex(b, addr) && *addr)
		r = 0;
	free(b);
	return r;
}

/* The line at *p, cut in place at its '\n' (and a '\r' before it); *p moves past it. The
 * buffer has a byte to spare after end (kt_read_file's NUL). */
static char *next_line(char **p, char *end)
{
	char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));

	if (!nl)
		nl = end;
	*nl = 0;
	if (nl > line && nl[-1] == '\r')
		nl[-1] = 0;
	*p = nl + 1;
	return line;
}

/* Splits a line in place into at most max fields separated by blanks; the last field ends at
 * its first blank too (the rest of the line is ignored). Returns the number of fields. */
static int split_fields(char *line, char **tok, int max)
{
	char *q = line;
	int nt = 0;

	while (*q && nt < max) {
		while (*q == ' ' || *q == '\t')
			*q++ = 0;
		if (!*q)
			break;
		tok[nt++] = q;
		while (*q && *q != ' ' && *q != '\t')
			q++;
	}
	*q = 0;
	return nt;
}

/* /proc/modules: "name size refcount deps state address [taint]". */
static int parse_modules(struct kt_symbols *s, char *b, size_t len)
{
	char *p = b, *end = b + len;

	while (p < end) {
		char *tok[7];
		int nt = split_fields(next_line(&p, end), tok, 7);
		uint64_t size, addr;
		char *e;
		int m;

		s->st.modules_lines++;
		if (nt == 0) {
			s->st.modules_lines--; /* blank lines are not malformed */
			continue;
		}
		if (nt < 6 || !tok[1][0] || !parse_hex(tok[5], &addr) || (tok[5][0] != '0') ||
		    (size = strtoull(tok[1], &e, 10), *e) || strchr(tok[0], '[')) {
			s->st.modules_skipped++;
			continue;
		}
		if (kt_sym_module_find(s, tok[0]) >= 0) {
			s->st.modules_skipped++;
			continue;
		}
		m = sym_add_module(s, tok[0], addr, size);
		if (m < 0)
			return m;
		s->mpriv[m].text_base = addr;
		if (sym_sysfs_section(s, (uint32_t)m, ".text", &addr) == 0)
			s->mpriv[m].text_base = addr;
		addr = s->mods[m].base;
		if (s->mpriv[m].text_base > addr && s->mpriv[m].text_base < addr + size) {
			s->mods[m].size = addr + size - s->mpriv[m].text_base;
			s->mods[m].base = s->mpriv[m].text_base;
		}
	}
	return 0;
}

static int is_text_type(int t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

/* What parsing keeps from one piece of kallsyms text to the next. */
struct ks_state {
	uint32_t last_mod; /* the module of the last [tag], UINT32_MAX before the first */
	int nonzero;	   /* an address was not 0 (else kptr_restrict hid them) */
};

/* /proc/kallsyms lines: "address type name[\t[module]]", parsed in place; the text
 * functions' names and the module tags are copied into the string pool, so the text can go
 * as soon as it is parsed. */
static int parse_kallsyms(struct kt_symbols *s, char *b, size_t len, struct sym_vec *syms,
			  struct ks_state *ks)
{
	char *p = b, *end = b + len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p, *name, *n, *tag = NULL;
		uint64_t a = 0;
		int nd = 0, d, type;
		uint32_t id;
		uint32_t mod = KT_MOD_VMLINUX;

		if (!nl)
			nl = end;
		if (nl == p || (nl == p + 1 && *p == '\r')) {
			p = nl + 1; /* blank line */
			continue;
		}
		s->st.kallsyms_lines++;
		while ((d = hexval((unsigned char)*q)) >= 0 && q < nl) {
			a = a << 4 | (uint64_t)d;
			q++;
			nd++;
		}
		if (nl > p && nl[-1] == '\r')
			*--nl = 0;
		if (nd == 0 || nd > 16 || nl - q < 4 || q[0] != ' ' || q[2] != ' ' ||
		    !((q[1] | 0x20) >= 'a' && (q[1] | 0x20) <= 'z') || q[3] == ' ' ||
		    q[3] == '\t') {
			s->st.kallsyms_skipped++;
			p = nl + 1;
			continue;
		}
		type = q[1];
		name = q + 3;
		for (n = name; n < nl && *n != '\t' && *n != ' '; n++)
			;
		if (n < nl) {
			char *t = n;

			while (t < nl && (*t == '\t' || *t == ' '))
				t++;
			if (t < nl) {
				if (*t != '[' || nl[-1] != ']' || nl - t < 3) {
					s->st.kallsyms_skipped++;
					p = nl + 1;
					continue;
				}
				tag = t + 1;
				nl[-1] = 0;
			}
		}
		*n = 0;
		p = nl + 1;
		if (a)
			ks->nonzero = 1;
		if (tag) {
			if (ks->last_mod != UINT32_MAX && !strcmp(tag, s->mods[ks->last_mod].name)) {
				mod = ks->last_mod;
			} else {
				int m = kt_sym_module_find(s, tag);

				if (m < 0) {
					const char *own = sym_strdup(s, tag, strlen(tag));

					m = own ? sym_add_module(s, own, 0, 0) : -ENOMEM;
				}
				if (m < 0)
					return m;
				mod = (uint32_t)m;
				ks->last_mod = mod;
			}
		} else if (name[0] == '_' && (name[1] == 's' || name[1] == 'e')) {
			if (!strcmp(name, "_stext"))
				s->stext = a;
			else if (!strcmp(name, "_etext"))
				s->etext = a;
			else if (!strcmp(name, "_sinittext"))
				s->sinittext = a;
			else if (!strcmp(name, "_einittext"))
				s->einittext = a;
		} else if (name[0] == '_' && name[1] == '_' && (name[2] == 'i' || name[2] == 'c')) {
			/* section bounds the context and idle rules use (docs/contexts.md) */
			if (!strcmp(name, "__irqentry_text_start"))
				s->irqentry_start = a;
			else if (!strcmp(name, "__irqentry_text_end"))
				s->irqentry_end = a;
			else if (!strcmp(name, "__cpuidle_text_start"))
				s->cpuidle_start = a;
			else if (!strcmp(name, "__cpuidle_text_end"))
				s->cpuidle_end = a;
		}
		/* __pfx_ symbols are the padding before each function (call thunks), not code */
		if (!is_text_type(type) || (name[0] == '_' && name[1] == '_' && name[2] == 'p' &&
					    !strncmp(name, "__pfx_", 6)))
			continue;
		id = sym_name_add(s, name, (size_t)(n - name));
		if (!id || sym_vec_push(syms, a, id, mod, (uint8_t)type) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* After the last line: every address 0 means kptr_restrict hid them; no symbol is usable. */
static void kallsyms_done(struct kt_symbols *s, struct sym_vec *syms, const struct ks_state *ks)
{
	if (s->st.kallsyms_lines > s->st.kallsyms_skipped && !ks->nonzero) {
		s->st.kptr_restricted = 1;
		syms->n = 0;
		s->stext = s->etext = s->sinittext = s->einittext = 0;
		s->irqentry_start = s->irqentry_end = s->cpuidle_start = s->cpuidle_end = 0;
	}
}

/* The kallsyms file read in pieces of whole lines and parsed as it comes: a /proc/kallsyms
 * of 5 MB and more is never held whole (issue 14: the viewer's peak memory; a line is at
 * most a few hundred bytes). */
#define KS_PIECE (64u << 10)
static int read_kallsyms(struct kt_symbols *s, const char *path, struct sym_vec *syms,
			 struct ks_state *ks, char *err, size_t errlen)
{
	char msg[KT_ERRLEN], sp[KT_PATH_SHOWN + 1], *b;
	size_t have = 0, total = 0;
	int fd = kt_open_regular(path, msg, sizeof(msg)), r = 0;

	if (fd < 0) {
		snprintf(err, errlen, "%s; check the path or pass --kallsyms FILE", msg);
		return fd;
	}
	b = malloc(KS_PIECE + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, b + have, KS_PIECE - have);
		char *nl;
		size_t used;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: read failed (%s); check the path or pass --kallsyms FILE",
				 kt_short_path(path, sp, sizeof(sp)), strerror(-r));
			break;
		}
		have += (size_t)n;
		total += (size_t)n;
		if (total > MAX_TEXT_FILE) {
			r = -EFBIG;
			snprintf(err, errlen, "%s: larger than %u bytes; check the path or pass --kallsyms FILE",
				 kt_short_path(path, sp, sizeof(sp)), MAX_TEXT_FILE);
			break;
		}
		/* whole lines only; at the end (or a line longer than a piece) what is there */
		nl = n && have < KS_PIECE ? NULL : memrchr(b, '\n', have);
		if (n && have < KS_PIECE)
			continue;
		used = n == 0 || !nl ? have : (size_t)(nl - b) + 1;
		if (used == have)
			b[used] = 0; /* (a cut piece keeps the next line's first byte there) */
		r = parse_kallsyms(s, b, used, syms, ks);
		if (r < 0 || n == 0)
			break;
		memmove(b, b + used, have - used);
		have -= used;
	}
	close(fd);
	free(b);
	if (r == 0 && total == 0) {
		snprintf(err, errlen, "%s: empty file; pass --kallsyms FILE with the kernel's text", path);
		r = -ENODATA;
	}
	return r;
}

struct anchor {
	char *sect;
	uint64_t base;
	int ok;
};

static uint64_t find_symbol(const struct kt_symbols *s, const struct sym_vec *syms,
			    const char *name, int *found)
{
	for (size_t i = 0; i < syms->n; i++)
		if (syms->v[i].module == KT_MOD_VMLINUX &&
		    !strcmp(sym_name(s, syms->v[i].name), name)) {
			*found = 1;
			return syms->v[i].addr;
		}
	*found = 0;
	return 0;
}

/* modules.builtin.ranges (scripts/generate_builtin_ranges.awk): per ELF section an anchor
 * "SECT 00000000-00000000 = SYMBOL" giving the section's runtime base through kallsyms,
 * then "SECT SOFF-EOFF MOD [MOD...]" offset ranges in ascending order. */
static int parse_ranges(struct kt_symbols *s, char *b, size_t len, const struct sym_vec *syms,
			struct region_vec *regs)
{
	struct anchor anchors[32];
	int nanch = 0;
	char *p = b, *end = b + len;

	while (p < end) {
		char *tok[4] = {0}, *dash;
		/* several modules share a range: the first one gets it */
		int nt = split_fields(next_line(&p, end), tok, 4), a, found;
		uint64_t soff, eoff;

		s->st.ranges_lines++;
		if (nt < 3 || tok[0][0] != '.' || !(dash = strchr(tok[1], '-'))) {
			s->st.ranges_skipped++;
			continue;
		}
		*dash = 0;
		if (parse_hex(tok[1], &soff) != dash || !parse_hex(dash + 1, &eoff) ||
		    eoff < soff) {
			s->st.ranges_skipped++;
			continue;
		}
		for (a = 0; a < nanch; a++)
			if (!strcmp(anchors[a].sect, tok[0]))
				break;
		if (!strcmp(tok[2], "=")) {
			if (nt < 4 || a < nanch ||
			    nanch == (int)(sizeof(anchors) / sizeof(anchors[0]))) {
				s->st.ranges_skipped++;
				continue;
			}
			anchors[nanch].sect = tok[0];
			anchors[nanch].base = find_symbol(s, syms, tok[3], &found) - soff;
			if (!found && s->stext && !strcmp(tok[3], "_stext")) {
				anchors[nanch].base = s->stext - soff;
				found = 1;
			}
			anchors[nanch].ok = found;
			nanch++;
			continue;
		}
		/* only code matters to a profiler */
		if (!strstr(tok[0], "text"))
			continue;
		if (a == nanch || !anchors[a].ok) {
			s->st.ranges_skipped++;
			continue;
		}
		{
			int m = kt_sym_module_find(s, tok[2]);

			if (m < 0) {
				m = sym_add_module(s, tok[2], 0, 0);
				if (m < 0)
					return m;
				s->mods[m].builtin = 1;
				s->st.builtin_modules++;
			} else if (!s->mods[m].builtin) {
				s->st.ranges_skipped++;
				continue;
			}
			if (region_push(regs, anchors[a].base + soff, anchors[a].base + eoff,
					(uint32_t)m, 2) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* A kernel sysctl under the sysroot as a small number; -1 when unreadable. Non-blocking, so a
 * FIFO planted there cannot hang the start. */
static int sysctl_int(const char *root, const char *sysctl)
{
	char path[PATH_MAX], buf[16];
	ssize_t len;
	long v;
	char *end;
	int fd;

	if (kt_sysroot_path(path, sizeof(path), root, "%s", sysctl) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	v = strtol(buf, &end, 10);
	return end != buf && (*end == '\n' || !*end) && v >= 0 && v < 100 ? (int)v : -1;
}

/* Why every kallsyms address reads as 0, and the fix. The kernel shows them when
 * kptr_restrict is 0 and perf_event_paranoid at most 1, or to CAP_SYSLOG (root) while
 * kptr_restrict is at most 1. For the running kernel's own file both values are read and the
 * one that hides the addresses is named; for a --kallsyms FILE or a recording's copy (another
 * moment, maybe another machine) both possible causes are named. */
static size_t kptr_notice(char *out, size_t cap, const char *ksrc, const char *root, int live)
{
	int kr = live ? sysctl_int(root, KT_PATH_KPTR_RESTRICT) : -1;
	int pa = live ? sysctl_int(root, KT_PATH_PERF_PARANOID) : -1;
	size_t used;
	int n;

	if (kr < 0 || pa < 0)
		n = geteuid() == 0
			? snprintf(out, cap,
				   "%s: every address reads as 0 (kernel.kptr_restrict): run as root "
				   "or sysctl kernel.kptr_restrict=0; ",
				   ksrc)
			: snprintf(out, cap,
				   "%s: every address reads as 0 (kernel.kptr_restrict, or "
				   "kernel.perf_event_paranoid above 1 for a user who is not root): "
				   "run as root, or set kptr_restrict=0 and perf_event_paranoid<=1; ",
				   ksrc);
	else if (kr >= 2)
		n = snprintf(out, cap,
			     "%s: every address reads as 0 (kernel.kptr_restrict is %d, which hides "
			     "them from every user, root too): sysctl kernel.kptr_restrict=%s; ",
			     ksrc, kr,
			     geteuid() == 0 ? "1"
			     : pa > 1	    ? "0 and kernel.perf_event_paranoid=1, or run as root "
					      "with kptr_restrict=1"
					    : "0");
	else if (geteuid() == 0)
		n = snprintf(out, cap,
			     "%s: every address reads as 0, though kernel.kptr_restrict is %d and "
			     "kerntop runs as root (lockdown or a security module may hide them); ",
			     ksrc, kr);
	else if (kr == 1)
		n = snprintf(out, cap,
			     "%s: every address reads as 0 (kernel.kptr_restrict is 1: only root "
			     "sees them): run as root, or sysctl kernel.kptr_restrict=0%s; ",
			     ksrc, pa > 1 ? " and kernel.perf_event_paranoid=1" : "");
	else if (pa > 1)
		n = snprintf(out, cap,
			     "%s: every address reads as 0 (kernel.perf_event_paranoid is %d: above "
			     "1 the kernel hides them from users who are not root; kptr_restrict is "
			     "already 0): run as root or sysctl kernel.perf_event_paranoid=1; ",
			     ksrc, pa);
	else
		n = snprintf(out, cap,
			     "%s: every address reads as 0, though kernel.kptr_restrict is 0 and "
			     "perf_event_paranoid %d (lockdown or a security module may hide them): "
			     "run as root; ",
			     ksrc, pa);
	used = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
	n = snprintf(out + used, cap - used, "kernel hits show as [unknown] buckets; ");
	return used + (n < 0 ? 0 : (size_t)n);
}

static void compose_notice(struct kt_symbols *s, const char *ksrc, const char *msrc,
			   const char *root, int live)
{
	size_t n = 0, cap = sizeof(s->notice);

	s->notice[0] = 0;
	if (s->st.kptr_restricted)
		n += kptr_notice(s->notice, cap, ksrc, root, live);
	if (s->st.kallsyms_skipped && n < cap)
		n += (size_t)snprintf(s->notice + n, cap - n, "%s: %llu malformed lines skipped; ",
				      ksrc, (unsigned long long)s->st.kallsyms_skipped);
	if (s->st.modules_skipped && n < cap)
		n += (size_t)snprintf(s->notice + n, cap - n, "%s: %llu malformed lines skipped; ",
				      msrc, (unsigned long long)s->st.modules_skipped);
	if (s->st.ranges_skipped && n < cap)
		n += (size_t)snprintf(s->notice + n, cap - n,
				      "modules.builtin.ranges: %llu lines skipped; ",
				      (unsigned long long)s->st.ranges_skipped);
	if (s->st.elf_nosyms && n < cap)
		n += (size_t)snprintf(
		    s->notice + n, cap - n,
		    "%u ELF files without symbols or unreadable (kallsyms or buckets used); ",
		    s->st.elf_nosyms);
	if (s->moddir_unmatched && n < cap)
		n += (size_t)snprintf(s->notice + n, cap - n,
				      "--module-dir %s: no NAME.ko matches a loaded module; ",
				      s->moddir_unmatched);
	s->moddir_unmatched = NULL; /* points into the caller's options */
	if (n >= 2 && n < cap)
		s->notice[n - 2] = 0;
}

int sym_load_text(struct kt_symbols *s, const struct kt_sym_opts *o, struct sym_vec *syms,
		  struct region_vec *regs, char *err, size_t errlen)
{
	const char *root = root_of(o);
	char kpath[PATH_MAX], mpath[PATH_MAX], rpath[PATH_MAX];
	const char *ksrc = "recorded kallsyms", *msrc = "recorded modules";
	struct ks_state ks = {UINT32_MAX, 0};
	size_t len;
	int r;

	/* modules first, so kallsyms [tags] find their ids */
	if (o->modules_buf) {
		if (o->modules_len) {
			s->mbuf = kt_memdup_text(o->modules_buf, o->modules_len);
			if (!s->mbuf)
				return -ENOMEM;
			r = parse_modules(s, s->mbuf, o->modules_len);
			if (r < 0)
				return r;
		}
	} else if (o->modules) {
		msrc = o->modules;
		r = read_text(o->modules, "--modules", &s->mbuf, &len, err, errlen);
		if (r < 0)
			return r;
		r = parse_modules(s, s->mbuf, len);
		if (r < 0)
			return r;
	} else {
		char msg[KT_ERRLEN];

		kt_sysroot_path(mpath, sizeof(mpath), root, KT_PATH_MODULES);
		msrc = mpath;
		/* a kernel without module support has no /proc/modules: no modules, not an error */
		if (kt_read_file(mpath, MAX_TEXT_FILE, &s->mbuf, &len, msg, sizeof(msg)) == 0) {
			s->sysfs_root = strdup(root);
			if (!s->sysfs_root)
				return -ENOMEM;
			r = parse_modules(s, s->mbuf, len);
			if (r < 0)
				return r;
		}
	}

	if (o->kallsyms_buf) {
		char *kb;

		len = o->kallsyms_len;
		if (!len) {
			snprintf(err, errlen,
				 "the recording's kallsyms is empty; pass --kallsyms FILE");
			return -ENODATA;
		}
		kb = kt_memdup_text(o->kallsyms_buf, len);
		if (!kb)
			return -ENOMEM;
		r = parse_kallsyms(s, kb, len, syms, &ks);
		free(kb);
	} else {
		if (o->kallsyms)
			snprintf(kpath, sizeof(kpath), "%s", o->kallsyms);
		else
			kt_sysroot_path(kpath, sizeof(kpath), root, KT_PATH_KALLSYMS);
		ksrc = kpath;
		r = read_kallsyms(s, kpath, syms, &ks, err, errlen);
	}
	if (r < 0)
		return r;
	kallsyms_done(s, syms, &ks);
	if (s->st.kallsyms_lines == s->st.kallsyms_skipped) {
		snprintf(err, errlen,
			 "%s: no valid kallsyms line (%llu malformed); pass --kallsyms FILE", ksrc,
			 (unsigned long long)s->st.kallsyms_skipped);
		return -EINVAL;
	}

	r = sym_load_elves(s, o, syms, err, errlen);
	if (r < 0)
		return r;

	if (s->stext && s->etext > s->stext) {
		s->mods[KT_MOD_VMLINUX].base = s->stext;
		s->mods[KT_MOD_VMLINUX].size = s->etext - s->stext;
		if (region_push(regs, s->stext, s->etext, KT_MOD_VMLINUX, 0) < 0)
			return -ENOMEM;
	}
	if (s->sinittext && s->einittext > s->sinittext &&
	    region_push(regs, s->sinittext, s->einittext, KT_MOD_VMLINUX, 0) < 0)
		return -ENOMEM;
	for (uint32_t m = KT_MOD_FIRST_REAL; m < s->nmods; m++) {
		const struct kt_sym_module *md = &s->mods[m];

		if (md->base && md->size &&
		    region_push(regs, md->base, md->base + md->size, m, 1) < 0)
			return -ENOMEM;
	}

	rpath[0] = 0;
	if (o->builtin_ranges_buf) {
		len = o->builtin_ranges_len;
		s->rbuf = len ? kt_memdup_text(o->builtin_ranges_buf, len) : NULL;
		if (len && !s->rbuf)
			return -ENOMEM;
	} else if (o->builtin_ranges) {
		snprintf(rpath, sizeof(rpath), "%s", o->builtin_ranges);
		r = read_text(rpath, "--builtin-ranges", &s->rbuf, &len, err, errlen);
		if (r < 0)
			return r;
	} else if (!o->kallsyms_buf && !o->kallsyms && !s->st.kptr_restricted) {
		/* the default file describes the running kernel (or the sysroot's): not a
		 * recording's kallsyms nor a --kallsyms FILE, which may come from another machine
		 */
		struct utsname u;
		char msg[KT_ERRLEN];

		if (uname(&u) == 0 &&
		    kt_sysroot_path(rpath, sizeof(rpath), root, KT_PATH_BUILTIN_RANGES, u.release) ==
			0 &&
		    kt_read_file(rpath, MAX_TEXT_FILE, &s->rbuf, &len, msg, sizeof(msg)) < 0)
			s->rbuf = NULL;
	}
	if (s->rbuf && !s->st.kptr_restricted) {
		r = parse_ranges(s, s->rbuf, len, syms, regs);
		if (r < 0)
			return r;
		for (uint32_t m = KT_MOD_FIRST_REAL; m < s->nmods; m++)
			if (s->mods[m].builtin)
				s->mods[m].has_lines = s->mods[KT_MOD_VMLINUX].has_lines;
	}
	compose_notice(s, ksrc, msrc, root, !o->kallsyms_buf && !o->kallsyms);
	return 0;
}
