// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_claims: ksym-ctl's state file reader (ksym-ctl/claims.c,
 * claims_parse()) and what the runs do with the claims it reads
 * (claims_take(), claims_release(), claims_drop(), claims_format()), with
 * the watch specs of the claims' keys (spec_target(), spec_access(),
 * spec_differs()). The state file is root's own (0600 in a 0700 directory),
 * but a run reads whatever an earlier, killed run left half-written.
 *
 * Oracle, beyond the sanitizers: the text claims_format() writes reads back
 * to the same claims, field by field (and format, parse, format gives the
 * same text), no two
 * claims have the same kind and key, and each operation does what claims.h
 * says: after take the owner holds the claim; after release the owner
 * holds none, and every claim it freed has no live owner; after drop the
 * owner no longer holds that claim.
 *
 * Input: a selector byte, the state file's text up to a NUL byte, then
 * operations of two bytes each: [op:2 kind:2 owner:2 key:2][alive mask].
 * Keys are taken from the claims read (so operations meet them) or from a
 * few of the shapes ksym-ctl writes. Selector bit 0: the boot id is not the
 * one the corpus's files name (their claims are dropped). The boot id is a
 * fixed UUID-shaped text, as /proc/sys/kernel/random/boot_id's: the
 * "boot" line is compared as written, which a boot id with a tab or a
 * backslash would not survive, and the kernel's never has one.
 */
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BOOT_ID		"7f2c8e1a-3b4d-4c5e-8f60-718293a4b5c6"
#define OTHER_BOOT	"00000000-0000-4000-8000-000000000000"

static const char *const owners[] = {
	"ksym-ctl-130", "ksym-ctl-131", "ksym-ctl-uaf-4242", "x",
};

static const char *const keys[] = {
	"pid_max", "jiffies+0x8", "mymod:refcount_x", "ksym-stack",
};

static const char *const values[] = {
	"", "pid_max/4:-w-", "1", CLAIM_PENDING,
};

/* Owners alive by a bit mask: bit i, owners[i]; any other name is gone. */
static bool alive_mask(const char *owner, void *arg)
{
	unsigned int mask = *(unsigned int *)arg;
	size_t i;

	for (i = 0; i < sizeof(owners) / sizeof(owners[0]); i++)
		if (!strcmp(owner, owners[i]))
			return mask & (1U << i);
	return false;
}

static bool held(const struct claim *cl, const char *owner)
{
	return strv_find(&cl->owners, owner) >= 0;
}

/* Whether @a and @b are the same claim, field by field. */
static bool claim_same(const struct claim *a, const struct claim *b)
{
	int i;

	if (a->kind != b->kind || strcmp(a->key, b->key) || strcmp(a->orig, b->orig) ||
	    strcmp(a->set, b->set) || a->owners.n != b->owners.n)
		return false;
	for (i = 0; i < a->owners.n; i++)
		if (strcmp(a->owners.v[i], b->owners.v[i]))
			return false;
	return true;
}

/* No duplicates, and the text reads back to the claims it was written from. */
static void check_claims(struct claims *c)
{
	struct claims again;
	char *text, *text2;
	int i;

	for (i = 0; i < c->n; i++)
		if (claims_find(c, c->v[i].kind, c->v[i].key) != &c->v[i])
			abort();
	text = claims_format(c);
	if (!text)
		return;
	if (!claims_parse(&again, text, c->boot_id)) {
		text2 = claims_format(&again);
		for (i = 0; i < c->n && again.n == c->n; i++)
			if (!claim_same(&c->v[i], &again.v[i]))
				break;
		if (again.n != c->n || i < c->n || (text2 && strcmp(text, text2))) {
			fprintf(stderr, "fuzz_claims: not read back:\n%s\n--\n%s\n",
				text, text2 ? text2 : "");
			abort();
		}
		free(text2);
		claims_free(&again);
	}
	free(text);
}

/* The specs of a key, as ksym-ctl compares a claim's with the user's. */
static void check_spec(const char *key)
{
	char target[256], access[8];

	spec_target(key, target, sizeof(target));
	spec_access(key, access, sizeof(access));
	if (strlen(access) && strlen(access) != 3)
		abort();
	/* A spec never differs from itself. */
	if (spec_differs(key, key))
		abort();
}

static void run_op(struct claims *c, uint8_t op, unsigned int mask)
{
	static const char kinds[] = { CLAIM_WATCH, CLAIM_OPTION, CLAIM_SETTING, CLAIM_WATCH };
	const char *owner = owners[(op >> 2) & 3], *key;
	char kind = kinds[(op >> 4) & 3];
	struct claims freed = { 0 };
	struct claim *cl;
	int i;

	/* A key the file has (when it has claims), or one of ours. */
	if (c->n && (op & 0x80)) {
		cl = &c->v[(op & 0x3f) % c->n];
		kind = cl->kind;
		key = cl->key;
	} else {
		key = keys[op & 3];
	}
	key = strdup(key);	/* release and drop may free the claim's own */
	if (!key)
		return;
	switch (op >> 6) {
	case 0:
	case 2:
		if (claims_take(c, kind, key, values[mask & 3], values[(mask >> 2) & 3],
				owner, alive_mask, &mask))
			break;
		cl = claims_find(c, kind, key);
		if (!cl || !held(cl, owner))
			abort();
		break;
	case 1:
		if (claims_release(c, (op & 0x20) ? NULL : owner, alive_mask, &mask, &freed))
			break;
		for (i = 0; i < c->n; i++)
			if (!(op & 0x20) && held(&c->v[i], owner))
				abort();
		for (i = 0; i < freed.n; i++)
			if (claim_held_by_other(&freed.v[i], NULL, alive_mask, &mask))
				abort();
		break;
	case 3:
		if (claims_drop(c, kind, key, owner, &freed))
			break;
		cl = claims_find(c, kind, key);
		if (cl && held(cl, owner))
			abort();
		break;
	}
	claims_free(&freed);
	free((char *)key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	struct claims c;
	char *text;
	size_t len;
	int i;

	if (!size)
		return 0;
	nul = memchr(data + 1, 0, size - 1);
	len = nul ? (size_t)(nul - data - 1) : size - 1;
	text = fuzz_strndup(data + 1, len);
	if (!text)
		return 0;
	if (claims_parse(&c, text, data[0] & 1 ? OTHER_BOOT : BOOT_ID))
		goto out;
	check_claims(&c);
	for (i = 0; i < c.n; i++)
		check_spec(c.v[i].key);
	data += 1 + len + (nul ? 1 : 0);
	size -= 1 + len + (nul ? 1 : 0);
	for (; size >= 2; data += 2, size -= 2) {
		run_op(&c, data[0], data[1]);
		check_claims(&c);
	}
	claims_free(&c);
out:
	free(text);
	return 0;
}
