// SPDX-License-Identifier: LGPL-2.1
/*
 * The KernelShark plugin's C++ symbols (KsymHits.cpp) that ksym_hits.c
 * calls, for the harnesses that compile ksym_hits.c in (fuzz_kshark,
 * fuzz_format): no GUI here.
 */
#include <libkshark-plugin.h>

#include "../kshark-ksym/ksym_hits.h"

void plugin_ksym_draw(struct kshark_cpp_argv *argv, int sd, int val,
		      int draw_action)
{
	(void)argv; (void)sd; (void)val; (void)draw_action;
}

void *plugin_ksym_set_gui_ptr(void *gui_ptr)
{
	(void)gui_ptr;
	return NULL;
}
