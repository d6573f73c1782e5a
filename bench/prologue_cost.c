// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * prologue_cost: what function-entry patching costs per call (x86-64), in
 * one process (docs/prologues.md, bench/README.md).  A trivial function
 * (one dependent add, its own unit) is called N times in a loop whose
 * result feeds the next call; each variant is run R times, interleaved
 * (one run of every variant, then the next round), and the median and the
 * minimum of the R runs are reported:
 *
 *   no NOPs         t_plain, built without -fpatchable-function-entry
 *   NOPs (0/0)      t_pfe, built with --dyncall-prologues, nothing hooked
 *   1/0 1/10 1/100  t_pfe with one handler; 0, 10, 100 other functions
 *                   hooked too (irrelevant hooks)
 *   1/0 NO_VEC      one handler hooked with DYNCALL_FN_NO_VEC (t_pfe
 *                   takes a long: no xmm0-7 saves)
 *   1/0 empty       one handler that does nothing (the other rows' handler
 *                   increments a counter): the path alone, as the empty
 *                   tracer of Rutland's CALL_OPS table
 *   2/0 10/0        2 and 10 handlers on t_pfe
 *   redirect        t_pfe redirected to t_target, against a direct call to
 *                   t_target (built without NOPs): the loop's `call t_pfe`
 *                   is rewritten `call t_target` (the bench is linked with
 *                   the caller table: docs/prologues.md "Redirects at the
 *                   call sites"; the line after the table says how many
 *                   of t_pfe's listed sites the redirect rewrote)
 *   one jmp         t_jmp, a `jmp t_target` and nothing else: the floor
 *                   of any redirect made at the callee's entry
 *   pointer         the same redirect reached through the entry (a call
 *                   through a function pointer, which no site rewrite
 *                   changes), against the same pointer call of t_target
 *   1/0 no record   t_norec(long): the same NOPs, built without the
 *                   plugins (no __dyncall_fn_records record: xmm0-7 saved)
 *   f(double)       t_plain_d / t_pfe_d (record: xmm0) / t_norec_d (no
 *                   record: xmm0-7): no NOPs, NOPs, 1 hook, 1 hook
 *   f(double, double)  t_plain_dd / t_pfe_dd (record: xmm0-1): no NOPs,
 *                   NOPs, 1 hook
 *   caller's ymm dirty  t_norec unhooked and hooked, called by a loop
 *                   that leaves the upper state dirty (every bit of ymm8
 *                   set) before each call: what the jump function of a
 *                   function without a record does with a dirty upper
 *                   state (docs/prologues.md "The upper state without a
 *                   record"); only where the CPU has AVX, else "-"
 *   f(__m256d, double), f(__m512d, double)  t_plain_w256 / t_pfe_w256
 *                   (record: ymm0-1, DYNCALL_FN_REC_VEC_YMM) and the zmm
 *                   pair (prologue_cost_wide.c, built with -mavx2): no
 *                   NOPs, NOPs, 1 hook; only where the CPU has AVX2
 *                   (AVX-512F), else "-"
 * then the time to hook 10,000 functions in one batch and to unhook them
 * (the median over the runs after the first: jump functions cached; and
 * the first run, which generates them), and, in each of the first
 * GEN_RUNS runs, the time to hook them with a handler whose data is new to
 * that run, which generates 10,000 jump functions every time (their
 * median and minimum; each such run leaves 3 MB of jump functions, so
 * not every run does it), and, SLEPT_RUNS times, the cached batch right
 * after the process slept 200 ms (its memory cold, other processes having
 * run: docs/prologues.md "Hooking 10,000 functions in one batch"; the
 * median and the maximum).  The first batch of a process is also timed
 * in R fresh processes, one per round (this program run again with
 * --first-batch: registration untimed, then the one timed batch), whose
 * median, minimum and maximum are reported: one first batch is one
 * sample, and on a noisy machine a sample may be several times the usual.
 *
 *   prologue_cost [N [R]]    default N = 10000000, R = 9
 *   prologue_cost --first-batch   prints one first batch's milliseconds
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dyncall.h>

long t_plain(long), t_target(long), t_pfe(long), t_jmp(long), t_norec(long);
double t_plain_d(double), t_pfe_d(double), t_norec_d(double);
double t_plain_dd(double, double), t_pfe_dd(double, double);
extern void *const many[10000];
/* prologue_cost_wide.c */
double run_w256(long n, int pfe, long *sink), run_w512(long n, int pfe,
							long *sink);
extern char t_pfe_w256[], t_pfe_w512[]; /* the functions, as addresses */

static long sink;

static void handler(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	++*(long *)data;
	(void)fn, (void)ret, (void)r;
}

static void empty_handler(void *fn, void *ret, void *data,
			  struct dyncall_regs *r)
{
	(void)fn, (void)ret, (void)data, (void)r;
}

/* ten distinct handlers for the k-handler rows */
#define H(n) static void h##n(void *fn, void *ret, void *data, \
			      struct dyncall_regs *r) \
	{ ++*(long *)data; (void)fn, (void)ret, (void)r; }
H(0) H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9)
static const dyncall_fn_handler hs[10] = { h0, h1, h2, h3, h4, h5, h6, h7,
					   h8, h9 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define LOOP(name, f) \
	static double name(long n) \
	{ \
		long x = 0; \
		double t = now(); \
		for (long i = 0; i < n; i++) \
			x = f(x); \
		t = now() - t; \
		sink += x; \
		return t / n; \
	}
#define LOOPD(name, f, ...) \
	static double name(long n) \
	{ \
		double x = 0; \
		double t = now(); \
		for (long i = 0; i < n; i++) \
			x = f(x __VA_ARGS__); \
		t = now() - t; \
		sink += (long)x; \
		return t / n; \
	}
LOOP(run_plain, t_plain)
LOOP(run_norec, t_norec)
LOOPD(run_plain_d, t_plain_d)
LOOPD(run_pfe_d, t_pfe_d)
LOOPD(run_norec_d, t_norec_d)
LOOPD(run_plain_dd, t_plain_dd, , 1.0)
LOOPD(run_pfe_dd, t_pfe_dd, , 1.0)
LOOP(run_pfe, t_pfe)

/* t_norec called with the upper state dirty: the caller leaves every bit
 * of ymm8 set before each call (ymm8 carries no argument), as code that
 * used a ymm register without vzeroupper does; clean again after */
static double run_norec_dirty(long n)
{
	long x = 0;
	double t = now();

	for (long i = 0; i < n; i++) {
		__asm__ volatile("vpcmpeqd %%ymm8, %%ymm8, %%ymm8" : : : "xmm8");
		x = t_norec(x);
	}
	t = now() - t;
	__asm__ volatile("vzeroupper");
	sink += x;
	return t / n;
}
LOOP(run_target, t_target)
LOOP(run_jmp, t_jmp)

/* calls through a pointer read once per run (volatile: the compiler cannot
 * see the function): the entry path of a redirect */
static long (*volatile p_pfe)(long) = t_pfe, (*volatile p_target)(long) = t_target;
#define LOOPP(name, p) \
	static double name(long n) \
	{ \
		long (*f)(long) = p; \
		long x = 0; \
		double t = now(); \
		for (long i = 0; i < n; i++) \
			x = f(x); \
		t = now() - t; \
		sink += x; \
		return t / n; \
	}
LOOPP(run_ptr_pfe, p_pfe)
LOOPP(run_ptr_target, p_target)

enum { V_PLAIN, V_NOPS, V_1_0, V_1_0_NOVEC, V_1_0_EMPTY, V_1_10, V_1_100,
       V_2_0, V_10_0, V_DIRECT, V_REDIRECT, V_JMP, V_NOREC, V_D_PLAIN, V_D_NOPS, V_D_1, V_D_NOREC,
       V_DD_PLAIN, V_DD_NOPS, V_DD_1, V_PTR_DIRECT, V_PTR_REDIRECT,
       V_DIRTY_NOPS, V_DIRTY_NOREC, V_W256_PLAIN, V_W256_NOPS, V_W256_1, V_W512_PLAIN, V_W512_NOPS,
       V_W512_1, NV };
static const char *const names[NV] = {
	"no NOPs (baseline)", "NOPs only (0/0)", "1 hook (1/0)",
	"1 hook, DYNCALL_FN_NO_VEC (1/0)", "1 hook, empty handler (1/0)",
	"1 hook + 10 irrelevant (1/10)", "1 hook + 100 irrelevant (1/100)",
	"2 handlers (2/0)", "10 handlers (10/0)", "direct call to target",
	"redirected call", "call meeting one jmp (floor)",
	"1 hook, no record (1/0, xmm0-7)",
	"f(double): no NOPs", "f(double): NOPs only",
	"f(double): 1 hook (xmm0)", "f(double): 1 hook, no record (xmm0-7)",
	"f(double, double): no NOPs", "f(double, double): NOPs only",
	"f(double, double): 1 hook (xmm0-1)",
	"pointer call of target",
	"pointer call, redirected (entry)",
	"no record, NOPs only, caller's ymm dirty",
	"1 hook, no record, caller's ymm dirty",
	"f(__m256d, double): no NOPs", "f(__m256d, double): NOPs only",
	"f(__m256d, double): 1 hook (ymm0-1)",
	"f(__m512d, double): no NOPs", "f(__m512d, double): NOPs only",
	"f(__m512d, double): 1 hook (zmm0-1)",
};
/* what each row is measured against ("over ref") */
static const int refs[NV] = {
	[V_PLAIN] = V_PLAIN,	    [V_NOPS] = V_PLAIN,
	[V_1_0] = V_NOPS,	    [V_1_0_NOVEC] = V_NOPS,
	[V_1_0_EMPTY] = V_NOPS,
	[V_1_10] = V_NOPS,	    [V_1_100] = V_NOPS,
	[V_2_0] = V_NOPS,	    [V_10_0] = V_NOPS,
	[V_DIRECT] = V_DIRECT,	    [V_REDIRECT] = V_DIRECT,
	[V_JMP] = V_DIRECT,	    [V_NOREC] = V_NOPS,
	[V_D_PLAIN] = V_D_PLAIN,    [V_D_NOPS] = V_D_PLAIN,
	[V_D_1] = V_D_NOPS,	    [V_D_NOREC] = V_D_NOPS,
	[V_DD_PLAIN] = V_DD_PLAIN,  [V_DD_NOPS] = V_DD_PLAIN,
	[V_DD_1] = V_DD_NOPS,
	[V_PTR_DIRECT] = V_PTR_DIRECT, [V_PTR_REDIRECT] = V_PTR_DIRECT,
	[V_DIRTY_NOPS] = V_DIRTY_NOPS, [V_DIRTY_NOREC] = V_DIRTY_NOPS,
	[V_W256_PLAIN] = V_W256_PLAIN, [V_W256_NOPS] = V_W256_PLAIN,
	[V_W256_1] = V_W256_NOPS,
	[V_W512_PLAIN] = V_W512_PLAIN, [V_W512_NOPS] = V_W512_PLAIN,
	[V_W512_1] = V_W512_NOPS,
};

/* the wide rows run where the CPU has the registers */
static bool have_isa(int v)
{
	if (v >= V_W512_PLAIN)
		return __builtin_cpu_supports("avx512f");
	if (v >= V_W256_PLAIN)
		return __builtin_cpu_supports("avx2");
	if (v == V_DIRTY_NOPS || v == V_DIRTY_NOREC)
		return __builtin_cpu_supports("avx");
	return true;
}

static long count;

#define MAX_REPS 101
#define GEN_RUNS 9
#define SLEPT_RUNS 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of t[0..n) (sorts t). */
static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void must(int s, const char *what)
{
	if (s) {
		fprintf(stderr, "prologue_cost: %s: status %d (%s)\n", what, s,
			dyncall_status_string());
		exit(1);
	}
}

static void set_state(int v)
{
	must(dyncall_fn_restore(t_pfe), "restore");
	must(dyncall_fn_restore(t_norec), "restore");
	must(dyncall_fn_restore(t_pfe_d), "restore");
	must(dyncall_fn_restore(t_norec_d), "restore");
	must(dyncall_fn_restore(t_pfe_dd), "restore");
	must(dyncall_fn_restore(t_pfe_w256), "restore");
	must(dyncall_fn_restore(t_pfe_w512), "restore");
	must(dyncall_fn_restore_batch(many, 100), "restore irrelevant");
	switch (v) {
	case V_1_0:
	case V_1_10:
	case V_1_100:
		must(dyncall_fn_hook(t_pfe, handler, &count), "hook");
		if (v != V_1_0)
			must(dyncall_fn_hook_batch(many, v == V_1_10 ? 10 : 100,
						   handler, &count),
			     "irrelevant hooks");
		break;
	case V_1_0_NOVEC:
		must(dyncall_fn_hook_flags(t_pfe, handler, &count,
					   DYNCALL_FN_NO_VEC),
		     "hook, no vector saves");
		break;
	case V_1_0_EMPTY:
		must(dyncall_fn_hook(t_pfe, empty_handler, NULL),
		     "hook, empty handler");
		break;
	case V_2_0:
	case V_10_0:
		for (int k = 0; k < (v == V_2_0 ? 2 : 10); k++)
			must(dyncall_fn_hook(t_pfe, hs[k], &count), "hook k");
		break;
	case V_REDIRECT:
	case V_PTR_REDIRECT:
		must(dyncall_fn_redirect(t_pfe, t_target), "redirect");
		break;
	case V_NOREC:
	case V_DIRTY_NOREC:
		must(dyncall_fn_hook(t_norec, handler, &count), "hook");
		break;
	case V_D_1:
		must(dyncall_fn_hook(t_pfe_d, handler, &count), "hook");
		break;
	case V_D_NOREC:
		must(dyncall_fn_hook(t_norec_d, handler, &count), "hook");
		break;
	case V_DD_1:
		must(dyncall_fn_hook(t_pfe_dd, handler, &count), "hook");
		break;
	case V_W256_1:
		must(dyncall_fn_hook(t_pfe_w256, handler, &count), "hook");
		break;
	case V_W512_1:
		must(dyncall_fn_hook(t_pfe_w512, handler, &count), "hook");
		break;
	}
}

/* What the "redirected call" row measured: t_pfe's rewritten sites. */
static void print_callers(void)
{
	struct dyncall_fn_callers c;

	set_state(V_REDIRECT);
	dyncall_fn_callers(t_pfe, &c);
	printf("redirect: %u of t_pfe's %u listed call sites rewritten "
	       "(caller table status %d)\n", c.redirected, c.sites, c.status);
	set_state(V_NOPS);
}

/* One run of variant v: ns per call of n calls. */
static double run_variant(int v, long n)
{
	return v >= V_W512_PLAIN ?
			  run_w512(n, v != V_W512_PLAIN, &sink) :
		  v >= V_W256_PLAIN ?
			  run_w256(n, v != V_W256_PLAIN, &sink) :
		  v == V_PLAIN	    ? run_plain(n) :
		  v == V_DIRECT	    ? run_target(n) :
		  v == V_JMP	    ? run_jmp(n) :
		  v == V_NOREC	    ? run_norec(n) :
		  v == V_DIRTY_NOPS || v == V_DIRTY_NOREC ? run_norec_dirty(n) :
		  v == V_D_PLAIN    ? run_plain_d(n) :
		  v == V_D_NOPS || v == V_D_1 ? run_pfe_d(n) :
		  v == V_D_NOREC    ? run_norec_d(n) :
		  v == V_DD_PLAIN   ? run_plain_dd(n) :
		  v == V_DD_NOPS || v == V_DD_1 ? run_pfe_dd(n) :
		  v == V_PTR_DIRECT ? run_ptr_target(n) :
		  v == V_PTR_REDIRECT ? run_ptr_pfe(n) :
				      run_pfe(n);
}

/* The cached batch right after 200 ms asleep, SLEPT_RUNS times. */
static void slept_batches(void)
{
	double slept[SLEPT_RUNS], slept_un[SLEPT_RUNS], hook_ms, unhook_ms;

	for (int r = 0; r < SLEPT_RUNS; r++) {
		double t0;

		usleep(200000);
		t0 = now();
		must(dyncall_fn_hook_batch(many, 10000, handler, &count),
		     "hook 10000 after a sleep");
		slept[r] = (now() - t0) / 1e6;
		usleep(200000);
		t0 = now();
		must(dyncall_fn_unhook_batch(many, 10000, handler),
		     "unhook 10000 after a sleep");
		slept_un[r] = (now() - t0) / 1e6;
	}
	hook_ms = median(slept, SLEPT_RUNS); /* sorts them */
	unhook_ms = median(slept_un, SLEPT_RUNS);
	printf("hook / unhook 10,000 after 200 ms asleep, %d runs: %.3f / "
	       "%.3f ms (maximum %.3f / %.3f)\n",
	       SLEPT_RUNS, hook_ms, unhook_ms, slept[SLEPT_RUNS - 1],
	       slept_un[SLEPT_RUNS - 1]);
}

/* --first-batch: this process's first batch of 10,000 (after the
 * registration, which dyncall_fn_find does), in ms on stdout */
static int first_batch_child(void)
{
	double t0;

	if (!dyncall_fn_find("t_pfe"))
		must(DYNCALL_ERR_NOFN, "find t_pfe");
	t0 = now();
	must(dyncall_fn_hook_batch(many, 10000, handler, &count),
	     "hook 10000 (first batch)");
	printf("%.6f\n", (now() - t0) / 1e6);
	return 0;
}

/* One first batch in a fresh process (this program with --first-batch):
 * its ms. */
static double first_batch_fresh(void)
{
	int fd[2], st;
	char buf[64] = { 0 };
	ssize_t got = 0, k;
	pid_t pid;

	if (pipe(fd))
		must(DYNCALL_ERR_INVAL, "pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		must(DYNCALL_ERR_INVAL, "fork");
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl("/proc/self/exe", "prologue_cost", "--first-batch",
		      (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (k = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += k;
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) || !got) {
		fprintf(stderr, "prologue_cost: the --first-batch process "
				"failed (status %#x)\n", (unsigned)st);
		exit(1);
	}
	return atof(buf);
}

/* The first batches of the fresh processes: median, minimum, maximum. */
static void print_fresh(double *fresh, int reps)
{
	double ms = median(fresh, reps); /* sorts them */

	printf("first batch of 10,000 in %d fresh processes: %.3f ms "
	       "(minimum %.3f, maximum %.3f)\n", reps, ms, fresh[0],
	       fresh[reps - 1]);
}

/* The machine's phase (median over minimum of the no-NOPs row): on a
 * guest whose speed changes for seconds at a time, a slow phase lifts
 * every median over its minimum alike. */
static void print_noise(double plain_median_over_min)
{
	printf("noise: the no-NOPs median is %.3f x its minimum (the medians "
	       "of a run at about 1.00 are its quiet ones)\n",
	       plain_median_over_min);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int reps = argc > 2 ? atoi(argv[2]) : 9;
	static double t[NV][MAX_REPS], hook[MAX_REPS], unhook[MAX_REPS];
	static double gen[MAX_REPS], fresh[MAX_REPS];
	static long gen_count[MAX_REPS];
	double med[NV], lo[NV], hook_ms, unhook_ms, first_ms = 0, gen_ms;

	if (argc == 2 && !strcmp(argv[1], "--first-batch"))
		return first_batch_child();
	if (reps < 2 || reps > MAX_REPS || n < 1) {
		fprintf(stderr, "prologue_cost: usage: prologue_cost [calls "
				"[runs: 2..%d]]\n", MAX_REPS);
		return 2;
	}
	for (int r = 0; r < reps; r++) {
		for (int v = 0; v < NV; v++) {
			if (!have_isa(v))
				continue;
			set_state(v);
			t[v][r] = run_variant(v, n);
		}
		set_state(V_NOPS);
		fresh[r] = first_batch_fresh();
		double t0 = now();
		must(dyncall_fn_hook_batch(many, 10000, handler, &count),
		     "hook 10000");
		double t1 = now();
		must(dyncall_fn_unhook_batch(many, 10000, handler),
		     "unhook 10000");
		double t2 = now();
		if (!r)
			first_ms = (t1 - t0) / 1e6;
		hook[r] = (t1 - t0) / 1e6;
		unhook[r] = (t2 - t1) / 1e6;
		/* data new to this run: 10,000 new jump functions */
		if (r >= GEN_RUNS)
			continue;
		t0 = now();
		must(dyncall_fn_hook_batch(many, 10000, h9, &gen_count[r]),
		     "hook 10000, new data");
		gen[r] = (now() - t0) / 1e6;
		must(dyncall_fn_unhook_batch(many, 10000, h9), "unhook 10000");
	}
	for (int v = 0; v < NV; v++) {
		med[v] = median(t[v], reps);
		lo[v] = t[v][0]; /* sorted by median() */
	}
	hook_ms = median(hook + 1, reps - 1);
	gen_ms = median(gen, reps < GEN_RUNS ? reps : GEN_RUNS);
	unhook_ms = median(unhook + 1, reps - 1);
	printf("prologue_cost: %ld calls x %d runs (median, minimum), x86-64\n",
	       n, reps);
	printf("%-38s %9s %9s %8s %9s\n", "variant", "ns/call", "over ref",
	       "ratio", "min");
	for (int v = 0; v < NV; v++) {
		/* NOPs: over no NOPs; hooks: over NOPs; redirect, floor:
		 * over the direct call (refs) */
		double ref = med[refs[v]];

		if (!have_isa(v)) {
			printf("%-38s %9s\n", names[v], "-");
			continue;
		}
		printf("%-38s %9.3f %+9.3f %8.3f %9.3f\n", names[v], med[v],
		       med[v] - ref, med[v] / ref, lo[v]);
	}
	print_noise(med[V_PLAIN] / lo[V_PLAIN]);
	print_callers();
	printf("1/100 vs 1/0: %.3f; 10/0 vs 2/0 handlers cost: %.2f x\n",
	       med[V_1_100] / med[V_1_0],
	       (med[V_10_0] - med[V_NOPS]) / (med[V_2_0] - med[V_NOPS]));
	printf("hook 10,000 functions in one batch:   %8.3f ms "
	       "(first time, generating their jump functions: %.3f ms)\n",
	       hook_ms, first_ms);
	print_fresh(fresh, reps);
	printf("unhook 10,000 functions in one batch: %8.3f ms\n", unhook_ms);
	printf("hook 10,000 with new data, %d runs (10,000 new jump functions "
	       "each): %.3f ms (minimum %.3f)\n",
	       reps < GEN_RUNS ? reps : GEN_RUNS, gen_ms, gen[0]);
	slept_batches();
	return sink == 42; /* keep the loops */
}
