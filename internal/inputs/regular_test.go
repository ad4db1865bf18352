package inputs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadRegular reads regular files only, within the limit, and says what anything else is
// without waiting on it.
func TestReadRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "prompt.md")
	if err := os.WriteFile(file, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRegular(file, 5); err != nil || string(got) != "hello" {
		t.Errorf("ReadRegular = %q, %v; want the first 5 bytes", got, err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{dir: "a directory", fifo: "a named pipe", "/dev/null": "a device"} {
		var nr *NotRegularError
		if _, err := ReadRegular(path, 10); !errors.As(err, &nr) || nr.Kind != kind {
			t.Errorf("ReadRegular(%s) = %v, want it refused as %s", path, err, kind)
		}
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadRegular of a missing file = %v", err)
	}
}
