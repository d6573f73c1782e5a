/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * gcc-compat.h - every difference between the GCC versions the dyncall
 * plugin supports (11 and 12) lives here, in the spirit of the Linux
 * kernel's scripts/gcc-plugins/gcc-common.h.  dyncall_plugin.c includes
 * only this header and <dyncall/abi.h>; it never tests a GCC version itself.
 *
 * GCC 11 and 12 agree on every API the plugin uses (attribute_spec,
 * pass_data, cgraph_edge::rebuild_edges, symbol_table::finalize_toplevel_asm,
 * get_call_rtx_from, get_random_seed returning HOST_WIDE_INT, ...); what
 * differs is the set of headers that must be included and their order, and
 * that GCC 12 renamed its sources to *.cc (only visible in diagnostics).
 */
#ifndef DYNCALL_GCC_COMPAT_H
#define DYNCALL_GCC_COMPAT_H

#include "bversion.h"

#define DYNCALL_GCC_VERSION BUILDING_GCC_VERSION
#if DYNCALL_GCC_VERSION < 11000 || DYNCALL_GCC_VERSION >= 13000
#error "dyncall_gcc supports GCC 11 and GCC 12 only"
#endif

#define INCLUDE_STRING
#define INCLUDE_VECTOR
#define INCLUDE_MAP
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "target.h"
#include "rtl.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "memmodel.h"
#include "tm_p.h"
#include "ssa.h"
#include "cgraph.h"
#include "diagnostic-core.h"
#include "fold-const.h"
#include "stor-layout.h"
#include "varasm.h"
#include "stringpool.h"
#include "attribs.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "gimple-pretty-print.h"
#include "tree-cfg.h"
#include "cfgloop.h"
#include "tree-into-ssa.h"
#include "tree-dfa.h"
#include "langhooks.h"
#include "toplev.h"
#include "output.h"
#include "emit-rtl.h"
#include "builtins.h"
#include "dumpfile.h"
#include "context.h"
#include "md5.h"

/* The plugin is x86-64 only for now (abi.md describes aarch64 and ppc64le,
 * which follow in a later issue). */
#if !defined(__x86_64__)
#error "dyncall_gcc: only x86-64 hosts/targets are supported"
#endif

/* GC root table entry for one `tree` variable. */
#define DYNCALL_GGC_ROOT_TREE(var)                                             \
	{ &(var), 1, sizeof(var), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node }

/* -mindirect-branch= of the current compilation (i386.opt). */
#define dyncall_global_indirect_branch() (ix86_indirect_branch)
#define dyncall_indirect_branch_keep indirect_branch_keep
#define dyncall_indirect_branch_unset indirect_branch_unset

/* -fcf-protection=branch|full */
#define dyncall_ibt_enabled() ((flag_cf_protection & CF_BRANCH) != 0)

/* True while compiling for the LTO IR (the compile step of -flto). */
#define dyncall_generating_lto() (flag_generate_lto || flag_generate_offload)

#endif /* DYNCALL_GCC_COMPAT_H */
