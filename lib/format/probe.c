/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-device decoding state machine: label -> mda header -> text -> VG, for
 * each mda; then, when asked, the end of the device for md superblocks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/probe.h"

void pf_probe_init(struct pf_probe *p, uint64_t dev_size_bytes)
{
	memset(p, 0, sizeof(*p));
	p->dev_size_bytes = dev_size_bytes;
	p->step = PF_PROBE_LABEL;
	p->label_status = 1;
	p->md_end_status = 1;
	p->head_status = -EINVAL;
	p->vg_index = -1;
	for (unsigned i = 0; i < PF_PROBE_MDAS; i++) {
		p->mdas[i].header_status = 1;
		p->mdas[i].text_status = 1;
		p->mdas[i].vg_status = 1;
	}
}

void pf_probe_release(struct pf_probe *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < PF_PROBE_MDAS; i++)
		p->mdas[i].vg = pf_vg_free(p->mdas[i].vg);
	free(p->text);
	p->text = NULL;
}

/*
 * Parsing a text builds a tree beside it until the VG is made from the tree: about twice
 * the text at the peak (a 64 MiB text of 27167 LVs: 228 MiB resident in all). That peak is
 * charged with the text, before the text is read, so that a text which could not also be
 * parsed within the budget is not read at all.
 */
#define PARSE_PEAK_FACTOR 2U

static uint64_t text_charge(const struct pf_mda_probe *m)
{
	return m->loc.total_bytes * (1U + PARSE_PEAK_FACTOR); /* at most PF_MDA_TEXT_MAX each */
}

/* Take n bytes of the budget; false (and nothing taken) when they do not fit. */
static bool charge(struct pf_probe *p, uint64_t n)
{
	struct pf_probe_budget *b = p->budget;

	if (!b)
		return true;
	if (n > b->limit - b->used) {
		p->over_budget = true;
		return false;
	}
	b->used += n;
	return true;
}

static void uncharge(struct pf_probe *p, uint64_t n)
{
	if (p->budget)
		p->budget->used -= n < p->budget->used ? n : p->budget->used;
}

/* True if [off, off+len) lies on the device. */
static bool on_device(const struct pf_probe *p, uint64_t off, uint64_t len)
{
	uint64_t end;

	return !pf_add_overflow_u64(off, len, &end) && end <= p->dev_size_bytes;
}

/*
 * lvm2 warns when a device is smaller than the PV it holds; activating LVs
 * whose extents lie past the end would map missing sectors, so say so.
 */
static void check_size(struct pf_probe *p)
{
	const struct pf_vg *vg = pf_probe_vg(p);
	uint64_t end;
	int i;

	if (p->label.device_size_bytes > p->dev_size_bytes) {
		p->size_status = -ERANGE;
		pf_diag_msg(&p->size_diag,
			    "device is %llu bytes, smaller than the %llu bytes recorded in its "
			    "pv_header: truncated or shrunk?",
			    (unsigned long long)p->dev_size_bytes,
			    (unsigned long long)p->label.device_size_bytes);
		return;
	}
	if (!vg || (i = pf_vg_find_pv(vg, p->label.pvid)) < 0)
		return;
	/* (pe_start + pe_count * extent_size) sectors, overflow-checked. */
	if (pf_mul_overflow_u64(vg->pvs[i].pe_count, vg->extent_size, &end) ||
	    pf_add_overflow_u64(end, vg->pvs[i].pe_start, &end) ||
	    pf_mul_overflow_u64(end, 512, &end) || end > p->dev_size_bytes) {
		p->size_status = -ERANGE;
		pf_diag_msg(&p->size_diag,
			    "the PV's %u extents end past the end of the device (%llu bytes)",
			    vg->pvs[i].pe_count, (unsigned long long)p->dev_size_bytes);
	}
}

static void pick_vg(struct pf_probe *p)
{
	const struct pf_vg *copies[PF_PROBE_MDAS];

	/* An ignored mda may hold a valid but stale copy: lvm2 never uses it. */
	for (unsigned i = 0; i < PF_PROBE_MDAS; i++)
		copies[i] = i < p->n_mdas && !p->mdas[i].ignored ? p->mdas[i].vg : NULL;
	p->vg_index = pf_vg_newest(copies, PF_PROBE_MDAS);
	check_size(p);
}

