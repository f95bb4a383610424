/* Kernel text bytes for annotate: from a recording's TEXT blocks, from /proc/kcore (an ELF
 * core: the PT_LOAD segment covering the address), or from the --vmlinux / --module-dir ELF
 * files the symbols came from (KASLR-placed like their symbols, refused when the running
 * kernel's notes give another build id). Everything is opened on the first request and
 * kept; every path goes through the sysroot. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kerntop/paths.h"
#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "symbols_elfdl.h"
#include "symbols_impl.h"

#define BUILD_ID_MAX 64

struct text_rec {
	uint64_t addr;
	size_t len;
	uint8_t *bytes;
};

struct text_elf {
	int tried;
	int fd;
	Elf *elf;
	char err[KT_ERRLEN]; /* why this module's ELF gives no text (open, build id) */
};

struct sym_text {
	char *sysroot;
	int live;
	/* /proc/kcore, opened once */
	int kc_tried, kc_fd;
	Elf *kc_elf;
	GElf_Phdr *kc_ph;
	size_t kc_nph;
	char kc_err[KT_ERRLEN];
	struct text_elf *elves; /* per module */
	uint32_t nelves;
	struct text_rec *rec;
	size_t nrec, caprec;
	size_t rec_bytes;
};

static const char *const source_names[] = {
    [KT_TEXT_NONE] = "none",	 [KT_TEXT_KCORE] = "kcore",
    [KT_TEXT_VMLINUX] = "vmlinux", [KT_TEXT_MODULE] = "module",
    [KT_TEXT_RECORDING] = "recording",
};

const char *kt_text_source_name(int src)
{
	return src >= 0 && src <= KT_TEXT_RECORDING ? source_names[src] : "none";
}

int sym_text_init(struct kt_symbols *s, const struct kt_sym_opts *o)
{
	struct sym_text *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->sysroot = strdup(o->sysroot && *o->sysroot ? o->sysroot : "");
	if (!t->sysroot) {
		free(t);
		return -ENOMEM;
	}
	t->live = o->text_live;
	t->kc_fd = -1;
	s->text = t;
	return 0;
}

void sym_text_free(struct kt_symbols *s)
{
	struct sym_text *t = s->text;

	if (!t)
		return;
	if (t->kc_elf)
		elf_end(t->kc_elf);
	if (t->kc_fd >= 0)
		close(t->kc_fd);
	free(t->kc_ph);
	for (uint32_t i = 0; i < t->nelves; i++) {
		if (t->elves[i].elf)
			elf_end(t->elves[i].elf);
		if (t->elves[i].tried && t->elves[i].fd >= 0)
			close(t->elves[i].fd);
	}
	free(t->elves);
	for (size_t i = 0; i < t->nrec; i++)
		free(t->rec[i].bytes);
	free(t->rec);
	free(t->sysroot);
	free(t);
	s->text = NULL;
}

int kt_sym_text_add(struct kt_symbols *s, uint64_t addr, const uint8_t *bytes, size_t len)
{
	struct sym_text *t = s->text;
	struct text_rec *r;

	if (!len || len > KT_TEXT_MAX || addr + len < addr)
		return -EINVAL;
	for (size_t i = 0; i < t->nrec; i++)
		if (t->rec[i].addr == addr)
			return 0; /* once per function: the first copy stays */
	if (t->nrec == t->caprec) {
		size_t cap = t->caprec ? t->caprec * 2 : 64;

		r = realloc(t->rec, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->rec = r;
		t->caprec = cap;
	}
	r = &t->rec[t->nrec];
	r->bytes = malloc(len);
	if (!r->bytes)
		return -ENOMEM;
	memcpy(r->bytes, bytes, len);
	r->addr = addr;
	r->len = len;
	t->nrec++;
	t->rec_bytes += len;
	return 0;
}

static void path_in(const struct sym_text *t, const char *path, char *out, size_t len)
{
	kt_sysroot_path(out, len, t->sysroot, "%s", path);
}

/* An ELF note stream (/sys/kernel/notes, a module's .note.gnu.build-id, an SHT_NOTE
 * section): the GNU build id as lower-case hex, or 0 when there is none. */
static int note_build_id(const uint8_t *p, size_t len, char *hex, size_t hexlen)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (namesz > len || descsz > len || desc_off > len || next > len || next <= off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_off, "GNU", 4) &&
		    descsz && descsz * 2 < hexlen) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", p[desc_off + i]);
			return 1;
		}
		off = next;
	}
	return 0;
}

static int file_build_id(const char *path, char *hex, size_t hexlen)
{
	char *b = NULL, msg[KT_ERRLEN];
	size_t len;
	int r;

	if (kt_read_file(path, 65536, &b, &len, msg, sizeof(msg)) < 0)
		return 0;
	r = note_build_id((const uint8_t *)b, len, hex, hexlen);
	free(b);
	return r;
}

static int elf_build_id(Elf *elf, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_buf && note_build_id(d->d_buf, d->d_size, hex, hexlen))
			return 1;
	}
	return 0;
}

