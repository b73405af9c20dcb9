// SPDX-License-Identifier: GPL-2.0
/* The tests' accessors of a JSON report (json_get.h). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "json_get.h"

json_object *jfind(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key \"%s\" missing", key);
	return v;
}

bool jhas(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

const char *jstr_of(json_object *o, const char *key)
{
	return json_object_get_string(jget(o, key));
}

int64_t jint(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return INT64_MIN;
	return json_object_get_int64(v);
}

double jdouble(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

bool jbool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_get_boolean(v);
}

double jcounter(json_object *task, const char *name)
{
	json_object *c, *v;

	if (!json_object_object_get_ex(task, "counters", &c) ||
	    !json_object_object_get_ex(c, name, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

json_object *jedges(json_object *doc)
{
	json_object *g = jfind(doc, "graph");

	return g ? jfind(g, "edges") : NULL;
}

/* Whether @el's string member @by is @val (any @el when @by is NULL). */
static bool jelem_is(json_object *el, const char *by, const char *val)
{
	const char *s;

	if (!by)
		return true;
	s = jstr(el, by);
	return s && !strcmp(s, val);
}

json_object *jelem(json_object *o, const char *key, const char *by,
		   const char *val)
{
	json_object *arr = jget(o, key), *el;
	size_t i;

	jarray_each(arr, i, el)
		if (jelem_is(el, by, val))
			return el;
	return NULL;
}

double jsum(json_object *o, const char *key, const char *name,
	    const char *by, const char *val)
{
	json_object *arr = jget(o, key), *el;
	double sum = 0;
	size_t i;

	jarray_each(arr, i, el)
		if (jelem_is(el, by, val))
			sum += (double)jint(el, name);
	return sum;
}