/*
 * Why pvscan would look at the end of this device (lvm2's _online_devs): the
 * PV, found in the VG it carries, records another size than the device has,
 * or was last written through /dev/md*. Both suggest an md member whose array
 * holds the PV. lvm2 compares whole sectors, and a missing dev_size as 0.
 */
static unsigned md_hints(const struct pf_probe *p)
{
	const struct pf_vg *vg = pf_probe_vg(p);
	const struct pf_vg_pv *pv;
	uint64_t dev_sectors = p->dev_size_bytes >> 9, pv_sectors;
	unsigned why = 0;
	int i;

	if (!vg || pf_pv_label_is_unused(&p->label) || (i = pf_vg_find_pv(vg, p->label.pvid)) < 0)
		return 0;
	pv = &vg->pvs[i];
	pv_sectors = pv->has_dev_size ? pv->dev_size : 0;
	if (dev_sectors && pv_sectors != dev_sectors)
		why |= pv_sectors ? PF_PROBE_MD_WHY_SIZE : PF_PROBE_MD_WHY_NO_SIZE;
	if (pv->device && !strncmp(pv->device, "/dev/md", 7))
		why |= PF_PROBE_MD_WHY_HINT;
	return why;
}

/* All mdas are done: look at the end of the device if md asks for it, else finish. */
static void finish_mdas(struct pf_probe *p)
{
	uint64_t off, len;

	p->step = PF_PROBE_DONE;
	pick_vg(p);
	if (p->md.when == PF_PROBE_MD_END_HINTED) {
		p->md_end_why = md_hints(p);
		if (!p->md_end_why)
			return;
	} else if (p->md.when != PF_PROBE_MD_END_ALWAYS) {
		return;
	}
	if (pf_mdsb_end_range(p->dev_size_bytes, p->md.lbs, &off, &len) < 0) {
		p->md_end_status = 0; /* too small for lvm2 to look */
		return;
	}
	p->step = PF_PROBE_MD_END;
}

/* Move to the next mda that can be read, or finish. Ranges off the device fail here. */
static void advance_mda(struct pf_probe *p, unsigned from)
{
	for (p->cur = from; p->cur < p->n_mdas; p->cur++) {
		struct pf_mda_probe *m = &p->mdas[p->cur];

		if (!on_device(p, m->locn.offset_bytes, PF_MDA_HEADER_SIZE)) {
			m->header_status = -ERANGE;
			pf_diag_at(&m->header_diag, m->locn.offset_bytes,
				   "mda%u header at byte %llu lies past the end of the device "
				   "(%llu bytes)",
				   p->cur + 1, (unsigned long long)m->locn.offset_bytes,
				   (unsigned long long)p->dev_size_bytes);
			continue;
		}
		p->step = PF_PROBE_MDA_HEADER;
		return;
	}
	finish_mdas(p);
}

int pf_probe_next(const struct pf_probe *p, uint64_t *ret_off, uint64_t *ret_len)
{
	const struct pf_mda_probe *m = &p->mdas[p->cur < PF_PROBE_MDAS ? p->cur : 0];

	switch (p->step) {
	case PF_PROBE_LABEL:
		*ret_off = 0;
		*ret_len = p->dev_size_bytes < PF_PROBE_HEAD_BYTES ? p->dev_size_bytes
								   : PF_PROBE_HEAD_BYTES;
		return 1;
	case PF_PROBE_MDA_HEADER:
		*ret_off = m->locn.offset_bytes;
		*ret_len = PF_MDA_HEADER_SIZE;
		return 1;
	case PF_PROBE_MDA_TEXT1:
		*ret_off = m->loc.offset1_bytes;
		*ret_len = m->loc.len1_bytes;
		return 1;
	case PF_PROBE_MDA_TEXT2:
		*ret_off = m->loc.offset2_bytes;
		*ret_len = m->loc.len2_bytes;
		return 1;
	case PF_PROBE_MD_END:
		/* cannot fail: checked before the step was taken */
		if (pf_mdsb_end_range(p->dev_size_bytes, p->md.lbs, ret_off, ret_len) < 0)
			break;
		return 1;
	case PF_PROBE_DONE:
		break;
	}
	return 0;
}

