/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --status: the boot's story from the records, the queue and device-mapper, as a table or JSON. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "activate/dm.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "cmd.h"
#include "json.h"
#include "state/status.h"

/* The JSON document's version: bumped when a member changes meaning or goes. */
#define STATUS_JSON_VERSION 1
/* Devices that are simply not PVs or filtered out, named in the table before "and N more". */
#define ROUTINE_NAMES_MAX 8U
/* The VG column of the table: wider names push their row's other columns right. */
#define VG_COLUMN 16

enum colour { NONE, RED, YELLOW, GREEN };

struct out {
	bool colour;
	bool details; /* -v: every VG's details, not only those with a problem */
	uint64_t now_us; /* CLOCK_MONOTONIC, as the records' times */
};

static const char *paint(const struct out *o, enum colour c)
{
	static const char *const seq[] = { "\033[0m", "\033[31m", "\033[33m", "\033[32m" };

	return o->colour ? seq[c] : "";
}

static const char *state_name(enum pf_status_vg_state s)
{
	switch (s) {
	case PF_STATUS_VG_COMPLETE: return "complete";
	case PF_STATUS_VG_INCOMPLETE: return "incomplete";
	case PF_STATUS_VG_REFUSED: return "refused";
	case PF_STATUS_VG_DEGRADED: return "degraded";
	}
	return "?";
}

/* A time as seconds since boot ("-" for none), for the table. */
static const char *at(char *buf, size_t size, uint64_t us)
{
	if (!us)
		return "-";
	(void)snprintf(buf, size, "%llu.%03llus", (unsigned long long)(us / 1000000U),
		       (unsigned long long)(us / 1000U % 1000U));
	return buf;
}

static const char *span_ms(char *buf, size_t size, uint64_t from, uint64_t to)
{
	if (!from || !to || to < from)
		return "-";
	(void)snprintf(buf, size, "%llu ms", (unsigned long long)((to - from) / 1000U));
	return buf;
}

static unsigned lvs_active(const struct pf_status_vg *vg)
{
	unsigned n = 0;

	for (size_t i = 0; i < vg->n_lvs; i++)
		n += vg->lvs[i].active;
	return n;
}

/* A string from the log or from disk, made safe for a terminal. */
static const char *esc(const char *s, char *buf, size_t size)
{
	return pf_str_escape(s, buf, size);
}

/* One row of the table: the VG at a glance. */
static void text_row(const struct out *o, const struct pf_status_vg *vg)
{
	char a[32], b[32], c[32], act[64], e[4 * 256 + 1], r[4 * 256 + 1], w[4 * 256 + 32];
	char row[2048];
	enum colour col = !vg->ok ? RED : vg->state == PF_STATUS_VG_REFUSED ? YELLOW : NONE;
	size_t n;

	if (vg->how[0])
		(void)snprintf(act, sizeof(act), "%s %s %s", vg->how,
			       vg->act_res[0] ? vg->act_res : "...",
			       span_ms(c, sizeof(c), vg->act_begin_us, vg->act_end_us));
	else
		(void)snprintf(act, sizeof(act), "-");
	if (!vg->ok)
		esc(vg->problem, w, sizeof(w));
	else if (vg->state == PF_STATUS_VG_REFUSED)
		(void)snprintf(w, sizeof(w), "not autoactivated: %s",
			       esc(vg->refused, r, sizeof(r)));
	else
		w[0] = '\0';
	(void)snprintf(row, sizeof(row), "%-*s %-10s %4zu %10s %10s  %-24s %3u/%-3zu %s", VG_COLUMN,
		       esc(vg->name, e, sizeof(e)), state_name(vg->state), vg->n_pvs,
		       at(a, sizeof(a), vg->first_arrival_us), at(b, sizeof(b), vg->complete_us), act,
		       lvs_active(vg), vg->n_lvs, w);
	n = strlen(row);
	while (n && row[n - 1] == ' ')
		row[--n] = '\0';
	(void)printf("%s%s%s\n", paint(o, col), row, paint(o, NONE));
}

