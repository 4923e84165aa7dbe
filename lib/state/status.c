/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --status: the record log, the queue and device-mapper's answer, assembled and judged. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/grow.h"
#include "base/strutil.h"
#include "state/coalesce.h"
#include "state/dgrecord.h"
#include "state/status.h"

/* /proc/locks holds a line per lock on the host; read no more than this of it. */
#define PROC_LOCKS_MAX (8U << 20)

void pf_status_init(struct pf_status *s)
{
	*s = (struct pf_status){ 0 };
}

void pf_status_release(struct pf_status *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_vgs; i++) {
		free(s->vgs[i].pvs);
		free(s->vgs[i].missing);
		free(s->vgs[i].lvs);
	}
	free(s->vgs);
	free(s->devs);
	free(s->arrivals);
	free(s->entries);
	*s = (struct pf_status){ 0 };
}

/* A bounded copy; values from the log may be longer than the field. */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

#define COPY(dst, src) copy((dst), sizeof(dst), (src))

static bool eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* "M:m" into major and minor. */
static bool parse_devno(const char *s, unsigned *ret_major, unsigned *ret_minor)
{
	uint64_t maj, min;

	if (!s || pf_scan_u64(&s, 0xfffU, &maj) < 0 || *s++ != ':' ||
	    pf_scan_u64(&s, 0xfffffU, &min) < 0 || *s)
		return false;
	*ret_major = (unsigned)maj;
	*ret_minor = (unsigned)min;
	return true;
}

static uint64_t num(const char *s, uint64_t dflt)
{
	uint64_t v;

	return s && pf_parse_u64(s, UINT64_MAX, &v) == 0 ? v : dflt;
}

static struct pf_status_vg *find_vg(struct pf_status *s, const char *name)
{
	for (size_t i = 0; i < s->n_vgs; i++)
		if (strcmp(s->vgs[i].name, name) == 0)
			return &s->vgs[i];
	return NULL;
}

static int vg_of(struct pf_status *s, const struct pf_records_entry *e,
		 struct pf_status_vg **ret)
{
	const char *name = pf_records_get(e, "vg");
	struct pf_status_vg *vg;
	int r;

	if (!name || !*name)
		return -EBADMSG;
	vg = find_vg(s, name);
	if (!vg) {
		r = pf_grow(&s->vgs, &s->cap_vgs, s->n_vgs + 1, PF_STATUS_VGS_MAX);
		if (r < 0)
			return r;
		vg = &s->vgs[s->n_vgs++];
		*vg = (struct pf_status_vg){ .act_status = -1 };
		COPY(vg->name, name);
	}
	if (pf_records_get(e, "vgid") && *pf_records_get(e, "vgid"))
		COPY(vg->id, pf_records_get(e, "vgid"));
	vg->last_us = e->t_us;
	*ret = vg;
	return 0;
}

static uint64_t arrival_of(const struct pf_status *s, unsigned major, unsigned minor,
			   uint64_t read_us)
{
	for (size_t i = 0; i < s->n_arrivals; i++)
		if (s->arrivals[i].major == major && s->arrivals[i].minor == minor &&
		    s->arrivals[i].arrived_us <= read_us)
			return s->arrivals[i].arrived_us;
	return read_us;
}

static int add_arrive(struct pf_status *s, const struct pf_records_entry *e)
{
	unsigned major, minor;
	int r;

	if (!parse_devno(pf_records_get(e, "dev"), &major, &minor))
		return -EBADMSG;
	/* the first since boot counts: a later change event is not an arrival */
	for (size_t i = 0; i < s->n_arrivals; i++)
		if (s->arrivals[i].major == major && s->arrivals[i].minor == minor)
			return 0;
	r = pf_grow(&s->arrivals, &s->cap_arrivals, s->n_arrivals + 1, PF_STATUS_DEVS_MAX);
	if (r < 0)
		return r;
	s->arrivals[s->n_arrivals++] =
		(struct pf_status_pv){ .major = major, .minor = minor, .arrived_us = e->t_us };
	return 0;
}

