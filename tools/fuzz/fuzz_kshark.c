// SPDX-License-Identifier: LGPL-2.1
/*
 * fuzz_kshark: the KernelShark plugin's record decoding (kshark-ksym/
 * ksym_hits.c): the plugin is initialised on a stream of a trace.dat
 * fixture, as KernelShark does, then its ksym_hit handler is handed the
 * fuzzed records, as libkshark hands them while it loads a trace; then the
 * second pass (ksym_hits_resolve()) and the tooltip text of every hit.
 *
 * ksym_hits.c is compiled into this file (its handler is static), so the
 * plugin needs no change to be fuzzed.
 *
 * Input: a selector byte, then records (fuzz.h), each made a record of
 * the stream's ksym_hit (its common_type overwritten: libkshark calls the
 * handler for that event only). Selector bits:
 *   0     stream of kshark-ksym/tests/ksym-hits.dat (ksym_hit with caller
 *         and sym) or of ksym-ctl/tests/ksym-hitgen.dat (older)
 *   1     the file is of the other byte order than the fixture
 *   2     stream of kshark-ksym/tests/ksym-values.dat instead (ksym_hit with
 *         old and has_old; bit 0 does not count)
 */
#include "../kshark-ksym/ksym_hits.c"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NR_STREAMS	3

static struct kshark_data_stream *streams[NR_STREAMS];
static struct kshark_context *kctx;

/* At the end: the streams closed, so that LeakSanitizer sees only leaks. */
static void close_streams(void)
{
	int i;

	for (i = 0; i < NR_STREAMS; i++)
		KSHARK_PLOT_PLUGIN_DEINITIALIZER(streams[i]);
	kshark_free(kctx);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const files[NR_STREAMS] = {
		"kshark-ksym/tests/ksym-hits.dat",
		"ksym-ctl/tests/ksym-hitgen.dat",
		"kshark-ksym/tests/ksym-values.dat",
	};
	int i, sd;

	(void)argc;
	(void)argv;
	if (!kshark_instance(&kctx))
		exit(2);
	for (i = 0; i < NR_STREAMS; i++) {
		sd = kshark_open(kctx, fuzz_tools_path(files[i]));
		streams[i] = sd < 0 ? NULL : kshark_get_data_stream(kctx, sd);
		if (!streams[i] || KSHARK_PLOT_PLUGIN_INITIALIZER(streams[i]) != 1 ||
		    !__get_context(sd)) {
			fprintf(stderr, "fuzz_kshark: no ksym plugin context on %s\n",
				files[i]);
			exit(2);
		}
	}
	atexit(close_streams);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kshark_data_stream *stream;
	struct plugin_ksym_context *ctx;
	struct kshark_entry *entries;
	struct fuzz_record *recs = NULL;
	int big, nr, i, id;
	ssize_t h;
	uint8_t sel;

	if (!size)
		return 0;
	sel = data[0];
	stream = streams[sel & 4 ? 2 : sel & 1];
	ctx = __get_context(stream->stream_id);
	big = tep_is_file_bigendian(ctx->tep);
	if (sel & 2)
		tep_set_file_bigendian(ctx->tep, big ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	id = ctx->events[0].event->id;

	nr = fuzz_records_split(data + 1, size - 1, &recs);
	entries = calloc(nr ? nr : 1, sizeof(*entries));
	if (!entries)
		goto out;
	for (i = 0; i < nr; i++) {
		unsigned char *p = recs[i].data;
		struct tep_record rec = {
			.ts	= 1000 * (nr - i),	/* loaded out of order */
			.cpu	= recs[i].cpu,
			.data	= p,
			.size	= recs[i].size,
		};

		p[0] = tep_is_file_bigendian(ctx->tep) ? id >> 8 : id & 0xff;
		p[1] = tep_is_file_bigendian(ctx->tep) ? id & 0xff : id >> 8;
		entries[i].stream_id = stream->stream_id;
		entries[i].event_id = id;
		entries[i].cpu = rec.cpu;
		entries[i].pid = tep_data_pid(ctx->tep, &rec);
		entries[i].ts = rec.ts;
		plugin_ksym_hit_action(stream, &rec, &entries[i]);
	}
	if (ctx->nr_hits + ctx->nr_lost != nr)
		abort();	/* every record is a hit or counted lost */
	/* KsymHits.cpp resolves only a context that has hits. */
	if (ctx->nr_hits && !ksym_hits_resolve(ctx)) {
		for (h = 0; h < ctx->nr_hits; h++) {
			free(ksym_hit_describe(ctx, &ctx->hits[h]));
			free(ksym_hit_accessor(ctx, &ctx->hits[h]));
		}
	}
	/* The next input starts afresh, as KernelShark's next load does. */
	if (ksym_hits_reset(ctx))
		abort();
	free(entries);
out:
	fuzz_records_free(recs, nr);
	tep_set_file_bigendian(ctx->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	return 0;
}
