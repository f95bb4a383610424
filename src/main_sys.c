/* The program's process plumbing: the user it drops to under sudo, the signals the loop reads
 * and the standard descriptors it holds open. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "main_impl.h"

/* The user kerntop drops to under sudo (SUDO_UID/SUDO_GID): 1 with the ids, or 0 when it
 * stays as it is (not root, not sudo, sudo from root, --keep-privileges). */
int kt_main_sudo_ids(const struct kt_options *o, long *uid, long *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;

	if (o->keep_privileges || geteuid() != 0 || !u || !g)
		return 0;
	*uid = strtol(u, &end, 10);
	if (*end || *uid <= 0)
		return 0;
	*gid = strtol(g, &end, 10);
	return !*end && *gid >= 0;
}

/* Under sudo, give up root once perf fds and kernel files are open: snapshots then belong
 * to the user and a bug in the viewer cannot act as root. The recording was already created
 * as the user (kt_source_opts.record_uid). */
int kt_main_drop_privileges(struct app *a)
{
	long uid, gid;

	if (!kt_main_sudo_ids(a->opts, &uid, &gid))
		return 0;
	if (a->dropped)
		return 0;
	if (kt_user_groups(uid, gid) < 0 || setgid((gid_t)gid) < 0 || setuid((uid_t)uid) < 0) {
		snprintf(a->err, sizeof(a->err),
			 "cannot drop privileges to SUDO_UID %ld (%s); use --keep-privileges to "
			 "stay root",
			 uid, strerror(errno));
		return -EPERM;
	}
	a->dropped = 1;
	return 0;
}

/* The signalfd the loop reads. The signals are not blocked yet: loading (a FIFO that nobody
 * writes, a huge kallsyms) must stay interruptible by SIGINT, SIGTERM and SIGHUP, which end it
 * at once while nothing needs cleaning up (block_signals, once loaded). */
int kt_main_setup_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGWINCH);
	signal(SIGPIPE, SIG_IGN);
	/* a file-size limit (ulimit -f) is then EFBIG from write(), handled like a full disk */
	signal(SIGXFSZ, SIG_IGN);
	return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* From here on a quit signal is read by the loop, which closes outputs and the terminal. */
int kt_main_block_signals(const sigset_t *mask)
{
	return sigprocmask(SIG_BLOCK, mask, NULL);
}

void kt_main_fatal_signal(int sig)
{
	kt_ui_emergency_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A closed 0, 1 or 2 would be taken by the next open (the --log file, a perf fd) and the
 * reports or errors would go there: hold them on /dev/null. 0 or -1 when even that fails. */
int kt_main_hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (n < 0)
			return -1;
		if (n != fd) {
			/* a lower descriptor was closed too and took this one: it is fixed later */
			if (dup2(n, fd) < 0)
				return -1;
			close(n);
		}
	}
	return 0;
}
