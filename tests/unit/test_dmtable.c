/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dm tables from VG metadata: lvm2-written fixtures, the tables observed under lvm2 2.03.16 in a
 * VM (activation.md §2.3), lvm2's segment merging, names, read-ahead, and every refusal.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate/dmtable.h"
#include "format/names.h"
#include "format/vg.h"
#include "unit.h"

/*
 * Metadata lvm2 2.03.16 wrote for the fixtures of the same names (tests/fixtures/, creation
 * lines dropped). Their `lvs --segments` and `pvs` reports give the PE ranges and pe_start
 * the expected tables below are built from.
 */
static const char fx_two_pv[] =
	"vgtwo {\nid = \"iZYWRd-juct-CYdo-axbM-7CHs-BTpZ-mFCFf4\"\nseqno = 6\nformat = \"lvm2\"\n"
	"status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\ntags = [\"vgtag_two\"]\n"
	"extent_size = 8192\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\nphysical_volumes {\n"
	"pv0 {\nid = \"LYSVoi-lH8S-2DfW-V8hT-kP3s-iu2C-Kalec0\"\ndevice = \"/dev/loop0\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ntags = [\"pvtag_first\"]\ndev_size = 131072\n"
	"pe_start = 2048\npe_count = 15\n}\npv1 {\n"
	"id = \"YoOOuP-eJaa-bBfP-oZ1j-fpfy-Milf-F8UpJU\"\ndevice = \"/dev/loop1\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\npe_start = 2048\n"
	"pe_count = 15\n}\n}\nlogical_volumes {\nlin {\n"
	"id = \"4LeNSC-SpPn-1QEx-cL5x-NRJe-l1Do-QrOd2Z\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\ntags = [\"lvtag_lin\"]\n"
	"segment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 2\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv0\", 0\n]\n}\n}\nstr {\n"
	"id = \"Zqvg5w-5Wfn-ym4F-Pv3w-gXyO-NaIG-qqKgBe\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"striped\"\nstripe_count = 2\n"
	"stripe_size = 128\nstripes = [\n\"pv0\", 2,\n\"pv1\", 0\n]\n}\n}\nmulti {\n"
	"id = \"qaImQE-Zzbw-AktA-1jyL-dnPw-6Vwt-bfNw1M\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 2\nsegment1 {\n"
	"start_extent = 0\nextent_count = 2\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 4\n]\n}\nsegment2 {\nstart_extent = 2\nextent_count = 3\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv1\", 2\n]\n}\n}\n}\n}\n"
	"contents = \"Text Format Volume Group\"\nversion = 1\n";

static const char fx_three_pv[] =
	"vgthree {\nid = \"MDkfCx-C2uM-yOsD-l2WQ-gwxo-8vVz-BRdswT\"\nseqno = 7\n"
	"format = \"lvm2\"\nstatus = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
	"extent_size = 8192\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\nphysical_volumes {\n"
	"pv0 {\nid = \"rawViX-ZDEf-bWpH-n7fv-EmTr-pu1Q-khLtBc\"\ndevice = \"/dev/loop0\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\npe_start = 2048\n"
	"pe_count = 15\n}\npv1 {\nid = \"oNoafh-36RU-E0PZ-Deil-yit6-vU5P-cZ4Tqu\"\n"
	"device = \"/dev/loop1\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\n"
	"pe_start = 2048\npe_count = 15\n}\npv2 {\n"
	"id = \"9vmqzw-orM9-k0gu-aIhC-9t99-ubKy-jt30fO\"\ndevice = \"/dev/loop2\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\npe_start = 2048\n"
	"pe_count = 15\n}\n}\nlogical_volumes {\nstr16k {\n"
	"id = \"GB5x7E-oTbY-62j2-tK5N-tjky-JH99-rEKJOV\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 3\ntype = \"striped\"\nstripe_count = 3\n"
	"stripe_size = 32\nstripes = [\n\"pv0\", 0,\n\"pv1\", 0,\n\"pv2\", 0\n]\n}\n}\n"
	"str128k {\nid = \"K1Aqol-y4tt-6S7Z-Hg4u-LGOm-HPuJ-VYIaB0\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 6\ntype = \"striped\"\nstripe_count = 3\n"
	"stripe_size = 256\nstripes = [\n\"pv0\", 1,\n\"pv1\", 1,\n\"pv2\", 1\n]\n}\n}\nlin {\n"
	"id = \"Lc3tfk-3yi2-krcD-E8il-ggKS-f03A-x1Avz2\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv1\", 3\n]\n}\n}\nmulti {\nid = \"bq4pkM-73v3-i3Gy-O07I-dWG7-khoI-W1NZs8\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 3\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 3\n]\n}\nsegment2 {\nstart_extent = 1\nextent_count = 1\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv1\", 4\n]\n}\nsegment3 {\nstart_extent = 2\n"
	"extent_count = 2\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv2\", 3\n]\n}\n"
	"}\n}\n}\ncontents = \"Text Format Volume Group\"\nversion = 1\n";

static const char fx_hyphens[] =
	"my-vg {\nid = \"9eYqHR-LOeq-AEmr-sMNW-rv5n-qRho-f3LaJu\"\nseqno = 5\nformat = \"lvm2\"\n"
	"status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\nextent_size = 8192\n"
	"max_lv = 0\nmax_pv = 0\nmetadata_copies = 0\nphysical_volumes {\npv0 {\n"
	"id = \"gYTliS-6U6h-1I79-cKin-lcck-XYQr-yWlCRL\"\ndevice = \"/dev/loop0\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 65536\npe_start = 2048\n"
	"pe_count = 7\n}\n}\nlogical_volumes {\nroot-lv {\n"
	"id = \"4Djr1l-1Odi-t3Q0-AnWi-uc9a-Ttdp-M6xT82\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 0\n]\n}\n}\na--b {\nid = \"epVWkA-xxRN-87J6-us9Q-Eu5x-FLIB-QUXyyf\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 1\n]\n}\n}\ntrailing- {\nid = \"FmIAJr-DpFn-Kwq2-duFQ-OxCp-8K7q-ODPOjG\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 2\n]\n}\n}\nx+y.z_w {\nid = \"CRq8YN-Dvv0-I8Rb-ta8q-9KRz-auCy-TQjzo0\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 3\n]\n}\n}\n}\n}\ncontents = \"Text Format Volume Group\"\nversion = 1\n";

