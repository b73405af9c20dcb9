// SPDX-License-Identifier: GPL-2.0
/*
 * The manual page's source (docs/tdbpf.8.scd) against the program: every
 * option --help lists is defined in the page and every option the page
 * defines is in --help; every subcommand of the usage, every model and
 * every sort key is documented. A failure names what is missing where.
 * Run from the repository root (make test does that).
 *
 * "Defined" means a definition line of the page, one that starts with
 * "*-" (an option) or "*name*" (a subcommand or a model): a name that is
 * only mentioned in a sentence does not document it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/options.h"
#include "commands/subcommands.h"
#include "model/model.h"

#define MANPAGE "docs/tdbpf.8.scd"
#define MAX_NAMES 256

struct names {
	int nr;
	char *v[MAX_NAMES];
};

static void add(struct names *n, const char *s, size_t len)
{
	int i;

	for (i = 0; i < n->nr; i++)
		if (strlen(n->v[i]) == len && !strncmp(n->v[i], s, len))
			return;
	assert_true(n->nr < MAX_NAMES);
	n->v[n->nr++] = strndup(s, len);
}

static bool has(const struct names *n, const char *s)
{
	int i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->v[i], s))
			return true;
	return false;
}

static void names_free(struct names *n)
{
	while (n->nr)
		free(n->v[--n->nr]);
}

/* Options in @s[0..len): "-x" or "--long-name" starting a word. */
static void options_in(struct names *n, const char *s, size_t len)
{
	size_t i, j;

	for (i = 0; i < len; i++) {
		if (s[i] != '-' || (i && (isalnum((unsigned char)s[i - 1]) ||
					  s[i - 1] == '-')))
			continue;
		if (i + 2 < len + 1 && s[i + 1] == '-') {
			for (j = i + 2; j < len && (isalnum((unsigned char)s[j]) ||
						    s[j] == '-');
			     j++)
				;
			if (j > i + 3 && isalpha((unsigned char)s[i + 2]))
				add(n, s + i, j - i);
			i = j;
		} else if (i + 1 < len && isalpha((unsigned char)s[i + 1]) &&
			   (i + 2 >= len || !isalnum((unsigned char)s[i + 2]))) {
			add(n, s + i, 2);
			i++;
		}
	}
}

static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		fail_msg("cannot read %s (run from the repository root)", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static char *usage_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print_usage(f);
	fclose(f);
	return buf;
}

/* Each line of @text in turn: *line, its length; NULL at the end. */
static const char *next_line(const char **text, size_t *len)
{
	const char *s = *text, *e;

	if (!*s)
		return NULL;
	e = strchr(s, '\n');
	*len = e ? (size_t)(e - s) : strlen(s);
	*text = e ? e + 1 : s + *len;
	return s;
}

/*
 * The options --help lists: on each line that starts with blanks and a
 * '-', the option part before the two blanks that start its description.
 */
static void help_options(struct names *n, const char *help)
{
	const char *l, *spec, *end;
	size_t len;

	while ((l = next_line(&help, &len))) {
		spec = l;
		while (spec < l + len && *spec == ' ')
			spec++;
		if (spec == l || spec == l + len || *spec != '-')
			continue;
		end = strstr(spec, "  ");
		if (!end || end > l + len)
			end = l + len;
		options_in(n, spec, (size_t)(end - spec));
	}
}

/* The options the page defines: its lines that start with "*-". */
static void page_options(struct names *n, const char *page)
{
	const char *l;
	size_t len;

	while ((l = next_line(&page, &len)))
		if (len > 2 && l[0] == '*' && l[1] == '-')
			options_in(n, l, len);
}

static void report_missing(const struct names *want, const struct names *in,
			   const char *what, const char *where, int *bad)
{
	int i;

	for (i = 0; i < want->nr; i++)
		if (!has(in, want->v[i])) {
			if (where)
				print_error("%s '%s' is missing from %s\n",
					    what, want->v[i], where);
			(*bad)++;
		}
}

static void test_options_both_ways(void **state)
{
	struct names help = { 0 }, page = { 0 };
	char *usage = usage_text(), *text = slurp_file(MANPAGE);
	int bad = 0;

	(void)state;
	help_options(&help, usage);
	page_options(&page, text);
	/* the extraction itself must find the options both sides have */
	assert_true(has(&help, "-p") && has(&help, "--pid"));
	assert_true(has(&page, "-p") && has(&page, "--pid"));
	report_missing(&help, &page, "option (from --help)",
		       MANPAGE " (add a \"*-x*, *--long* _ARG_\" entry)", &bad);
	report_missing(&page, &help, "option (from " MANPAGE ")",
		       "tdbpf --help (user/commands/usage.c print_usage)", &bad);
	names_free(&help);
	names_free(&page);
	free(usage);
	free(text);
	if (bad)
		fail_msg("%d option(s) documented on one side only", bad);
}

