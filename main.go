// Command sandcastle runs AI coding agents against a git repository, as a GitHub container
// Action or as a local CLI. All wiring lives in internal/app.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/sandcastle-action/sandcastle/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, app.OS())
	stop()
	os.Exit(code)
}
