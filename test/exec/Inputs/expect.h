/*
 * expect.h - what a plugin build (-DWITH_DYNCALL) asserts about its own
 * sites, through the runtime's introspection API.  In the reference build
 * (no plugin, no -DWITH_DYNCALL) every macro is a no-op, so both builds
 * print the same thing on stdout.  A failed expectation prints one line on
 * stderr and exits 97: the test fails even when stdout matches.
 *
 * The macros pass the key's address straight to the runtime API (which the
 * plugin knows does not let a key escape), never to a helper function: a
 * key whose address escapes gets guarded sites, which would change what the
 * test observes.
 */
#ifndef EXEC_EXPECT_H
#define EXEC_EXPECT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define ST_ANY (-1)

#ifdef WITH_DYNCALL
#define EXPECT_FAIL(file, line, ...)                                          \
	do {                                                                 \
		fprintf(stderr, "EXPECT FAILED %s:%d: ", file, line);        \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		exit(97);                                                    \
	} while (0)

struct expect_count {
	int state;
	unsigned in_state;  /* sites in `state` */
	unsigned calls;     /* call instructions known (given or discovered) */
	const void *target; /* the value every patched site must agree on */
	int disagree;
};

static int expect_count_site(const struct dyncall_site_info *si, void *arg)
{
	struct expect_count *c = (struct expect_count *)arg;

	if (c->state == ST_ANY || si->state == c->state)
		c->in_state++;
	c->calls += si->ncalls;
	if (si->state != DYNCALL_STATE_SLOW && si->target != c->target)
		c->disagree++;
	return 0;
}

/*
 * The key is registered under `name` with at least `min_sites` sites, the
 * runtime's value is the key's current value, at least `min_state` sites are
 * in `state` (ST_ANY: any), and every patched site is patched for the
 * current value.
 */
static void expect_key_check(const char *file, int line, int r,
			     const struct dyncall_key_info *ki,
			     const struct expect_count *c, const void *value,
			     const char *name, unsigned min_sites,
			     unsigned min_state, int check_value)
{
	if (r != DYNCALL_OK)
		EXPECT_FAIL(file, line, "key %s not registered (%d)", name, r);
	if (strcmp(ki->name, name) != 0)
		EXPECT_FAIL(file, line, "key registered as '%s', want '%s'",
			    ki->name, name);
	if (ki->nsites < min_sites)
		EXPECT_FAIL(file, line, "key %s has %u sites, want >= %u", name,
			    ki->nsites, min_sites);
	if (check_value && ki->value != value)
		EXPECT_FAIL(file, line, "key %s: runtime value %p, key holds %p",
			    name, ki->value, value);
	if (c->in_state < min_state)
		EXPECT_FAIL(file, line,
			    "key %s: %u sites in state %d, want >= %u (direct "
			    "%u guarded %u slow %u, escapes %d; status: %s)",
			    name, c->in_state, c->state, min_state, ki->ndirect,
			    ki->nguarded, ki->nslow, ki->escapes,
			    dyncall_status_string());
	if (check_value && c->disagree)
		EXPECT_FAIL(file, line,
			    "key %s: %d sites patched for another value", name,
			    c->disagree);
}

#define EXPECT_KEY_(key, name, min_sites, st, min_state, check_value)        \
	do {                                                                 \
		struct dyncall_key_info ki_;                                 \
		struct expect_count c_ = { (st), 0, 0,                       \
					   *(void *const *)&(key), 0 };       \
		int r_ = dyncall_key_info((const void *)&(key), &ki_);       \
		dyncall_foreach_site((const void *)&(key), expect_count_site, \
				     &c_);                                   \
		expect_key_check(__FILE__, __LINE__, r_, &ki_, &c_,          \
				 *(void *const *)&(key), (name), (min_sites), \
				 (min_state), (check_value));                \
	} while (0)

#define EXPECT_KEY_NAMED(key, name, min_sites, st, min_state)                 \
	EXPECT_KEY_(key, name, min_sites, st, min_state, 1)

/* The same without the value checks: after a store the runtime did not see
 * (the sites may be patched for an older value, and must still be right). */
#define EXPECT_SITES(key, min_sites, st, min_state)                           \
	EXPECT_KEY_(key, #key, min_sites, st, min_state, 0)

/* The same for a type key (or any key whose guarded sites learn their
 * targets from their misses): the sites need not be patched for the key's
 * last value. */
#define EXPECT_LEARNING(key, name, min_sites, st, min_state)                  \
	EXPECT_KEY_(key, name, min_sites, st, min_state, 0)

/* EXPECT_KEY(key, min_sites, state, min_in_state) */
#define EXPECT_KEY(key, min_sites, st, min_state)                             \
	EXPECT_KEY_NAMED(key, #key, min_sites, st, min_state)

/* The runtime could patch (no silent fallback to the slow path). */
#define EXPECT_RUNTIME_OK()                                                   \
	do {                                                                 \
		if (dyncall_status() != DYNCALL_OK)                          \
			EXPECT_FAIL(__FILE__, __LINE__, "runtime status: %s", \
				    dyncall_status_string());                \
	} while (0)

/* Whether some module marked the key ESCAPES. */
#define EXPECT_ESCAPES(key, want)                                             \
	do {                                                                 \
		struct dyncall_key_info ki_;                                 \
		if (dyncall_key_info((const void *)&(key), &ki_) != DYNCALL_OK \
		    || !ki_.escapes != !(want))                              \
			EXPECT_FAIL(__FILE__, __LINE__,                      \
				    "key %s: escapes should be %d", #key,    \
				    (want));                                 \
	} while (0)

/* At least this many sites and keys registered, over all modules. */
#define EXPECT_STATS(min_sites, min_keys)                                     \
	do {                                                                 \
		struct dyncall_stats st_;                                    \
		dyncall_get_stats(&st_);                                     \
		if (st_.sites < (min_sites) || st_.keys < (min_keys))        \
			EXPECT_FAIL(__FILE__, __LINE__,                      \
				    "%llu sites and %llu keys registered, "  \
				    "want >= %d and >= %d",                  \
				    (unsigned long long)st_.sites,           \
				    (unsigned long long)st_.keys,            \
				    (min_sites), (min_keys));                \
	} while (0)

#else
#define EXPECT_STATS(min_sites, min_keys) ((void)0)
#define EXPECT_ESCAPES(key, want) ((void)0)
#define EXPECT_KEY_NAMED(key, name, min_sites, st, min_state) ((void)0)
#define EXPECT_KEY(key, min_sites, st, min_state) ((void)0)
#define EXPECT_SITES(key, min_sites, st, min_state) ((void)0)
#define EXPECT_LEARNING(key, name, min_sites, st, min_state) ((void)0)
#define EXPECT_RUNTIME_OK() ((void)0)
#endif

#endif
