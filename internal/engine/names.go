package engine

import (
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// logPath is where the run log goes: log-file, or by default .sandcastle/logs/ in the checkout
// top, named after the branch (for merge-to-head, the target's and the temporary one) and the
// run; "" for no file.
func logPath(cfg inputs.Config, source, target, top string) string {
	switch cfg.LogFile {
	case inputs.LogStdout:
		return ""
	case "":
	default:
		return cfg.LogFile
	}
	name := fileSafe(orDefault(source, "HEAD"))
	if cfg.BranchStrategy == inputs.StrategyMergeToHead {
		name = fileSafe(target) + "-" + name
	}
	if cfg.Name != "" {
		name += "-" + nameSafe(cfg.Name)
	}
	return filepath.Join(top, ".sandcastle", "logs", name+".log")
}

// recoveryBranch names the branch that takes the commits when branch moved on the remote, or
// its rules refused them.
func (e *engine) recoveryBranch(branch string) string {
	return "sandcastle/recovery/" + branch + "-" + e.p.RunTag
}

// bundlePath is where the commits of branch are kept when they reach no branch on GitHub:
// beside the run logs, which git status does not show and a later step can upload.
func (e *engine) bundlePath(top, branch string) string {
	return filepath.Join(top, ".sandcastle", "logs", fileSafe(branch)+"-"+e.p.RunTag+".bundle")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fileSafe replaces the characters that cannot appear in file names on common systems.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '-'
		}
		return r
	}, s)
}

// nameSafe lower-cases a run name and keeps only [a-z0-9_.-].
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
}