static void text_vg(const struct out *o, const struct pf_status *s, const struct pf_status_vg *vg)
{
	char a[32], b[32], c[32], e[4 * 256 + 1];
	enum colour col = !vg->ok ? RED : vg->state == PF_STATUS_VG_REFUSED ? YELLOW : GREEN;

	(void)printf("%sVG %s%s: %s", paint(o, col), esc(vg->name, e, sizeof(e)), paint(o, NONE),
		     state_name(vg->state));
	if (!vg->ok)
		(void)printf(" - %s%s%s", paint(o, RED), esc(vg->problem, e, sizeof(e)),
			     paint(o, NONE));
	else if (vg->state == PF_STATUS_VG_REFUSED)
		(void)printf(" - not autoactivated: %s", esc(vg->refused, e, sizeof(e)));
	(void)printf("\n");
	(void)printf("  PVs seen %zu, first arrived %s, last %s; complete %s\n", vg->n_pvs,
		     at(a, sizeof(a), vg->first_arrival_us), at(b, sizeof(b), vg->last_arrival_us),
		     at(c, sizeof(c), vg->complete_us));
	for (size_t i = 0; i < vg->n_missing; i++) {
		const struct pf_status_missing *m = &vg->missing[i];

		(void)printf("  %smissing PV %s%s, last seen on %s, %llu sectors\n", paint(o, RED),
			     m->pvid, paint(o, NONE), m->hint[0] ? esc(m->hint, e, sizeof(e)) : "?",
			     (unsigned long long)m->size_sectors);
	}
	if (vg->state == PF_STATUS_VG_INCOMPLETE && vg->n_missing < vg->need)
		(void)printf("  %u PVs missing (listed once at most 32 are)\n", vg->need);
	if (vg->claim_us)
		(void)printf("  claimed %s by pid %u%s\n", at(a, sizeof(a), vg->claim_us),
			     (unsigned)vg->claim_pid,
			     vg->claim_taken ? " (already claimed: lvm2 or an earlier run)" : "");
	if (vg->how[0]) {
		(void)printf("  activation %s: began %s, %s, took %s", vg->how,
			     at(a, sizeof(a), vg->act_begin_us),
			     vg->act_res[0] ? vg->act_res : "not ended",
			     span_ms(b, sizeof(b), vg->act_begin_us, vg->act_end_us));
		if (vg->act_status >= 0)
			(void)printf(", lvm2 exit status %d", vg->act_status);
		(void)printf("\n");
	}
	if (vg->act_why[0])
		(void)printf("    %s\n", esc(vg->act_why, e, sizeof(e)));
	if (vg->dg) {
		(void)printf("  degraded activation: %s, deadline %u s after its first PV (%s)",
			     vg->dg_state, vg->dg_timeout_sec, at(a, sizeof(a), vg->dg_first_seen_us));
		if (vg->dg_lvm_status >= 0)
			(void)printf(", lvm2 exit status %d", vg->dg_lvm_status);
		(void)printf("%s%s\n", vg->dg_reason[0] ? ": " : "",
			     esc(vg->dg_reason, e, sizeof(e)));
	}
	if (vg->n_lvs)
		(void)printf("  LVs active now %u of %zu%s\n", lvs_active(vg), vg->n_lvs,
			     s->dm_available ? "" : " (no device-mapper)");
	for (size_t i = 0; i < vg->n_lvs; i++) {
		const struct pf_status_lv *lv = &vg->lvs[i];
		char w[4 * 256 + 1];

		(void)printf("    %-24s %-8s %s%s%s\n", esc(lv->name, e, sizeof(e)),
			     lv->active ? "active" : "inactive", lv->res[0] ? lv->res : "(by lvm2)",
			     lv->why[0] ? ": " : "", esc(lv->why, w, sizeof(w)));
	}
}

/* Devices that failed, timed out or are duplicates one by one; the many that are simply
   not PVs or filtered out as a count and their first few names. */
static bool routine(const struct pf_status_dev *d)
{
	return strcmp(d->res, "not-lvm") == 0 || strcmp(d->res, "excluded") == 0;
}

static void text_routine(const struct pf_status *s, const char *res, const char *what)
{
	char e[4 * 128 + 1];
	size_t n = 0;

	for (size_t i = s->n_devs; i-- > 0;) {
		const struct pf_status_dev *d = &s->devs[i];

		if (strcmp(d->res, res) != 0)
			continue;
		if (n == 0)
			(void)printf("  %s:", what);
		if (n < ROUTINE_NAMES_MAX)
			(void)printf(" %s", esc(d->name[0] ? d->name : "?", e, sizeof(e)));
		n++;
	}
	if (n > ROUTINE_NAMES_MAX)
		(void)printf(" and %zu more (--json lists them with reasons)", n - ROUTINE_NAMES_MAX);
	if (n)
		(void)printf("\n");
}

