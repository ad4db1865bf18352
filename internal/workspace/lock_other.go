//go:build !unix

package workspace

import "os"

// tryLock does not lock where flock is unavailable: runs are then not protected from each other.
func tryLock(*os.File) error { return nil }