static const char fx_segtypes[] =
	"vgseg {\nid = \"95Fkrq-ofmA-LyNO-His6-zyYb-l80u-HCIIiu\"\nseqno = 18\n"
	"format = \"lvm2\"\nstatus = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
	"extent_size = 2048\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\nphysical_volumes {\n"
	"pv0 {\nid = \"xrjmN7-GxJQ-dbtQ-Ra51-EyON-WtuG-ih24Ce\"\ndevice = \"/dev/loop0\"\n"
	"status = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\npe_start = 2048\n"
	"pe_count = 63\n}\npv1 {\nid = \"GXtIu8-pfK3-Cfpd-UlBg-Af7s-0g3b-WuCbmk\"\n"
	"device = \"/dev/loop1\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\ndev_size = 131072\n"
	"pe_start = 2048\npe_count = 63\n}\n}\nlogical_volumes {\nlin {\n"
	"id = \"liugDv-c3Nq-Xyfd-juaX-HITq-twLL-863UAJ\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 0\n]\n}\n}\nz {\nid = \"kBC37Z-QxeO-YhuC-VflY-skx7-RzPv-4H2uUS\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 8\ntype = \"zero\"\n}\n}\ne {\n"
	"id = \"htGN2l-oxic-dtDh-NKCr-M3XW-ZcT6-4oqCGT\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 8\ntype = \"error\"\n}\n}\nr0 {\n"
	"id = \"uJpWaH-daIr-ptk3-p65d-WQPj-HIgv-Gfn3fP\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"raid0\"\nstripe_count = 2\n"
	"stripe_size = 128\nraid0_lvs = [\n\"r0_rimage_0\",\n\"r0_rimage_1\"\n]\n}\n}\nsnap {\n"
	"id = \"MSYaKJ-iatw-fwJP-n8Fh-t2W7-McEq-xwZfEe\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 2\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 13\n]\n}\n}\ntp {\n"
	"id = \"Pjn4ac-a54B-kGI1-9yZv-3C2f-7qLk-pzVVIg\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 8\ntype = \"thin-pool\"\nmetadata = \"tp_tmeta\"\n"
	"pool = \"tp_tdata\"\ntransaction_id = 1\nchunk_size = 128\ndiscards = \"passdown\"\n"
	"zero_new_blocks = 1\n}\n}\nth {\nid = \"mxJRfa-9IRB-Kicc-eA6E-cxZn-uKFo-gCDpuH\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 16\ntype = \"thin\"\nthin_pool = \"tp\"\n"
	"transaction_id = 0\ndevice_id = 1\n}\n}\nr1 {\n"
	"id = \"oolUFL-QXtJ-QPum-cBso-DCXw-Q9bP-HVkuQ0\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"raid1\"\ndevice_count = 2\n"
	"region_size = 4096\nraids = [\n\"r1_rmeta_0\", \"r1_rimage_0\",\n"
	"\"r1_rmeta_1\", \"r1_rimage_1\"\n]\n}\n}\nm1 {\n"
	"id = \"6kuyZ3-9Qch-uUgP-98Pe-EG7W-Az1W-AaVmLH\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"mirror\"\nmirror_count = 2\n"
	"region_size = 1024\nmirrors = [\n\"m1_mimage_0\", 0,\n\"m1_mimage_1\", 0\n]\n}\n}\n"
	"c1 {\nid = \"CWs5xj-Wmgx-LtH0-6arX-W9yW-ErCR-y5bhDg\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"cache\"\ncache_pool = \"cp\"\n"
	"origin = \"c1_corig\"\n}\n}\ncp {\nid = \"wkYwj5-zZOL-1exM-dNSK-wK2h-HgK1-4LpROT\"\n"
	"status = [\"READ\", \"WRITE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"cache-pool+METADATA_FORMAT\"\n"
	"data = \"cp_cdata\"\nmetadata = \"cp_cmeta\"\nmetadata_format = 2\nchunk_size = 128\n"
	"cache_mode = \"writethrough\"\npolicy = \"smq\"\n}\n}\ntp_tdata {\n"
	"id = \"fnXMlR-HCiV-bdNp-LbeX-KTwN-gqF8-AavAvq\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 8\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv0\", 20\n]\n}\n}\ntp_tmeta {\n"
	"id = \"5ChjIu-SF2Y-NU3p-U0sG-TQ8V-CkAO-w5uvCy\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 2\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 2\n]\n}\n}\nr1_rmeta_0 {\n"
	"id = \"1AByau-dGBQ-MAtj-CAjV-AvWc-VGWB-14R74C\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 1\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv0\", 28\n]\n}\n}\nr1_rimage_0 {\n"
	"id = \"wetNO7-PrG0-BcFm-IekV-xh6n-42CY-XjkaWj\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv0\", 29\n]\n}\n}\nr1_rmeta_1 {\n"
	"id = \"j2Qk2i-DkVc-21NT-4wmA-xnMh-qGKE-QyWouA\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 1\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 4\n]\n}\n}\nr1_rimage_1 {\n"
	"id = \"tGUK12-GXYN-Lpz1-4RSk-Efnr-r0Zv-S6DcOb\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 5\n]\n}\n}\nm1_mimage_0 {\n"
	"id = \"upb1cU-u3M9-KDat-ojSI-E6IK-EwGk-Rgrrcv\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv0\", 33\n]\n}\n}\nm1_mimage_1 {\n"
	"id = \"Z4AHcO-pFVc-AgJ0-7yuU-UXE4-jcdz-ADXNlS\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 9\n]\n}\n}\nc1_corig {\n"
	"id = \"yA1QUG-wgBa-ZGU6-DG6J-SZ1Q-1AnW-TtMx9e\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 4\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 15\n]\n}\n}\nr0_rimage_0 {\n"
	"id = \"Rie7kH-EQqn-6cF8-d3QG-Utnv-U21E-0dHemk\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 2\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv0\", 4\n]\n}\n}\nr0_rimage_1 {\n"
	"id = \"iDxJsP-x5R2-ZQ27-OoEa-e2ec-v23h-HYqMMu\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"flags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 2\n"
	"type = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 0\n]\n}\n}\n"
	"lvol0_pmspare {\nid = \"4hEbs2-OT79-nXE0-ClpS-4VLt-xKr5-tvxtsU\"\n"
	"status = [\"READ\", \"WRITE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 5\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 6\n]\n}\n}\ncp_cmeta {\nid = \"UqXn2Q-ITos-GuTv-vjoQ-s57k-vwni-WhbsdW\"\n"
	"status = [\"READ\", \"WRITE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 5\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 11\n]\n}\n}\ncp_cdata {\nid = \"vDmQcy-8p1Y-4Gny-OOsy-8oYm-WvmO-MfMMAd\"\n"
	"status = [\"READ\", \"WRITE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 16\n]\n}\n}\nsnapshot0 {\nid = \"qvmpNe-TBQ1-Zsqd-xCZ7-mAj9-HqMx-gshKqo\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 4\ntype = \"snapshot\"\nchunk_size = 8\n"
	"origin = \"lin\"\ncow_store = \"snap\"\n}\n}\n}\n}\n"
	"contents = \"Text Format Volume Group\"\nversion = 1\n";

/* Builders for hand-written metadata in lvm2's layout. */
#define HDR "contents = \"Text Format Volume Group\"\nversion = 1\n"
#define VG_OPEN(name, ext)                                                                         \
	name " {\nid = \"IOaUce-BfD1-0hhR-K9kc-RIRV-cPBP-ZcWGja\"\nseqno = 1\n"                    \
	     "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"                        \
	     "extent_size = " ext "\nmax_lv = 0\nmax_pv = 0\n"
#define PV(key, idc, start, count)                                                                 \
	key " {\nid = \"pvpvpv-pvpv-pvpv-pvpv-pvpv-pvpv-pvpv" idc "\"\n"                           \
	    "status = [\"ALLOCATABLE\"]\npe_start = " start "\npe_count = " count "\n}\n"
#define LV_ST(name, idc, status, extra, nsegs)                                                     \
	name " {\nid = \"lvlvlv-lvlv-lvlv-lvlv-lvlv-lvlv-lvlv" idc "\"\nstatus = [" status "]\n"   \
	     extra "segment_count = " nsegs "\n"
#define RWV "\"READ\", \"WRITE\", \"VISIBLE\""
#define LV(name, idc, nsegs) LV_ST(name, idc, RWV, "", nsegs)
#define SEG(n, start, count, body)                                                                 \
	"segment" n " {\nstart_extent = " start "\nextent_count = " count "\n" body "}\n"
#define LIN(pv, pe) "type = \"striped\"\nstripe_count = 1\nstripes = [\"" pv "\", " pe "]\n"
#define STR(n, size, areas)                                                                        \
	"type = \"striped\"\nstripe_count = " n "\nstripe_size = " size "\nstripes = [" areas "]\n"
#define TYPE(t) "type = \"" t "\"\n"
#define TAGS(t) "tags = [" t "]\n"
#define LV_END "}\n"
#define VG_CLOSE "}\n}\n" HDR

/* activation.md §2.3, vg1: 4 MiB extents; pv0, pv1, pv2 were loop0, loop1, loop6. */
static const char ref_vg1[] =
	VG_OPEN("vg1", "8192") "physical_volumes {\n" PV("pv0", "00", "2048", "63")
		PV("pv1", "01", "2048", "63") PV("pv2", "02", "2048", "63") "}\nlogical_volumes {\n"
	LV("lin1", "01", "1") SEG("1", "0", "5", LIN("pv0", "0")) LV_END
	LV("span", "02", "2") SEG("1", "0", "31", LIN("pv1", "0"))
		SEG("2", "31", "9", LIN("pv0", "5")) LV_END
	LV("ext", "03", "3") SEG("1", "0", "1", LIN("pv2", "0")) SEG("2", "1", "2", LIN("pv2", "2"))
		SEG("3", "3", "1", LIN("pv2", "5")) LV_END
	LV("contig", "04", "1") SEG("1", "0", "2", LIN("pv2", "6")) LV_END
	LV_ST("ro", "05", "\"READ\", \"VISIBLE\"", "", "1") SEG("1", "0", "1", LIN("pv2", "8"))
		LV_END
	LV("err", "06", "1") SEG("1", "0", "1", TYPE("error")) LV_END
	LV("zer", "07", "1") SEG("1", "0", "2", TYPE("zero")) LV_END
	LV_ST("wl", "08", "\"READ\", \"VISIBLE\"", "flags = [\"WRITE_LOCKED\"]\n", "1")
		SEG("1", "0", "1", LIN("pv2", "9")) LV_END
	LV_ST("ra1024", "09", RWV, "read_ahead = 1024\n", "1")
		SEG("1", "0", "1", LIN("pv2", "10")) LV_END
	LV_ST("ranone", "10", RWV, "read_ahead = -1\n", "1")
		SEG("1", "0", "1", LIN("pv2", "11")) LV_END
	LV_ST("raauto", "11", RWV, "read_ahead = 0\n", "1")
		SEG("1", "0", "1", LIN("pv2", "12")) LV_END
	LV_ST("skip", "12", RWV,
	      "flags = [\"ACTIVATION_SKIP\", \"NOAUTOACTIVATE\"]\n", "1")
		SEG("1", "0", "1", LIN("pv2", "13")) LV_END
	VG_CLOSE;

/* vg2: 1 MiB extents; pv0 loop2 (pe_start 2304), pv1 loop3 (8192), pv2 loop5. */
static const char ref_vg2[] =
	VG_OPEN("vg2", "2048") "physical_volumes {\n" PV("pv0", "00", "2304", "100")
		PV("pv1", "01", "8192", "100") PV("pv2", "02", "2048", "100")
		"}\nlogical_volumes {\n"
	LV("str2", "01", "2") SEG("1", "0", "6", STR("2", "256", "\"pv0\", 0, \"pv1\", 0"))
		SEG("2", "6", "4", STR("2", "256", "\"pv0\", 6, \"pv1\", 6")) LV_END
	LV("str3", "02", "1")
		SEG("1", "0", "9", STR("3", "32", "\"pv0\", 3, \"pv1\", 3, \"pv2\", 0")) LV_END
	LV("str3d", "03", "1")
		SEG("1", "0", "3", STR("3", "128", "\"pv0\", 8, \"pv1\", 8, \"pv2\", 3")) LV_END
	VG_CLOSE;

