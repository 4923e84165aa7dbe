/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A scratch config directory (LVM_SYSTEM_DIR) for the settings and system ID suites. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confdir.h"
#include "unit.h"

char conf_dir[64];

void conf_setup(void)
{
	strcpy(conf_dir, "/tmp/pf-settings-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(conf_dir));
}

void conf_teardown(void)
{
	char cmd[128];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", conf_dir);
	ck_assert_int_eq(system(cmd), 0);
}

void conf_put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s", conf_dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

int conf_load(const char *config, bool strict, pf_settings_system_id_fn *system_id,
	      struct pf_settings *s, struct pf_diag *d)
{
	const struct pf_settings_opts o = { .etc = conf_dir,
					    .config = &config,
					    .n_config = config ? 1 : 0,
					    .hostname = "vm",
					    .strict = strict,
					    .system_id = system_id };

	memset(d, 0, sizeof(*d));
	return pf_settings_load_opts(&o, s, d);
}

void conf_load_ok(const char *config, pf_settings_system_id_fn *system_id, struct pf_settings *s)
{
	struct pf_diag d;

	ck_assert_msg(conf_load(config, false, system_id, s, &d) == 0, "%s (line %u col %u)",
		      d.msg, d.line, d.col);
}

bool conf_has_warning(const struct pf_settings *s, const char *text)
{
	for (size_t i = 0; i < s->n_warnings; i++)
		if (strstr(s->warnings[i].msg, text))
			return true;
	return false;
}
