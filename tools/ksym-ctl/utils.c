// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: messages and the pure helpers (see utils.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

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

/* The length of the valid UTF-8 sequence at @s (1 to 4 bytes), or 0. */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)	/* a continuation byte, or an overlong form */
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] < 0xf5) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void fput_printable(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	while (*p) {
		n = utf8_len(p);
		/* C1 controls (U+0080-U+009F) are escapes to some terminals. */
		if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f)) ||
		    (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			fputs(n == 2 ? "??" : "?", f);
			p += n ? n : 1;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
}

/* @s with every byte that is not valid UTF-8 replaced by U+FFFD; malloc()ed. */
static char *utf8_valid(const char *s)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(3 * strlen(s) + 1), *o = out;
	int n;

	if (!out)
		return NULL;
	while (*p) {
		n = utf8_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, replacement, 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

void json_str(FILE *f, const char *s)
{
	struct json_object *js = NULL;
	char *valid = utf8_valid(s);

	/*
	 * json-c escapes quotes, backslashes and control characters; it
	 * copies other bytes as they are, so they are made valid UTF-8 first.
	 */
	if (valid)
		js = json_object_new_string(valid);
	fputs(js ? json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE) :
		   "\"\"", f);
	json_object_put(js);
	free(valid);
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

char *trigger_remove_text(const char *line)
{
	const char *end = strstr(line, " if ");
	size_t len = end ? (size_t)(end - line) : strcspn(line, "\n");
	char *cmd;

	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (asprintf(&cmd, "!%.*s", (int)len, line) < 0)
		return NULL;
	return cmd;
}

struct json_object *json_text(const char *s)
{
	struct json_object *js;
	char *valid;

	if (!s)
		return NULL;
	valid = utf8_valid(s);
	js = json_object_new_string(valid ? valid : "");
	free(valid);
	return js;
}

struct json_object *json_hexnum(unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", v);
	return json_object_new_string(buf);
}

struct json_object *json_fixed(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

const struct json_look json_inline = { -1, -1, NULL };

/* Containers only: a double's userdata is its text (json_object_new_double_s). */
struct json_object *json_look(struct json_object *o, const struct json_look *look)
{
	if (o && (json_object_is_type(o, json_type_object) ||
		  json_object_is_type(o, json_type_array)))
		json_object_set_userdata(o, (void *)look, NULL);
	return o;
}

static const struct json_look *look_of(struct json_object *o)
{
	const struct json_look *l = NULL;

	if (o && (json_object_is_type(o, json_type_object) ||
		  json_object_is_type(o, json_type_array)))
		l = json_object_get_userdata(o);
	return l ? l : &json_inline;
}

static bool look_breaks(const struct json_look *l, const char *key)
{
	int i;

	for (i = 0; l->breaks && l->breaks[i]; i++)
		if (!strcmp(l->breaks[i], key))
			return true;
	return false;
}

/* Before element @i of a container of look @l. */
static void json_sep(FILE *f, const struct json_look *l, int i)
{
	if (i)
		fputc(',', f);
	if (l->in >= 0)
		fprintf(f, "\n%*s", l->in, "");
	else if (i)
		fputc(' ', f);
}

void json_print(FILE *f, struct json_object *o)
{
	const struct json_look *l = look_of(o);
	int i = 0;
	size_t n;

	if (json_object_is_type(o, json_type_object)) {
		fputc('{', f);
		json_object_object_foreach(o, key, val) {
			if (i && look_breaks(l, key))
				fputs(",\n ", f);
			else
				json_sep(f, l, i);
			json_str(f, key);
			fputs(": ", f);
			json_print(f, val);
			i++;
		}
		if (i && l->out >= 0)
			fprintf(f, "\n%*s", l->out, "");
		fputc('}', f);
	} else if (json_object_is_type(o, json_type_array)) {
		n = json_object_array_length(o);
		fputc('[', f);
		for (i = 0; (size_t)i < n; i++) {
			json_sep(f, l, i);
			json_print(f, json_object_array_get_idx(o, i));
		}
		if (n && l->out >= 0)
			fprintf(f, "\n%*s", l->out, "");
		fputc(']', f);
	} else {
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE), f);
	}
}
