# Sourced by the install-*.sh scripts of Go programs the tests run.
#
# go_install DIR PACKAGE VERSION installs the Go program PACKAGE (a module, or a package of one)
# at VERSION into DIR with go install, from the Go module proxy, unless DIR holds it at that
# version already (go version -m reads the module's version from the binary), and prints DIR,
# the directory to put on PATH.
go_install() {
	local dir=$1 pkg=$2 version=$3 name
	name=$(basename "$pkg")
	command -v go >/dev/null || { echo "install-$name: go not found" >&2; exit 1; }
	if [ "$(go version -m "$dir/$name" 2>/dev/null | awk '$1 == "mod" { print $3 }')" != "$version" ]; then
		echo "install-$name: go install $pkg@$version into $dir" >&2
		GOBIN="$dir" go install "$pkg@$version" >&2
	fi
	echo "$dir"
}