static void text_devs(const struct out *o, const struct pf_status *s)
{
	char e[4 * 128 + 1], w[4 * 256 + 1], c[4 * 128 + 1];

	(void)printf("\nDevices not used (newest first):\n");
	for (size_t i = s->n_devs; i-- > 0;) {
		const struct pf_status_dev *d = &s->devs[i];
		bool bad = strcmp(d->res, "timeout") == 0 || strcmp(d->res, "failed") == 0;

		if (routine(d))
			continue;
		(void)printf("  %s%-20s %-10s%s %s%s%s%s\n", paint(o, bad ? RED : NONE),
			     esc(d->name[0] ? d->name : "?", e, sizeof(e)), d->res, paint(o, NONE),
			     esc(d->why, w, sizeof(w)), d->chosen[0] ? " (used: " : "",
			     esc(d->chosen, c, sizeof(c)), d->chosen[0] ? ")" : "");
	}
	text_routine(s, "not-lvm", "not PVs");
	text_routine(s, "excluded", "excluded by filters or device type");
}

static void text(const struct out *o, const struct pf_status *s)
{
	char a[32], e[4 * 256 + 1];
	size_t bad = 0;

	for (size_t i = 0; i < s->n_vgs; i++)
		bad += !s->vgs[i].ok;
	(void)printf("%spvscan-fast status: %s%s; %zu VG%s seen since boot, %zu with a problem\n",
		     paint(o, s->healthy ? GREEN : RED), s->healthy ? "healthy" : "NOT healthy",
		     paint(o, NONE), s->n_vgs, s->n_vgs == 1 ? "" : "s", bad);
	(void)printf("Leader: %s", s->leader_pid ? "running, pid " : "not running");
	if (s->leader_pid)
		(void)printf("%u", (unsigned)s->leader_pid);
	(void)printf("; records: %zu (%zu unreadable)%s, now %s since boot\n", s->n_records,
		     s->n_bad, s->rotated ? ", oldest rotated away" : "",
		     at(a, sizeof(a), o->now_us));
	if (!s->dm_available)
		(void)printf("No device-mapper here: no LV is taken for active.\n");
	if (s->n_vgs)
		(void)printf("\n%-*s %-10s %4s %10s %10s  %-24s %7s %s\n", VG_COLUMN, "VG", "STATE",
			     "PVS", "ARRIVED", "COMPLETE", "ACTIVATION", "LVS", "PROBLEM");
	for (size_t i = 0; i < s->n_vgs; i++)
		text_row(o, &s->vgs[i]);
	for (size_t i = 0; i < s->n_vgs; i++) {
		if (s->vgs[i].ok && !o->details)
			continue;
		(void)printf("\n");
		text_vg(o, s, &s->vgs[i]);
	}
	if (s->n_devs)
		text_devs(o, s);
	if (s->n_entries) {
		(void)printf("\nQueue and journal%s:\n",
			     s->leftovers ? ", left by a leader that died" : "");
		for (size_t i = 0; i < s->n_entries; i++)
			(void)printf("  %s%s/%s%s  age %llu.%03llus%s\n",
				     paint(o, s->leftovers && !s->entries[i].held ? RED : NONE),
				     s->entries[i].queue, esc(s->entries[i].name, e, sizeof(e)),
				     paint(o, NONE),
				     (unsigned long long)(s->entries[i].age_us / 1000000U),
				     (unsigned long long)(s->entries[i].age_us / 1000U % 1000U),
				     s->entries[i].held ? " (held by a live process)" : "");
	}
}

static void json_us(struct pf_json *j, const char *key, uint64_t us)
{
	if (us)
		pf_json_u64(j, key, us);
	else
		pf_json_null(j, key);
}

static void json_str_or_null(struct pf_json *j, const char *key, const char *s)
{
	pf_json_str(j, key, s && *s ? s : NULL);
}

