// SPDX-License-Identifier: GPL-2.0
/*
 * tools/fuzz: libtraceevent's tep_read_number(), compiled with the
 * harness so that ASan sees its reads.
 *
 * The readers under test reach a record's bytes mostly through
 * libtraceevent (tep_read_number_field(), tep_get_field_val(),
 * tep_get_field_raw()'s __data_loc word, the plugin's own calls), and
 * Debian's libtraceevent is not instrumented: a read past a record there
 * goes unseen unless it faults. libtraceevent calls tep_read_number()
 * through its PLT, so this definition in the executable takes the place
 * of the library's for every caller, and every such read is checked.
 * Same semantics: @size bytes at @ptr in the file's byte order; 0 for a
 * size other than 1, 2, 4 or 8.
 */
#include <byteswap.h>
#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>

unsigned long long tep_read_number(struct tep_handle *tep, const void *ptr, int size)
{
	bool swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		return *(const uint8_t *)ptr;
	case 2:
		memcpy(&v16, ptr, sizeof(v16));
		return swap ? bswap_16(v16) : v16;
	case 4:
		memcpy(&v32, ptr, sizeof(v32));
		return swap ? bswap_32(v32) : v32;
	case 8:
		memcpy(&v64, ptr, sizeof(v64));
		return swap ? bswap_64(v64) : v64;
	default:
		return 0;
	}
}
