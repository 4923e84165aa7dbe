/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The boot's VGs from the kernel command line and fstab, and their move to the front. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activate/bootorder.h"
#include "unit.h"

/* parse, then compare with the space-separated names in want ("" for none) */
static void expect(const char *cmdline, const char *fstab, const char *want)
{
	struct pf_strv s;
	char got[1024] = "";

	ck_assert_int_eq(pf_bootorder_parse(cmdline, fstab, &s), 0);
	for (size_t i = 0; i < s.n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, s.v[i]);
	}
	ck_assert_msg(strcmp(got, want) == 0, "cmdline '%s' fstab '%s': got '%s', want '%s'",
		      cmdline ? cmdline : "(null)", fstab ? fstab : "(null)", got, want);
	pf_strv_release(&s);
}

START_TEST(test_cmdline_devices)
{
	expect("BOOT_IMAGE=/vmlinuz root=/dev/mapper/vgroot-root ro quiet", NULL, "vgroot");
	/* lvm2's dm names double every '-' inside the VG and LV names */
	expect("root=/dev/mapper/my--vg-root--lv", NULL, "my-vg");
	expect("root=/dev/mapper/a--b--c-d-e", NULL, "a-b-c");
	expect("root=/dev/vg1/root resume=/dev/mapper/vgswap-swap\n", NULL, "vg1 vgswap");
	expect("rd.lvm.vg=vgx rd.lvm.lv=vgy/lv0 rd.lvm.lv=vgx/lv1", NULL, "vgx vgy");
}
END_TEST

START_TEST(test_cmdline_not_lvs)
{
	/* no VG: other ways to name a device, a dm name with no LV part, refused names */
	expect("root=UUID=0f0e resume=LABEL=swap root=PARTUUID=1 root=/dev/sda1", NULL, "");
	expect("root=/dev/disk/by-id/dm-name-vg-lv root=/dev/mapper/nolv root=/dev/vg/", NULL,
	       "");
	expect("root=/dev/mapper/-x-y root=/dev/mapper/vg%-lv rd.lvm.lv=novg root= resume=",
	       NULL, "");
	expect("rootfstype=ext4 noresume=/dev/vgz/x myroot=/dev/vgz/x", NULL, "");
	expect("", "", "");
	expect(NULL, NULL, "");
}
END_TEST

START_TEST(test_fstab)
{
	expect(NULL,
	       "# /dev/vgc/x / ext4 defaults 0 1\n"
	       "/dev/mapper/vgr-root\t/\text4\tdefaults 0 1\n"
	       "\n"
	       "   /dev/vgu/usr /usr ext4 defaults 0 2\n"
	       "/dev/vgd/data /srv ext4 defaults 0 2\n"
	       "/dev/vgd/usrlocal /usr/local ext4 defaults 0 2\n"
	       "UUID=1234 /boot ext4 defaults 0 2\n"
	       "/dev/vgl/last /",
	       "vgl vgr vgu");
	/* both, each VG once */
	expect("root=/dev/vgr/root", "/dev/mapper/vgr-root / ext4 defaults 0 1\n", "vgr");
}
END_TEST

START_TEST(test_cap)
{
	char line[2048] = "";

	for (unsigned i = 0; i < PF_BOOTORDER_MAX + 4; i++) {
		char w[32];

		(void)snprintf(w, sizeof(w), "rd.lvm.vg=v%02u ", i);
		strcat(line, w);
	}
	{
		struct pf_strv s;

		ck_assert_int_eq(pf_bootorder_parse(line, NULL, &s), 0);
		ck_assert_uint_eq(s.n, PF_BOOTORDER_MAX);
		ck_assert_str_eq(s.v[0], "v00");
		pf_strv_release(&s);
	}
}
END_TEST

struct item {
	char name[16];
	int tag;
};

START_TEST(test_front)
{
	struct item it[] = { { "vg3", 0 }, { "vgroot", 1 }, { "vg1", 2 }, { "vgusr", 3 },
			     { "vg2", 4 } };
	static const char *const order[] = { "vgroot", "vgusr", "vg3", "vg1", "vg2" };
	struct pf_strv boot;

	ck_assert_int_eq(pf_bootorder_parse("root=/dev/mapper/vgroot-root",
					    "/dev/vgusr/usr /usr ext4 defaults 0 2\n", &boot),
			 0);
	ck_assert_uint_eq(pf_bootorder_front(it, 5, sizeof(it[0]), &boot), 2);
	for (size_t i = 0; i < 5; i++)
		ck_assert_str_eq(it[i].name, order[i]);
	ck_assert_int_eq(it[0].tag, 1);
	ck_assert_int_eq(it[4].tag, 4);
	/* already in front, or no boot VG in the list: nothing moves */
	ck_assert_uint_eq(pf_bootorder_front(it, 5, sizeof(it[0]), &boot), 2);
	ck_assert_str_eq(it[2].name, "vg3");
	ck_assert_uint_eq(pf_bootorder_front(it + 2, 3, sizeof(it[0]), &boot), 0);
	ck_assert_str_eq(it[2].name, "vg3");
	pf_strv_release(&boot);
	/* no boot VG at all */
	ck_assert_int_eq(pf_bootorder_parse("root=/dev/sda1", NULL, &boot), 0);
	ck_assert_uint_eq(pf_bootorder_front(it, 5, sizeof(it[0]), &boot), 0);
	ck_assert_str_eq(it[0].name, "vgroot");
	pf_strv_release(&boot);
}
END_TEST

START_TEST(test_load)
{
	char dir[] = "/tmp/pf-bootorder-XXXXXX", cmd[64], fstab[64], rm[96];
	struct pf_strv s;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(cmd, sizeof(cmd), "%s/cmdline", dir);
	(void)snprintf(fstab, sizeof(fstab), "%s/fstab", dir);
	/* neither file there: no boot VG, no error */
	ck_assert_int_eq(pf_bootorder_load(cmd, fstab, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	pf_strv_release(&s);
	f = fopen(cmd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("console=ttyS0 root=/dev/mapper/vgroot-root rw\n", f);
	fclose(f);
	ck_assert_int_eq(pf_bootorder_load(cmd, fstab, &s), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.v[0], "vgroot");
	pf_strv_release(&s);
	f = fopen(fstab, "w");
	ck_assert_ptr_nonnull(f);
	fputs("/dev/vgusr/usr /usr ext4 defaults 0 2\n", f);
	fclose(f);
	ck_assert_int_eq(pf_bootorder_load(cmd, fstab, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.v[1], "vgusr");
	pf_strv_release(&s);
	(void)snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	ck_assert_int_eq(system(rm), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("bootorder");
	TCase *tc = pf_unit_tcase("bootorder");

	tcase_add_test(tc, test_cmdline_devices);
	tcase_add_test(tc, test_cmdline_not_lvs);
	tcase_add_test(tc, test_fstab);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_front);
	tcase_add_test(tc, test_load);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
