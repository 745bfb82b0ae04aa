// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: messages and the pure helpers (see utils.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"

int config_debug;

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ksym-ctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!config_debug)
		return;
	fputs("ksym-ctl debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int strv_add(struct strv *sv, const char *s)
{
	char *copy;

	if (sv->n + 1 >= sv->cap) {
		int cap = sv->cap ? 2 * sv->cap : 8;
		char **v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return -1;
		sv->v = v;
		sv->cap = cap;
	}
	copy = strdup(s);
	if (!copy)
		return -1;
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

int strv_find(const struct strv *sv, const char *s)
{
	int i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return i;
	return -1;
}

void strv_free(struct strv *sv)
{
	int i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

int split_specs_command(int argc, char **argv, bool need_cmd,
			struct strv *specs, char ***cmd)
{
	int i;

	*cmd = NULL;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			if (i + 1 < argc)
				*cmd = &argv[i + 1];
			break;
		}
		if (argv[i][0] == '-') {
			err_msg("'%s': a SPEC cannot start with '-' (options go before the SPECs)\n",
				argv[i]);
			return -1;
		}
		if (strv_add(specs, argv[i]))
			return -1;
	}
	if (!specs->n) {
		err_msg("no SPEC given (e.g. pid_max/4:-w-)\n");
		return -1;
	}
	if (need_cmd && !*cmd) {
		err_msg("no COMMAND: give it after '--' (e.g. -- sleep 1)\n");
		return -1;
	}
	if (!need_cmd && i < argc) {
		err_msg("this subcommand runs no COMMAND\n");
		return -1;
	}
	return 0;
}

long parse_duration_ms(const char *s)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0 || v > 86400)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v * 1000 < 1)
		return -1;
	return (long)(v * 1000 + 0.5);
}

long parse_count(const char *s)
{
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0)
		return -1;
	return v;
}

int filter_line_target(const char *line, char *buf, size_t size)
{
	const char *hash = strchr(line, '#');
	const char *end = hash ? hash : line + strlen(line);
	const char *colon, *slash;
	size_t len;

	/* The comment may hold ':' and '/' of its own. */
	for (colon = end; colon > line && *colon != ':'; colon--)
		;
	if (colon == line)
		return -1;
	for (slash = colon; slash > line && *slash != '/'; slash--)
		;
	if (slash == line)
		return -1;
	len = slash - line;
	if (len >= size)
		return -1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	return 0;
}

char *filter_restore_text(const char *orig_filter, const struct strv *targets)
{
	struct strv orig = { 0 };
	char *copy, *text, *t;
	size_t size = strlen(orig_filter) + 1;
	int i, j;

	for (i = 0; i < targets->n; i++)
		size += strlen(targets->v[i]) + sizeof(":---\n");
	copy = strdup(orig_filter);
	text = calloc(1, size);
	t = malloc(size);
	if (!copy || !text || !t || split_lines(copy, &orig)) {
		free(text);
		text = NULL;
		goto out;
	}
	for (i = 0; i < targets->n; i++) {
		const char *line = NULL;
		size_t n = strlen(text);

		for (j = 0; j < orig.n && !line; j++)
			if (!filter_line_target(orig.v[j], t, size) &&
			    !strcmp(t, targets->v[i]))
				line = orig.v[j];
		if (line)
			/* A comment would hide what follows it on the line. */
			snprintf(text + n, size - n, "%.*s\n",
				 (int)strcspn(line, "#"), line);
		else
			snprintf(text + n, size - n, "%s:---\n", targets->v[i]);
	}
out:
	strv_free(&orig);
	free(copy);
	free(t);
	return text;
}

const char *target_name(const char *target)
{
	const char *end;

	if (strncmp(target, "(struct ", 8) && strncmp(target, "(union ", 7))
		return target;
	end = strchr(target, ')');
	return end ? end + 1 : target;
}

int target_same(const char *a, const char *b)
{
	return !strcmp(target_name(a), target_name(b));
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int split_lines(char *text, struct strv *lines)
{
	char *save = NULL, *line;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strv_add(lines, line))
			return -1;
	return 0;
}
