package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/sandboxtest"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

// testImage is the base image the machine's provisioning creates (see DESIGN.md): nothing is
// pulled in tests.
const testImage = actkit.BaseImage

// liveness bounds how long a test waits for something that must happen, so that a broken
// implementation fails instead of hanging. It is never what a test asserts.
const liveness = 60 * time.Second

// requireDocker returns an engine with the test image, through testkit's rule: skip on a
// machine without Docker, fail under CI=true.
func requireDocker(t testing.TB) *Engine {
	t.Helper()
	actkit.RequireDocker(t)
	actkit.RequireImage(t, testImage)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	e, err := New(ctx)
	if err != nil {
		t.Fatalf("Docker answers a ping but New fails: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// testUser is the container user: ours, unless we are root.
func testUser() (uid, gid int) {
	uid, gid = os.Getuid(), os.Getgid()
	if uid == 0 {
		return 1000, 1000
	}
	return uid, gid
}

// hostDir returns a temporary directory that the container user can write.
func hostDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testOptions are the options of a test sandbox with dir bound at Workspace.
func testOptions(t *testing.T, dir string) Options {
	uid, gid := testUser()
	return Options{
		Image:  testImage,
		User:   fmt.Sprintf("%d:%d", uid, gid),
		Run:    "test-" + randomHex(4),
		Repo:   dir,
		Mounts: []Mount{{Source: dir, Target: Workspace}},
		Env:    map[string]string{"SANDBOX_VAR": "from options"},
		Labels: map[string]string{"sandcastle.test": t.Name()},
	}
}

// start starts a sandbox with short waits and closes it when the test ends.
func start(t *testing.T, e *Engine, o Options) *Sandbox {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	defer cancel()
	s, err := e.Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	// Short waits keep the tests fast; no assertion depends on them.
	s.KillGrace = 100 * time.Millisecond
	s.DrainWindow = liveness
	return s
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	t.Cleanup(cancel)
	return ctx
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// mustExec runs e and fails the test on an error.
func mustExec(t *testing.T, s *Sandbox, e sandbox.Exec) sandbox.Result {
	t.Helper()
	res, err := s.Exec(bounded(t), e)
	if err != nil {
		t.Fatalf("Exec %q: %v", e.Argv, err)
	}
	return res
}

// TestContract runs the contract every sandbox keeps, each sandbox a container with the test
// image and a directory of ours bound at Workspace.
func TestContract(t *testing.T) {
	e := requireDocker(t)
	sandboxtest.Run(t, func(t *testing.T, o sandboxtest.Options) sandbox.Sandbox {
		opts := testOptions(t, hostDir(t))
		opts.Env = o.Env
		s := start(t, e, opts)
		s.DrainWindow = o.DrainWindow
		return s
	})
}

// TestSandbox checks what a container adds to the contract, in one sandbox.
func TestSandbox(t *testing.T) {
	e := requireDocker(t)
	dir := hostDir(t)
	s := start(t, e, testOptions(t, dir))

	t.Run("environment", func(t *testing.T) {
		res := mustExec(t, s, sandbox.Exec{Argv: []string{"env"}, Env: map[string]string{"EXEC_VAR": "x y", "SANDBOX_VAR": "overridden"}})
		got := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		slices.Sort(got)
		// HOSTNAME is Docker's; PWD is set by the shells of the exec wrapper.
		want := []string{
			"EXEC_VAR=x y",
			"HOME=" + Home,
			"HOSTNAME=" + s.id[:12],
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"PWD=" + Workspace,
			"SANDBOX_VAR=overridden",
		}
		if !slices.Equal(got, want) {
			t.Errorf("environment =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := s.RepoDir(), Workspace; got != want {
			t.Errorf("RepoDir() = %q, want %q", got, want)
		}
	})

	t.Run("start_error_exit_codes", func(t *testing.T) {
		tests := []struct {
			name     string
			e        sandbox.Exec
			wantCode int
		}{
			{name: "missing_directory", e: sandbox.Exec{Argv: []string{"true"}, Dir: "/no/such/dir"}, wantCode: 126},
			{name: "program_not_in_path", e: sandbox.Exec{Argv: []string{"no-such-program"}}, wantCode: 127},
			{name: "not_executable", e: sandbox.Exec{Argv: []string{"/etc/passwd"}}, wantCode: 127},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, err := s.Exec(bounded(t), tt.e)
				if err == nil || res.ExitCode != tt.wantCode {
					t.Errorf("Exec = exit %d, error %v; want exit %d and an error", res.ExitCode, err, tt.wantCode)
				}
			})
		}
	})

	t.Run("hardened", func(t *testing.T) {
		uid, gid := testUser()
		res := mustExec(t, s, sandbox.Exec{Argv: sh(`id -u; id -g
			grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status
			for f in /var/run/docker.sock /run/docker.sock; do [ -e "$f" ] && echo "$f exists"; done
			touch "$HOME/.written" && echo home writable
			cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null
			cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null
			cat /proc/1/cmdline | tr '\0' ' '; echo`)})
		want := fmt.Sprintf("%d\n%d\n"+
			"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"+
			"NoNewPrivs:\t1\nhome writable\n%d\n%d\n/sbin/docker-init -- sleep infinity \n", uid, gid, defaultPidsLimit, defaultMemory)
		if res.Stdout != want {
			t.Errorf("inside the container:\n%s\nwant\n%s", res.Stdout, want)
		}
	})

	t.Run("files_owned_by_user", func(t *testing.T) {
		mustExec(t, s, sandbox.Exec{Argv: []string{"touch", Workspace + "/owned"}})
		fi, err := os.Stat(filepath.Join(dir, "owned"))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		uid, gid := testUser()
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("file owned by %d:%d, want %d:%d", st.Uid, st.Gid, uid, gid)
		}
	})

	t.Run("self", func(t *testing.T) {
		self, ok, err := e.Self(t.Context(), Clues{Hostname: s.id[:12]})
		if err != nil || !ok {
			t.Fatalf("Self(%s) = %v, %v", s.id[:12], ok, err)
		}
		if self.ID != s.id {
			t.Errorf("ID = %s, want %s", self.ID, s.id)
		}
		if got, ok := self.HostPath(Workspace + "/a/b"); !ok || got != filepath.Join(dir, "a/b") {
			t.Errorf("HostPath = %q, %v; want %q, true", got, ok, filepath.Join(dir, "a/b"))
		}
		for _, h := range []string{"not-a-container", "0123456789ab", s.Name()} {
			if _, ok, err := e.Self(t.Context(), Clues{Hostname: h}); ok || err != nil {
				t.Errorf("Self(%q) = %v, %v; want false, nil", h, ok, err)
			}
		}
	})
}

func TestClose(t *testing.T) {
	e := requireDocker(t)
	s, err := e.Start(bounded(t), testOptions(t, hostDir(t)))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	s.KillGrace = 100 * time.Millisecond
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Exec(bounded(t), sandbox.Exec{Argv: sh(`echo started; trap "" TERM; while :; do sleep 1; done`), OnLine: func([]byte) { close(started) }})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // cleanup gets an ended context, and must still remove the container
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("running Exec returned %v, want ErrClosed", err)
	}
	if _, err := e.api.ContainerInspect(t.Context(), s.id, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("container after Close: inspect error %v, want not found", err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Exec(t.Context(), sandbox.Exec{Argv: []string{"true"}}); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Exec after Close: %v, want ErrClosed", err)
	}
}

func TestStartRemovesContainerWhenStartFails(t *testing.T) {
	e := requireDocker(t)
	o := testOptions(t, hostDir(t))
	o.Name = "sandcastle-test-" + randomHex(4)
	o.Devices = []string{"/dev/no-such-device"}
	if _, err := e.Start(bounded(t), o); err == nil {
		t.Fatal("Start with a missing device succeeded")
	}
	if _, err := e.api.ContainerInspect(t.Context(), o.Name, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("container after failed Start: inspect error %v, want not found", err)
	}
}

func TestSweep(t *testing.T) {
	e := requireDocker(t)
	dir := hostDir(t)
	dead := testOptions(t, dir)
	dead.Owner = "gone"
	leftover := start(t, e, dead)
	alive := testOptions(t, dir)
	alive.Owner = "running"
	running := start(t, e, alive)                        // a run still going on the same repository
	unrelated := start(t, e, testOptions(t, hostDir(t))) // another repository's
	isDead := func(owner string) bool { return owner == "gone" }

	n, err := e.Sweep(t.Context(), dir, isDead)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1, nil", n, err)
	}
	for _, c := range []struct {
		s    *Sandbox
		gone bool
	}{{leftover, true}, {running, false}, {unrelated, false}} {
		_, err := e.api.ContainerInspect(t.Context(), c.s.id, client.ContainerInspectOptions{})
		if gone := cerrdefs.IsNotFound(err); gone != c.gone {
			t.Errorf("container %s: removed = %v (%v), want %v", c.s.Name(), gone, err, c.gone)
		}
	}
	if n, err := e.Sweep(t.Context(), dir, isDead); err != nil || n != 0 {
		t.Errorf("second Sweep = %d, %v; want 0, nil", n, err)
	}
}

func TestOptionsCheck(t *testing.T) {
	sockets := []string{"/var/run/docker.sock", "/run/docker.sock", "/home/u/.docker/run/docker.sock"}
	valid := Options{Image: "i", User: "1000:1000", WorkDir: Workspace}
	tests := []struct {
		name   string
		change func(*Options)
		want   string // in the error; "" = valid
	}{
		{name: "valid", change: func(*Options) {}},
		{name: "root_allowed", change: func(o *Options) { o.User, o.AllowRoot = "0:0", true }},
		{name: "no_image", change: func(o *Options) { o.Image = "" }, want: "no image"},
		{name: "root_refused", change: func(o *Options) { o.User = "0:0" }, want: "is root"},
		{name: "user_name_refused", change: func(o *Options) { o.User = "root" }, want: "numeric uid:gid"},
		{name: "user_without_group_refused", change: func(o *Options) { o.User = "1000" }, want: "numeric uid:gid"},
		{name: "docker_socket_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/run/docker.sock", Target: "/s"}} }, want: "Docker socket"},
		{name: "renamed_socket_dir_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/run", Target: "/r"}} }, want: "Docker socket"},
		{name: "root_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/", Target: "/host"}} }, want: "Docker socket"},
		{name: "rootless_socket_parent", change: func(o *Options) { o.Mounts = []Mount{{Source: "/home/u/.docker", Target: "/d"}} }, want: "Docker socket"},
		{name: "socket_by_name", change: func(o *Options) { o.Mounts = []Mount{{Source: "/srv/docker.sock", Target: "/s"}} }, want: "Docker socket"},
		{name: "unrelated_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/runner", Target: "/r"}} }},
		{name: "relative_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "src", Target: "/t"}} }, want: "absolute"},
		{name: "selinux_label", change: func(o *Options) { o.SELinuxLabel = "Z" }},
		{name: "bad_selinux_label", change: func(o *Options) { o.SELinuxLabel = "y" }, want: "SELinux"},
		{name: "device", change: func(o *Options) { o.Devices = []string{"/dev/fuse:/dev/fuse:rw"} }},
		{name: "bad_device", change: func(o *Options) { o.Devices = []string{"/dev/fuse:/dev/fuse:rwx"} }, want: "device"},
		{name: "relative_workdir", change: func(o *Options) { o.WorkDir = "w" }, want: "not absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid
			tt.change(&o)
			_, _, err := o.check(sockets)
			if tt.want == "" && err != nil {
				t.Errorf("check: %v, want nil", err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	o := Options{
		Image: "img", User: "1000:100", Run: "r1", Repo: "/repo", WorkDir: Workspace,
		Env:    map[string]string{"B": "2", "A": "1", "HOME": "/root"},
		Labels: map[string]string{"extra": "x", labelRun: "spoofed"},
		Mounts: []Mount{{Source: "/src", Target: "/dst", ReadOnly: true}},
	}
	cfg, host := o.config(1000, 100)
	if got, want := cfg.Env, []string{"A=1", "B=2", "HOME=" + Home}; !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got, want := cfg.Entrypoint, []string{"sleep", "infinity"}; !slices.Equal(got, want) {
		t.Errorf("Entrypoint = %q, want %q", got, want)
	}
	if got, want := cfg.Labels, map[string]string{"extra": "x", labelRun: "r1", labelRepo: repoKey("/repo")}; !maps.Equal(got, want) {
		t.Errorf("Labels = %v, want %v", got, want)
	}
	if cfg.User != "1000:100" || cfg.WorkingDir != Workspace {
		t.Errorf("User, WorkingDir = %q, %q", cfg.User, cfg.WorkingDir)
	}
	if !slices.Equal(host.CapDrop, []string{"ALL"}) || !slices.Equal(host.SecurityOpt, []string{"no-new-privileges"}) ||
		host.Init == nil || !*host.Init || host.Privileged || len(host.CapAdd) > 0 {
		t.Errorf("hardening: CapDrop %q, SecurityOpt %q, Init %v, Privileged %v, CapAdd %q", host.CapDrop, host.SecurityOpt, host.Init, host.Privileged, host.CapAdd)
	}
	if host.Memory != defaultMemory || host.PidsLimit == nil || *host.PidsLimit != defaultPidsLimit || host.NanoCPUs != 0 {
		t.Errorf("Memory, PidsLimit, NanoCPUs = %d, %v, %d; want defaults", host.Memory, host.PidsLimit, host.NanoCPUs)
	}
	if got, want := host.Tmpfs[Home], "uid=1000,gid=100,mode=0755,exec"; got != want {
		t.Errorf("HOME tmpfs = %q, want %q", got, want)
	}
	if len(host.Mounts) != 1 || host.Mounts[0].Source != "/src" || !host.Mounts[0].ReadOnly || len(host.Binds) != 0 {
		t.Errorf("Mounts, Binds = %+v, %q", host.Mounts, host.Binds)
	}

	o.SELinuxLabel, o.ImageHome, o.Memory, o.PidsLimit, o.CPUs = "z", true, -1, -1, 1.5
	_, host = o.config(1000, 100)
	if got, want := host.Binds, []string{"/src:/dst:ro,z"}; !slices.Equal(got, want) || len(host.Mounts) != 0 {
		t.Errorf("Binds = %q, want %q (and no Mounts: %+v)", got, want, host.Mounts)
	}
	if _, ok := host.Tmpfs[Home]; ok {
		t.Errorf("HOME tmpfs mounted with ImageHome")
	}
	if host.Memory != 0 || *host.PidsLimit != -1 || host.NanoCPUs != 1_500_000_000 {
		t.Errorf("Memory, PidsLimit, NanoCPUs = %d, %d, %d; want unlimited, unlimited, 1.5e9", host.Memory, *host.PidsLimit, host.NanoCPUs)
	}
}

func TestNewFailsClearlyWithoutDaemon(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	_, err := New(t.Context())
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Docker daemon at unix://") {
		t.Errorf("New: %v, want an error saying the daemon cannot be reached", err)
	}
}

func TestSelfHostPath(t *testing.T) {
	self := Self{Mounts: map[string]string{
		"/github/workspace":      "/srv/runner/checkout/repo",
		"/github/workspace/deep": "/elsewhere",
	}}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{in: "/github/workspace", want: "/srv/runner/checkout/repo", ok: true},
		{in: "/github/workspace/a/b", want: "/srv/runner/checkout/repo/a/b", ok: true},
		{in: "/github/workspace/deep/x", want: "/elsewhere/x", ok: true},
		{in: "/github/workspace2", ok: false},
		{in: "/tmp", ok: false},
	}
	for _, tt := range tests {
		got, ok := self.HostPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("HostPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
