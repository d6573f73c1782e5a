// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * hook-all: a test-only LD_PRELOAD library that patches EVERY registered
 * patchable function of every module of an unmodified program before its
 * main runs (docs/prologues.md, "Hooking every function"; used by
 * test/prologues/hook-all.c, scripts/heldout/run.sh and
 * scripts/realworld/verify-prologues.sh).
 *
 *	cc -shared -fPIC hook-all.c -o hook-all.so -ldyncall -ldl
 *	HOOKALL_MODE=hook HOOKALL_REPORT=/tmp/r LD_PRELOAD=./hook-all.so prog
 *
 * HOOKALL_MODE (the library's own variables, not the runtime's):
 *   none      nothing patched (the NOPs run): counts the functions only
 *   hook      every function hooked (one dyncall_fn_hook_batch) by a
 *             handler that counts calls, writes every argument register
 *             in regs back with its own value (through a compiler barrier:
 *             the jump function must load what it saved) and clobbers
 *             every register a C handler may clobber (the caller-saved
 *             integer, vector and floating-point registers), so that a
 *             jump function that relies on one surviving shows up
 *   redirect  every function redirected to its own dyncall_fn_original
 *             (an identity live patch: each call runs the original body
 *             through the redirect path)
 *   both      hook, then redirect
 *   empty     every function hooked by a handler that does nothing (what
 *             bench/realworld_prologues.py times: the cost of the jump
 *             function and the call alone)
 * A module loaded later through dlopen (this library wraps it, finding
 * the file as the caller would: see dlopen below) gets the same for its
 * functions that are still untouched.
 * HOOKALL_REPORT=FILE: at exit, one line appended per process:
 *   hookall: mode=M fns=N patched=N refused=N failed=N calls=N
 * fns: functions registered; patched: those the mode changed; refused:
 * those the runtime registered as not patchable (their status); failed:
 * patches the runtime refused for another reason; calls: handler calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dyncall.h>

static unsigned long calls; /* __atomic: handlers run on every thread */
static unsigned long nfns, npatched, nrefused, nfailed;
static int do_hook, do_redirect, active;
static dyncall_fn_handler the_handler;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Keep v in a register the compiler cannot see through: the store back
 * is a real store of the loaded value. */
#define OPAQUE(v) __asm__ volatile("" : "+r"(v))

static void clobber(void)
{
#if defined(__x86_64__)
	__asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\t"
			 "xor %%edx, %%edx\n\txor %%esi, %%esi\n\t"
			 "xor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
			 "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\t"
			 "xor %%r11d, %%r11d\n\t"
			 "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
			 "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
			 "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
			 "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
			 "pxor %%xmm8, %%xmm8\n\tpxor %%xmm15, %%xmm15"
			 :
			 :
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
			   "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
			   "xmm5", "xmm6", "xmm7", "xmm8", "xmm15", "cc");
#elif defined(__aarch64__)
	__asm__ volatile(
		"mov x0, xzr\n\tmov x1, xzr\n\tmov x2, xzr\n\t"
		"mov x3, xzr\n\tmov x4, xzr\n\tmov x5, xzr\n\t"
		"mov x6, xzr\n\tmov x7, xzr\n\tmov x8, xzr\n\t"
		"mov x9, xzr\n\tmov x10, xzr\n\tmov x11, xzr\n\t"
		"mov x12, xzr\n\tmov x13, xzr\n\tmov x14, xzr\n\t"
		"mov x15, xzr\n\tmov x16, xzr\n\tmov x17, xzr\n\t"
		"movi v0.2d, #0\n\tmovi v1.2d, #0\n\tmovi v2.2d, #0\n\t"
		"movi v3.2d, #0\n\tmovi v4.2d, #0\n\tmovi v5.2d, #0\n\t"
		"movi v6.2d, #0\n\tmovi v7.2d, #0\n\t"
		"movi v16.2d, #0\n\tmovi v31.2d, #0"
		:
		:
		: "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
		  "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "v0",
		  "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v31", "cc");
#elif defined(__powerpc64__)
	__asm__ volatile("li 0, 0\n\tli 3, 0\n\tli 4, 0\n\tli 5, 0\n\t"
			 "li 6, 0\n\tli 7, 0\n\tli 8, 0\n\tli 9, 0\n\t"
			 "li 10, 0\n\tli 11, 0\n\tli 12, 0\n\t"
			 "fsub 0, 0, 0\n\tfsub 1, 1, 1\n\tfsub 2, 2, 2\n\t"
			 "fsub 13, 13, 13\n\t"
			 "vxor 2, 2, 2\n\tvxor 3, 3, 3\n\tvxor 13, 13, 13"
			 :
			 :
			 : "r0", "r3", "r4", "r5", "r6", "r7", "r8", "r9",
			   "r10", "r11", "r12", "fr0", "fr1", "fr2", "fr13",
			   "v2", "v3", "v13", "cr0");
#endif
}

