/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * event_dispatch: an event loop whose handlers are chosen at run time.
 *
 * Two patterns dyncall makes fast in a -mretpoline build:
 *   - a hook variable: on_event starts as a generic handler and is switched
 *     to a specialised one once the configuration is known (plain C stores:
 *     no API call; the plugin routes them through the runtime);
 *   - a plugin-style ops table: struct codec_ops, whose function-pointer
 *     fields are annotated, so every call through any codec_ops is a site.
 *
 * Built with or without the plugin, the program prints exactly the same
 * thing (the test suite checks that); with it, the calls are direct.
 *
 *   dyncall-cc clang-19 -O2 -mretpoline event_dispatch.c -o event_dispatch
 *   ./event_dispatch [events]
 */
#include <stdio.h>
#include <stdlib.h>

#include <dyncall.h>

struct event {
	unsigned type;
	unsigned value;
};

/* --- the hook -------------------------------------------------------------- */

static unsigned generic_handler(const struct event *ev)
{
	switch (ev->type) {
	case 0: return ev->value + 1;
	case 1: return ev->value * 3;
	default: return ev->value ^ 0x5a5a;
	}
}

/* Once the configuration says only type-0/1 events matter. */
static unsigned fast_handler(const struct event *ev)
{
	return ev->type & 1 ? ev->value * 3 : ev->value + 1;
}

unsigned (*DYNCALL on_event)(const struct event *) = generic_handler;

/* --- the ops table ------------------------------------------------------------ */

struct codec_ops {
	const char *name;
	unsigned (*DYNCALL encode)(unsigned);
	unsigned (*DYNCALL decode)(unsigned);
};

static unsigned xor_encode(unsigned v) { return v ^ 0xa5a5a5a5u; }
static unsigned xor_decode(unsigned v) { return v ^ 0xa5a5a5a5u; }
static unsigned rot_encode(unsigned v) { return v << 7 | v >> 25; }
static unsigned rot_decode(unsigned v) { return v >> 7 | v << 25; }

static struct codec_ops codec = { "xor", xor_encode, xor_decode };

static void use_codec(const char *name)
{
	/* Stores to annotated fields: the runtime is told about the new targets. */
	if (name[0] == 'r') {
		codec.name = "rot";
		codec.encode = rot_encode;
		codec.decode = rot_decode;
	} else {
		codec.name = "xor";
		codec.encode = xor_encode;
		codec.decode = xor_decode;
	}
}

/* --- the loop ----------------------------------------------------------------- */

static unsigned run(unsigned long n, unsigned seed)
{
	unsigned sum = 0;

	for (unsigned long i = 0; i < n; i++) {
		struct event ev = { (unsigned)(i % 3 == 2 ? 1 : i & 1), seed + (unsigned)i };
		unsigned wire = codec.encode(on_event(&ev));

		sum += codec.decode(wire);
	}
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	unsigned sum;

	sum = run(n, 1);
	printf("generic handler, %s codec: %lu events, checksum %08x\n", codec.name, n, sum);

	/* "Configuration loaded": switch the hook and the codec at run time. */
	on_event = fast_handler;
	use_codec("rot");
	sum = run(n, 1);
	printf("fast handler,    %s codec: %lu events, checksum %08x\n", codec.name, n, sum);

	on_event = generic_handler;
	use_codec("xor");
	sum = run(n, 2);
	printf("generic handler, %s codec: %lu events, checksum %08x\n", codec.name, n, sum);

	if (getenv("EVENT_DISPATCH_STATUS"))
		printf("dyncall runtime %s: %s\n", dyncall_version(),
		       dyncall_status_string());
	return 0;
}