/* kcore: usable, or kc_err says why not. */
static int kcore_open(struct kt_symbols *s)
{
	struct sym_text *t = s->text;
	char path[PATH_MAX], lpath[PATH_MAX], *lock = NULL, msg[KT_ERRLEN];
	size_t n, llen;
	GElf_Ehdr eh;

	if (t->kc_tried)
		return t->kc_elf ? 0 : -ENOENT;
	t->kc_tried = 1;
	path_in(t, KT_PATH_KCORE, path, sizeof(path));
	path_in(t, KT_PATH_LOCKDOWN, lpath, sizeof(lpath));
	if (kt_read_file(lpath, 4096, &lock, &llen, msg, sizeof(msg)) == 0 &&
	    strstr(lock, "[confidentiality]")) {
		free(lock);
		snprintf(t->kc_err, sizeof(t->kc_err),
			 "/proc/kcore is refused under kernel lockdown (confidentiality)");
		return -EPERM;
	}
	free(lock);
	t->kc_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->kc_fd < 0) {
		int e = errno;

		if (e == ENOENT)
			snprintf(t->kc_err, sizeof(t->kc_err),
				 "/proc/kcore is absent (CONFIG_PROC_KCORE=n)");
		else if (e == EACCES || e == EPERM)
			snprintf(t->kc_err, sizeof(t->kc_err),
				 "/proc/kcore needs root or CAP_SYS_RAWIO (%s)", strerror(e));
		else
			snprintf(t->kc_err, sizeof(t->kc_err), "/proc/kcore: %s", strerror(e));
		return -e;
	}
	if (sym_elf_load(t->kc_err, sizeof(t->kc_err)) < 0) {
		close(t->kc_fd);
		t->kc_fd = -1;
		return -ENOENT;
	}
	/* ELF_C_READ: headers are read on demand; kcore is never mapped or read whole */
	t->kc_elf = elf_begin(t->kc_fd, ELF_C_READ, NULL);
	if (!t->kc_elf || elf_kind(t->kc_elf) != ELF_K_ELF || !gelf_getehdr(t->kc_elf, &eh) ||
	    eh.e_type != ET_CORE || elf_getphdrnum(t->kc_elf, &n) < 0 || n > 65536) {
		int e = elf_errno();

		snprintf(t->kc_err, sizeof(t->kc_err), "%.200s: not an ELF core file%s%s", path,
			 e ? " " : "", e ? elf_errmsg(e) : "");
		goto bad;
	}
	t->kc_ph = calloc(n ? n : 1, sizeof(*t->kc_ph));
	if (!t->kc_ph)
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(t->kc_elf, (int)i, &t->kc_ph[t->kc_nph]) &&
		    t->kc_ph[t->kc_nph].p_type == PT_LOAD)
			t->kc_nph++;
	return 0;
bad:
	if (t->kc_elf)
		elf_end(t->kc_elf);
	t->kc_elf = NULL;
	close(t->kc_fd);
	t->kc_fd = -1;
	return -ENOEXEC;
}

static int kcore_read(struct kt_symbols *s, uint64_t addr, size_t len, uint8_t *buf)
{
	struct sym_text *t = s->text;

	for (size_t i = 0; i < t->kc_nph; i++) {
		const GElf_Phdr *p = &t->kc_ph[i];
		ssize_t got;

		if (addr < p->p_vaddr || addr - p->p_vaddr >= p->p_filesz ||
		    len > p->p_filesz - (addr - p->p_vaddr))
			continue;
		got = pread(t->kc_fd, buf, len, (off_t)(p->p_offset + (addr - p->p_vaddr)));
		if (got == (ssize_t)len)
			return 0;
		snprintf(t->kc_err, sizeof(t->kc_err), "/proc/kcore: short read at 0x%llx (%s)",
			 (unsigned long long)addr, got < 0 ? strerror(errno) : "end of file");
		return -EIO;
	}
	snprintf(t->kc_err, sizeof(t->kc_err), "/proc/kcore has no segment at 0x%llx",
		 (unsigned long long)addr);
	return -ENOENT;
}

/* The module's ELF, opened once; refused when the running kernel names another build id. */
static struct text_elf *elf_of(struct kt_symbols *s, uint32_t m)
{
	struct sym_text *t = s->text;
	struct mod_priv *p = &s->mpriv[m];
	struct text_elf *e;
	char want[2 * BUILD_ID_MAX + 1], have[2 * BUILD_ID_MAX + 1], path[PATH_MAX];