static void json_vg(struct pf_json *j, const struct pf_status_vg *vg)
{
	pf_json_obj_begin(j, NULL);
	pf_json_str(j, "name", vg->name);
	json_str_or_null(j, "id", vg->id);
	pf_json_str(j, "state", state_name(vg->state));
	json_str_or_null(j, "refused", vg->refused);
	pf_json_bool(j, "ok", vg->ok);
	json_str_or_null(j, "problem", vg->problem);
	pf_json_u64(j, "pvs_seen", vg->n_pvs);
	pf_json_u64(j, "need", vg->need);
	pf_json_arr_begin(j, "missing");
	for (size_t i = 0; i < vg->n_missing; i++) {
		pf_json_obj_begin(j, NULL);
		pf_json_str(j, "pvid", vg->missing[i].pvid);
		json_str_or_null(j, "hint", vg->missing[i].hint);
		pf_json_u64(j, "size_sectors", vg->missing[i].size_sectors);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);
	pf_json_bool(j, "activation_wanted", vg->act_wanted);
	json_us(j, "first_arrival_us", vg->first_arrival_us);
	json_us(j, "last_arrival_us", vg->last_arrival_us);
	json_us(j, "complete_us", vg->complete_us);
	if (vg->claim_us) {
		pf_json_obj_begin(j, "claim");
		pf_json_u64(j, "us", vg->claim_us);
		pf_json_u64(j, "pid", vg->claim_pid);
		pf_json_bool(j, "taken", vg->claim_taken);
		pf_json_obj_end(j);
	} else {
		pf_json_null(j, "claim");
	}
	if (vg->how[0]) {
		pf_json_obj_begin(j, "activation");
		pf_json_str(j, "how", vg->how);
		json_us(j, "begin_us", vg->act_begin_us);
		json_us(j, "end_us", vg->act_end_us);
		json_str_or_null(j, "result", vg->act_res);
		if (vg->act_status >= 0)
			pf_json_i64(j, "lvm2_status", vg->act_status);
		else
			pf_json_null(j, "lvm2_status");
		json_str_or_null(j, "why", vg->act_why);
		pf_json_obj_end(j);
	} else {
		pf_json_null(j, "activation");
	}
	if (vg->dg) {
		pf_json_obj_begin(j, "degraded");
		pf_json_str(j, "state", vg->dg_state);
		json_us(j, "first_seen_us", vg->dg_first_seen_us);
		pf_json_u64(j, "timeout_s", vg->dg_timeout_sec);
		if (vg->dg_lvm_status >= 0)
			pf_json_i64(j, "lvm2_status", vg->dg_lvm_status);
		else
			pf_json_null(j, "lvm2_status");
		json_str_or_null(j, "reason", vg->dg_reason);
		pf_json_obj_end(j);
	} else {
		pf_json_null(j, "degraded");
	}
	pf_json_arr_begin(j, "lvs");
	for (size_t i = 0; i < vg->n_lvs; i++) {
		const struct pf_status_lv *lv = &vg->lvs[i];

		pf_json_obj_begin(j, NULL);
		pf_json_str(j, "name", lv->name);
		json_str_or_null(j, "uuid", lv->uuid);
		json_str_or_null(j, "result", lv->res);
		json_str_or_null(j, "why", lv->why);
		pf_json_bool(j, "active", lv->active);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);
	pf_json_obj_end(j);
}

