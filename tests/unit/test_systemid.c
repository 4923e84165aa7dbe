/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's system ID as lvm2 2.03.16 resolves it. Expected IDs are what "lvm systemid"
 * printed for the same settings (and, for appmachineid, the same /etc/machine-id).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "confdir.h"
#include "config/settings.h"
#include "config/systemid.h"
#include "unit.h"

/* lvm2's application ID (lib/commands/toolcontext.c), written out here independently. */
#define LVM2_APP_ID SD_ID128_MAKE(f6, 44, 06, 83, 2c, 21, 40, e8, ac, 54, 22, d1, 08, 9a, ae, 03)
#define ALL_ZERO    "00000000000000000000000000000000"

static int load_cfg(const char *config, bool strict, struct pf_settings *s, struct pf_diag *d)
{
	return conf_load(config, strict, pf_systemid_resolve, s, d);
}

static void load_ok(const char *config, struct pf_settings *s)
{
	conf_load_ok(config, pf_systemid_resolve, s);
}

/* lvm2's sanitising (lvm systemid agrees on each). */
START_TEST(test_from_string)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "..-a b+c/d", "ab+cd" },
		{ " \t my host!", "myhost" },
		{ "Host_1.example-x", "Host_1.example-x" },
		{ "localhost.x", NULL },
		{ "---", NULL },
		{ "", "" },
	};
	char long_in[300], *id;
	const char *why;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		id = pf_systemid_from_string(t[i].in, &why);
		if (t[i].out) {
			ck_assert_ptr_nonnull(id);
			ck_assert_str_eq(id, t[i].out);
		} else {
			ck_assert_ptr_null(id);
			ck_assert_ptr_nonnull(why);
		}
		free(id);
	}
	/* At most 128 characters are kept (the reference's 127 is one short). */
	memset(long_in, 'a', sizeof(long_in) - 1);
	long_in[sizeof(long_in) - 1] = '\0';
	id = pf_systemid_from_string(long_in, &why);
	ck_assert_uint_eq(strlen(id), 128);
	free(id);
}
END_TEST

/* global/system_id_source, with what "lvm systemid" printed for the same settings. */
START_TEST(test_sources)
{
	static const struct {
		const char *cfg;
		const char *id; /* NULL: no system ID */
		bool unknown;
	} t[] = {
		{ "global/system_id_source=\"none\"", NULL, false },
		{ "global/system_id_source=\"NONE\"", NULL, true },
		{ "global/system_id_source=\"UNAME\"", "vm", false },
		{ "global/system_id_source=\"lvmlocal\" local/system_id=\"..-a b+c/d\"", "ab+cd",
		  false },
		{ "global/system_id_source=\"lvmlocal\" local/system_id=\"\"", NULL, true },
		{ "global/system_id_source=\"lvmlocal\" local/system_id=\"localhostfoo\"", NULL,
		  true },
		{ "global/system_id_source=\"lvmlocal\"", NULL, true },
		{ "global/system_id_source=\"file\"", NULL, true },
		{ "global/system_id_source=\"bogus\"", NULL, true },
		{ "global/system_id_source=\"\"", NULL, false }, /* "" is ignored: "none" */
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_settings s;

		load_ok(t[i].cfg, &s);
		if (t[i].id) {
			ck_assert_ptr_nonnull(s.system_id);
			ck_assert_str_eq(s.system_id, t[i].id);
		} else {
			ck_assert_msg(!s.system_id, "%s: %s", t[i].cfg, s.system_id);
		}
		ck_assert_msg(s.system_id_unknown == t[i].unknown, "%s", t[i].cfg);
		pf_settings_release(&s);
	}
}
END_TEST

/* local/system_id from lvmlocal.conf with another source: lvm2 asks, and uses the source. */
START_TEST(test_local_without_lvmlocal)
{
	struct pf_settings s;
	struct pf_diag d;

	conf_put("lvmlocal.conf", "local { system_id = \"foo\" }\n");
	load_ok(NULL, &s);
	ck_assert_str_eq(s.system_id_source, "none");
	ck_assert_str_eq(s.local_system_id, "foo");
	ck_assert_ptr_null(s.system_id);
	ck_assert(conf_has_warning(&s, "should global/system_id_source be \"lvmlocal\""));
	pf_settings_release(&s);
	ck_assert_int_eq(load_cfg("global/system_id_source=\"uname\"", true, &s, &d), -EBADMSG);
	ck_assert(strstr(d.msg, "--config: local/system_id is set"));
	ck_assert_uint_eq(d.line, 1);
	load_ok("global/system_id_source=\"lvmlocal\"", &s);
	ck_assert_str_eq(s.system_id, "foo");
	ck_assert_uint_eq(s.n_warnings, 0);
	pf_settings_release(&s);
}
END_TEST

/* pf_settings_load() resolves the system ID, with uname()'s host name. */
START_TEST(test_settings_load)
{
	const char *cfg = "global/system_id_source=\"uname\"";
	struct pf_settings s;
	struct pf_diag d;
	char host[256];

	ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
	ck_assert_int_eq(pf_settings_load(conf_dir, &cfg, 1, &s, &d), 0);
	ck_assert_str_eq(s.system_id_source, "uname");
	if (s.system_id) {
		char *want;
		const char *why;

		want = pf_systemid_from_string(host, &why);
		ck_assert_ptr_nonnull(want);
		ck_assert_str_eq(s.system_id, want);
		free(want);
	} else {
		ck_assert(s.system_id_unknown);
	}
	pf_settings_release(&s);
}
END_TEST