	if (t->nelves < s->nmods) {
		struct text_elf *v = realloc(t->elves, s->nmods * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + t->nelves, 0, (s->nmods - t->nelves) * sizeof(*v));
		t->elves = v;
		t->nelves = s->nmods;
	}
	e = &t->elves[m];
	if (e->tried)
		return e;
	e->tried = 1;
	e->fd = -1;
	if (!p->elf_path) {
		snprintf(e->err, sizeof(e->err), "no %s given",
			 m == KT_MOD_VMLINUX ? "--vmlinux" : "--module-dir");
		return e;
	}
	e->fd = open(p->elf_path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		snprintf(e->err, sizeof(e->err), "%.300s: cannot open (%s)", p->elf_path,
			 strerror(errno));
		return e;
	}
	if (sym_elf_load(e->err, sizeof(e->err)) < 0)
		goto drop;
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		snprintf(e->err, sizeof(e->err), "%.300s: not an ELF file", p->elf_path);
		goto drop;
	}
	if (!t->live)
		return e; /* a replay: this machine's notes say nothing about the recorded one */
	if (m == KT_MOD_VMLINUX)
		path_in(t, KT_PATH_KERNEL_NOTES, path, sizeof(path));
	else
		kt_sysroot_path(path, sizeof(path), t->sysroot, KT_PATH_MODULE_NOTES,
				s->mods[m].name);
	if (file_build_id(path, want, sizeof(want)) && elf_build_id(e->elf, have, sizeof(have)) &&
	    strcmp(want, have)) {
		snprintf(e->err, sizeof(e->err),
			 "%.200s: build id %.12s... does not match the running kernel's %.12s... (%.100s): "
			 "give the ELF file of the running %s",
			 p->elf_path, have, want, path + strlen(t->sysroot),
			 m == KT_MOD_VMLINUX ? "kernel" : "module");
		goto drop;
	}
	return e;
drop:
	if (e->elf)
		elf_end(e->elf);
	e->elf = NULL;
	close(e->fd);
	e->fd = -1;
	return e;
}

static int elf_read(struct kt_symbols *s, uint32_t m, uint64_t addr, size_t len, uint8_t *buf,
		    char *err, size_t errlen)
{
	struct mod_priv *p = &s->mpriv[m];
	struct text_elf *e = elf_of(s, m);

	if (!e)
		return -ENOMEM;
	if (!e->elf) {
		snprintf(err, errlen, "%s", e->err);
		return -ENOENT;
	}
	for (uint32_t i = 0; i < p->nsects; i++) {
		const struct sym_sect *sc = &p->sects[i];
		Elf_Scn *scn;
		Elf_Data *d;
		uint64_t off;

		if (addr < sc->start || addr >= sc->end)
			continue;
		off = addr - sc->start;
		scn = elf_getscn(e->elf, sc->idx);
		d = scn ? elf_rawdata(scn, NULL) : NULL;
		if (!d || !d->d_buf || off > d->d_size || len > d->d_size - off) {
			snprintf(err, errlen, "%s: cannot read the section at 0x%llx (%s): the file "
					      "is truncated or corrupt",
				 p->elf_path, (unsigned long long)addr,
				 elf_errno() ? elf_errmsg(-1) : "short section");
			return -EIO;
		}
		memcpy(buf, (const uint8_t *)d->d_buf + off, len);
		return 0;
	}
	snprintf(err, errlen, "%s has no section at 0x%llx", p->elf_path, (unsigned long long)addr);
	return -ENOENT;
}

int kt_sym_text(struct kt_symbols *s, uint64_t addr, size_t *lenp, uint8_t *buf, int *src,
		char *err, size_t errlen)
{
	size_t len = *lenp;
	struct sym_text *t = s->text;
	uint32_t f = kt_sym_resolve(s, addr);
	uint32_t m = s->funcs[f].module;
	char elf_err[KT_ERRLEN];
	int r;

	*src = KT_TEXT_NONE;
	if (!len || len > KT_TEXT_MAX || m == KT_MOD_USER || m == KT_MOD_UNKNOWN) {
		snprintf(err, errlen, "no kernel text at 0x%llx: not in a known module",
			 (unsigned long long)addr);
		return -EINVAL;
	}
	for (size_t i = 0; i < t->nrec; i++) {
		const struct text_rec *rc = &t->rec[i];

		/* a recorded copy may be shorter than the symbol (the ELF's st_size): it is all
		 * there is of that function */
		if (addr >= rc->addr && addr - rc->addr < rc->len) {
			if (len > rc->len - (addr - rc->addr))
				*lenp = len = rc->len - (addr - rc->addr);
			memcpy(buf, rc->bytes + (addr - rc->addr), len);
			*src = KT_TEXT_RECORDING;
			return 0;
		}
	}
	/* live code (alternatives, static keys applied) first: kcore */
	if (t->live && kcore_open(s) == 0 && kcore_read(s, addr, len, buf) == 0) {
		*src = KT_TEXT_KCORE;
		return 0;
	}
	r = elf_read(s, m, addr, len, buf, elf_err, sizeof(elf_err));
	if (r == 0) {
		*src = m == KT_MOD_VMLINUX ? KT_TEXT_VMLINUX : KT_TEXT_MODULE;
		return 0;
	}
	if (r == -ENOMEM) {
		snprintf(err, errlen, "annotate: out of memory");
		return r;
	}
	if (t->live)
		snprintf(err, errlen, "no kernel text: %s and %s", t->kc_err, elf_err);
	else
		snprintf(err, errlen, "no kernel text: %s and %s",
			 t->nrec ? "the recording has none of this function"
				 : "a replay with other symbols does not read /proc/kcore",
			 elf_err);
	return -ENOENT;
}

size_t kt_sym_text_recorded(const struct kt_symbols *s)
{
	return s->text ? s->text->nrec : 0;
}
