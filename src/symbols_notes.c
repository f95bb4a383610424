/* Build ids of the running kernel and its modules, from the ELF notes the kernel publishes in
 * /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id (under the sysroot the
 * modules were read from), for profile writers that name the exact binary. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kerntop/paths.h"
#include "kerntop/util.h"
#include "symbols_impl.h"

/* The NT_GNU_BUILD_ID descriptor of a note section as hex into hex; 0 when there is none. */
static int note_build_id(const unsigned char *b, size_t len, char *hex, size_t hexlen)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, b + off, 4);
		memcpy(&descsz, b + off + 4, 4);
		memcpy(&type, b + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3u) & ~3u);
		if (namesz > len || descsz > len || desc > len || desc + descsz > len)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(b + name, "GNU", 4) &&
		    descsz && descsz * 2 < hexlen) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[desc + i]);
			return 1;
		}
		off = desc + ((descsz + 3u) & ~3u);
	}
	return 0;
}

/* NULL when there is none; an allocation failure is counted in s->nomem, not taken for one */
static char *read_build_id(struct kt_symbols *s, uint32_t module)
{
	char path[PATH_MAX], hex[129], msg[KT_ERRLEN], *b = NULL, *id;
	size_t len;
	int n, found, r;

	if (!s->sysfs_root || module == KT_MOD_USER || module == KT_MOD_UNKNOWN)
		return NULL;
	if (module == KT_MOD_VMLINUX)
		n = kt_sysroot_path(path, sizeof(path), s->sysfs_root, KT_PATH_KERNEL_NOTES);
	else if (strchr(s->mods[module].name, '/') || s->mods[module].builtin)
		return NULL;
	else
		n = kt_sysroot_path(path, sizeof(path), s->sysfs_root, KT_PATH_MODULE_NOTES,
				    s->mods[module].name);
	if (n < 0)
		return NULL;
	r = kt_read_file(path, 65536, &b, &len, msg, sizeof(msg));
	if (r < 0) {
		s->nomem += r == -ENOMEM;
		return NULL;
	}
	found = note_build_id((const unsigned char *)b, len, hex, sizeof(hex));
	free(b);
	id = found ? strdup(hex) : NULL;
	s->nomem += found && !id;
	return id;
}

const char *kt_sym_build_id(struct kt_symbols *s, uint32_t module)
{
	if (module >= s->nmods)
		return NULL;
	if (!s->build_ids) {
		s->build_ids = calloc(s->nmods, sizeof(*s->build_ids));
		if (!s->build_ids) {
			s->nomem++; /* NULL also means "no build id" */
			return NULL;
		}
	}
	if (!s->build_ids[module]) {
		char *id = read_build_id(s, module);

		s->build_ids[module] = id ? id : strdup("");
		if (!s->build_ids[module]) {
			s->nomem++;
			return NULL;
		}
	}
	return *s->build_ids[module] ? s->build_ids[module] : NULL;
}
