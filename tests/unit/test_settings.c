/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.conf as lvm2 2.03.16 reads it. Expected values come from lvmconfig and from the
 * behaviour of lvm2's pvscan with the same files (see each test).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confdir.h"
#include "config/settings.h"
#include "device/filter.h"
#include "unit.h"

static int load_cfg(const char *config, bool strict, struct pf_settings *s, struct pf_diag *d)
{
	return conf_load(config, strict, NULL, s, d);
}

static void load_ok(const char *config, struct pf_settings *s)
{
	conf_load_ok(config, NULL, s);
}

static void assert_strv(const struct pf_settings_strv *v, const char *const *want, size_t n)
{
	ck_assert(v->set);
	ck_assert_uint_eq(v->n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(v->v[i], want[i]);
}

#define ASSERT_STRV(v, ...)                                                                        \
	do {                                                                                       \
		static const char *const w_[] = { __VA_ARGS__ };                                   \
		assert_strv(v, w_, ARRAY_SIZE(w_));                                                \
	} while (0)

/* lvmconfig --type default, lvm2 2.03.16 as built by Debian. */
static void assert_defaults(const struct pf_settings *s)
{
	ck_assert(s->event_activation);
	ck_assert(!s->use_devicesfile);
	ck_assert_str_eq(s->devicesfile, "system.devices");
	ck_assert_ptr_null(s->devicesfile_path);
	ck_assert(!s->global_filter.set);
	ck_assert(!s->filter.set);
	ck_assert_uint_eq(s->n_types, 0);
	ck_assert(!s->scan_lvs);
	ck_assert(s->multipath_component_detection);
	ck_assert(s->md_component_detection);
	ck_assert_str_eq(s->md_component_checks, "auto");
	ck_assert_int_eq(s->pv_min_size_kib, 2048);
	ck_assert_str_eq(s->multipath_wwids_file, "/etc/multipath/wwids");
	ck_assert_str_eq(s->hints, "all");
	ck_assert_ptr_null(s->system_id_file);
	ck_assert_str_eq(s->etc, "/etc");
	ck_assert_ptr_null(s->system_id);
	ck_assert(!s->system_id_unknown);
	ck_assert(!s->auto_activation_volume_list.set);
	ck_assert(!s->volume_list.set);
	ck_assert(!s->hosttags);
	ck_assert(!s->host_tags.set);
	ck_assert_uint_eq(s->scan_timeout_sec, PF_SETTINGS_SCAN_TIMEOUT_DEFAULT);
	ck_assert(s->udev_rules);
	ck_assert(s->udev_sync);
	ck_assert(!s->verify_udev_operations);
	/* degraded activation is pvscan-fast's own and off unless asked for */
	ck_assert(!s->degraded_activation);
	ck_assert_uint_eq(s->degraded_timeout_sec, PF_SETTINGS_DEGRADED_TIMEOUT_DEFAULT);
	ck_assert_uint_eq(s->n_warnings, 0);
}

START_TEST(test_defaults)
{
	struct pf_settings s;
	struct pf_diag d;

	/* No lvm.conf at all, then an empty one, then a comment-only one. */
	load_ok(NULL, &s);
	assert_defaults(&s);
	ck_assert_ptr_null(s.system_id_source); /* no system ID hook: left to it */
	pf_settings_release(&s);
	conf_put("lvm.conf", "");
	load_ok(NULL, &s);
	assert_defaults(&s);
	pf_settings_release(&s);
	conf_put("lvm.conf", "# nothing\nconfig {\n\tchecks = 1\n}\n");
	ck_assert_int_eq(pf_settings_load(conf_dir, NULL, 0, &s, &d), 0);
	assert_defaults(&s);
	ck_assert_str_eq(s.system_id_source, "none");
	ck_assert_ptr_null(s.local_system_id);
	pf_settings_release(&s);
	/* A directory that does not exist is a system without lvm.conf. */
	{
		const struct pf_settings_opts o = { .etc = "/nonexistent/pf-settings" };

		ck_assert_int_eq(pf_settings_load_opts(&o, &s, &d), 0);
		assert_defaults(&s);
		pf_settings_release(&s);
	}
	pf_settings_release(NULL);
}
END_TEST

START_TEST(test_syntax_errors)
{
	static const struct {
		const char *file, *text, *config;
		unsigned line, col;
		const char *msg;
	} t[] = {
		{ "lvm.conf", "devices {\n  filter = [ \"a|x|\" \n}\n", NULL, 3, 1, "lvm.conf: " },
		{ "lvm.conf", "devices {\n  scan_lvs = 1\n", NULL, 3, 1, "not closed" },
		{ "lvmlocal.conf", "local { system_id = \"x\" \n", NULL, 2, 1, "lvmlocal.conf: " },
		{ "lvm.conf", "", "devices { filter = }", 1, 20, "--config: " },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_settings s = { .n_warnings = 42 };
		struct pf_diag d;

		conf_put(t[i].file, t[i].text);
		ck_assert_int_eq(load_cfg(t[i].config, false, &s, &d), -EBADMSG);
		ck_assert_msg(strstr(d.msg, t[i].msg), "case %zu: %s", i, d.msg);
		ck_assert_msg(d.line == t[i].line && d.col == t[i].col, "case %zu: %u:%u", i,
			      d.line, d.col);
		ck_assert_uint_eq(s.n_warnings, 42); /* untouched */
		conf_put(t[i].file, "");
	}
}
END_TEST

/* lvmconfig (2.03.16) prints exactly this merge of these files for host "vm". */
START_TEST(test_merge_files)
{
	struct pf_settings s;

	conf_put("lvm.conf", "devices {\n"
			"	filter = [ \"a|one|\" ]\n"
			"	global_filter = [ \"a|g1|\" ]\n"
			"	scan_lvs = 1\n"
			"	scan_lvs = 0\n"		/* the last one wins */
			"	types = [ \"fd\", 16 ]\n"
			"}\n"
			"devices {\n"			/* sections merge */
			"	filter = [ \"a|two|\" ]\n"
			"	pv_min_size = 4096\n"
			"}\n"
			"global {\n	event_activation = 0\n}\n"
			"activation { volume_list = [ \"vg1\" ]\n"
			"	auto_activation_volume_list = [ \"vgA\" ] }\n"
			"tags { hosttags = 1 t1 { host_list = [ \"other\" ] } t2 { }\n"
			"       \"@t3\" { host_list = [ \"vm\", \"x\" ] } }\n");
	conf_put("lvmlocal.conf", "devices {\n"
			     "	filter = [ \"a|local|\" ]\n"
			     "	global_filter = [ \"a|glocal|\" ]\n"
			     "	types = [ \"xd\", 8 ]\n"
			     "}\n"
			     "global { event_activation = 1 }\n"
			     "local { system_id = \"foo\" }\n"
			     "activation { volume_list = [ \"vg2\" ]\n"
			     "	auto_activation_volume_list = [ \"vgB\" ] }\n");
	conf_put("lvm_vm.conf", "activation { volume_list = [ \"@vmtag\" ] }\n"
			   "devices { tags = [ \"@t2\" ] hints = \"none\" }\n"
			   "tags { t9 {} }\n");
	conf_put("lvm_t9.conf", "devices { md_component_checks = \"full\" }\n");
	conf_put("lvm_t1.conf", "devices { scan_lvs = 1 }\n"); /* t1 is not ours: never read */
	load_ok(NULL, &s);
	ck_assert(s.event_activation);
	ASSERT_STRV(&s.global_filter, "a|glocal|");
	/* compat: lvm2 puts a later file's filter first and keeps the earlier entries. */
	ASSERT_STRV(&s.filter, "a|local|", "a|two|");
	ck_assert_uint_eq(s.n_types, 2);
	ck_assert_str_eq(s.types[0].name, "xd");
	ck_assert_int_eq(s.types[0].max_partitions, 8);
	ck_assert_str_eq(s.types[1].name, "fd");
	ck_assert_int_eq(s.types[1].max_partitions, 16);
	ck_assert(!s.scan_lvs);
	ck_assert_int_eq(s.pv_min_size_kib, 4096);
	ck_assert_str_eq(s.hints, "none");
	ck_assert_str_eq(s.md_component_checks, "full");
	ASSERT_STRV(&s.volume_list, "@vmtag", "vg2", "vg1");
	ASSERT_STRV(&s.auto_activation_volume_list, "vgB");
	ck_assert(s.hosttags);
	ASSERT_STRV(&s.host_tags, "vm", "t2", "t3", "t9");
	/* Where the filter came from: lvmlocal.conf, line 2. */
	ck_assert(strstr(s.filter.origin.file, "lvmlocal.conf"));
	ck_assert_uint_eq(s.filter.origin.line, 2);
	pf_settings_release(&s);

	/* A section whose tags do not match the host's is left out whole. */
	conf_put("lvm_vm.conf", "devices { tags = [ \"@nomatch\" ] hints = \"none\" }\n");
	load_ok(NULL, &s);
	ck_assert_str_eq(s.hints, "all");
	ASSERT_STRV(&s.host_tags, "vm", "t2", "t3");
	pf_settings_release(&s);
}
END_TEST

/* --config is looked at first, node by node: no merging (lvmconfig --mergedconfig agrees). */
START_TEST(test_config_override)
{
	const char *two[] = { "devices/scan_lvs=1 devices/hints=\"none\"", "devices/scan_lvs=0" };
	const struct pf_settings_opts o = { .etc = conf_dir, .config = two, .n_config = 2 };
	struct pf_settings s;
	struct pf_diag d;

	conf_put("lvm.conf", "devices { filter = [ \"a|one|\" ] scan_lvs = 1 }\n");
	conf_put("lvmlocal.conf", "devices { filter = [ \"a|local|\" ] }\n");
	load_ok("devices/filter=[\"a|cmd|\"] devices { scan_lvs=0 } global/event_activation=\"no\"",
		&s);
	ASSERT_STRV(&s.filter, "a|cmd|");
	ck_assert(!s.scan_lvs);
	ck_assert(!s.event_activation);
	pf_settings_release(&s);
	/* lvm2 refuses a second --config; joined here, the last value wins. */
	ck_assert_int_eq(pf_settings_load_opts(&o, &s, &d), 0);
	ck_assert(!s.scan_lvs);
	ck_assert_str_eq(s.hints, "none");
	pf_settings_release(&s);
	/* A value of the wrong type in --config still hides the files' value, as in lvm2. */
	load_ok("devices/scan_lvs=\"maybe\"", &s);
	ck_assert(!s.scan_lvs);
	ck_assert(conf_has_warning(&s, "--config: devices/scan_lvs invalid"));
	pf_settings_release(&s);
}
END_TEST

/*
 * global/event_activation through lvm2's boolean rules; the second column is what lvm2's
 * "pvscan --cache -aay" did with the value (enabled or not), the third whether lvm2 warns.
 */
START_TEST(test_booleans)
{
	static const struct {
		const char *v;
		bool on, warns;
	} t[] = {
		{ "\"no\"", false, false }, { "\"abc\"", true, true }, { "2", true, false },
		{ "[0, 1]", false, true },  { "0.0", true, true },	 { "\"\"", true, true },
		{ "[]", true, true },	    { "\"NO\"", false, false }, { "\"off\"", false, false },
		{ "-1", true, false },	    { "\"y\"", true, false },   { "[0]", false, false },
		{ "\"False\"", false, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char cfg[64];
		struct pf_settings s;

		(void)snprintf(cfg, sizeof(cfg), "global/event_activation=%s", t[i].v);
		load_ok(cfg, &s);
		ck_assert_msg(s.event_activation == t[i].on, "%s", t[i].v);
		ck_assert_msg((s.n_warnings > 0) == t[i].warns, "%s: %zu warnings", t[i].v,
			      s.n_warnings);
		pf_settings_release(&s);
	}
}
END_TEST

/* Who makes the LVs' /dev entries: activation/udev_rules, udev_sync, verify_udev_operations. */
START_TEST(test_udev_keys)
{
	struct pf_settings s;

	load_ok("activation/udev_rules=0", &s);
	ck_assert(!s.udev_rules);
	ck_assert(s.udev_sync);
	pf_settings_release(&s);
	load_ok("activation/udev_sync=0", &s);
	ck_assert(s.udev_rules);
	ck_assert(!s.udev_sync);
	pf_settings_release(&s);
	load_ok("activation/verify_udev_operations=1", &s);
	ck_assert(s.verify_udev_operations);
	pf_settings_release(&s);
}
END_TEST

/* Values lvm2 warns about and replaces (all checked with lvm2's pvscan or lvmconfig). */
START_TEST(test_value_rules)
{
	static const struct {
		const char *cfg;
		const char *warning; /* NULL: no warning */
	} t[] = {
		{ "devices/pv_min_size=100", "ignoring too small pv_min_size 100KB" },
		{ "devices/pv_min_size=4294967296", "too small pv_min_size 0KB" },
		{ "devices/pv_min_size=\"big\"", "found string, expected integer" },
		{ "devices/pv_min_size=1.5", "found float, expected integer" },
		{ "devices/md_component_checks=\"bogus\"", "unknown md_component_checks" },
		{ "devices/hints=1", "found integer, expected string" },
		{ "devices/devicesfile=\"\"", "cannot be set to an empty value" },
		{ "devices/multipath_wwids_file=\"\"", NULL },
		{ "devices/types { }", "devices/types is a section" },
		{ "pvscan_fast/scan_timeout=0", "scan_timeout must be 1 to" },
		{ "pvscan_fast/scan_timeout=5", NULL },
		{ "pvscan_fast/degraded_activation_timeout=0", "degraded_activation_timeout must be" },
		{ "pvscan_fast/degraded_activation_timeout=86401", "must be 1 to 86400" },
		{ "pvscan_fast/degraded_activation=\"x\"", "expected a boolean" },
	};
	struct pf_settings s;
	struct pf_diag d;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		load_ok(t[i].cfg, &s);
		if (t[i].warning)
			ck_assert_msg(conf_has_warning(&s, t[i].warning), "%s: %s", t[i].cfg,
				      s.n_warnings ? s.warnings[0].msg : "no warning");
		else
			ck_assert_msg(s.n_warnings == 0, "%s: %s", t[i].cfg, s.warnings[0].msg);
		pf_settings_release(&s);
		/* strict turns each warning into an error, with the position. */
		if (t[i].warning) {
			ck_assert_int_eq(load_cfg(t[i].cfg, true, &s, &d), -EBADMSG);
			ck_assert_msg(strstr(d.msg, t[i].warning), "%s", d.msg);
			ck_assert_uint_eq(d.line, 1);
		}
	}
	load_ok("devices/pv_min_size=100 devices/multipath_wwids_file=\"\" "
		"devices/devicesfile=\"\" pvscan_fast/scan_timeout=7",
		&s);
	ck_assert_int_eq(s.pv_min_size_kib, 512);
	ck_assert_str_eq(s.multipath_wwids_file, "");
	ck_assert_str_eq(s.devicesfile, "system.devices");
	ck_assert_uint_eq(s.scan_timeout_sec, 7);
	pf_settings_release(&s);
	load_ok("pvscan_fast { degraded_activation = 1 degraded_activation_timeout = 45 }", &s);
	ck_assert(s.degraded_activation);
	ck_assert_uint_eq(s.degraded_timeout_sec, 45);
	pf_settings_release(&s);
}
END_TEST

/* Settings lvm2 refuses outright (each checked with lvm2's pvscan). */
START_TEST(test_refused)
{
	static const struct {
		const char *cfg, *msg;
	} t[] = {
		{ "devices/filter=[]", "devices/filter[0]: filter patterns must be strings" },
		{ "devices/filter=[\"a|x|\", 1]", "devices/filter[1]: filter patterns must be" },
		{ "devices { filter { } }", "devices/filter is a section" },
		{ "devices/global_filter=[2]", "devices/global_filter[0]" },
		{ "devices/types=[]", "expecting string in devices/types" },
		{ "devices/types=[\"fd\"]", "max partition count missing for fd" },
		{ "devices/types=[\"fd\", 0]", "zero partition count invalid for fd" },
		{ "devices/types=[16, \"fd\"]", "expecting string in devices/types" },
		{ "devices/devicesfile=\"a/b\" devices/use_devicesfile=1",
		  "invalid devices file name \"a/b\"" },
	};
	struct pf_settings s;
	struct pf_diag d;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		ck_assert_int_eq(load_cfg(t[i].cfg, false, &s, &d), -EBADMSG);
		ck_assert_msg(strstr(d.msg, t[i].msg), "%s: %s", t[i].cfg, d.msg);
		ck_assert_msg(strstr(d.msg, "--config: "), "%s", d.msg);
	}
	/* The same name is fine while the devices file is off. */
	load_ok("devices/devicesfile=\"a/b\"", &s);
	ck_assert_ptr_null(s.devicesfile_path);
	pf_settings_release(&s);
	load_ok("devices/use_devicesfile=1 devices/devicesfile=\"test.devices\"", &s);
	ck_assert(s.use_devicesfile);
	ck_assert(strstr(s.devicesfile_path, "/devices/test.devices"));
	ck_assert(!strncmp(s.devicesfile_path, conf_dir, strlen(conf_dir)));
	pf_settings_release(&s);
}
END_TEST

