package docker

import (
	"context"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// BenchmarkStart measures Start and Close of a sandbox.
func BenchmarkStart(b *testing.B) {
	e := requireDocker(b)
	o := Options{Image: testImage, User: "1000:1000", Repo: b.TempDir()}
	for b.Loop() {
		s, err := e.Start(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.Close(context.WithoutCancel(b.Context())); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkExec measures one Exec of a program that does nothing, through the wrapper that makes
// it stoppable.
func BenchmarkExec(b *testing.B) {
	s := benchSandbox(b)
	for b.Loop() {
		if _, err := s.Exec(b.Context(), sandbox.Exec{Argv: []string{"true"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecDirect measures the same without the wrapper: the daemon's own cost.
func BenchmarkExecDirect(b *testing.B) {
	s := benchSandbox(b)
	for b.Loop() {
		if _, _, err := s.run(b.Context(), []string{"true"}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSandbox(b *testing.B) *Sandbox {
	e := requireDocker(b)
	s, err := e.Start(b.Context(), Options{Image: testImage, User: "1000:1000", Repo: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.WithoutCancel(b.Context())) })
	return s
}
