/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tests' harness: CHECK counts a check and reports it when it
 * fails, QUIET mutes the messages of a call expected to fail.
 */
#ifndef KSYM_CTL_TEST_H
#define KSYM_CTL_TEST_H

#include <stdio.h>
#include <string.h>

extern int failures, checks;

int mute(void);
void unmute(int fd);

#define QUIET(expr) ({ int _fd = mute(); __typeof__(expr) _r = (expr); unmute(_fd); _r; })

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	checks++;							\
	if (!_a || strcmp(_a, _b)) {					\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s is \"%s\", expected \"%s\"\n", \
			__FILE__, __LINE__, #a, _a ? _a : "(null)", _b); \
	}								\
} while (0)

/* @haystack contains @needle; prints @haystack when it does not. */
#define CHECK_HAS(haystack, needle) do {				\
	const char *_h = (haystack), *_n = (needle);			\
	checks++;							\
	if (!_h || !strstr(_h, _n)) {					\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s has no \"%s\" in:\n%s\n", \
			__FILE__, __LINE__, #haystack, _n, _h ? _h : "(null)"); \
	}								\
} while (0)

/* Tests in other files. */
void test_fields(void);
void test_scope(void);
void test_claims(void);
void test_stats_empty(void);
void test_uaf(void);
void test_state(void);
void test_local(void);

#endif
