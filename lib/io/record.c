/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reader's record format: laying records out and checking them on the way back. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "io/record.h"

bool pf_rec_per_dev(uint32_t type)
{
	return type == PF_REC_FEED || type == PF_REC_FAIL || type == PF_REC_END ||
	       type == PF_REC_OPEN;
}

static bool is_errno(int64_t v)
{
	return v < 0 && v >= -ERRNO_MAX;
}

void pf_rec_put(uint8_t b[PF_REC_HDR], const struct pf_rec *h)
{
	pf_put_le32(b, PF_REC_MAGIC);
	pf_put_le32(b + 4, h->type);
	pf_put_le32(b + 8, h->dev);
	pf_put_le32(b + 12, h->len);
	pf_put_le64(b + 16, (uint64_t)h->val);
	pf_put_le64(b + 24, h->off);
}

/* Whether a header's length and value fit its type. */
static bool fits(const struct pf_rec *h)
{
	switch (h->type) {
	case PF_REC_FEED:
		return h->len <= PF_REC_FEED_MAX;
	case PF_REC_FAIL:
		return h->len == 0 && is_errno(h->val);
	case PF_REC_END:
		return h->len >= PF_REC_END_FIXED && h->len <= PF_REC_END_MAX &&
		       (h->val == 0 || is_errno(h->val));
	case PF_REC_TICK:
		return h->len == 0;
	case PF_REC_DONE:
		return h->len == PF_REC_DONE_LEN && (h->val == 0 || is_errno(h->val));
	case PF_REC_OPEN:
		return h->len == PF_REC_OPEN_LEN && (h->val == 0 || is_errno(h->val));
	default:
		return false;
	}
}

int pf_rec_get(struct pf_span s, size_t n_devs, struct pf_rec *ret)
{
	struct pf_rec h;
	uint32_t magic;
	uint64_t val;

	if (pf_span_le32(s, 0, &magic) < 0 || pf_span_le32(s, 4, &h.type) < 0 ||
	    pf_span_le32(s, 8, &h.dev) < 0 || pf_span_le32(s, 12, &h.len) < 0 ||
	    pf_span_le64(s, 16, &val) < 0 || pf_span_le64(s, 24, &h.off) < 0)
		return -EBADMSG;
	h.val = (int64_t)val;
	if (magic != PF_REC_MAGIC || (pf_rec_per_dev(h.type) && h.dev >= n_devs) || !fits(&h))
		return -EBADMSG;
	*ret = h;
	return 0;
}

size_t pf_rec_put_end(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_END_MAX], uint32_t dev,
		      int status, uint64_t bytes_read, unsigned n_reads, const struct pf_diag *diag)
{
	size_t msg_len = diag ? strnlen(diag->msg, PF_DIAG_MSG_MAX - 1) : 0;
	struct pf_rec h = { .type = PF_REC_END, .dev = dev, .val = status };

	memset(payload, 0, PF_REC_END_FIXED);
	pf_put_le64(payload, bytes_read);
	pf_put_le32(payload + 8, n_reads);
	if (diag) {
		pf_put_le32(payload + 12, diag->has_offset);
		pf_put_le64(payload + 16, diag->offset);
		pf_put_le32(payload + 24, diag->line);
		pf_put_le32(payload + 28, diag->col);
		memcpy(payload + PF_REC_END_FIXED, diag->msg, msg_len);
	}
	pf_put_le32(payload + 32, (uint32_t)msg_len);
	h.len = (uint32_t)(PF_REC_END_FIXED + msg_len);
	pf_rec_put(hdr, &h);
	return h.len;
}

int pf_rec_get_end(const struct pf_rec *h, struct pf_span p, struct pf_rec_end *ret)
{
	struct pf_rec_end e = { .status = (int)h->val };
	uint32_t has_offset, msg_len;

	if (p.len != h->len || pf_span_le64(p, 0, &e.bytes_read) < 0 ||
	    pf_span_le32(p, 8, &e.n_reads) < 0 || pf_span_le32(p, 12, &has_offset) < 0 ||
	    pf_span_le64(p, 16, &e.diag.offset) < 0 || pf_span_le32(p, 24, &e.diag.line) < 0 ||
	    pf_span_le32(p, 28, &e.diag.col) < 0 || pf_span_le32(p, 32, &msg_len) < 0)
		return -EBADMSG;
	if (msg_len != p.len - PF_REC_END_FIXED || msg_len >= PF_DIAG_MSG_MAX)
		return -EBADMSG;
	e.diag.has_offset = has_offset != 0;
	memcpy(e.diag.msg, p.p + PF_REC_END_FIXED, msg_len);
	e.diag.msg[msg_len] = '\0';
	*ret = e;
	return 0;
}