/* A PV of a VG read: when it arrived (its first arrival since boot, else this read). */
static int vg_add_pv(struct pf_status *s, struct pf_status_vg *vg, const char *pvid,
		     unsigned major, unsigned minor, uint64_t t_us)
{
	uint64_t at = arrival_of(s, major, minor, t_us);
	struct pf_status_pv *pv = NULL;
	int r;

	for (size_t i = 0; i < vg->n_pvs && !pv; i++)
		if (strcmp(vg->pvs[i].pvid, pvid) == 0)
			pv = &vg->pvs[i];
	if (!pv) {
		r = pf_grow(&vg->pvs, &vg->cap_pvs, vg->n_pvs + 1, PF_STATUS_ITEMS_MAX);
		if (r < 0)
			return r;
		pv = &vg->pvs[vg->n_pvs++];
		*pv = (struct pf_status_pv){ .major = major, .minor = minor, .arrived_us = at };
		COPY(pv->pvid, pvid);
	}
	if (!vg->first_arrival_us || at < vg->first_arrival_us)
		vg->first_arrival_us = at;
	if (pv->arrived_us > vg->last_arrival_us)
		vg->last_arrival_us = pv->arrived_us;
	return 0;
}

static int add_dev(struct pf_status *s, const struct pf_records_entry *e)
{
	const char *res = pf_records_get(e, "res"), *vgname = pf_records_get(e, "vg");
	struct pf_status_dev *d = NULL;
	unsigned major, minor;
	int r;

	if (!res || !parse_devno(pf_records_get(e, "dev"), &major, &minor))
		return -EBADMSG;
	/* the device's latest outcome is what holds now */
	for (size_t i = 0; i < s->n_devs && !d; i++)
		if (s->devs[i].major == major && s->devs[i].minor == minor)
			d = &s->devs[i];
	if (strcmp(res, "read") == 0) {
		struct pf_status_vg *vg;

		if (d) {
			memmove(d, d + 1, (size_t)(s->devs + s->n_devs - (d + 1)) * sizeof(*d));
			s->n_devs--;
		}
		if (!vgname || !*vgname || !pf_records_get(e, "pvid"))
			return 0;
		r = vg_of(s, e, &vg);
		if (r < 0)
			return r;
		if (eq(pf_records_get(e, "act"), "1"))
			vg->act_wanted = true;
		return vg_add_pv(s, vg, pf_records_get(e, "pvid"), major, minor, e->t_us);
	}
	if (!d) {
		r = pf_grow(&s->devs, &s->cap_devs, s->n_devs + 1, PF_STATUS_DEVS_MAX);
		if (r < 0)
			return r;
		d = &s->devs[s->n_devs++];
	}
	*d = (struct pf_status_dev){ .major = major, .minor = minor, .t_us = e->t_us };
	COPY(d->name, pf_records_get(e, "name"));
	COPY(d->res, res);
	COPY(d->why, pf_records_get(e, "why"));
	COPY(d->pvid, pf_records_get(e, "pvid"));
	COPY(d->chosen, pf_records_get(e, "chosen"));
	return 0;
}

static int add_pv(struct pf_status *s, const struct pf_records_entry *e)
{
	const char *state = pf_records_get(e, "state"), *why = pf_records_get(e, "why");
	struct pf_status_vg *vg;
	int r;

	if (!state)
		return -EBADMSG;
	if (!pf_records_get(e, "vg"))
		return 0;
	r = vg_of(s, e, &vg);
	if (r < 0)
		return r;
	/* what makes lvm2 leave the whole VG alone */
	if (eq(state, "foreign") || eq(state, "exported") || eq(state, "shared")) {
		vg->state = PF_STATUS_VG_REFUSED;
		(void)snprintf(vg->refused, sizeof(vg->refused), "%s%s%s", state,
			       why && *why ? ": " : "", why ? why : "");
	}
	return 0;
}

static int add_vg(struct pf_status *s, const struct pf_records_entry *e)
{
	const char *state = pf_records_get(e, "state");
	struct pf_status_vg *vg;
	int r = vg_of(s, e, &vg);

	if (r < 0)
		return r;
	if (eq(state, "complete")) {
		vg->state = PF_STATUS_VG_COMPLETE;
		vg->need = 0;
		vg->n_missing = 0;
		if (!vg->complete_us)
			vg->complete_us = e->t_us;
		vg->refused[0] = '\0';
	} else if (eq(state, "incomplete")) {
		vg->state = PF_STATUS_VG_INCOMPLETE;
		vg->need = (unsigned)num(pf_records_get(e, "need"), 0);
		vg->n_missing = 0; /* the missing records that follow say which now */
		vg->refused[0] = '\0';
	} else {
		return -EBADMSG;
	}
	return 0;
}

