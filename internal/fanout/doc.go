// Package fanout turns a plan run's structured output, a list of independent tasks, into the
// job matrix that runs one implement job per task: each task's id checked to make a branch name,
// its prompt checked to be data to the child run, and the matrix written as the JSON
// strategy.matrix reads. It also holds the output's JSON Schema, the default output-schema of a
// plan run. Pure: the host sets the outputs.
package fanout
