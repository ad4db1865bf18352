package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	exe, err := os.Executable()
	if err != nil {
		os.Stderr.WriteString("fakeclaude: " + err.Error() + "\n")
		os.Exit(2)
	}
	dir, _ := os.Getwd()
	f := &fake{script: exe, dir: dir, home: os.Getenv("HOME"), env: os.Environ(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, hang: hang}
	os.Exit(f.run(os.Args[1:]))
}

// hang waits to be stopped, as an agent waiting for a model that never answers does.
func hang() int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	return 143
}