static int add_missing(struct pf_status *s, const struct pf_records_entry *e)
{
	const char *pvid = pf_records_get(e, "pvid");
	struct pf_status_vg *vg;
	struct pf_status_missing *m;
	int r;

	if (!pvid)
		return -EBADMSG;
	r = vg_of(s, e, &vg);
	if (r < 0)
		return r;
	for (size_t i = 0; i < vg->n_missing; i++)
		if (strcmp(vg->missing[i].pvid, pvid) == 0)
			return 0;
	r = pf_grow(&vg->missing, &vg->cap_missing, vg->n_missing + 1, PF_STATUS_ITEMS_MAX);
	if (r < 0)
		return r;
	m = &vg->missing[vg->n_missing++];
	*m = (struct pf_status_missing){ .size_sectors = num(pf_records_get(e, "size"), 0) };
	COPY(m->pvid, pvid);
	COPY(m->hint, pf_records_get(e, "hint"));
	return 0;
}

static int add_claim(struct pf_status *s, const struct pf_records_entry *e)
{
	struct pf_status_vg *vg;
	int r = vg_of(s, e, &vg);

	if (r < 0)
		return r;
	vg->claim_us = e->t_us;
	vg->claim_pid = e->pid;
	vg->claim_taken = eq(pf_records_get(e, "res"), "taken");
	return 0;
}

static int add_activate(struct pf_status *s, const struct pf_records_entry *e, bool end)
{
	struct pf_status_vg *vg;
	int r = vg_of(s, e, &vg);

	if (r < 0)
		return r;
	COPY(vg->how, pf_records_get(e, "how"));
	if (!end) {
		vg->act_begin_us = e->t_us;
		vg->act_end_us = 0;
		vg->act_res[0] = '\0';
		vg->act_why[0] = '\0';
		vg->act_status = -1;
		vg->n_lvs = 0; /* this activation's LV records follow */
		return 0;
	}
	vg->act_end_us = e->t_us;
	if (!vg->act_begin_us)
		vg->act_begin_us = e->t_us;
	COPY(vg->act_res, pf_records_get(e, "res"));
	COPY(vg->act_why, pf_records_get(e, "why"));
	vg->act_status = (int)num(pf_records_get(e, "status"), (uint64_t)-1);
	return 0;
}

static struct pf_status_lv *vg_lv(struct pf_status_vg *vg, const char *name, const char *uuid)
{
	for (size_t i = 0; i < vg->n_lvs; i++)
		if ((uuid && *uuid && strcmp(vg->lvs[i].uuid, uuid) == 0) ||
		    (name && *name && strcmp(vg->lvs[i].name, name) == 0))
			return &vg->lvs[i];
	if (pf_grow(&vg->lvs, &vg->cap_lvs, vg->n_lvs + 1, PF_STATUS_ITEMS_MAX) < 0)
		return NULL;
	vg->lvs[vg->n_lvs] = (struct pf_status_lv){ 0 };
	COPY(vg->lvs[vg->n_lvs].name, name);
	COPY(vg->lvs[vg->n_lvs].uuid, uuid);
	return &vg->lvs[vg->n_lvs++];
}

static int add_lv(struct pf_status *s, const struct pf_records_entry *e)
{
	struct pf_status_vg *vg;
	struct pf_status_lv *lv;
	int r = vg_of(s, e, &vg);

	if (r < 0)
		return r;
	if (!pf_records_get(e, "lv") || !pf_records_get(e, "res"))
		return -EBADMSG;
	lv = vg_lv(vg, pf_records_get(e, "lv"), pf_records_get(e, "uuid"));
	if (!lv)
		return -ENOMEM;
	COPY(lv->res, pf_records_get(e, "res"));
	COPY(lv->why, pf_records_get(e, "why"));
	return 0;
}

