/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events of the ksym hit generator (kernel/trace/ksym_hitgen.c): the
 * objects of its object scenario as they are allocated and freed, for the
 * ksym_watch and ksym_unwatch triggers to follow.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ksym_hitgen

#if !defined(_TRACE_KSYM_HITGEN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KSYM_HITGEN_H

#include <linux/tracepoint.h>

struct ksym_hitgen_obj;

DECLARE_EVENT_CLASS(ksym_hitgen_obj_class,

	TP_PROTO(struct ksym_hitgen_obj *obj),

	TP_ARGS(obj),

	TP_STRUCT__entry(
		/* Typed: "ksym_watch:obj.count:-w-" needs no cast. */
		__field(struct ksym_hitgen_obj *,	obj)
	),

	TP_fast_assign(
		__entry->obj = obj;
	),

	TP_printk("obj=0x%lx", (unsigned long)__entry->obj)
);

/* A struct ksym_hitgen_obj was allocated: nothing has written it yet. */
DEFINE_EVENT(ksym_hitgen_obj_class, ksym_hitgen_obj_alloc,
	TP_PROTO(struct ksym_hitgen_obj *obj),
	TP_ARGS(obj)
);

/* It is about to be freed: nothing writes it after this. */
DEFINE_EVENT(ksym_hitgen_obj_class, ksym_hitgen_obj_free,
	TP_PROTO(struct ksym_hitgen_obj *obj),
	TP_ARGS(obj)
);

#endif /* _TRACE_KSYM_HITGEN_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
