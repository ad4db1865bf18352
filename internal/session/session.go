package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// Carrier moves the sessions of one agent between a sandbox and the host.
type Carrier struct {
	Layout      *agent.Sessions
	Sandbox     sandbox.Sandbox
	SandboxHome string // HOME inside the sandbox
	HostHome    string // HOME on the host, where saved sessions go
	HostDir     string // the run's working directory on the host; the sandbox's is Sandbox.RepoDir()
	// Local means the agent runs on the host itself, with HostHome as its HOME: its sessions
	// are already where they belong, and nothing is carried.
	Local bool
}

// Find returns the path of session id's file under home, preferring the directory the agent
// keeps the sessions of dir in. The error names where it looked.
func Find(l *agent.Sessions, home, dir, id string) (string, error) {
	if err := agent.ValidSessionID(id); err != nil {
		return "", err
	}
	root := filepath.Join(home, filepath.FromSlash(l.Root))
	pattern := l.Pattern(id)
	if l.Dir != nil {
		p, err := match(filepath.Join(root, l.Dir(dir)), pattern, false)
		if p != "" || err != nil {
			return p, err
		}
	}
	p, err := match(root, pattern, true)
	if err == nil && p == "" {
		err = fmt.Errorf("session %s not found: no file %s under %s", id, pattern, root)
	}
	return p, err
}

// match returns the first regular file under dir whose name matches pattern, searching
// subdirectories when deep; "" when there is none or dir does not exist.
func match(dir, pattern string, deep bool) (string, error) {
	var found string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		case d.IsDir():
			if p != dir && !deep {
				return fs.SkipDir
			}
			return nil
		}
		if ok, _ := path.Match(pattern, d.Name()); ok && d.Type().IsRegular() {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("look for sessions in %s: %w", dir, err)
	}
	return found, nil
}

// Save copies session id out of the sandbox to the host, with its recorded working directory
// changed to the host's, and returns the host path.
func (c *Carrier) Save(ctx context.Context, id string) (string, error) {
	if c.Local {
		return Find(c.Layout, c.HostHome, c.HostDir, id)
	}
	if err := agent.ValidSessionID(id); err != nil {
		return "", err
	}
	root := path.Join(c.SandboxHome, c.Layout.Root)
	src, err := c.find(ctx, root, id)
	if err != nil {
		return "", err
	}
	data, err := c.read(ctx, id, src)
	if err != nil {
		return "", err
	}
	rel := strings.TrimPrefix(src, root+"/")
	if c.Layout.Dir != nil {
		rel = path.Join(c.Layout.Dir(c.HostDir), path.Base(src))
	}
	dst := filepath.Join(c.HostHome, filepath.FromSlash(c.Layout.Root), filepath.FromSlash(rel))
	if err := writeFile(dst, agent.RewriteCwd(data, c.Sandbox.RepoDir(), c.HostDir)); err != nil {
		return "", fmt.Errorf("save session %s: %w", id, err)
	}
	return dst, nil
}

// Restore copies session id from the host into the sandbox, where the agent will look for it,
// with its recorded working directory changed to the sandbox's. It is written by the sandbox's
// user, who must be able to append to it.
func (c *Carrier) Restore(ctx context.Context, id string) error {
	src, err := Find(c.Layout, c.HostHome, c.HostDir, id)
	if err != nil || c.Local {
		return err // a local agent finds the session where it is
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("restore session %s: %w", id, err)
	}
	hostRoot := filepath.Join(c.HostHome, filepath.FromSlash(c.Layout.Root))
	rel, err := filepath.Rel(hostRoot, src)
	if err != nil {
		return fmt.Errorf("restore session %s: %w", id, err)
	}
	rel = filepath.ToSlash(rel)
	if c.Layout.Dir != nil {
		rel = path.Join(c.Layout.Dir(c.Sandbox.RepoDir()), path.Base(rel))
	}
	dst := path.Join(c.SandboxHome, c.Layout.Root, rel)
	r, err := c.Sandbox.Exec(ctx, sandbox.Exec{
		Argv: []string{"sh", "-c", `mkdir -p -- "${1%/*}" && cat > "$1"`, "sh", dst},
		// From the directory the session was made in, which may be an earlier run's worktree.
		Stdin: string(agent.RewriteCwd(data, agent.RecordedCwd(data), c.Sandbox.RepoDir())),
	})
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("exit code %d: %s", r.ExitCode, strings.TrimSpace(r.Stderr))
	}
	if err != nil {
		return fmt.Errorf("restore session %s into the sandbox at %s: %w", id, dst, err)
	}
	return nil
}

// find returns the sandbox path of session id's file under root.
func (c *Carrier) find(ctx context.Context, root, id string) (string, error) {
	r, err := c.Sandbox.Exec(ctx, sandbox.Exec{
		Argv: []string{"find", root, "-type", "f", "-name", c.Layout.Pattern(id), "-print", "-quit"},
	})
	p, _, _ := strings.Cut(r.Stdout, "\n")
	switch {
	case err != nil:
		return "", fmt.Errorf("save session %s: look in the sandbox: %w", id, err)
	case p == "":
		return "", fmt.Errorf("save session %s: no file %s under %s in the sandbox", id, c.Layout.Pattern(id), root)
	}
	return p, nil
}

// read returns the content of the sandbox file p, session id's.
func (c *Carrier) read(ctx context.Context, id, p string) ([]byte, error) {
	r, err := c.Sandbox.Exec(ctx, sandbox.Exec{Argv: []string{"cat", "--", p}})
	switch {
	case err == nil && r.ExitCode != 0:
		err = fmt.Errorf("exit code %d: %s", r.ExitCode, strings.TrimSpace(r.Stderr))
	case err == nil && len(r.Stdout) >= stream.MaxOutput:
		err = fmt.Errorf("larger than %d MiB", stream.MaxOutput>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("save session %s: read %s in the sandbox: %w", id, p, err)
	}
	return []byte(r.Stdout), nil
}

// writeFile writes data to p through a temporary file, so a reader never sees half a session,
// creating the directories on the way; sessions are private to the user.
func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".session-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}
