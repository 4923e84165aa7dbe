/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A scratch config directory (LVM_SYSTEM_DIR) for the settings and system ID suites. */
#ifndef PF_TEST_CONFDIR_H
#define PF_TEST_CONFDIR_H

#include <stdbool.h>

#include "config/settings.h"

/* The directory while a test runs: made by conf_setup(), removed by conf_teardown(). */
extern char conf_dir[64];

/* Check fixtures. */
void conf_setup(void);
void conf_teardown(void);

/* Write conf_dir/name. */
void conf_put(const char *name, const char *text);

/*
 * pf_settings_load_opts() from conf_dir with host name "vm" (as on the machine the lvm2
 * checks ran on), one --config string (or none) and the given system ID hook.
 */
int conf_load(const char *config, bool strict, pf_settings_system_id_fn *system_id,
	      struct pf_settings *s, struct pf_diag *d);

/* The same without strict, failing the test unless it loads. */
void conf_load_ok(const char *config, pf_settings_system_id_fn *system_id, struct pf_settings *s);

/* Whether one of the load's warnings contains text. */
bool conf_has_warning(const struct pf_settings *s, const char *text);

#endif /* PF_TEST_CONFDIR_H */
