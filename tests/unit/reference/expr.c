// SPDX-License-Identifier: GPL-2.0
/* perf's metric expression language: lexer, parser (perf's util/expr.y). */
#include "reference.h"

/* ------------------------------------------------------------------ */
/* perf metric expression language                                     */
/* ------------------------------------------------------------------ */


static bool sym_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '@' ||
	       c == '?';
}

/* Length of flex's {number}: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t number_len(const char *s)
{
	size_t i = 0, d = 0;

	while (isdigit((unsigned char)s[i]))
		i++, d++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++, d++;
	}
	if (!d)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1;

		if (s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* Length of flex's {symbol}: ([0-9a-zA-Z_.:@?] | \\.)+ */
static size_t symbol_len(const char *s)
{
	size_t i = 0;

	for (;;) {
		if (s[i] == '\\' && s[i + 1])
			i += 2;
		else if (s[i] && sym_char((unsigned char)s[i]))
			i++;
		else
			return i;
	}
}

static void lex(struct lexer *l)
{
	const char *s = l->s;
	size_t n, sl, i, o;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		l->tok = T_END;
		l->s = s;
		return;
	}
	if (strchr("+-*/%|&^<>(),", *s)) {
		l->tok = T_OP;
		l->buf[0] = *s;
		l->buf[1] = 0;
		l->s = s + 1;
		return;
	}
	if (*s == '#') {
		for (n = 1; isalnum((unsigned char)s[n]) || s[n] == '_'; n++)
			;
		l->tok = T_LIT;
		snprintf(l->buf, sizeof(l->buf), "%.*s", (int)n, s);
		l->s = s + n;
		return;
	}
	n = number_len(s);
	sl = symbol_len(s);
	if (n && n >= sl) {
		l->tok = T_NUM;
		l->num = strtod(s, NULL);
		l->s = s + n;
		return;
	}
	if (!sl || sl >= sizeof(l->buf)) {
		l->tok = T_ERR;
		snprintf(l->err, sizeof(l->err), "bad character at '%.20s'", s);
		return;
	}
	/* perf removes the backslashes of escaped characters from ids */
	for (i = 0, o = 0; i < sl; i++) {
		if (s[i] == '\\')
			i++;
		l->buf[o++] = s[i];
	}
	l->buf[o] = 0;
	l->s = s + sl;
	if (!strcmp(l->buf, "if") && sl == 2)
		l->tok = T_IF;
	else if (!strcmp(l->buf, "else") && sl == 4)
		l->tok = T_ELSE;
	else if (!strcmp(l->buf, "min") && sl == 3)
		l->tok = T_MIN;
	else if (!strcmp(l->buf, "max") && sl == 3)
		l->tok = T_MAX;
	else
		l->tok = T_ID;
}

static struct enode *mknode(enum nkind k)
{
	struct enode *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	n->kind = k;
	n->metric = -2;
	n->event = -1;
	return n;
}

void free_node(struct enode *n)
{
	if (!n)
		return;
	free_node(n->a);
	free_node(n->b);
	free_node(n->c);
	free(n->id);
	free(n);
}

static bool is_op(struct lexer *l, char c)
{
	return l->tok == T_OP && l->buf[0] == c;
}

static struct enode *p_if(struct lexer *l);
static struct enode *p_bin(struct lexer *l, int prec);

static bool is_func(const char *id)
{
	return !strcmp(id, "d_ratio") || !strcmp(id, "source_count") ||
	       !strcmp(id, "has_event") || !strcmp(id, "strcmp_cpuid_str");
}

/*
 * A call's "(a)" or "(a, b)" after its name, into @n's a and b; @two: b
 * is wanted. 0, or -1 on a syntax error.
 */
static int p_args(struct lexer *l, struct enode *n, bool two)
{
	if (!is_op(l, '('))
		return -1;
	lex(l);
	n->a = p_if(l);
	if (!n->a)
		return -1;
	if (is_op(l, ',')) {
		lex(l);
		n->b = p_if(l);
	}
	if ((two && !n->b) || !is_op(l, ')'))
		return -1;
	lex(l);
	return 0;
}