int pf_status_add(struct pf_status *s, const struct pf_records_entry *e)
{
	const char *k = e->kind;

	if (!s->first_us || e->t_us < s->first_us)
		s->first_us = e->t_us;
	if (e->t_us > s->last_us)
		s->last_us = e->t_us;
	if (strcmp(k, "arrive") == 0)
		return add_arrive(s, e);
	if (strcmp(k, "dev") == 0)
		return add_dev(s, e);
	if (strcmp(k, "pv") == 0)
		return add_pv(s, e);
	if (strcmp(k, "vg") == 0)
		return add_vg(s, e);
	if (strcmp(k, "missing") == 0)
		return add_missing(s, e);
	if (strcmp(k, "claim") == 0)
		return add_claim(s, e);
	if (strcmp(k, "activate") == 0)
		return add_activate(s, e, false);
	if (strcmp(k, "activated") == 0)
		return add_activate(s, e, true);
	if (strcmp(k, "lv") == 0)
		return add_lv(s, e);
	if (strcmp(k, "rotated") == 0)
		s->rotated = true;
	return 0; /* kinds of other versions, and round: nothing to assemble */
}

int pf_status_add_log(struct pf_status *s, struct pf_span buf)
{
	_cleanup_free_ struct pf_records_entry *e = calloc(1, sizeof(*e));
	size_t off = 0;
	int r;

	if (!e)
		return -ENOMEM;
	while ((r = pf_records_next(buf, &off, e)) >= 0) {
		if (r == 0) {
			s->n_bad++;
			continue;
		}
		s->n_records++;
		r = pf_status_add(s, e);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			s->n_bad++; /* a record that does not make sense: counted, skipped */
	}
	return 0;
}

/* The pid holding an flock on (dev, ino) per /proc/locks text, or 0. Waiters ("->") not. */
static uint32_t flock_holder(const char *locks, dev_t dev, ino_t ino)
{
	const char *line = locks;

	while (line && *line) {
		const char *next = strchr(line, '\n');
		unsigned long pid, maj, min;
		unsigned long long inode;
		char rw[16];

		if (sscanf(line, "%*u: FLOCK %*s %15s %lu %lx:%lx:%llu", rw, &pid, &maj, &min,
			   &inode) == 5 &&
		    maj == major(dev) && min == minor(dev) && inode == (unsigned long long)ino)
			return (uint32_t)pid;
		line = next ? next + 1 : NULL;
	}
	return 0;
}

static int add_entries(struct pf_status *s, int dir_fd, const char *queue, const char *locks,
		       uint64_t now_us)
{
	int fd = openat(dir_fd, queue, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct pf_status_entry *en;
		struct stat st;
		uint64_t mtime_us;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* taken meanwhile */
		r = pf_grow(&s->entries, &s->cap_entries, s->n_entries + 1, PF_STATUS_ITEMS_MAX);
		if (r < 0)
			break;
		en = &s->entries[s->n_entries++];
		*en = (struct pf_status_entry){ 0 };
		COPY(en->queue, queue);
		COPY(en->name, de->d_name);
		mtime_us = (uint64_t)st.st_mtim.tv_sec * 1000000U +
			   (uint64_t)st.st_mtim.tv_nsec / 1000U;
		en->age_us = now_us > mtime_us ? now_us - mtime_us : 0;
		en->held = locks && flock_holder(locks, st.st_dev, st.st_ino) != 0;
	}
	(void)closedir(d);
	return r;
}

int pf_status_load_queue(struct pf_status *s, const char *run_dir, const char *lock_dir,
			 const char *proc_dir, uint64_t now_realtime_us)
{
	static const char *const queues[] = { "pending", "inflight", "activate", "cookies" };
	_cleanup_free_ char *locks = NULL, *dir = NULL, *lock = NULL, *proc_locks = NULL;
	_cleanup_close_ int dir_fd = -1;
	size_t len;
	struct stat st;
	int r;

	if (asprintf(&dir, "%s/%s", run_dir, PF_COALESCE_DIR) < 0 ||
	    asprintf(&lock, "%s/%s", lock_dir, PF_COALESCE_LOCK) < 0 ||
	    asprintf(&proc_locks, "%s/locks", proc_dir) < 0)
		return -ENOMEM;
	if (pf_read_file_at(AT_FDCWD, proc_locks, PROC_LOCKS_MAX, &locks, &len) < 0)
		locks = NULL; /* no /proc: nobody is known to hold anything */
	if (locks && stat(lock, &st) == 0)
		s->leader_pid = flock_holder(locks, st.st_dev, st.st_ino);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return errno == ENOENT ? 0 : -errno;
	for (size_t i = 0; i < sizeof(queues) / sizeof(queues[0]); i++) {
		r = add_entries(s, dir_fd, queues[i], locks, now_realtime_us);
		if (r < 0)
			return r;
	}
	return 0;
}