static void json(const struct out *o, const struct pf_status *s)
{
	struct pf_json j;
	char devno[24];

	pf_json_init(&j, stdout);
	pf_json_obj_begin(&j, NULL);
	pf_json_u64(&j, "version", STATUS_JSON_VERSION);
	pf_json_bool(&j, "healthy", s->healthy);
	pf_json_u64(&j, "now_us", o->now_us);
	pf_json_str(&j, "device_mapper", s->dm_available ? "available" : "unavailable");
	pf_json_obj_begin(&j, "records");
	pf_json_u64(&j, "read", s->n_records);
	pf_json_u64(&j, "unreadable", s->n_bad);
	pf_json_bool(&j, "rotated", s->rotated);
	json_us(&j, "first_us", s->first_us);
	json_us(&j, "last_us", s->last_us);
	pf_json_obj_end(&j);
	pf_json_obj_begin(&j, "leader");
	pf_json_bool(&j, "running", s->leader_pid != 0);
	if (s->leader_pid)
		pf_json_u64(&j, "pid", s->leader_pid);
	else
		pf_json_null(&j, "pid");
	pf_json_obj_end(&j);
	pf_json_bool(&j, "leftovers", s->leftovers);
	pf_json_arr_begin(&j, "queue");
	for (size_t i = 0; i < s->n_entries; i++) {
		pf_json_obj_begin(&j, NULL);
		pf_json_str(&j, "queue", s->entries[i].queue);
		pf_json_str(&j, "entry", s->entries[i].name);
		pf_json_u64(&j, "age_us", s->entries[i].age_us);
		pf_json_bool(&j, "held", s->entries[i].held);
		pf_json_obj_end(&j);
	}
	pf_json_arr_end(&j);
	pf_json_arr_begin(&j, "vgs");
	for (size_t i = 0; i < s->n_vgs; i++)
		json_vg(&j, &s->vgs[i]);
	pf_json_arr_end(&j);
	pf_json_arr_begin(&j, "devices");
	for (size_t i = s->n_devs; i-- > 0;) {
		const struct pf_status_dev *d = &s->devs[i];

		pf_json_obj_begin(&j, NULL);
		(void)snprintf(devno, sizeof(devno), "%u:%u", d->major, d->minor);
		pf_json_str(&j, "dev", devno);
		json_str_or_null(&j, "name", d->name);
		pf_json_str(&j, "result", d->res);
		json_str_or_null(&j, "why", d->why);
		json_str_or_null(&j, "pvid", d->pvid);
		json_str_or_null(&j, "chosen", d->chosen);
		pf_json_u64(&j, "us", d->t_us);
		pf_json_obj_end(&j);
	}
	pf_json_arr_end(&j);
	pf_json_obj_end(&j);
	pf_json_finish(&j);
}

/* What device-mapper has now, or that there is none (then nothing is active). */
static int ask_dm(const struct pf_opts *opts, const struct pf_paths *paths, struct pf_status *s)
{
	_cleanup_free_ struct pf_dm_dev *devs = NULL;
	_cleanup_free_ const char **uuids = NULL, **names = NULL;
	size_t n = 0, k = 0;
	int r;

	if (opts->driverloaded_no || !pf_dm_available(paths->dev))
		return pf_status_set_dm(s, false, NULL, NULL, 0);
	r = pf_dm_list(&devs, &n);
	pf_dm_release();
	if (r < 0) {
		pf_warn("  WARNING: cannot list device-mapper devices: %s; no LV is taken for "
			"active.", strerror(-r));
		return pf_status_set_dm(s, false, NULL, NULL, 0);
	}
	uuids = calloc(n ? n : 1, sizeof(*uuids));
	names = calloc(n ? n : 1, sizeof(*names));
	if (!uuids || !names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (devs[i].live) {
			uuids[k] = devs[i].uuid;
			names[k++] = devs[i].name;
		}
	return pf_status_set_dm(s, true, uuids, names, k);
}

static uint64_t realtime_us(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000U + (uint64_t)ts.tv_nsec / 1000U;
}

int pf_cmd_status(const struct pf_opts *opts)
{
	struct pf_paths paths = { 0 };
	_cleanup_free_ char *log = NULL;
	struct pf_status s;
	struct out o = { .colour = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !opts->json,
			 .details = opts->verbose > 0, .now_us = pf_now_ns() / 1000U };
	size_t len = 0;
	int r, status;

	if (pf_paths_from_env(&paths) < 0) {
		pf_err("  Out of memory.");
		return PF_EXIT_FAILED;
	}
	pf_status_init(&s);
	r = pf_records_read(paths.run, &log, &len);
	if (r < 0)
		pf_err("  Cannot read the records in %s: %s.", paths.run, strerror(-r));
	if (r == 0)
		r = pf_status_add_log(&s, pf_span_make(log, len));
	if (r == 0)
		r = pf_status_load_queue(&s, paths.run, paths.lock, paths.proc, realtime_us());
	if (r == 0)
		r = pf_status_load_degraded(&s, paths.run);
	if (r == 0)
		r = ask_dm(opts, &paths, &s);
	if (r < 0) {
		pf_err("  Cannot assemble the status: %s.", strerror(-r));
		pf_status_release(&s);
		pf_paths_release(&paths);
		return PF_EXIT_FAILED;
	}
	pf_status_judge(&s);
	if (opts->json)
		json(&o, &s);
	else
		text(&o, &s);
	status = s.healthy ? PF_EXIT_OK : PF_EXIT_FAILED;
	pf_status_release(&s);
	pf_paths_release(&paths);
	if (fflush(stdout) != 0)
		status = PF_EXIT_FAILED;
	return status;
}
