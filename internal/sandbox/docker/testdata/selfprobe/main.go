// Command selfprobe prints as JSON what Engine.Self finds from where it runs: the tests of Self
// run it in containers started the ways runners start an action's.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := docker.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	self, ok, err := e.Self(ctx, docker.OwnClues())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(struct {
		Found bool
		docker.Self
	}{ok, self})
}
