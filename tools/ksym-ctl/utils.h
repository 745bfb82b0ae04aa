/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: messages, small string helpers and argument parsing shared by
 * the subcommands. Nothing here touches tracefs, so it is unit tested on the
 * host (tests/test_ksym_ctl.c).
 */
#ifndef KSYM_CTL_UTILS_H
#define KSYM_CTL_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

extern int config_debug;

void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable array of strings (owned). */
struct strv {
	char	**v;
	int	n;
	int	cap;
};

int strv_add(struct strv *sv, const char *s);
int strv_find(const struct strv *sv, const char *s);
void strv_free(struct strv *sv);

/*
 * Split "SPEC... -- COMMAND [ARG...]" (argv after the options): the specs
 * go to @specs, *cmd points into argv at COMMAND (NULL without "--").
 * Returns 0, or -1 when there is no SPEC, a SPEC starts with '-' or
 * @need_cmd is set and no COMMAND follows "--".
 */
int split_specs_command(int argc, char **argv, bool need_cmd,
			struct strv *specs, char ***cmd);

/* "1", "0.5", "2s", "250ms" -> milliseconds; -1 if not a positive time. */
long parse_duration_ms(const char *s);

/* A positive decimal integer, or -1. */
long parse_count(const char *s);

/*
 * The target of a canonical ksym_trace_filter line ("TARGET/LEN:ACC[@CPUS]",
 * maybe followed by a "# disarmed: ..." or "# incomplete: ..." comment):
 * the text before the last '/' of the part before the last ':', the
 * comment left out. Copies at most @size - 1 characters; returns 0, or -1
 * if the line has no such form.
 */
int filter_line_target(const char *line, char *buf, size_t size);

/*
 * What gives @targets back the lines they had in @orig_filter (a
 * ksym_trace_filter read-back), without their comments, or removes those
 * that had none: one entry a line. Returns a malloc()ed string, or NULL.
 */
char *filter_restore_text(const char *orig_filter, const struct strv *targets);

/*
 * The name trace_stat and ksym_hit give a watch: its TARGET without a
 * leading cast, "(struct task_struct)init_task.flags" -> "init_task.flags".
 */
const char *target_name(const char *target);

/* Do two TARGETs name the same watch (compared without their casts)? */
int target_same(const char *a, const char *b);

/*
 * Print @s as a JSON string, quotes included, escaped by json-c; bytes that
 * are not valid UTF-8 are printed as U+FFFD, so the output is valid JSON
 * whatever @s holds (a task's comm from a trace.dat is any 15 bytes).
 */
void json_str(FILE *f, const char *s);

/*
 * JSON built as json-c objects and printed by json_print() in ksym-ctl's
 * layout: {"key": value, ...} and [a, b] on one line, but where a
 * container's look (json_look(), static storage) says otherwise:
 *   in >= 0: each element (member) on a line of its own, indented by in;
 *   out >= 0: then the closing bracket on a line indented by out (when
 *   there are elements);
 *   breaks: the keys of an object's members that start a new line (",\n ").
 */
struct json_object;
struct json_look {
	int			in, out;
	const char * const	*breaks;	/* NULL-terminated */
};
extern const struct json_look json_inline;	/* { -1, -1, NULL } */
struct json_object *json_look(struct json_object *o, const struct json_look *look);
void json_print(FILE *f, struct json_object *o);
/* A string (made valid UTF-8; NULL: null), "0x..." of @v, @v as "%.Nf". */
struct json_object *json_text(const char *s);
struct json_object *json_hexnum(unsigned long long v);
struct json_object *json_fixed(double v, int decimals);

/*
 * Print @s, read from a file, so that it is safe on a terminal: every byte
 * that is not part of valid UTF-8, and every control character (C0, DEL,
 * C1: the terminal's escapes), as '?'.
 */
void fput_printable(FILE *f, const char *s);

/* A line of a file or a buffer: split @text into lines (modifies it). */
int split_lines(char *text, struct strv *lines);

/*
 * What removes the trigger an event's trigger file shows as @line: "!" and
 * the line up to its filter (" if "), blanks in a cast kept
 * ("ksym_watch:(struct T)ptr.f/4:rw-:unlimited"). malloc'ed, or NULL.
 */
char *trigger_remove_text(const char *line);

#endif
