#!/bin/sh
# lib/'s layering, checked from the sources: every lib/ header is included by its layer path
# ("format/label.h"), a layer includes only itself and the layers below it (the order of
# PF_LIB_SOURCES in lib/Makemodule.am), and one file each includes libdevmapper and libaio.
set -u
top=${top_srcdir:-$(dirname "$0")/..}
cd "$top" || exit 99

order=$(sed -n 's/^PF_LIB_SOURCES = //p' lib/Makemodule.am |
	sed 's/\$(PF_LIB_\([A-Z]*\))/\1/g' | tr 'A-Z' 'a-z')
[ -n "$order" ] || { echo "check-layers: no PF_LIB_SOURCES line in lib/Makemodule.am"; exit 99; }

rank() { # layer name -> its position in $order, or nothing
	i=0
	for l in $order; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
}

fail=0
bad() { echo "check-layers: $*"; fail=1; }

for f in lib/*.[ch]; do
	[ -f "$f" ] && bad "$f: every lib/ source belongs in a layer folder"
done

for d in lib/*/; do
	layer=$(basename "$d")
	[ -n "$(rank "$layer")" ] || bad "$d: not a layer named in PF_LIB_SOURCES"
	[ -f "$d/README.md" ] || bad "$d: no README.md saying what the layer owns and may use"
done

for f in lib/*/*.[ch] pvscan-fast/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] tests/bench/*.c; do
	[ -f "$f" ] || continue
	case $f in lib/*) me=$(rank "$(basename "$(dirname "$f")")") ;; *) me= ;; esac
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' | {
		while read -r line inc; do
			case $inc in
			config.h) continue ;;
			*/*)
				layer=${inc%%/*}
				r=$(rank "$layer")
				if [ -z "$r" ] || [ ! -f "lib/$inc" ]; then
					[ -f "$(dirname "$f")/$inc" ] || bad "$f:$line: \"$inc\" is no lib/ header"
				elif [ -n "$me" ] && [ "$r" -gt "$me" ]; then
					bad "$f:$line: layer $(basename "$(dirname "$f")") includes $inc, a layer above it"
				fi
				;;
			*)
				if [ -n "$(find lib -name "$inc" -print -quit)" ] && [ ! -f "$(dirname "$f")/$inc" ]; then
					bad "$f:$line: \"$inc\" without its layer folder"
				fi
				;;
			esac
		done
		exit $fail
	} || fail=1
done

one_file() { # <system header> <the one lib/ file allowed to include it>
	got=$(grep -l "#include <$1>" lib/*/*.[ch] 2>/dev/null)
	[ -z "$got" ] || [ "$got" = "$2" ] || bad "<$1> included by $(echo $got) (only $2 may)"
}
one_file libdevmapper.h lib/activate/dm.c
one_file libaio.h lib/io/libaio.c

[ $fail -eq 0 ] && echo "check-layers: $(echo $order | wc -w) layers, every include points down"
exit $fail
