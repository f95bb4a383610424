/* Private to the program (main.c, main_ingest.c): the state the loop and the sample sink
 * share. */
#ifndef KERNTOP_MAIN_IMPL_H
#define KERNTOP_MAIN_IMPL_H

#include <signal.h>
#include <stdint.h>

#include "kerntop/agg.h"
#include "kerntop/batch.h"
#include "kerntop/options.h"
#include "kerntop/procstat.h"
#include "kerntop/push.h"
#include "kerntop/settings.h"
#include "kerntop/source.h"
#include "kerntop/symbols.h"
#include "kerntop/ui.h"
#include "kerntop/util.h"
#include "kerntop/window.h"

#define SAMPLE_BATCH 16 /* samples ingested together (ingest_batch) */

struct app {
	const struct kt_options *opts;
	struct kt_source *src;
	struct kt_symbols *sym;
	struct kt_window *win;
	struct kt_agg *agg;
	struct kt_ui *ui;
	struct kt_procstat *proc; /* /proc/stat, softirqs, interrupts: read live, fed on replay */
	struct kt_batch *batch; /* -b: the reports, their output and the --log lines */
	uint64_t start_ns; /* source clock at start */
	int dropped;	   /* privileges given up (under sudo) */
	int replay_done;
	/* exact-address hits are kept (for annotate and --record's texts): not in a batch run
	 * without --annotate or --record, where nothing reads them (issue 14: 13 % of its time) */
	int want_addr;
	struct kt_push_feed *feed; /* --push */
	uint32_t locs[KT_MAX_STACK];
	/* samples wait here for a few more (see ingest_batch), their chains copied */
	struct kt_sample pend[SAMPLE_BATCH];
	uint64_t pendfr[SAMPLE_BATCH][KT_WINDOW_CHAIN_DEPTH];
	uint32_t npend;
	/* --record: function texts written so far (TEXT blocks), by function id */
	uint8_t *text_done;
	uint32_t text_cap, text_next_loc, text_funcs;
	uint64_t text_bytes;
	char err[KT_ERRLEN];
	char last_notice[KT_ERRLEN]; /* on stderr in batch mode: not repeated as the error */
	struct kt_settings_ctx settings; /* the viewer's saved settings (O key) */
};

/* main_ingest.c: the sink's callbacks for a (samples wait in a->pend for a few more), and the
 * ingestion of the waiting ones, done after each read of the source. */
void kt_main_sink(struct kt_sink *sink, struct app *a);
void kt_main_ingest(struct app *a);

/* main_sys.c: under sudo the user to drop to (1 with its ids, 0 to stay as it is), dropping
 * to it once the kernel files are open; the signalfd of the quit and resize signals (not
 * blocked yet: loading stays interruptible) and their blocking once loaded; a crash's
 * terminal restore; closed standard descriptors held on /dev/null. */
int kt_main_sudo_ids(const struct kt_options *o, long *uid, long *gid);
int kt_main_drop_privileges(struct app *a);
int kt_main_setup_signals(sigset_t *mask);
int kt_main_block_signals(const sigset_t *mask);
void kt_main_fatal_signal(int sig);
int kt_main_hold_std_fds(void);

#endif
