/* Link-time fallbacks for the recording and replay functions until source_record.c and
 * source_replay.c exist. Weak, and linked at the end of libkt_source.a (mk/source.am puts
 * this object in LIBADD), so the archive's real definitions are found first and win. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "source_impl.h"

__attribute__((weak)) int kt_source_replay_open(const struct kt_source_opts *o,
						struct kt_source **out, char *err, size_t errlen)
{
	(void)o;
	*out = NULL;
	snprintf(err, errlen, "--replay is not built into this kerntop yet");
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_open(const char *path, const struct kt_source_info *info,
				      const char *kallsyms_path, const char *modules_path,
				      struct kt_recorder **out, char *err, size_t errlen)
{
	(void)info;
	(void)kallsyms_path;
	(void)modules_path;
	*out = NULL;
	snprintf(err, errlen, "--record %s: recording is not built into this kerntop yet", path);
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_sample(struct kt_recorder *r, const struct kt_sample *s)
{
	(void)r;
	(void)s;
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_comm(struct kt_recorder *r, int32_t pid, int32_t tid,
				      const char *comm, uint64_t t)
{
	(void)r;
	(void)pid;
	(void)tid;
	(void)comm;
	(void)t;
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_lost(struct kt_recorder *r, uint32_t cpu, uint64_t count,
				      uint64_t t)
{
	(void)r;
	(void)cpu;
	(void)count;
	(void)t;
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_throttle(struct kt_recorder *r, uint32_t cpu, int throttled,
					  uint64_t t)
{
	(void)r;
	(void)cpu;
	(void)throttled;
	(void)t;
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_flush(struct kt_recorder *r, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	return -ENOSYS;
}

__attribute__((weak)) int kt_rec_close(struct kt_recorder *r, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	return 0;
}
