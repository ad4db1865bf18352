package inputs

import (
	"errors"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/release"
)

// The grammar of an image reference, as Docker's distribution/reference package spells it.
const (
	refDomainPart = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refDomain     = refDomainPart + `(?:\.` + refDomainPart + `)*(?::[0-9]+)?`
	refPathPart   = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	refTag        = `[\w][\w.-]{0,127}`
	refDigest     = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
)

var (
	imageRe = regexp.MustCompile(`^(?:` + refDomain + `/)?` + refPathPart + `(?:/` + refPathPart + `)*` +
		`(?::` + refTag + `)?(?:@` + refDigest + `)?$`)
	networkRe   = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)
	groupNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
	decimalRe   = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)
	// sizeRe is a byte count with an optional unit: k, m, g or t, each optionally followed by b
	// or ib, or b alone. Docker reads every unit as a power of 1024, and so do we.
	sizeRe     = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?)(?:([kmgt])(?:i?b)?|b)?$`)
	devPermsRe = regexp.MustCompile(`^[rwm]{1,3}$`)
)

const (
	// minMemory is the smallest memory limit the Docker daemon accepts.
	minMemory = 6 << 20
	// maxID is the largest uid or gid accepted: the largest that fits a signed 32-bit int, which
	// is as far as Docker and common images go.
	maxID = math.MaxInt32
)

// docker reads the Docker sandbox inputs, in the order of Definitions. dir is the working
// directory; dirOK says it exists, so paths relative to it can be checked. agent is the agent
// input, whose published sandbox image is the default when there is nothing to build.
func (l *loader) docker(dir string, dirOK bool, agent string) DockerConfig {
	var d DockerConfig
	var imageIsDefault bool
	d.Image, imageIsDefault = l.image(dir)
	d.Build = BuildPolicy(l.choice(InputBuildImage))
	if d.Build == BuildNever {
		for _, name := range []string{InputDockerfile, InputBuildContext, InputBuildArgs} {
			if l.changed(name) {
				l.problem(name, "is not used with build-image never; remove %s or use build-image auto or always", KeyName(name))
			}
		}
	}
	// Neither an image nor a Dockerfile: the agent's published image, pulled when missing.
	prebuilt := imageIsDefault && dirOK && d.Build != BuildAlways && !l.changed(InputDockerfile) &&
		l.missing(resolve(dir, l.single(InputDockerfile)))
	if prebuilt && d.Build != BuildNever {
		for _, name := range []string{InputBuildContext, InputBuildArgs} {
			if l.changed(name) {
				l.problem(name, "is not used: there is no %s to build, so the published image %s is used; write that Dockerfile (sandcastle init does) or remove %s", resolve(dir, l.single(InputDockerfile)), release.SandboxImage(agent), KeyName(name))
			}
		}
	}
	d.Dockerfile, d.BuildContext = l.buildFiles(dir, dirOK && d.Build != BuildNever && !prebuilt, d.Build)
	if text, ok := l.given(InputBuildArgs); ok && !prebuilt {
		args, problems := parseMap(text, nil)
		for _, p := range problems {
			l.problem(InputBuildArgs, "%s", p)
		}
		d.BuildArgs = args
	}
	d.Pull = l.boolean(InputPull)
	switch {
	case d.Pull && d.Build == BuildAlways:
		l.problem(InputPull, "is not used with build-image always, which builds on every run; remove pull or use build-image auto or never")
	case d.Pull && imageIsDefault && !prebuilt:
		l.problem(InputPull, "needs image: the default image %s is built here from %s, not pulled; set image to a registry image like ghcr.io/owner/name:tag, or remove pull", d.Image, d.Dockerfile)
	}
	if prebuilt {
		d.Image, d.Prebuilt, d.Build, d.Pull = release.SandboxImage(agent), true, BuildNever, true
	}
	d.UID = l.id(InputContainerUID, "user")
	d.GID = l.id(InputContainerGID, "group")
	d.Network = l.network()
	d.CPUs = l.cpus()
	d.Memory = l.memory()
	d.PidsLimit = l.number(InputPidsLimit, 1, math.MaxInt64)
	d.Mounts = l.mounts(dir, dirOK)
	d.Devices = l.devices()
	d.Groups = l.groups()
	d.SELinuxLabel = l.selinuxLabel()
	d.Sync = SyncMode(l.choice(InputSandboxSync))
	return d
}

// notDocker reports each Docker input that was changed from its default although the sandbox
// is not docker: it would be silently ignored. Defaults do not count, because the runner sets
// every input the workflow leaves out to its default.
func (l *loader) notDocker(sandbox string) {
	for _, name := range dockerInputs() {
		if l.changed(name) {
			l.problem(name, "only applies with sandbox docker, but sandbox is %s; remove %s or set sandbox: docker", sandbox, KeyName(name))
		}
	}
}

// missing reports whether the file at path does not exist.
func (l *loader) missing(path string) bool {
	_, err := l.env.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// changed reports whether name was given a value other than its default.
func (l *loader) changed(name string) bool {
	v, ok := l.given(name)
	return ok && strings.TrimSpace(v) != defaultOf(name)
}

// image returns the image reference, and whether it is the default one.
func (l *loader) image(dir string) (string, bool) {
	v := l.single(InputImage)
	if v == "" {
		return defaultImage(dir), true
	}
	if !imageRe.MatchString(v) {
		l.problem(InputImage, "%q is not an image reference; use a lower-case name with an optional :tag, like sandcastle:myrepo or ghcr.io/owner/name:1.0", v)
	}
	return v, false
}

// defaultImage names the image after the repository directory, as upstream Sandcastle does, so
// images of different repositories on one machine do not collide.
func defaultImage(dir string) string {
	tag := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(filepath.Base(dir)))
	// A tag cannot start with . or - and has at most 128 characters.
	tag = strings.TrimLeft(tag, ".-")
	if len(tag) > 128 {
		tag = tag[:128]
	}
	if tag == "" {
		tag = "local"
	}
	return "sandcastle:" + tag
}

// buildFiles returns the absolute Dockerfile and build context. check says whether a build can
// happen, so the files it needs must be usable.
func (l *loader) buildFiles(dir string, check bool, build BuildPolicy) (dockerfile, context string) {
	dockerfile = resolve(dir, l.single(InputDockerfile))
	if check && (build == BuildAlways || l.changed(InputDockerfile)) {
		info, err := l.env.Stat(dockerfile)
		switch {
		case err != nil:
			l.problem(InputDockerfile, "%s; paths are relative to working-directory %s", readError(dockerfile, err), dir)
		case info.IsDir():
			l.problem(InputDockerfile, "%s is a directory; give the Dockerfile's path", dockerfile)
		case !info.Mode().IsRegular():
			// A named pipe would hang the build's read of it; a device would never end.
			l.problem(InputDockerfile, "%s is not a regular file; give the Dockerfile's path", dockerfile)
		}
	}
	context = filepath.Dir(dockerfile)
	if v := l.single(InputBuildContext); v != "" {
		context = resolve(dir, v)
		if check {
			info, err := l.env.Stat(context)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				l.problem(InputBuildContext, "directory %s does not exist; paths are relative to working-directory %s", context, dir)
			case err != nil:
				l.problem(InputBuildContext, "cannot use %s: %v", context, err)
			case !info.IsDir():
				l.problem(InputBuildContext, "%s is not a directory; give the directory to send to the build", context)
			}
		}
	}
	return dockerfile, context
}

// id reads an optional uid or gid input; nil when it is empty.
func (l *loader) id(name, what string) *int {
	v := l.single(name)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && n > maxID:
		l.problem(name, "%q is too large; use at most %d", v, maxID)
	case err != nil || n < 0:
		l.problem(name, "%q is not a %s id; use a whole number of 1 or more, or leave it empty for the owner of working-directory", v, what)
	case n == 0:
		// Root in the container, with a writable bind mount of the checkout, is one kernel bug
		// away from root on the host; the images are built for a non-root agent user anyway.
		l.problem(name, "0 is root, which the agent never runs as; give a non-root %s id, or leave it empty for the owner of working-directory", what)
	default:
		id := int(n)
		return &id
	}
	return nil
}

func (l *loader) groups() []string {
	var out []string
	for _, g := range l.list(InputGroups) {
		if n, err := strconv.ParseUint(g, 10, 64); err == nil {
			if n > maxID {
				l.problem(InputGroups, "group id %s is too large; use at most %d", g, maxID)
				continue
			}
			g = strconv.FormatUint(n, 10) // 007 and 7 are one group
		} else if !groupNameRe.MatchString(g) {
			l.problem(InputGroups, "%q is neither a group name nor a group id; give one group per line", g)
			continue
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

func (l *loader) network() string {
	v := l.single(InputNetwork)
	if v != "" && !networkRe.MatchString(v) {
		l.problem(InputNetwork, "%q is not a network name; use bridge, host, none, or a name of letters, digits, _, . and - that starts with a letter or digit", v)
		return ""
	}
	return v
}

func (l *loader) cpus() float64 {
	v := l.single(InputCPUs)
	if v == "" {
		return 0
	}
	if !decimalRe.MatchString(v) {
		l.problem(InputCPUs, "%q is not a number of CPUs; use a decimal number above 0, like 2 or 1.5", v)
		return 0
	}
	// Docker counts in billionths of a CPU, so more decimals than 9 cannot be honoured.
	if _, frac, _ := strings.Cut(v, "."); len(frac) > 9 {
		l.problem(InputCPUs, "%q has more than 9 decimals; round it", v)
		return 0
	}
	n, _ := strconv.ParseFloat(v, 64) // the pattern admits only what ParseFloat reads
	switch {
	case n == 0:
		l.problem(InputCPUs, "0 CPUs would stop the sandbox; use a number above 0, or leave it empty for no limit")
	case n*1e9 >= math.MaxInt64:
		l.problem(InputCPUs, "%q is too large; use the number of CPUs the sandbox may use, or leave it empty for no limit", v)
	default:
		return n
	}
	return 0
}

func (l *loader) memory() int64 {
	v := l.single(InputMemory)
	m := sizeRe.FindStringSubmatch(v)
	if m == nil {
		l.problem(InputMemory, "%q is not an amount of memory; use bytes or a number with k, m, g or t, like 512m or 4g", v)
		return 0
	}
	n, _ := strconv.ParseFloat(m[1], 64) // the pattern admits only what ParseFloat reads
	if unit := strings.ToLower(m[2]); unit != "" {
		n *= math.Pow(1024, float64(strings.Index("kmgt", unit)+1))
	}
	switch {
	case n >= math.MaxInt64:
		l.problem(InputMemory, "%q is too large; use at most 8388607t", v)
	case n < minMemory:
		l.problem(InputMemory, "%q is too small for a container; use at least 6m", v)
	default:
		return int64(n)
	}
	return 0
}

func (l *loader) selinuxLabel() string {
	switch v := l.single(InputSELinuxLabel); v {
	case "", "z", "Z":
		return v
	default:
		l.problem(InputSELinuxLabel, "%q is not a label; use z (shared), Z (private), or leave it empty for none", v)
		return ""
	}
}

// mounts reads host:sandbox[:ro] lines.
func (l *loader) mounts(dir string, dirOK bool) []Mount {
	var out []Mount
	for _, line := range l.list(InputMounts) {
		m, ok := l.mount(line, dir, dirOK)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(out, func(o Mount) bool { return o.Sandbox == m.Sandbox }); i >= 0 {
			l.problem(InputMounts, "%s is the sandbox path of two mounts; give each mount its own", m.Sandbox)
			continue
		}
		out = append(out, m)
	}
	return out
}

func (l *loader) mount(line, dir string, dirOK bool) (Mount, bool) {
	parts := strings.Split(line, ":")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var m Mount
	switch {
	case len(parts) == 3 && parts[2] == "ro":
		m.ReadOnly = true
	case len(parts) == 3 && parts[2] == "rw", len(parts) == 2:
	default:
		l.problem(InputMounts, "%q is not host:sandbox or host:sandbox:ro; give one mount per line", line)
		return m, false
	}
	host, sandbox := parts[0], parts[1]
	if host == "" || sandbox == "" {
		l.problem(InputMounts, "%q lacks a host or sandbox path; give host:sandbox", line)
		return m, false
	}

	var ok bool
	if m.Host, ok = l.hostPath(host, dir); !ok {
		return m, false
	}
	if sock := daemonSocket(m.Host, l.daemonSockets()); sock != "" {
		l.problem(InputMounts, "host path %s would give the agent the container daemon's socket %s, and with it the host; mount something narrower", m.Host, sock)
		return m, false
	}
	if m.Sandbox, ok = l.sandboxPath(sandbox); !ok {
		return m, false
	}
	if !filepath.IsAbs(host) && !strings.HasPrefix(host, "~") && !dirOK {
		return m, false // the working-directory problem says enough
	}
	if _, err := l.env.Stat(m.Host); err != nil {
		msg := readError(m.Host, err)
		if errors.Is(err, fs.ErrNotExist) {
			msg = "host path " + m.Host + " does not exist"
		}
		l.problem(InputMounts, "%s; host paths are relative to working-directory %s, absolute, or under ~/", msg, dir)
		return m, false
	}
	return m, true
}

// hostPath makes a mount's host path absolute: ~ is the home directory, relative paths start at
// the working directory.
func (l *loader) hostPath(p, dir string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "~"); ok {
		switch {
		case rest != "" && rest[0] != '/':
			l.problem(InputMounts, "%q names another user's home; use ~/ for your own, or an absolute path", p)
			return "", false
		case l.env.Home == "":
			l.problem(InputMounts, "%q starts with ~ but the home directory is not known; give an absolute path", p)
			return "", false
		}
		return filepath.Join(l.env.Home, rest), true
	}
	return resolve(dir, p), true
}

// sandboxPath checks a mount's path in the sandbox: absolute, or under ~, the agent's home, which
// the caller expands because only it knows the image's home directory.
func (l *loader) sandboxPath(p string) (string, bool) {
	rest, home := strings.CutPrefix(p, "~")
	switch {
	case home && rest != "" && rest[0] != '/', !home && !strings.HasPrefix(p, "/"):
		l.problem(InputMounts, "sandbox path %q is neither absolute nor under ~/; give a path like /data or ~/.cache", p)
	case slices.Contains(strings.Split(p, "/"), ".."):
		l.problem(InputMounts, "sandbox path %q contains ..; give it without", p)
	case path.Clean(p) == "/":
		l.problem(InputMounts, "sandbox path / would hide the whole sandbox; give a directory below it")
	default:
		return path.Clean(p), true
	}
	return "", false
}

// systemSockets are where container daemons listen on Linux.
var systemSockets = []string{
	"/var/run/docker.sock",
	"/run/docker.sock",
	"/run/containerd/containerd.sock",
	"/run/podman/podman.sock",
}

// daemonSockets returns the daemon sockets a mount must not expose: the system ones, and Docker
// Desktop's in the home directory when it is there (refusing every mount of a home directory
// for a socket that is not there would only get in the way).
func (l *loader) daemonSockets() []string {
	if l.env.Home == "" {
		return systemSockets
	}
	desktop := filepath.Join(l.env.Home, ".docker", "run", "docker.sock")
	if _, err := l.env.Stat(desktop); err != nil {
		return systemSockets
	}
	return append(slices.Clip(systemSockets), desktop)
}

// daemonSocket returns the container daemon socket that mounting the host path p would expose,
// or "" when it exposes none. Whoever reaches such a socket controls the host, so neither a
// socket nor a directory above one may be mounted. Symbolic links are not followed: the paths
// are checked as written.
func daemonSocket(p string, sockets []string) string {
	switch filepath.Base(p) {
	case "docker.sock", "containerd.sock", "podman.sock":
		return p
	}
	// /var/run is a link to /run on current systems, so /var/run/containerd counts as well.
	alias := p
	if rest, ok := strings.CutPrefix(p, "/var/run"); ok && (rest == "" || rest[0] == '/') {
		alias = "/run" + rest
	}
	for _, s := range sockets {
		for _, q := range []string{p, alias} {
			if q == "/" || strings.HasPrefix(s, q+"/") {
				return s
			}
		}
	}
	// Rootless daemons listen in the user's runtime directory, /run/user/<uid>.
	if alias == "/run/user" || path.Dir(alias) == "/run/user" {
		return "/run/user/<uid>/docker.sock"
	}
	return ""
}

// devices reads host[:sandbox][:permissions] lines, as docker run --device takes them.
func (l *loader) devices() []Device {
	var out []Device
	for _, line := range l.list(InputDevices) {
		parts := strings.Split(line, ":")
		d := Device{Host: parts[0], Permissions: "rwm"}
		switch {
		case len(parts) == 2 && !strings.HasPrefix(parts[1], "/"):
			d.Permissions = parts[1]
		case len(parts) == 2:
			d.Sandbox = parts[1]
		case len(parts) == 3:
			d.Sandbox, d.Permissions = parts[1], parts[2]
		case len(parts) > 3:
			l.problem(InputDevices, "%q is not /dev/name[:sandbox-path][:permissions]; give one device per line", line)
			continue
		}
		if d.Sandbox == "" {
			d.Sandbox = d.Host
		}
		switch {
		case !strings.HasPrefix(d.Host, "/dev/") || path.Clean(d.Host) != d.Host:
			l.problem(InputDevices, "%q is not a device; give a path under /dev/, like /dev/fuse", d.Host)
		case !strings.HasPrefix(d.Sandbox, "/") || slices.Contains(strings.Split(d.Sandbox, "/"), ".."):
			l.problem(InputDevices, "sandbox path %q of %s is not absolute; give a path like /dev/fuse", d.Sandbox, d.Host)
		case !devPermsRe.MatchString(d.Permissions) || hasRepeats(d.Permissions):
			l.problem(InputDevices, "permissions %q of %s are not letters of rwm; give, for example, rw", d.Permissions, d.Host)
		default:
			d.Sandbox = path.Clean(d.Sandbox)
			out = append(out, d)
		}
	}
	return out
}

func hasRepeats(s string) bool {
	for i := range len(s) {
		if strings.IndexByte(s[i+1:], s[i]) >= 0 {
			return true
		}
	}
	return false
}
