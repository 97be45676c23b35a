#!/bin/sh
# p2's installer for Linux and macOS. It downloads the release for this machine from a release location
# (what `npm run release` makes), checks the archive against the release's SHA256SUMS, and installs `p2` into
# ~/.local/bin, or the directory given. Nothing is installed unless the checksum matches.
#
#   sh install.sh --from https://example.org/p2/releases/latest/ [--dir ~/bin]
#
# The location may also come from P2_RELEASES, the directory from P2_INSTALL_DIR. On Windows, download
# p2-windows-x64.zip and its line of SHA256SUMS by hand (Get-FileHash p2-windows-x64.zip checks it).
set -eu

from="${P2_RELEASES:-}"
dir="${P2_INSTALL_DIR:-$HOME/.local/bin}"

say() { printf 'p2 install: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
		--from) [ $# -ge 2 ] || fail "--from needs a URL"; from="$2"; shift 2 ;;
		--from=*) from="${1#--from=}"; shift ;;
		--dir) [ $# -ge 2 ] || fail "--dir needs a directory"; dir="$2"; shift 2 ;;
		--dir=*) dir="${1#--dir=}"; shift ;;
		-h|--help) sed -n '2,9p' "$0" 2>/dev/null || true; exit 0 ;;
		*) fail "unknown argument: $1 (see --help)" ;;
	esac
done
[ -n "$from" ] || fail "no release location: pass --from URL or set P2_RELEASES"
case "$from" in
	https://*) ;;
	http://127.0.0.1[:/]*|http://localhost[:/]*|http://\[::1\][:/]*) ;;
	*) fail "the release location must be https: $from" ;;
esac
case "$from" in */) ;; *) from="$from/" ;; esac

case "$(uname -s)" in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) fail "no p2 release for $(uname -s); see the README for Windows" ;;
esac
case "$(uname -m)" in
	x86_64|amd64) arch=x64 ;;
	aarch64|arm64) arch=arm64 ;;
	*) fail "no p2 release for $(uname -m)" ;;
esac
platform="$os-$arch"
archive="p2-$platform.tar.gz"

if command -v curl >/dev/null 2>&1; then
	fetch() { curl --fail --silent --show-error --location --proto '=https,http' --output "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget --quiet --output-document="$2" "$1"; }
else
	fail "needs curl or wget"
fi
if command -v sha256sum >/dev/null 2>&1; then
	digest() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	digest() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
	fail "needs sha256sum or shasum"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM

fetch "${from}SHA256SUMS" "$work/SHA256SUMS" || fail "could not download ${from}SHA256SUMS"
expected="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$work/SHA256SUMS")"
[ -n "$expected" ] || fail "SHA256SUMS lists no $archive: this release has no p2 for $platform"
fetch "${from}${archive}" "$work/$archive" || fail "could not download ${from}${archive}"
actual="$(digest "$work/$archive")"
[ "$actual" = "$expected" ] || fail "$archive does not match its checksum (expected $expected, got $actual); nothing was installed"

mkdir -p "$work/unpacked"
tar -xzf "$work/$archive" -C "$work/unpacked" p2 || fail "$archive holds no p2"
"$work/unpacked/p2" --version >/dev/null 2>&1 || fail "the downloaded p2 does not start on this machine; nothing was installed"
mkdir -p "$dir"
cp "$work/unpacked/p2" "$dir/.p2-install.$$"
chmod 0755 "$dir/.p2-install.$$"
mv -f "$dir/.p2-install.$$" "$dir/p2"
say "installed $("$dir/p2" --version) as $dir/p2"
case ":$PATH:" in
	*":$dir:"*) ;;
	*) say "$dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
