/*
 * Addresses of type-key descriptors, for the expectations of the plugin
 * builds.  A descriptor is the hidden symbol __dyncall_tkey.<md5 of the key
 * name> (docs/abi.md) that the pass defines in the plugin-built units of
 * the same link; this unit is compiled without the plugin, so it only
 * references it.  Its first word is the last value noted.
 */
#define TKEY(fn, md5)                                                        \
	extern void *fn##_sym[2] __asm__("__dyncall_tkey." md5);              \
	void **fn(void) { return fn##_sym; }

#ifdef TKEY_OPS_APPLY
TKEY(tkey_ops_apply, "4db5ade9ad0d335c239a332a1814021b") /* struct ops.apply */
#endif
#ifdef TKEY_CONN_ON_DATA
TKEY(tkey_conn_on_data, "5f0718557a7ac97ad69563a7f7da6a18") /* struct conn.on_data */
#endif
