/* ELF symbol tables (libelf) for --vmlinux and --module-dir NAME.ko, which take precedence
 * over kallsyms for their module, and source lines through libdwfl, opened lazily per
 * module on the first line query. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kerntop/symbols.h"
#include "kerntop/util.h"
#include "symbols_elfdl.h"
#include "symbols_impl.h"

/* Debug info must come from the given file itself: no search, no debuginfod download. */
static int no_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;
}

/* libdwfl's own placement of an ET_REL's sections (a pointer loaded at run time cannot
 * initialise the callbacks) */
static int section_address(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   const char *secname, GElf_Word shndx, const GElf_Shdr *shdr,
			   Dwarf_Addr *addr)
{
	return dwfl_offline_section_address(mod, userdata, modname, base, secname, shndx, shdr,
					    addr);
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = no_find_debuginfo,
    .section_address = section_address,
};

struct elf_info {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *symtab;
	GElf_Shdr symsh;
	size_t text_idx; /* ET_REL: the .text section */
	int has_lines;
};

static int elf_open(const char *path, struct elf_info *ei, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL, *dyn = NULL;

	memset(ei, 0, sizeof(*ei));
	if (sym_elf_load(err, errlen) < 0)
		return -ENOENT;
	ei->fd = kt_open_regular(path, err, errlen);
	if (ei->fd < 0)
		return ei->fd;
	ei->elf = elf_begin(ei->fd, ELF_C_READ_MMAP, NULL);
	if (!ei->elf || elf_kind(ei->elf) != ELF_K_ELF || !gelf_getehdr(ei->elf, &ei->eh) ||
	    elf_getshdrstrndx(ei->elf, &ei->shstrndx) < 0) {
		int e = elf_errno();

		/* an empty or short file is no libelf error: then there is no cause to add */
		if (e)
			snprintf(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(e));
		else
			snprintf(err, errlen, "%s: not an ELF file", path);
		if (ei->elf)
			elf_end(ei->elf);
		close(ei->fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(ei->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(ei->elf, ei->shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			ei->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
		if (!name)
			continue;
		if (!strcmp(name, ".text"))
			ei->text_idx = elf_ndxscn(scn);
		else if (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line"))
			ei->has_lines = 1;
	}
	if (!ei->symtab)
		ei->symtab = dyn;
	if (ei->symtab)
		gelf_getshdr(ei->symtab, &ei->symsh);
	return 0;
}

static void elf_close(struct elf_info *ei)
{
	elf_end(ei->elf);
	close(ei->fd);
}

/* Where each executable section of the ELF runs. ET_EXEC: its address plus the bias. ET_REL:
 * .text at the module's text base, any other section where sysfs says the module loader put
 * it, or nowhere (then its addresses keep their kallsyms symbols). */
static int place_sections(struct kt_symbols *s, uint32_t module, const struct elf_info *ei, int rel,
			  uint64_t base, struct sym_sect **out, uint32_t *nout)
{
	Elf_Scn *scn = NULL;
	struct sym_sect *v = NULL;
	uint32_t n = 0, cap = 0;

	while ((scn = elf_nextscn(ei->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		uint64_t at;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_flags & (SHF_EXECINSTR | SHF_ALLOC)) != (SHF_EXECINSTR | SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(ei->elf, ei->shstrndx, sh.sh_name);
		if (!rel)
			at = sh.sh_addr + (uint64_t)s->mpriv[module].bias;
		else if (elf_ndxscn(scn) == ei->text_idx)
			at = base;
		else if (!name || module == KT_MOD_VMLINUX ||
			 sym_sysfs_section(s, module, name, &at) < 0)
			continue;
		if (!at || at + sh.sh_size < at)
			continue;
		if (sym_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = (struct sym_sect){at, at + sh.sh_size, 0, (uint32_t)elf_ndxscn(scn)};
	}
	*out = v;
	*nout = n;
	return 0;
}

static const struct sym_sect *sect_of_idx(const struct mod_priv *p, size_t idx)
{
	for (uint32_t i = 0; i < p->nsects; i++)
		if (p->sects[i].idx == idx)
			return &p->sects[i];
	return NULL;
}

static int in_sections(const struct mod_priv *p, uint64_t a)
{
	for (uint32_t i = 0; i < p->nsects; i++)
		if (a >= p->sects[i].start && a < p->sects[i].end)
			return 1;
	return 0;
}

/* Loads the function symbols of one module's ELF. Inside the sections the ELF places they
 * replace the kallsyms ones for that module; elsewhere (a .ko section sysfs does not place)
 * kallsyms stays. Each function ends at its st_size, each section at its end, so that the
 * last function does not swallow what follows. An ELF without any function keeps kallsyms
 * (or buckets when there are none). */
int sym_elf_symbols(struct kt_symbols *s, uint32_t module, const char *path, struct sym_vec *syms,
		    char *err, size_t errlen)
{
	struct mod_priv *p = &s->mpriv[module];
	struct elf_info ei;
	Elf_Data *data;
	size_t nsyms, i, j, named = 0;
	uint64_t elf_stext = 0, elf_etext = 0, base = 0;
	int have_stext = 0, rel, r = 0;
	struct sym_vec mine = {0};
	uint32_t id, none; /* a name's id in the arena; none: "" of the end markers */

	r = elf_open(path, &ei, err, errlen);
	if (r < 0)
		return r;
	rel = ei.eh.e_type == ET_REL;
	data = ei.symtab ? elf_getdata(ei.symtab, NULL) : NULL;
	nsyms = data && ei.symsh.sh_entsize ? ei.symsh.sh_size / ei.symsh.sh_entsize : 0;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		name = elf_strptr(ei.elf, ei.symsh.sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, "_stext")) {
			elf_stext = sym.st_value;
			have_stext = 1;
		} else if (!strcmp(name, "_etext")) {
			elf_etext = sym.st_value;
		}
	}
	if (rel) {
		base = module == KT_MOD_VMLINUX ? s->stext : p->text_base;
	} else if (module == KT_MOD_VMLINUX) {
		if (s->stext && have_stext)
			p->bias = (int64_t)(s->stext - elf_stext);
		else if (!s->stext && have_stext && elf_etext > elf_stext) {
			s->stext = elf_stext;
			s->etext = elf_etext;
		}
	} else {
		p->bias = (int64_t)p->text_base;
	}
	free(p->sects);
	p->sects = NULL;
	p->nsects = 0;
	r = place_sections(s, module, &ei, rel, base, &p->sects, &p->nsects);
	if (r < 0)
		goto out;
	none = sym_name_add(s, "", 0);
	if (!none)
		goto oom;
	for (i = 0; i < nsyms; i++) {
		const struct sym_sect *sc;
		GElf_Sym sym;
		const char *name;
		int type;
		uint64_t a;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		if (type != STT_FUNC && type != STT_NOTYPE)
			continue;
		sc = sect_of_idx(p, sym.st_shndx);
		if (!sc)
			continue;
		name = elf_strptr(ei.elf, ei.symsh.sh_link, sym.st_name);
		if (!name || !name[0] || name[0] == '.' || name[0] == '$' ||
		    !strncmp(name, "__pfx_", 6))
			continue;
		if (type == STT_NOTYPE && (!strcmp(name, "_etext") || !strcmp(name, "_einittext")))
			continue;
		a = rel ? sc->start + sym.st_value : sym.st_value + (uint64_t)p->bias;
		if (a < sc->start || a >= sc->end)
			continue;
		id = sym_name_add(s, name, strlen(name));
		if (!id || sym_vec_push(&mine, a, id, module,
					GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 'T'
					: GELF_ST_BIND(sym.st_info) == STB_WEAK ? 'W'
										: 't') < 0)
			goto oom;
		named++;
		if (type == STT_FUNC && sym.st_size && sym.st_size < sc->end - a &&
		    sym_vec_push(&mine, a + sym.st_size, none, module, SYM_END) < 0)
			goto oom;
	}
	for (i = 0; i < p->nsects; i++)
		if (sym_vec_push(&mine, p->sects[i].end, none, module, SYM_END) < 0)
			goto oom;
	free(p->elf_path);
	p->elf_path = strdup(path);
	p->elf_rel = rel;
	if (rel)
		p->text_base = base;
	s->mods[module].has_lines = (uint8_t)(ei.has_lines && p->elf_path && p->nsects);
	if (!named) {
		s->st.elf_nosyms++;
		goto out;
	}
	/* ET_REL sections sysfs placed outside the /proc/modules range widen the module */
	if (rel && module != KT_MOD_VMLINUX) {
		struct kt_sym_module *md = &s->mods[module];

		for (i = 0; i < p->nsects; i++) {
			uint64_t lo =
			    md->size && md->base < p->sects[i].start ? md->base : p->sects[i].start;
			uint64_t hi = md->size && md->base + md->size > p->sects[i].end
					  ? md->base + md->size
					  : p->sects[i].end;

			md->base = lo;
			md->size = hi - lo;
		}
	}
	for (i = j = 0; i < syms->n; i++)
		if (syms->v[i].module != module || !in_sections(p, syms->v[i].addr))
			syms->v[j++] = syms->v[i];
	syms->n = j;
	for (i = 0; i < mine.n; i++)
		if (sym_vec_push(syms, mine.v[i].addr, mine.v[i].name, module, mine.v[i].type) < 0)
			goto oom;
	p->elf_syms = 1;
	s->st.elf_modules++;
out:
	free(mine.v);
	elf_close(&ei);
	return r;
oom:
	r = -ENOMEM;
	snprintf(err, errlen, "symbols: out of memory");
	goto out;
}

/* Finds NAME.ko files (NAME with '-' or '_') for the loaded modules in dir and below:
 * files of a directory before its subdirectories, symlinked directories not followed,
 * so /lib/modules/$(uname -r) works as well as a flat directory. */
static int scan_ko(struct kt_symbols *s, const char *dir, char **paths, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	int r = 0;

	if (!d)
		return 0;
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		rewinddir(d);
		while ((e = readdir(d)) && r == 0) {
			struct stat st;
			size_t len = strlen(e->d_name);

			if (e->d_name[0] == '.' ||
			    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
				(int)sizeof(path) ||
			    lstat(path, &st) < 0)
				continue;
			if (pass == 1) {
				if (S_ISDIR(st.st_mode) && depth < 8)
					r = scan_ko(s, path, paths, depth + 1);
				continue;
			}
			if (len > 3 && len < 256 && !strcmp(e->d_name + len - 3, ".ko") &&
			    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
				char name[256];
				int m;

				memcpy(name, e->d_name, len - 3);
				name[len - 3] = 0;
				for (char *c = name; *c; c++)
					if (*c == '-')
						*c = '_';
				m = kt_sym_module_find(s, name);
				if (m >= KT_MOD_FIRST_REAL && !paths[m] &&
				    !(paths[m] = strdup(path)))
					r = -ENOMEM;
			}
		}
	}
	closedir(d);
	return r;
}

int sym_load_elves(struct kt_symbols *s, const struct kt_sym_opts *o, struct sym_vec *syms,
		   char *err, size_t errlen)
{
	char **paths;
	int r;

	if (o->vmlinux) {
		r = sym_elf_symbols(s, KT_MOD_VMLINUX, o->vmlinux, syms, err, errlen);
		if (r < 0) {
			size_t n = strlen(err);

			snprintf(err + n, errlen - n,
				 "; --vmlinux needs the running kernel's ELF image");
			return r;
		}
	}
	if (o->module_dir) {
		DIR *d = opendir(o->module_dir);

		if (!d) {
			int e = errno;

			snprintf(err, errlen, "%s: cannot open the --module-dir directory (%s)",
				 o->module_dir, strerror(e));
			return -e;
		}
		closedir(d);
		paths = calloc(s->nmods, sizeof(*paths));
		if (!paths)
			goto oom;
		r = scan_ko(s, o->module_dir, paths, 0);
		s->moddir_unmatched = o->module_dir;
		for (uint32_t m = KT_MOD_FIRST_REAL; m < s->nmods && r == 0; m++) {
			char msg[256];

			if (!paths[m] || s->mods[m].builtin || !s->mpriv[m].text_base)
				continue;
			s->moddir_unmatched = NULL;
			/* a broken .ko is counted in the notice, not fatal */
			r = sym_elf_symbols(s, m, paths[m], syms, msg, sizeof(msg));
			if (r < 0 && r != -ENOMEM) {
				s->st.elf_nosyms++;
				r = 0;
			}
		}
		for (uint32_t m = 0; m < s->nmods; m++)
			free(paths[m]);
		free(paths);
		if (r < 0)
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "symbols: out of memory");
	return -ENOMEM;
}

void sym_elf_close(struct mod_priv *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	free(p->elf_path);
	p->elf_path = NULL;
	free(p->sects);
	p->sects = NULL;
	p->nsects = 0;
}

static int dw_open(struct kt_symbols *s, uint32_t module)
{
	struct mod_priv *p = &s->mpriv[module];
	Dwfl *d;
	Dwfl_Module *dm;
	GElf_Addr bias = 0;
	Elf *elf;
	char why[KT_ERRLEN];

	p->dw_tried = 1;
	if (sym_elf_load(why, sizeof(why)) < 0)
		return -ENOENT; /* elf_path is set, so libelf loaded once already */
	d = dwfl_begin(&offline_callbacks);
	if (!d)
		return -ENOMEM;
	dm = dwfl_report_offline(d, s->mods[module].name, p->elf_path, -1);
	dwfl_report_end(d, NULL, NULL);
	elf = dm ? dwfl_module_getelf(dm, &bias) : NULL;
	if (!elf) {
		dwfl_end(d);
		return -ENOENT;
	}
	if (p->elf_rel) {
		/* libdwfl lays an ET_REL's sections out itself; find where each placed one went */
		uint32_t found = 0;

		for (uint32_t i = 0; i < p->nsects; i++) {
			Elf_Scn *scn = elf_getscn(elf, p->sects[i].idx);
			GElf_Shdr sh;

			if (!scn || !gelf_getshdr(scn, &sh)) {
				p->sects[i].dw_delta = 0;
				continue;
			}
			p->sects[i].dw_delta = p->sects[i].start - (sh.sh_addr + bias);
			found++;
		}
		if (!found) {
			dwfl_end(d);
			return -ENOENT;
		}
	} else {
		p->dw_delta = (uint64_t)p->bias - bias;
	}
	p->dwfl = d;
	p->dwmod = dm;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;

	return n ? n : "?";
}

/* For an address inside inlined code, a label that keeps each call site apart:
 * "helper.h:4 inlined in outer at mod.c" with *line the call line (5), so that the
 * usual "%s:%d" reads "helper.h:4 inlined in outer at mod.c:5"; nested inlining adds
 * ", in CALLER at FILE:LINE" per level. Returns NULL for code that is not inlined. */
static const char *inline_label(struct kt_symbols *s, Dwfl_Module *dm, Dwarf_Addr da,
				const char *file, int fline, int *line)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(dm, da, &bias), *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	char buf[1024];
	int n, len, levels = 0;
	Dwarf_Word call_line = 0;

	if (!cu)
		return NULL;
	/* dwarf_getscopes finds the innermost scope; dwarf_getscopes_die then gives its real
	 * nesting (inlined instances and their callers), as eu-addr2line -i does */
	n = dwarf_getscopes(cu, da - bias, &scopes);
	if (n > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	if (n <= 0) {
		free(scopes);
		return NULL;
	}
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	len = snprintf(buf, sizeof(buf), "%s:%d", base_name(file), fline);
	for (int k = 0; k < n && len < (int)sizeof(buf); k++) {
		Dwarf_Attribute a;
		Dwarf_Word cf, cl;
		const char *cfile = NULL, *caller = "?";

		if (dwarf_tag(&scopes[k]) != DW_TAG_inlined_subroutine)
			continue;
		if (!dwarf_attr(&scopes[k], DW_AT_call_file, &a) || dwarf_formudata(&a, &cf) != 0 ||
		    !dwarf_attr(&scopes[k], DW_AT_call_line, &a) || dwarf_formudata(&a, &cl) != 0)
			break;
		if (files && cf < nfiles)
			cfile = dwarf_filesrc(files, cf, NULL, NULL);
		for (int j = k + 1; j < n; j++) {
			int t = dwarf_tag(&scopes[j]);

			if (t == DW_TAG_inlined_subroutine || t == DW_TAG_subprogram) {
				caller = die_name(&scopes[j]);
				break;
			}
		}
		if (levels)
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, ":%llu, in %s at %s",
					(unsigned long long)call_line, caller,
					cfile ? base_name(cfile) : "?");
		else
			len +=
			    snprintf(buf + len, sizeof(buf) - (size_t)len, " inlined in %s at %s",
				     caller, cfile ? base_name(cfile) : "?");
		call_line = cl;
		levels++;
	}
	free(scopes);
	if (!levels || len >= (int)sizeof(buf) || call_line > INT_MAX)
		return NULL;
	*line = (int)call_line;
	return sym_intern(s, buf);
}

int sym_elf_srcline(struct kt_symbols *s, uint32_t module, uint64_t addr, const char **file,
		    int *line)
{
	struct mod_priv *p = &s->mpriv[module];
	Dwfl_Line *l;
	const char *f, *label;
	Dwarf_Addr da;
	int ln = 0;

	if (!p->elf_path)
		return -ENOENT;
	if (!p->dw_tried && dw_open(s, module) < 0)
		return -ENOENT;
	if (!p->dwmod)
		return -ENOENT;
	if (p->elf_rel) {
		uint32_t i;

		for (i = 0; i < p->nsects; i++)
			if (addr >= p->sects[i].start && addr < p->sects[i].end)
				break;
		if (i == p->nsects)
			return -ENOENT;
		da = addr - p->sects[i].dw_delta;
	} else {
		da = addr - p->dw_delta;
	}
	l = dwfl_module_getsrc(p->dwmod, da);
	if (!l)
		return -ENOENT;
	f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
	if (!f || ln <= 0)
		return -ENOENT;
	label = inline_label(s, p->dwmod, da, f, ln, line);
	if (label) {
		*file = label;
		return 0;
	}
	/* interned: one pointer per file name, whichever compile unit names it */
	*file = sym_intern(s, f);
	*line = ln;
	return *file ? 0 : -ENOMEM;
}

/* The source frames of an address, leaf first: each inlined callee with the line executing
 * in it, then the function that holds the code with the line of the outermost call site
 * (as eu-addr2line -i lists them). File names are interned. */
int sym_elf_frames(struct kt_symbols *s, uint32_t module, uint64_t addr, struct kt_sym_frame *out,
		   int max)
{
	struct mod_priv *p = &s->mpriv[module];
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Addr da, bias = 0;
	size_t nfiles = 0;
	Dwfl_Line *l;
	const char *f;
	int ln = 0, n, k = 0;

	if (max <= 0 || !p->elf_path || (!p->dw_tried && dw_open(s, module) < 0) || !p->dwmod)
		return 0;
	if (p->elf_rel) {
		uint32_t i;

		for (i = 0; i < p->nsects; i++)
			if (addr >= p->sects[i].start && addr < p->sects[i].end)
				break;
		if (i == p->nsects)
			return 0;
		da = addr - p->sects[i].dw_delta;
	} else {
		da = addr - p->dw_delta;
	}
	l = dwfl_module_getsrc(p->dwmod, da);
	f = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
	if (!f || ln <= 0)
		return 0;
	out[0] = (struct kt_sym_frame){NULL, sym_intern(s, f), ln};
	cu = dwfl_module_addrdie(p->dwmod, da, &bias);
	n = cu ? dwarf_getscopes(cu, da - bias, &scopes) : 0;
	if (n > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	if (cu && n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	for (int j = 0; j < n && k + 1 < max; j++) {
		Dwarf_Attribute a;
		Dwarf_Word cf, cl;
		const char *cfile = NULL;

		if (dwarf_tag(&scopes[j]) != DW_TAG_inlined_subroutine)
			continue;
		if (!dwarf_attr(&scopes[j], DW_AT_call_file, &a) || dwarf_formudata(&a, &cf) != 0 ||
		    !dwarf_attr(&scopes[j], DW_AT_call_line, &a) || dwarf_formudata(&a, &cl) != 0 ||
		    cl > INT_MAX)
			break;
		if (files && cf < nfiles)
			cfile = dwarf_filesrc(files, cf, NULL, NULL);
		out[k].func = sym_intern(s, die_name(&scopes[j]));
		k++;
		out[k] = (struct kt_sym_frame){NULL, cfile ? sym_intern(s, cfile) : NULL, (int)cl};
	}
	free(scopes);
	return k + 1;
}
