/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's system ID as lvm2 2.03.16 resolves it from global/system_id_source: none,
 * lvmlocal, uname, machineid, appmachineid (libsystemd, as lvm2 computes it) or file.
 */
#ifndef PF_SYSTEMID_H
#define PF_SYSTEMID_H

#include "base/macro.h"
#include "config/settings.h"

/*
 * lvm2's sanitising of a system ID: leading characters up to the first letter or digit are
 * dropped, then every character lvm2 refuses in names, and at most 128 are kept. Returns a
 * new string, "" with *ret_why for an empty one; NULL with *ret_why when lvm2 refuses the
 * result (nothing left, or it begins with "localhost"); NULL alone when out of memory.
 */
char *pf_systemid_from_string(const char *str, const char **ret_why) _nonnull_(1, 2);

/*
 * lvm2's _init_system_id(), as a pf_settings_system_id_fn: reads local/system_id and
 * global/system_id_source, warns where lvm2 does, and sets system_id_source,
 * local_system_id, system_id (NULL for "none" or when nothing came of the source) and
 * system_id_unknown (a source is set but yielded nothing) in *s. A file that cannot be read
 * is a warning; appmachineid reads /etc/machine-id through libsystemd, whatever global/etc
 * says, and is all zeroes when libsystemd fails. Errors: -ENOMEM, and -EBADMSG under strict
 * for a warning about a setting's value.
 */
int pf_systemid_resolve(struct pf_settings_loader *ld, const char *hostname,
			struct pf_settings *s) _nonnull_(1, 2, 3) _must_check_;

#endif /* PF_SYSTEMID_H */
