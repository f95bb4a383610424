/* Kernel-accounted CPU figures that need no call chains: /proc/stat time shares, /proc/softirqs
 * vector rates and the busiest /proc/interrupts lines, read once per refresh (or fed back from
 * a recording). The collector owns its snapshots and the derived view; it uses util.h only,
 * never draws and never prints: the UI and the reports read the view. */
#ifndef KERNTOP_PROCSTAT_H
#define KERNTOP_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/* The /proc/stat time columns kept, in top's order of meaning (us ni sy id wa hi si st).
 * guest and guest_nice are left out: the kernel already counts them in user and nice. */
enum {
	KT_PS_USER,
	KT_PS_NICE,
	KT_PS_SYSTEM,
	KT_PS_IDLE,
	KT_PS_IOWAIT,
	KT_PS_IRQ,
	KT_PS_SOFTIRQ,
	KT_PS_STEAL,
	KT_PS_NSTAT,
};

/* Which files a snapshot holds. */
enum {
	KT_PS_HAVE_STAT = 1u << 0,
	KT_PS_HAVE_SOFTIRQS = 1u << 1,
	KT_PS_HAVE_INTERRUPTS = 1u << 2,
};

#define KT_PS_MAX_VEC 16 /* softirq vectors (the kernel has 10) */
#define KT_PS_VEC_NAME 16
#define KT_PS_MAX_IRQ 512 /* /proc/interrupts lines kept; later ones are ignored */
#define KT_PS_IRQ_NAME 16
#define KT_PS_IRQ_DESC 48
#define KT_PS_TOP_IRQ 3 /* busiest lines kept per CPU in the view */

struct kt_ps_irq {
	char name[KT_PS_IRQ_NAME]; /* "41", "LOC" */
	char desc[KT_PS_IRQ_DESC]; /* "virtio3-rx", "Local timer interrupts" */
};

/* One reading of the three files: cumulative counters, per CPU number (< max_cpu). */
struct kt_ps_snap {
	uint64_t time_ns;	     /* source clock of the reading */
	uint32_t have;		     /* KT_PS_HAVE_* */
	uint32_t max_cpu;	     /* stride of the per-CPU arrays */
	uint64_t total[KT_PS_NSTAT]; /* the "cpu" line, USER_HZ ticks */
	uint64_t *stat;		     /* [max_cpu * KT_PS_NSTAT] */
	uint8_t *online;	     /* [max_cpu]: the CPU has a cpuN line */
	uint32_t nvec;
	char vec[KT_PS_MAX_VEC][KT_PS_VEC_NAME];
	uint64_t *softirq; /* [KT_PS_MAX_VEC * max_cpu] */
	uint32_t nirq;
	struct kt_ps_irq *irq; /* [KT_PS_MAX_IRQ] */
	uint64_t *irqcnt;      /* [KT_PS_MAX_IRQ * max_cpu] */
};

struct kt_ps_snap *kt_ps_snap_new(uint32_t max_cpu);
void kt_ps_snap_free(struct kt_ps_snap *s);
/* Copies a snapshot of any max_cpu into dst (CPUs dst cannot hold are dropped). */
void kt_ps_snap_copy(struct kt_ps_snap *dst, const struct kt_ps_snap *src);

/* Parsers of the file texts (any bytes: fuzzed). Each clears its part of s first; 0, or
 * -EINVAL with a one-line reason in err (the part is then marked absent). */
int kt_ps_parse_stat(struct kt_ps_snap *s, const char *buf, size_t len, char *err, size_t errlen);
int kt_ps_parse_softirqs(struct kt_ps_snap *s, const char *buf, size_t len, char *err,
			 size_t errlen);
int kt_ps_parse_interrupts(struct kt_ps_snap *s, const char *buf, size_t len, char *err,
			   size_t errlen);

/* The figures between the two latest snapshots. Valid until the next read or feed. */
struct kt_ps_cpu {
	int valid;		 /* the CPU has /proc/stat time in both snapshots */
	double pct[KT_PS_NSTAT]; /* shares of its time, summing to 100 */
};

struct kt_ps_top_irq {
	int32_t line; /* index into irq[], -1 for none */
	double per_s;
};

struct kt_ps_view {
	int stat_valid; /* pct[] and cpu[].pct[] are meaningful */
	int softirqs_valid;
	int interrupts_valid;
	double interval_s;	 /* between the two snapshots */
	double pct[KT_PS_NSTAT]; /* machine-wide, from the "cpu" line */
	uint32_t max_cpu;
	struct kt_ps_cpu *cpu; /* [max_cpu] */
	uint32_t nvec;
	const char (*vec)[KT_PS_VEC_NAME];
	double vec_per_s[KT_PS_MAX_VEC]; /* machine-wide, summed over CPUs */
	double *softirq_per_s;		 /* [KT_PS_MAX_VEC * max_cpu] */
	const struct kt_ps_irq *irq;	 /* [KT_PS_MAX_IRQ] lines named by top_irq */
	struct kt_ps_top_irq *top_irq;	 /* [max_cpu * KT_PS_TOP_IRQ], busiest first */
	/* the view's own copies of the names vec and irq point to */
	char vec_store[KT_PS_MAX_VEC][KT_PS_VEC_NAME];
	struct kt_ps_irq *irq_store; /* [KT_PS_MAX_IRQ] */
};

/* A view of its own, for a reader that must keep what it shows (the paused viewer). */
struct kt_ps_view *kt_ps_view_new(uint32_t max_cpu);
void kt_ps_view_free(struct kt_ps_view *v);
/* Copies src into dst (CPUs dst cannot hold are dropped); src NULL makes dst empty. */
void kt_ps_view_copy(struct kt_ps_view *dst, const struct kt_ps_view *src);

/* The collector: the live reader (sysroot-relative paths) and the replay feed. */
struct kt_procstat;

/* sysroot "" is /. Never fails but for memory (-ENOMEM). */
int kt_procstat_new(const char *sysroot, uint32_t max_cpu, struct kt_procstat **out);
void kt_procstat_free(struct kt_procstat *p);

/* Reads the three files now, as the snapshot of time_ns. Returns 1 with a one-line notice
 * in msg when a file is missing or malformed and was not before (or is back), else 0. */
int kt_procstat_read(struct kt_procstat *p, uint64_t time_ns, char *msg, size_t msglen);
/* The snapshot just read (to record it), or NULL before the first read. */
const struct kt_ps_snap *kt_procstat_latest(const struct kt_procstat *p);
/* A snapshot from elsewhere (a replayed recording) becomes the latest. */
void kt_procstat_feed(struct kt_procstat *p, const struct kt_ps_snap *s);
/* The derived figures; NULL until two snapshots with /proc/stat exist. */
const struct kt_ps_view *kt_procstat_view(const struct kt_procstat *p);

/* "NET_RX 1300/s, TIMER 300/s": the n busiest softirq vectors of a CPU (cpu < 0: the
 * machine); "LOC 250/s, 41 virtio3-rx 100/s": the busiest IRQ lines of a CPU. "" if none. */
void kt_ps_fmt_softirqs(const struct kt_ps_view *v, int cpu, int n, char *buf, size_t len);
void kt_ps_fmt_irqs(const struct kt_ps_view *v, uint32_t cpu, char *buf, size_t len);

/* Short lower-case names of the KT_PS_* columns: "us" "ni" "sy" "id" "wa" "hi" "si" "st". */
const char *kt_ps_stat_name(int i);

#endif
