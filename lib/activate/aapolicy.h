/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Autoactivation policy: from one complete VG, the settings and what the caller knows about
 * devices and device-mapper, which LVs lvm2 2.03.16's event autoactivation (`pvscan --cache
 * -aay DEV` and `vgchange -aay --autoactivation event VG`) would activate and why every other LV
 * is left alone: the VG gates, then each LV's gates on the LV graph (lvgraph.h). What each
 * verdict means is kept in one table per verdict type; lvm2's lines are aamsg.h's. Pure: no
 * I/O, no logging.
 */
#ifndef PF_AAPOLICY_H
#define PF_AAPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activate/aamsg.h"
#include "activate/lvgraph.h"
#include "base/macro.h"

struct pf_vg;
struct pf_vg_lv;
struct pf_settings;

/* LVs decided (as the graph's; its caps on references and walks apply too). */
#define PF_AAPOLICY_LVS_MAX PF_LVGRAPH_LVS_MAX

/* Which lvm2 command's order and messages to follow; they differ in a few gates. */
enum pf_aapolicy_mode {
	PF_AAPOLICY_VGCHANGE_EVENT, /* vgchange -aay --autoactivation event VG (udev, 2.03.14+) */
	PF_AAPOLICY_PVSCAN,	    /* the activation phase of pvscan --cache -aay DEV */
	_PF_AAPOLICY_MODE_MAX,
};

/* pvscan's one-winner token /run/lvm/vgs_online/<vg>, created before the VG is read. */
enum pf_aapolicy_claim {
	PF_AAPOLICY_CLAIM_NONE, /* not taken here (vgchange; or the caller prints nothing for it) */
	PF_AAPOLICY_CLAIM_WON,	/* created: "VG x run autoactivation." */
	PF_AAPOLICY_CLAIM_LOST, /* existed: "VG x skip autoactivation." and nothing else */
	_PF_AAPOLICY_CLAIM_MAX,
};

/* activation/activation_mode (not in struct pf_settings; lvm2's default is degraded). */
enum pf_aapolicy_activation_mode {
	PF_AAPOLICY_MODE_DEGRADED,
	PF_AAPOLICY_MODE_COMPLETE,
	PF_AAPOLICY_MODE_PARTIAL,
	_PF_AAPOLICY_ACTIVATION_MODE_MAX,
};

/* A string list setting: set with n == 0 is lvm2's "[]", which differs from not configured. */
struct pf_aapolicy_list {
	bool set;
	size_t n;
	const char *const *v;
};

struct pf_aapolicy_input {
	enum pf_aapolicy_mode mode;
	enum pf_aapolicy_claim claim;				/* PVSCAN only */
	struct pf_aapolicy_list auto_activation_volume_list;	/* activation/... */
	struct pf_aapolicy_list volume_list;			/* activation/volume_list */
	struct pf_aapolicy_list host_tags;			/* "set" is ignored */
	const char *system_id;		/* the host's; NULL or "": none */
	bool system_id_unknown;		/* a source is configured but yielded nothing */
	struct pf_aapolicy_list extra_system_ids; /* local/extra_system_ids */
	enum pf_aapolicy_activation_mode activation_mode;
	bool duplicate_pvs; /* a PV of this VG is on two devices and allow_changes_with_... is 0 */
	/*
	 * PVSCAN: the command named several devices or none, so lvm2 reads the claimed VGs
	 * through process_each_vg rather than its one-VG quick path; the errors differ.
	 */
	bool process_each;
	/*
	 * VGCHANGE_EVENT without --autoactivation event (`vgchange -aay VG`): a VG with PVs
	 * missing is read all the same and its LVs decided, partial ones by activation_mode.
	 */
	bool missing_pvs_ok;
	/*
	 * pv_present[i] for vg->pvs[i]: its device was found. NULL: all were. lv_active[i] for
	 * vg->lvs[i]: device-mapper has it (by UUID) with a live table, not suspended, read-only
	 * exactly when lvm2 would load it so. NULL: none is. A device in any other state is one
	 * lvm2 would reload or fail on: leave such a VG to lvm2.
	 */
	const bool *pv_present;
	const bool *lv_active;
};

/* The VG-level outcome, listed in the order lvm2 tests them (per mode, see pf_aapolicy_decide). */
enum pf_aapolicy_vg_verdict {
	PF_AAPOLICY_VG_OK,	       /* LVs were decided one by one */
	PF_AAPOLICY_VG_SHARED,	       /* lock_type sanlock, dlm or idm */
	PF_AAPOLICY_VG_FOREIGN,	       /* its system ID does not allow activation here */
	PF_AAPOLICY_VG_EXPORTED,
	PF_AAPOLICY_VG_INCOMPLETE,     /* a PV's device is missing */
	PF_AAPOLICY_VG_CLAIMED,	       /* another pvscan owns vgs_online/<vg> */
	PF_AAPOLICY_VG_CLUSTERED,      /* CLUSTERED (clvmd): never accessible in 2.03 */
	PF_AAPOLICY_VG_READ_ONLY,      /* status lacks WRITE */
	PF_AAPOLICY_VG_MISSING_PVS,    /* pvscan: a present PV flagged MISSING holds extents */
	PF_AAPOLICY_VG_NOAUTOACTIVATE, /* flags NOAUTOACTIVATE (vgchange --setautoactivation n) */
	_PF_AAPOLICY_VG_VERDICT_MAX,
};

/* Per LV, in the order lvm2 applies the gates; every verdict but ACTIVATE leaves it alone. */
enum pf_aapolicy_lv_verdict {
	PF_AAPOLICY_LV_ACTIVATE,	   /* lvm2 activates target (device-mapper work to do) */
	PF_AAPOLICY_LV_NOT_REACHED,	   /* the VG verdict stopped before the LVs */
	PF_AAPOLICY_LV_HIDDEN,		   /* not a top-level LV: comes up with its holder */
	PF_AAPOLICY_LV_SNAPSHOT,	   /* a thick snapshot: comes up with its origin */
	PF_AAPOLICY_LV_MIRROR_PART,	   /* a visible mirror image or log */
	PF_AAPOLICY_LV_VDO_POOL,
	PF_AAPOLICY_LV_ACTIVATION_SKIP,	   /* flags ACTIVATION_SKIP (lvchange -ky) */
	PF_AAPOLICY_LV_NOT_IN_AUTO_LIST,   /* auto_activation_volume_list set, no entry matches */
	PF_AAPOLICY_LV_NOAUTOACTIVATE,	   /* LV flags NOAUTOACTIVATE */
	PF_AAPOLICY_LV_CACHE_POOL,	   /* an unattached cache pool: never activated itself */
	PF_AAPOLICY_LV_DUPLICATE_PVS,	   /* error */
	PF_AAPOLICY_LV_INTEGRITY_RECALC,   /* pvscan only, error: would have to write metadata */
	PF_AAPOLICY_LV_COMPONENT_ACTIVE,   /* error: one of its hidden sub-LVs is active alone */
	PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST, /* volume_list (or, unset, the host tags) excludes it */
	PF_AAPOLICY_LV_PARTIAL,		   /* error: maps onto a missing PV */
	PF_AAPOLICY_LV_PARTIAL_RAID,	   /* raid on a missing PV: whether lvm2 activates it
					      degraded or refuses depends on the raid level and
					      the legs lost (always refused with mode complete) */
	PF_AAPOLICY_LV_UNKNOWN_SEGMENT,	   /* error: a segment type lvm2 2.03.16 does not know */
	PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS, /* error */
	PF_AAPOLICY_LV_ALREADY_ACTIVE,	   /* nothing to do */
	_PF_AAPOLICY_LV_VERDICT_MAX,
};

struct pf_aapolicy_lv {
	enum pf_aapolicy_lv_verdict verdict;
	/*
	 * The LV lvm2 asks to activate for this entry: itself, or for the COW of a sparse
	 * snapshot its virtual origin (whose own entry is HIDDEN). -1 when a gate before that
	 * replacement stopped it. Every later gate and message is about target.
	 */
	int target;
	bool top_level; /* lvm2's lv_is_visible(): what -aay considers at all */
	int holder;	/* for a sub-LV: an LV that brings it up (the origin for a COW); or -1 */
	int component;	/* COMPONENT_ACTIVE: the active sub-LV in the way; else -1 */
	bool partial;	/* maps onto a missing PV, directly or through the LVs it depends on */
};

/* What vg_read makes of a PV's device and MISSING flag. */
enum pf_aapolicy_pv_state {
	PF_AAPOLICY_PV_OK,
	PF_AAPOLICY_PV_ABSENT,		  /* its device was not found */
	PF_AAPOLICY_PV_REAPPEARED,	  /* MISSING flag, device present, extents in use */
	PF_AAPOLICY_PV_REAPPEARED_UNUSED, /* MISSING flag, device present, no extent in use */
};

struct pf_aapolicy {
	enum pf_aapolicy_vg_verdict verdict;
	bool failed;	     /* lvm2 reports an error for this VG (exit status 5) */
	bool foreign_active; /* foreign VG let through because LVs of it are active (warning) */
	unsigned n_missing_pvs;	       /* device not found */
	unsigned n_reappeared_pvs;     /* MISSING flag, device present, extents in use */
	unsigned n_unused_reappeared;  /* MISSING flag, device present, no extent used: cleared */
	unsigned n_active;	       /* top-level LVs already active */
	unsigned n_expected;	       /* LVs lvm2 requests activation for ("Activated %d ...") */
	unsigned n_lvs;		       /* == vg->n_lvs */
	struct pf_aapolicy_lv *lvs;    /* one per vg->lvs[], same order */
	enum pf_aapolicy_pv_state *pvs; /* one per vg->pvs[], same order */
};

/*
 * Decide. The VG must be complete metadata as imported by pf_vg_import(); in->pv_present and
 * in->lv_active, when given, have vg->n_pvs and vg->n_lvs entries. Order of the VG gates:
 *   PVSCAN: shared, foreign (both system IDs set and different), exported [pvscan's per-PV
 *     scan: lvm2 prints "PV <dev> ignore ... VG."], incomplete, claim, then reading the VG:
 *     foreign (no host system ID), clustered, read-only, MISSING PVs; then NOAUTOACTIVATE.
 *   VGCHANGE_EVENT: shared, foreign, clustered, exported, read-only (reading the VG), foreign
 *     again (extra_system_ids lets lvm2 read the VG but not activate it), NOAUTOACTIVATE,
 *     incomplete.
 * Returns 0 with *ret (free with pf_aapolicy_free()), -EINVAL for a bad mode or claim, -E2BIG
 * over a cap, -ENOMEM.
 */
int pf_aapolicy_decide(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		       struct pf_aapolicy **ret) _nonnull_(1, 2, 3) _must_check_;
struct pf_aapolicy *pf_aapolicy_free(struct pf_aapolicy *p);

/*
 * lvm2's volume-list match (_lv_passes_volumes_filter) for a set list: "vg" matches every LV
 * of the VG, "vg/lv" that LV, "@tag" a tag of the LV or of the VG, "@*" any host tag found on
 * the LV or the VG. Empty entries and a bare "@" are skipped; "[]" matches nothing.
 */
bool pf_aapolicy_list_matches(const struct pf_aapolicy_list *list,
			      const struct pf_aapolicy_list *host_tags, const struct pf_vg *vg,
			      const struct pf_vg_lv *lv) _nonnull_(1, 2, 3, 4);

/*
 * Where pf_aapolicy_list_matches() stops: the index of the first matching entry of a set
 * list, or list->n when none matches. lvm2 says it skips each empty entry met before it.
 */
size_t pf_aapolicy_list_first_match(const struct pf_aapolicy_list *list,
				    const struct pf_aapolicy_list *host_tags,
				    const struct pf_vg *vg, const struct pf_vg_lv *lv)
	_nonnull_(1, 2, 3, 4);

/* An entry lvm2 skips in a list: "" or a bare "@". */
bool pf_aapolicy_list_entry_skipped(const char *entry) _pure_;

/* lvm2's is_system_id_allowed(): may this host read the VG at all. */
bool pf_aapolicy_system_id_allowed(const struct pf_aapolicy_input *in, const struct pf_vg *vg)
	_nonnull_(1, 2) _pure_;

/*
 * lvm2's duplicate VG names, as its label scan meets them, found once for a whole scan by
 * sorting: thousands of VGs must not cost a comparison each with every other. vgs[k] is the
 * VG on the k-th device in scan order (NULL for none).
 */
struct pf_aapolicy_vgnames {
	size_t *taken_by; /* per device: the other VG's device (see _taken), or SIZE_MAX */
	const char **ambiguous; /* names more than one readable VG carries, sorted, once each */
	size_t n, n_ambiguous;
};
int pf_aapolicy_vgnames_find(const struct pf_aapolicy_input *in, const struct pf_vg *const *vgs,
			     size_t n, struct pf_aapolicy_vgnames *ret) _nonnull_(1, 2, 4);
void pf_aapolicy_vgnames_release(struct pf_aapolicy_vgnames *v) _nonnull_(1);
/*
 * Is vgs[i] the first device of a VG this host may read whose name an earlier readable VG
 * with another UUID has? lvm2 warns about it, naming that other VG, the first such
 * (*ret_other).
 */
bool pf_aapolicy_vgnames_taken(const struct pf_aapolicy_vgnames *v, size_t i, size_t *ret_other)
	_nonnull_(1, 3);
/*
 * Does more than one readable VG carry name? lvm2's commands that take VGs by name then skip
 * it ("Multiple VGs found with the same name"): a full scan must not guess which is meant.
 */
bool pf_aapolicy_vgnames_ambiguous(const struct pf_aapolicy_vgnames *v, const char *name)
	_nonnull_(1, 2) _pure_;

/*
 * lvm2's one-VG quick path (one named device) gives up when a PV was last written through an
 * md device and is online now on a device that is not one: vg->pvs[i].device names /dev/md*,
 * online[i] (the device its online file names; NULL or "" unknown) does not. The first such i,
 * or -1; lvm2 then says so and takes the VG through process_each_vg.
 */
int pf_aapolicy_md_hint_moved(const struct pf_vg *vg, const char *const *online) _nonnull_(1, 2);

/*
 * The verdicts for which lvm2 fails the command (pvscan adds "<vg>: autoactivation failed."):
 * pf_aapolicy_lv_verdict_info(v)->error.
 */
bool pf_aapolicy_lv_is_error(enum pf_aapolicy_lv_verdict v) _pure_;

/*
 * The lists, tags and system ID of loaded settings (borrowed: keep s alive while in is used);
 * everything else in *ret is set to its default (claim none, degraded, nothing known about
 * devices). extra_system_ids, activation_mode and duplicate PVs are not in struct pf_settings.
 */
void pf_aapolicy_input_from_settings(const struct pf_settings *s, enum pf_aapolicy_mode mode,
				     struct pf_aapolicy_input *ret) _nonnull_(1, 3);

/*
 * How far lvm2 gets with an LV before its verdict stops it, in lvm2's order; lvm2's lines for
 * the LV (aamsg.h) are those of every step reached.
 */
enum pf_aapolicy_lv_stage {
	PF_AAPOLICY_STAGE_NONE,	       /* not considered at all: no line */
	PF_AAPOLICY_STAGE_SKIP,	       /* stopped before the auto_activation_volume_list check */
	PF_AAPOLICY_STAGE_AUTO_LIST,   /* stopped by or right after that check */
	PF_AAPOLICY_STAGE_REQUEST,     /* activation requested, stopped in lv_change_activate() */
	PF_AAPOLICY_STAGE_ACTIVATE,    /* stopped in activate_lv() after "Activating ..." */
	PF_AAPOLICY_STAGE_VOLUME_LIST, /* past the volume_list check (or stopped by it) */
};

/* What an LV verdict means: to the gates, to lvm2's lines and to a --dry-run reader. */
struct pf_aapolicy_lv_verdict_info {
	enum pf_aapolicy_lv_stage stage; /* >= REQUEST: counted in n_expected */
	bool error;			 /* lvm2 fails the command */
	enum pf_aamsg_level level;	 /* of line */
	/*
	 * lvm2's own line for the verdict, last of the LV's lines: a printf format whose %s are,
	 * in order, the VG name, the LV name, the VG name again and the LV in the way (only
	 * COMPONENT_ACTIVE names that one); NULL: none.
	 */
	const char *line;
	const char *reason; /* why the LV is left alone (or "activated"), for --dry-run */
};

/* The row for v; out of range: a row with no line and reason "?". */
const struct pf_aapolicy_lv_verdict_info *
pf_aapolicy_lv_verdict_info(enum pf_aapolicy_lv_verdict v) _pure_;

/* Why the VG verdict stops the VG, for --dry-run ("" for OK, "?" out of range). */
const char *pf_aapolicy_vg_verdict_reason(enum pf_aapolicy_vg_verdict v) _pure_;

#endif /* PF_AAPOLICY_H */
