/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl uaf: the records of ksym-ctl's instance (free and allocation
 * events, ksym_hit entries and their callchains) as uaf.h's events. Fed one
 * record at a time, by uaf.c from the ring buffer, by the tests and the
 * fuzzer from records they make: pure, every field read within its record.
 */
#ifndef KSYM_CTL_UAF_READ_H
#define KSYM_CTL_UAF_READ_H

#include <stdbool.h>

#include "uaf.h"

struct tep_handle;
struct tep_record;
struct uaf_reader;

/* What the reader is to keep. */
struct uaf_reader_opts {
	const char	*hit_name;	/* the watch's "sym" (uaf_hit_name()) */
	const char	*free_event;	/* "SYSTEM:EVENT" (uaf_free_event()) */
	const char	*alloc_event;	/* uaf_alloc_event() */
	/* Another event that gives the objects out again, or NULL (uaf_alloc_event2()) */
	const char	*alloc_event2;
	unsigned long	extent;		/* uaf_object_extent() */
	/*
	 * The watched word, uaf_word_offset() and uaf_word_len(): the only
	 * bytes a hit can be on, so the pages whose reuse matters. 0: the
	 * object's first and last page.
	 */
	unsigned long	word_offset;
	unsigned int	word_len;
	/*
	 * The task whose large kmalloc (kmem:mm_page_alloc of order 1 or
	 * more, then kmem:kmalloc of those pages' bytes) tells the direct
	 * map's base; 0: none; -1: any task's (a large kmalloc's pages are
	 * given the same way whoever asks: inside a PID namespace the kernel's
	 * PID of ours is not known, review 11-28 L8). kmem:mm_page_alloc's
	 * pages that hold a freed object are kept from then on.
	 */
	int		base_pid;
	unsigned long	page_size;
};

/*
 * A reader of the events of @tep into @d, as @o says. 0, or -1 with a
 * message when @tep lacks the free event or ksym_hit.
 */
int uaf_reader_new(struct tep_handle *tep, struct uaf_data *d,
		   const struct uaf_reader_opts *o, struct uaf_reader **out);

/* One record of CPU @cpu, in that CPU's order. 0, or -1 when out of memory. */
int uaf_reader_add(struct uaf_reader *rd, struct tep_record *rec, int cpu);
/*
 * The same, for a record of the page allocations' own instance (uaf.c:
 * kmem:mm_page_alloc and the probe's kmalloc, review 11-28 L9), read
 * before the frees' of the same tick: its losses are counted apart
 * (pages_lost), and it says nothing of how far the frees were read.
 */
int uaf_reader_add_pages(struct uaf_reader *rd, struct tep_record *rec, int cpu);

/*
 * CPU @cpu was not drained in this read (a cap on its pages): what the
 * other CPUs gave past its last record is judged later.
 */
void uaf_reader_capped(struct uaf_reader *rd, int cpu);

/*
 * A read of every CPU done: the allocations and page allocations read so
 * far are kept, or not, when every CPU has been read past them (a free on
 * a CPU read later may be of their object); @final: all of them, the
 * buffers drained. 0, or -1 when out of memory.
 */
int uaf_reader_tick(struct uaf_reader *rd, bool final);

void uaf_reader_free(struct uaf_reader *rd);

#endif