static struct enode *p_unary(struct lexer *l)
{
	struct enode *n = NULL;

	if (l->tok == T_ERR)
		return NULL;
	if (is_op(l, '-')) {
		lex(l);
		n = mknode(N_NEG);
		n->a = p_unary(l);
		if (!n->a)
			goto fail;
		return n;
	}
	if (is_op(l, '(')) {
		lex(l);
		n = p_if(l);
		if (!n || !is_op(l, ')'))
			goto fail;
		lex(l);
		return n;
	}
	if (l->tok == T_MIN || l->tok == T_MAX) {
		n = mknode(l->tok == T_MIN ? N_MIN : N_MAX);
		lex(l);
		if (p_args(l, n, true))
			goto fail;
		return n;
	}
	if (l->tok == T_NUM) {
		n = mknode(N_NUM);
		n->num = l->num;
		lex(l);
		return n;
	}
	if (l->tok == T_ID && is_func(l->buf)) {
		/* d_ratio(a, b), has_event(id), source_count(id), ... */
		n = mknode(N_FUNC);
		n->id = strdup(l->buf);
		lex(l);
		if (p_args(l, n, false))
			goto fail;
		return n;
	}
	if (l->tok == T_ID || l->tok == T_LIT) {
		n = mknode(l->tok == T_ID ? N_ID : N_LIT);
		n->id = strdup(l->buf);
		lex(l);
		return n;
	}
fail:
	if (!l->err[0])
		snprintf(l->err, sizeof(l->err), "syntax error at '%.20s'",
			 l->s);
	free_node(n);
	return NULL;
}

/* expr.y precedence, lowest first: | ^ & <> +- * / % */
static int prec_of(struct lexer *l)
{
	if (l->tok != T_OP)
		return -1;
	switch (l->buf[0]) {
	case '|': return 0;
	case '^': return 1;
	case '&': return 2;
	case '<': case '>': return 3;
	case '+': case '-': return 4;
	case '*': case '/': case '%': return 5;
	}
	return -1;
}

/* precedence climbing; every binary operator is left-associative */
static struct enode *p_bin(struct lexer *l, int prec)
{
	struct enode *lhs = p_unary(l), *n;
	int p, op;

	while (lhs && (p = prec_of(l)) >= prec) {
		op = l->buf[0];
		lex(l);
		n = mknode(N_BIN);
		n->op = op;
		n->a = lhs;
		n->b = p_bin(l, p + 1);
		lhs = n;
		if (!n->b) {
			free_node(n);
			return NULL;
		}
	}
	return lhs;
}

/* if_expr: expr IF expr ELSE if_expr | expr */
static struct enode *p_if(struct lexer *l)
{
	struct enode *e = p_bin(l, 0), *n;

	if (!e || l->tok != T_IF)
		return e;
	lex(l);
	n = mknode(N_IF);
	n->a = e;
	n->b = p_bin(l, 0);
	if (!n->b || l->tok != T_ELSE) {
		if (!l->err[0])
			snprintf(l->err, sizeof(l->err), "if without else");
		free_node(n);
		return NULL;
	}
	lex(l);
	n->c = p_if(l);
	if (!n->c) {
		free_node(n);
		return NULL;
	}
	return n;
}

struct enode *parse_expr(const char *s, char *err, size_t errlen)
{
	struct lexer l = { .s = s };
	struct enode *n;

	lex(&l);
	n = p_if(&l);
	if (n && l.tok != T_END) {
		snprintf(l.err, sizeof(l.err), "trailing '%.20s'", l.s);
		free_node(n);
		n = NULL;
	}
	if (!n)
		snprintf(err, errlen, "%s", l.err[0] ? l.err : "parse error");
	return n;
}