void pf_rec_put_done(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_DONE_LEN], int r,
		     const struct pf_aio_stats *s)
{
	struct pf_rec h = { .type = PF_REC_DONE, .len = PF_REC_DONE_LEN, .val = r };

	memset(payload, 0, PF_REC_DONE_LEN);
	pf_put_le32(payload, s->depth);
	pf_put_le32(payload + 4, s->max_in_flight);
	pf_put_le64(payload + 8, s->n_reads);
	pf_put_le64(payload + 16, s->bytes_read);
	pf_put_le64(payload + 24, s->n_submit_calls);
	pf_put_le64(payload + 32, s->n_wait_calls);
	pf_put_le32(payload + 40, s->n_timeouts);
	pf_put_le64(payload + 48, s->mem_peak_bytes);
	pf_rec_put(hdr, &h);
}

int pf_rec_get_done(struct pf_span p, struct pf_aio_stats *ret)
{
	struct pf_aio_stats s = { 0 };

	if (p.len != PF_REC_DONE_LEN || pf_span_le32(p, 0, &s.depth) < 0 ||
	    pf_span_le32(p, 4, &s.max_in_flight) < 0 || pf_span_le64(p, 8, &s.n_reads) < 0 ||
	    pf_span_le64(p, 16, &s.bytes_read) < 0 || pf_span_le64(p, 24, &s.n_submit_calls) < 0 ||
	    pf_span_le64(p, 32, &s.n_wait_calls) < 0 || pf_span_le32(p, 40, &s.n_timeouts) < 0 ||
	    pf_span_le64(p, 48, &s.mem_peak_bytes) < 0)
		return -EBADMSG;
	*ret = s;
	return 0;
}

void pf_rec_put_open(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_OPEN_LEN], uint32_t dev,
		     const struct pf_rec_open *o)
{
	struct pf_rec h = {
		.type = PF_REC_OPEN, .dev = dev, .len = PF_REC_OPEN_LEN, .val = o->err
	};
	uint32_t flags = (o->direct ? PF_REC_OPEN_DIRECT : 0U) | (o->hung ? PF_REC_OPEN_HUNG : 0U) |
			 (o->not_tried ? PF_REC_OPEN_NOT_TRIED : 0U);

	memset(payload, 0, PF_REC_OPEN_LEN);
	if (o->err == 0) {
		pf_put_le64(payload, o->size_bytes);
		pf_put_le32(payload + 8, o->lbs);
	}
	pf_put_le32(payload + 12, flags);
	pf_rec_put(hdr, &h);
}

int pf_rec_get_open(const struct pf_rec *h, struct pf_span p, struct pf_rec_open *ret)
{
	struct pf_rec_open o = { .err = (int)h->val };
	uint32_t lbs, flags;

	if (h->type != PF_REC_OPEN || p.len != PF_REC_OPEN_LEN ||
	    pf_span_le64(p, 0, &o.size_bytes) < 0 || pf_span_le32(p, 8, &lbs) < 0 ||
	    pf_span_le32(p, 12, &flags) < 0)
		return -EBADMSG;
	if (flags & ~(PF_REC_OPEN_DIRECT | PF_REC_OPEN_HUNG | PF_REC_OPEN_NOT_TRIED))
		return -EBADMSG;
	o.direct = (flags & PF_REC_OPEN_DIRECT) != 0;
	o.hung = (flags & PF_REC_OPEN_HUNG) != 0;
	o.not_tried = (flags & PF_REC_OPEN_NOT_TRIED) != 0;
	if ((o.hung && o.err != -ETIMEDOUT) || (o.not_tried && o.err != -EBUSY))
		return -EBADMSG;
	if (o.err == 0 && (o.size_bytes > INT64_MAX || lbs < 512 || lbs > PF_AIO_LBS_MAX ||
			   (lbs & (lbs - 1)) != 0))
		return -EBADMSG;
	o.lbs = o.err == 0 ? lbs : 0;
	if (o.err < 0) {
		o.size_bytes = 0;
		o.direct = false;
	}
	*ret = o;
	return 0;
}
