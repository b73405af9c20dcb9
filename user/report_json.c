// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, built with json-c (never by hand). One document:
 *
 * {
 *   "model": "software", "level": 0, "smt": false,
 *   "duration_ns": 5000000000,
 *   "interval": 3,                 only in interval reports (-I)
 *   "lost": { "map_full": 0, "read_errors": 0 },
 *   "nr_total": 14,                tasks before --top
 *   "tasks": [ {
 *     "tid": 1234, "pid": 1230,    tid 0 for a folded row of several
 *     "comm": "worker-1",          tasks, pid 0 when they differ
 *     "on_cpu_ns", "runq_wait_ns", "off_cpu_ns": integers,
 *     "switches": voluntary + involuntary,
 *     "voluntary", "involuntary", "migrations": integers,
 *     "exited": bool,
 *     "nr_tasks": N,               only for folded rows (--per-name)
 *     "coverage": 0..1,            min running/enabled over the groups
 *     "low_coverage": bool,
 *     "sched": "-" | "CPU-starved" | "blocked" | "idle",
 *     "counters": { EVENT: scaled count, in the event's raw unit
 *                   (cpu-clock in ns); null when never counted },
 *     "metrics": { tma_NAME: percent (value * 100, exactly the
 *                  formula's value: not clamped, not rounded); null when
 *                  not computable }   only when the model decodes,
 *     "bottleneck": what the table's BOTTLENECK column says
 *   } ]
 * }
 *
 * Thread names can hold any byte. json-c escapes control characters and
 * quotes but copies other bytes as they are, so a name that is not valid
 * UTF-8 would make invalid JSON: each byte that does not belong to a
 * valid UTF-8 sequence is replaced by U+FFFD before json-c sees it.
 * NaN and infinities have no JSON spelling: they become null.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "report.h"

/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static json_object *json_string_utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, o = 0;
	char out[3 * 64 + 1];	/* comm and names are short; cut if not */

	while (i < n && o + 4 <= sizeof(out)) {
		size_t len = utf8_seq(s + i, n - i);

		if (len) {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return json_object_new_string(out);
}

/* Integral counts stay integers; NaN and infinity become null. */
static json_object *json_number(double v)
{
	if (!isfinite(v))
		return NULL;
	if (v == floor(v) && fabs(v) < 9007199254740992.0)	/* 2^53 */
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
}

static json_object *json_u64(__u64 v)
{
	return json_object_new_uint64(v);
}

static json_object *task_json(const struct report *rep,
			      const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	json_object *o = json_object_new_object(), *ctr, *met;
	int s, i;

	json_object_object_add(o, "tid", json_object_new_int64(r->tid));
	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(o, "comm", json_string_utf8(r->comm));
	json_object_object_add(o, "on_cpu_ns", json_u64(r->on_cpu_ns));
	json_object_object_add(o, "runq_wait_ns", json_u64(r->runq_wait_ns));
	json_object_object_add(o, "off_cpu_ns", json_u64(r->off_cpu_ns));
	json_object_object_add(o, "switches", json_u64(r->nvcsw + r->nivcsw));
	json_object_object_add(o, "voluntary", json_u64(r->nvcsw));
	json_object_object_add(o, "involuntary", json_u64(r->nivcsw));
	json_object_object_add(o, "migrations", json_u64(r->migrations));
	json_object_object_add(o, "exited", json_object_new_boolean(r->exited));
	if (r->nr_tasks > 1)
		json_object_object_add(o, "nr_tasks",
				       json_object_new_int(r->nr_tasks));
	json_object_object_add(o, "coverage", json_number(d->coverage));
	json_object_object_add(o, "low_coverage",
			       json_object_new_boolean(d->low_coverage));
	json_object_object_add(o, "sched", json_object_new_string(
					       sched_verdict_str(d->sched)));

	ctr = json_object_new_object();
	for (s = 0; m && s < p->nr && s < TDBPF_MAX_EVENTS; s++)
		json_object_object_add(ctr, m->events[p->ev[s]].name,
				       json_number(d->ev[s]));
	json_object_object_add(o, "counters", ctr);

	if (d->has_tma) {
		met = json_object_new_object();
		for (i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
			if (m->nodes[i].level <= rep->level)
				json_object_object_add(met, m->nodes[i].name,
					json_number(d->tma.val[i] * 100));
		json_object_object_add(o, "metrics", met);
	}
	json_object_object_add(o, "bottleneck",
			       json_string_utf8(d->bottleneck));
	return o;
}

void report_write_json(FILE *f, const struct report *rep, bool line)
{
	const struct event_plan *p = rep->plan;
	int flags = (line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY) |
		    JSON_C_TO_STRING_NOSLASHESCAPE;
	json_object *root = json_object_new_object(), *lost, *task;
	const char *head;
	size_t n;
	int i;

	json_object_object_add(root, "model",
			       json_object_new_string(p && p->model ?
						      p->model->name : "none"));
	json_object_object_add(root, "level", json_object_new_int(rep->level));
	json_object_object_add(root, "smt",
			       json_object_new_boolean(p && p->smt));
	json_object_object_add(root, "duration_ns", json_u64(rep->duration_ns));
	if (rep->interval >= 0)
		json_object_object_add(root, "interval",
				       json_object_new_int(rep->interval));
	lost = json_object_new_object();
	json_object_object_add(lost, "map_full", json_u64(rep->lost_map_full));
	json_object_object_add(lost, "read_errors",
			       json_u64(rep->lost_read_err));
	json_object_object_add(root, "lost", lost);
	json_object_object_add(root, "nr_total",
			       json_object_new_int(rep->nr_total));

	/*
	 * The document is streamed: the top level without its closing
	 * brace, then the tasks one json-c object at a time, so that 10,000
	 * tasks never sit in memory as one tree (it took 45 MiB and most of
	 * the report time). Every value is still written by json-c.
	 */
	head = json_object_to_json_string_ext(root, flags);
	n = strlen(head);
	while (n && head[n - 1] != '}')
		n--;
	if (n)
		n--;
	while (n && (head[n - 1] == ' ' || head[n - 1] == '\n'))
		n--;
	fwrite(head, 1, n, f);
	fputs(line ? ",\"tasks\":[" : ",\n  \"tasks\":[\n", f);
	for (i = 0; i < rep->nr; i++) {
		task = task_json(rep, &rep->tasks[i]);
		if (i)
			fputs(line ? "," : ",\n", f);
		fputs(json_object_to_json_string_ext(task, flags), f);
		json_object_put(task);
	}
	fputs(line ? "]}\n" : "\n  ]\n}\n", f);
	json_object_put(root);
}
