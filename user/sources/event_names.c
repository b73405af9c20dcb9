// SPDX-License-Identifier: GPL-2.0
/*
 * What -e takes on this machine (event_names.h), as perf list finds it:
 * the PMUs' named events under sysfs, and tracefs's tracepoints.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sources/event_names.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @dir not starting with '.', sorted; NULL if none. */
static char **sorted_dir(const char *dir, size_t *n)
{
	char **v = NULL, **nv;
	size_t cap = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	*n = 0;
	if (!dp)
		return NULL;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[*n] = strdup(d->d_name);
		if (v[*n])
			(*n)++;
	}
	closedir(dp);
	if (v)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static void free_dir(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

bool event_names_have_cpu_pmu(const struct evsel_env *env)
{
	char path[512];
	struct stat st;
	size_t n, i;
	char **v;
	bool found;

	snprintf(path, sizeof(path), "%s/cpu", env->pmu_dir);
	if (!stat(path, &st))
		return true;
	/* Arm's core PMUs: armv8_pmuv3_0, armv8_cortex_a72, ... */
	v = sorted_dir(env->pmu_dir, &n);
	for (i = 0, found = false; i < n && !found; i++)
		found = !strncmp(v[i], "armv8", 5);
	free_dir(v, n);
	return found;
}

void event_names_each(const struct evsel_env *env, event_name_fn each,
		      void *ctx)
{
	char path[1100], name[512];
	size_t np, ne, i, j;
	char **pmus, **evs;

	pmus = sorted_dir(env->pmu_dir, &np);
	for (i = 0; i < np; i++) {
		snprintf(path, sizeof(path), "%s/%s/events", env->pmu_dir,
			 pmus[i]);
		evs = sorted_dir(path, &ne);
		for (j = 0; j < ne; j++) {
			/* .scale, .unit: an event's attributes, not events */
			if (strchr(evs[j], '.'))
				continue;
			snprintf(name, sizeof(name), "%s/%s/", pmus[i], evs[j]);
			each(ctx, EVENT_PMU, name);
		}
		free_dir(evs, ne);
	}
	free_dir(pmus, np);
	if (!env->tracefs)
		return;
	snprintf(path, sizeof(path), "%s/events", env->tracefs);
	pmus = sorted_dir(path, &np);
	for (i = 0; i < np; i++) {
		snprintf(name, sizeof(name), "%s/events/%s", env->tracefs,
			 pmus[i]);
		evs = sorted_dir(name, &ne);
		for (j = 0; j < ne; j++) {
			/* the subsystem's enable and filter files */
			snprintf(path, sizeof(path), "%s/%s/id", name, evs[j]);
			if (access(path, F_OK))
				continue;
			snprintf(path, sizeof(path), "%s:%s", pmus[i], evs[j]);
			each(ctx, EVENT_TRACEPOINT, path);
		}
		free_dir(evs, ne);
	}
	free_dir(pmus, np);
}
