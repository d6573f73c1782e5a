/* Helpers for the runtime tests: the registration constructor the plugin
 * would emit, and printers for patch points and sites. */
#ifndef DYNCALL_TEST_H
#define DYNCALL_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dyncall.h"
#include "dyncall/abi.h"

void __dyncall_register(const struct dyncall_site_entry *,
			const struct dyncall_site_entry *,
			const struct dyncall_key_entry *,
			const struct dyncall_key_entry *);
void __dyncall_unregister(const struct dyncall_site_entry *,
			  const struct dyncall_site_entry *,
			  const struct dyncall_key_entry *,
			  const struct dyncall_key_entry *);
void __dyncall_store(void *key, void *value);

#define DC_HIDDEN_WEAK __attribute__((weak, visibility("hidden")))
extern const struct dyncall_site_entry __start___dyncall_sites[] DC_HIDDEN_WEAK;
extern const struct dyncall_site_entry __stop___dyncall_sites[] DC_HIDDEN_WEAK;
extern const struct dyncall_key_entry __start___dyncall_keys[] DC_HIDDEN_WEAK;
extern const struct dyncall_key_entry __stop___dyncall_keys[] DC_HIDDEN_WEAK;

#ifndef DC_TEST_NO_CTOR
__attribute__((constructor(100))) static void dc_test_register(void)
{
	__dyncall_register(__start___dyncall_sites, __stop___dyncall_sites,
			   __start___dyncall_keys, __stop___dyncall_keys);
}

__attribute__((destructor(100))) static void dc_test_unregister(void)
{
	__dyncall_unregister(__start___dyncall_sites, __stop___dyncall_sites,
			     __start___dyncall_keys, __stop___dyncall_keys);
}
#endif

/* Names for addresses, so output can be FileChecked. */
struct dc_name {
	const void *addr;
	const char *name;
};
static struct dc_name dc_names[64];
static int dc_nnames;

static inline void dc_name(const void *addr, const char *name)
{
	dc_names[dc_nnames].addr = addr;
	dc_names[dc_nnames++].name = name;
}
#define DC_NAME(sym) dc_name((const void *)(sym), #sym)

static inline const char *dc_lookup(const void *addr)
{
	for (int i = 0; i < dc_nnames; i++)
		if (dc_names[i].addr == addr)
			return dc_names[i].name;
	return addr ? "stub" : "null";
}

/* "label: e8 3b 00 00 00 -> name" for the branch at insn. */
static inline void dc_show(const char *label, const void *insn)
{
	const uint8_t *p = insn;
	int32_t rel;

	memcpy(&rel, p + 1, 4);
	printf("%s: %02x %02x %02x %02x %02x -> %s\n", label, p[0], p[1],
	       p[2], p[3], p[4], dc_lookup(p + 5 + rel));
}

static const char *const dc_state_names[] = { "slow", "guarded", "direct" };

static inline int dc_show_site_cb(const struct dyncall_site_info *i, void *a)
{
	printf("  site %s: state=%s target=%s ncalls=%u status=%d%s\n",
	       dc_lookup(i->func), dc_state_names[i->state],
	       dc_lookup(i->target), i->ncalls, i->status,
	       i->discovering ? " discovering" : "");
	return 0;
}

static inline void dc_show_key(const char *label, const void *key)
{
	struct dyncall_key_info ki;

	if (dyncall_key_info(key, &ki)) {
		printf("%s: not a key\n", label);
		return;
	}
	printf("%s: key '%s' value=%s sites=%u direct=%u guarded=%u slow=%u"
	       " escapes=%d\n", label, ki.name ? ki.name : "?",
	       dc_lookup(ki.value), ki.nsites, ki.ndirect, ki.nguarded,
	       ki.nslow, ki.escapes);
	dyncall_foreach_site(key, dc_show_site_cb, NULL);
}

#endif
