/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test VGs for the autoactivation suites (lvgraph, aapolicy, aamsg): metadata text written
 * from a short description and imported, the policy run on it, and its lines checked.
 */
#ifndef PF_TEST_AAVG_H
#define PF_TEST_AAVG_H

#include <stdbool.h>
#include <stddef.h>

#include "activate/aamsg.h"
#include "activate/aapolicy.h"
#include "format/vg.h"

struct tlv {
	const char *name;
	const char *status; /* letters: R READ, W WRITE, V VISIBLE, L LOCKED, P PVMOVE */
	const char *flags;  /* "A,B" */
	const char *tags;
	const char *seg;    /* segment body (1 extent unless it says otherwise); NULL: one
			       linear extent, the next free one on pv0 */
};

struct tvg {
	const char *name;   /* NULL: "vg1" */
	const char *status; /* NULL: RESIZEABLE, READ, WRITE */
	const char *flags;
	const char *tags;
	const char *extra;  /* raw lines for the VG section */
	unsigned n_pvs;	    /* 0: 2; at most 4 */
	const char *pv_flags[4]; /* per PV, up to 4 */
	const struct tlv *lvs;
	size_t n_lvs;
};

#define LIST(a)                                                                                    \
	{                                                                                          \
		.set = true, .n = sizeof(a) / sizeof((a)[0]), .v = (a)                             \
	}
#define EMPTY_LIST                                                                                 \
	{                                                                                          \
		.set = true                                                                        \
	}

/* A linear segment of one extent at pe on pv. */
#define LIN(pv, pe) "type = \"striped\"\nstripe_count = 1\nstripes = [\"" pv "\", " #pe "]"

/*
 * lvm2's VG "vga" (tag vgtag) with eight LVs: a plain; b ACTIVATION_SKIP; c NOAUTOACTIVATE;
 * d tag foo; e hidden; f on pv1; g both flags, tag foo; h NOAUTOACTIVATE, tag bar.
 */
extern const struct tvg aa_gate_vg;
/* The same LVs in "vga" without the VG tag. */
extern const struct tvg aa_two_pv_vg;

/*
 * lvm2's VG "vgseg" (tests/fixtures/segtypes plus additions): an LV of every kind and the
 * sub-LVs of each, on pv0 and pv1.
 */
extern const struct tvg aa_kind_vg;

/*
 * "vga": a, an integrity LV ig and a raid1 rv over an integrity image, both with recalculate
 * set (lvm2 must rewrite their metadata when it activates them).
 */
extern const struct tvg aa_integrity_vg;

/* Import t; fails the test when lvm2's format would not take it. */
struct pf_vg *aa_build(const struct tvg *t);
/* pf_aapolicy_decide(), which must succeed and describe every LV. */
struct pf_aapolicy *aa_decide(const struct pf_vg *vg, const struct pf_aapolicy_input *in);
/* One letter per LV verdict, so a whole VG's outcome reads as a word (a static buffer). */
const char *aa_letters(const struct pf_aapolicy *p);
/* The index of LV name in vg; fails the test when there is none. */
int aa_idx(const struct pf_vg *vg, const char *name);

/*
 * m[0..n) against want (NULL-terminated), each "L:text" or "L+text": level letter (D V P W E),
 * then ':' or '+' (pvscan prefix), then the text.
 */
void aa_check_msgs(const struct pf_aamsg *m, int n, const char *const *want);
void aa_check_lv_msgs(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		      const struct pf_aapolicy *p, const char *lv, const char *const *want);
void aa_check_vg_msgs(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		      const struct pf_aapolicy *p, const char *const *want);
void aa_check_read_msgs(const struct pf_vg *vg, const struct pf_aapolicy *p,
			const struct pf_aamsg_copy *copies, size_t n, const char *const *devs,
			const char *const *want);

#endif /* PF_TEST_AAVG_H */