/* The striped-then-linear LV natact2 (dm_tree) activated exactly as lvm2 did. */
static const char ref_mixed[] =
	VG_OPEN("vg3", "2048") "physical_volumes {\n" PV("pv0", "00", "2048", "100")
		PV("pv1", "01", "2048", "100") PV("pv2", "02", "2048", "100")
		"}\nlogical_volumes {\n"
	LV("mix", "01", "3") SEG("1", "0", "6", STR("2", "256", "\"pv0\", 0, \"pv1\", 0"))
		SEG("2", "6", "4", STR("2", "256", "\"pv0\", 5, \"pv1\", 3"))
		SEG("3", "10", "3", LIN("pv2", "0")) LV_END
	VG_CLOSE;

/*
 * Hand-edited neighbours. Given to real lvm2 2.03.16 with vgcfgrestore, `lvs --segments`
 * showed exactly the merges expected below (and refused what is marked so).
 */
static const char merge_vg[] =
	VG_OPEN("vgm", "2048") "physical_volumes {\n" PV("pv0", "00", "2048", "63")
		PV("pv1", "01", "2048", "63") "}\nlogical_volumes {\n"
	LV("m_lin", "01", "2") SEG("1", "0", "2", LIN("pv0", "10"))
		SEG("2", "2", "1", LIN("pv0", "12")) LV_END
	LV("m_lin_tag", "02", "2") SEG("1", "0", "1", LIN("pv0", "20"))
		SEG("2", "1", "1", LIN("pv0", "21") TAGS("\"t\"")) LV_END
	LV("m_lin_tags2", "03", "2") SEG("1", "0", "1", LIN("pv0", "22") TAGS("\"a\", \"b\""))
		SEG("2", "1", "1", LIN("pv0", "23") TAGS("\"b\", \"a\", \"a\"")) LV_END
	LV("m_lin_pv", "04", "2") SEG("1", "0", "1", LIN("pv0", "24"))
		SEG("2", "1", "1", LIN("pv1", "25")) LV_END
	LV("m_str", "05", "2") SEG("1", "0", "4", STR("2", "128", "\"pv0\", 30, \"pv1\", 30"))
		SEG("2", "4", "2", STR("2", "128", "\"pv0\", 32, \"pv1\", 32")) LV_END
	LV("m_str_gap", "06", "2") SEG("1", "0", "4", STR("2", "128", "\"pv0\", 40, \"pv1\", 40"))
		SEG("2", "4", "2", STR("2", "128", "\"pv0\", 42, \"pv1\", 43")) LV_END
	LV("m_str_ss", "07", "2") SEG("1", "0", "4", STR("2", "128", "\"pv0\", 50, \"pv1\", 50"))
		SEG("2", "4", "2", STR("2", "64", "\"pv0\", 52, \"pv1\", 52")) LV_END
	LV("m_err", "08", "2") SEG("1", "0", "2", TYPE("error")) SEG("2", "2", "3", TYPE("error"))
		LV_END
	LV("m_zero_tags", "09", "2") SEG("1", "0", "2", TYPE("zero") TAGS("\"x\""))
		SEG("2", "2", "3", TYPE("zero")) LV_END
	LV("m_ez", "10", "2") SEG("1", "0", "2", TYPE("error")) SEG("2", "2", "3", TYPE("zero"))
		LV_END
	LV("m_three", "11", "5") SEG("1", "0", "1", LIN("pv0", "54"))
		SEG("2", "1", "1", LIN("pv0", "55"))
		SEG("3", "2", "1", LIN("pv0", "56")) SEG("4", "3", "1", TYPE("error"))
		SEG("5", "4", "1", LIN("pv0", "57")) LV_END
	LV("zl_err_mid", "12", "3") SEG("1", "0", "2", TYPE("error"))
		SEG("2", "2", "0", TYPE("error"))
		SEG("3", "2", "1", TYPE("error")) LV_END
	LV("zl_zero_first", "13", "2") SEG("1", "0", "0", TYPE("zero"))
		SEG("2", "0", "2", LIN("pv0", "5")) LV_END
	LV("zl_str", "14", "2") SEG("1", "0", "2", LIN("pv0", "5"))
		SEG("2", "2", "0", LIN("pv0", "9")) LV_END
	LV("at_end", "15", "1") SEG("1", "0", "2", LIN("pv0", "61")) LV_END
	LV("past_end", "16", "1") SEG("1", "0", "2", LIN("pv0", "62")) LV_END
	LV("str_past_end", "17", "1") SEG("1", "0", "4", STR("2", "128", "\"pv0\", 0, \"pv1\", 62"))
		LV_END
	LV("err_lin", "18", "2") SEG("1", "0", "1", TYPE("error"))
		SEG("2", "1", "1", LIN("pv1", "0")) LV_END
	VG_CLOSE;

/* Sizes at the edges of 32 and 64 bits. */
static const char big_vg[] =
	VG_OPEN("vgbig", "4294967295") "physical_volumes {\n"
		PV("pv0", "00", "9223372036854775807", "4294967295")
		PV("pv1", "01", "0", "4294967295")
		"}\nlogical_volumes {\n"
	LV("off_overflow", "01", "1") SEG("1", "0", "1", LIN("pv0", "4294967290")) LV_END
	LV("off_max", "02", "1") SEG("1", "0", "1", LIN("pv1", "4294967294")) LV_END
	LV("le_overflow", "03", "2") SEG("1", "0", "4294967295", TYPE("error"))
		SEG("2", "4294967295", "1", TYPE("zero")) LV_END
	LV("le_max", "04", "1") SEG("1", "0", "4294967295", TYPE("error")) LV_END
	VG_CLOSE;

static const char ra_vg[] =
	VG_OPEN("vgra", "2147483648") "physical_volumes {\n" PV("pv0", "00", "0", "8")
		PV("pv1", "01", "0", "8") PV("pv2", "02", "0", "8") "}\nlogical_volumes {\n"
	LV("ra_overflow", "01", "1")
		SEG("1", "0", "2", STR("2", "1073741824", "\"pv0\", 0, \"pv1\", 0")) LV_END
	LV("ra_max", "02", "1")
		SEG("1", "0", "3", STR("3", "536870912", "\"pv0\", 1, \"pv1\", 1, \"pv2\", 1"))
		LV_END
	VG_CLOSE;

/* Small extents: use_linear_target = 0 keeps "linear" below a page (8 sectors). */
static const char small_vg[] =
	VG_OPEN("vgs", "4") "physical_volumes {\n" PV("pv0", "00", "2048", "100")
		"}\nlogical_volumes {\n"
	LV("tiny", "01", "1") SEG("1", "0", "3", LIN("pv0", "2")) LV_END
	VG_CLOSE;

/*
 * A VG lvm2 2.03.16 built on three loop devices (7:257-259; pv1 with --dataalignment 192k,
 * pv2 with --metadatasize 3m), trimmed to some of its LVs; m_three, zl_err_mid and err_lin
 * were added by vgcfgrestore.
 */
static const char oracle_vg[] =
	"o-vg {\nid = \"vtY0gH-Gw1l-Muhc-0153-t76c-VKkp-MkjO7Z\"\nseqno = 22\nformat = \"lvm2\"\n"
	"status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\nextent_size = 2048\n"
	"max_lv = 0\nmax_pv = 0\nmetadata_copies = 0\nphysical_volumes {\npv0 {\n"
	"id = \"xnqbJp-S2V2-KZIr-atEA-Fm3U-UZGm-AZ4xUI\"\n"
	"device = \"/dev/loop257\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\n"
	"dev_size = 262144\npe_start = 2048\npe_count = 127\n}\npv1 {\n"
	"id = \"4ZRzuF-I9my-VnL8-oZfV-peqV-BQcL-aYrTOO\"\n"
	"device = \"/dev/loop258\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\n"
	"dev_size = 262144\npe_start = 2304\npe_count = 126\n}\npv2 {\n"
	"id = \"SVYGpU-P8BY-AE4E-yIDN-vIjT-0yCc-gnCjGC\"\n"
	"device = \"/dev/loop259\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\n"
	"dev_size = 262144\npe_start = 8192\npe_count = 124\n}\n}\nlogical_volumes {\nm_three {\n"
	"id = \"zzzz11-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 3\nsegment1 {\n"
	"start_extent = 0\nextent_count = 3\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv0\", 104\n]\n}\nsegment2 {\nstart_extent = 3\nextent_count = 1\ntype = \"error\"\n"
	"}\nsegment3 {\nstart_extent = 4\nextent_count = 1\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv0\", 107\n]\n}\n}\nzl_err_mid {\n"
	"id = \"zzzz12-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 3\ntype = \"error\"\n}\n}\nerr_lin {\n"
	"id = \"zzzz13-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 2\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"error\"\n}\nsegment2 {\nstart_extent = 1\n"
	"extent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 110\n]\n"
	"}\n}\nlv-dash {\nid = \"Vvc3Bl-0dMI-hqsJ-hPdc-tFGr-Ic9O-7sirPc\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 3\nsegment1 {\n"
	"start_extent = 0\nextent_count = 3\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv1\", 0\n]\n}\nsegment2 {\nstart_extent = 3\nextent_count = 2\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv2\", 0\n]\n}\nsegment3 {\nstart_extent = 5\n"
	"extent_count = 2\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n\"pv1\", 4\n]\n}\n"
	"}\nstr2 {\nid = \"8W4su5-FA2D-kt2b-b9V6-Wpx2-qNGt-v6EES6\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 10\ntype = \"striped\"\nstripe_count = 2\n"
	"stripe_size = 256\nstripes = [\n\"pv1\", 6,\n\"pv2\", 2\n]\n}\n}\nstr3_64 {\n"
	"id = \"x12jHy-wyfa-l8KW-0EAe-njWO-yI32-GkqYt9\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 6\ntype = \"striped\"\nstripe_count = 3\n"
	"stripe_size = 128\nstripes = [\n\"pv0\", 9,\n\"pv1\", 15,\n\"pv2\", 11\n]\n}\n}\nmix {\n"
	"id = \"nNhl7k-D6z9-ohYr-5Pp7-qxix-M09T-K6DSOd\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nsegment_count = 2\nsegment1 {\n"
	"start_extent = 0\nextent_count = 2\ntype = \"striped\"\nstripe_count = 2\n"
	"stripe_size = 128\nstripes = [\n\"pv0\", 11,\n\"pv1\", 17\n]\n}\nsegment2 {\n"
	"start_extent = 2\nextent_count = 3\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv2\", 13\n]\n}\n}\nro {\nid = \"IELLvO-zb1x-uDS8-ojTw-7wjP-f6ES-hqRDCp\"\n"
	"status = [\"READ\", \"VISIBLE\"]\nflags = []\nsegment_count = 1\nsegment1 {\n"
	"start_extent = 0\nextent_count = 1\ntype = \"striped\"\nstripe_count = 1\nstripes = [\n"
	"\"pv2\", 16\n]\n}\n}\nra1024 {\nid = \"l3CiKr-fpU0-a82z-2v68-ZD2n-g4Jw-hqi6fq\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nread_ahead = 1024\n"
	"segment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 1\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv0\", 12\n]\n}\n}\nranone {\n"
	"id = \"cMN6zY-nYqN-hiKQ-LtRg-yOUL-X9GP-M0E9f3\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nflags = []\nread_ahead = -1\n"
	"segment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = 1\ntype = \"striped\"\n"
	"stripe_count = 1\nstripes = [\n\"pv0\", 13\n]\n}\n}\n}\n}\n"
	"contents = \"Text Format Volume Group\"\nversion = 1\n";