static void load_source(const char *source, struct pf_settings *s)
{
	char cfg[256];

	(void)snprintf(cfg, sizeof(cfg),
		       "global/system_id_source=\"%s\" global/etc=\"%s\" "
		       "global/system_id_file=\"%s/sid\"",
		       source, conf_dir, conf_dir);
	load_ok(cfg, s);
}

START_TEST(test_files)
{
	struct pf_settings s;
	char path[128];

	/* First line that is not blank or a comment; "localhost" lines are skipped. */
	conf_put("sid", "# c\n   \n  localhost.x\n \t my host!#x\nsecond\n");
	load_source("file", &s);
	ck_assert_str_eq(s.system_id, "myhost");
	ck_assert(conf_has_warning(&s, "extra line"));
	pf_settings_release(&s);

	/* machineid reads <global/etc>/machine-id. */
	conf_put("machine-id", "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
	load_source("machineid", &s);
	ck_assert_str_eq(s.system_id, "3d1219c7c4c5404aaa1f6d2a48adfda4");
	pf_settings_release(&s);
	load_source("machine-id", &s);
	ck_assert_str_eq(s.system_id, "3d1219c7c4c5404aaa1f6d2a48adfda4");
	pf_settings_release(&s);

	(void)snprintf(path, sizeof(path), "%s/sid", conf_dir);
	ck_assert_int_eq(unlink(path), 0);
	load_source("file", &s);
	ck_assert_ptr_null(s.system_id);
	ck_assert(s.system_id_unknown);
	ck_assert(conf_has_warning(&s, "cannot open"));
	pf_settings_release(&s);
	/* A directory cannot be read either. */
	ck_assert_int_eq(mkdir(path, 0700), 0);
	load_source("file", &s);
	ck_assert(s.system_id_unknown);
	ck_assert(conf_has_warning(&s, "cannot open"));
	pf_settings_release(&s);
}
END_TEST

/* appmachineid here: libsystemd's answer for lvm2's application ID, whatever global/etc says. */
START_TEST(test_appmachineid_host)
{
	char want[SD_ID128_STRING_MAX];
	struct pf_settings s;
	sd_id128_t id;

	conf_put("machine-id", "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
	load_source("appmachineid", &s);
	if (sd_id128_get_machine_app_specific(LVM2_APP_ID, &id) == 0) {
		ck_assert_str_eq(s.system_id, sd_id128_to_string(id, want));
		ck_assert_uint_eq(s.n_warnings, 0);
	} else {
		ck_assert_str_eq(s.system_id, ALL_ZERO);
		ck_assert(conf_has_warning(&s, "all-zero"));
	}
	pf_settings_release(&s);
}
END_TEST

/*
 * In a child with its own mount namespace and machine_id bind-mounted over /etc/machine-id
 * (libsystemd reads only that path, once per process): the appmachineid system ID into out.
 * Returns false when the namespace cannot be had (not root).
 */
static bool appmachineid_with(const char *machine_id, char *out, size_t size)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	conf_put("machine-id", machine_id);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char path[128];
		struct pf_settings s;
		struct pf_diag d;

		(void)snprintf(path, sizeof(path), "%s/machine-id", conf_dir);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(path, "/etc/machine-id", NULL, MS_BIND, NULL) < 0)
			_exit(77);
		if (load_cfg("global/system_id_source=\"appmachineid\"", false, &s, &d) < 0 ||
		    !s.system_id)
			_exit(1);
		if (write(fds[1], s.system_id, strlen(s.system_id)) < 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(close(fds[1]), 0);
	n = read(fds[0], out, size - 1);
	ck_assert_int_eq(close(fds[0]), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		return false;
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
	return true;
}

/* appmachineid for machine-ids lvm2 was run with ("lvm systemid", machine-id bind-mounted). */
START_TEST(test_appmachineid_lvm2)
{
	static const struct {
		const char *machine_id, *app_id;
	} m[] = {
		{ "3d1219c7c4c5404aaa1f6d2a48adfda4", "8904c2aa8c6a4e68973b69d39b56789b" },
		{ "3D1219C7C4C5404AAA1F6D2A48ADFDA4\n", "8904c2aa8c6a4e68973b69d39b56789b" },
		{ "3d1219c7c4c5404aaa1f6d2a48adfda4\n\n", ALL_ZERO },
		{ "", ALL_ZERO },
		{ "uninitialized\n", ALL_ZERO },
		{ "00000000000000000000000000000000\n", ALL_ZERO },
		{ "3d1219c7-c4c5-404a-aa1f-6d2a48adfda4\n", ALL_ZERO },
	};
	char got[64];

	if (access("/etc/machine-id", F_OK) < 0) {
		fprintf(stderr, "test_appmachineid_lvm2: skipped: no /etc/machine-id\n");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		if (!appmachineid_with(m[i].machine_id, got, sizeof(got))) {
			fprintf(stderr, "test_appmachineid_lvm2: skipped: no mount namespace\n");
			return;
		}
		ck_assert_msg(!strcmp(got, m[i].app_id), "machine-id \"%s\": %s", m[i].machine_id,
			      got);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("systemid");
	TCase *tc = pf_unit_tcase("systemid");

	tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
	tcase_add_test(tc, test_from_string);
	tcase_add_test(tc, test_sources);
	tcase_add_test(tc, test_local_without_lvmlocal);
	tcase_add_test(tc, test_settings_load);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_appmachineid_host);
	tcase_add_test(tc, test_appmachineid_lvm2);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