static void handler(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < sizeof(r->arg) / sizeof(r->arg[0]); i++) {
		__UINT64_TYPE__ v = r->arg[i];

		OPAQUE(v);
		r->arg[i] = v;
	}
	for (unsigned i = 0; i < sizeof(r->vec) / sizeof(r->vec[0]); i++)
		for (unsigned k = 0; k < 2; k++) {
			__UINT64_TYPE__ v = r->vec[i][k];

			OPAQUE(v);
			r->vec[i][k] = v;
		}
#if defined(__x86_64__)
	{
		__UINT64_TYPE__ v = r->rax;

		OPAQUE(v);
		r->rax = v;
	}
#elif defined(__aarch64__)
	{
		__UINT64_TYPE__ v = r->x8;

		OPAQUE(v);
		r->x8 = v;
	}
#elif defined(__powerpc64__)
	for (unsigned i = 0; i < sizeof(r->fpr) / sizeof(r->fpr[0]); i++) {
		__UINT64_TYPE__ v = r->fpr[i];

		OPAQUE(v);
		r->fpr[i] = v;
	}
#endif
	clobber();
	(void)fn, (void)ret, (void)data;
}

static void empty_handler(void *fn, void *ret, void *data,
			  struct dyncall_regs *r)
{
	(void)fn, (void)ret, (void)data, (void)r;
}

/* Patch every registered function that is still untouched (lock held). */
static void install(void)
{
	size_t n = dyncall_fn_list(NULL, 0), m = 0, k;
	void **all, **todo;

	if (!n)
		return;
	all = calloc(2 * n, sizeof(*all));
	if (!all) {
		nfailed += n;
		return;
	}
	n = dyncall_fn_list(all, n); /* nothing loads in between: lock */
	todo = all + n;
	for (size_t i = 0; i < n; i++) {
		struct dyncall_fn_info info;

		if (dyncall_fn_info(all[i], &info) || info.status) {
			nrefused++;
			continue;
		}
		if (info.nhandlers || info.redirect)
			continue; /* seen at an earlier install */
		todo[m++] = all[i];
	}
	nfns = n;
	if (do_hook && m) {
		/* the batch does all it can and returns the first error:
		 * count what did not take */
		if (dyncall_fn_hook_batch(todo, m, the_handler, NULL))
			for (k = 0; k < m; k++) {
				struct dyncall_fn_info info;

				if (dyncall_fn_info(todo[k], &info) ||
				    info.nhandlers != 1) {
					nfailed++;
					todo[k] = NULL;
				}
			}
	}
	for (k = 0; k < m; k++) {
		void *o;

		if (!todo[k])
			continue;
		if (do_redirect) {
			o = dyncall_fn_original(todo[k]);
			if (!o || dyncall_fn_redirect(todo[k], o)) {
				nfailed++;
				continue;
			}
		}
		if (do_hook || do_redirect)
			npatched++;
	}
	free(all);
}

static void report(void)
{
	const char *path = getenv("HOOKALL_REPORT");
	char line[256];
	int fd, len;

	if (!path || !*path)
		return;
	pthread_mutex_lock(&lock);
	len = snprintf(line, sizeof(line),
		       "hookall: mode=%s fns=%lu patched=%lu refused=%lu "
		       "failed=%lu calls=%lu\n",
		       getenv("HOOKALL_MODE") ? getenv("HOOKALL_MODE") : "none",
		       nfns, npatched, nrefused, nfailed,
		       __atomic_load_n(&calls, __ATOMIC_RELAXED));
	pthread_mutex_unlock(&lock);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)len) != len)
		(void)0; /* a lost line makes the caller's sum fail */
	close(fd);
}

__attribute__((constructor)) static void hookall_init(void)
{
	const char *mode = getenv("HOOKALL_MODE");

	the_handler = handler;
	if (!mode || !strcmp(mode, "none"))
		;
	else if (!strcmp(mode, "empty"))
		do_hook = 1, the_handler = empty_handler;
	else if (!strcmp(mode, "hook"))
		do_hook = 1;
	else if (!strcmp(mode, "redirect"))
		do_redirect = 1;
	else if (!strcmp(mode, "both"))
		do_hook = do_redirect = 1;
	else {
		fprintf(stderr,
			"hook-all: unknown HOOKALL_MODE '%s' "
			"(none, hook, redirect, both, empty)\n",
			mode);
		_exit(2);
	}
	pthread_mutex_lock(&lock);
	active = 1;
	install();
	pthread_mutex_unlock(&lock);
	atexit(report);
}

/*
 * dlopen: the new module's functions too.  The wrapper calls the real
 * dlopen, which sees this library as its caller; what glibc takes from
 * the caller is done here for it, so that the program loads what it would
 * load without this library:
 *   - a name without '/' is looked up in the caller module's search list
 *     (dlinfo RTLD_DI_SERINFO of the caller: its DT_RPATH and its loaders'
 *     when it has no DT_RUNPATH, LD_LIBRARY_PATH, its DT_RUNPATH, in
 *     ld.so's order, then the default directories), the first file there
 *     with this process's ELF class and machine passed by its path; the
 *     list's tail that this library's own list ends with too (the default
 *     directories, which ld.so searches after ld.so.cache) is left to the
 *     real dlopen, which gets a name found nowhere before it as it is;
 *   - $ORIGIN and ${ORIGIN} are replaced with the caller's directory.
 * (The rtld-audit interface would leave the caller alone, but its
 * la_activity(LA_ACT_CONSISTENT) comes before the new objects are
 * relocated and initialized, in glibc's dl_open_worker: the runtime would
 * read unrelocated __patchable_function_entries records.)
 * Left out: $LIB and $PLATFORM (passed as they are), and this library's
 * own DT_RUNPATH, which the real dlopen also searches for a name found in
 * none of the caller's directories.
 */
