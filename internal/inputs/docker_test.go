package inputs

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/release"
)

func TestLoad_dockerValueForms(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".sandcastle/Dockerfile":  "FROM scratch\n",
		"Dockerfile":              "FROM scratch\n",
		"build/Containerfile":     "FROM scratch\n",
		"cache/.keep":             "",
		"/home/me/.gitconfig":     "",
		"/home/me/.docker/config": "",
	}
	tests := []struct {
		name string
		raw  Raw
		want func(d *DockerConfig) // the defaults' DockerConfig, made into the wanted one
	}{
		{"memory_units", with(InputMemory, "1.5G"), func(d *DockerConfig) { d.Memory = 3 << 29 }},
		{"memory_in_bytes", with(InputMemory, "6291456"), func(d *DockerConfig) { d.Memory = 6 << 20 }},
		{"memory_largest", with(InputMemory, "8388607TiB"), func(d *DockerConfig) { d.Memory = int64(8388607) << 40 }},
		{"cpus_fraction_without_leading_zero", with(InputCPUs, ".25"), func(d *DockerConfig) { d.CPUs = 0.25 }},
		{"cpus_smallest", with(InputCPUs, "0.000000001"), func(d *DockerConfig) { d.CPUs = 1e-9 }},
		{"build_context_defaults_to_the_dockerfiles_directory", with(InputDockerfile, "build/Containerfile"), func(d *DockerConfig) {
			d.Dockerfile, d.BuildContext = "/repo/build/Containerfile", "/repo/build"
		}},
		{"build_context_need_not_hold_the_dockerfile", with(InputDockerfile, "build/Containerfile", InputBuildContext, "."), func(d *DockerConfig) {
			d.Dockerfile, d.BuildContext = "/repo/build/Containerfile", "/repo"
		}},
		{"build_args_yaml", with(InputBuildArgs, "NODE_VERSION: 22\nFLAGS: [a, b]\n"), func(d *DockerConfig) {
			d.BuildArgs = map[string]string{"NODE_VERSION": "22", "FLAGS": `["a","b"]`}
		}},
		{"build_never_with_pull", with(InputBuildImage, "never", InputPull, "true", InputImage, "ghcr.io/acme/agent@sha256:"+strings.Repeat("ab", 32)), func(d *DockerConfig) {
			d.Build, d.Pull, d.Image = BuildNever, true, "ghcr.io/acme/agent@sha256:"+strings.Repeat("ab", 32)
		}},
		{"image_from_a_registry_with_a_port", with(InputImage, "localhost:5000/team/agent-image:v1.2_3"), func(d *DockerConfig) {
			d.Image = "localhost:5000/team/agent-image:v1.2_3"
		}},
		{"ids_at_the_limit", with(InputContainerUID, "2147483647", InputContainerGID, "1"), func(d *DockerConfig) { d.UID, d.GID = ptr(2147483647), ptr(1) }},
		{"groups_by_number_are_normalised", with(InputGroups, "007\n7\nvideo\n0\n"), func(d *DockerConfig) { d.Groups = []string{"7", "video", "0"} }},
		{"network_modes", with(InputNetwork, "none"), func(d *DockerConfig) { d.Network = "none" }},
		{"mounts", with(InputMounts, strings.Join([]string{
			"cache:~/.cache/:rw",
			" ~ : /host-home : ro ",
			"~/.gitconfig:/etc/gitconfig:ro",
			"/home/me/.docker/config:/cfg/docker",
		}, "\n")), func(d *DockerConfig) {
			d.Mounts = []Mount{
				{Host: "/repo/cache", Sandbox: "~/.cache"},
				{Host: "/home/me", Sandbox: "/host-home", ReadOnly: true},
				{Host: "/home/me/.gitconfig", Sandbox: "/etc/gitconfig", ReadOnly: true},
				{Host: "/home/me/.docker/config", Sandbox: "/cfg/docker"},
			}
		}},
		{"devices", with(InputDevices, "/dev/fuse:r\n/dev/sda:/dev/xvda/\n/dev/kvm:/dev/kvm:mrw\n"), func(d *DockerConfig) {
			d.Devices = []Device{
				{Host: "/dev/fuse", Sandbox: "/dev/fuse", Permissions: "r"},
				{Host: "/dev/sda", Sandbox: "/dev/xvda", Permissions: "rwm"},
				{Host: "/dev/kvm", Sandbox: "/dev/kvm", Permissions: "mrw"},
			}
		}},
		{"selinux_private", with(InputSELinuxLabel, "Z"), func(d *DockerConfig) { d.SELinuxLabel = "Z" }},
	}
	env := testEnv(files)
	env.Home = "/home/me"
	defaults := loadOK(t, with(), env)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := clone(t, defaults).Docker
			tt.want(&want)
			if got := loadOK(t, tt.raw, env).Docker; !reflect.DeepEqual(got, want) {
				t.Errorf("DockerConfig =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestLoad_publishedSandboxImage: with neither an image input nor a Dockerfile, the sandbox runs
// the agent's published image, pulled when missing and never built; an image or a Dockerfile
// (the default one, or one given) keeps the image of one's own.
func TestLoad_publishedSandboxImage(t *testing.T) {
	t.Parallel()
	bare := testEnv(map[string]string{"docker/Dockerfile": "FROM scratch\n"})
	scaffolded := testEnv(map[string]string{".sandcastle/Dockerfile": "FROM scratch\n"})
	published := func(agent string) string { return release.SandboxImage(agent) }
	tests := []struct {
		name     string
		raw      Raw
		env      Env
		image    string
		prebuilt bool
	}{
		{"nothing_to_build", with(), bare, published("claude-code"), true},
		{"per_agent", with(InputAgent, "codex"), bare, published("codex"), true},
		{"build_never", with(InputBuildImage, "never"), bare, published("claude-code"), true},
		{"pull_is_implied", with(InputPull, "true"), bare, published("claude-code"), true},
		{"scaffolded_dockerfile", with(), scaffolded, "sandcastle:repo", false},
		{"dockerfile_given", with(InputDockerfile, "docker/Dockerfile"), bare, "sandcastle:repo", false},
		{"image_given", with(InputImage, "ghcr.io/acme/agent:1", InputBuildImage, "never"), bare, "ghcr.io/acme/agent:1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := loadOK(t, tt.raw, tt.env).Docker
			if d.Image != tt.image || d.Prebuilt != tt.prebuilt {
				t.Errorf("image %s (prebuilt %v), want %s (prebuilt %v)", d.Image, d.Prebuilt, tt.image, tt.prebuilt)
			}
			if d.Prebuilt && (d.Build != BuildNever || !d.Pull) {
				t.Errorf("the published image with build %s, pull %v; want never built, pulled when missing", d.Build, d.Pull)
			}
		})
	}
}

func TestDefaultImage(t *testing.T) {
	t.Parallel()
	tests := []struct{ dir, want string }{
		{"/repo", "sandcastle:repo"},
		{"/src/My Repo", "sandcastle:my-repo"},
		{"/src/web_app.v2", "sandcastle:web_app.v2"},
		{"/src/.dotfiles", "sandcastle:dotfiles"},
		{"/src/-x", "sandcastle:x"},
		{"/src/café", "sandcastle:caf-"},
		{"/", "sandcastle:local"},
		{"/src/" + strings.Repeat("a", 200), "sandcastle:" + strings.Repeat("a", 128)},
	}
	for _, tt := range tests {
		got := defaultImage(tt.dir)
		if got != tt.want {
			t.Errorf("defaultImage(%q) = %q, want %q", tt.dir, got, tt.want)
		}
		if !imageRe.MatchString(got) {
			t.Errorf("defaultImage(%q) = %q, which is not a valid image reference", tt.dir, got)
		}
	}
}

func TestDaemonSocket(t *testing.T) {
	t.Parallel()
	sockets := append(slices.Clip(systemSockets), "/home/me/.docker/run/docker.sock")
	tests := []struct{ path, want string }{
		{"/var/run/docker.sock", "/var/run/docker.sock"},
		{"/run/docker.sock", "/run/docker.sock"},
		{"/srv/custom/docker.sock", "/srv/custom/docker.sock"},
		{"/run/containerd/containerd.sock", "/run/containerd/containerd.sock"},
		{"/", "/var/run/docker.sock"},
		{"/var", "/var/run/docker.sock"},
		{"/var/run", "/var/run/docker.sock"},
		{"/run", "/run/docker.sock"},
		{"/var/run/containerd", "/run/containerd/containerd.sock"},
		{"/run/podman", "/run/podman/podman.sock"},
		{"/run/user/1000", "/run/user/<uid>/docker.sock"},
		{"/run/user", "/run/user/<uid>/docker.sock"},
		{"/home", "/home/me/.docker/run/docker.sock"},
		{"/home/me", "/home/me/.docker/run/docker.sock"},
		{"/home/me/.docker", "/home/me/.docker/run/docker.sock"},
		{"/home/me/.docker/config.json", ""},
		{"/home/me/src", ""},
		{"/run/secrets", ""},
		{"/var/lib/cache", ""},
		{"/variable", ""},
		{"/runner", ""},
		{"/run/user/1000/app", ""},
	}
	for _, tt := range tests {
		if got := daemonSocket(tt.path, sockets); got != tt.want {
			t.Errorf("daemonSocket(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestLoad_homeIsRefusedOnlyWithADesktopSocket(t *testing.T) {
	t.Parallel()
	raw := with(InputMounts, "~:/host-home:ro")
	env := testEnv(map[string]string{"/home/me/.profile": ""})
	env.Home = "/home/me"
	if _, err := load(raw, env); err != nil {
		t.Errorf("Load with no socket in the home directory: %v", err)
	}

	env = testEnv(map[string]string{"/home/me/.docker/run/docker.sock": ""})
	env.Home = "/home/me"
	_, err := load(raw, env)
	problems := problemsOf(t, err)
	if len(problems) != 1 || problems[0].Input != InputMounts || !strings.Contains(problems[0].Message, "socket /home/me/.docker/run/docker.sock") {
		t.Errorf("Load with Docker Desktop's socket = %v, want one mounts problem naming it", err)
	}
}

// TestDockerInputsFollowSandbox keeps dockerInputs equal to the definitions listed after
// sandbox (but the docker map itself, whose keys they are), which the sandbox description
// promises.
func TestDockerInputsFollowSandbox(t *testing.T) {
	t.Parallel()
	i := slices.IndexFunc(Definitions, func(d Definition) bool { return d.Name == InputSandbox })
	want := dockerInputs()
	var got []string
	for _, d := range Definitions[i+1 : i+2+len(want)] {
		if d.Name != InputDocker {
			got = append(got, d.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("definitions after sandbox = %q, want dockerInputs %q", got, want)
	}
}

func TestLoad_dockerInputsWithSandboxNone(t *testing.T) {
	t.Parallel()
	values := map[string]string{
		InputImage:        "ghcr.io/a/b:1",
		InputBuildImage:   "never",
		InputDockerfile:   "Containerfile",
		InputBuildContext: "ctx",
		InputBuildArgs:    "A=1",
		InputPull:         "true",
		InputContainerUID: "1000",
		InputContainerGID: "1000",
		InputNetwork:      "host",
		InputCPUs:         "2",
		InputMemory:       "8g",
		InputPidsLimit:    "100",
		InputMounts:       "a:/a",
		InputDevices:      "/dev/fuse",
		InputGroups:       "video",
		InputSELinuxLabel: "z",
		InputSandboxSync:  "copy",
	}
	raw := with(InputSandbox, "none")
	for _, name := range dockerInputs() {
		v, ok := values[name]
		if !ok {
			t.Fatalf("no test value for Docker input %q", name)
		}
		raw[name] = v
	}
	_, err := load(raw, testEnv(nil))
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
		if want := "only applies with sandbox docker, but sandbox is none; remove " + KeyName(p.Input); !strings.HasPrefix(p.Message, want) {
			t.Errorf("problem = %q, want it to start with %q", p.Message, want)
		}
	}
	if !slices.Equal(got, dockerInputs()) {
		t.Errorf("problems name %q, want every Docker input %q", got, dockerInputs())
	}
}

// TestLoad_dockerDefaultsWithSandboxNone: the runner sets every input left out to its default,
// so Docker inputs at their defaults must not count as given with sandbox none.
func TestLoad_dockerDefaultsWithSandboxNone(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	for _, d := range Definitions {
		vars[EnvName(d.Name)] = d.Default
	}
	vars["INPUT_PROMPT"] = "Fix the bug."
	vars["INPUT_SANDBOX"] = "none"
	vars["INPUT_MEMORY"] = " 4g\n" // as a YAML block scalar would leave it
	c, err := load(FromEnv(func(k string) string { return vars[k] }), testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := c.Sandbox, SandboxNone; got != want {
		t.Errorf("Sandbox = %q, want %q", got, want)
	}
}

// TestLoad_invalidSandboxStillChecksDocker: a typo in sandbox does not hide the other problems.
func TestLoad_invalidSandboxStillChecksDocker(t *testing.T) {
	t.Parallel()
	_, err := load(with(InputSandbox, "dokcer", InputMemory, "lots"), testEnv(nil))
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
	}
	if want := []string{InputSandbox, InputMemory}; !slices.Equal(got, want) {
		t.Errorf("problems name %q, want %q\n%v", got, want, err)
	}
}