int pf_status_load_degraded(struct pf_status *s, const char *run_dir)
{
	_cleanup_free_ struct pf_dgrecord *recs = NULL;
	size_t n = 0;
	int r = pf_dgrecord_list(run_dir, &recs, &n);

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	for (size_t i = 0; i < n; i++) {
		struct pf_status_vg *vg = find_vg(s, recs[i].vg);

		if (!vg) {
			r = pf_grow(&s->vgs, &s->cap_vgs, s->n_vgs + 1, PF_STATUS_VGS_MAX);
			if (r < 0)
				return r;
			vg = &s->vgs[s->n_vgs++];
			*vg = (struct pf_status_vg){ .act_status = -1 };
			COPY(vg->name, recs[i].vg);
		}
		vg->dg = true;
		COPY(vg->dg_state, pf_dgrecord_state_name(recs[i].state));
		vg->dg_first_seen_us = recs[i].first_seen_ns / 1000U;
		vg->dg_timeout_sec = recs[i].timeout_sec;
		vg->dg_lvm_status = recs[i].lvm_status;
		COPY(vg->dg_reason, recs[i].reason);
	}
	return 0;
}

/* The LV name in a dm name "VG-LV" (lvm2 doubles '-' inside each), for a VG named vg. */
static bool dm_lv_name(const char *dm_name, const char *vg, char *out, size_t size)
{
	const char *p = dm_name;
	size_t n = 0;

	for (const char *v = vg; *v; v++) {
		if (*p != *v)
			return false;
		p++;
		if (*v == '-' && *p++ != '-')
			return false;
	}
	if (*p++ != '-' || *p == '-')
		return false;
	while (*p && n + 1 < size) {
		out[n++] = *p;
		p += p[0] == '-' && p[1] == '-' ? 2 : 1;
	}
	out[n] = '\0';
	return n > 0;
}

int pf_status_set_dm(struct pf_status *s, bool available, const char *const *uuids,
		     const char *const *names, size_t n)
{
	s->dm_known = true;
	s->dm_available = available;
	for (size_t v = 0; v < s->n_vgs; v++) {
		struct pf_status_vg *vg = &s->vgs[v];
		char prefix[40];

		if (strlen(vg->id) != 32)
			continue;
		(void)snprintf(prefix, sizeof(prefix), "LVM-%s", vg->id);
		for (size_t i = 0; i < n; i++) {
			struct pf_status_lv *lv = NULL;
			char name[128];

			/* LVM-<vg id><lv id>, and lvm2's suffixes (-real, -cow, -pool) after */
			if (strncmp(uuids[i], prefix, strlen(prefix)) != 0 ||
			    strlen(uuids[i]) != strlen(prefix) + 32)
				continue;
			for (size_t k = 0; k < vg->n_lvs && !lv; k++)
				if (strcmp(vg->lvs[k].uuid, uuids[i]) == 0)
					lv = &vg->lvs[k];
			if (!lv) {
				if (!dm_lv_name(names[i], vg->name, name, sizeof(name)))
					COPY(name, names[i]);
				lv = vg_lv(vg, name, uuids[i]);
				if (!lv)
					return -ENOMEM;
			}
			/* an LV recorded without its UUID (found active already) is known by name */
			if (!lv->uuid[0])
				COPY(lv->uuid, uuids[i]);
			lv->active = true;
		}
	}
	return 0;
}