START_TEST(test_filters)
{
	struct pf_filter *g = NULL, *f = NULL;
	struct pf_settings s;
	struct pf_diag d;

	conf_put("lvm.conf", "devices {\n"
			"  global_filter = \"r|loop9|\"\n" /* a single string is a list of one */
			"  filter = [ \"a|sd|\",\n \"r|.*|\" ]\n"
			"}\n");
	load_ok(NULL, &s);
	ASSERT_STRV(&s.global_filter, "r|loop9|");
	ASSERT_STRV(&s.filter, "a|sd|", "r|.*|");
	ck_assert_uint_eq(s.filter.origin.line, 3);
	ck_assert_uint_eq(s.filter.origin.col, 3);
	ck_assert_int_eq(pf_settings_compile_filters(&s, &g, &f, &d), 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(f);
	pf_filter_free(g);
	pf_filter_free(f);
	pf_settings_release(&s);

	conf_put("lvm.conf", "devices {\n\n  filter = [ \"a|sd|\", \"r|(|\" ]\n}\n");
	load_ok(NULL, &s);
	g = f = NULL;
	ck_assert_int_eq(pf_settings_compile_filters(&s, &g, &f, &d), -EINVAL);
	ck_assert_ptr_null(g);
	ck_assert_ptr_null(f);
	ck_assert_msg(strstr(d.msg, "lvm.conf: devices/filter[1] \"r|(|\": bad regex"), "%s",
		      d.msg);
	ck_assert_uint_eq(d.line, 3);
	pf_settings_release(&s);

	/* Not configured: no filter objects at all. */
	conf_put("lvm.conf", "");
	load_ok(NULL, &s);
	ck_assert_int_eq(pf_settings_compile_filters(&s, &g, &f, &d), 0);
	ck_assert_ptr_null(g);
	ck_assert_ptr_null(f);
	pf_settings_release(&s);
}
END_TEST

/* Set-but-empty is not unset; "[]" ends a list; stray entries are dropped, with a warning. */
START_TEST(test_volume_lists)
{
	struct pf_settings s;

	load_ok("activation/auto_activation_volume_list=[]", &s);
	ck_assert(s.auto_activation_volume_list.set);
	ck_assert_uint_eq(s.auto_activation_volume_list.n, 0);
	ck_assert(!s.volume_list.set);
	pf_settings_release(&s);

	/* Empty entries stay: lvm2 says it ignores them each time it checks an LV (aapolicy). */
	load_ok("activation/volume_list=[\"vg1\", 3, \"\", \"@\", \"vg2/lv\", \"@*\"]", &s);
	ASSERT_STRV(&s.volume_list, "vg1", "", "@", "vg2/lv", "@*");
	ck_assert_uint_eq(s.n_warnings, 1);
	pf_settings_release(&s);

	/* lvmlocal.conf's "[]" goes first in the merged list: lvm2 then matches nothing. */
	conf_put("lvm.conf", "activation { volume_list = [ \"vg1\" ] }\n");
	conf_put("lvmlocal.conf", "activation { volume_list = [] }\n");
	load_ok(NULL, &s);
	ck_assert(s.volume_list.set);
	ck_assert_uint_eq(s.volume_list.n, 0);
	pf_settings_release(&s);
	conf_put("lvm.conf", "activation { volume_list = [] }\n");
	conf_put("lvmlocal.conf", "activation { volume_list = [ \"vg1\" ] }\n");
	load_ok(NULL, &s);
	ASSERT_STRV(&s.volume_list, "vg1");
	pf_settings_release(&s);
}
END_TEST

/* Tags: each case's outcome was checked with lvm2's pvscan and these files, host "vm". */
START_TEST(test_tags)
{
	static const struct {
		const char *conf;
		int r;
		const char *tags; /* space-separated; NULL: none */
	} t[] = {
		{ "tags { \"bad tag\" { } }", -EBADMSG, NULL },
		{ "tags { t1 { host_filter = 1 } }", -EBADMSG, NULL },
		{ "tags { t1 { host_list = [ 1 ] } }", -EBADMSG, NULL },
		{ "tags { t1 { host_list = [ \"vm\" ] host_filter = 1 } }", 0, "t1" },
		{ "tags { t1 { host_filter = 1 host_list = [ \"vm\" ] } }", -EBADMSG, NULL },
		{ "tags { t1 { host_list = [ \"zz\" ] host_filter = 1 } }", -EBADMSG, NULL },
		{ "tags { t1 { host_list = [] } }", 0, NULL },
		{ "tags { hosttags = \"yes\" }", 0, "vm" },
		{ "tags { @t1 {} t1 {} }", 0, "t1" },
		{ "tags { t1 {} }\ntags { t2 { host_list = \"vm\" } hosttags = 1 }", 0,
		  "vm t1 t2" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_settings s = { 0 };
		struct pf_diag d;
		char got[128] = "";

		conf_put("lvm.conf", t[i].conf);
		ck_assert_msg(load_cfg(NULL, false, &s, &d) == t[i].r, "%s: %s", t[i].conf, d.msg);
		if (t[i].r < 0)
			continue;
		for (size_t k = 0; k < s.host_tags.n; k++)
			(void)snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
				       k ? " " : "", s.host_tags.v[k]);
		ck_assert_msg(!strcmp(got, t[i].tags ? t[i].tags : ""), "%s: [%s]", t[i].conf, got);
		pf_settings_release(&s);
	}
	/* Tags from --config count for nothing, as in lvm2. */
	conf_put("lvm.conf", "");
	{
		struct pf_settings s;

		load_ok("tags { hosttags = 1 t1 { } }", &s);
		ck_assert(!s.host_tags.set);
		pf_settings_release(&s);
	}
}
END_TEST

START_TEST(test_caps_and_io)
{
	char path[128];
	struct pf_settings s;
	struct pf_diag d;
	FILE *f;
	int fd;

	/* lvm.conf that is a directory cannot be read. */
	(void)snprintf(path, sizeof(path), "%s/lvm.conf", conf_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), -EISDIR);
	ck_assert(strstr(d.msg, "lvm.conf: cannot read"));
	ck_assert_int_eq(rmdir(path), 0);
	/* Larger than the cap (sparse). */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)PF_SETTINGS_FILE_MAX + 1), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), -E2BIG);
	/* Too many settings in one section. */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("devices {\n", f);
	for (unsigned i = 0; i <= PF_SETTINGS_KEYS_MAX; i++)
		fprintf(f, "k%u = %u\n", i, i);
	fputs("}\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), -E2BIG);
	ck_assert(strstr(d.msg, "settings"));
	/* Too many nodes: the same few keys over and over stay cheap to group. */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("devices {\n", f);
	for (size_t i = 0; i <= PF_SETTINGS_NODES_MAX; i++)
		fprintf(f, "k%zu = 1\n", i % (PF_SETTINGS_KEYS_MAX - 1));
	fputs("}\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), -E2BIG);
	ck_assert(strstr(d.msg, "lvm.conf: "));
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("devices {\n", f);
	for (size_t i = 0; i < PF_SETTINGS_NODES_MAX / 3; i++)
		fprintf(f, "k%zu = 1\n", i % (PF_SETTINGS_KEYS_MAX - 1));
	fputs("}\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), 0);
	pf_settings_release(&s);
}
END_TEST

/* ---- pf_settings_event_activation: the follower path's cheap look ---- */

/* The answer, or the error; *ret must stay untouched on failure. */
static int event_activation(const char *config, bool *ret)
{
	bool v = true;
	int r;

	r = pf_settings_event_activation(conf_dir, &config, config ? 1 : 0, &v);
	if (r < 0) {
		bool w = false;

		ck_assert(v);
		ck_assert_int_eq(
			pf_settings_event_activation(conf_dir, &config, config ? 1 : 0, &w), r);
		ck_assert(!w);
		return r;
	}
	*ret = v;
	return 0;
}

static bool ea(const char *config)
{
	bool v = false;

	ck_assert_int_eq(event_activation(config, &v), 0);
	return v;
}

START_TEST(test_ea_default)
{
	/* no file at all */
	ck_assert(ea(NULL));
	conf_put("lvm.conf", "");
	conf_put("lvmlocal.conf", "");
	ck_assert(ea(NULL));
	conf_put("lvm.conf", "devices { scan_lvs = 0 }\n");
	ck_assert(ea("devices/scan_lvs=0"));
}
END_TEST

START_TEST(test_ea_comment_not_parsed)
{
	struct pf_settings s;
	struct pf_diag d;

	/* Broken past a comment naming the key: the cheap look does not parse it at all. */
	conf_put("lvm.conf",
		 "# event_activation = 0\n  #event_activation=0\ndevices { scan_lvs = \n");
	ck_assert_int_eq(load_cfg(NULL, false, &s, &d), -EBADMSG);
	ck_assert(ea(NULL));
	conf_put("lvm.conf", "# global { event_activation = 0 }\n");
	conf_put("lvmlocal.conf", "local {\n\t# event_activation = 0\n}\n");
	ck_assert(ea(NULL));
	ck_assert(ea("# global/event_activation=0"));
	/* the word elsewhere in a comment after a value (lvmconfig: 1) */
	conf_put("lvm.conf", "global { system_id_file = \"/x\" } # event_activation = 0\n");
	ck_assert(ea(NULL));
}
END_TEST

START_TEST(test_ea_set)
{
	static const struct {
		const char *lvm, *local, *config;
		bool want;
	} t[] = {
		/* lvmconfig --type full global/event_activation, lvm2 2.03.16 */
		{ "global { event_activation = 0 }", NULL, NULL, false },
		{ "global {\n\tevent_activation = 0\n}\n", NULL, NULL, false },
		{ "global { event_activation = 1 }", NULL, NULL, true },
		{ "global/event_activation = 0", NULL, NULL, false },
		{ NULL, "global { event_activation = 0 }", NULL, false },
		{ "global { event_activation = 1 }", "global { event_activation = 0 }", NULL,
		  false },
		{ NULL, NULL, "global/event_activation=0", false },
		{ NULL, NULL, "global { event_activation = 0 }", false },
		{ "global { event_activation = 0 }", NULL, "global/event_activation=1", true },
		{ NULL, "global { event_activation = 0 }", "global/event_activation=1", true },
		{ "global { event_activation = 0 }", NULL, "devices/scan_lvs=0", false },
		/* a '#' in a string before the key does not start a comment */
		{ "global { system_id_file = \"/x#y\" event_activation = 0 }", NULL, NULL, false },
		{ NULL, NULL, "global { system_id_file = \"/x#y\" event_activation = 0 }", false },
		/* lvm2's tokenizer: '' strings too, and strings across lines */
		{ "global { system_id_file = '/x#y' event_activation = 0 }", NULL, NULL, false },
		{ NULL, NULL, "global { system_id_file = '/x#y' event_activation = 0 }", false },
		{ "global { system_id_file = \"/x\n#y\" event_activation = 0 }", NULL, NULL,
		  false },
		/* a host tag pulls in lvm_<tag>.conf, which may set it */
		{ "tags { t1 { } }", NULL, NULL, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char path[256];

		(void)snprintf(path, sizeof(path), "%s/lvm.conf", conf_dir);
		(void)unlink(path);
		(void)snprintf(path, sizeof(path), "%s/lvmlocal.conf", conf_dir);
		(void)unlink(path);
		if (t[i].lvm)
			conf_put("lvm.conf", t[i].lvm);
		if (t[i].local)
			conf_put("lvmlocal.conf", t[i].local);
		ck_assert_msg(ea(t[i].config) == t[i].want,
			      "case %zu: lvm.conf [%s] lvmlocal.conf [%s] --config [%s]", i,
			      t[i].lvm ?: "", t[i].local ?: "", t[i].config ?: "");
	}
	conf_put("lvm_t1.conf", "global { event_activation = 0 }\n");
	ck_assert(!ea(NULL));
}
END_TEST

START_TEST(test_ea_errors)
{
	char path[256];
	bool v = true;

	/* a syntax error in text that names the key: the full load reports it */
	conf_put("lvm.conf", "global { event_activation = 0\n");
	ck_assert_int_eq(event_activation(NULL, &v), -EBADMSG);
	conf_put("lvm.conf", "");
	conf_put("lvmlocal.conf", "global { event_activation = = 0 }\n");
	ck_assert_int_eq(event_activation(NULL, &v), -EBADMSG);
	conf_put("lvmlocal.conf", "");
	ck_assert_int_eq(event_activation("global { event_activation = 0", &v), -EBADMSG);
	/* a file there but unreadable */
	(void)snprintf(path, sizeof(path), "%s/lvm.conf", conf_dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_lt(event_activation(NULL, &v), 0);
	ck_assert_int_eq(rmdir(path), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = pf_unit_tcase("settings");

	tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_syntax_errors);
	tcase_add_test(tc, test_merge_files);
	tcase_add_test(tc, test_config_override);
	tcase_add_test(tc, test_booleans);
	tcase_add_test(tc, test_udev_keys);
	tcase_add_test(tc, test_value_rules);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_volume_lists);
	tcase_add_test(tc, test_tags);
	tcase_add_test(tc, test_caps_and_io);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("event_activation");
	tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
	tcase_add_test(tc, test_ea_default);
	tcase_add_test(tc, test_ea_comment_not_parsed);
	tcase_add_test(tc, test_ea_set);
	tcase_add_test(tc, test_ea_errors);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
