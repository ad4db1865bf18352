// Package stream bounds a process's output for the sandboxes: it splits stdout into lines as it
// arrives and keeps the head of collected stdout and the tail of stderr, each capped so that a
// runaway process cannot exhaust memory.
package stream
