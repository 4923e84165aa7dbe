/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lines lvm2 2.03.16's event autoactivation prints for one VG as the policy (aapolicy.h)
 * decided it: vg_read's warnings, the VG gates', each LV's, in lvm2's order and wording. Pure:
 * the lines are returned, never printed.
 */
#ifndef PF_AAMSG_H
#define PF_AAMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

struct pf_vg;
struct pf_aapolicy;
struct pf_aapolicy_input;

enum pf_aamsg_level {
	PF_AAMSG_DEBUG,	  /* -vvvv (log_debug) */
	PF_AAMSG_VERBOSE, /* -v (log_verbose) */
	PF_AAMSG_PRINT,	  /* stdout (log_print) */
	PF_AAMSG_WARN,	  /* stderr */
	PF_AAMSG_ERROR,	  /* stderr */
	_PF_AAMSG_LEVEL_MAX,
};

#define PF_AAMSG_TEXT_MAX  512U /* two names and a system ID (128 each) fit */
#define PF_AAMSG_LINES_MAX 8U	/* lines for one VG or one LV, at most */

struct pf_aamsg {
	enum pf_aamsg_level level;
	bool pvscan_prefix; /* lvm2 prefixes it with "pvscan[<pid>] " */
	char text[PF_AAMSG_TEXT_MAX];
};

/*
 * The lines lvm2 prints for the VG verdict before any LV, in order, into ret[0..n); returns
 * how many (at most PF_AAMSG_LINES_MAX). Not included: vg_read's warnings about missing or
 * reappeared PVs (pf_aamsg_read()), pvscan's per-PV "ignore" lines (pvscan-fast/cache.c),
 * and the lines after the LVs: "Activated %d logical volumes in volume group %s." (verbose, when
 * n_expected > 0), "%d logical volume(s) in volume group \"%s\" now active" (vgchange, when
 * the verdict is OK), "%s: autoactivation failed." (pvscan, error, prefixed, when an LV fails).
 */
int pf_aamsg_vg(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		const struct pf_aapolicy *p, struct pf_aamsg *ret, size_t n) _nonnull_(1, 2, 3);

/* One metadata copy of the VG as lvm2's vg_read meets it: the device it is on, its seqno. */
struct pf_aamsg_copy {
	const char *dev;
	uint32_t seqno;
};

/*
 * vg_read's warnings, printed before any gate: each copy that lost to a newer seqno, then
 * each PV flagged MISSING whose device is back. copies[0..n_copies) in the order lvm2 reads
 * them (its scan order); pv_dev[i] names the device of vg->pvs[i] (NULL: none). Writes at
 * most n lines (2 * n_copies + 2 * vg->n_pvs + 2 is always enough); returns how many.
 */
int pf_aamsg_read(const struct pf_vg *vg, const struct pf_aapolicy *p,
		  const struct pf_aamsg_copy *copies, size_t n_copies, const char *const *pv_dev,
		  struct pf_aamsg *ret, size_t n) _nonnull_(1, 2, 5);

/*
 * The lines lvm2 prints while deciding vg->lvs[i] (none for LVs it does not consider), as far
 * as the LV's verdict lets lvm2 get (pf_aapolicy_lv_verdict_info()); returns how many.
 */
int pf_aamsg_lv(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		const struct pf_aapolicy *p, unsigned i, struct pf_aamsg *ret, size_t n)
	_nonnull_(1, 2, 3);

#endif /* PF_AAMSG_H */
