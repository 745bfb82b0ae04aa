// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uaf: ksym-ctl uaf's readers (ksym-ctl/uaf_read.c, uaf_core.c,
 * uaf_pair.c, uaf_print.c): the ring buffer's records of its instance
 * (free and allocation events, kernel_stack, ksym_hit, ksym_stack) decoded
 * on the VM kernel's formats
 * (ksym-ctl/tests/uaf_formats.h), the trigger file's text and
 * trace_stat/ksym_triggers' rows parsed, the hits paired with the frees
 * and the report printed, as text or JSON.
 *
 * Input: a selector byte, the event's trigger file text up to a NUL byte,
 * the ksym_triggers text up to a NUL byte, then records (fuzz.h: task 130's
 * large kmalloc, mm_page_alloc then kmalloc, gives the direct map); a record
 * of CPU c, the i-th, has the time 1000 * (i + 1) - 700 * c (CPUs read one
 * after the other are out of order); every 4th record's CPU is told capped
 * and every 8th ends a tick (uaf_reader_tick()). Selector bits:
 *   0     --kfree-site (kfree / kmalloc) instead of --cache
 *   1     -v
 *   2     --json
 *   3     the records are of the other byte order
 *   4     the kernel's longs are 4 bytes
 *   5-6   the objects' extent: 1, 8, 200, 4096 bytes
 *   7     the watch is named "ptr+0x10", not "ptr"
 *
 * Oracle, beyond the sanitizers: every hit is in one class, the pairing
 * agrees with a brute-force search of the frees and allocations
 * (check_pairing()), and the JSON parses and gives the same counts
 * (check_json()).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "tests/uaf_formats.h"
#include "uaf.h"
#include "uaf_read.h"

static struct tep_handle *tep;
static struct kallsyms ks;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tep = uaf_formats_tep();
	if (!tep || kallsyms_load(&ks, strdup(uaf_kallsyms_text)))
		abort();
	return 0;
}

/* The bytes of @data up to a NUL (or its end) as a string; *@used of them. */
static char *text_part(const uint8_t *data, size_t size, size_t *used)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, data, len);
		s[len] = '\0';
	}
	*used = nul ? len + 1 : len;
	return s;
}

/* Whether @ptr was allocated after @from and at or before @to (brute force). */
static bool alloc_between(const struct uaf_data *d, unsigned long long ptr,
			  unsigned long long from, unsigned long long to)
{
	int i;

	for (i = 0; i < d->nr_allocs; i++)
		if (d->allocs[i].ptr == ptr && d->allocs[i].ts > from &&
		    d->allocs[i].ts <= to)
			return true;
	return false;
}

/*
 * What uaf_analyze() paired, checked against the frees and allocations
 * themselves (review 11-28 L11: a pairing mutant survived the structural
 * checks): a hit is paired with the latest free, at or before it, of an
 * object of @extent bytes that holds its address, or with none when there
 * is none; a use after free has no allocation of its object between its
 * free and it; one "reallocated" has one, or its page was given out (only
 * seen with the direct map known).
 */
static void check_pairing(const struct uaf_data *d, unsigned long extent)
{
	const struct uaf_free *fr;
	const struct uaf_hit *h;
	int i, j;

	for (i = 0; i < d->nr_hits; i++) {
		h = &d->hits[i];
		fr = h->free >= 0 ? &d->frees[h->free] : NULL;
		if (fr && (fr->ts > h->ts || h->addr - fr->ptr >= extent))
			abort();	/* a free after the hit, or not its object */
		for (j = 0; j < d->nr_frees; j++) {
			const struct uaf_free *o = &d->frees[j];

			if (o->ts > h->ts || h->addr - o->ptr >= extent)
				continue;
			if (!fr || o->ts > fr->ts)
				abort();	/* a later free of an object holding it */
		}
		if (!fr)
			continue;
		if (h->cls == UAF_USE && alloc_between(d, fr->ptr, fr->ts, h->ts))
			abort();	/* the object was live again */
		if (h->cls == UAF_REALLOCATED && !d->base_known &&
		    !alloc_between(d, fr->ptr, fr->ts, h->ts))
			abort();	/* reallocated without an allocation */
	}
}

