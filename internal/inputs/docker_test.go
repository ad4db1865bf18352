package inputs

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestLoad_dockerValueForms(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"Dockerfile":              "FROM scratch\n",
		"build/Containerfile":     "FROM scratch\n",
		"cache/.keep":             "",
		"/home/me/.gitconfig":     "",
		"/home/me/.docker/config": "",
	}
	tests := []struct {
		name  string
		raw   Raw
		check func(t *testing.T, d DockerConfig)
	}{
		{
			name: "memory_units",
			raw:  with(InputMemory, "1.5G"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Memory, int64(3<<29); got != want {
					t.Errorf("Memory = %d, want %d", got, want)
				}
			},
		},
		{
			name: "memory_in_bytes",
			raw:  with(InputMemory, "6291456"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Memory, int64(6<<20); got != want {
					t.Errorf("Memory = %d, want %d", got, want)
				}
			},
		},
		{
			name: "memory_largest",
			raw:  with(InputMemory, "8388607TiB"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Memory, int64(8388607)<<40; got != want {
					t.Errorf("Memory = %d, want %d", got, want)
				}
			},
		},
		{
			name: "cpus_fraction_without_leading_zero",
			raw:  with(InputCPUs, ".25"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.CPUs, 0.25; got != want {
					t.Errorf("CPUs = %v, want %v", got, want)
				}
			},
		},
		{
			name: "cpus_smallest",
			raw:  with(InputCPUs, "0.000000001"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.CPUs, 1e-9; got != want {
					t.Errorf("CPUs = %v, want %v", got, want)
				}
			},
		},
		{
			name: "default_dockerfile_may_be_missing_with_auto",
			raw:  with(InputBuildImage, "auto"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Dockerfile, "/repo/.sandcastle/Dockerfile"; got != want {
					t.Errorf("Dockerfile = %q, want %q", got, want)
				}
			},
		},
		{
			name: "build_context_defaults_to_the_dockerfiles_directory",
			raw:  with(InputDockerfile, "build/Containerfile"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.BuildContext, "/repo/build"; got != want {
					t.Errorf("BuildContext = %q, want %q", got, want)
				}
			},
		},
		{
			name: "build_context_need_not_hold_the_dockerfile",
			raw:  with(InputDockerfile, "build/Containerfile", InputBuildContext, "."),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.BuildContext, "/repo"; got != want {
					t.Errorf("BuildContext = %q, want %q", got, want)
				}
			},
		},
		{
			name: "build_args_yaml",
			raw:  with(InputBuildArgs, "NODE_VERSION: 22\nFLAGS: [a, b]\n"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.BuildArgs, map[string]string{"NODE_VERSION": "22", "FLAGS": `["a","b"]`}; !reflect.DeepEqual(got, want) {
					t.Errorf("BuildArgs = %q, want %q", got, want)
				}
			},
		},
		{
			name: "build_never_with_pull",
			raw:  with(InputBuildImage, "never", InputPull, "true", InputImage, "ghcr.io/acme/agent@sha256:"+strings.Repeat("ab", 32)),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Build, BuildNever; got != want {
					t.Errorf("Build = %q, want %q", got, want)
				}
				if !d.Pull {
					t.Error("Pull = false, want true")
				}
			},
		},
		{
			name: "image_from_a_registry_with_a_port",
			raw:  with(InputImage, "localhost:5000/team/agent-image:v1.2_3"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Image, "localhost:5000/team/agent-image:v1.2_3"; got != want {
					t.Errorf("Image = %q, want %q", got, want)
				}
			},
		},
		{
			name: "ids_at_the_limit",
			raw:  with(InputContainerUID, "2147483647", InputContainerGID, "1"),
			check: func(t *testing.T, d DockerConfig) {
				if d.UID == nil || *d.UID != 2147483647 || d.GID == nil || *d.GID != 1 {
					t.Errorf("UID, GID = %v, %v, want 2147483647, 1", d.UID, d.GID)
				}
			},
		},
		{
			name: "groups_by_number_are_normalised",
			raw:  with(InputGroups, "007\n7\nvideo\n0\n"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Groups, []string{"7", "video", "0"}; !slices.Equal(got, want) {
					t.Errorf("Groups = %q, want %q", got, want)
				}
			},
		},
		{
			name: "network_modes",
			raw:  with(InputNetwork, "none"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.Network, "none"; got != want {
					t.Errorf("Network = %q, want %q", got, want)
				}
			},
		},
		{
			name: "mounts",
			raw: with(InputMounts, strings.Join([]string{
				"cache:~/.cache/:rw",
				" ~ : /host-home : ro ",
				"~/.gitconfig:/etc/gitconfig:ro",
				"/home/me/.docker/config:/cfg/docker",
			}, "\n")),
			check: func(t *testing.T, d DockerConfig) {
				want := []Mount{
					{Host: "/repo/cache", Sandbox: "~/.cache"},
					{Host: "/home/me", Sandbox: "/host-home", ReadOnly: true},
					{Host: "/home/me/.gitconfig", Sandbox: "/etc/gitconfig", ReadOnly: true},
					{Host: "/home/me/.docker/config", Sandbox: "/cfg/docker"},
				}
				if got := d.Mounts; !reflect.DeepEqual(got, want) {
					t.Errorf("Mounts =\n%+v\nwant\n%+v", got, want)
				}
			},
		},
		{
			name: "devices",
			raw:  with(InputDevices, "/dev/fuse:r\n/dev/sda:/dev/xvda/\n/dev/kvm:/dev/kvm:mrw\n"),
			check: func(t *testing.T, d DockerConfig) {
				want := []Device{
					{Host: "/dev/fuse", Sandbox: "/dev/fuse", Permissions: "r"},
					{Host: "/dev/sda", Sandbox: "/dev/xvda", Permissions: "rwm"},
					{Host: "/dev/kvm", Sandbox: "/dev/kvm", Permissions: "mrw"},
				}
				if got := d.Devices; !reflect.DeepEqual(got, want) {
					t.Errorf("Devices =\n%+v\nwant\n%+v", got, want)
				}
			},
		},
		{
			name: "selinux_private",
			raw:  with(InputSELinuxLabel, "Z"),
			check: func(t *testing.T, d DockerConfig) {
				if got, want := d.SELinuxLabel, "Z"; got != want {
					t.Errorf("SELinuxLabel = %q, want %q", got, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(files)
			env.Home = "/home/me"
			c, err := Load(tt.raw, env)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tt.check(t, c.Docker)
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
	if _, err := Load(raw, env); err != nil {
		t.Errorf("Load with no socket in the home directory: %v", err)
	}

	env = testEnv(map[string]string{"/home/me/.docker/run/docker.sock": ""})
	env.Home = "/home/me"
	_, err := Load(raw, env)
	problems := problemsOf(t, err)
	if len(problems) != 1 || problems[0].Input != InputMounts || !strings.Contains(problems[0].Message, "socket /home/me/.docker/run/docker.sock") {
		t.Errorf("Load with Docker Desktop's socket = %v, want one mounts problem naming it", err)
	}
}

// TestDockerInputsFollowSandbox keeps dockerInputs equal to the definitions listed after
// sandbox, which the sandbox description promises.
func TestDockerInputsFollowSandbox(t *testing.T) {
	t.Parallel()
	i := slices.IndexFunc(Definitions, func(d Definition) bool { return d.Name == InputSandbox })
	var got []string
	for _, d := range Definitions[i+1 : i+1+len(dockerInputs)] {
		got = append(got, d.Name)
	}
	if !slices.Equal(got, dockerInputs) {
		t.Errorf("definitions after sandbox = %q, want dockerInputs %q", got, dockerInputs)
	}
	if got, want := dockerInputs[len(dockerInputs)-1], InputSandboxSync; got != want {
		t.Errorf("last Docker input = %q, want %q, which the sandbox description names", got, want)
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
	for _, name := range dockerInputs {
		v, ok := values[name]
		if !ok {
			t.Fatalf("no test value for Docker input %q", name)
		}
		raw[name] = v
	}
	_, err := Load(raw, testEnv(nil))
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
		if want := "only applies with sandbox docker, but sandbox is none; remove " + p.Input; !strings.HasPrefix(p.Message, want) {
			t.Errorf("problem = %q, want it to start with %q", p.Message, want)
		}
	}
	if !slices.Equal(got, dockerInputs) {
		t.Errorf("problems name %q, want every Docker input %q", got, dockerInputs)
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
	c, err := Load(FromEnv(func(k string) string { return vars[k] }), testEnv(nil))
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
	_, err := Load(with(InputSandbox, "dokcer", InputMemory, "lots"), testEnv(nil))
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
	}
	if want := []string{InputSandbox, InputMemory}; !slices.Equal(got, want) {
		t.Errorf("problems name %q, want %q\n%v", got, want, err)
	}
}