/* Everything pf_dmtable_lv_native turns down, in otherwise valid metadata. */
static const char odd_vg[] =
	VG_OPEN("vgo", "2048") "physical_volumes {\n" PV("pv0", "00", "2048", "100")
		"pv1 {\nid = \"pvpvpv-pvpv-pvpv-pvpv-pvpv-pvpv-pvpv01\"\n"
		"status = [\"ALLOCATABLE\"]\n"
		"flags = [\"MISSING\"]\npe_start = 2048\npe_count = 100\n}\n}\nlogical_volumes {\n"
	LV("plain", "01", "1") SEG("1", "0", "1", LIN("pv0", "0")) LV_END
	LV_ST("fixed", "02", RWV ", \"FIXED_MINOR\"", "minor = 7\n", "1")
		SEG("1", "0", "1", LIN("pv0", "1")) LV_END
	LV_ST("locked", "03", RWV ", \"LOCKED\"", "", "1")
		SEG("1", "0", "1", LIN("pv0", "2")) LV_END
	LV_ST("pvm", "04", RWV ", \"PVMOVE\"", "", "1")
		SEG("1", "0", "1", LIN("pv0", "3")) LV_END
	LV_ST("cvol", "05", RWV, "flags = [\"CACHE_VOL\"]\n", "1")
		SEG("1", "0", "1", LIN("pv0", "4")) LV_END
	LV_ST("newflag", "06", RWV, "flags = [\"SOMETHING_NEW\"]\n", "1")
		SEG("1", "0", "1", LIN("pv0", "5")) LV_END
	LV_ST("ewf", "07", RWV, "flags = [\"ERROR_WHEN_FULL\"]\n", "1")
		SEG("1", "0", "1", LIN("pv0", "6")) LV_END
	LV_ST("hidden", "08", "\"READ\", \"WRITE\"", "", "1") SEG("1", "0", "1", LIN("pv0", "7"))
		LV_END
	LV("x_rimage_0", "09", "1") SEG("1", "0", "1", LIN("pv0", "8")) LV_END
	LV("pvmove0", "10", "1") SEG("1", "0", "1", LIN("pv0", "9")) LV_END
	LV("snapshot1", "11", "1") SEG("1", "0", "1", LIN("pv0", "10")) LV_END
	LV("typeflag", "12", "1") SEG("1", "0", "1", "type = \"striped+FOO\"\n") LV_END
	LV("lintype", "13", "1")
		SEG("1", "0", "1", "type = \"linear\"\nstripe_count = 1\nstripes = [\"pv0\", 11]\n")
		LV_END
	LV("under", "14", "1") SEG("1", "0", "1", LIN("pv0", "12")) LV_END
	LV("over", "15", "1") SEG("1", "0", "1", LIN("under", "0")) LV_END
	LV("onmissing", "16", "2") SEG("1", "0", "1", LIN("pv0", "13"))
		SEG("2", "1", "1", LIN("pv1", "0")) LV_END
	LV("oddstripe", "17", "1") SEG("1", "0", "2", STR("2", "1536", "\"pv0\", 14, \"pv0\", 16"))
		LV_END
	LV("badtag", "18", "1") SEG("1", "0", "1", LIN("pv0", "15") TAGS("1")) LV_END
	LV("errtag", "19", "1") SEG("1", "0", "1", TYPE("error") TAGS("1")) LV_END
	VG_CLOSE;

/* The devices each VG's PVs were found on. */
#define LOOP(n) { .present = true, .major = 7, .minor = (n) }
#define DEVS_012 { LOOP(0), LOOP(1), LOOP(2) }
#define DEVS_016 { LOOP(0), LOOP(1), LOOP(6) } /* activation.md vg1 */
#define DEVS_235 { LOOP(2), LOOP(3), LOOP(5) } /* activation.md vg2 */
#define DEVS_0 { LOOP(0) }
#define DEVS_ORACLE { LOOP(257), LOOP(258), LOOP(259) }

struct build_case {
	const char *what;
	const char *text;
	const char *lv;
	struct pf_dm_pvdev devs[3];
	struct pf_dmtable_opts opts;
	int rc;
	const char *table; /* `dmsetup table` when rc == 0 */
	const char *name;  /* not checked when NULL */
	const char *uuid;  /* not checked when NULL */
	bool ro;
	enum pf_dm_ra_kind ra;
	uint32_t ra_sectors;
	int ra_pv;	 /* PF_DM_RA_MINIMUM_PV only */
	unsigned n_devs; /* 0 for all three */
};

/* A table lvm2 loads; trailing arguments set options. */
#define OK(w, txt, l, d, tab, nm, uu, r, rak, ras, rap, ...)                                       \
	{ .what = (w), .text = (txt), .lv = (l), .devs = d, .table = (tab), .name = (nm),          \
	  .uuid = (uu), .ro = (r), .ra = (rak), .ra_sectors = (ras), .ra_pv = (rap),               \
	  .opts = { __VA_ARGS__ } }
/* A refusal; trailing arguments set more fields. */
#define FAIL(w, txt, l, d, code, ...)                                                              \
	{ .what = (w), .text = (txt), .lv = (l), .devs = d, .rc = (code), __VA_ARGS__ }

