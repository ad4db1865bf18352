package runner

import (
	"context"
	"log/slog"
)

// Logger is a slog.Logger for the packages that take one (the workspace's notes): warnings
// become annotations, the rest plain lines of the job log, attributes appended as key=value.
func (r *Reporter) Logger() *slog.Logger { return slog.New(handler{r}) }

// handler is the one slog handler of the program.
type handler struct{ r *Reporter }

func (h handler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h handler) Handle(_ context.Context, rec slog.Record) error {
	msg := rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		msg += " " + a.Key + "=" + a.Value.String()
		return true
	})
	// Annotations are for what a user must act on; the rest is a plain log line.
	if rec.Level >= slog.LevelWarn {
		h.r.Warning(msg)
	} else {
		h.r.Info(msg)
	}
	return nil
}

func (h handler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h handler) WithGroup(string) slog.Handler      { return h }
