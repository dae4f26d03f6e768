#!/bin/sh
# Installs punchgate from this unpacked tarball, on a Linux box without dpkg (or where a .deb is not
# wanted): the same files as the .deb, in the same places, and the same maintainer scripts
# (postinst, prerm, postrm beside this file) for the user, the token, the journal and the service.
#
#   sudo ./install.sh              install, or upgrade (a running service is restarted)
#   sudo ./install.sh --uninstall  remove the program (config and journal stay)
#   sudo ./install.sh --purge      also remove the config; /var/lib/punchgate stays while a
#                                  journal in it holds undelivered punches or backups/ holds a backup
set -eu

here=$(cd "$(dirname "$0")" && pwd)
files=$here/root
arch=@ARCH@
machine=@MACHINE@
version=@VERSION@

die() {
	echo "install.sh: $*" >&2
	exit 1
}

[ "$(uname -m)" = "$machine" ] || die "this is punchgate for $arch ($machine); this box is $(uname -m): use the punchgate-$version-linux-<arch>.tar.gz of its architecture"
[ "$(id -u)" = 0 ] || die "run it as root: sudo $0 ${1:-}"
[ -d "$files/usr/lib/punchgate" ] || die "$files/usr/lib/punchgate is missing: unpack the whole tarball"

# The program's files (not the config), as paths below /, from this tarball.
program_files() {
	(cd "$files" && find . -type f ! -path './etc/*' ! -path './usr/lib/punchgate/*' | sed 's|^\.||')
}

uninstall() {
	sh "$here/prerm" remove
	rm -rf /usr/lib/punchgate
	program_files | while read -r f; do rm -f "$f"; done
	sh "$here/postrm" remove
}

case "${1:-}" in
--uninstall)
	uninstall
	echo "punchgate $version removed; /etc/punchgate and /var/lib/punchgate are kept (--purge removes the config)."
	exit 0
	;;
--purge)
	uninstall
	rm -f /etc/punchgate/punchgate.yaml /etc/punchgate/punchgate.yaml.new
	sh "$here/postrm" purge
	exit 0
	;;
'') ;;
*) die "unknown option $1 (--uninstall, --purge, or nothing to install)" ;;
esac

old=
if [ -x /usr/lib/punchgate/bin/node ]; then
	old=$(/usr/bin/punchgate --version 2>/dev/null | sed -n 's/^punchgate \([^ ]*\).*/\1/p') || true
	old=${old:-unknown}
fi

# The program folder is swapped in whole: a running punchgate keeps the files it has open until
# postinst restarts it.
rm -rf /usr/lib/punchgate.new /usr/lib/punchgate.old
cp -a "$files/usr/lib/punchgate" /usr/lib/punchgate.new
[ -d /usr/lib/punchgate ] && mv /usr/lib/punchgate /usr/lib/punchgate.old
mv /usr/lib/punchgate.new /usr/lib/punchgate
rm -rf /usr/lib/punchgate.old
program_files | while read -r f; do
	mkdir -p "$(dirname "$f")"
	cp -p "$files$f" "$f.new"
	mv "$f.new" "$f"
done

# The config is the admin's: installed when absent; a newer example beside it when it differs.
mkdir -p /etc/punchgate
if [ ! -e /etc/punchgate/punchgate.yaml ]; then
	cp -p "$files/etc/punchgate/punchgate.yaml" /etc/punchgate/punchgate.yaml
elif ! cmp -s "$files/etc/punchgate/punchgate.yaml" /etc/punchgate/punchgate.yaml; then
	cp -p "$files/etc/punchgate/punchgate.yaml" /etc/punchgate/punchgate.yaml.new
	echo "punchgate: your /etc/punchgate/punchgate.yaml is kept; this version's example is punchgate.yaml.new"
fi

if [ -n "$old" ]; then
	sh "$here/postinst" configure "$old"
else
	sh "$here/postinst" configure
fi
