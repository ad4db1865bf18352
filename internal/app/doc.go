// Package app is the composition root: it reads the environment and flags once, builds the real
// adapters, runs the pipeline and maps its outcome to outputs, a job summary and an exit code.
// Nothing imports app.
package app