/* Does a line of @page start with "*@word*" or "*tdbpf @word*"? */
static bool page_defines(const char *page, const char *word)
{
	char a[128], b[128];
	const char *l;
	size_t len;

	snprintf(a, sizeof(a), "*%s*", word);
	snprintf(b, sizeof(b), "*tdbpf %s*", word);
	while ((l = next_line(&page, &len))) {
		/* "*a*, *b*" defines a and b */
		const char *p = l;

		if (*l != '*')
			continue;
		if (!strncmp(l, b, strlen(b)))
			return true;
		while (p < l + len) {
			if (!strncmp(p, a, strlen(a)) &&
			    (p + strlen(a) == l + len || p[strlen(a)] == ',' ||
			     p[strlen(a)] == ' '))
				return true;
			p = strstr(p, ", *");
			if (!p || p > l + len)
				break;
			p += 2;
		}
	}
	return false;
}

/* The subcommands the usage lines show: "tdbpf WORD", WORD a bare word. */
static void test_subcommands(void **state)
{
	char *usage = usage_text(), *text = slurp_file(MANPAGE);
	const char *l, *p = usage;
	char word[64];
	size_t len;
	int bad = 0, found = 0;

	(void)state;
	while ((l = next_line(&p, &len))) {
		const char *t = l;
		int n = 0;

		/* usage lines only: "usage: tdbpf ..." and "       tdbpf ..." */
		if (!strncmp(t, "usage:", 6))
			t += 6;
		while (*t == ' ')
			t++;
		if (strncmp(t, "tdbpf ", 6) || t > l + len)
			continue;
		t += strlen("tdbpf ");
		while (n < (int)sizeof(word) - 1 && islower((unsigned char)t[n]))
			word[n] = t[n], n++;
		word[n] = '\0';
		if (!n || (t[n] != ' ' && t[n] != '\n'))
			continue;
		found++;
		if (!page_defines(text, word)) {
			print_error("subcommand '%s' (from --help) has no \"*tdbpf %s*\" entry in " MANPAGE "\n",
				    word, word);
			bad++;
		}
	}
	assert_true(found >= 2);	/* list and decode at least */
	free(usage);
	free(text);
	if (bad)
		fail_msg("%d subcommand(s) undocumented", bad);
}

static void test_models_and_sort_keys(void **state)
{
	char *text = slurp_file(MANPAGE), key[64];
	const char *name;
	int i, bad = 0;

	(void)state;
	for (i = 0; models[i]; i++)
		if (!page_defines(text, models[i]->name)) {
			print_error("model '%s' has no \"*%s*\" entry under MODELS in " MANPAGE "\n",
				    models[i]->name, models[i]->name);
			bad++;
		}
	assert_true(i >= 2);
	for (i = 0; i < SORT_NR; i++) {
		name = sort_names[i];
		snprintf(key, sizeof(key), "*%s*", name);
		if (!strstr(text, key)) {
			print_error("sort key '%s' is not named (as %s) under --sort in " MANPAGE "\n",
				    name, key);
			bad++;
		}
	}
	assert_true(i >= 2);
	free(text);
	if (bad)
		fail_msg("%d model(s) or sort key(s) undocumented", bad);
}

/* The checker must fail when a name is missing, or it proves nothing. */
static void test_checker_catches_gaps(void **state)
{
	struct names help = { 0 }, page = { 0 };
	int bad = 0;

	(void)state;
	help_options(&help, "  -q, --quux N  a new option\n"
			    "  -p, --pid PID  trace, see also -x in text\n");
	page_options(&page, "*-p*, *--pid* _PID_\n\tmentions --quux here\n");
	assert_int_equal(help.nr, 4);
	assert_true(has(&help, "-q") && has(&help, "--quux"));
	report_missing(&help, &page, "option", NULL, &bad);
	assert_int_equal(bad, 2);	/* -q and --quux, not -p/--pid */
	assert_true(page_defines("*a*, *bdw*\n", "bdw"));
	assert_false(page_defines("see *bdw* there\n", "bdw"));
	assert_false(page_defines("*bdwx*\n", "bdw"));
	names_free(&help);
	names_free(&page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_catches_gaps),
		cmocka_unit_test(test_options_both_ways),
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_models_and_sort_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
