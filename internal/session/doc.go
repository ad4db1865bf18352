// Package session carries an agent's session files between a sandbox and the host, so that a
// session outlives the container it was made in: it is saved to the host after each iteration,
// where the agent's own CLI finds it too, and restored into a new sandbox to be resumed there.
package session