static void feed_label(struct pf_probe *p, const uint8_t *buf, size_t len)
{
	int r;

	if (len < PF_SECTOR_SIZE) {
		p->label_status = -ENODATA;
		pf_diag_at(&p->label_diag, 0, "device is smaller than one sector (%zu bytes)", len);
		p->step = PF_PROBE_DONE;
		return;
	}
	r = pf_label_find(pf_span_make(buf, len < PF_LABEL_SCAN_BYTES ? len : PF_LABEL_SCAN_BYTES),
			  &p->label, &p->label_diag);
	p->label_status = r;
	if (r < 0) {
		p->step = PF_PROBE_DONE;
		return;
	}
	p->head_status = pf_headsig_read(pf_span_make(buf, len), &p->head);
	p->n_mdas = p->label.n_mdas < PF_PROBE_MDAS ? p->label.n_mdas : PF_PROBE_MDAS;
	for (unsigned i = 0; i < p->n_mdas; i++)
		p->mdas[i].locn = p->label.mdas[i];
	advance_mda(p, 0);
}

static void feed_header(struct pf_probe *p, const uint8_t *buf, size_t len)
{
	struct pf_mda_probe *m = &p->mdas[p->cur];
	int r;

	r = pf_mda_header_decode(pf_span_make(buf, len), m->locn.offset_bytes,
				 &m->header, &m->header_diag);
	m->header_status = r;
	if (r < 0) {
		pf_diag_prefix(&m->header_diag, "mda%u: ", p->cur + 1);
		advance_mda(p, p->cur + 1);
		return;
	}
	m->ignored = pf_mda_is_ignored(&m->header);
	if (m->ignored && !p->read_ignored) {
		m->text_status = -ENODATA;
		pf_diag_at(&m->text_diag, m->locn.offset_bytes,
			   "mda%u is ignored (metadataignore): its text is not used", p->cur + 1);
		advance_mda(p, p->cur + 1);
		return;
	}
	r = pf_mda_text_locate(&m->header, &m->loc, &m->text_diag);
	if (r == 0 && (!on_device(p, m->loc.offset1_bytes, m->loc.len1_bytes) ||
		       !on_device(p, m->loc.offset2_bytes, m->loc.len2_bytes))) {
		r = -ERANGE;
		pf_diag_at(&m->text_diag, m->loc.offset1_bytes,
			   "metadata text lies past the end of the device (%llu bytes)",
			   (unsigned long long)p->dev_size_bytes);
	}
	m->text_status = r;
	if (r < 0) {
		pf_diag_prefix(&m->text_diag, "mda%u: ", p->cur + 1);
		advance_mda(p, p->cur + 1);
		return;
	}
	free(p->text);
	p->text = NULL;
	if (!charge(p, text_charge(m))) {
		m->text_status = -ENOMEM;
		pf_diag_msg(&m->text_diag,
			    "mda%u: %llu bytes of text do not fit in the scan's metadata memory "
			    "budget", p->cur + 1, (unsigned long long)m->loc.total_bytes);
		advance_mda(p, p->cur + 1);
		return;
	}
	p->text = malloc(m->loc.total_bytes);
	if (!p->text) {
		uncharge(p, text_charge(m));
		m->text_status = -ENOMEM;
		pf_diag_msg(&m->text_diag, "mda%u: out of memory for %llu bytes of text", p->cur + 1,
			    (unsigned long long)m->loc.total_bytes);
		advance_mda(p, p->cur + 1);
		return;
	}
	p->step = PF_PROBE_MDA_TEXT1;
}

static void finish_text(struct pf_probe *p)
{
	struct pf_mda_probe *m = &p->mdas[p->cur];
	struct pf_span part1 = pf_span_make(p->text, m->loc.len1_bytes);
	struct pf_span part2 = pf_span_make(p->text + m->loc.len1_bytes, m->loc.len2_bytes);
	int r;

	r = pf_mda_text_verify(&m->loc, part1, part2, &m->text_diag);
	m->text_status = r;
	if (r < 0) {
		pf_diag_prefix(&m->text_diag, "mda%u: ", p->cur + 1);
	} else {
		r = pf_vg_import((const char *)p->text, m->loc.total_bytes, &m->vg, &m->vg_diag);
		m->vg_status = r;
		if (r < 0)
			pf_diag_prefix(&m->vg_diag, "mda%u: ", p->cur + 1);
	}
	free(p->text);
	p->text = NULL;
	uncharge(p, text_charge(m));
	if (m->vg && !charge(p, pf_vg_bytes(m->vg))) {
		m->vg = pf_vg_free(m->vg);
		m->vg_status = -ENOMEM;
		pf_diag_msg(&m->vg_diag, "mda%u: the VG does not fit in the scan's metadata memory "
			    "budget", p->cur + 1);
	}
	advance_mda(p, p->cur + 1);
}

