/*
 * Addresses of the array keys' descriptors of array-keys.c, for the
 * expectations of its plugin builds.  Compiled without the plugin: it only
 * references the hidden __dyncall_tkey.<md5 of the key name> symbols the
 * plugin-built unit defines (docs/abi.md).
 */
#define TKEY(fn, md5)                                                        \
	extern void *fn##_sym[2] __asm__("__dyncall_tkey." md5);              \
	void **fn(void) { return fn##_sym; }

TKEY(tkey_handlers, "69e19ad835bf1943f15ea02b5ee515f4") /* handlers[] */
TKEY(tkey_encoding_scanners, "128de0932cee38bdfdc26ba5a66ff149") /* struct encoding.scanners[] */
TKEY(tkey_scanners, "f22cf33197db7a1dcedd7416736125de") /* scanners[] */