/* The JSON parses, and says the counts uaf_analyze() found. */
static void check_json(const struct uaf_data *d, const struct uaf_report *rep)
{
	struct fuzz_json j;
	struct json_object *o;

	uaf_print_json(fuzz_json_open(&j), d, rep, &ks);
	o = fuzz_json_end(&j);
	if (fuzz_json_uint(o, "uses_after_free") != (unsigned long long)d->count[UAF_USE] ||
	    fuzz_json_len(o, "findings") != (size_t)d->count[UAF_USE] ||
	    fuzz_json_uint(o, "unpaired") != (unsigned long long)d->count[UAF_UNPAIRED] ||
	    fuzz_json_uint(o, "reallocated") != (unsigned long long)d->count[UAF_REALLOCATED] ||
	    fuzz_json_uint(o, "allocator") != (unsigned long long)d->count[UAF_ALLOCATOR] ||
	    fuzz_json_uint(o, "objects") != (unsigned long long)d->objects ||
	    (rep->verbose &&
	     fuzz_json_len(o, "not_uses") != (size_t)(d->nr_hits - d->count[UAF_USE])))
		abort();
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned long extents[] = { 1, 8, 200, 4096 };
	struct uaf_spec sp = { .cache = "ksym_hitgen_cache", .site = "ksym_hitgen_uaf",
			       .site_start = 0xffffffffa0000000ULL,
			       .site_end = 0xffffffffa0000200ULL, .object_size = 200 };
	struct uaf_coverage cov;
	struct uaf_report rep = { .spec = &sp, .cov = &cov, .title = "fuzz" };
	struct uaf_reader_opts ro = { 0 };
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct fuzz_record *recs = NULL;
	char *trig, *rows, shown[600];
	int big, long_size, nr, i, sum;
	size_t used;
	uint8_t sel;

	if (!size)
		return 0;
	sel = data[0];
	data++;
	size--;
	trig = text_part(data, size, &used);
	data += used;
	size -= used;
	rows = text_part(data, size, &used);
	data += used;
	size -= used;
	if (!trig || !rows)
		goto out;
	sp.mode = sel & 1 ? UAF_KFREE : UAF_CACHE;
	rep.verbose = sel & 2;
	big = tep_is_file_bigendian(tep);
	long_size = tep_get_long_size(tep);
	if (sel & 8)
		tep_set_file_bigendian(tep, big ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	if (sel & 0x10)
		tep_set_long_size(tep, 4);

	memset(&cov, 0, sizeof(cov));
	if (!uaf_trigger_shown(trig, shown, sizeof(shown)))
		uaf_coverage_parse(&cov, rows, uaf_free_event(&sp), shown);
	ro.hit_name = sel & 0x80 ? "ptr+0x10" : "ptr";
	ro.free_event = uaf_free_event(&sp);
	ro.alloc_event = uaf_alloc_event(&sp);
	ro.extent = extents[(sel >> 5) & 3];
	ro.base_pid = 130;	/* the records' own: the base is learnt */
	ro.page_size = 4096;
	if (uaf_reader_new(tep, &d, &ro, &rd))
		abort();	/* the formats have every event */
	nr = fuzz_records_split(data, size, &recs);
	for (i = 0; i < nr; i++) {
		struct tep_record rec;

		fuzz_tep_record(&rec, &recs[i], 1000ULL * (i + 1) - 700ULL * recs[i].cpu);
		if (uaf_reader_add(rd, &rec, rec.cpu))
			break;
		/* Reads of every CPU: some CPUs capped, judged a tick later. */
		if (i % 4 == 3)
			uaf_reader_capped(rd, rec.cpu);
		if (i % 8 == 7 && uaf_reader_tick(rd, false))
			break;
	}
	uaf_reader_tick(rd, true);
	uaf_analyze(&d, extents[(sel >> 5) & 3], &ks);
	/* Every hit is in one class, and a paired one has its free. */
	for (i = 0, sum = 0; i < UAF_NR_CLASSES; i++)
		sum += d.count[i];
	assert(sum == d.nr_hits);
	for (i = 0; i < d.nr_hits; i++)
		assert((d.hits[i].free >= 0 && d.hits[i].free < d.nr_frees) ==
		       (d.hits[i].cls != UAF_UNPAIRED));
	check_pairing(&d, extents[(sel >> 5) & 3]);
	if (sel & 4)
		check_json(&d, &rep);
	else
		uaf_print(fuzz_devnull(), &d, &rep, &ks);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	fuzz_records_free(recs, nr);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
out:
	free(trig);
	free(rows);
	return 0;
}
