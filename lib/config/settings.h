/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What lvm.conf says, as lvm2 2.03.16 reads it: <etc>/lvm.conf, then <etc>/lvmlocal.conf and
 * lvm_<tag>.conf merged the way lvm2 merges them, under an optional --config string. Only
 * the settings pvscan-fast honours are extracted, with lvm2's defaults, quirks and
 * warnings, plus the host's tags; the system ID is resolved by a hook (config/systemid.h).
 */
#ifndef PF_SETTINGS_H
#define PF_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"

struct pf_filter;

/*
 * Caps (-E2BIG): one config file, the nodes parsed from it (lvm2 2.03.16 knows about 250
 * settings), the settings of one source, host tags, and warnings kept (more are dropped).
 */
#define PF_SETTINGS_FILE_MAX	 ((size_t)4 << 20)
#define PF_SETTINGS_NODES_MAX	 ((size_t)65536)
#define PF_SETTINGS_KEYS_MAX	 1024U
#define PF_SETTINGS_TAGS_MAX	 64U
#define PF_SETTINGS_WARNINGS_MAX 32U

/*
 * pvscan_fast/..._timeout, in seconds; lvm2 does not know this section. scan_timeout: per device
 * read. activation_timeout: per lvm2 process a VG is handed to. lock_timeout: per wait for a
 * VG lock or lvm2's devices-file lock.
 */
#define PF_SETTINGS_SCAN_TIMEOUT_DEFAULT       30U
#define PF_SETTINGS_SCAN_TIMEOUT_MAX	       3600U
#define PF_SETTINGS_ACTIVATION_TIMEOUT_DEFAULT 300U
#define PF_SETTINGS_LOCK_TIMEOUT_DEFAULT       60U
#define PF_SETTINGS_TIMEOUT_MAX		       86400U
/*
 * pvscan_fast/degraded_activation (default 0) and degraded_activation_timeout (seconds since
 * a VG's first PV arrived, 1 to PF_SETTINGS_TIMEOUT_MAX): lvm2 never activates an incomplete
 * VG by event; with the first set, a VG still incomplete after the timeout is handed to lvm2
 * with --activationmode degraded.
 */
#define PF_SETTINGS_DEGRADED_TIMEOUT_DEFAULT   30U

/* Where a setting's value came from, for messages. */
struct pf_settings_origin {
	char *file; /* path, or "--config"; NULL when the default applies */
	unsigned line, col;
};

/* A string list: "set" with n == 0 is lvm2's "[]", distinct from not configured. */
struct pf_settings_strv {
	bool set;
	size_t n;
	char **v;
	struct pf_settings_origin origin;
};

/* devices/types: a block major name lvm2 also accepts, and its partition count. */
struct pf_settings_type {
	char *name;
	int64_t max_partitions; /* non-zero; lvm2 matches name as a prefix of the major's name */
};

struct pf_settings {
	bool event_activation;	/* global/event_activation, default 1 */
	bool use_devicesfile;	/* devices/use_devicesfile, default 0 (Debian) */
	char *devicesfile;	/* devices/devicesfile, default "system.devices" */
	char *devicesfile_path; /* <etc>/devices/<devicesfile> when used, else NULL */
	struct pf_settings_strv global_filter; /* devices/global_filter; unset: accept all */
	struct pf_settings_strv filter;	       /* devices/filter; unset: accept all */
	struct pf_settings_type *types;	       /* devices/types */
	size_t n_types;
	bool scan_lvs;			    /* devices/scan_lvs, default 0 */
	bool multipath_component_detection; /* default 1 */
	bool md_component_detection;	    /* default 1 */
	char *md_component_checks;	    /* "auto" (default), "start" or "full" */
	int64_t pv_min_size_kib;	    /* devices/pv_min_size, default 2048, at least 512 */
	char *multipath_wwids_file;	    /* default "/etc/multipath/wwids"; "" disables */
	char *hints;			    /* devices/hints, default "all"; "none" disables */
	/* system_id_source, local_system_id, system_id(_unknown): set by the system ID hook */
	char *system_id_source;		    /* global/system_id_source, default "none" */
	char *local_system_id;		    /* local/system_id, NULL when unset or "" */
	char *system_id_file;		    /* global/system_id_file, NULL when unset */
	char *etc;		/* global/etc, default "/etc" (machine-id lives there) */
	char *system_id;	/* the host's system ID; NULL: none */
	bool system_id_unknown; /* a source is set but yielded nothing (lvm2's
				   unknown_system_id: VGs with a system ID are foreign) */
	struct pf_settings_strv auto_activation_volume_list; /* activation/..., unset: all */
	struct pf_settings_strv volume_list;		     /* activation/volume_list */
	struct pf_settings_strv read_only_volume_list;	     /* activation/..., unset: none */
	bool readahead_none;	 /* activation/readahead = "none" (default "auto") */
	bool use_linear_target;	 /* activation/use_linear_target, default 1 */
	bool udev_rules;	 /* activation/udev_rules, default 1 */
	bool udev_sync;		 /* activation/udev_sync, default 1 */
	bool verify_udev_operations; /* activation/verify_udev_operations, default 0 */
	bool allow_changes_with_duplicate_pvs; /* devices/..., default 0 */
	bool hosttags;			   /* tags/hosttags in any loaded file, default 0 */
	struct pf_settings_strv host_tags; /* the host's tags: hostname if hosttags, tags/<t> */
	unsigned scan_timeout_sec;	   /* pvscan_fast/scan_timeout */
	unsigned activation_timeout_sec;   /* pvscan_fast/activation_timeout */
	unsigned lock_timeout_sec;	   /* pvscan_fast/lock_timeout */
	bool degraded_activation;	   /* pvscan_fast/degraded_activation */
	unsigned degraded_timeout_sec;	   /* pvscan_fast/degraded_activation_timeout */
	/* What lvm2 would warn about and then ignore (default used), in the order found. */
	struct pf_diag *warnings;
	size_t n_warnings;
};