static void problem(struct pf_status_vg *vg, const char *fmt, ...) _printf_(2, 3);
static void problem(struct pf_status_vg *vg, const char *fmt, ...)
{
	va_list ap;

	vg->ok = false;
	va_start(ap, fmt);
	(void)vsnprintf(vg->problem, sizeof(vg->problem), fmt, ap);
	va_end(ap);
}

static void judge_vg(const struct pf_status *s, struct pf_status_vg *vg)
{
	size_t down = 0;
	const char *first_down = NULL;

	vg->ok = true;
	vg->problem[0] = '\0';
	if (vg->state == PF_STATUS_VG_REFUSED)
		return; /* autoactivation intends it down */
	/* up without some of its PVs: what was asked for, and still not the VG complete */
	if (vg->state == PF_STATUS_VG_INCOMPLETE &&
	    ((eq(vg->how, "degraded") && eq(vg->act_res, "ok")) ||
	     (vg->dg && eq(vg->dg_state, "degraded")))) {
		vg->state = PF_STATUS_VG_DEGRADED;
		problem(vg, "degraded: %u PV%s missing, activated without", vg->need,
			vg->need == 1 ? "" : "s");
		return;
	}
	if (vg->state == PF_STATUS_VG_INCOMPLETE && vg->dg) {
		problem(vg, "incomplete: %u PV%s missing; degraded activation %s%s%s", vg->need,
			vg->need == 1 ? "" : "s", vg->dg_state, vg->dg_reason[0] ? ": " : "",
			vg->dg_reason);
		return;
	}
	if (vg->state == PF_STATUS_VG_INCOMPLETE) {
		problem(vg, "incomplete: %u PV%s missing", vg->need, vg->need == 1 ? "" : "s");
		return;
	}
	if (vg->act_begin_us && !vg->act_res[0]) {
		problem(vg, "activation (%s) began and did not end", vg->how);
		return;
	}
	if (vg->act_res[0] && !eq(vg->act_res, "ok") && !eq(vg->act_res, "handed") &&
	    !eq(vg->act_res, "failed")) {
		problem(vg, "activation (%s) %s%s%s", vg->how, vg->act_res,
			vg->act_why[0] ? ": " : "", vg->act_why);
		return;
	}
	if (eq(vg->act_res, "failed")) {
		if (vg->act_status >= 0)
			problem(vg, "activation by lvm2 failed (exit status %d)", vg->act_status);
		else
			problem(vg, "activation failed%s%s", vg->act_why[0] ? ": " : "",
				vg->act_why);
		return;
	}
	if (vg->act_wanted && !vg->claim_us && !vg->act_begin_us) {
		problem(vg, "complete, not claimed for activation");
		return;
	}
	if (!s->dm_known || !s->dm_available)
		return;
	for (size_t i = 0; i < vg->n_lvs; i++) {
		const struct pf_status_lv *lv = &vg->lvs[i];

		if ((eq(lv->res, "loaded") || eq(lv->res, "active")) && !lv->active) {
			if (!down++)
				first_down = lv->name;
		}
	}
	if (down)
		problem(vg, "%zu LV%s activated but not active now (%s%s)", down,
			down == 1 ? "" : "s", first_down, down > 1 ? ", ..." : "");
}

static int by_newest_problem(const void *a, const void *b)
{
	const struct pf_status_vg *x = a, *y = b;

	if (x->ok != y->ok)
		return x->ok ? 1 : -1;
	if (x->last_us != y->last_us)
		return x->last_us > y->last_us ? -1 : 1;
	return strcmp(x->name, y->name);
}

void pf_status_judge(struct pf_status *s)
{
	bool worker = s->leader_pid != 0;

	s->healthy = true;
	for (size_t i = 0; i < s->n_vgs; i++) {
		judge_vg(s, &s->vgs[i]);
		if (!s->vgs[i].ok)
			s->healthy = false;
	}
	if (s->n_vgs)
		qsort(s->vgs, s->n_vgs, sizeof(*s->vgs), by_newest_problem);
	/* a live leader works on its entries; without one, entries wait for nobody */
	s->leftovers = false;
	for (size_t i = 0; i < s->n_entries && !worker; i++)
		if (!s->entries[i].held)
			s->leftovers = true;
	if (s->leftovers)
		s->healthy = false;
}