static void *(*real_dlopen)(const char *, int);

/* Does path name an ELF file of this process's class and machine (what
 * ld.so checks before it takes a file from a search directory)? */
static int elf_fits(const char *path)
{
	static const unsigned char *self;
	unsigned char h[20];
	int fd, ok;

	if (!self) {
		Dl_info me;

		if (!dladdr((void *)elf_fits, &me) || !me.dli_fbase)
			return 0;
		self = me.dli_fbase; /* our own ELF header, mapped */
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     !memcmp(h, self, 5) /* magic, class */ &&
	     !memcmp(h + 18, self + 18, 2) /* e_machine */;
	close(fd);
	return ok;
}

/* The search list of the module with handle h (malloc'ed), or NULL. */
static Dl_serinfo *serinfo(void *h)
{
	Dl_serinfo sz, *si;

	if (dlinfo(h, RTLD_DI_SERINFOSIZE, &sz) || !(si = malloc(sz.dls_size)))
		return NULL;
	if (dlinfo(h, RTLD_DI_SERINFOSIZE, si) || dlinfo(h, RTLD_DI_SERINFO, si)) {
		free(si);
		return NULL;
	}
	return si;
}

/* The handle of the module containing addr, and its link map. */
static void *module_of(const void *addr, struct link_map **map)
{
	Dl_info info;

	*map = NULL;
	if (!dladdr1(addr, &info, (void **)map, RTLD_DL_LINKMAP) || !*map)
		return NULL;
	/* (the main program's name is empty) */
	return real_dlopen((*map)->l_name[0] ? (*map)->l_name : NULL,
			   RTLD_LAZY | RTLD_NOLOAD);
}

/* The directory of the module's file, as ld.so takes it for $ORIGIN (the
 * main program: /proc/self/exe; glibc's dlinfo RTLD_DI_ORIGIN crashes on
 * a module whose origin ld.so has not needed yet). */
static int origin_of(const struct link_map *map, char *buf, size_t size)
{
	ssize_t n;
	char *slash;

	if (map->l_name[0]) {
		if (snprintf(buf, size, "%s", map->l_name) >= (int)size)
			return 0;
	} else {
		n = readlink("/proc/self/exe", buf, size - 1);
		if (n <= 0)
			return 0;
		buf[n] = 0;
	}
	slash = strrchr(buf, '/');
	if (!slash)
		return 0;
	*slash = 0;
	return 1;
}

/* What the caller at address `caller` would have dlopen'ed for `file`:
 * file itself, or a path in buf. */
static const char *as_caller(const char *file, const void *caller, char *buf,
			     size_t size)
{
	Dl_serinfo *si = NULL, *own = NULL;
	struct link_map *map, *ownmap;
	const char *ret = file, *d;
	void *h, *me = NULL;

	if (!file || (!strchr(file, '$') && strchr(file, '/')) ||
	    !(h = module_of(caller, &map)))
		return file;
	if ((d = strstr(file, "$ORIGIN")) || (d = strstr(file, "${ORIGIN}"))) {
		char origin[4096];
		size_t n = d[1] == '{' ? 9 : 7;

		if (origin_of(map, origin, sizeof(origin)) &&
		    snprintf(buf, size, "%.*s%s%s", (int)(d - file), file,
			     origin, d + n) < (int)size)
			ret = buf; /* one $ORIGIN: what these programs use */
	} else if (!strchr(file, '/') && (si = serinfo(h)) &&
		   (me = module_of((const void *)as_caller, &ownmap)) &&
		   (own = serinfo(me))) {
		unsigned n = si->dls_cnt, k = own->dls_cnt;

		/* leave out the common tail: the default directories */
		while (n && k &&
		       !strcmp(si->dls_serpath[n - 1].dls_name,
			       own->dls_serpath[k - 1].dls_name))
			n--, k--;
		for (unsigned i = 0; i < n; i++)
			if (snprintf(buf, size, "%s/%s",
				     si->dls_serpath[i].dls_name,
				     file) < (int)size &&
			    elf_fits(buf)) {
				ret = buf;
				break;
			}
	}
	free(si);
	free(own);
	if (me)
		dlclose(me);
	dlclose(h);
	(void)map, (void)ownmap;
	return ret;
}

void *dlopen(const char *file, int flags)
{
	const void *caller = __builtin_return_address(0);
	char path[4096];
	void *h;

	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT,
								  "dlopen");
	h = real_dlopen(as_caller(file, caller, path, sizeof(path)), flags);
	if (h && active) {
		pthread_mutex_lock(&lock);
		install();
		pthread_mutex_unlock(&lock);
	}
	return h;
}
