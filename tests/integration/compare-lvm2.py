#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare `pvscan-fast --dump --json` with lvm2's reports captured for a fixture.

Usage: compare-lvm2.py FIXTURE_DIR DUMP_JSON [LIVE_SEGS_JSON [--segments-only]]
Every PV, VG, LV and segment lvm2 reported must match field by field, and so
must every header field `pvck --dump headers` printed (label, pv_header, area
lists, extension, each mda header, raw_locn, text location); exits 1 listing
each difference. lvm2's device names (from capture time) are mapped to
the fixture's PVs through FIXTURE_DIR/devices, so the loop numbers used now do
not matter. With LIVE_SEGS_JSON (lvm2's segment report taken now, on the devices
the dump read), segments are compared with it instead of the fixture's segs.json;
--segments-only then compares nothing else (for a subset of the fixture's devices).
"""
import json
import os
import re
import sys


# lvm2's segment fields that are not the metadata's: the LV's own, or the kernel's.
SEG_NOT_COMPARED = {"lv_name", "lv_uuid", "vg_name", "seg_monitor", "data_offset",
                    "new_data_offset"}
SEG_BIN = {"zero", "vdo_compression", "vdo_deduplication", "vdo_use_metadata_hints",
           "vdo_use_sparse_index"}
SEG_LISTS = {"seg_tags", "cache_settings"}
SEG_AREAS = {"devices", "metadata_devices", "seg_pe_ranges", "seg_le_ranges",
             "seg_metadata_le_ranges"}
SEG_STRINGS = {"segtype", "discards", "cache_mode", "cache_policy", "vdo_write_policy"}


def report(path, kind):
    with open(path) as f:
        data = json.load(f)
    rows = []
    for part in data.get("report", []):
        rows.extend(part.get(kind, []))
    return rows


def pvck_sections(path):
    """Per device, the key/value lines of `pvck --dump headers` (plus text lines)."""
    sections = []
    cur = None
    with open(path) as f:
        for line in f:
            if line.startswith("### "):
                cur = None
                if "pvck --dump headers" in line:
                    cur = {"kv": {}, "texts": [], "locn": []}
                    sections.append(cur)
                continue
            if cur is None:
                continue
            line = line.strip()
            m = re.match(r"metadata text at (\d+) crc (0x[0-9a-f]+) # vgname (\S+) seqno (\d+)", line)
            if m:
                cur["texts"].append((int(m.group(1)), int(m.group(2), 16), m.group(3),
                                     int(m.group(4))))
                continue
            m = re.match(r"(\S+) at \d+ # (.*)", line)
            if m and "disk_locn" in m.group(1):
                cur["locn"].append((m.group(1), m.group(2)))
                continue
            parts = line.split(" ", 1)
            if len(parts) == 2:
                cur["kv"][parts[0]] = parts[1]
    return sections


def num(v):
    v = v.split()[0]
    return int(v, 16) if v.startswith("0x") else int(v)


def compare_pvck(fixture, devs, check, errors):
    path = os.path.join(fixture, "pvck.txt")
    if not os.path.exists(path):
        return
    for sec in pvck_sections(path):
        kv = sec["kv"]
        pvid = kv.get("pv_header.pv_uuid")
        d = devs.get(pvid)
        w = f"pvck {pvid}"
        if d is None:
            errors.append(f"{w}: no such PV in pvscan-fast's dump")
            continue
        check(f"{w} label sector", d["label_sector"], num(kv["label_header.sector"]))
        check(f"{w} label crc", d["label_crc"], num(kv["label_header.crc"]))
        check(f"{w} device_size", d["pv_header_dev_size"], num(kv["pv_header.device_size"]))
        data, mdas, ba = [], [], []
        for key, what in sec["locn"]:
            entry = (num(kv[key + ".offset"]), num(kv[key + ".size"]))
            if what.startswith("location of data area"):
                data.append(entry)
            elif what.startswith("location of metadata area"):
                mdas.append(entry)
            elif what.startswith("bootloader area"):
                ba.append(entry)
        check(f"{w} data areas", [(a["offset"], a["size"]) for a in d["data_areas"]], data)
        check(f"{w} bootloader areas",
              [(a["offset"], a["size"]) for a in d["bootloader_areas"]], ba)
        check(f"{w} metadata areas", [(m["offset"], m["size"]) for m in d["mdas"]], mdas)
        if "pv_header_extension.version" in kv:
            check(f"{w} ext version", d["pv_ext_version"], num(kv["pv_header_extension.version"]))
            check(f"{w} ext flags", d["pv_ext_flags"], num(kv["pv_header_extension.flags"]))
        for i, m in enumerate(d["mdas"], 1):
            pre = f"mda_header_{i}"
            if pre + ".checksum" not in kv:
                continue
            check(f"{w} mda{i} header checksum", m.get("header_checksum"), num(kv[pre + ".checksum"]))
            check(f"{w} mda{i} ignored", m.get("ignored"),
                  bool(num(kv[pre + ".raw_locn[0].flags"]) & 1))
            off = num(kv[pre + ".raw_locn[0].offset"])
            if off:
                check(f"{w} mda{i} text offset", m.get("text_offset"), num(kv[pre + ".start"]) + off)
                check(f"{w} mda{i} text size", m.get("text_size"), num(kv[pre + ".raw_locn[0].size"]))
                check(f"{w} mda{i} text checksum", m.get("text_checksum"),
                      num(kv[pre + ".raw_locn[0].checksum"]))
        for at, crc, vgname, seqno in sec["texts"]:
            hit = [m for m in d["mdas"] if m.get("text_offset") == at]
            if not hit:
                errors.append(f"{w}: pvck shows metadata text at {at}, pvscan-fast does not")
                continue
            check(f"{w} text at {at} vg_name", hit[0].get("vg_name"), vgname)
            check(f"{w} text at {at} vg_seqno", hit[0].get("vg_seqno"), seqno)


def main():
    fixture, dump_path = sys.argv[1], sys.argv[2]
    live_segs = sys.argv[3] if len(sys.argv) > 3 else None
    only_segs = sys.argv[4:] == ["--segments-only"]

    def rows(name, kind):
        return [] if only_segs else report(os.path.join(fixture, name), kind)
    with open(dump_path) as f:
        dump = json.load(f)
    errors = []
    checked = 0

    def check(what, ours, theirs):
        nonlocal checked
        checked += 1
        if ours != theirs:
            errors.append(f"{what}: pvscan-fast {ours!r} != lvm2 {theirs!r}")

    # Capture-time device name of each PV, to translate lvm2's "devices" column.
    old_name = {}
    with open(os.path.join(fixture, "devices")) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] != "-":
                old_name[parts[1]] = parts[2]

    devs = {d["pvid"]: d for d in dump["devices"] if "pvid" in d}
    for d in dump["devices"]:
        if not d["ok"]:
            errors.append(f"{d['pv_name']}: not read cleanly: {json.dumps(d)[:400]}")
    vgs = {v["vg_uuid"]: v for v in dump["vgs"]}
    vg_of_pv = {}
    for v in dump["vgs"]:
        for p in v["pvs"]:
            vg_of_pv[p["pv_uuid"]] = (v, p)

    for r in rows("pvs.json", "pv"):
        uuid = r["pv_uuid"]
        pvid = uuid.replace("-", "")
        d = devs.get(pvid)
        if d is None:
            errors.append(f"PV {uuid}: lvm2 reports it, pvscan-fast found no such label")
            continue
        w = f"PV {uuid}"
        check(f"{w} pv_uuid", d["pv_uuid"], uuid)
        check(f"{w} dev_size", d["dev_size"], int(r["dev_size"]))
        check(f"{w} pv_mda_count", d["pv_mda_count"], int(r["pv_mda_count"]))
        if "pv_mda_used_count" in r:
            used = sum(1 for m in d["mdas"] if m["header_ok"] and not m["ignored"])
            check(f"{w} pv_mda_used_count", used, int(r["pv_mda_used_count"]))
        if "pv_ba_start" in r:
            ba = d["bootloader_areas"][0] if d["bootloader_areas"] else {"offset": 0, "size": 0}
            check(f"{w} pv_ba_start", ba["offset"], int(r["pv_ba_start"]))
            check(f"{w} pv_ba_size", ba["size"], int(r["pv_ba_size"]))
        vg, p = vg_of_pv.get(uuid, (None, None))
        check(f"{w} vg_name", vg["vg_name"] if vg else "", r.get("vg_name", ""))
        if "vg_uuid" in r:
            check(f"{w} vg_uuid", vg["vg_uuid"] if vg else "", r["vg_uuid"])
        if p:
            check(f"{w} pe_start", p["pe_start"], int(r["pe_start"]))
            check(f"{w} pv_pe_count", p["pv_pe_count"], int(r["pv_pe_count"]))
        else:
            check(f"{w} pe_start", d.get("pe_start"), int(r["pe_start"]))
            check(f"{w} pv_pe_count", 0, int(r["pv_pe_count"]))

    lvs = {}
    for v in dump["vgs"]:
        for lv in v["lvs"]:
            lvs[lv["lv_uuid"]] = (v, lv)

    for r in rows("vgs.json", "vg"):
        v = vgs.get(r["vg_uuid"])
        w = f"VG {r['vg_name']}"
        if v is None:
            errors.append(f"{w}: lvm2 reports it, pvscan-fast found none")
            continue
        check(f"{w} vg_name", v["vg_name"], r["vg_name"])
        check(f"{w} vg_seqno", v["vg_seqno"], int(r["vg_seqno"]))
        check(f"{w} vg_extent_size", v["vg_extent_size"], int(r["vg_extent_size"]))
        check(f"{w} pv_count", v["pv_count"], int(r["pv_count"]))
        if "vg_extent_count" in r:
            check(f"{w} vg_extent_count", sum(p["pv_pe_count"] for p in v["pvs"]),
                  int(r["vg_extent_count"]))
        if "lv_count" in r:
            # lvm2 counts the LVs a user sees: a snapshot is its hidden COW LV,
            # while the internal "snapshotN" LV carrying VISIBLE is not counted.
            snap_segs = [s for lv in v["lvs"] for s in lv["segments"]
                         if s["segtype"] == "snapshot"]
            cows = {s["settings"].get("cow_store") for s in snap_segs}
            internal = {lv["lv_name"] for lv in v["lvs"]
                        if any(s["segtype"] == "snapshot" for s in lv["segments"])}
            visible = sum(1 for lv in v["lvs"]
                          if (lv["lv_visible"] and lv["lv_name"] not in internal)
                          or lv["lv_name"] in cows)
            check(f"{w} lv_count", visible, int(r["lv_count"]))
        if "vg_tags" in r:
            check(f"{w} vg_tags", ",".join(sorted(v["vg_tags"])), r["vg_tags"])
        if "vg_systemid" in r:
            check(f"{w} vg_systemid", v["vg_systemid"] or "", r["vg_systemid"])
        if "vg_lock_type" in r:
            check(f"{w} vg_lock_type", v["vg_lock_type"] or "", r["vg_lock_type"])

    for r in rows("lvs.json", "lv"):
        name = r["lv_name"].strip("[]")
        w = f"LV {r['vg_name']}/{name}"
        v, lv = lvs.get(r["lv_uuid"], (None, None))
        if lv is None:
            errors.append(f"{w}: lvm2 reports it, pvscan-fast found none")
            continue
        check(f"{w} lv_name", lv["lv_name"], name)
        check(f"{w} vg_name", v["vg_name"], r["vg_name"])
        if "seg_count" in r:
            check(f"{w} seg_count", lv["seg_count"], int(r["seg_count"]))
        if "lv_attr" in r:
            check(f"{w} lv_attr", lv["lv_attr"], r["lv_attr"])
        if "lv_tags" in r:
            check(f"{w} lv_tags", ",".join(sorted(lv["lv_tags"])), r["lv_tags"])
        if "lv_permissions" in r and r["lv_permissions"] in ("writeable", "read-only"):
            ours = "writeable" if lv["lv_permissions"] == "read/write" else "read-only"
            check(f"{w} lv_permissions", ours, r["lv_permissions"])
        if "lv_size" in r and lv["segments"] and lv["segments"][0]["segtype"] != "snapshot":
            check(f"{w} lv_size", lv["lv_size"], int(r["lv_size"]))

    # Device paths now -> at capture time, for lvm2's devices and ranges columns.
    renamed = {d["pv_name"]: old_name.get(d.get("pvid"), "?") for d in dump["devices"]}
    if live_segs:
        renamed = {}

    def old_paths(v):
        return re.sub(r"/dev/[^:( ,]+", lambda m: renamed.get(m.group(0), m.group(0)), v)

    for r in report(live_segs or os.path.join(fixture, "segs.json"), "seg"):
        name = r["lv_name"].strip("[]")
        w = f"segment {r['vg_name']}/{name}@{r['seg_start_pe']}"
        v, lv = lvs.get(r["lv_uuid"], (None, None))
        if lv is None:
            errors.append(f"{w}: LV missing in pvscan-fast")
            continue
        segs = [s for s in lv["segments"] if s["seg_start_pe"] == int(r["seg_start_pe"])]
        if not segs:
            errors.append(f"{w}: no such segment in pvscan-fast")
            continue
        s = segs[0]
        for field, theirs in r.items():
            if field in SEG_NOT_COMPARED:
                continue
            if field == "lv_attr":
                check(f"{w} lv_attr", lv["lv_attr"], theirs)
                continue
            if field not in s and not field.startswith("vdo_"):
                errors.append(f"{w} {field}: pvscan-fast does not report it")
                continue
            ours = s.get(field)
            if field in SEG_BIN:
                theirs = None if theirs == "unknown" else theirs != ""
                ours = bool(ours) if ours is not None or theirs is not None else None
            elif field in SEG_LISTS:
                ours = ",".join(ours)
            elif field in SEG_AREAS:
                ours = old_paths(ours)
            elif isinstance(ours, bool) or field in SEG_STRINGS:
                ours = "" if ours is None else ours
            else:
                theirs = None if theirs == "" else int(theirs)
            check(f"{w} {field}", ours, theirs)

    if not only_segs:
        compare_pvck(fixture, devs, check, errors)

    for e in errors:
        print("MISMATCH " + e)
    print(f"{os.path.basename(fixture.rstrip('/'))}: {checked} fields compared, "
          f"{len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
