// Package sandbox defines where the agent runs: the Sandbox interface shared by the host and
// Docker implementations (packages host and docker), and the Gate through which both start
// every Exec and stop the running ones on Close. Package sandboxtest holds the contract both
// are tested against.
package sandbox
