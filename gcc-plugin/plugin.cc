/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * plugin.cc - the GCC plugin's entry: the version check, the arguments,
 * the callbacks and pass registration, and the state the other files share.
 */
#include "plugin.h"
/* gcc_version, which only plugin_init compares (a static in the header). */
#include "plugin-version.h"

/* The two symbols cc1 looks up (everything else is hidden). */
DYNCALL_PLUGIN_EXPORT int plugin_is_GPL_compatible;

static struct plugin_info dyncall_plugin_info = {
	.version = "0.1.0",
	.help = "dynamic_call attribute and call-site transformation\n"
		"  -fplugin-arg-<name>-disable  accept the attribute, do not transform\n"
		"  -fplugin-arg-<name>-verbose  note every transformed and missed site\n"
		"  -fplugin-arg-<name>-whole-program[=<filter file>]  every indirect\n"
		"      call becomes a guarded site (docs/whole-program.md)\n"
		"  -fplugin-arg-<name>-no-inline-guard  whole-program sites without\n"
		"      their inline guard (x86-64; docs/whole-program.md)\n"
		"  -fplugin-arg-<name>-prologues  ppc64le: a patchable entry NOP in\n"
		"      every function (docs/prologues.md)\n",
};

const char *plugin_name = "dyncall_gcc";
bool transform_enabled = true;
bool verbose;
bool whole_program;
bool inline_guard = true;
char unit_id[17];

/* Trees created by the plugin and otherwise referenced only from plugin
 * memory are chained here so the garbage collector keeps them. */
static tree gc_roots;
static const struct ggc_root_tab dyncall_ggc_roots[] = {
	DYNCALL_GGC_ROOT_TREE(gc_roots),
	LAST_GGC_ROOT_TAB,
};

tree keep(tree t)
{
	gc_roots = tree_cons(NULL_TREE, t, gc_roots);
	return t;
}

/*
 * Is the compilation's ABI the one docs/abi.md describes for the target
 * (x86-64 LP64, aarch64 LP64 with x18 free, ppc64le ELFv2)?  Asked by the
 * pass gates, i.e. once the target's options are final; one warning, and
 * then nothing is transformed (the attribute stays accepted and checked).
 */
bool target_supported(void)
{
	static int ok = -1;

	if (ok < 0) {
		const char *problem = dyncall_target_problem();

		ok = problem == NULL;
		if (problem)
			warning_at(
				UNKNOWN_LOCATION, 0,
				"%s: %s on %s; calls through %<dynamic_call%> "
				"pointers stay indirect",
				plugin_name, problem, arch.name);
	}
	return ok;
}

/* Unique per translation unit, stable under -frandom-seed. */
static void compute_unit_id(void)
{
	std::string seed = main_input_filename ? main_input_filename : "";
	unsigned char digest[16];

	seed += '\0';
	seed += dump_base_name ? dump_base_name : "";
	seed += '\0';
	seed += std::to_string((long long)get_random_seed(false));
	md5_buffer(seed.data(), seed.size(), digest);
	for (int i = 0; i < 8; i++)
		sprintf(unit_id + 2 * i, "%02x", digest[i]);
}

static void start_unit(void *event_data, void *data)
{
	compute_unit_id();
}

static void register_passes(const char *name)
{
	struct register_pass_info gimple_info = {
		.pass = make_dyncall_gimple_pass(),
		.reference_pass_name = "ssa",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	struct register_pass_info ipa_info = {
		.pass = make_dyncall_ipa_pass(),
		.reference_pass_name = "build_ssa_passes",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	struct register_pass_info rtl_info = {
		.pass = make_dyncall_rtl_pass(),
		.reference_pass_name = "shorten",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_BEFORE,
	};

	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &gimple_info);
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &ipa_info);
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &rtl_info);
	/* After "optimized" (so after "tailc"), also in the LTO back end:
	 * whole-program sites GCC resolved, conditional sites' tail flags. */
	struct register_pass_info direct_info = {
		.pass = make_dyncall_direct_pass(),
		.reference_pass_name = "optimized",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &direct_info);
}

DYNCALL_PLUGIN_EXPORT int plugin_init(struct plugin_name_args *info,
				      struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("%s: built for GCC %s, loaded into GCC %s",
		      info->base_name, gcc_version.basever, version->basever);
		return 1;
	}
	plugin_name = info->base_name;

	const char *filter = NULL;
	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key;
		if (strcmp(key, "disable") == 0 && !info->argv[i].value) {
			transform_enabled = false;
		} else if (strcmp(key, "verbose") == 0 &&
			   !info->argv[i].value) {
			verbose = true;
		} else if (strcmp(key, "prologues") == 0 &&
			   !info->argv[i].value) {
			prologues_all = true;
		} else if (strcmp(key, "no-inline-guard") == 0 &&
			   !info->argv[i].value) {
			inline_guard = false;
		} else if (strcmp(key, "whole-program") == 0 &&
			   (!info->argv[i].value || *info->argv[i].value)) {
			whole_program = true;
			filter = info->argv[i].value;
		} else {
			error("%s: unknown plugin argument %<-fplugin-arg-%s-%s%s%s%>"
			      " (expected %<disable%>, %<verbose%>, "
			      "%<prologues%>, %<no-inline-guard%> or "
			      "%<whole-program[=<filter file>]%>)",
			      plugin_name, plugin_name, key,
			      info->argv[i].value ? "=" : "",
			      info->argv[i].value ? info->argv[i].value : "");
			return 1;
		}
	}

	register_callback(plugin_name, PLUGIN_INFO, NULL, &dyncall_plugin_info);
	/* The attribute, always (also with -fplugin-arg-...-disable). */
	register_callback(plugin_name, PLUGIN_ATTRIBUTES, register_attributes,
			  NULL);
	register_callback(plugin_name, PLUGIN_FINISH_DECL, finish_decl, NULL);
	register_callback(plugin_name, PLUGIN_FINISH_TYPE, finish_type, NULL);
	register_callback(plugin_name, PLUGIN_FINISH, finish_compilation, NULL);
	register_callback(plugin_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)dyncall_ggc_roots);
	if (!install_entry_nop())
		return 1;
	if (!transform_enabled)
		return 0;
	/* Parsed once per compiler process; an error fails the compilation
	 * (the passes are gated on seen_error()).  Not in the LTO back end
	 * (lto1, "GNU GIMPLE"): the sites were chosen at compile time, and
	 * the link may run where the file is not. */
	if (filter && strcmp(lang_hooks.name, "GNU GIMPLE") != 0)
		read_filter(filter);

	key_index = new hash_map<tree, unsigned>;
	register_callback(plugin_name, PLUGIN_START_UNIT, start_unit, NULL);
	register_passes(plugin_name);
	return 0;
}