static void feed_md_end(struct pf_probe *p, const uint8_t *buf, size_t len, uint64_t off)
{
	uint64_t sb = 0;
	int r;

	r = pf_mdsb_end_find(buf, len, off, p->dev_size_bytes, p->md.lbs, &sb);
	p->step = PF_PROBE_DONE;
	p->md_end_status = r < 0 ? r : 0;
	if (r <= 0)
		return;
	p->md_end_kind = (enum pf_mdsb_end_kind)r;
	p->md_end_offset = sb;
	pf_diag_at(&p->md_end_diag, sb, "md %s superblock at byte %llu: an md array's member",
		   pf_mdsb_end_name(r), (unsigned long long)sb);
}

void pf_probe_feed(struct pf_probe *p, const uint8_t *buf, size_t len)
{
	uint64_t off, want;

	if (pf_probe_next(p, &off, &want) == 0)
		return;
	/* The label step accepts what the device has; every other step needs all it asked for. */
	if (p->step != PF_PROBE_LABEL && len < want) {
		pf_probe_fail(p, -EIO);
		return;
	}
	switch (p->step) {
	case PF_PROBE_LABEL:
		feed_label(p, buf, len < want ? len : (size_t)want);
		break;
	case PF_PROBE_MDA_HEADER:
		feed_header(p, buf, (size_t)want);
		break;
	case PF_PROBE_MDA_TEXT1:
		memcpy(p->text, buf, (size_t)want);
		if (p->mdas[p->cur].loc.len2_bytes)
			p->step = PF_PROBE_MDA_TEXT2;
		else
			finish_text(p);
		break;
	case PF_PROBE_MDA_TEXT2:
		memcpy(p->text + p->mdas[p->cur].loc.len1_bytes, buf, (size_t)want);
		finish_text(p);
		break;
	case PF_PROBE_MD_END:
		feed_md_end(p, buf, (size_t)want, off);
		break;
	case PF_PROBE_DONE:
		break;
	}
}

void pf_probe_fail(struct pf_probe *p, int err)
{
	struct pf_mda_probe *m = &p->mdas[p->cur < PF_PROBE_MDAS ? p->cur : 0];
	uint64_t off = 0, len = 0;

	(void)pf_probe_next(p, &off, &len);
	switch (p->step) {
	case PF_PROBE_LABEL:
		p->label_status = err;
		pf_diag_at(&p->label_diag, off, "cannot read the label sectors: %s", strerror(-err));
		p->step = PF_PROBE_DONE;
		return;
	case PF_PROBE_MDA_HEADER:
		m->header_status = err;
		pf_diag_at(&m->header_diag, off, "mda%u: cannot read the header: %s", p->cur + 1,
			   strerror(-err));
		break;
	case PF_PROBE_MDA_TEXT1:
	case PF_PROBE_MDA_TEXT2:
		m->text_status = err;
		pf_diag_at(&m->text_diag, off, "mda%u: cannot read %llu bytes of text: %s",
			   p->cur + 1, (unsigned long long)len, strerror(-err));
		if (p->text)
			uncharge(p, text_charge(m));
		free(p->text);
		p->text = NULL;
		break;
	case PF_PROBE_MD_END:
		/* lvm2 takes an unreadable end for one without a superblock */
		p->md_end_status = err;
		pf_diag_at(&p->md_end_diag, off, "cannot read the end of the device for md: %s",
			   strerror(-err));
		p->step = PF_PROBE_DONE;
		return;
	case PF_PROBE_DONE:
		return;
	}
	advance_mda(p, p->cur + 1);
}

size_t pf_probe_bytes(const struct pf_probe *p)
{
	size_t n = 0;

	if (p->text && p->cur < p->n_mdas)
		n += (size_t)p->mdas[p->cur].loc.total_bytes;
	for (unsigned i = 0; i < PF_PROBE_MDAS; i++)
		if (p->mdas[i].vg)
			n += pf_vg_bytes(p->mdas[i].vg);
	return n;
}

const struct pf_vg *pf_probe_vg(const struct pf_probe *p)
{
	return p->vg_index < 0 ? NULL : p->mdas[p->vg_index].vg;
}