/* The loader while pf_settings_load_opts() runs, as the system ID hook sees it. */
struct pf_settings_loader;

/*
 * Resolves the host's system ID into *s during the load, once global/etc and
 * global/system_id_file are extracted, reading what else it needs with pf_settings_get_str()
 * and reporting with pf_settings_warn(); hostname is the host name tags and "uname" use.
 * Returns 0 or a negative errno, which fails the load.
 */
typedef int pf_settings_system_id_fn(struct pf_settings_loader *ld, const char *hostname,
				     struct pf_settings *s);

struct pf_settings_opts {
	const char *etc;	   /* the config directory: LVM_SYSTEM_DIR or /etc/lvm */
	const char *const *config; /* --config strings; several are joined, the last wins */
	size_t n_config;
	const char *hostname; /* NULL: uname()'s nodename (tests set it) */
	bool strict;	      /* turn every warning about a value into -EBADMSG */
	/* pf_systemid_resolve(); NULL leaves the system ID fields unset and unread */
	pf_settings_system_id_fn *system_id;
};

/*
 * Load and extract into *ret (untouched on failure; release it with pf_settings_release()).
 * A missing lvm.conf, lvmlocal.conf or lvm_<tag>.conf counts as empty, as in lvm2.
 * Errors: -EBADMSG for a syntax error (reterr: "<file>: why" with line and column) or a
 * setting lvm2 refuses outright (filters that are not strings, malformed devices/types, a
 * bad tag or devices file name; with strict, any warning); -E2BIG over a cap; -errno when
 * a file exists but cannot be read; -ENOMEM.
 */
int pf_settings_load_opts(const struct pf_settings_opts *opts, struct pf_settings *ret,
			  struct pf_diag *reterr) _nonnull_(1, 2) _must_check_;

/*
 * The same with lvm2's defaults for the rest: uname()'s host name, warnings kept, and the
 * system ID resolved by pf_systemid_resolve(). Defined in config/systemid.c, beside the one
 * libsystemd call, so that the command, which links settings.c for
 * pf_settings_event_activation(), stays libc-only.
 */
int pf_settings_load(const char *etc, const char *const *config, size_t n_config,
		     struct pf_settings *ret, struct pf_diag *reterr) _nonnull_(1, 4) _must_check_;

void pf_settings_release(struct pf_settings *s);

/*
 * For the system ID hook: the string setting section/key as the load reads it (--config
 * first, then the merged files), with lvm2's type checks and warnings; def when unset, or
 * when empty and !allow_empty. Errors: -EBADMSG for a warning under strict.
 */
int pf_settings_get_str(struct pf_settings_loader *ld, const char *section, const char *key,
			const char *def, bool allow_empty, const char **ret)
	_nonnull_(1, 2, 3, 6) _must_check_;

/*
 * For the system ID hook: record a warning lvm2 gives (at section/key's origin when both
 * are non-NULL and the setting is set). config: it is about a setting's value, so strict
 * makes it -EBADMSG; otherwise 0.
 */
int pf_settings_warn(struct pf_settings_loader *ld, const char *section, const char *key,
		     bool config, const char *fmt, ...) _nonnull_(1, 5) _printf_(5, 6);

/*
 * Only global/event_activation, for the follower path, which must not pay for a full load:
 * when neither lvm.conf, lvmlocal.conf nor a --config string names event_activation or tags
 * outside a comment, lvm2's default (1) holds and nothing is parsed; otherwise everything but
 * the system ID is loaded as pf_settings_load() does. Errors as pf_settings_load().
 */
int pf_settings_event_activation(const char *etc, const char *const *config, size_t n_config,
				 bool *ret) _nonnull_(1, 4) _must_check_;

/*
 * Compile global_filter and filter (each NULL when not configured). Errors are -EINVAL and
 * friends from pf_filter_compile(), reterr prefixed with the setting and where it is set.
 */
int pf_settings_compile_filters(const struct pf_settings *s, struct pf_filter **ret_global,
				struct pf_filter **ret_filter, struct pf_diag *reterr)
	_nonnull_(1, 2, 3) _must_check_;

#endif /* PF_SETTINGS_H */