static const struct build_case build_cases[] = {
	/* lvm2-written fixtures; offsets from pvs.json pe_start and segs.json PE ranges. */
	OK("two-pv lin", fx_two_pv, "lin", DEVS_012, "0 16384 linear 7:0 2048\n", "vgtwo-lin",
	   "LVM-iZYWRdjuctCYdoaxbM7CHsBTpZmFCFf44LeNSCSpPn1QExcL5xNRJel1DoQrOd2Z", false,
	   PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("two-pv str (-i2 -I64k)", fx_two_pv, "str", DEVS_012,
	   "0 32768 striped 2 128 7:0 18432 7:1 2048\n", "vgtwo-str", NULL, false, PF_DM_RA_MINIMUM,
	   512, 0),
	OK("two-pv multi (lvextend onto pv1)", fx_two_pv, "multi", DEVS_012,
	   "0 16384 linear 7:0 34816\n16384 24576 linear 7:1 18432\n", "vgtwo-multi", NULL, false,
	   PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("three-pv str16k", fx_three_pv, "str16k", DEVS_012,
	   "0 24576 striped 3 32 7:0 2048 7:1 2048 7:2 2048\n", "vgthree-str16k", NULL, false,
	   PF_DM_RA_MINIMUM, 192, 0),
	OK("three-pv str128k", fx_three_pv, "str128k", DEVS_012,
	   "0 49152 striped 3 256 7:0 10240 7:1 10240 7:2 10240\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM, 1536, 0),
	OK("three-pv lin on pv1", fx_three_pv, "lin", DEVS_012, "0 8192 linear 7:1 26624\n", NULL,
	   NULL, false, PF_DM_RA_MINIMUM_PV, 0, 1),
	OK("three-pv multi over 3 PVs", fx_three_pv, "multi", DEVS_012,
	   "0 8192 linear 7:0 26624\n8192 8192 linear 7:1 34816\n16384 16384 linear 7:2 26624\n",
	   "vgthree-multi", "LVM-MDkfCxC2uMyOsDl2WQgwxo8vVzBRdswTbq4pkM73v3i3GyO07IdWG7khoIW1NZs8",
	   false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("hyphens root-lv", fx_hyphens, "root-lv", DEVS_012, "0 8192 linear 7:0 2048\n",
	   "my--vg-root--lv", NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("hyphens a--b", fx_hyphens, "a--b", DEVS_012, "0 8192 linear 7:0 10240\n",
	   "my--vg-a----b", "LVM-9eYqHRLOeqAEmrsMNWrv5nqRhof3LaJuepVWkAxxRN87J6us9QEu5xFLIBQUXyyf",
	   false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("hyphens trailing-", fx_hyphens, "trailing-", DEVS_012, "0 8192 linear 7:0 18432\n",
	   "my--vg-trailing--", NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("hyphens x+y.z_w", fx_hyphens, "x+y.z_w", DEVS_012, "0 8192 linear 7:0 26624\n",
	   "my--vg-x+y.z_w", NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("segtypes zero", fx_segtypes, "z", DEVS_012, "0 16384 zero \n", "vgseg-z", NULL, false,
	   PF_DM_RA_LEAVE, 0, 0),
	OK("segtypes error", fx_segtypes, "e", DEVS_012, "0 16384 error \n", "vgseg-e", NULL, false,
	   PF_DM_RA_LEAVE, 0, 0),

	/* activation.md §2.3: `dmsetup table` of what lvm2 loaded in the VM. */
	OK("vm lin1", ref_vg1, "lin1", DEVS_016, "0 40960 linear 7:0 2048\n", "vg1-lin1",
	   "LVM-IOaUceBfD10hhRK9kcRIRVcPBPZcWGjalvlvlvlvlvlvlvlvlvlvlvlvlvlvlv01", false,
	   PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("vm span", ref_vg1, "span", DEVS_016,
	   "0 253952 linear 7:1 2048\n253952 73728 linear 7:0 43008\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM_PV, 0, 1),
	OK("vm ext", ref_vg1, "ext", DEVS_016,
	   "0 8192 linear 7:6 2048\n8192 16384 linear 7:6 18432\n24576 8192 linear 7:6 43008\n",
	   NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("vm contig", ref_vg1, "contig", DEVS_016, "0 16384 linear 7:6 51200\n", NULL, NULL,
	   false, PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("vm ro (lvchange -pr)", ref_vg1, "ro", DEVS_016, "0 8192 linear 7:6 67584\n", "vg1-ro",
	   NULL, true, PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("vm err", ref_vg1, "err", DEVS_016, "0 8192 error \n", NULL, NULL, false, PF_DM_RA_LEAVE,
	   0, 0),
	OK("vm zer", ref_vg1, "zer", DEVS_016, "0 16384 zero \n", NULL, NULL, false, PF_DM_RA_LEAVE,
	   0, 0),
	OK("vm str2 (-i2 -I128k, lvextend)", ref_vg2, "str2", DEVS_235,
	   "0 12288 striped 2 256 7:2 2304 7:3 8192\n"
	   "12288 8192 striped 2 256 7:2 14592 7:3 20480\n", NULL, NULL, false, PF_DM_RA_MINIMUM,
	   1024, 0),
	OK("vm str3 (-i3 -I16k)", ref_vg2, "str3", DEVS_235,
	   "0 18432 striped 3 32 7:2 8448 7:3 14336 7:5 2048\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM, 192, 0),
	OK("vm str3d (-i3)", ref_vg2, "str3d", DEVS_235,
	   "0 6144 striped 3 128 7:2 18688 7:3 24576 7:5 8192\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM, 768, 0),
	OK("vm striped then linear", ref_mixed, "mix", DEVS_012,
	   "0 12288 striped 2 256 7:0 2048 7:1 2048\n"
	   "12288 8192 striped 2 256 7:0 12288 7:1 8192\n" "20480 6144 linear 7:2 2048\n", NULL,
	   NULL, false, PF_DM_RA_MINIMUM, 1024, 0),

	/*
	 * lvm2 2.03.16 itself (vgchange -ay -vvvv with the dm ioctls answered by a stand-in):
	 * the tables of its LOAD ioctls and the read-ahead it asked libdm for.
	 */
	OK("oracle lv-dash", oracle_vg, "lv-dash", DEVS_ORACLE,
	   "0 6144 linear 7:258 2304\n6144 4096 linear 7:259 8192\n10240 4096 linear 7:258 10496\n",
	   "o--vg-lv--dash", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZVvc3Bl0dMIhqsJhPdctFGrIc9O7sirPc",
	   false, PF_DM_RA_MINIMUM_PV, 0, 1),
	OK("oracle mix", oracle_vg, "mix", DEVS_ORACLE,
	   "0 4096 striped 2 128 7:257 24576 7:258 37120\n4096 6144 linear 7:259 34816\n",
	   "o--vg-mix", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZnNhl7kD6z9ohYr5Pp7qxixM09TK6DSOd",
	   false, PF_DM_RA_MINIMUM, 512, 0),
	OK("oracle str2", oracle_vg, "str2", DEVS_ORACLE,
	   "0 20480 striped 2 256 7:258 14592 7:259 12288\n", "o--vg-str2",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Z8W4su5FA2Dkt2bb9V6Wpx2qNGtv6EES6", false,
	   PF_DM_RA_MINIMUM, 1024, 0),
	OK("oracle str3_64", oracle_vg, "str3_64", DEVS_ORACLE,
	   "0 12288 striped 3 128 7:257 20480 7:258 33024 7:259 30720\n", "o--vg-str3_64",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Zx12jHywyfal8KW0EAenjWOyI32GkqYt9", false,
	   PF_DM_RA_MINIMUM, 768, 0),
	OK("oracle ro", oracle_vg, "ro", DEVS_ORACLE, "0 2048 linear 7:259 40960\n", "o--vg-ro",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZIELLvOzb1xuDS8ojTw7wjPf6EShqRDCp", true,
	   PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("oracle ra1024", oracle_vg, "ra1024", DEVS_ORACLE, "0 2048 linear 7:257 26624\n",
	   "o--vg-ra1024", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Zl3CiKrfpU0a82z2v68ZD2ng4Jwhqi6fq",
	   false, PF_DM_RA_SET, 1024, 0),
	OK("oracle ranone", oracle_vg, "ranone", DEVS_ORACLE, "0 2048 linear 7:257 28672\n",
	   "o--vg-ranone", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZcMN6zYnYqNhiKQLtRgyOULX9GPM0E9f3",
	   false, PF_DM_RA_SET, 0, 0),
	OK("oracle err_lin", oracle_vg, "err_lin", DEVS_ORACLE,
	   "0 2048 error \n2048 2048 linear 7:258 227584\n", "o--vg-err_lin",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Zzzzz13aaaaaaaaaaaaaaaaaaaaaaaaaa", false,
	   PF_DM_RA_LEAVE, 0, 0),
	OK("oracle zl_err_mid", oracle_vg, "zl_err_mid", DEVS_ORACLE, "0 6144 error \n",
	   "o--vg-zl_err_mid",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Zzzzz12aaaaaaaaaaaaaaaaaaaaaaaaaa", false,
	   PF_DM_RA_LEAVE, 0, 0),
	OK("oracle m_three", oracle_vg, "m_three", DEVS_ORACLE,
	   "0 6144 linear 7:257 215040\n6144 2048 error \n8192 2048 linear 7:257 221184\n",
	   "o--vg-m_three", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Zzzzz11aaaaaaaaaaaaaaaaaaaaaaaaaa",
	   false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("oracle lv-dash (use_linear_target = 0)", oracle_vg, "lv-dash", DEVS_ORACLE,
	   "0 6144 striped 1 2048 7:258 2304\n" "6144 4096 striped 1 2048 7:259 8192\n"
	   "10240 4096 striped 1 2048 7:258 10496\n", "o--vg-lv--dash",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZVvc3Bl0dMIhqsJhPdctFGrIc9O7sirPc", false,
	   PF_DM_RA_MINIMUM_PV, 0, 1, .striped_for_linear = true),
	OK("oracle mix (use_linear_target = 0)", oracle_vg, "mix", DEVS_ORACLE,
	   "0 4096 striped 2 128 7:257 24576 7:258 37120\n4096 6144 striped 1 2048 7:259 34816\n",
	   "o--vg-mix", "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7ZnNhl7kD6z9ohYr5Pp7qxixM09TK6DSOd",
	   false, PF_DM_RA_MINIMUM, 512, 0, .striped_for_linear = true),
	OK("oracle str2 (readahead = none)", oracle_vg, "str2", DEVS_ORACLE,
	   "0 20480 striped 2 256 7:258 14592 7:259 12288\n", "o--vg-str2",
	   "LVM-vtY0gHGw1lMuhc0153t76cVKkpMkjO7Z8W4su5FA2Dkt2bb9V6Wpx2qNGtv6EES6", false,
	   PF_DM_RA_SET, 0, 0, .readahead = PF_DM_RA_CONFIG_NONE),

	/* Read-only, read-ahead and the lvm.conf options. */
	OK("WRITE_LOCKED is writable", ref_vg1, "wl", DEVS_016, "0 8192 linear 7:6 75776\n", NULL,
	   NULL, false, PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("read_only_volume_list", ref_vg1, "lin1", DEVS_016, "0 40960 linear 7:0 2048\n", NULL,
	   NULL, true, PF_DM_RA_MINIMUM_PV, 0, 0, .read_only = true),
	OK("skip flags are the caller's gate", ref_vg1, "skip", DEVS_016,
	   "0 8192 linear 7:6 108544\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 2),
	OK("lvchange -r 1024", ref_vg1, "ra1024", DEVS_016, "0 8192 linear 7:6 83968\n", NULL, NULL,
	   false, PF_DM_RA_SET, 1024, 0),
	OK("read_ahead = -1 is none", ref_vg1, "ranone", DEVS_016, "0 8192 linear 7:6 92160\n",
	   NULL, NULL, false, PF_DM_RA_SET, 0, 0),
	OK("read_ahead = 0 is auto even with readahead none", ref_vg1, "raauto", DEVS_016,
	   "0 8192 linear 7:6 100352\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 2,
	   .readahead = PF_DM_RA_CONFIG_NONE),
	OK("readahead = none", ref_vg2, "str3", DEVS_235,
	   "0 18432 striped 3 32 7:2 8448 7:3 14336 7:5 2048\n", NULL, NULL, false, PF_DM_RA_SET, 0,
	   0, .readahead = PF_DM_RA_CONFIG_NONE),
	OK("use_linear_target = 0", ref_vg1, "span", DEVS_016,
	   "0 253952 striped 1 8192 7:1 2048\n253952 73728 striped 1 8192 7:0 43008\n", NULL, NULL,
	   false, PF_DM_RA_MINIMUM_PV, 0, 1, .striped_for_linear = true),
	OK("use_linear_target = 0, striped unchanged", ref_mixed, "mix", DEVS_012,
	   "0 12288 striped 2 256 7:0 2048 7:1 2048\n"
	   "12288 8192 striped 2 256 7:0 12288 7:1 8192\n" "20480 6144 striped 1 2048 7:2 2048\n",
	   NULL, NULL, false, PF_DM_RA_MINIMUM, 1024, 0, .striped_for_linear = true),
	OK("use_linear_target = 0, extent below a page", small_vg, "tiny", DEVS_012,
	   "0 12 linear 7:0 2056\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0,
	   .striped_for_linear = true),
	OK("use_linear_target = 0, pages over an extent", ref_mixed, "mix", DEVS_012,
	   "0 12288 striped 2 256 7:0 2048 7:1 2048\n"
	   "12288 8192 striped 2 256 7:0 12288 7:1 8192\n" "20480 6144 linear 7:2 2048\n", NULL,
	   NULL, false, PF_DM_RA_MINIMUM, 1024, 0, .striped_for_linear = true,
	   .page_sectors = 4096),
	OK("error first leaves read-ahead", merge_vg, "err_lin", DEVS_012,
	   "0 2048 error \n2048 2048 linear 7:1 2048\n", NULL, NULL, false, PF_DM_RA_LEAVE, 0, 0),

	/* lvm2's merge of hand-edited neighbours (verified with vgcfgrestore + lvs --segments). */
	OK("merge: contiguous linear", merge_vg, "m_lin", DEVS_012, "0 6144 linear 7:0 22528\n",
	   "vgm-m_lin", NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("merge: not with other tags", merge_vg, "m_lin_tag", DEVS_012,
	   "0 2048 linear 7:0 43008\n2048 2048 linear 7:0 45056\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("merge: tags compared as sets", merge_vg, "m_lin_tags2", DEVS_012,
	   "0 4096 linear 7:0 47104\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("merge: not across PVs", merge_vg, "m_lin_pv", DEVS_012,
	   "0 2048 linear 7:0 51200\n2048 2048 linear 7:1 53248\n", NULL, NULL, false,
	   PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("merge: contiguous stripes", merge_vg, "m_str", DEVS_012,
	   "0 12288 striped 2 128 7:0 63488 7:1 63488\n", NULL, NULL, false, PF_DM_RA_MINIMUM, 512,
	   0),
	OK("merge: not with a gap in one stripe", merge_vg, "m_str_gap", DEVS_012,
	   "0 8192 striped 2 128 7:0 83968 7:1 83968\n"
	   "8192 4096 striped 2 128 7:0 88064 7:1 90112\n", NULL, NULL, false, PF_DM_RA_MINIMUM,
	   512, 0),
	OK("merge: not with another stripe size", merge_vg, "m_str_ss", DEVS_012,
	   "0 8192 striped 2 128 7:0 104448 7:1 104448\n"
	   "8192 4096 striped 2 64 7:0 108544 7:1 108544\n", NULL, NULL, false, PF_DM_RA_MINIMUM,
	   512, 0),
	OK("merge: error", merge_vg, "m_err", DEVS_012, "0 10240 error \n", NULL, NULL, false,
	   PF_DM_RA_LEAVE, 0, 0),
	OK("merge: zero ignores tags", merge_vg, "m_zero_tags", DEVS_012, "0 10240 zero \n", NULL,
	   NULL, false, PF_DM_RA_LEAVE, 0, 0),
	OK("merge: not error with zero", merge_vg, "m_ez", DEVS_012,
	   "0 4096 error \n4096 6144 zero \n", NULL, NULL, false, PF_DM_RA_LEAVE, 0, 0),
	OK("merge: three, then error, then one", merge_vg, "m_three", DEVS_012,
	   "0 6144 linear 7:0 112640\n6144 2048 error \n8192 2048 linear 7:0 118784\n", NULL, NULL,
	   false, PF_DM_RA_MINIMUM_PV, 0, 0),
	OK("merge: empty error between errors", merge_vg, "zl_err_mid", DEVS_012, "0 6144 error \n",
	   NULL, NULL, false, PF_DM_RA_LEAVE, 0, 0),
	OK("area ending at the PV's end", merge_vg, "at_end", DEVS_012,
	   "0 4096 linear 7:0 126976\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV, 0, 0),

	/* Edges of the arithmetic. */
	OK("largest offset", big_vg, "off_max", DEVS_012,
	   "0 4294967295 linear 7:1 18446744060824649730\n", NULL, NULL, false, PF_DM_RA_MINIMUM_PV,
	   0, 1),
	OK("largest LV", big_vg, "le_max", DEVS_012, "0 18446744065119617025 error \n", NULL, NULL,
	   false, PF_DM_RA_LEAVE, 0, 0),
	OK("largest read-ahead", ra_vg, "ra_max", DEVS_012,
	   "0 6442450944 striped 3 536870912 7:0 2147483648 7:1 2147483648 7:2 2147483648\n", NULL,
	   NULL, false, PF_DM_RA_MINIMUM, 3221225472U, 0),

	/* Refusals. */
	FAIL("empty striped segment", merge_vg, "zl_str", DEVS_012, -EBADMSG),
	FAIL("empty zero segment left alone", merge_vg, "zl_zero_first", DEVS_012, -EBADMSG),
	FAIL("area past the PV's end", merge_vg, "past_end", DEVS_012, -EBADMSG),
	FAIL("stripe past the PV's end", merge_vg, "str_past_end", DEVS_012, -EBADMSG),
	FAIL("offset overflows 64 bits", big_vg, "off_overflow", DEVS_012, -EOVERFLOW),
	FAIL("extents overflow 32 bits", big_vg, "le_overflow", DEVS_012, -EOVERFLOW),
	FAIL("read-ahead overflows 32 bits", ra_vg, "ra_overflow", DEVS_012, -EOVERFLOW),
	FAIL("PV without a device", fx_two_pv, "multi", DEVS_0, -ENODEV),
	FAIL("PV past the end of the map", fx_two_pv, "multi", DEVS_012, -ENODEV, .n_devs = 1),
	FAIL("PV flagged MISSING", odd_vg, "onmissing", DEVS_012, -EOPNOTSUPP),
	FAIL("thin LV", fx_segtypes, "th", DEVS_012, -EOPNOTSUPP),
	FAIL("snapshot origin", fx_segtypes, "lin", DEVS_012, -EOPNOTSUPP),
};

static struct pf_vg *import(const char *text)
{
	struct pf_vg *vg = NULL;
	struct pf_diag d;
	int r = pf_vg_import(text, strlen(text), &vg, &d);

	ck_assert_msg(r == 0, "import: %d %s (line %u)", r, d.msg, d.line);
	return vg;
}

START_TEST(test_build)
{
	const struct build_case *c = &build_cases[_i];
	struct pf_dm_pvmap map = { .n = c->n_devs ? c->n_devs : 3, .pvs = c->devs };
	struct pf_dm_table t;
	struct pf_vg *vg = import(c->text);
	const struct pf_vg_lv *lv = pf_vg_find_lv(vg, c->lv);
	struct pf_diag d;
	char *text = NULL;
	int r;

	ck_assert_ptr_nonnull(lv);
	memset(&t, 0xa5, sizeof(t));
	r = pf_dmtable_build(vg, lv, &map, &c->opts, &t, &d);
	ck_assert_msg(r == c->rc, "%s: got %d (%s), want %d", c->what, r, d.msg, c->rc);
	if (r < 0) {
		/* Outputs untouched, and a reason given. */
		ck_assert_uint_eq(t.n_targets, (size_t)0xa5a5a5a5a5a5a5a5ULL);
		ck_assert_msg(d.msg[0], "%s: no reason", c->what);
		goto out;
	}
	ck_assert_int_eq(pf_dmtable_format(&t, &text), 0);
	ck_assert_msg(strcmp(text, c->table) == 0, "%s: table\n%s\nwant\n%s", c->what, text,
		      c->table);
	if (c->name)
		ck_assert_str_eq(t.name, c->name);
	if (c->uuid)
		ck_assert_str_eq(t.uuid, c->uuid);
	ck_assert_uint_eq(strlen(t.uuid), 68);
	ck_assert_int_eq(t.read_only, c->ro);
	ck_assert_int_eq(t.read_ahead.kind, c->ra);
	ck_assert_uint_eq(t.read_ahead.sectors, c->ra_sectors);
	ck_assert_int_eq(t.read_ahead.pv_index, c->ra == PF_DM_RA_MINIMUM_PV ? c->ra_pv : -1);
	free(text);
	pf_dmtable_release(&t);
	ck_assert_ptr_null(t.targets);
	ck_assert_uint_eq(t.n_targets, 0);
out:
	pf_vg_free(vg);
}
END_TEST

/* The targets themselves, not just their text: what the LOAD ioctl carries. */
START_TEST(test_targets)
{
	static const struct pf_dm_pvdev devs[] = { LOOP(0), LOOP(1), LOOP(2) };
	struct pf_dm_pvmap map = { .n = 3, .pvs = devs };
	struct pf_vg *vg = import(ref_mixed);
	struct pf_dm_table t;

	ck_assert_int_eq(pf_dmtable_build(vg, pf_vg_find_lv(vg, "mix"), &map, NULL, &t, NULL), 0);
	ck_assert_uint_eq(t.n_targets, 3);
	ck_assert_uint_eq(t.targets[1].start_sectors, 12288);
	ck_assert_uint_eq(t.targets[1].len_sectors, 8192);
	ck_assert_str_eq(t.targets[1].type, "striped");
	ck_assert_str_eq(t.targets[1].params, "2 256 7:0 12288 7:1 8192");
	ck_assert_str_eq(t.targets[2].type, "linear");
	ck_assert_str_eq(t.targets[2].params, "7:2 2048");
	pf_dmtable_release(&t);
	pf_vg_free(vg);

	vg = import(ref_vg1);
	ck_assert_int_eq(pf_dmtable_build(vg, pf_vg_find_lv(vg, "err"), &map, NULL, &t, NULL), 0);
	ck_assert_uint_eq(t.n_targets, 1);
	ck_assert_str_eq(t.targets[0].type, "error");
	ck_assert_str_eq(t.targets[0].params, "");
	pf_dmtable_release(&t);
	pf_dmtable_release(&t);
	pf_dmtable_release(NULL);
	pf_vg_free(vg);
}
END_TEST

struct native_case {
	const char *text;
	const char *lv;
	bool native;
	const char *why; /* substring of the reason */
};

static const struct native_case native_cases[] = {
	{ fx_two_pv, "lin", true, NULL },
	{ fx_two_pv, "str", true, NULL },
	{ fx_segtypes, "z", true, NULL },
	{ fx_segtypes, "e", true, NULL },
	{ odd_vg, "plain", true, NULL },
	{ ref_vg1, "skip", true, NULL },
	{ ref_vg1, "wl", true, NULL },
	/* lvm2 2.03.16's segment types fixture: every stack is lvm2's to build. */
	{ fx_segtypes, "lin", false, "used by LV snapshot0 (snapshot)" },
	{ fx_segtypes, "snap", false, "hidden" },
	{ fx_segtypes, "snapshot0", false, "reserved \"snapshot\"" },
	{ fx_segtypes, "r0", false, "segment type raid0" },
	{ fx_segtypes, "tp", false, "segment type thin-pool" },
	{ fx_segtypes, "th", false, "segment type thin" },
	{ fx_segtypes, "r1", false, "segment type raid1" },
	{ fx_segtypes, "m1", false, "segment type mirror" },
	{ fx_segtypes, "c1", false, "segment type cache" },
	{ fx_segtypes, "cp", false, "hidden" },
	{ fx_segtypes, "tp_tdata", false, "hidden" },
	{ fx_segtypes, "r1_rimage_0", false, "hidden" },
	{ fx_segtypes, "m1_mimage_1", false, "hidden" },
	{ fx_segtypes, "c1_corig", false, "hidden" },
	{ fx_segtypes, "lvol0_pmspare", false, "hidden" },
	/* Hand-made oddities. */
	{ odd_vg, "fixed", false, "status or flags" },
	{ odd_vg, "locked", false, "status or flags" },
	{ odd_vg, "pvm", false, "status or flags" },
	{ odd_vg, "cvol", false, "status or flags" },
	{ odd_vg, "ewf", false, "status or flags" },
	{ odd_vg, "newflag", false, "flag SOMETHING_NEW" },
	{ odd_vg, "hidden", false, "hidden" },
	{ odd_vg, "x_rimage_0", false, "reserved \"_rimage\"" },
	{ odd_vg, "pvmove0", false, "reserved \"pvmove\"" },
	{ odd_vg, "snapshot1", false, "reserved \"snapshot\"" },
	{ odd_vg, "typeflag", false, "segment type striped+FOO" },
	{ odd_vg, "lintype", false, "segment type linear" },
	{ odd_vg, "under", false, "used by LV over (striped)" },
	{ odd_vg, "over", false, "stripe on LV under" },
	{ odd_vg, "onmissing", false, "PV pv1 is flagged MISSING" },
	{ odd_vg, "oddstripe", false, "not a multiple of stripe_size 1536" },
	{ odd_vg, "badtag", false, "non-string in tags" },
	{ odd_vg, "errtag", false, "non-string in tags" },
};

START_TEST(test_native)
{
	const struct native_case *c = &native_cases[_i];
	struct pf_vg *vg = import(c->text);
	const struct pf_vg_lv *lv = pf_vg_find_lv(vg, c->lv);
	struct pf_diag d;
	bool native;

	ck_assert_ptr_nonnull(lv);
	native = pf_dmtable_lv_native(vg, lv, &d);
	ck_assert_msg(native == c->native, "%s: %d (%s)", c->lv, native, d.msg);
	if (c->why)
		ck_assert_msg(strstr(d.msg, c->why), "%s: reason '%s' lacks '%s'", c->lv, d.msg,
			      c->why);
	else
		ck_assert_str_eq(d.msg, "");
	ck_assert(pf_dmtable_lv_native(vg, lv, NULL) == c->native);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_names)
{
	char b[PF_DM_NAME_LEN];
	char u[PF_DM_UUID_LEN];

	/* activation.md §1.1/§1.2, dmsetup splitname in the VM. */
	ck_assert_int_eq(pf_dmtable_name("my-vg", "lv-with-dash", NULL, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "my--vg-lv--with--dash");
	ck_assert_int_eq(pf_dmtable_name("my-vg", "lv--dd", NULL, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "my--vg-lv----dd");
	ck_assert_int_eq(pf_dmtable_name("my-vg", "lv+plus.dot_us", "", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "my--vg-lv+plus.dot_us");
	ck_assert_int_eq(pf_dmtable_name("a-b", "c-d", "e-f", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "a--b-c--d-e--f");
	ck_assert_int_eq(pf_dmtable_name("vg1", "pool", "tpool", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "vg1-pool-tpool");
	ck_assert_int_eq(pf_dmtable_name("vg1", "orig", "real", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "vg1-orig-real");
	ck_assert_int_eq(pf_dmtable_name("vg1", "m", "_mlog", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "vg1-m_mlog");

	/* Exactly fitting, and one byte short (outputs untouched). */
	ck_assert_int_eq(pf_dmtable_name("a-b", "c", NULL, b, 7), 0);
	ck_assert_str_eq(b, "a--b-c");
	ck_assert_int_eq(pf_dmtable_name("a-b", "cd", NULL, b, 7), -ENAMETOOLONG);
	ck_assert_str_eq(b, "a--b-c");
	ck_assert_int_eq(pf_dmtable_name("a", "b", "c-", b, 7), -ENAMETOOLONG);

	/* activation.md §1.4 example, and the udev database one for vg1-lin. */
	ck_assert_int_eq(pf_dmtable_uuid("IOaUceBfD10hhRK9kcRIRVcPBPZcWGja",
					 "4Bvw8u9JkcJHLXSsmUbtZytzS2cdpBmF", NULL, u, sizeof(u)),
			 0);
	ck_assert_str_eq(u, "LVM-IOaUceBfD10hhRK9kcRIRVcPBPZcWGja4Bvw8u9JkcJHLXSsmUbtZytzS2cdpBmF");
	ck_assert_int_eq(pf_dmtable_uuid("i91O2PjbCMFB25wNlcf8R4Cp7bURWoq2",
					 "hB515V2r0dtvkDMlRKTO4j4vZWGSfNr6", "real", u, sizeof(u)),
			 0);
	ck_assert_str_eq(u, "LVM-i91O2PjbCMFB25wNlcf8R4Cp7bURWoq2"
			    "hB515V2r0dtvkDMlRKTO4j4vZWGSfNr6-real");
	ck_assert_int_eq(pf_dmtable_uuid("IOaUceBfD10hhRK9kcRIRVcPBPZcWGja",
					 "4Bvw8u9JkcJHLXSsmUbtZytzS2cdpBmF", "", u, 69),
			 0);
	ck_assert_uint_eq(strlen(u), 68);
	ck_assert_int_eq(pf_dmtable_uuid("IOaUceBfD10hhRK9kcRIRVcPBPZcWGja",
					 "4Bvw8u9JkcJHLXSsmUbtZytzS2cdpBmF", "cow", u, 72),
			 -ENAMETOOLONG);
}
END_TEST

/* The dm name limit: 127 bytes after doubling every '-'. */
START_TEST(test_name_too_long)
{
	static const struct pf_dm_pvdev devs[] = { LOOP(0) };
	struct pf_dm_pvmap map = { .n = 1, .pvs = devs };
	char vgname[PF_NAME_MAX + 1], text[2048];
	struct pf_dm_table t;
	struct pf_diag d;
	struct pf_vg *vg;

	for (unsigned len = 121; len <= 125; len++) {
		/* "v...v" of len bytes plus "-l-" for the LV: 2 + 2 dashes beyond len. */
		memset(vgname, 'v', len);
		vgname[len] = '\0';
		(void)snprintf(text, sizeof(text),
			       "%s {\nid = \"IOaUce-BfD1-0hhR-K9kc-RIRV-cPBP-ZcWGja\"\nseqno = 1\n"
			       "status = [\"READ\", \"WRITE\"]\nextent_size = 8\nmax_lv = 0\n"
			       "max_pv = 0\nphysical_volumes {\n" PV("pv0", "00", "8", "4")
			       "}\nlogical_volumes {\n" LV("l-", "01", "1")
			       SEG("1", "0", "1", LIN("pv0", "0")) LV_END "}\n}\n" HDR,
			       vgname);
		vg = import(text);
		/* "VG" + "-" + "l--" */
		if (len + 4 <= PF_DM_NAME_LEN - 1) {
			ck_assert_int_eq(pf_dmtable_build(vg, &vg->lvs[0], &map, NULL, &t, &d), 0);
			ck_assert_uint_eq(strlen(t.name), len + 4);
			pf_dmtable_release(&t);
		} else {
			ck_assert_int_eq(pf_dmtable_build(vg, &vg->lvs[0], &map, NULL, &t, &d),
					 -ENAMETOOLONG);
			ck_assert_ptr_nonnull(strstr(d.msg, "dm name longer than 127"));
		}
		pf_vg_free(vg);
	}
}
END_TEST

START_TEST(test_read_ahead_value)
{
	struct pf_dm_read_ahead ra;
	uint32_t v = 77;

	/* activation.md §3.7, observed with PVs and the kernel at 256. */
	ra = (struct pf_dm_read_ahead){ .kind = PF_DM_RA_MINIMUM, .sectors = 192, .pv_index = -1 };
	ck_assert(!pf_dmtable_read_ahead_value(&ra, 256, 256, &v));
	ck_assert_uint_eq(v, 77);
	ra.sectors = 768;
	ck_assert(pf_dmtable_read_ahead_value(&ra, 256, 256, &v));
	ck_assert_uint_eq(v, 768);
	ra.sectors = 512;
	ck_assert(!pf_dmtable_read_ahead_value(&ra, 512, 0, &v));
	ra = (struct pf_dm_read_ahead){ .kind = PF_DM_RA_SET, .sectors = 1024, .pv_index = -1 };
	ck_assert(pf_dmtable_read_ahead_value(&ra, 256, 256, &v));
	ck_assert_uint_eq(v, 1024);
	/* "none" lowers it to 0. */
	ra.sectors = 0;
	ck_assert(pf_dmtable_read_ahead_value(&ra, 256, 256, &v));
	ck_assert_uint_eq(v, 0);
	ra = (struct pf_dm_read_ahead){ .kind = PF_DM_RA_MINIMUM_PV, .pv_index = 0 };
	ck_assert(!pf_dmtable_read_ahead_value(&ra, 256, 256, &v));
	ck_assert(pf_dmtable_read_ahead_value(&ra, 128, 256, &v));
	ck_assert_uint_eq(v, 256);
	ck_assert(!pf_dmtable_read_ahead_value(&ra, 0, 0, &v));
	ra = (struct pf_dm_read_ahead){ .kind = PF_DM_RA_LEAVE, .pv_index = -1 };
	v = 5;
	ck_assert(!pf_dmtable_read_ahead_value(&ra, 0, 4096, &v));
	ck_assert_uint_eq(v, 5);
}
END_TEST

START_TEST(test_format)
{
	struct pf_dm_target tg[2] = {
		{ .start_sectors = 0, .len_sectors = 8, .type = "error", .params = (char *)"" },
		{ .start_sectors = 8, .len_sectors = UINT64_MAX - 8, .type = "linear",
		  .params = (char *)"253:0 0" },
	};
	struct pf_dm_table t = { .n_targets = 0, .targets = tg };
	char *s = NULL;

	ck_assert_int_eq(pf_dmtable_format(&t, &s), 0);
	ck_assert_str_eq(s, "");
	free(s);
	t.n_targets = 2;
	ck_assert_int_eq(pf_dmtable_format(&t, &s), 0);
	ck_assert_str_eq(s, "0 8 error \n8 18446744073709551607 linear 253:0 0\n");
	free(s);
}
END_TEST

/* Text for one LV of n segments, each from seg(i); the caller frees it. */
static char *big_text(const char *pvs, unsigned n, const char *(*seg)(unsigned, char *, size_t))
{
	size_t cap = 4096 + (size_t)n * 256, len = 0;
	char *t = malloc(cap), one[512];

	ck_assert_ptr_nonnull(t);
	len += (size_t)snprintf(t + len, cap - len,
				VG_OPEN("vgcap", "8") "physical_volumes {\n%s}\nlogical_volumes {\n"
				LV("big", "01", "%u"), pvs, n);
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "segment%u {\n%s}\n", i + 1,
					seg(i, one, sizeof(one)));
	(void)snprintf(t + len, cap - len, LV_END VG_CLOSE);
	return t;
}

/* 65536 stripes all at PE 0 with 19-digit offsets: about 1.5 MiB of parameters each. */
static const char *wide_stripes(unsigned i, char *b, size_t size)
{
	(void)snprintf(b, size,
		       "start_extent = %u\nextent_count = 65536\ntype = \"striped\"\n"
		       "stripe_count = 65536\nstripe_size = 8\nstripes = [%s]\n",
		       i * 65536, "WIDE");
	return b;
}

static char *with_wide_stripes(unsigned n)
{
	char *t = big_text(PV("pv0", "00", "1000000000000000000", "1"), n, wide_stripes);
	size_t list_len = (size_t)65536 * 9;
	char *list = malloc(list_len + 1), *out, *p;
	size_t out_cap;

	ck_assert_ptr_nonnull(list);
	for (size_t i = 0; i < 65536; i++)
		memcpy(list + i * 9, "\"pv0\", 0,", 9);
	list[list_len - 1] = '\0'; /* drop the last comma */
	out_cap = strlen(t) + (size_t)n * list_len + 1;
	out = malloc(out_cap);
	ck_assert_ptr_nonnull(out);
	out[0] = '\0';
	p = t;
	for (char *w; (w = strstr(p, "WIDE")); p = w + 4) {
		strncat(out, p, (size_t)(w - p));
		strcat(out, list);
	}
	strcat(out, p);
	free(list);
	free(t);
	return out;
}

START_TEST(test_caps)
{
	static const struct pf_dm_pvdev devs[] = { LOOP(0) };
	struct pf_dm_pvmap map = { .n = 1, .pvs = devs };
	struct pf_vg_seg *one, *segs;
	struct pf_dm_table t;
	struct pf_diag d;
	struct pf_vg *vg;
	char *text;
	int r;

	/*
	 * Exactly PF_DMTABLE_TARGETS_MAX lines is fine; one more is not. The segments are grown
	 * in the model: the importer looks each segmentN up by name, too slow for 65537.
	 */
	vg = import(VG_OPEN("vgcap", "8") "physical_volumes {\n}\nlogical_volumes {\n"
		     LV("big", "01", "1") SEG("1", "0", "1", TYPE("error")) LV_END VG_CLOSE);
	one = vg->lvs[0].segs;
	segs = calloc(PF_DMTABLE_TARGETS_MAX + 1, sizeof(*segs));
	ck_assert_ptr_nonnull(segs);
	for (unsigned i = 0; i <= PF_DMTABLE_TARGETS_MAX; i++) {
		segs[i] = one[0];
		segs[i].start_extent = i;
		segs[i].type = i % 2 ? "zero" : "error";
	}
	vg->lvs[0].segs = segs;
	for (unsigned n = PF_DMTABLE_TARGETS_MAX; n <= PF_DMTABLE_TARGETS_MAX + 1; n++) {
		vg->lvs[0].n_segs = n;
		vg->lvs[0].extent_count = n;
		r = pf_dmtable_build(vg, &vg->lvs[0], &map, NULL, &t, &d);
		if (n == PF_DMTABLE_TARGETS_MAX) {
			ck_assert_int_eq(r, 0);
			ck_assert_uint_eq(t.n_targets, n);
			ck_assert_uint_eq(t.targets[n - 1].start_sectors, (uint64_t)(n - 1) * 8);
			ck_assert_str_eq(t.targets[n - 1].type, "zero");
			pf_dmtable_release(&t);
		} else {
			ck_assert_int_eq(r, -E2BIG);
			ck_assert_ptr_nonnull(strstr(d.msg, "targets"));
		}
	}
	vg->lvs[0].segs = one;
	vg->lvs[0].n_segs = 1;
	free(segs);
	pf_vg_free(vg);

	/* Two 1.5 MiB lines fit in PF_DMTABLE_PARAMS_MAX, three do not. */
	text = with_wide_stripes(2);
	vg = import(text);
	ck_assert_int_eq(pf_dmtable_build(vg, &vg->lvs[0], &map, NULL, &t, &d), 0);
	ck_assert_uint_eq(t.n_targets, 2);
	ck_assert_uint_eq(strlen(t.targets[1].params), 7 + (size_t)65536 * 24);
	pf_dmtable_release(&t);
	pf_vg_free(vg);
	free(text);
	text = with_wide_stripes(3);
	vg = import(text);
	ck_assert_int_eq(pf_dmtable_build(vg, &vg->lvs[0], &map, NULL, &t, &d), -E2BIG);
	ck_assert_ptr_nonnull(strstr(d.msg, "parameters"));
	pf_vg_free(vg);
	free(text);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("dmtable");
	TCase *tc = pf_unit_tcase("core");

	tcase_add_loop_test(tc, test_build, 0, (int)ARRAY_SIZE(build_cases));
	tcase_add_test(tc, test_targets);
	tcase_add_loop_test(tc, test_native, 0, (int)ARRAY_SIZE(native_cases));
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_name_too_long);
	tcase_add_test(tc, test_read_ahead_value);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_caps);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
